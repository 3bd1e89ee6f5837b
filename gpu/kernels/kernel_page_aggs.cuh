/*
 * kernel_page_aggs.cuh: sum, avg, min, max and count() of another column
 * beside the histogram on the GPU's grouped pages (grouped_page_spec.h's PageAgg), for
 * kernel_grouped_pages.cuh.
 *
 * A row's value is read with its group, before the block votes on its
 * page (a column the GPU cannot read sends the page to the host like any
 * other), and added once the page is counted.  Every state is one the
 * order of the additions cannot change: counts and integer sums add, an
 * exact sum adds its 32-bit chunks into 64-bit limbs (exact_sum.h), min
 * and max keep the largest order key.  So atomics give the bits a serial
 * scan gives, however the pages fall to blocks, batches or processes.
 *
 * A time-ordered table brings a block's pages mostly in one group: that
 * group's states are kept in shared memory (the block's accumulator) and
 * added to the global cells when the block's pages move to another group
 * and at the end; rows of other groups go to the global cells at once.
 */
#ifndef GH_KERNEL_PAGE_AGGS_CUH
#define GH_KERNEL_PAGE_AGGS_CUH

#include "../formulas/threshold_bucket.h"
#include "../specs/grouped_page_spec.h"
#include "kernel_pages.cuh"

namespace gh {
namespace kernels {

/* A row's values of the spec's aggregates: a word each (a float's bits), NULL where its bit is set. */
struct AggRow {
    int64_t words[kMaxPageAggs];
    uint32_t nulls;
};

/* The aggregate's column, which lies in the table (the spec, a kernel parameter, has no room for it). */
__host__ __device__ __forceinline__ const PageColumn &agg_column(const PageAgg &agg, const int64_t *table)
{
    return *reinterpret_cast<const PageColumn *>(table + agg.column_first);
}

/* A histogram aggregate's binning, after its column in the table. */
__host__ __device__ __forceinline__ const PageHist &agg_hist(const PageAgg &agg, const int64_t *table)
{
    return *reinterpret_cast<const PageHist *>(table + agg.column_first + kPageColumnWords);
}

/*
 * The bucket of a histogram aggregate's value, x (a float8), or w for the
 * time form (the stored integer), as the spec's own histogram bins it: in
 * [0, nbins + 1], or kNaNBucket for a NaN under width_bucket.
 */
__host__ __device__ __forceinline__ int32_t agg_hist_bucket(const PageHist &h, const int64_t *table, double x, int64_t w)
{
    switch (h.form) {
    case PageForm::time: return int64_bucket(w, h.binning);
    case PageForm::thresholds:
        return threshold_bucket(x, reinterpret_cast<const double *>(table + h.thresholds_first), h.thresholds_count);
    case PageForm::width_bucket: break;
    }
    return width_bucket(x, h.interval);
}

/*
 * Reads the row's aggregate values into *row (a histogram's: its bucket);
 * false when a column is one the GPU cannot read.  A histogram's NaN is
 * counted nowhere and reported in *errors, as the spec's own histogram's.
 */
__host__ __device__ __forceinline__ bool read_agg_row(const unsigned char *page, uint32_t item,
                                                      const GroupedPageSpec &spec, const int64_t *table, AggRow *row,
                                                      int *errors)
{
    row->nulls = 0;
    for (int32_t a = 0; a < spec.naggs; a++) {
        const PageAgg &agg = spec.aggs[a];
        const PageColumn &col = agg_column(agg, table);
        uint32_t at = 0;
        const Found f = locate_column(page, item, col, &at);
        if (f == Found::bad)
            return false;
        if (f == Found::null || (f == Found::missing && !col.has_missing)) {
            row->nulls |= 1u << a;
            continue;
        }
        if (agg.kind == PageAggKind::count) {
            row->words[a] = 0; /* only that it is there: a text column's bytes are never read */
            continue;
        }
        if (agg.kind == PageAggKind::histogram) {
            double x = 0;
            int64_t w = 0;
            if (col.as_word)
                w = f == Found::present ? page_word(page, at, col.type) : col.missing_word;
            else if (f != Found::present)
                x = col.missing_value;
            else if (!float_value(page, at, col, &x))
                return false; /* a numeric the GPU does not convert: the page is the host's */
            const int32_t b = agg_hist_bucket(agg_hist(agg, table), table, x, w);
            if (b < 0) {
                *errors |= -b;
                row->nulls |= 1u << a;
            }
            row->words[a] = b;
            continue;
        }
        if (agg.is_float) {
            const double x = f == Found::present ? page_value(page, at, col.type) : col.missing_value;
            memcpy(&row->words[a], &x, sizeof x);
        } else {
            row->words[a] = f == Found::present ? page_word(page, at, col.type) : col.missing_word;
        }
    }
    return true;
}

#ifdef __CUDACC__

/*
 * Adds v into limb i of an exact sum; where the limb's int64 overflows,
 * the 2^64 it lost is 2^32 of the next limb, which takes it instead.
 */
__device__ __forceinline__ void limb_add(unsigned long long *limbs, int i, int64_t v)
{
    while (v != 0 && i < kExactLimbs) {
        const unsigned long long old = atomicAdd(&limbs[i], static_cast<unsigned long long>(v));
        const int64_t o = static_cast<int64_t>(old);
        const int64_t n = static_cast<int64_t>(old + static_cast<unsigned long long>(v));
        if (((o ^ n) & (v ^ n)) >= 0)
            return;
        v = v > 0 ? (int64_t(1) << 32) : -(int64_t(1) << 32);
        i++;
    }
}

/* Adds (lo, hi), a 128-bit integer, into the 128-bit sum at cells[0] (low word) and cells[1]. */
__device__ __forceinline__ void int128_add(unsigned long long *cells, unsigned long long lo, unsigned long long hi)
{
    if (lo != 0) {
        const unsigned long long old = atomicAdd(&cells[0], lo);
        hi += old + lo < old ? 1 : 0;
    }
    if (hi != 0)
        atomicAdd(&cells[1], hi);
}

/* One row's value w into an aggregate's cells c (shared or global). */
__device__ __forceinline__ void agg_add(unsigned long long *c, const PageAgg &agg, int64_t w)
{
    if (agg.kind == PageAggKind::histogram)
        return; /* its bucket is counted with the spec's own histogram (kernel_grouped_pages.cuh) */
    atomicAdd(&c[0], 1ULL);
    switch (agg.kind) {
    case PageAggKind::exact_sum: {
        double x;
        memcpy(&x, &w, sizeof x);
        int first = 0, special = 0;
        int64_t chunks[3];
        unsigned long long *e = c + 1;
        if (!exact_sum_chunks(x, &first, chunks, &special)) {
            if (special >= 0)
                atomicAdd(&e[special], 1ULL);
            return;
        }
        for (int j = 0; j < 3; j++)
            limb_add(e + kExactFirstLimb, first + j, chunks[j]);
        return;
    }
    case PageAggKind::int_sum: atomicAdd(&c[1], static_cast<unsigned long long>(w)); return;
    case PageAggKind::int8_sum: int128_add(c + 1, static_cast<unsigned long long>(w), w < 0 ? ~0ULL : 0ULL); return;
    case PageAggKind::max_key: atomicMax(&c[1], static_cast<unsigned long long>(page_agg_key(w, agg.is_float))); return;
    case PageAggKind::min_key: atomicMax(&c[1], static_cast<unsigned long long>(~page_agg_key(w, agg.is_float))); return;
    case PageAggKind::count:
    case PageAggKind::histogram: return;
    }
}

/*
 * The block's accumulator (cells, shared) into the global cells of its
 * group (to), zeroed: every thread calls it, between barriers, each
 * taking every kPageThreads-th cell of every aggregate.
 */
__device__ __forceinline__ void agg_flush(unsigned long long *cells, unsigned long long *to, const GroupedPageSpec &spec)
{
    int32_t off = 0, acc = 0; /* an aggregate's cells in the group's, and in the accumulator's */
    for (int32_t a = 0; a < spec.naggs; a++) {
        const PageAgg &agg = spec.aggs[a];
        if (agg.kind == PageAggKind::histogram) { /* never in the accumulator */
            off += agg.cells;
            continue;
        }
        for (int32_t i = static_cast<int32_t>(threadIdx.x); i < agg.cells; i += kPageThreads) {
            unsigned long long *c = cells + acc + i;
            const unsigned long long v = *c;
            if (agg.kind == PageAggKind::int8_sum && i == 1) {
                int128_add(to + off + 1, v, c[1]); /* the low word's carry reaches the high word */
                c[1] = 0;
            } else if (agg.kind == PageAggKind::int8_sum && i == 2) {
                continue; /* with the low word */
            } else if (v == 0) {
                continue;
            } else if ((agg.kind == PageAggKind::max_key || agg.kind == PageAggKind::min_key) && i == 1) {
                atomicMax(to + off + i, v);
            } else if (agg.kind == PageAggKind::exact_sum && i >= 1 + kExactFirstLimb) {
                limb_add(to + off + 1 + kExactFirstLimb, i - 1 - kExactFirstLimb, static_cast<int64_t>(v));
            } else {
                atomicAdd(to + off + i, v);
            }
            *c = 0;
        }
        off += agg.cells;
        acc += agg.cells;
    }
}

#endif /* __CUDACC__ */

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_PAGE_AGGS_CUH */
