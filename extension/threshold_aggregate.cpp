/*
 * threshold_aggregate.cpp: the transition function of
 * gpu_histogram(value float8, thresholds float8[]), PostgreSQL's
 * width_bucket(value, thresholds) histogram: count + 1 bins of any widths.
 *
 * The thresholds are checked and copied once per group; every group with
 * the same thresholds shares one copy (intern_thresholds()).  When the
 * argument is a constant or a parameter (the usual case: a literal array),
 * the query cannot change it, and later rows are not compared with it at
 * all; otherwise (a column, an expression) each row's array is compared
 * with the group's, element by element.
 */
#include "pg_headers.h"

#include "errors.h"
#include "histogram_state.h"

namespace gpu_histogram {

namespace {

/* Whether the aggregate's argument argno (0-based) keeps one value for the whole query. */
bool argument_is_constant(FunctionCallInfo fcinfo, int argno)
{
    Aggref *aggref = AggGetAggref(fcinfo); /* NULL in a window aggregate */
    if (aggref == NULL || list_length(aggref->args) <= argno)
        return false;
    Node *arg = reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(aggref->args, argno))->expr);
    /*
     * A Param changes only between executions of the Agg node, and
     * PostgreSQL resets every group when a parameter of the aggregate's
     * arguments changes (ExecReScanAgg).
     */
    return IsA(arg, Const) || IsA(arg, Param);
}

bool same_thresholds(const HistogramState *st, ArrayType *a)
{
    if (ARR_NDIM(a) > 1 || ARR_HASNULL(a))
        return false;
    int32 count = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
    return count == st->spec.thresholds.count &&
           memcmp(ARR_DATA_PTR(a), st->spec.thresholds.thresholds, sizeof(double) * static_cast<Size>(count)) == 0;
}

/* The first row of a group, NULL arguments, and rows whose thresholds must be compared. */
pg_noinline Datum thresholds_transfn_slow_path(FunctionCallInfo fcinfo)
{
    MemoryContext aggcontext;
    if (!AggCheckCallContext(fcinfo, &aggcontext))
        elog(ERROR, "gpu_histogram_thresholds_transfn called in non-aggregate context");
    HistogramState *st = PG_ARGISNULL(0) ? NULL : (HistogramState *)PG_GETARG_POINTER(0);
    /* width_bucket(value, thresholds) is strict: a NULL value or array is no error, the row is skipped */
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) {
        if (st == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(st);
    }
    ArrayType *thresholds = PG_GETARG_ARRAYTYPE_P(2);
    if (st == NULL) {
        int32 count = checked_thresholds(thresholds);
        const double *copy =
            intern_thresholds(fcinfo->flinfo, reinterpret_cast<const double *>(ARR_DATA_PTR(thresholds)), count);
        st = histogram_state_create(aggcontext, gh::threshold_histogram(copy, count));
        st->spec_is_constant = argument_is_constant(fcinfo, 1);
    } else if (!same_thresholds(st, thresholds)) {
        checked_thresholds(thresholds); /* an invalid array gets width_bucket's error */
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("gpu_histogram thresholds must be the same for every row of a group")));
    }
    histogram_state_append(st, PG_GETARG_FLOAT8(1));
    PG_RETURN_POINTER(st);
}

} // namespace

/*
 * gpu_histogram_thresholds_transfn(state, value, thresholds): appends one
 * value.  With constant thresholds the common row is an append, as in the
 * float8 form; the array is not even detoasted.
 */
GH_FUNCTION(gpu_histogram_thresholds_transfn)
{
    if (likely(!PG_ARGISNULL(0) && !PG_ARGISNULL(1) && !PG_ARGISNULL(2))) {
        HistogramState *st = (HistogramState *)PG_GETARG_POINTER(0);
        if (likely(st->spec_is_constant)) {
            histogram_state_append(st, PG_GETARG_FLOAT8(1));
            PG_RETURN_POINTER(st);
        }
    }
    return thresholds_transfn_slow_path(fcinfo);
}

} // namespace gpu_histogram
