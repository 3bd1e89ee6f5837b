/*
 * buckets.cpp: gpu_histogram_buckets(hist, lo, hi), which unrolls a histogram
 * into one row per bucket with its nominal bounds, numbered as width_bucket
 * numbers buckets (0 below the range, nbins + 1 above it).
 */
#include "pg_headers.h"

#include "errors.h"

namespace {

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

    if (ARR_NDIM(hist) != 1 || ARR_DIMS(hist)[0] < 3)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("a histogram is a one-dimensional bigint[] of at least 3 elements")));
    if (ARR_HASNULL(hist) && array_contains_nulls(hist))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("histogram elements must not be null")));
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
