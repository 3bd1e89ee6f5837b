/*
 * merge.cpp: gpu_histogram_merge(bigint[]), the element-wise sum of stored
 * histograms of one length (rollups of per-day histograms, shards).
 */
#include "pg_headers.h"

#include "errors.h"
#include "histogram_state.h"

namespace gpu_histogram {

namespace {

struct MergeState {
    int32 n;
    int64 *counts;
};

/* Wire format: int32 n, then n int64 counts. */

/*
 * A count is the number of rows in a bucket: a negative one is malformed
 * input (a hand-written or corrupted histogram), refused as a NULL element
 * is, before it can be added to anything.  `what` names the input.
 */
void check_counts(const int64 *counts, int32 n, const char *what)
{
    for (int32 i = 0; i < n; i++)
        if (unlikely(counts[i] < 0))
            ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                            errmsg("gpu_histogram_merge: histogram counts must not be negative"),
                            errdetail("Element %d of the %s is " INT64_FORMAT ".", i + 1, what, counts[i])));
}

void check_histogram(ArrayType *a, int32 expected_n)
{
    check_histogram_size(a);
    if (ARR_NDIM(a) != 1)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("gpu_histogram_merge expects one-dimensional histograms")));
    if (ARR_HASNULL(a) && array_contains_nulls(a))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("gpu_histogram_merge: histogram elements must not be null")));
    int32 n = ARR_DIMS(a)[0];
    if (expected_n >= 0 && n != expected_n)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("cannot merge histograms of different lengths %d and %d", expected_n, n)));
    check_counts(reinterpret_cast<const int64 *>(ARR_DATA_PTR(a)), n, "histogram");
}

void add_counts(int64 *dst, const int64 *src, int32 n)
{
    for (int32 i = 0; i < n; i++)
        if (unlikely(pg_add_s64_overflow(dst[i], src[i], &dst[i])))
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE), errmsg("bigint out of range")));
}

MergeState *merge_state_create(MemoryContext mcxt, int32 n, const int64 *counts)
{
    MergeState *st = static_cast<MergeState *>(MemoryContextAlloc(mcxt, sizeof(MergeState)));
    st->n = n;
    st->counts = static_cast<int64 *>(MemoryContextAlloc(mcxt, sizeof(int64) * static_cast<Size>(n)));
    memcpy(st->counts, counts, sizeof(int64) * static_cast<Size>(n));
    return st;
}

MemoryContext aggregate_context(FunctionCallInfo fcinfo)
{
    MemoryContext aggcontext;
    if (!AggCheckCallContext(fcinfo, &aggcontext))
        elog(ERROR, "gpu_histogram_merge support function called in non-aggregate context");
    return aggcontext;
}

} // namespace

GH_FUNCTION(gpu_histogram_merge_transfn)
{
    MemoryContext aggcontext = aggregate_context(fcinfo);
    MergeState *st = PG_ARGISNULL(0) ? NULL : (MergeState *)PG_GETARG_POINTER(0);
    if (PG_ARGISNULL(1)) {
        if (st == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(st);
    }
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(1);
    check_histogram(hist, st ? st->n : -1);
    const int64 *counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));
    if (st == NULL)
        st = merge_state_create(aggcontext, ARR_DIMS(hist)[0], counts);
    else
        add_counts(st->counts, counts, st->n);
    PG_RETURN_POINTER(st);
}

GH_FUNCTION(gpu_histogram_merge_finalfn)
{
    (void)aggregate_context(fcinfo);
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    MergeState *st = (MergeState *)PG_GETARG_POINTER(0);
    PG_RETURN_ARRAYTYPE_P(int64_array(st->counts, st->n));
}

/*
 * Both states hold only counts that were checked where they came in (the
 * transition function, or the deserialize function for a worker's state),
 * and add_counts() refuses overflow, so no sum here is negative.
 */
GH_FUNCTION(gpu_histogram_merge_combinefn)
{
    MemoryContext aggcontext = aggregate_context(fcinfo);
    MergeState *a = PG_ARGISNULL(0) ? NULL : (MergeState *)PG_GETARG_POINTER(0);
    MergeState *b = PG_ARGISNULL(1) ? NULL : (MergeState *)PG_GETARG_POINTER(1);
    if (b == NULL) {
        if (a == NULL)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(a);
    }
    if (a == NULL)
        PG_RETURN_POINTER(merge_state_create(aggcontext, b->n, b->counts));
    if (a->n != b->n)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("cannot merge histograms of different lengths %d and %d", a->n, b->n)));
    add_counts(a->counts, b->counts, a->n);
    PG_RETURN_POINTER(a);
}

GH_FUNCTION(gpu_histogram_merge_serializefn)
{
    (void)aggregate_context(fcinfo);
    MergeState *st = (MergeState *)PG_GETARG_POINTER(0);
    Size payload = sizeof(int32) + sizeof(int64) * static_cast<Size>(st->n);
    bytea *wire = static_cast<bytea *>(palloc(VARHDRSZ + payload));
    SET_VARSIZE(wire, VARHDRSZ + payload);
    memcpy(VARDATA(wire), &st->n, sizeof(int32));
    memcpy(VARDATA(wire) + sizeof(int32), st->counts, sizeof(int64) * static_cast<Size>(st->n));
    PG_RETURN_BYTEA_P(wire);
}

GH_FUNCTION(gpu_histogram_merge_deserializefn)
{
    (void)aggregate_context(fcinfo);
    bytea *wire = PG_GETARG_BYTEA_PP(0);
    Size len = VARSIZE_ANY_EXHDR(wire);
    int32 n;
    if (len < sizeof(int32))
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("gpu_histogram_merge state is truncated")));
    memcpy(&n, VARDATA_ANY(wire), sizeof(int32));
    if (n < 0 || n > kMaxHistogramSlots)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram_merge state is corrupt: a histogram of %d elements", n)));
    if (len != sizeof(int32) + sizeof(int64) * static_cast<Size>(n))
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram_merge state has %zu bytes, which does not match its length %d",
                               (size_t)len, n)));
    /* the payload after the int32 is not 8-byte aligned: copy, don't cast */
    MergeState *st = static_cast<MergeState *>(palloc(sizeof(MergeState)));
    st->n = n;
    st->counts = static_cast<int64 *>(palloc(sizeof(int64) * static_cast<Size>(n)));
    memcpy(st->counts, VARDATA_ANY(wire) + sizeof(int32), sizeof(int64) * static_cast<Size>(n));
    check_counts(st->counts, n, "partial state");
    PG_RETURN_POINTER(st);
}

} // namespace gpu_histogram
