/*
 * time_aggregate.cpp: the transition functions of gpu_histogram(ts, lo, hi,
 * nbins) for timestamptz, timestamp and date.
 *
 * A timestamp is an int64 count of microseconds and a date an int32 count
 * of days, and each row's value goes to the engine as that int64.  The
 * engine buckets it as PostgreSQL's numeric width_bucket would bucket the
 * count (gpu/formulas/time_bucket.h), so the result equals
 * width_bucket((extract(epoch FROM ts) * 1000000)::numeric, ...) for
 * timestamps: moving the origin to 1970 changes no difference.  Infinite
 * values are the int64 (or int32) extremes and count in the outer buckets;
 * infinite bounds raise numeric width_bucket's error for infinite bounds.
 * Everything after the transition (final, combine, serialize) is shared
 * with the float8 form (aggregate.cpp).
 */
#include "pg_headers.h"

#include "errors.h"
#include "histogram_state.h"

namespace gpu_histogram {

namespace {

/* Bounds of the group's first row, checked in numeric width_bucket's order. */
gh::Int64Spec checked_time_spec(int64 lo, int64 hi, int32 nbins, bool dates)
{
    return checked_int64_spec(lo, hi, nbins, time_bounds_infinite(lo, hi, dates));
}

int64 time_arg(FunctionCallInfo fcinfo, int argno, bool dates)
{
    return dates ? static_cast<int64>(PG_GETARG_DATEADT(argno)) : PG_GETARG_INT64(argno);
}

/* The first row of a group, NULL arguments, and bounds that changed. */
pg_noinline Datum time_transfn_slow_path(FunctionCallInfo fcinfo, bool dates)
{
    MemoryContext aggcontext;
    if (!AggCheckCallContext(fcinfo, &aggcontext))
        elog(ERROR, "gpu_histogram time transition function called in non-aggregate context");
    HistogramState *st = PG_ARGISNULL(0) ? NULL : (HistogramState *)PG_GETARG_POINTER(0);
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4)) {
        if (st == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(st);
    }
    int64 value = time_arg(fcinfo, 1, dates);
    int64 lo = time_arg(fcinfo, 2, dates);
    int64 hi = time_arg(fcinfo, 3, dates);
    int32 nbins = PG_GETARG_INT32(4);
    if (st == NULL) {
        st = histogram_state_create(aggcontext, gh::int64_histogram(checked_time_spec(lo, hi, nbins, dates)));
    } else if (lo != st->spec.int64.lo || hi != st->spec.int64.hi || nbins != st->spec.int64.nbins) {
        checked_time_spec(lo, hi, nbins, dates); /* invalid arguments get width_bucket's error */
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("gpu_histogram bounds and bucket count must be the same for every row of a group")));
    }
    histogram_state_append_int64(st, value);
    PG_RETURN_POINTER(st);
}

/* The common row: a few compares and a store, as in the float8 form. */
inline Datum time_transfn(FunctionCallInfo fcinfo, bool dates)
{
    if (likely(!PG_ARGISNULL(0) && !PG_ARGISNULL(1) && !PG_ARGISNULL(2) && !PG_ARGISNULL(3) &&
               !PG_ARGISNULL(4))) {
        HistogramState *st = (HistogramState *)PG_GETARG_POINTER(0);
        if (likely(time_arg(fcinfo, 2, dates) == st->spec.int64.lo && time_arg(fcinfo, 3, dates) == st->spec.int64.hi &&
                   PG_GETARG_INT32(4) == st->spec.int64.nbins)) {
            histogram_state_append_int64(st, time_arg(fcinfo, 1, dates));
            PG_RETURN_POINTER(st);
        }
    }
    return time_transfn_slow_path(fcinfo, dates);
}

} // namespace

/* gpu_histogram_time_transfn(state, ts, lo, hi, nbins): timestamptz and timestamp alike. */
GH_FUNCTION(gpu_histogram_time_transfn)
{
    return time_transfn(fcinfo, false);
}

/* gpu_histogram_date_transfn(state, d, lo, hi, nbins): over day numbers. */
GH_FUNCTION(gpu_histogram_date_transfn)
{
    return time_transfn(fcinfo, true);
}

} // namespace gpu_histogram
