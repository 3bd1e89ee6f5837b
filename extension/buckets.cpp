/*
 * buckets.cpp: gpu_histogram_buckets(hist, lo, hi), which unrolls a histogram
 * into one row per bucket with its nominal bounds, numbered as width_bucket
 * numbers buckets (0 below the range, nbins + 1 above it); its overloads for
 * time histograms (timestamptz, timestamp and date bounds, timestamp
 * bounds out) and for thresholds.
 */
#include "pg_headers.h"

#include "errors.h"

namespace gpu_histogram {

namespace {

/*
 * A one-dimensional bigint[] without NULLs, of at least min_length elements,
 * none of them negative (a count of rows; gpu_histogram_merge refuses the
 * same arrays).
 */
void check_histogram(ArrayType *hist, int32 min_length)
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

/* One row (bucket, lower, upper, count) of the result. */
void put_bucket(ReturnSetInfo *rsinfo, int32 b, Datum lower, Datum upper, int64 count)
{
    Datum values[4] = {Int32GetDatum(b), lower, upper, Int64GetDatum(count)};
    bool nulls[4] = {false, false, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    if ((b & 1023) == 0)
        CHECK_FOR_INTERRUPTS();
}

/*
 * Edge k of a time histogram: the first count, going from lo towards hi,
 * that width_bucket puts in bucket k + 1, lo +- ceil(k * range / nbins).
 * (PostgreSQL's rounding of its quotient can move a value a few units
 * below an edge into the bucket above, as the README says.)
 */
int64 time_edge(int64 lo, int64 hi, int32 k, int32 nbins)
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

/*
 * A date edge as its cast to timestamp gives it: an edge past the last
 * timestamp is refused with the cast's error, not shown as infinity.
 */
Timestamp date_edge_timestamp(DateADT d)
{
    int overflow = 0;
    Timestamp t = date2timestamp_opt_overflow(d, &overflow);
    if (overflow != 0)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("date out of range for timestamp")));
    return t;
}

/* gpu_histogram_buckets for int64 bounds: microseconds, or day numbers for dates. */
Datum time_buckets(FunctionCallInfo fcinfo, int64 lo, int64 hi, bool dates)
{
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    check_histogram(hist, 3);
    int32 n = ARR_DIMS(hist)[0];
    int32 nbins = n - 2;
    checked_int64_spec(lo, hi, nbins, time_bounds_infinite(lo, hi, dates));
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    bool ascending = lo < hi;
    auto as_timestamp = [dates](int64 t) {
        return TimestampGetDatum(dates ? date_edge_timestamp(static_cast<DateADT>(t)) : t);
    };
    for (int32 b = 0; b < n; b++) {
        /* along the numbering, bucket b spans edges b - 1 .. b; the outer ones reach infinity */
        Timestamp below = DT_NOBEGIN, above = DT_NOEND;
        Datum from = b == 0 ? 0 : as_timestamp(time_edge(lo, hi, b - 1, nbins));
        Datum to = b == n - 1 ? 0 : as_timestamp(time_edge(lo, hi, b, nbins));
        Datum lower, upper;
        if (ascending) {
            lower = b == 0 ? TimestampGetDatum(below) : from;
            upper = b == n - 1 ? TimestampGetDatum(above) : to;
        } else {
            lower = b == n - 1 ? TimestampGetDatum(below) : to;
            upper = b == 0 ? TimestampGetDatum(above) : from;
        }
        put_bucket(rsinfo, b, lower, upper, counts[b]);
    }
    return (Datum)0;
}

/* Edge k of nbins between lo and hi (k = 0 is lo, k = nbins is hi). */
double edge(double lo, double hi, int32 k, int32 nbins)
{
    if (k == nbins)
        return hi;
    return lo + (hi - lo) * (static_cast<double>(k) / nbins);
}

} // namespace

GH_FUNCTION(gpu_histogram_buckets)
{
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    double lo = PG_GETARG_FLOAT8(1);
    double hi = PG_GETARG_FLOAT8(2);

    check_histogram(hist, 3);
    int32 n = ARR_DIMS(hist)[0];
    int32 nbins = n - 2;
    checked_spec(lo, hi, nbins);
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    bool ascending = lo < hi;
    for (int32 b = 0; b < n; b++) {
        /* Along the numbering, bucket b spans edges b - 1 .. b. */
        double from = b == 0 ? -get_float8_infinity() : edge(lo, hi, b - 1, nbins);
        double to = b == n - 1 ? get_float8_infinity() : edge(lo, hi, b, nbins);
        if (!ascending) {
            from = b == 0 ? get_float8_infinity() : from;
            to = b == n - 1 ? -get_float8_infinity() : to;
        }
        Datum values[4] = {Int32GetDatum(b), Float8GetDatum(ascending ? from : to),
                           Float8GetDatum(ascending ? to : from), Int64GetDatum(counts[b])};
        bool nulls[4] = {false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        if ((b & 1023) == 0)
            CHECK_FOR_INTERRUPTS();
    }
    return (Datum)0;
}

/* gpu_histogram_buckets(hist, lo, hi) for timestamptz and timestamp bounds. */
GH_FUNCTION(gpu_histogram_buckets_time)
{
    return time_buckets(fcinfo, PG_GETARG_INT64(1), PG_GETARG_INT64(2), false);
}

/* gpu_histogram_buckets(hist, lo, hi) for date bounds: timestamp bounds out, at midnight. */
GH_FUNCTION(gpu_histogram_buckets_date)
{
    return time_buckets(fcinfo, PG_GETARG_DATEADT(1), PG_GETARG_DATEADT(2), true);
}

/*
 * gpu_histogram_buckets(hist, thresholds): bin k spans thresholds[k - 1]
 * (inclusive) to thresholds[k], the outer bins to -Infinity and Infinity.
 */
GH_FUNCTION(gpu_histogram_buckets_thresholds)
{
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    ArrayType *thresholds = PG_GETARG_ARRAYTYPE_P(1);
    check_histogram(hist, 1);
    int32 count = checked_thresholds(thresholds);
    int32 n = ARR_DIMS(hist)[0];
    if (n != count + 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg_plural("a histogram over thresholds of length %d has %d element, not %d",
                                      "a histogram over thresholds of length %d has %d elements, not %d",
                                      count + 1, count, count + 1, n)));
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));
    const double *t = reinterpret_cast<const double *>(ARR_DATA_PTR(thresholds));

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    for (int32 b = 0; b < n; b++)
        put_bucket(rsinfo, b, Float8GetDatum(b == 0 ? -get_float8_infinity() : t[b - 1]),
                   Float8GetDatum(b == count ? get_float8_infinity() : t[b]), counts[b]);
    return (Datum)0;
}

} // namespace gpu_histogram
