/*
 * cuda_page_kernels.cu: launches the page kernel (kernel_pages.cuh): checks
 * the column's description, picks where to count, sizes the grid.
 *
 * A separate file from cuda_kernels.cu because the page kernel reads
 * differently from every value kernel (whole pages over PCIe, one block a
 * page) and counts in only two ways: shared counters beside the page while
 * they fit, global atomics above.  The grid fills every SM with as many
 * blocks as fit, since more blocks are more pages in flight, but never more
 * blocks than pages.
 */
#include "cuda_kernels.cuh"

#include "kernel_launch.cuh"
#include "../kernels/kernel_grouped_pages.cuh"
#include "../kernels/kernel_pages.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

using namespace kernels;

/* Pages per launch: even at kMaxTuplesPerPage values each, a launch bins fewer than 2^31 values. */
constexpr size_t kMaxPagesPerLaunch = size_t(1) << 22;
static_assert(kMaxPagesPerLaunch * heap_layout::kMaxTuplesPerPage < (size_t(1) << 31), "32-bit counts");

bool valid_align(uint8_t align)
{
    return align == 1 || align == 2 || align == 4 || align == 8;
}

/* The column's place as the kernel finds it: its width its type's, its offset the walk's over every earlier column. */
bool column_layout_fits(const PageColumn &col)
{
    if (col.attno < 1 || col.nprefix != col.attno - 1 || col.nprefix > kMaxPagePrefix)
        return false;
    if (!valid_align(col.attr.align) || col.attr.len <= 0 ||
        static_cast<uint32_t>(col.attr.len) != page_value_bytes(col.type))
        return false;
    /* the offset the kernel takes for a tuple without NULLs, which only fixed-width columns before it give */
    uint32_t at = 0;
    bool fixed = true;
    for (int32_t a = 0; a < col.nprefix; a++) {
        const PageAttr &p = col.prefix[a];
        if (!valid_align(p.align) || (p.len <= 0 && p.len != kVarlenaLen))
            return false;
        fixed = fixed && p.len > 0;
        if (fixed)
            at = align_offset(at, p.align) + static_cast<uint32_t>(p.len);
    }
    if (!fixed)
        return col.fixed_offset == -1;
    return col.fixed_offset >= 0 && static_cast<uint32_t>(col.fixed_offset) == align_offset(at, col.attr.align);
}

size_t page_shared_bytes(int32_t slots, size_t table_bytes, bool shared)
{
    return heap_layout::kPageBytes + table_space(table_bytes) +
           (shared ? sizeof(unsigned int) * static_cast<size_t>(slots) : 0);
}

/* Whether `slots` counters are counted in shared memory beside the page. */
bool counts_in_shared(int32_t slots, size_t table_bytes, const KernelLimits &limits)
{
    if (limits.force_path == KernelPath::global)
        return false;
    const bool fits = page_shared_bytes(slots, table_bytes, true) <= static_cast<size_t>(limits.max_shared_per_block);
    if (limits.force_path == KernelPath::shared)
        return fits;
    return fits && slots <= kPageSharedMaxSlots;
}

/*
 * Calls launch(blocks, done, part) for n pages in parts of at most
 * kMaxPagesPerLaunch, `done` being a part's first page, with a block per
 * page up to as many blocks of `kernel` as the device holds at once.
 */
template <typename Kernel, typename Launch>
cudaError_t launch_over_pages(Kernel kernel, size_t n, size_t smem, const KernelLimits &limits, Launch launch)
{
    int per_sm = 0;
    cudaError_t err = resident_blocks(kernel, limits.device, kPageThreads, smem, &per_sm);
    if (err != cudaSuccess)
        return err;
    size_t grid = static_cast<size_t>(limits.multiprocessors) * static_cast<size_t>(per_sm);
    if (limits.max_blocks > 0 && grid > static_cast<size_t>(limits.max_blocks))
        grid = static_cast<size_t>(limits.max_blocks);
    for (size_t done = 0; done < n; done += kMaxPagesPerLaunch) {
        const size_t part = n - done < kMaxPagesPerLaunch ? n - done : kMaxPagesPerLaunch;
        launch(static_cast<unsigned>(part < grid ? part : grid), done, part);
        if ((err = cudaGetLastError()) != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* The cache's view of a launch's part that starts at the batch's page `done`. */
PageCacheView from(const PageCacheView &cache, size_t done)
{
    return PageCacheView{cache.directives != nullptr ? cache.directives + done : nullptr, cache.pages};
}

template <typename Binner, bool Shared>
cudaError_t launch_pages(const uint64_t *words, size_t n, const unsigned char *pool, uint64_t pool_pages,
                         const PageCacheView &cache, const PageColumn &col, const Binner &binner,
                         unsigned long long *counts, int *flags, unsigned long long *tuples,
                         const KernelLimits &limits, cudaStream_t stream)
{
    const size_t smem = page_shared_bytes(binner.slots(), binner.table_bytes(), Shared);
    auto kernel = histogram_pages<Binner, Shared>;
    return launch_over_pages(kernel, n, smem, limits, [&](unsigned blocks, size_t done, size_t part) {
        kernel<<<blocks, kPageThreads, smem, stream>>>(words + done, part, pool, pool_pages, from(cache, done), col,
                                                       binner, counts, flags, tuples);
    });
}

/* The page kernel's binner for the time form: the word's bits are the stored integer. */
struct WordInt64Binner {
    kernels::Int64Binner inner;
    __host__ __device__ int32_t slots() const { return inner.slots(); }
    __host__ __device__ size_t table_bytes() const { return 0; }
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(double x, size_t i) const
    {
        int64_t v;
        memcpy(&v, &x, sizeof v);
        return inner(v, i);
    }
};

template <typename Binner, bool Shared>
cudaError_t launch_grouped_pages(const uint64_t *words, size_t n, const unsigned char *pool, uint64_t pool_pages,
                                 const PageCacheView &cache, const GroupedPageSpec &spec, const int64_t *table, int32_t cells,
                                 const Binner &binner, unsigned long long *counts, int *flags,
                                 unsigned long long *tuples, unsigned char *bounced, const KernelLimits &limits,
                                 cudaStream_t stream)
{
    /* every group's cells in shared memory, or a window of as many groups as kPageSharedMaxSlots holds */
    const int64_t slots = grouped_page_slots(spec);
    const int32_t window = Shared ? static_cast<int32_t>(grouped_page_groups(spec))
                           : limits.force_path == KernelPath::global ? 0
                                                                     : static_cast<int32_t>(kPageSharedMaxSlots / slots);
    const size_t smem = heap_layout::kPageBytes + table_space(binner.table_bytes()) +
                        (sizeof(unsigned int) * static_cast<size_t>(window * slots) + 7) / 8 * 8 +
                        grouped_page_agg_bytes(spec);
    auto kernel = grouped_pages<Binner, Shared>;
    return launch_over_pages(kernel, n, smem, limits, [&](unsigned blocks, size_t done, size_t part) {
        kernel<<<blocks, kPageThreads, smem, stream>>>(words + done, part, pool, pool_pages, from(cache, done), spec,
                                                       table, cells, window, binner, counts, flags, tuples,
                                                       bounced + done);
    });
}

/* A varlena column of the type: always walked to (no fixed offset). */
bool varlena_column_fits(const PageColumn &col, PageValueType type)
{
    if (col.type != type || col.as_word || col.attr.len != kVarlenaLen || col.fixed_offset != -1 || col.attno < 1 ||
        col.nprefix != col.attno - 1 || col.nprefix > kMaxPagePrefix || !valid_align(col.attr.align))
        return false;
    for (int32_t a = 0; a < col.nprefix; a++)
        if (!valid_align(col.prefix[a].align) || (col.prefix[a].len <= 0 && col.prefix[a].len != kVarlenaLen))
            return false;
    return true;
}

/* A text qual's or key's column. */
bool text_column_fits(const PageColumn &col) { return varlena_column_fits(col, PageValueType::text); }

/* A column a qual compares as bytes: a text, or a uuid in place. */
bool bytes_column_fits(const PageColumn &col)
{
    return col.type == PageValueType::uuid ? !col.as_word && column_layout_fits(col) : text_column_fits(col);
}

/* A column a histogram bins: one of page_column_fits(), or a numeric, which the kernel may hand back. */
bool binned_column_fits(const PageColumn &col)
{
    return page_column_fits(col) || varlena_column_fits(col, PageValueType::numeric);
}

/* A key or qual column the kernel reads as an integer word (page_word). */
bool word_column_fits(const PageColumn &col)
{
    switch (col.type) {
    case PageValueType::int2:
    case PageValueType::int4:
    case PageValueType::int8:
    case PageValueType::boolean: return column_layout_fits(col);
    default: return false;
    }
}

/*
 * A text key's dictionary, in host memory: each value inside the table,
 * of a length that fits it, and in strictly ascending order of (length,
 * bytes), which the kernel's binary search trusts; each value's slot one
 * of the key's, its NULL group's or the host's.
 */
bool text_dictionary_fits(const PageKey &key, const int64_t *table, int64_t table_words)
{
    const int64_t *at = table + key.table_first, *slots = at + key.entries;
    for (uint32_t i = 0; i < key.entries; i++) {
        if (at[i] < 0 || at[i] >= table_words)
            return false;
        if (slots[i] < kHostSlot || slots[i] > static_cast<int64_t>(page_key_found_slots(key)))
            return false;
        const int64_t len = table[at[i]];
        if (len < 0 || len > kMaxTextKeyBytes || at[i] + 1 + (len + 7) / 8 > table_words)
            return false;
        if (i == 0)
            continue;
        const int64_t prev = table[at[i - 1]];
        if (prev > len)
            return false;
        if (prev == len && memcmp(table + at[i - 1] + 1, table + at[i] + 1, static_cast<size_t>(len)) >= 0)
            return false;
    }
    return true;
}

/* A key's remap, in host memory: each word one of the key's slots, its NULL group's or the host's. */
bool remap_fits(const PageKey &key, const int64_t *table)
{
    for (uint32_t i = 0; i < key.remap_count; i++) {
        const int64_t w = table[key.remap_first + i];
        if (w < kHostSlot || w > static_cast<int64_t>(key.slots))
            return false;
    }
    return true;
}

/* Every field binning reads, as prepare_int64 makes it (no padding compared). */
bool same_binning(const Int64Binning &a, const Int64Binning &b)
{
    return a.lo == b.lo && a.hi == b.hi && a.range == b.range && a.nbins == b.nbins && a.ascending == b.ascending &&
           a.clamp_to_count == b.clamp_to_count && a.scale == b.scale && a.slack == b.slack &&
           a.round_window == b.round_window && a.range_weight == b.range_weight &&
           a.range_first_digit == b.range_first_digit;
}

/*
 * A histogram's form against the column it bins, the spec's own and each
 * further one alike: a valid spec of the form, the column read as the
 * form needs (a word for the time form, a float8 else), thresholds inside
 * the table.  Its bucket count goes to *nbins.
 */
bool form_fits(PageForm form, const PageColumn &col, const BucketSpec &interval, const Int64Spec &time,
               uint32_t thresholds_first, int32_t thresholds_count, int64_t table_words, int64_t *nbins)
{
    switch (form) {
    case PageForm::width_bucket:
        *nbins = interval.nbins;
        return !col.as_word && validate_spec(interval) == SpecError::none;
    case PageForm::time:
        *nbins = time.nbins;
        return col.as_word && validate_int64_spec(time, false) == SpecError::none;
    case PageForm::thresholds:
        *nbins = thresholds_count - 1;
        return !col.as_word && thresholds_count >= 1 && thresholds_count <= kMaxThresholds &&
               static_cast<int64_t>(thresholds_first) + thresholds_count <= table_words;
    }
    return false;
}

/*
 * Another histogram of the spec (PageAggKind::histogram), in host memory:
 * its column and PageHist inside the table, its form fitting its column,
 * the time form's binning as prepare_int64 makes it, and cells for exactly
 * its buckets.
 */
bool histogram_agg_fits(const PageAgg &agg, const int64_t *table, int64_t table_words)
{
    if (static_cast<int64_t>(agg.column_first) + kPageColumnWords + kPageHistWords > table_words)
        return false;
    PageColumn col;
    PageHist h;
    memcpy(&col, table + agg.column_first, sizeof col);
    memcpy(&h, table + agg.column_first + kPageColumnWords, sizeof h);
    int64_t nbins = 0;
    if (!binned_column_fits(col) ||
        !form_fits(h.form, col, h.interval, h.time, h.thresholds_first, h.thresholds_count, table_words, &nbins))
        return false;
    if (h.form == PageForm::time && !same_binning(h.binning, prepare_int64(h.time)))
        return false;
    return agg.cells == nbins + 2;
}

} // namespace

bool grouped_page_spec_fits(const GroupedPageSpec &spec, int64_t table_words)
{
    return grouped_page_spec_fits(spec, nullptr, table_words);
}

bool grouped_page_spec_fits(const GroupedPageSpec &spec, const int64_t *table, int64_t table_words)
{
    int64_t nbins = 0;
    if (!binned_column_fits(spec.value) ||
        !form_fits(spec.form, spec.value, spec.interval, spec.time, spec.thresholds_first, spec.thresholds_count,
                   table_words, &nbins) ||
        spec.nkeys < 0 ||
        spec.nkeys > kMaxPageKeys || spec.nquals < 0 || spec.nquals > kMaxPageQuals ||
        (spec.rows_to_host != 0 && spec.rows_to_host != 1))
        return false;
    for (int32_t q = 0; q < spec.nquals; q++) {
        const PageQual &qual = spec.quals[q];
        if (q > 0 && qual.clause < spec.quals[q - 1].clause)
            return false;
        if (qual.column.type == PageValueType::text || qual.column.type == PageValueType::uuid) {
            if (!bytes_column_fits(qual.column))
                return false;
            if (qual.cmp == PageCmp::is_null || qual.cmp == PageCmp::is_not_null)
                continue;
            if ((qual.cmp != PageCmp::in && qual.cmp != PageCmp::not_in) || qual.list_words == 0 ||
                static_cast<int64_t>(qual.list_first) + qual.list_words > table_words)
                return false;
            continue;
        }
        if (qual.is_float ? !page_column_fits(qual.column) : !word_column_fits(qual.column))
            return false;
        if (static_cast<int32_t>(qual.cmp) < 0 || static_cast<int32_t>(qual.cmp) > static_cast<int32_t>(PageCmp::is_not_null))
            return false;
        if ((qual.cmp == PageCmp::in || qual.cmp == PageCmp::not_in) &&
            (qual.list_count == 0 ||
             static_cast<int64_t>(qual.list_first) + static_cast<int64_t>(qual.list_count) > table_words))
            return false;
    }
    if (spec.naggs < 0 || spec.naggs > kMaxPageAggs)
        return false;
    for (int32_t a = 0; a < spec.naggs; a++) {
        const PageAgg &agg = spec.aggs[a];
        if (agg.kind == PageAggKind::histogram) {
            if (table != nullptr && !histogram_agg_fits(agg, table, table_words))
                return false;
            /* a single threshold's histogram has two cells */
            if (agg.is_float != 0 || agg.cells < 2 || agg.cells > kMaxBins + 2)
                return false;
            continue;
        }
        if (static_cast<int64_t>(agg.column_first) + kPageColumnWords > table_words ||
            static_cast<int32_t>(agg.kind) < 0 || static_cast<int32_t>(agg.kind) > static_cast<int32_t>(PageAggKind::count) ||
            agg.cells != page_agg_cells(agg.kind) || (agg.is_float != 0 && agg.is_float != 1) ||
            (agg.kind == PageAggKind::exact_sum && !agg.is_float) ||
            ((agg.kind == PageAggKind::int_sum || agg.kind == PageAggKind::int8_sum || agg.kind == PageAggKind::count) &&
             agg.is_float))
            return false;
        if (table == nullptr) /* on the device: checked when the spec was opened */
            continue;
        PageColumn col;
        memcpy(&col, table + agg.column_first, sizeof col);
        if (agg.kind == PageAggKind::count) {
            /* only located: a column the kernel can walk to, of any type it knows */
            if (col.as_word || !(bytes_column_fits(col) || word_column_fits(col) || binned_column_fits(col)))
                return false;
            continue;
        }
        if (col.as_word || !(agg.is_float ? page_column_fits(col) && (col.type == PageValueType::float4 ||
                                                                      col.type == PageValueType::float8)
                                          : word_column_fits(col)))
            return false;
    }
    for (int32_t k = 0; k < spec.nkeys; k++) {
        const PageKey &key = spec.keys[k];
        if (key.slots == 0 || key.slots > (1u << 30) || (key.filter != 0 && key.filter != 1) ||
            (key.filter == 1 && key.slots != 1))
            return false;
        /* a remap: an inner slot and the NULL entry at least, inside the table; its words checked where it is read */
        if (key.remap_count != 0 &&
            (key.remap_count < 2 || key.remap_count - 1 > (1u << 30) ||
             static_cast<int64_t>(key.remap_first) + static_cast<int64_t>(key.remap_count) > table_words ||
             (table != nullptr && !remap_fits(key, table))))
            return false;
        switch (key.kind) {
        case PageKeyKind::column:
            if (!word_column_fits(key.column))
                return false;
            break;
        case PageKeyKind::intervals:
        case PageKeyKind::local_period:
            if (!word_column_fits(key.column) || key.intervals == 0 ||
                static_cast<int64_t>(key.table_first) + 2 * static_cast<int64_t>(key.intervals) > table_words)
                return false;
            /* a period's slots are its values; local time within a day of the stored time's range */
            if (key.kind == PageKeyKind::local_period &&
                (key.unit <= 0 || key.period <= 0 || page_key_found_slots(key) != static_cast<uint32_t>(key.period) ||
                 key.shift < 0 || key.shift >= key.period || key.column.type != PageValueType::int8))
                return false;
            break;
        case PageKeyKind::width_bucket:
            if (!page_column_fits(key.column) || validate_spec(key.wb) != SpecError::none ||
                static_cast<int64_t>(page_key_found_slots(key)) != static_cast<int64_t>(key.wb.nbins) + 2)
                return false;
            break;
        case PageKeyKind::text:
            if (!bytes_column_fits(key.column) || key.entries == 0 ||
                static_cast<int64_t>(key.table_first) + 2 * static_cast<int64_t>(key.entries) > table_words ||
                (table != nullptr && !text_dictionary_fits(key, table, table_words)))
                return false;
            break;
        default: return false;
        }
    }
    /* the cells, and the tuple counter after them, are addressed with int32_t */
    return grouped_page_groups(spec) <= INT32_MAX && grouped_page_cells(spec) < INT32_MAX;
}

namespace {

/* The thresholds binner without its shared copy: the search reads the table in global memory. */
struct ThresholdsInTable : kernels::ThresholdBinner {
    __host__ __device__ size_t table_bytes() const { return 0; }
    __device__ void attach(unsigned char *) {}
};

} // namespace

cudaError_t bin_grouped_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                        uint64_t pool_pages, const GroupedPageSpec &spec, const int64_t *table,
                                        int32_t table_words, unsigned long long *counts, int *flags,
                                        unsigned long long *tuples, unsigned char *bounced,
                                        const KernelLimits &limits, cudaStream_t stream, const PageCacheView &cache)
{
    if (!grouped_page_spec_fits(spec, table_words) || reinterpret_cast<uintptr_t>(pool) % 16 != 0 ||
        tuples == nullptr || bounced == nullptr)
        return cudaErrorInvalidValue;
    if (npages == 0)
        return cudaSuccess;
    const int32_t cells = static_cast<int32_t>(grouped_page_cells(spec));
    auto launch = [&](auto binner) {
        return counts_in_shared(cells, table_space(binner.table_bytes()) + grouped_page_agg_bytes(spec), limits)
                   ? launch_grouped_pages<decltype(binner), true>(page_words, npages, pool, pool_pages, cache, spec,
                                                                  table, cells, binner, counts, flags, tuples,
                                                                  bounced, limits, stream)
                   : launch_grouped_pages<decltype(binner), false>(page_words, npages, pool, pool_pages, cache,
                                                                   spec, table, cells, binner, counts, flags,
                                                                   tuples, bounced, limits, stream);
    };
    if (spec.form == PageForm::time)
        return launch(WordInt64Binner{kernels::Int64Binner{prepare_int64(spec.time)}});
    if (spec.form == PageForm::thresholds) {
        const kernels::ThresholdBinner binner{reinterpret_cast<const double *>(table + spec.thresholds_first),
                                              spec.thresholds_count};
        /* up to the ungrouped page kernel's bound each block copies them from the table, past it they are searched there */
        if (spec.thresholds_count <= kMaxPageThresholds)
            return launch(binner);
        return launch(ThresholdsInTable{binner});
    }
    return with_float_binner(spec.interval, launch);
}

bool page_column_fits(const PageColumn &col)
{
    if (col.as_word) /* the time form's stored integer: a date or a timestamp */
        return (col.type == PageValueType::int4 || col.type == PageValueType::int8) && column_layout_fits(col);
    switch (col.type) {
    case PageValueType::float8:
    case PageValueType::float4:
    case PageValueType::int2:
    case PageValueType::int4:
    case PageValueType::int8: return column_layout_fits(col);
    default: return false; /* a boolean is never binned */
    }
}

KernelPath page_path(int32_t nbins, const KernelLimits &limits)
{
    return counts_in_shared(nbins + 2, 0, limits) ? KernelPath::shared : KernelPath::global;
}

cudaError_t bin_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                uint64_t pool_pages, const PageColumn &col, const BucketSpec &spec,
                                unsigned long long *counts, int *flags, unsigned long long *tuples,
                                const KernelLimits &limits, cudaStream_t stream, const PageCacheView &cache)
{
    if (!page_column_fits(col) || reinterpret_cast<uintptr_t>(pool) % 16 != 0 || tuples == nullptr)
        return cudaErrorInvalidValue;
    if (npages == 0)
        return cudaSuccess;
    return with_float_binner(spec, [&](auto binner) {
        return counts_in_shared(binner.slots(), binner.table_bytes(), limits)
                   ? launch_pages<decltype(binner), true>(page_words, npages, pool, pool_pages, cache, col, binner,
                                                          counts, flags, tuples, limits, stream)
                   : launch_pages<decltype(binner), false>(page_words, npages, pool, pool_pages, cache, col,
                                                           binner, counts, flags, tuples, limits, stream);
    });
}

namespace {

template <typename Binner>
cudaError_t launch_pages_with(const Binner &binner, const uint64_t *page_words, size_t npages,
                              const unsigned char *pool, uint64_t pool_pages, const PageColumn &col,
                              unsigned long long *counts, int *flags, unsigned long long *tuples,
                              const KernelLimits &limits, cudaStream_t stream, const PageCacheView &cache)
{
    return counts_in_shared(binner.slots(), binner.table_bytes(), limits)
               ? launch_pages<Binner, true>(page_words, npages, pool, pool_pages, cache, col, binner, counts, flags,
                                            tuples, limits, stream)
               : launch_pages<Binner, false>(page_words, npages, pool, pool_pages, cache, col, binner, counts,
                                             flags, tuples, limits, stream);
}

} // namespace

cudaError_t bin_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                uint64_t pool_pages, const PageColumn &col, const HistogramSpec &spec,
                                unsigned long long *counts, int *flags, unsigned long long *tuples,
                                const KernelLimits &limits, cudaStream_t stream, const PageCacheView &cache)
{
    /* the float8 form reads the value as the cast makes it, the time form as the stored integer */
    const bool words = spec.kind == SpecKind::int64_interval;
    if (col.as_word != words || !page_column_fits(col) || reinterpret_cast<uintptr_t>(pool) % 16 != 0 ||
        tuples == nullptr)
        return cudaErrorInvalidValue;
    switch (spec.kind) {
    case SpecKind::float_interval:
        return bin_pages_on_device(page_words, npages, pool, pool_pages, col, spec.interval, counts, flags, tuples,
                                   limits, stream, cache);
    case SpecKind::int64_interval:
        if (npages == 0)
            return cudaSuccess;
        return launch_pages_with(WordInt64Binner{kernels::Int64Binner{prepare_int64(spec.int64)}}, page_words,
                                 npages, pool, pool_pages, col, counts, flags, tuples, limits, stream, cache);
    case SpecKind::thresholds:
        /* the device copy of the thresholds (gpu_histogram_open staged it), copied to shared memory per block */
        if (spec.thresholds.thresholds == nullptr || spec.thresholds.count < 0 ||
            spec.thresholds.count > kMaxPageThresholds)
            return cudaErrorInvalidValue;
        if (npages == 0)
            return cudaSuccess;
        return launch_pages_with(kernels::ThresholdBinner{spec.thresholds.thresholds, spec.thresholds.count},
                                 page_words, npages, pool, pool_pages, col, counts, flags, tuples, limits, stream,
                                 cache);
    }
    return cudaErrorInvalidValue;
}

} // namespace gh
