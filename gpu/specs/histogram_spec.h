/*
 * histogram_spec.h: which kind of histogram a group builds, as the engine's
 * interfaces (CPU loop, CUDA backend) take it.
 *
 *   float_interval  width_bucket(float8, lo, hi, nbins): bucket.h, float8 values
 *   int64_interval  numeric width_bucket over int64s (timestamps, dates):
 *                   time_bucket.h, int64 values
 *   thresholds      width_bucket(float8, float8[]): threshold_bucket.h,
 *                   float8 values
 *
 * Values always travel as 8-byte words, so every kind shares the batch
 * slots, device buffers and transfers.
 */
#ifndef GH_HISTOGRAM_SPEC_H
#define GH_HISTOGRAM_SPEC_H

#include <cstdint>

#include "../formulas/bucket.h"
#include "../formulas/threshold_bucket.h"
#include "../formulas/time_bucket.h"

namespace gh {

enum class SpecKind : int32_t {
    float_interval = 1,
    int64_interval = 2,
    thresholds = 3,
};

/* One group's layout: `kind` says which member holds it. */
struct HistogramSpec {
    SpecKind kind;
    BucketSpec interval;      /* float_interval */
    Int64Spec int64;          /* int64_interval */
    ThresholdSpec thresholds; /* thresholds */
};

inline HistogramSpec float_histogram(const BucketSpec &spec)
{
    HistogramSpec s{};
    s.kind = SpecKind::float_interval;
    s.interval = spec;
    return s;
}

inline HistogramSpec int64_histogram(const Int64Spec &spec)
{
    HistogramSpec s{};
    s.kind = SpecKind::int64_interval;
    s.int64 = spec;
    return s;
}

inline HistogramSpec threshold_histogram(const double *thresholds, int32_t count)
{
    HistogramSpec s{};
    s.kind = SpecKind::thresholds;
    s.thresholds = ThresholdSpec{thresholds, count};
    return s;
}

/* How many counters the histogram has: nbins + 2, or count + 1 for thresholds. */
inline int32_t histogram_slots(const HistogramSpec &spec)
{
    switch (spec.kind) {
    case SpecKind::float_interval: return spec.interval.nbins + 2;
    case SpecKind::int64_interval: return spec.int64.nbins + 2;
    case SpecKind::thresholds: return spec.thresholds.count + 1;
    }
    return 0;
}

} // namespace gh

#endif /* GH_HISTOGRAM_SPEC_H */
