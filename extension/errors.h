/*
 * errors.h: turns the engine's plain results into PostgreSQL errors.
 *
 * The engine reports a SpecError or a Status; these functions raise the
 * matching ereport, with width_bucket's SQLSTATE and wording where it has
 * one.  They are called only after the engine call has returned, when no
 * C++ object is alive on the stack.
 */
#ifndef GH_ERRORS_H
#define GH_ERRORS_H

#include "pg_headers.h"
#include "../gpu/specs/histogram_spec.h"
#include "../gpu/specs/status.h"

namespace gpu_histogram {

/* The float8 width_bucket formula of the server we are built against. */
constexpr gh::BucketRule kServerRule =
    PG_VERSION_NUM >= 160000 ? gh::BucketRule::pg16 : gh::BucketRule::pg15;

/* Its numeric width_bucket, which the time histograms follow. */
constexpr gh::NumericRule kServerNumericRule = PG_VERSION_NUM >= 180000   ? gh::NumericRule::pg18
                                               : PG_VERSION_NUM >= 160000 ? gh::NumericRule::pg16
                                                                          : gh::NumericRule::pg15;

/* Raises the error for a refused spec; returns if err is SpecError::none. */
void report_spec_error(gh::SpecError err, const gh::BucketSpec &spec);

/* Raises the error for an engine failure; returns if s is Status::ok. */
void report_engine_status(gh::Status s);

/* Builds and validates the spec of one row, raising width_bucket's errors. */
gh::BucketSpec checked_spec(double lo, double hi, int32 nbins);

/*
 * The spec of a group's first row (or of a row whose lo, hi or nbins
 * differ), checked as width_bucket checks its arguments: it looks at a NaN
 * operand before infinite or equal bounds.
 */
gh::BucketSpec checked_first_row_spec(double value, double lo, double hi, int32 nbins);

/*
 * Raises the error for a row whose lo, hi or nbins differ from those of the
 * group (width_bucket's error first, if the row's own arguments are invalid).
 */
[[noreturn]] void report_changed_spec(const gh::BucketSpec &group, double value, double lo, double hi, int32 nbins);

/* The same for a time histogram, raising numeric width_bucket's errors. */
gh::Int64Spec checked_int64_spec(int64 lo, int64 hi, int32 nbins, bool bound_is_infinite);

/* Whether a time histogram's bounds are infinite: numeric width_bucket's error for infinite bounds. */
static inline bool time_bounds_infinite(int64 lo, int64 hi, bool dates)
{
    return dates ? DATE_NOT_FINITE(static_cast<DateADT>(lo)) || DATE_NOT_FINITE(static_cast<DateADT>(hi))
                 : TIMESTAMP_NOT_FINITE(lo) || TIMESTAMP_NOT_FINITE(hi);
}

/*
 * Checks a thresholds array as width_bucket(float8, float8[]) does (one
 * dimension, no NULL), then against the engine's limit; returns the count.
 */
int32 checked_thresholds(ArrayType *thresholds);

/* The same checks without raising: whether checked_thresholds() would accept the array. */
bool thresholds_acceptable(ArrayType *thresholds);

/* The longest histogram the aggregates make: kMaxBins buckets and the two outer ones. */
constexpr int32 kMaxHistogramSlots = gh::kMaxBins + 2;
static_assert(gh::kMaxThresholds + 1 <= kMaxHistogramSlots, "a thresholds histogram is no longer");

/*
 * A stored histogram given to gpu_histogram_merge or gpu_histogram_buckets,
 * before their own checks: both refuse an empty array with the same error
 * (2202E, as array_agg() refuses to accumulate one), and an array longer
 * than any histogram (54000), which would let a group's state grow without
 * the bound that the bucket count gives gpu_histogram's.
 */
void check_histogram_size(ArrayType *hist);

/*
 * A stored histogram read by bucket: one-dimensional, of at least
 * min_length elements, none NULL or negative (a count of rows;
 * gpu_histogram_merge refuses the same arrays).
 */
void check_histogram_counts(ArrayType *hist, int32 min_length);

/*
 * A stored histogram over thresholds: checked as above and the thresholds
 * as checked_thresholds() does, and one element longer than they are.
 * Returns the thresholds' count.
 */
int32 checked_thresholds_histogram(ArrayType *hist, ArrayType *thresholds);

/*
 * A date edge of a time histogram as its cast to timestamp gives it: an
 * edge past the last timestamp raises the cast's error, never shows as
 * infinity.
 */
Timestamp timestamp_of_date_edge(DateADT d);

} // namespace gpu_histogram

#endif /* GH_ERRORS_H */
