/*
 * native_quals.cpp: recognizing and evaluating the scan's native WHERE
 * clauses (see native_quals.h).
 */
#include "native_quals.h"

#include "fixed_exprs.h"

extern "C" {
#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

bool is_integer_type(Oid t)
{
    return t == INT2OID || t == INT4OID || t == INT8OID;
}

bool is_float_type(Oid t)
{
    return t == FLOAT4OID || t == FLOAT8OID;
}

bool is_time_type(Oid t)
{
    return t == DATEOID || t == TIMESTAMPOID || t == TIMESTAMPTZOID;
}

/* The families whose comparisons the scan answers natively, looked up once per build. */
struct Families {
    Oid float_ops;
    Oid datetime_ops;
};

Oid btree_family(const char *name)
{
    return get_opfamily_oid(BTREE_AM_OID, list_make2(makeString(pstrdup("pg_catalog")), makeString(pstrdup(name))),
                            true);
}

/* A value of the qual's type as the comparison needs it. */
void set_value(NativeQual *q, Datum d, bool isnull)
{
    q->never = isnull;
    q->int_value = 0;
    q->float_value = 0;
    if (isnull)
        return;
    switch (q->value_type) {
    case INT2OID: q->int_value = DatumGetInt16(d); break;
    case INT4OID: q->int_value = DatumGetInt32(d); break;
    case INT8OID: q->int_value = DatumGetInt64(d); break;
    case FLOAT4OID: q->float_value = DatumGetFloat4(d); break;
    case FLOAT8OID: q->float_value = DatumGetFloat8(d); break;
    case DATEOID: q->int_value = DatumGetDateADT(d); break;
    case TIMESTAMPOID: q->int_value = DatumGetTimestamp(d); break;
    case TIMESTAMPTZOID: q->int_value = DatumGetTimestampTz(d); break;
    }
}

/*
 * The btree strategy of opno in family, or of its negator's equality as ne.
 * Only PostgreSQL's own operators: any role may create an operator whose
 * NEGATOR names the built-in `=`, and its function need not be `<>`.
 */
bool comparison_of(Oid opno, Oid family, Comparison *out)
{
    if (opno >= FirstGenbkiObjectId)
        return false;
    switch (get_op_opfamily_strategy(opno, family)) {
    case BTLessStrategyNumber: *out = Comparison::lt; return true;
    case BTLessEqualStrategyNumber: *out = Comparison::le; return true;
    case BTEqualStrategyNumber: *out = Comparison::eq; return true;
    case BTGreaterEqualStrategyNumber: *out = Comparison::ge; return true;
    case BTGreaterStrategyNumber: *out = Comparison::gt; return true;
    }
    Oid negator = get_negator(opno);
    if (OidIsValid(negator) && get_op_opfamily_strategy(negator, family) == BTEqualStrategyNumber) {
        *out = Comparison::ne;
        return true;
    }
    return false;
}

/* const op column is column op' const. */
Comparison commuted(Comparison c)
{
    switch (c) {
    case Comparison::lt: return Comparison::gt;
    case Comparison::le: return Comparison::ge;
    case Comparison::ge: return Comparison::le;
    case Comparison::gt: return Comparison::lt;
    default: return c;
    }
}

bool native_qual(Node *clause, TupleDesc desc, const Families &families, PlanState *parent, NativeQual *out)
{
    if (!IsA(clause, OpExpr))
        return false;
    OpExpr *op = reinterpret_cast<OpExpr *>(clause);
    if (list_length(op->args) != 2)
        return false;
    Node *left = static_cast<Node *>(linitial(op->args));
    Node *right = static_cast<Node *>(lsecond(op->args));
    bool var_on_left = IsA(left, Var) && !IsA(right, Var) && fixed_for_scan(right);
    if (!var_on_left && !(IsA(right, Var) && !IsA(left, Var) && fixed_for_scan(left)))
        return false;
    Var *var = reinterpret_cast<Var *>(var_on_left ? left : right);
    Node *value = var_on_left ? right : left;
    Oid value_type = exprType(value);
    if (var->varattno <= 0 || var->varattno > desc->natts || var->varlevelsup != 0)
        return false;

    bool ints = is_integer_type(var->vartype) && is_integer_type(value_type);
    bool floats = is_float_type(var->vartype) && is_float_type(value_type);
    /* same type only: date against timestamp, or timestamp against timestamptz, converts (and the latter by TimeZone) */
    bool times = is_time_type(var->vartype) && value_type == var->vartype;
    Comparison cmp;
    if (!(ints && comparison_of(op->opno, INTEGER_BTREE_FAM_OID, &cmp)) &&
        !(floats && OidIsValid(families.float_ops) && comparison_of(op->opno, families.float_ops, &cmp)) &&
        !(times && OidIsValid(families.datetime_ops) && comparison_of(op->opno, families.datetime_ops, &cmp)))
        return false;
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->cmp = var_on_left ? cmp : commuted(cmp);
    out->is_float = floats;
    out->value_type = value_type;
    out->value = NULL;
    if (IsA(value, Const)) {
        const Const *c = reinterpret_cast<const Const *>(value);
        set_value(out, c->constvalue, c->constisnull);
    } else {
        out->value = ExecInitExpr(reinterpret_cast<Expr *>(value), parent);
    }
    return true;
}

/* The column's value in t, false if it is NULL. */
template <typename T> bool stored(const NativeQual &q, TupleDesc desc, const HeapTupleData *t, T *value)
{
    const HeapColumn &col = q.column;
    Datum d;
    const char *p = heap_column_data(col, t->t_data);
    if (p != NULL) {
        switch (col.type) {
        case INT2OID: { int16 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case INT4OID: { int32 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case INT8OID:
        case TIMESTAMPOID:
        case TIMESTAMPTZOID: { int64 v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        case DATEOID: { int32 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case FLOAT4OID: { float v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        default: { double v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        }
    }
    bool isnull;
    d = heap_getattr(const_cast<HeapTupleData *>(t), col.attno, desc, &isnull);
    if (isnull)
        return false;
    switch (col.type) {
    case INT2OID: *value = DatumGetInt16(d); break;
    case INT4OID: *value = DatumGetInt32(d); break;
    case INT8OID: *value = static_cast<T>(DatumGetInt64(d)); break;
    case DATEOID: *value = DatumGetDateADT(d); break;
    case TIMESTAMPOID: *value = static_cast<T>(DatumGetTimestamp(d)); break;
    case TIMESTAMPTZOID: *value = static_cast<T>(DatumGetTimestampTz(d)); break;
    case FLOAT4OID: *value = static_cast<T>(DatumGetFloat4(d)); break;
    default: *value = static_cast<T>(DatumGetFloat8(d)); break;
    }
    return true;
}

bool passes(const NativeQual &q, TupleDesc desc, const HeapTupleData *t)
{
    if (q.never)
        return false;
    if (q.is_float) {
        /* float4 widens to float8 exactly, so float4 and cross-type operators agree */
        double v;
        if (!stored(q, desc, t, &v))
            return false;
        double c = q.float_value;
        switch (q.cmp) {
        case Comparison::lt: return float8_lt(v, c);
        case Comparison::le: return float8_le(v, c);
        case Comparison::eq: return float8_eq(v, c);
        case Comparison::ge: return float8_ge(v, c);
        case Comparison::gt: return float8_gt(v, c);
        case Comparison::ne: return float8_ne(v, c);
        }
        return false;
    }
    int64 v;
    if (!stored(q, desc, t, &v))
        return false;
    int64 c = q.int_value;
    switch (q.cmp) {
    case Comparison::lt: return v < c;
    case Comparison::le: return v <= c;
    case Comparison::eq: return v == c;
    case Comparison::ge: return v >= c;
    case Comparison::gt: return v > c;
    case Comparison::ne: return v != c;
    }
    return false;
}

} // namespace

bool native_quals_build(List *quals, TupleDesc desc, PlanState *parent, NativeQuals *out)
{
    if (quals == NIL)
        return false;
    Families families{btree_family("float_ops"), btree_family("datetime_ops")};
    NativeQual *natives = static_cast<NativeQual *>(palloc0(sizeof(NativeQual) * list_length(quals)));
    int n = 0;
    ListCell *lc;
    foreach (lc, quals) {
        if (!native_qual(static_cast<Node *>(lfirst(lc)), desc, families, parent, &natives[n++])) {
            pfree(natives);
            return false;
        }
    }
    out->count = n;
    out->quals = natives;
    out->prepared = false;
    return true;
}

void native_quals_prepare(NativeQuals *q, ExprContext *econtext)
{
    for (int k = 0; k < q->count; k++) {
        NativeQual *qual = &q->quals[k];
        if (qual->value == NULL)
            continue;
        bool isnull;
        Datum d = ExecEvalExprSwitchContext(qual->value, econtext, &isnull);
        set_value(qual, d, isnull);
    }
    ResetExprContext(econtext);
    q->prepared = true;
}

void native_quals_unprepare(NativeQuals *q)
{
    q->prepared = false;
}

int native_quals_filter(const NativeQuals &q, TupleDesc desc, HeapTupleData *tuples, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        bool pass = true;
        for (int k = 0; k < q.count && pass; k++)
            pass = passes(q.quals[k], desc, &tuples[i]);
        if (pass)
            tuples[kept++] = tuples[i];
    }
    return kept;
}

} // namespace gpu_histogram
