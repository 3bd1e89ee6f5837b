/*
 * expression_key.cpp: any other GROUP BY key, computed on the host by
 * PostgreSQL's executor (key_kind.h).
 *
 * A dashboard's key is often none of the kinds the scan knows how to
 * compute itself: lower(s), to_char(ts, 'YYYY-MM'), a numeric column, the
 * float8 of Grafana's $__unixEpochGroup.  Rather than give the whole query
 * back to the ordinary plan, the scan evaluates such a key for each row as
 * the ordinary plan's projection would, with the same expression, and still
 * groups and bins the rows itself.  The key must be
 *   - over this table's columns only, nothing volatile, no subquery, and
 *     parallel safe (a worker may evaluate it);
 *   - of a type whose equality the group table can keep: equal keys must
 *     have equal words or bytes.  Integers, bool, date, timestamp and
 *     timestamptz are their words; text and varchar under a deterministic
 *     collation their bytes; float8 and float4 their bits with -0 made 0 and
 *     every NaN one NaN (float8_eq's classes); numeric its bytes, where every
 *     value has the same display scale (fixed_scale()): a numeric of one
 *     scale has one representation, so equal bytes are numeric_eq's classes
 *     and a group shows its value as the ordinary plan does.
 * Any other type keeps the ordinary plan (but a float8 that is never -0,
 * monotone_key.cpp).  The GPU never places these rows: it computes no
 * function of PostgreSQL's.
 */
#include "../quals/heap_tuple_exprs.h"
#include "builtin_ops.h"
#include "expression_bound.h"
#include "expression_key.h"
#include "group_keys.h"
#include "key_helpers.h"
#include "value_memo.h"

#include "../../pg_compat.h"

extern "C" {
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/float.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
}

#include <cmath>

namespace gpu_histogram {

namespace {

struct Walk {
    Index relid;
    const Var *first; /* a column the key reads */
    bool ok;
};

bool not_parallel_safe(Oid func, void *)
{
    return func_parallel(func) != PROPARALLEL_SAFE;
}

/* Whether every column is the table's own, and nothing is a subquery, an outer Param or unsafe in a worker. */
bool walk(Node *node, Walk *w)
{
    if (node == NULL || !w->ok)
        return false;
    if (IsA(node, Var)) {
        const Var *v = reinterpret_cast<const Var *>(node);
        if (v->varno != static_cast<int>(w->relid) || v->varlevelsup != 0 || v->varattno <= 0)
            w->ok = false;
        else if (w->first == NULL)
            w->first = v;
        return false;
    }
    if (IsA(node, SubLink) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, Aggref) ||
        IsA(node, WindowFunc) || IsA(node, GroupingFunc) || IsA(node, PlaceHolderVar) ||
        (IsA(node, Param) && reinterpret_cast<Param *>(node)->paramkind != PARAM_EXTERN) ||
        check_functions_in_node(node, not_parallel_safe, NULL)) {
        w->ok = false;
        return false;
    }
    return expression_tree_walker(node, GH_WALKER(walk), w);
}

} // namespace

/*
 * Whether every value of a numeric expression has one display scale: a
 * constant, a numeric with a typmod, floor, ceil, round or trunc (scale 0,
 * or their constant scale), an integer made numeric, and the sum,
 * difference or product of such (numeric_add's scale is the larger of its
 * arguments', numeric_mul's their sum).  Grafana's
 * floor(extract(epoch FROM ts) / 60) * 60 is one.
 */
bool expression_fixed_scale(const Node *n)
{
    if (IsA(n, Const) || exprTypmod(n) >= 0)
        return true;
    if (IsA(n, RelabelType))
        return expression_fixed_scale(reinterpret_cast<const Node *>(reinterpret_cast<const RelabelType *>(n)->arg));
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        switch (f->funcid) {
        case F_FLOOR_NUMERIC:
        case F_CEIL_NUMERIC:
        case F_CEILING_NUMERIC:
        case F_ROUND_NUMERIC:
        case F_TRUNC_NUMERIC:
            return true;
        case F_ROUND_NUMERIC_INT4:
        case F_TRUNC_NUMERIC_INT4:
            return IsA(lsecond(f->args), Const);
        case F_EXTRACT_TEXT_TIMESTAMPTZ:
        case F_EXTRACT_TEXT_TIMESTAMP:
        case F_EXTRACT_TEXT_DATE: {
            /* each field's scale is its own (seconds 6, hours 0), except julian's */
            const Node *field = static_cast<const Node *>(linitial(f->args));
            return IsA(field, Const) && !reinterpret_cast<const Const *>(field)->constisnull &&
                   pg_strcasecmp(TextDatumGetCString(reinterpret_cast<const Const *>(field)->constvalue), "julian") != 0;
        }
        }
        return builtin_integer_to_numeric(f);
    }
    if (IsA(n, OpExpr)) {
        /* numeric_add, _sub and _mul by OID: a look-alike `+` may answer 1.0 and 1.00 */
        const OpExpr *op = reinterpret_cast<const OpExpr *>(n);
        const Arithmetic what = builtin_arithmetic(op);
        return (what == Arithmetic::add || what == Arithmetic::sub || what == Arithmetic::mul) &&
               expression_fixed_scale(static_cast<const Node *>(linitial(op->args))) &&
               expression_fixed_scale(static_cast<const Node *>(lsecond(op->args)));
    }
    return false;
}

namespace {

/* Whether the group table can keep the values of expr: equal keys, equal words or bytes. */
bool keepable(const Node *expr)
{
    const Oid type = heap_stored_type(exprType(expr)), collation = exprCollation(expr);
    if (type == NUMERICOID)
        return expression_fixed_scale(expr);
    return key_type_kept_as_is(type, collation);
}

} // namespace

bool expression_key_recognise(Expr *expr, Index relid, GroupKeyDef *out, bool float8_ok)
{
    Walk w{relid, NULL, true};
    walk(reinterpret_cast<Node *>(expr), &w);
    if (!w.ok || w.first == NULL || contain_volatile_functions(reinterpret_cast<Node *>(expr)))
        return false;
    /* a domain's values are its base type's; an enum's label keeps its type, its word the OID */
    const Oid exprtype = exprType(reinterpret_cast<Node *>(expr)), base = getBaseType(exprtype);
    const Oid type = type_is_enum(base) ? base : heap_stored_type(exprtype);
    if (!keepable(reinterpret_cast<Node *>(expr)) && !(float8_ok && type == FLOAT8OID))
        return false;
    out->expr = expr;
    out->keytype = type;
    out->as_bytes = type == TEXTOID || type == VARCHAROID || type == NUMERICOID;
    out->attno = w.first->varattno; /* any column it reads: the key's own column is the expression */
    out->coltype = heap_stored_type(w.first->vartype);
    return true;
}

void expression_key_init(GroupKey *key, TupleDesc desc, PlanState *parent)
{
    /* the key reads heap tuples, not the node's virtual scan slot, as the WHERE clause does */
    key->expr_state = heap_tuple_expr_init(key->def.expr, desc, parent);
    key->slot = ExecInitExtraTupleSlot(parent->state, desc, &TTSOpsHeapTuple); /* dropped with the plan */
    key->row_context = CreateExprContext(parent->state);
}

Datum expression_key_evaluate_state(GroupKey *key, ExprState *state, HeapTupleData *t, bool *isnull)
{
    ResetExprContext(key->row_context);
    ExecStoreHeapTuple(t, key->slot, false);
    key->row_context->ecxt_scantuple = key->slot;
    return ExecEvalExprSwitchContext(state, key->row_context, isnull);
}

Datum expression_key_evaluate(GroupKey *key, HeapTupleData *t, bool *isnull)
{
    return expression_key_evaluate_state(key, key->expr_state, t, isnull);
}

bool expression_key_word(GroupKey *key, TupleDesc, HeapTupleData *t, int64 *word)
{
    key->executor_rows++;
    bool isnull;
    Datum d = expression_key_evaluate(key, t, &isnull);
    if (isnull)
        return false;
    switch (key->def.keytype) {
    case BOOLOID: *word = DatumGetBool(d) ? 1 : 0; return true;
    case INT2OID: *word = DatumGetInt16(d); return true;
    case INT4OID:
    case DATEOID: *word = DatumGetInt32(d); return true;
    case FLOAT8OID: {
        double x = DatumGetFloat8(d);
        x = std::isnan(x) ? get_float8_nan() : x == 0 ? 0.0 : x; /* float8_eq: -0 = 0, NaN = NaN */
        memcpy(word, &x, sizeof x);
        return true;
    }
    case FLOAT4OID: {
        float x = DatumGetFloat4(d);
        x = std::isnan(x) ? get_float4_nan() : x == 0 ? 0.0f : x;
        uint32 bits;
        memcpy(&bits, &x, sizeof bits);
        *word = bits;
        return true;
    }
    }
    *word = DatumGetInt64(d); /* int8, timestamp, timestamptz */
    return true;
}

bool expression_key_bytes(GroupKey *key, TupleDesc, HeapTupleData *t, const char **data, int32 *len)
{
    key->executor_rows++;
    bool isnull;
    Datum d = expression_key_evaluate(key, t, &isnull);
    if (isnull)
        return false;
    MemoryContext old = MemoryContextSwitchTo(key->row_context->ecxt_per_tuple_memory);
    struct varlena *v = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(d)));
    MemoryContextSwitchTo(old);
    *data = VARDATA_ANY(v);
    *len = VARSIZE_ANY_EXHDR(v);
    return true;
}

namespace {

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    return expression_key_recognise(expr, relid, out, false);
}

double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    return expression_group_bound(root, relid, def.expr);
}

const char *describe(const GroupKey *)
{
    return "host expression";
}

} // namespace

const MemoResult *expression_key_remember(GroupKey *key, TupleDesc desc, HeapTupleData *t, bool valnull, int64 value,
                                          bool remember, MemoResult *fresh)
{
    *fresh = MemoResult{};
    if (group_key_is_text(key)) {
        const char *data = NULL;
        int32 len = 0;
        const bool isnull = !expression_key_bytes(key, desc, t, &data, &len);
        *fresh = memo_bytes_result(key->row_context->ecxt_per_tuple_memory, isnull, data, len);
    } else {
        fresh->isnull = !expression_key_word(key, desc, t, &fresh->word);
    }
    return remember ? value_memo_add(key->memo, valnull, value, *fresh) : fresh;
}

const KeyKindOps expression_key_kind = {
    KeyKind::expression, "expression", recognise, expression_key_init, NULL, expression_key_word,
    expression_key_bytes, NULL, group_bound, false, NULL, describe,
};

} // namespace gpu_histogram
