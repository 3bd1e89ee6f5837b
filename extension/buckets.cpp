/*
 * buckets.cpp: gpu_histogram_buckets(hist, lo, hi), which unrolls a histogram
 * into one row per bucket with its nominal bounds, numbered as width_bucket
 * numbers buckets (0 below the range, nbins + 1 above it); its overloads for
 * time histograms (timestamptz, timestamp and date bounds, timestamp
 * bounds out) and for thresholds.
 */
#include "pg_headers.h"

#include "bucket_edges.h"
#include "errors.h"

namespace gpu_histogram {

namespace {

/* One row (bucket, lower, upper, count) of the result. */
void put_bucket(ReturnSetInfo *rsinfo, int32 b, Datum lower, Datum upper, int64 count)
{
    Datum values[4] = {Int32GetDatum(b), lower, upper, Int64GetDatum(count)};
    bool nulls[4] = {false, false, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    if ((b & 1023) == 0)
        CHECK_FOR_INTERRUPTS();
}

/* gpu_histogram_buckets for int64 bounds: microseconds, or day numbers for dates. */
Datum time_buckets(FunctionCallInfo fcinfo, int64 lo, int64 hi, bool dates)
{
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    check_histogram_counts(hist, 3);
    int32 n = ARR_DIMS(hist)[0];
    int32 nbins = n - 2;
    checked_int64_spec(lo, hi, nbins, time_bounds_infinite(lo, hi, dates));
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    bool ascending = lo < hi;
    auto as_timestamp = [dates](int64 t) {
        return TimestampGetDatum(dates ? timestamp_of_date_edge(static_cast<DateADT>(t)) : t);
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

} // namespace

GH_FUNCTION(gpu_histogram_buckets)
{
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    double lo = PG_GETARG_FLOAT8(1);
    double hi = PG_GETARG_FLOAT8(2);

    check_histogram_counts(hist, 3);
    int32 n = ARR_DIMS(hist)[0];
    int32 nbins = n - 2;
    checked_spec(lo, hi, nbins);
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));

    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = (ReturnSetInfo *)fcinfo->resultinfo;
    bool ascending = lo < hi;
    for (int32 b = 0; b < n; b++) {
        /* Along the numbering, bucket b spans edges b - 1 .. b. */
        double from = b == 0 ? -get_float8_infinity() : nominal_edge(lo, hi, b - 1, nbins);
        double to = b == n - 1 ? get_float8_infinity() : nominal_edge(lo, hi, b, nbins);
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
    int32 count = checked_thresholds_histogram(hist, thresholds);
    int32 n = count + 1;
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
