/*
 * kernel_grouped_pages.cuh: the grouped page kernel, for
 * cuda_page_kernels.cu (and the unit tests, which run its row evaluation
 * on the host).  It runs a grouped, filtered scan over heap pages as
 * grouped_page_spec.h describes: the WHERE clause, the keys and the value
 * of each tuple read out of the page, and the value counted into its
 * group's cells.
 *
 * It reads pages as the ungrouped page kernel does (kernel_pages.cuh): a
 * block of kPageThreads threads per page at a time, the next page's loads
 * in flight while it parses the current one from shared memory; but each
 * block takes a contiguous run of the batch's pages rather than every
 * gridDim-th one, so that time-ordered rows keep it among few groups.
 * Parsing differs in one way: a page is counted only once every row on it
 * has its group.  Each thread keeps its rows' cells in registers (a page has at
 * most 291 line pointers: three a thread), the block agrees
 * (__syncthreads_or) that no row needs the host, and only then are they
 * counted; otherwise the page is flagged and the host reads it whole.
 *
 * Counting: 32-bit counters in shared memory beside the page, for every
 * group while their cells fit (kPageSharedMaxSlots), else for a window of
 * consecutive groups (see grouped_pages below); added to the global
 * 64-bit cells once per block, or when the window moves.
 */
#ifndef GH_KERNEL_GROUPED_PAGES_CUH
#define GH_KERNEL_GROUPED_PAGES_CUH

#include "../specs/grouped_page_spec.h"
#include "kernel_page_aggs.cuh"
#include "kernel_pages.cuh"

namespace gh {
namespace kernels {

/* Rows a thread evaluates on one page: kMaxTuplesPerPage over kPageThreads, rounded up. */
constexpr int kRowsPerThread = (heap_layout::kMaxTuplesPerPage + kPageThreads - 1) / kPageThreads;

/* What a row comes to. */
enum class RowFate { skip, count, host };

/*
 * A float8 comparison as PostgreSQL's float8 operators make it: NaN equals
 * NaN and sorts above everything else.
 */
__host__ __device__ __forceinline__ int float8_order(double a, double b)
{
    const bool an = a != a, bn = b != b;
    if (an || bn)
        return an && bn ? 0 : an ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
}

__host__ __device__ __forceinline__ bool compares(int order, PageCmp cmp)
{
    switch (cmp) {
    case PageCmp::lt: return order < 0;
    case PageCmp::le: return order <= 0;
    case PageCmp::eq: return order == 0;
    case PageCmp::ge: return order >= 0;
    case PageCmp::gt: return order > 0;
    case PageCmp::ne: return order != 0;
    case PageCmp::in:
    case PageCmp::not_in: /* a list's: listed() answers */
    case PageCmp::is_null:
    case PageCmp::is_not_null: break; /* passes() answers */
    }
    return false;
}

/* Whether x (a float8 list's) or w (an integer list's) is among the qual's list in table. */
__host__ __device__ __forceinline__ bool listed(const PageQual &q, const int64_t *table, double x, int64_t w)
{
    const int64_t *list = table + q.list_first;
    auto order = [&](int64_t entry) {
        if (!q.is_float)
            return entry < w ? -1 : entry > w ? 1 : 0;
        double e;
        memcpy(&e, &entry, sizeof e);
        return float8_order(e, x);
    };
    uint32_t lo = 0, hi = q.list_count; /* the first entry >= the value: in [lo, hi] */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (order(list[mid]) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q.list_count && order(list[lo]) == 0;
}

/*
 * Whether the n bytes at page + at are among a text qual's values, which
 * lie in table from list_first, list_words words: each a word holding its
 * length in bytes, then its bytes, padded to a word.
 */
__host__ __device__ __forceinline__ bool text_listed(const PageQual &q, const int64_t *table,
                                                    const unsigned char *bytes, uint32_t n)
{
    const int64_t *entry = table + q.list_first, *end = entry + q.list_words;
    while (entry < end) {
        const int64_t len = entry[0];
        const int64_t words = (len + 7) / 8;
        if (len < 0 || words > end - entry - 1)
            return false; /* the host wrote a bad table: grouped_page_spec_fits refuses it first */
        if (len == n) {
            const unsigned char *value = reinterpret_cast<const unsigned char *>(entry + 1);
            uint32_t i = 0;
            while (i < n && value[i] == bytes[i])
                i++;
            if (i == n)
                return true;
        }
        entry += 1 + words;
    }
    return false;
}

/* Whether a qual compares its column's bytes: a text's, or a uuid's. */
__host__ __device__ __forceinline__ bool bytes_qual(const PageQual &q)
{
    return q.column.type == PageValueType::text || q.column.type == PageValueType::uuid;
}

/*
 * A bytes column's comparison with a qual's values: a uuid's 16 bytes in
 * place, as uuid_eq compares them, or a text value stored inline without
 * compression, as texteq does under a deterministic collation; a
 * compressed or out-of-line text is the host's (*bad: its page goes back).
 */
__host__ __device__ __forceinline__ bool text_passes(const unsigned char *page, uint32_t at, const PageQual &q,
                                                    const int64_t *table, bool *bad)
{
    const unsigned char *bytes = page + at;
    uint32_t n = page_value_bytes(PageValueType::uuid);
    if (q.column.type != PageValueType::uuid && !inline_varlena(page, at, &bytes, &n)) {
        *bad = true;
        return false;
    }
    return text_listed(q, table, bytes, n) == (q.cmp == PageCmp::in);
}

/*
 * The slot of n bytes in a text key's dictionary (PageKeyKind::text): its
 * `entries` values, each a word with its length and then its bytes, found
 * through the words at table + table_first, which hold where each starts
 * in the table, in the order of (length, bytes); the slot is the word
 * `entries` further on.  -1 (kHostSlot) if absent, or the host's.
 */
__host__ __device__ __forceinline__ int64_t text_slot(const PageKey &key, const int64_t *table,
                                                     const unsigned char *bytes, uint32_t n)
{
    const int64_t *at = table + key.table_first;
    uint32_t lo = 0, hi = key.entries; /* the first entry not below the value: in [lo, hi] */
    auto order = [&](uint32_t i) {
        const int64_t *entry = table + at[i];
        if (entry[0] != static_cast<int64_t>(n))
            return entry[0] < static_cast<int64_t>(n) ? -1 : 1;
        const unsigned char *value = reinterpret_cast<const unsigned char *>(entry + 1);
        for (uint32_t b = 0; b < n; b++)
            if (value[b] != bytes[b])
                return value[b] < bytes[b] ? -1 : 1;
        return 0;
    };
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (order(mid) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < key.entries && order(lo) == 0 ? at[key.entries + lo] : kHostSlot;
}

/* Whether the tuple passes the qual; a NULL column fails, as a strict operator gives, but the NULL tests. */
__host__ __device__ __forceinline__ bool passes(const unsigned char *page, uint32_t item, const PageQual &q,
                                               const int64_t *table, bool *bad)
{
    uint32_t at = 0;
    const Found f = locate_column(page, item, q.column, &at);
    if (f == Found::bad) {
        *bad = true;
        return false;
    }
    const bool null = f == Found::null || (f == Found::missing && !q.column.has_missing);
    if (q.cmp == PageCmp::is_null || q.cmp == PageCmp::is_not_null)
        return null == (q.cmp == PageCmp::is_null);
    if (null)
        return false;
    if (bytes_qual(q)) /* a missing value: the host's answer for it */
        return f == Found::present ? text_passes(page, at, q, table, bad) : q.column.missing_word != 0;
    double x = 0;
    int64_t w = 0;
    if (q.is_float)
        x = f == Found::present ? page_value(page, at, q.column.type) : q.column.missing_value;
    else
        w = f == Found::present ? page_word(page, at, q.column.type) : q.column.missing_word;
    if (q.cmp == PageCmp::in || q.cmp == PageCmp::not_in)
        return listed(q, table, x, w) == (q.cmp == PageCmp::in);
    const int order = q.is_float ? float8_order(x, q.value) : w < q.word ? -1 : w > q.word ? 1 : 0;
    return compares(order, q.cmp);
}

/*
 * The key's slot for the tuple as its kind finds it, among nslots (nslots
 * for NULL); false: the GPU cannot place it, or the tuple is bad.
 */
__host__ __device__ __forceinline__ bool found_slot(const unsigned char *page, uint32_t item, const PageKey &key,
                                                    const int64_t *table, uint32_t nslots, uint32_t *slot,
                                                    uint32_t *hint)
{
    uint32_t at = 0;
    const Found f = locate_column(page, item, key.column, &at);
    if (f == Found::bad)
        return false;
    if (f == Found::null || (f == Found::missing && !key.column.has_missing)) {
        *slot = nslots;
        return key.null_host == 0;
    }
    if (key.kind == PageKeyKind::text) {
        /*
         * a value the dictionary lacks, a compressed or out-of-line one, or
         * the column's missing value: the host's; a uuid's 16 bytes are
         * matched in place
         */
        const unsigned char *bytes = page + at;
        uint32_t n = page_value_bytes(PageValueType::uuid);
        if (f != Found::present || (key.column.type != PageValueType::uuid && !inline_varlena(page, at, &bytes, &n)))
            return false;
        const int64_t s = text_slot(key, table, bytes, n);
        if (s == kHostSlot)
            return false;
        *slot = static_cast<uint32_t>(s);
        return true;
    }
    if (key.kind == PageKeyKind::width_bucket) {
        const double y = f == Found::present ? page_value(page, at, key.column.type) : key.column.missing_value;
        const int32_t b = width_bucket(y, key.wb);
        if (b < 0) /* NaN: width_bucket's error is the host's to raise */
            return false;
        *slot = static_cast<uint32_t>(b);
        return true;
    }
    const int64_t w = f == Found::present ? page_word(page, at, key.column.type) : key.column.missing_word;
    if (key.kind == PageKeyKind::column) {
        /* unsigned: a value below base wraps above the window */
        const uint64_t d = static_cast<uint64_t>(w) - static_cast<uint64_t>(key.base);
        if (w < key.base || d >= nslots)
            return false;
        *slot = static_cast<uint32_t>(d);
        return true;
    }
    const int64_t *starts = table + key.table_first;
    const uint32_t n = key.intervals;
    if (n == 0 || w < starts[0] || w >= key.end)
        return false;
    /*
     * A thread's rows on a page are 128 line pointers apart: in a table
     * kept in time order, mostly in the interval of the row before.  The
     * search over an hourly heatmap's 28,000 intervals is 15 dependent loads.
     */
    uint32_t lo = 0;
    if (hint != nullptr && *hint < n && starts[*hint] <= w && (*hint + 1 == n || w < starts[*hint + 1])) {
        lo = *hint;
    } else {
        uint32_t hi = n; /* the last start <= w: in [lo, hi) */
        while (hi - lo > 1) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (starts[mid] <= w)
                lo = mid;
            else
                hi = mid;
        }
        if (hint != nullptr)
            *hint = lo;
    }
    const int64_t word = starts[n + lo]; /* the slots (or the offsets) follow the starts */
    if (key.kind == PageKeyKind::local_period) {
        /* timestamp2tm's steps: the local time, its unit's number, the field the period gives it */
        const int64_t local = w + word;
        const int64_t units = local >= 0 ? local / key.unit : -((-local + key.unit - 1) / key.unit);
        const int64_t r = (units + key.shift) % key.period;
        *slot = static_cast<uint32_t>(r < 0 ? r + key.period : r);
        return true;
    }
    *slot = static_cast<uint32_t>(word);
    return word != kHostSlot;
}

/*
 * The key's slot for the tuple (key.slots for NULL), through its remap
 * where it has one; false: the GPU cannot place it, or the tuple is bad.
 */
__host__ __device__ __forceinline__ bool key_slot(const unsigned char *page, uint32_t item, const PageKey &key,
                                                  const int64_t *table, uint32_t *slot, uint32_t *hint = nullptr)
{
    if (key.remap_count == 0)
        return found_slot(page, item, key, table, key.slots, slot, hint);
    uint32_t inner = 0;
    if (!found_slot(page, item, key, table, key.remap_count - 1, &inner, hint))
        return false;
    const int64_t word = table[key.remap_first + inner];
    *slot = static_cast<uint32_t>(word);
    return word != kHostSlot;
}

/*
 * Evaluates one line pointer: skip (not a normal tuple, or the WHERE clause
 * fails), count (*row_cell is the group's row counter, *value_cell the
 * value's bucket cell or -1 for a NULL value, and the value aggregates'
 * values in *aggs), or host (a key the GPU cannot place).  bucket(x) is the histogram's width_bucket: < 0 for NaN,
 * which is counted nowhere and reported in *errors.  For the time form x
 * carries the stored integer in its bits, and bucket(x) is numeric
 * width_bucket over that integer.
 */
template <typename Bucket>
__host__ __device__ __forceinline__ RowFate evaluate_row(const unsigned char *page, uint32_t item,
                                                         const GroupedPageSpec &spec, const int64_t *table,
                                                         Bucket bucket, int64_t *value_cell, int64_t *row_cell,
                                                         int *errors, uint32_t *hints = nullptr,
                                                         AggRow *aggs = nullptr)
{
    if ((item >> heap_layout::kLpFlagsShift & 3) != heap_layout::kLpNormal)
        return RowFate::skip;
    for (int32_t q = 0; q < spec.nquals;) {
        /* one clause: its atoms until one passes, as an OR (atoms raise nothing, so order is free) */
        const int32_t clause = spec.quals[q].clause;
        bool any = false;
        for (; q < spec.nquals && spec.quals[q].clause == clause; q++) {
            if (any)
                continue;
            bool bad = false;
            any = passes(page, item, spec.quals[q], table, &bad);
            if (bad)
                return RowFate::host;
        }
        if (!any)
            return RowFate::skip;
    }
    /* the clauses over keys: slot 0 passes; the host answered each slot, so nothing here raises */
    for (int32_t k = 0; k < spec.nkeys; k++) {
        if (spec.keys[k].filter == 0)
            continue;
        uint32_t slot = 0;
        if (!key_slot(page, item, spec.keys[k], table, &slot, hints != nullptr ? &hints[k] : nullptr))
            return RowFate::host;
        if (slot != 0)
            return RowFate::skip;
    }
    if (spec.rows_to_host)
        return RowFate::host;
    int64_t group = 0;
    for (int32_t k = 0; k < spec.nkeys; k++) {
        if (spec.keys[k].filter != 0)
            continue;
        uint32_t slot = 0;
        if (!key_slot(page, item, spec.keys[k], table, &slot, hints != nullptr ? &hints[k] : nullptr))
            return RowFate::host;
        group = group * (static_cast<int64_t>(spec.keys[k].slots) + 1) + slot;
    }
    const int64_t slots = grouped_page_slots(spec);
    *row_cell = group * slots + grouped_page_rows_cell(spec);
    *value_cell = -1;
    uint32_t at = 0;
    const Found f = locate_column(page, item, spec.value, &at);
    if (f == Found::bad)
        return RowFate::host;
    if (f == Found::present || (f == Found::missing && spec.value.has_missing)) {
        /* the time form's stored integer travels as a double's bits, as the ungrouped page kernel reads it */
        const PageColumn &v = spec.value;
        double x = v.as_word ? word_bits(v.missing_word) : v.missing_value;
        if (f == Found::present && v.as_word)
            x = word_bits(page_word(page, at, v.type));
        else if (f == Found::present && !float_value(page, at, v, &x))
            return RowFate::host; /* a numeric the GPU does not convert */
        const int32_t b = bucket(x);
        if (b < 0)
            *errors |= -b;
        else
            *value_cell = group * slots + b;
    }
    if (spec.naggs > 0 && aggs != nullptr && !read_agg_row(page, item, spec, table, aggs, errors))
        return RowFate::host;
    return RowFate::count;
}

/*
 * Dynamic shared memory: the page (kPageBytes, 16-byte aligned), the
 * binner's table (a thresholds form's thresholds: 8 of them by the hour of
 * the day over 100M cached rows took 23.5 ms on the H200 searched in
 * global memory, 16.0 in shared), then `window` groups' cells of 32-bit
 * counters: every group's when Shared
 * (window * slots == cells), else a window of consecutive groups that
 * moves to each page's lowest group when that page's rows fall outside it
 * (its counts added to the global cells first); rows of groups past the
 * window go to the global cells at once.  Each block takes a contiguous
 * run of the batch's pages: a scan sends them in table order, so
 * time-ordered rows keep a block inside one window for its whole run (an
 * hourly heatmap over 100M rows went from 420 ms with every count a global
 * atomic to 357 ms serially, GROUP BY g with every group in shared memory
 * taking 176 ms).  bounced[p] is set to 1 for each page the host must
 * read, 0 for the others.  The normal tuples of the pages counted here go
 * into *tuples.  After the counters, 8-aligned, the block's accumulator
 * of the value aggregates of one group (kernel_page_aggs.cuh): the group
 * of the page's lowest counted row; its cells are the aggregates' in
 * order, without other histograms' (grouped_page_accumulated_cells).
 */
template <typename Binner, bool Shared>
__global__ void __launch_bounds__(kPageThreads)
    grouped_pages(const uint64_t *__restrict__ words, size_t n, const unsigned char *__restrict__ pool,
                  uint64_t pool_pages, const PageCacheView cache, const GroupedPageSpec spec, const int64_t *__restrict__ table, int32_t cells,
                  int32_t window, Binner binner, unsigned long long *__restrict__ counts, int *__restrict__ flags,
                  unsigned long long *__restrict__ tuples, unsigned char *__restrict__ bounced)
{
    unsigned char *page = dynamic_shared();
    unsigned char *binner_table = page + heap_layout::kPageBytes;
    binner.attach(binner_table);
    unsigned int *block_counts = reinterpret_cast<unsigned int *>(binner_table + table_space(binner.table_bytes()));
    __shared__ unsigned long long page_min; /* the page's lowest counted row cell */
    const int64_t slots = grouped_page_slots(spec);
    const int64_t window_cells = static_cast<int64_t>(window) * slots;
    const int64_t agg_cells = grouped_page_accumulated_cells(spec);
    unsigned long long *agg_block = reinterpret_cast<unsigned long long *>(
        reinterpret_cast<unsigned char *>(block_counts) + (sizeof(unsigned int) * window_cells + 7) / 8 * 8);
    int64_t agg_first = -1; /* the global cell of the accumulator's group's first aggregate cell */
    for (int64_t i = threadIdx.x; i < agg_cells; i += kPageThreads)
        agg_block[i] = 0;
    int64_t window_first = 0; /* the window's first cell: the same in every thread */
    for (int64_t i = threadIdx.x; i < window_cells; i += kPageThreads)
        block_counts[i] = 0;

    int errors = 0;
    unsigned int normal = 0;
    uint32_t hints[kMaxPageKeys] = {}; /* each interval key's last interval, for the next row */
    Run run; /* global counts of cells past the window, a thread's runs of one cell added once */
    auto add = [&](int32_t c, uint32_t k) { atomicAdd(&counts[c], static_cast<unsigned long long>(k)); };
    auto count = [&](int64_t c) {
        const int64_t in = c - window_first;
        if (Shared || (in >= 0 && in < window_cells))
            atomicAdd(&block_counts[in], 1u);
        else
            run.push(static_cast<int32_t>(c), add);
    };
    /* the window's counts into the global cells, zeroed: every thread calls it, between barriers */
    auto flush = [&]() {
        for (int64_t i = threadIdx.x; i < window_cells; i += kPageThreads) {
            const unsigned int k = block_counts[i];
            if (k != 0) {
                atomicAdd(&counts[window_first + i], static_cast<unsigned long long>(k));
                block_counts[i] = 0;
            }
        }
    };
    auto bucket = [&](double x) { return binner(x, 0); };

    /* this block's pages: a contiguous run, the same trip count for every thread */
    const size_t per_block = (n + gridDim.x - 1) / gridDim.x;
    const size_t first = static_cast<size_t>(blockIdx.x) * per_block;
    const size_t last = first + per_block < n ? first + per_block : n;
    PageStream pages{words, last, pool, pool_pages, cache};
    pages.start(first);
    for (size_t p = first; p < last; p++) {
        const uint32_t lines = pages.advance(page, p + 1, [&] {
            if (threadIdx.x == 0)
                page_min = ~0ULL;
        });
        int64_t value_cells[kRowsPerThread], row_cells[kRowsPerThread];
        AggRow agg_rows[kRowsPerThread];
        unsigned int page_normal = 0;
        int page_errors = 0;
        bool host = false;
        unsigned long long low = ~0ULL;
#pragma unroll
        for (int r = 0; r < kRowsPerThread; r++) {
            const uint32_t i = threadIdx.x + static_cast<uint32_t>(r) * kPageThreads;
            row_cells[r] = -1;
            if (i >= lines)
                continue;
            const uint32_t item = load_from_page<uint32_t>(page, heap_layout::kLinePointers + 4 * i);
            page_normal += (item >> heap_layout::kLpFlagsShift & 3) == heap_layout::kLpNormal;
            const RowFate fate =
                evaluate_row(page, item, spec, table, bucket, &value_cells[r], &row_cells[r], &page_errors, hints,
                             &agg_rows[r]);
            if (fate == RowFate::host)
                host = true;
            else if (fate == RowFate::skip)
                row_cells[r] = -1;
            else if (static_cast<unsigned long long>(row_cells[r]) < low)
                low = static_cast<unsigned long long>(row_cells[r]);
        }
        if ((!Shared || spec.naggs > 0) && low != ~0ULL)
            atomicMin(&page_min, low);
        /* every thread reaches this barrier: the vote, and the page's lowest cell */
        host = __syncthreads_or(host) != 0;
        if (threadIdx.x == 0)
            bounced[p] = host ? 1 : 0;
        if (host)
            continue;
        if (!Shared && page_min != ~0ULL) {
            /* the window moves to the page's lowest group when its rows begin outside it */
            const int64_t lowest = static_cast<int64_t>(page_min) / slots * slots;
            if (lowest < window_first || lowest >= window_first + window_cells) {
                flush();
                __syncthreads();
                window_first = lowest;
            }
        }
        if (spec.naggs > 0 && page_min != ~0ULL && static_cast<int64_t>(page_min) + 1 != agg_first) {
            /* the accumulator moves to the page's lowest group */
            if (agg_first >= 0)
                agg_flush(agg_block, counts + agg_first, spec);
            __syncthreads();
            agg_first = static_cast<int64_t>(page_min) + 1;
        }
        normal += page_normal;
        errors |= page_errors;
#pragma unroll
        for (int r = 0; r < kRowsPerThread; r++) {
            if (row_cells[r] < 0)
                continue;
            if (value_cells[r] >= 0)
                count(value_cells[r]);
            count(row_cells[r]);
            if (spec.naggs == 0)
                continue;
            /* the group's cells from `first` at `off`; the accumulator's at `acc`, without other histograms' */
            const int64_t first = row_cells[r] + 1;
            const bool accumulated = first == agg_first;
            int32_t off = 0, acc = 0;
            for (int32_t a = 0; a < spec.naggs; a++) {
                const PageAgg &agg = spec.aggs[a];
                if (agg.kind == PageAggKind::histogram) {
                    /* another histogram's bucket is a counter like the spec's own: in the block's counters */
                    if (!(agg_rows[r].nulls >> a & 1))
                        count(first + off + agg_rows[r].words[a]);
                } else {
                    if (!(agg_rows[r].nulls >> a & 1))
                        agg_add(accumulated ? agg_block + acc : counts + first + off, agg, agg_rows[r].words[a]);
                    acc += agg.cells;
                }
                off += agg.cells;
            }
        }
    }
    if (errors != 0)
        atomicOr(flags, errors);
    normal = warp_sum(normal);
    if (threadIdx.x % 32 == 0 && normal != 0)
        atomicAdd(tuples, static_cast<unsigned long long>(normal));
    run.finish(add);
    __syncthreads();
    flush();
    if (agg_first >= 0)
        agg_flush(agg_block, counts + agg_first, spec);
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_GROUPED_PAGES_CUH */
