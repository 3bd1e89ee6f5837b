/*
 * bucket_edges.h: where a histogram's buckets begin, as gpu_histogram_buckets
 * shows them and gpu_histogram_quantile_bounds bounds a quantile by them.
 * One definition, so that the two never show a user different edges.
 *
 * These are the nominal edges.  width_bucket computes a value's bucket with
 * rounding (PostgreSQL 15 adds 1 after dividing, 16 divides first), which
 * can count a value within a few units in the last place of an edge in the
 * bucket beside it; the README says so.
 */
#ifndef GH_BUCKET_EDGES_H
#define GH_BUCKET_EDGES_H

#include "pg_headers.h"

namespace gpu_histogram {

/* Edge k of nbins between lo and hi (k = 0 is lo, k = nbins is hi). */
static inline double nominal_edge(double lo, double hi, int32 k, int32 nbins)
{
    if (k == nbins)
        return hi;
    return lo + (hi - lo) * (static_cast<double>(k) / nbins);
}

/*
 * Edge k of a time histogram: the first count, going from lo towards hi,
 * that width_bucket puts in bucket k + 1, lo +- ceil(k * range / nbins).
 * (PostgreSQL's rounding of its quotient can move a value a few units
 * below an edge into the bucket above.)
 */
static inline int64 time_edge(int64 lo, int64 hi, int32 k, int32 nbins)
{
    if (k == nbins)
        return hi;
    bool up = lo < hi;
    unsigned __int128 range = up ? static_cast<uint64>(hi) - static_cast<uint64>(lo)
                                 : static_cast<uint64>(lo) - static_cast<uint64>(hi);
    uint64 step = static_cast<uint64>((range * static_cast<uint32>(k) + static_cast<uint32>(nbins) - 1) /
                                      static_cast<uint32>(nbins));
    return up ? static_cast<int64>(static_cast<uint64>(lo) + step) : static_cast<int64>(static_cast<uint64>(lo) - step);
}

} // namespace gpu_histogram

#endif /* GH_BUCKET_EDGES_H */
