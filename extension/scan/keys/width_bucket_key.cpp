/*
 * width_bucket_key.cpp: width_bucket(y, lo, hi, n) over a float8 column
 * (or int2, int4, int8, float4 under the implicit cast) as a GROUP BY key,
 * the second axis of a 2-D histogram (key_kind.h).  PostgreSQL's function
 * answers the first row, and so checks the arguments; from then on bucket.h
 * gives its answers, where it reproduces them for these arguments, on the
 * host and on the GPU alike.
 */
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"
#include "../quals/fixed_exprs.h"
#include "../scan_node.h"

#include "../../errors.h"

extern "C" {
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
}

namespace gpu_histogram {

namespace {

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    if (!IsA(expr, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(expr);
    List *args = f->args;
    if (f->funcid != F_WIDTH_BUCKET_FLOAT8_FLOAT8_FLOAT8_INT4 || list_length(args) != 4 ||
        !float8_column(static_cast<Expr *>(linitial(args)), relid, &out->attno, &out->coltype))
        return false;
    for (int i = 0; i < 3; i++) {
        out->args[i] = static_cast<Expr *>(list_nth(args, i + 1));
        if (!fixed_for_scan(reinterpret_cast<Node *>(out->args[i])))
            return false;
    }
    out->keytype = INT4OID;
    return true;
}

void init(GroupKey *key, TupleDesc, PlanState *parent)
{
    for (int i = 0; i < 3; i++)
        key->arg_states[i] = ExecInitExpr(key->def.args[i], parent);
}

void prepare(GroupKey *key, ExprContext *econtext)
{
    bool lo_null, hi_null, n_null;
    key->wb_lo = key_arg_value(key->arg_states[0], econtext, FLOAT8OID, &lo_null);
    key->wb_hi = key_arg_value(key->arg_states[1], econtext, FLOAT8OID, &hi_null);
    key->wb_n = key_arg_value(key->arg_states[2], econtext, INT4OID, &n_null);
    key->wb_null = lo_null || hi_null || n_null;
    key->wb_checked = key->wb_fast = false;
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    double y;
    if (key->wb_null || heap_column_values(key->column, desc, t, 1, &y) == 0)
        return false;
    if (likely(key->wb_fast)) {
        int32 b = gh::width_bucket(y, key->wb_spec);
        if (likely(b != gh::kNaNBucket)) {
            *word = b;
            return true;
        }
    }
    /* PostgreSQL's function: the first row (its argument errors), a NaN (its error), or always */
    *word = DatumGetInt32(
        DirectFunctionCall4(width_bucket_float8, Float8GetDatum(y), key->wb_lo, key->wb_hi, key->wb_n));
    if (!key->wb_checked) {
        key->wb_checked = true;
        key->wb_spec = gh::BucketSpec{DatumGetFloat8(key->wb_lo), DatumGetFloat8(key->wb_hi),
                                      DatumGetInt32(key->wb_n), kServerRule};
        key->wb_fast = gh::validate_spec(key->wb_spec) == gh::SpecError::none;
    }
    return true;
}

bool gpu_table(GroupKey *key, const KeyRows &, gh::PageKey *out, KeyTables *t, int k)
{
    /* only once PostgreSQL's function accepted the arguments and bucket.h gives its answers */
    if (key->wb_null || !key->wb_fast)
        return false;
    out->kind = gh::PageKeyKind::width_bucket;
    out->wb = key->wb_spec;
    out->slots = static_cast<uint32>(key->wb_spec.nbins) + 2;
    t->slot_words[k] = NULL; /* the slot is the bucket */
    return true;
}

/* Its n + 2 buckets, and NULL. */
double group_bound(PlannerInfo *, Index, const GroupKeyDef &def)
{
    const Expr *n = def.args[2];
    if (IsA(n, Const) && !reinterpret_cast<const Const *>(n)->constisnull)
        return Max(DatumGetInt32(reinterpret_cast<const Const *>(n)->constvalue), 0) + 3.0;
    return 0;
}

const char *describe(const GroupKey *)
{
    return "width_bucket";
}

} // namespace

const KeyKindOps width_bucket_key_kind = {
    KeyKind::width_bucket, "width_bucket", recognise, init, prepare, word, NULL, gpu_table, group_bound, false, NULL, describe,
};

} // namespace gpu_histogram
