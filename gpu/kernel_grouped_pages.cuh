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
 * in flight while it parses the current one from shared memory.  Parsing
 * differs in one way: a page is counted only once every row on it has its
 * group.  Each thread keeps its rows' cells in registers (a page has at
 * most 291 line pointers: three a thread), the block agrees
 * (__syncthreads_or) that no row needs the host, and only then are they
 * counted; otherwise the page is flagged and the host reads it whole.
 *
 * Counting: 32-bit counters in shared memory beside the page while the
 * groups' cells fit (kPageSharedMaxSlots), flushed once per block; above
 * that, 64-bit global atomics, a thread's runs of equal cells added once:
 * time-ordered rows mostly repeat their group.
 */
#ifndef GH_KERNEL_GROUPED_PAGES_CUH
#define GH_KERNEL_GROUPED_PAGES_CUH

#include "grouped_page_spec.h"
#include "kernel_pages.cuh"

namespace gh {
namespace kernels {

/* Rows a thread evaluates on one page: kMaxTuplesPerPage over kPageThreads, rounded up. */
constexpr int kRowsPerThread = (heap_layout::kMaxTuplesPerPage + kPageThreads - 1) / kPageThreads;

/* An integer-like stored value (int2, int4, int8: date and timestamps are stored as these) as int64. */
__host__ __device__ __forceinline__ int64_t page_word(const unsigned char *page, uint32_t at, PageValueType type)
{
    switch (type) {
    case PageValueType::int2: return load_from_page<int16_t>(page, at);
    case PageValueType::int4: return load_from_page<int32_t>(page, at);
    case PageValueType::int8: return load_from_page<long long>(page, at);
    default: return 0;
    }
}

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
    }
    return false;
}

/* Whether the tuple passes the qual; a NULL column fails, as a strict operator gives. */
__host__ __device__ __forceinline__ bool passes(const unsigned char *page, uint32_t item, const PageQual &q,
                                               bool *bad)
{
    uint32_t at = 0;
    const Found f = locate_column(page, item, q.column, &at);
    if (f == Found::bad) {
        *bad = true;
        return false;
    }
    if (f == Found::null || (f == Found::missing && !q.column.has_missing))
        return false;
    int order;
    if (q.is_float) {
        const double x = f == Found::present ? page_value(page, at, q.column.type) : q.column.missing_value;
        order = float8_order(x, q.value);
    } else {
        const int64_t w = f == Found::present ? page_word(page, at, q.column.type) : q.column.missing_word;
        order = w < q.word ? -1 : w > q.word ? 1 : 0;
    }
    return compares(order, q.cmp);
}

/* The key's slot for the tuple (key.slots for NULL); false: the GPU cannot place it, or the tuple is bad. */
__host__ __device__ __forceinline__ bool key_slot(const unsigned char *page, uint32_t item, const PageKey &key,
                                                  const int64_t *table, uint32_t *slot)
{
    uint32_t at = 0;
    const Found f = locate_column(page, item, key.column, &at);
    if (f == Found::bad)
        return false;
    if (f == Found::null || (f == Found::missing && !key.column.has_missing)) {
        *slot = key.slots;
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
        if (w < key.base || d >= key.slots)
            return false;
        *slot = static_cast<uint32_t>(d);
        return true;
    }
    const int64_t *starts = table + key.table_first;
    const uint32_t n = key.intervals;
    if (n == 0 || w < starts[0] || w >= key.end)
        return false;
    uint32_t lo = 0, hi = n; /* the last start <= w: in [lo, hi) */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= w)
            lo = mid;
        else
            hi = mid;
    }
    *slot = static_cast<uint32_t>(starts[n + lo]); /* the slots follow the starts */
    return true;
}

/*
 * Evaluates one line pointer: skip (not a normal tuple, or the WHERE clause
 * fails), count (*row_cell is the group's row counter, *value_cell the
 * value's bucket cell or -1 for a NULL value), or host (a key the GPU
 * cannot place).  bucket(x) is the histogram's width_bucket: < 0 for NaN,
 * which is counted nowhere and reported in *errors.
 */
template <typename Bucket>
__host__ __device__ __forceinline__ RowFate evaluate_row(const unsigned char *page, uint32_t item,
                                                         const GroupedPageSpec &spec, const int64_t *table,
                                                         Bucket bucket, int64_t *value_cell, int64_t *row_cell,
                                                         int *errors)
{
    if ((item >> heap_layout::kLpFlagsShift & 3) != heap_layout::kLpNormal)
        return RowFate::skip;
    for (int32_t q = 0; q < spec.nquals; q++) {
        bool bad = false;
        if (!passes(page, item, spec.quals[q], &bad))
            return bad ? RowFate::host : RowFate::skip;
    }
    int64_t group = 0;
    for (int32_t k = 0; k < spec.nkeys; k++) {
        uint32_t slot = 0;
        if (!key_slot(page, item, spec.keys[k], table, &slot))
            return RowFate::host;
        group = group * (static_cast<int64_t>(spec.keys[k].slots) + 1) + slot;
    }
    const int64_t slots = static_cast<int64_t>(spec.interval.nbins) + 3;
    *row_cell = group * slots + slots - 1;
    *value_cell = -1;
    uint32_t at = 0;
    const Found f = locate_column(page, item, spec.value, &at);
    if (f == Found::bad)
        return RowFate::host;
    if (f == Found::present || (f == Found::missing && spec.value.has_missing)) {
        const double x = f == Found::present ? page_value(page, at, spec.value.type) : spec.value.missing_value;
        const int32_t b = bucket(x);
        if (b < 0)
            *errors |= -b;
        else
            *value_cell = group * slots + b;
    }
    return RowFate::count;
}

/*
 * Dynamic shared memory: the page (kPageBytes, 16-byte aligned), then,
 * when Shared, `cells` 32-bit counters.  bounced[p] is set to 1 for each
 * page the host must read, 0 for the others.  The page's normal tuples
 * go into *tuples for the pages counted here.
 */
template <typename Binner, bool Shared>
__global__ void __launch_bounds__(kPageThreads)
    grouped_pages(const uint64_t *__restrict__ words, size_t n, const unsigned char *__restrict__ pool,
                  uint64_t pool_pages, const GroupedPageSpec spec, const int64_t *__restrict__ table, int32_t cells,
                  Binner binner, unsigned long long *__restrict__ counts, int *__restrict__ flags,
                  unsigned long long *__restrict__ tuples, unsigned char *__restrict__ bounced)
{
    unsigned char *page = dynamic_shared();
    unsigned int *block_counts = reinterpret_cast<unsigned int *>(page + heap_layout::kPageBytes);
    if constexpr (Shared)
        for (int32_t i = threadIdx.x; i < cells; i += kPageThreads)
            block_counts[i] = 0;

    int errors = 0;
    unsigned int normal = 0;
    Run value_run, row_run; /* apart: a value's cell and its row's alternate */
    auto add = [&](int32_t c, uint32_t k) { atomicAdd(&counts[c], static_cast<unsigned long long>(k)); };
    auto count = [&](Run &run, int64_t c) {
        if constexpr (Shared)
            atomicAdd(&block_counts[c], 1u);
        else
            run.push(static_cast<int32_t>(c), add);
    };
    auto bucket = [&](double x) { return binner(x, 0); };

    uint4 next[kPageVectors];
    uint32_t next_lines = fetch_page(words, n, blockIdx.x, pool, pool_pages, next);
    for (size_t p = blockIdx.x; p < n; p += gridDim.x) {
        const uint32_t lines = next_lines;
        __syncthreads();
        if (lines > 0) {
            uint4 *dst = reinterpret_cast<uint4 *>(page);
#pragma unroll
            for (int k = 0; k < kPageVectors; k++)
                dst[k * kPageThreads + threadIdx.x] = next[k];
        }
        __syncthreads();
        next_lines = fetch_page(words, n, p + gridDim.x, pool, pool_pages, next);
        int64_t value_cells[kRowsPerThread], row_cells[kRowsPerThread];
        unsigned int page_normal = 0;
        int page_errors = 0;
        bool host = false;
#pragma unroll
        for (int r = 0; r < kRowsPerThread; r++) {
            const uint32_t i = threadIdx.x + static_cast<uint32_t>(r) * kPageThreads;
            row_cells[r] = -1;
            if (i >= lines)
                continue;
            const uint32_t item = load_from_page<uint32_t>(page, heap_layout::kLinePointers + 4 * i);
            page_normal += (item >> heap_layout::kLpFlagsShift & 3) == heap_layout::kLpNormal;
            const RowFate fate =
                evaluate_row(page, item, spec, table, bucket, &value_cells[r], &row_cells[r], &page_errors);
            if (fate == RowFate::host)
                host = true;
            else if (fate == RowFate::skip)
                row_cells[r] = -1;
        }
        /* the same trip count for the whole block: every thread reaches this barrier */
        host = __syncthreads_or(host) != 0;
        if (threadIdx.x == 0)
            bounced[p] = host ? 1 : 0;
        if (host)
            continue;
        normal += page_normal;
        errors |= page_errors;
#pragma unroll
        for (int r = 0; r < kRowsPerThread; r++) {
            if (row_cells[r] < 0)
                continue;
            if (value_cells[r] >= 0)
                count(value_run, value_cells[r]);
            count(row_run, row_cells[r]);
        }
    }
    if (errors != 0)
        atomicOr(flags, errors);
    normal = __reduce_add_sync(0xffffffffu, normal);
    if (threadIdx.x % 32 == 0 && normal != 0)
        atomicAdd(tuples, static_cast<unsigned long long>(normal));
    if constexpr (Shared) {
        __syncthreads();
        for (int32_t c = threadIdx.x; c < cells; c += kPageThreads)
            if (block_counts[c] != 0)
                atomicAdd(&counts[c], static_cast<unsigned long long>(block_counts[c]));
    } else {
        value_run.finish(add);
        row_run.finish(add);
    }
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_GROUPED_PAGES_CUH */
