/*
 * threshold_bucket.h: the bin of a value among variable-width thresholds,
 * PostgreSQL's width_bucket(float8, float8[]).
 *
 * The server (arrayfuncs.c, width_bucket_array_float8) binary-searches the
 * thresholds for the number of them that are <= the value, treating a NaN
 * threshold as above every value and answering `count` for a NaN value
 * without searching.  It never checks that the array is sorted.  This is
 * the same search, step for step (the same midpoints), so that even an
 * unsorted array gives exactly the server's answer.  Used by the CPU loop,
 * the CUDA kernels (with the thresholds in shared or global memory) and the
 * tests.  Only libc headers; compiled by g++ and nvcc.
 */
#ifndef GH_THRESHOLD_BUCKET_H
#define GH_THRESHOLD_BUCKET_H

#include <cstdint>

#include "bucket.h"

namespace gh {

/* count thresholds give count + 1 bins: bin k holds values with k thresholds <= them. */
struct ThresholdSpec {
    const double *thresholds; /* count values, owned by the caller */
    int32_t count;
};

/* Most thresholds the engine accepts (the counters take count + 1 slots). */
constexpr int32_t kMaxThresholds = kMaxBins;

/*
 * One step of the server's search: t is thresholds[mid], mid = (left +
 * right) / 2.  The CUDA kernels also take the first steps from a copy of
 * the search's top levels (kernel_binners.cuh); they step with this.
 */
GH_HOST_DEVICE void threshold_step(double x, double t, int32_t mid, int32_t &left, int32_t &right)
{
    if (t != t || x < t)
        right = mid;
    else
        left = mid + 1;
}

/* width_bucket(x, thresholds[0 .. count)): always in [0, count]. */
GH_HOST_DEVICE int32_t threshold_bucket(double x, const double *thresholds, int32_t count)
{
    if (x != x) /* NaN: at or above every threshold */
        return count;
    int32_t left = 0, right = count;
    while (left < right) {
        int32_t mid = (left + right) / 2;
        threshold_step(x, thresholds[mid], mid, left, right);
    }
    return left;
}

} // namespace gh

#endif /* GH_THRESHOLD_BUCKET_H */
