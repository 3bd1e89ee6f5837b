/*
 * errors.cpp: the PostgreSQL errors for refused arguments and engine failures.
 */
#include "errors.h"

#include "../gpu/gpu_backend.h"

namespace gpu_histogram {

void report_spec_error(gh::SpecError err, const gh::BucketSpec &spec)
{
    switch (err) {
    case gh::SpecError::none:
        return;
    case gh::SpecError::nbins_not_positive:
        ereport(ERROR, (errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
                        errmsg("count must be greater than zero")));
        break;
    case gh::SpecError::bound_is_nan:
        ereport(ERROR, (errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
                        errmsg("operand, lower bound, and upper bound cannot be NaN")));
        break;
    case gh::SpecError::bound_not_finite:
        ereport(ERROR, (errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
                        errmsg("lower and upper bounds must be finite")));
        break;
    case gh::SpecError::bounds_equal:
        ereport(ERROR, (errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
                        errmsg("lower bound cannot equal upper bound")));
        break;
    case gh::SpecError::nbins_too_large:
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("gpu_histogram supports at most %d buckets, %d requested",
                               gh::kMaxBins, spec.nbins)));
        break;
    case gh::SpecError::range_overflows:
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg_plural("lower and upper bounds are too far apart for %d bucket",
                                      "lower and upper bounds are too far apart for %d buckets", spec.nbins,
                                      spec.nbins),
                        errdetail("count * (upper bound - lower bound) overflows double precision,"
                                  " where width_bucket would return garbage.")));
        break;
    }
    elog(ERROR, "unexpected gpu_histogram spec error %d", static_cast<int>(err));
}

void report_engine_status(gh::Status s)
{
    switch (s) {
    case gh::Status::ok:
        return;
    case gh::Status::nan_value:
        ereport(ERROR, (errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
                        errmsg("operand, lower bound, and upper bound cannot be NaN")));
        break;
    case gh::Status::interrupted:
        /* The engine stopped waiting because an interrupt is pending: serve it. */
        CHECK_FOR_INTERRUPTS();
        elog(ERROR, "gpu_histogram: wait for the GPU was interrupted");
        break;
    case gh::Status::out_of_memory:
        ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
                        errmsg("gpu_histogram: %s", gh::status_text(s))));
        break;
    case gh::Status::internal_error:
        elog(ERROR, "gpu_histogram: %s", gh::status_text(s));
        break;
    default:
        /* the GPU service's client reports CUDA failures with the service's own text */
        ereport(ERROR, (errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
                        errmsg("gpu_histogram: %s", gh::status_text(s))));
        break;
    }
}

gh::Int64Spec checked_int64_spec(int64 lo, int64 hi, int32 nbins, bool bound_is_infinite)
{
    gh::Int64Spec spec{lo, hi, nbins, kServerNumericRule};
    gh::SpecError err = gh::validate_int64_spec(spec, bound_is_infinite);
    report_spec_error(err, gh::BucketSpec{0, 0, nbins, kServerRule});
    return spec;
}

namespace {

/* What is wrong with a thresholds array, in width_bucket_array()'s order, then the engine's limit. */
enum class ThresholdsProblem { none, dimensions, nulls, type, too_many };

ThresholdsProblem thresholds_problem(ArrayType *thresholds)
{
    if (ARR_NDIM(thresholds) > 1)
        return ThresholdsProblem::dimensions;
    if (array_contains_nulls(thresholds))
        return ThresholdsProblem::nulls;
    if (ARR_ELEMTYPE(thresholds) != FLOAT8OID)
        return ThresholdsProblem::type;
    if (ArrayGetNItems(ARR_NDIM(thresholds), ARR_DIMS(thresholds)) > gh::kMaxThresholds)
        return ThresholdsProblem::too_many;
    return ThresholdsProblem::none;
}

} // namespace

bool thresholds_acceptable(ArrayType *thresholds)
{
    return thresholds_problem(thresholds) == ThresholdsProblem::none;
}

int32 checked_thresholds(ArrayType *thresholds)
{
    const int32 count = ArrayGetNItems(ARR_NDIM(thresholds), ARR_DIMS(thresholds));
    switch (thresholds_problem(thresholds)) {
    case ThresholdsProblem::none: break;
    case ThresholdsProblem::dimensions:
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("thresholds must be one-dimensional array")));
        break;
    case ThresholdsProblem::nulls:
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("thresholds array must not contain NULLs")));
        break;
    case ThresholdsProblem::type: elog(ERROR, "gpu_histogram thresholds must be float8[]"); break;
    case ThresholdsProblem::too_many:
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("gpu_histogram supports at most %d thresholds, %d given", gh::kMaxThresholds,
                               count)));
        break;
    }
    return count;
}

void check_histogram_size(ArrayType *hist)
{
    int32 n = ArrayGetNItems(ARR_NDIM(hist), ARR_DIMS(hist));
    if (n == 0)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("histogram array must not be empty")));
    if (n > kMaxHistogramSlots)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("gpu_histogram supports histograms of at most %d elements, %d given",
                               kMaxHistogramSlots, n)));
}

void check_histogram_counts(ArrayType *hist, int32 min_length)
{
    check_histogram_size(hist);
    if (ARR_NDIM(hist) != 1 || ARR_DIMS(hist)[0] < min_length)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg_plural("a histogram is a one-dimensional bigint[] of at least %d element",
                                      "a histogram is a one-dimensional bigint[] of at least %d elements",
                                      min_length, min_length)));
    if (ARR_HASNULL(hist) && array_contains_nulls(hist))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("histogram elements must not be null")));
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));
    for (int32 i = 0; i < ARR_DIMS(hist)[0]; i++)
        if (unlikely(counts[i] < 0))
            ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                            errmsg("histogram counts must not be negative"),
                            errdetail("Element %d of the histogram is " INT64_FORMAT ".", i + 1, counts[i])));
}

int32 checked_thresholds_histogram(ArrayType *hist, ArrayType *thresholds)
{
    check_histogram_counts(hist, 1);
    int32 count = checked_thresholds(thresholds);
    int32 n = ARR_DIMS(hist)[0];
    if (n != count + 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg_plural("a histogram over thresholds of length %d has %d element, not %d",
                                      "a histogram over thresholds of length %d has %d elements, not %d",
                                      count + 1, count, count + 1, n)));
    return count;
}

Timestamp timestamp_of_date_edge(DateADT d)
{
    int overflow = 0;
    Timestamp t = date2timestamp_opt_overflow(d, &overflow);
    if (overflow != 0)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("date out of range for timestamp")));
    return t;
}

gh::BucketSpec checked_spec(double lo, double hi, int32 nbins)
{
    gh::BucketSpec spec{lo, hi, nbins, kServerRule};
    report_spec_error(gh::validate_spec(spec), spec);
    return spec;
}

gh::BucketSpec checked_first_row_spec(double value, double lo, double hi, int32 nbins)
{
    if (nbins > 0 && std::isnan(value))
        report_engine_status(gh::Status::nan_value);
    return checked_spec(lo, hi, nbins);
}

void report_changed_spec(const gh::BucketSpec &group, double value, double lo, double hi, int32 nbins)
{
    checked_first_row_spec(value, lo, hi, nbins); /* invalid arguments get width_bucket's error */
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gpu_histogram bounds and bucket count must be the same for every row of a group"),
                    errdetail("The group started with (%g, %g, %d) and a later row has (%g, %g, %d).",
                              group.lo, group.hi, group.nbins, lo, hi, nbins)));
    pg_unreachable();
}

} // namespace gpu_histogram
