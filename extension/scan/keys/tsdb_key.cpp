/*
 * tsdb_key.cpp: TimescaleDB's time_bucket(width, ts, ...) over a
 * timestamptz, timestamp or date column as a GROUP BY key, where
 * TimescaleDB is installed (key_kind.h).  tsdb_bucket.h computes it with
 * TimescaleDB's own function, interval by verified interval; on the GPU it
 * is a table of those intervals, only where the arguments leave the
 * function no error to raise inside the table's range.
 */
#include "column_span.h"
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    if (!IsA(expr, FuncExpr) ||
        !tsdb_bucket_parse(reinterpret_cast<const FuncExpr *>(expr), relid, &out->tsdb, &out->attno, &out->coltype))
        return false;
    out->keytype = out->coltype;
    return true;
}

void init(GroupKey *key, TupleDesc, PlanState *parent)
{
    const GroupKeyDef &def = key->def;
    for (int i = 0; i < def.tsdb.nargs; i++)
        if (def.tsdb.args[i] != NULL)
            key->arg_states[i] = ExecInitExpr(def.tsdb.args[i], parent);
    tsdb_bucket_init(&key->tsdb, def.tsdb, def.coltype);
}

void prepare(GroupKey *key, ExprContext *econtext)
{
    Datum values[5] = {};
    bool nulls[5] = {};
    for (int i = 0; i < key->def.tsdb.nargs; i++)
        if (key->arg_states[i] != NULL)
            values[i] = key_arg_value(key->arg_states[i], econtext,
                                      exprType(reinterpret_cast<Node *>(key->def.tsdb.args[i])), &nulls[i]);
    tsdb_bucket_set_args(&key->tsdb, values, nulls);
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    int64 ts;
    return heap_column_word(key->column, desc, t, &ts) && tsdb_bucket_value(&key->tsdb, ts, word);
}

/* The key of one stored time and the interval around it with that key, as tsdb_bucket.cpp verified it. */
bool verified_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    TsdbBucket *b = &key->tsdb;
    b->hit_lo = 1;
    b->hit_hi = 0;
    if (!tsdb_bucket_compute(b, ts, result))
        return false; /* a NULL bucket */
    *from = b->hit_lo;
    *to = b->hit_hi + 1; /* its hits are inclusive; hi is below the table's end */
    return b->hit_lo <= ts && ts <= b->hit_hi;
}

bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    /*
     * TimescaleDB's function over values no row may have: only where its
     * arguments leave it no error to raise inside the table's range
     * (tsdb_bucket_range_safe).  A date column stays on the host.
     */
    const HeapColumn &col = key->column;
    TsdbBucket *b = &key->tsdb;
    int64 lo, hi;
    if ((col.type != TIMESTAMPOID && col.type != TIMESTAMPTZOID) || !tsdb_bucket_range_safe(b) ||
        !key_rows_range(rows, col, &lo, &hi) || !key_inside_table(&lo, &hi))
        return false;
    out->kind = gh::PageKeyKind::intervals;
    const bool built = key_time_intervals(key, verified_interval, b->span + 1, lo, hi, out, t, k);
    b->hit_lo = 1;
    b->hit_hi = 0;
    return built && out->slots <= kMaxKeySlots;
}

/* The span the query reads over the bucket's width (a month as its shortest), and the partial ends. */
double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    if (def.coltype == DATEOID)
        return 0;
    const Expr *width = def.tsdb.args[0];
    double length = 0;
    if (IsA(width, Const) && !reinterpret_cast<const Const *>(width)->constisnull) {
        const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(width)->constvalue);
        length = iv->month * 28 * 86400e6 + iv->day * 86400e6 + static_cast<double>(iv->time);
    }
    double span;
    if (length <= 0 || !planner_column_span(root, relid, def.attno, def.coltype, &span))
        return 0;
    double buckets;
    if (planner_bucket_groups(root, relid, def.attno, def.coltype, length, &buckets))
        span = Min(span, buckets * length);
    return span / length + 3.0;
}

const char *describe(const GroupKey *key)
{
    return tsdb_bucket_describe(&key->tsdb);
}

} // namespace

const KeyKindOps tsdb_key_kind = {
    KeyKind::time_bucket, "time_bucket", recognise, init, prepare, word, NULL, gpu_table, group_bound, true, NULL, describe,
};

} // namespace gpu_histogram
