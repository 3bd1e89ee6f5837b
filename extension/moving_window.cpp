/*
 * moving_window.cpp: gpu_histogram() as a moving window aggregate: the
 * MSFUNC, MINVFUNC and MFINALFUNC of CREATE AGGREGATE.
 *
 * When a window frame's start moves (ROWS BETWEEN 1000 PRECEDING AND CURRENT
 * ROW, RANGE or GROUPS with an offset), PostgreSQL adds the rows that enter
 * the frame with the moving transition function and takes out the rows that
 * leave it with the inverse one, instead of aggregating the whole frame again
 * for every row: O(1) per row instead of O(frame size).  With an EXCLUDE
 * clause the frame can have holes, and PostgreSQL aggregates every frame
 * from scratch, through these functions as long as the frame start can move.
 * A frame whose start is UNBOUNDED PRECEDING never loses a row, and uses the
 * plain transition function (aggregate.cpp).
 *
 * The moving state is its own small struct, not a HistogramState.  Each value
 * is binned the moment it arrives (gh::cpu_count_one: the formula of
 * gpu/formulas/bucket.h, as for every other value), so nothing is ever pending and a
 * removal decrements exactly the counter its addition incremented.  It never
 * uses the GPU: the window reads the whole histogram back after every row,
 * and a value arrives one at a time, so there is no batch to send, and a GPU
 * round trip per row (tens of microseconds) would cost far more than binning
 * the one value on the CPU (nanoseconds).
 *
 * The rules PostgreSQL sets (nodeWindowAgg.c): the moving transition function
 * must never return NULL, so a frame that starts with a NULL row gets a state
 * with no value in it; the inverse is called for every row the forward
 * function saw, NULL rows included, and must skip those as the forward
 * function did; an inverse that returns NULL makes PostgreSQL aggregate the
 * frame again.  A frame without a value gives NULL, as the plain aggregate
 * does for a group without one, hence `nvalues`.
 */
#include "pg_headers.h"

#include "errors.h"
#include "histogram_state.h"
#include "../gpu/cpu/cpu_backend.h"

namespace gpu_histogram {

namespace {

struct MovingHistogram {
    gh::BucketSpec spec; /* lo, hi, nbins of the values in the frame; meaningful when nvalues > 0 */
    int64 nvalues;       /* non-NULL values in the frame: the sum of counts */
    int64 *counts;       /* spec.nbins + 2 counters, NULL until the first value */
    MemoryContext mcxt;  /* the window aggregate's own context, reset when it restarts */
};

bool any_argument_null(FunctionCallInfo fcinfo)
{
    return PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4);
}

bool same_spec(const gh::BucketSpec &spec, double lo, double hi, int32 nbins)
{
    return lo == spec.lo && hi == spec.hi && nbins == spec.nbins;
}

/*
 * A value that enters an empty frame sets the frame's spec.  The plain
 * aggregate takes its spec from the first row of the frame, and once every
 * earlier value has left, this value is the first.
 */
pg_noinline void start_frame(MovingHistogram *st, double value, double lo, double hi, int32 nbins)
{
    gh::BucketSpec spec = checked_first_row_spec(value, lo, hi, nbins);
    if (st->counts != NULL && spec.nbins != st->spec.nbins) {
        pfree(st->counts);
        st->counts = NULL;
    }
    /* with no value in the frame, every counter is back at zero */
    if (st->counts == NULL) {
        Size bytes = sizeof(int64) * (static_cast<Size>(spec.nbins) + 2);
        st->counts = static_cast<int64 *>(MemoryContextAllocZero(st->mcxt, bytes));
    }
    st->spec = spec;
}

} // namespace

/* gpu_histogram_moving_transfn(state, value, lo, hi, nbins): a row enters the frame. */
GH_FUNCTION(gpu_histogram_moving_transfn)
{
    MovingHistogram *st = PG_ARGISNULL(0) ? NULL : (MovingHistogram *)PG_GETARG_POINTER(0);
    if (st == NULL) {
        MemoryContext aggcontext;
        if (!AggCheckCallContext(fcinfo, &aggcontext))
            elog(ERROR, "gpu_histogram_moving_transfn called in non-aggregate context");
        st = static_cast<MovingHistogram *>(MemoryContextAllocZero(aggcontext, sizeof(MovingHistogram)));
        st->mcxt = aggcontext;
    }
    /* Rows with a NULL argument are skipped, as width_bucket returns NULL for them. */
    if (any_argument_null(fcinfo))
        PG_RETURN_POINTER(st);
    double value = PG_GETARG_FLOAT8(1);
    double lo = PG_GETARG_FLOAT8(2);
    double hi = PG_GETARG_FLOAT8(3);
    int32 nbins = PG_GETARG_INT32(4);

    if (st->nvalues == 0)
        start_frame(st, value, lo, hi, nbins);
    else if (unlikely(!same_spec(st->spec, lo, hi, nbins)))
        report_changed_spec(st->spec, value, lo, hi, nbins);
    report_engine_status(gh::cpu_count_one(st->spec, value, 1, st->counts));
    st->nvalues++;
    gh_values_binned_on_cpu++;
    PG_RETURN_POINTER(st);
}

/*
 * gpu_histogram_moving_invfn(state, value, lo, hi, nbins): a row leaves the
 * frame.  PostgreSQL removes only rows it added, oldest first; a row that
 * could not have been added makes it aggregate the frame again (NULL).
 */
GH_FUNCTION(gpu_histogram_moving_invfn)
{
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    MovingHistogram *st = (MovingHistogram *)PG_GETARG_POINTER(0);
    if (any_argument_null(fcinfo)) /* skipped on the way in */
        PG_RETURN_POINTER(st);
    double value = PG_GETARG_FLOAT8(1);
    if (st->nvalues == 0 || !same_spec(st->spec, PG_GETARG_FLOAT8(2), PG_GETARG_FLOAT8(3), PG_GETARG_INT32(4)))
        PG_RETURN_NULL();
    if (gh::cpu_count_one(st->spec, value, -1, st->counts) != gh::Status::ok)
        PG_RETURN_NULL(); /* a NaN, which the forward function refused */
    st->nvalues--;
    PG_RETURN_POINTER(st);
}

/* The bigint[] of nbins + 2 counts of the frame, or NULL for a frame without a value. */
GH_FUNCTION(gpu_histogram_moving_finalfn)
{
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    MovingHistogram *st = (MovingHistogram *)PG_GETARG_POINTER(0);
    if (st->nvalues == 0)
        PG_RETURN_NULL();
    PG_RETURN_ARRAYTYPE_P(int64_array(st->counts, st->spec.nbins + 2));
}

} // namespace gpu_histogram
