/*
 * aggregate.cpp: the SQL-callable support functions of the gpu_histogram()
 * aggregate: the float8 form's transition function, and the final, combine,
 * serialize and deserialize functions that every form shares (the time and
 * threshold forms' transition functions are in time_aggregate.cpp and
 * threshold_aggregate.cpp).
 */
#include "pg_headers.h"

#include "errors.h"
#include "histogram_state.h"

#include <cmath>

namespace gpu_histogram {

namespace {

MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char *caller)
{
    MemoryContext aggcontext;
    if (!AggCheckCallContext(fcinfo, &aggcontext))
        elog(ERROR, "%s called in non-aggregate context", caller);
    return aggcontext;
}

/*
 * Everything but the common row: the first row of a group, NULL arguments,
 * and arguments that changed.
 */
pg_noinline Datum transfn_slow_path(FunctionCallInfo fcinfo)
{
    MemoryContext aggcontext = aggregate_context(fcinfo, "gpu_histogram_transfn");
    HistogramState *st = PG_ARGISNULL(0) ? NULL : (HistogramState *)PG_GETARG_POINTER(0);

    /* Rows with a NULL argument are skipped, as width_bucket returns NULL for them. */
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4)) {
        if (st == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(st);
    }
    double value = PG_GETARG_FLOAT8(1);
    double lo = PG_GETARG_FLOAT8(2);
    double hi = PG_GETARG_FLOAT8(3);
    int32 nbins = PG_GETARG_INT32(4);

    if (st == NULL)
        st = histogram_state_create(aggcontext, gh::float_histogram(checked_first_row_spec(value, lo, hi, nbins)));
    else if (lo != st->spec.interval.lo || hi != st->spec.interval.hi || nbins != st->spec.interval.nbins)
        report_changed_spec(st->spec.interval, value, lo, hi, nbins);
    else if (std::isnan(value))
        report_engine_status(gh::Status::nan_value); /* at its row, as width_bucket raises */
    histogram_state_append(st, value);
    PG_RETURN_POINTER(st);
}

} // namespace

/*
 * gpu_histogram_transfn(state, value, lo, hi, nbins): appends one value.
 *
 * This runs once per row, so the common case is kept to a few loads, four
 * compares and a store.  The state pointer can only come from our own
 * first call (SQL cannot make an `internal`), so AggCheckCallContext runs
 * once per group, in the slow path, not once per row.  A NaN value takes
 * the slow path and raises at its row, as width_bucket does, not when its
 * group's batch is binned, where an error of a later row (a key, a WHERE
 * clause) would win over it.
 */
GH_FUNCTION(gpu_histogram_transfn)
{
    if (likely(!PG_ARGISNULL(0) && !PG_ARGISNULL(1) && !PG_ARGISNULL(2) && !PG_ARGISNULL(3) &&
               !PG_ARGISNULL(4))) {
        HistogramState *st = (HistogramState *)PG_GETARG_POINTER(0);
        const double value = PG_GETARG_FLOAT8(1);
        if (likely(PG_GETARG_FLOAT8(2) == st->spec.interval.lo && PG_GETARG_FLOAT8(3) == st->spec.interval.hi &&
                   PG_GETARG_INT32(4) == st->spec.interval.nbins && !std::isnan(value))) {
            histogram_state_append(st, value);
            PG_RETURN_POINTER(st);
        }
    }
    return transfn_slow_path(fcinfo);
}

/* The bigint[] of counts (nbins + 2, or thresholds + 1), or NULL for a group without a value. */
GH_FUNCTION(gpu_histogram_finalfn)
{
    (void)aggregate_context(fcinfo, "gpu_histogram_finalfn");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    HistogramState *st = (HistogramState *)PG_GETARG_POINTER(0);
    /* Binning what is pending leaves the state equivalent, so repeated calls
     * (window aggregates) and later transitions stay correct. */
    histogram_state_flush(st);
    PG_RETURN_ARRAYTYPE_P(int64_array(st->counts, histogram_state_slots(st)));
}

GH_FUNCTION(gpu_histogram_combinefn)
{
    MemoryContext aggcontext = aggregate_context(fcinfo, "gpu_histogram_combinefn");
    HistogramState *a = PG_ARGISNULL(0) ? NULL : (HistogramState *)PG_GETARG_POINTER(0);
    HistogramState *b = PG_ARGISNULL(1) ? NULL : (HistogramState *)PG_GETARG_POINTER(1);
    if (b == NULL) {
        if (a == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(a);
    }
    /* b may live in a shorter-lived context than the aggregate's: copy it. */
    if (a == NULL)
        PG_RETURN_POINTER(histogram_state_copy(aggcontext, b));
    histogram_state_combine(a, b);
    PG_RETURN_POINTER(a);
}

GH_FUNCTION(gpu_histogram_serializefn)
{
    (void)aggregate_context(fcinfo, "gpu_histogram_serializefn");
    HistogramState *st = (HistogramState *)PG_GETARG_POINTER(0);
    PG_RETURN_BYTEA_P(histogram_state_serialize(st));
}

GH_FUNCTION(gpu_histogram_deserializefn)
{
    (void)aggregate_context(fcinfo, "gpu_histogram_deserializefn");
    bytea *wire = PG_GETARG_BYTEA_PP(0);
    PG_RETURN_POINTER(histogram_state_deserialize(CurrentMemoryContext, wire, fcinfo->flinfo));
}

} // namespace gpu_histogram
