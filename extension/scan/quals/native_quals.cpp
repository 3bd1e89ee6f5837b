/*
 * native_quals.cpp: recognizing and evaluating the scan's native WHERE
 * clauses (see native_quals.h).
 */
#include "native_quals.h"

#include "fixed_exprs.h"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
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

/* A value of an integer or time type as the int64 the comparisons use. */
int64 int_of(Oid type, Datum d)
{
    switch (type) {
    case INT2OID: return DatumGetInt16(d);
    case INT4OID: return DatumGetInt32(d);
    case DATEOID: return DatumGetDateADT(d);
    default: return DatumGetInt64(d); /* int8, timestamp, timestamptz */
    }
}

/* A float4 or float8 value as float8: float4 widens exactly, so its operators and the cross-type ones agree. */
double float_of(Oid type, Datum d)
{
    return type == FLOAT4OID ? DatumGetFloat4(d) : DatumGetFloat8(d);
}

/* Orders text values by length, then bytes: equal exactly where texteq says so under a deterministic collation. */
int order_text(const void *a, const void *b)
{
    const NativeText *x = static_cast<const NativeText *>(a), *y = static_cast<const NativeText *>(b);
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->data, y->data, static_cast<size_t>(x->len));
}

/* A copy in cxt of a text datum's bytes, detoasted. */
NativeText text_copy(MemoryContext cxt, Datum d)
{
    text *t = DatumGetTextPP(d);
    NativeText out;
    out.len = static_cast<int32>(VARSIZE_ANY_EXHDR(t));
    char *data = static_cast<char *>(MemoryContextAlloc(cxt, Max(out.len, 1)));
    memcpy(data, VARDATA_ANY(t), static_cast<size_t>(out.len));
    out.data = data;
    if (reinterpret_cast<Pointer>(t) != DatumGetPointer(d))
        pfree(t);
    return out;
}

void free_lists(NativeQual *q)
{
    if (q->int_list != NULL)
        pfree(q->int_list);
    if (q->float_list != NULL)
        pfree(q->float_list);
    if (q->text_list != NULL) {
        for (int i = 0; i < q->nlist; i++)
            pfree(const_cast<char *>(q->text_list[i].data));
        pfree(q->text_list);
    }
    q->int_list = NULL;
    q->float_list = NULL;
    q->text_list = NULL;
    q->nlist = 0;
}

/* A value of the qual's type as the comparison needs it. */
void set_value(NativeQual *q, MemoryContext cxt, Datum d, bool isnull)
{
    q->never = isnull;
    q->int_value = 0;
    q->float_value = 0;
    if (q->is_text)
        free_lists(q);
    if (isnull)
        return;
    if (q->is_text) {
        /* = and <> hold their value as a list of one */
        q->text_list = static_cast<NativeText *>(MemoryContextAlloc(cxt, sizeof(NativeText)));
        q->text_list[0] = text_copy(cxt, d);
        q->nlist = 1;
    } else if (q->is_float)
        q->float_value = float_of(q->value_type, d);
    else
        q->int_value = int_of(q->value_type, d);
}

int order_int64(const void *a, const void *b)
{
    const int64 x = *static_cast<const int64 *>(a), y = *static_cast<const int64 *>(b);
    return x < y ? -1 : x > y ? 1 : 0;
}

/* float8's btree order: NaN equal to NaN and above everything, -0 equal to 0, as float8_eq and float8_lt say. */
int order_float8(const void *a, const void *b)
{
    return float8_cmp_internal(*static_cast<const double *>(a), *static_cast<const double *>(b));
}

/* Sorts n values of `size` bytes and drops repeats; returns how many are left. */
int sort_unique(void *values, int n, Size size, int (*order)(const void *, const void *))
{
    if (n == 0)
        return 0;
    qsort(values, static_cast<size_t>(n), size, order);
    char *v = static_cast<char *>(values);
    int kept = 1;
    for (int i = 1; i < n; i++)
        if (order(v + (kept - 1) * size, v + i * size) != 0)
            memmove(v + kept++ * size, v + i * size, size);
    return kept;
}

/*
 * A list qual's array (isnull: the array itself is NULL), with
 * ScalarArrayOpExpr's answers: no element (the operator runs zero times)
 * gives false for = ANY and true for <> ALL whatever the column holds; a
 * NULL element matches nothing, and where nothing matches the answer is
 * NULL, so = ANY of NULLs only and <> ALL with a NULL pass no row.
 */
void set_list(NativeQual *q, MemoryContext cxt, Datum d, bool isnull)
{
    free_lists(q);
    q->always = false;
    q->never = isnull;
    if (isnull)
        return;
    ArrayType *array = DatumGetArrayTypeP(d);
    int16 typlen;
    bool typbyval;
    char typalign;
    get_typlenbyvalalign(q->value_type, &typlen, &typbyval, &typalign);
    Datum *elems;
    bool *nulls;
    int n;
    deconstruct_array(array, q->value_type, typlen, typbyval, typalign, &elems, &nulls, &n);
    if (n == 0) {
        q->always = q->cmp == Comparison::all_ne;
        q->never = q->cmp == Comparison::any_eq;
        return;
    }
    bool has_null = false;
    int k = 0;
    if (q->is_text)
        q->text_list = static_cast<NativeText *>(MemoryContextAlloc(cxt, sizeof(NativeText) * n));
    else if (q->is_float)
        q->float_list = static_cast<double *>(MemoryContextAlloc(cxt, sizeof(double) * n));
    else
        q->int_list = static_cast<int64 *>(MemoryContextAlloc(cxt, sizeof(int64) * n));
    for (int i = 0; i < n; i++) {
        if (nulls[i])
            has_null = true;
        else if (q->is_text)
            q->text_list[k++] = text_copy(cxt, elems[i]);
        else if (q->is_float)
            q->float_list[k++] = float_of(q->value_type, elems[i]);
        else
            q->int_list[k++] = int_of(q->value_type, elems[i]);
    }
    if (q->is_text) {
        /* repeats stay (a search finds either), so that free_lists frees every copy */
        if (k > 0)
            qsort(q->text_list, static_cast<size_t>(k), sizeof(NativeText), order_text);
        q->nlist = k;
    } else {
        q->nlist = q->is_float ? sort_unique(q->float_list, k, sizeof(double), order_float8)
                               : sort_unique(q->int_list, k, sizeof(int64), order_int64);
    }
    q->never = (q->cmp == Comparison::any_eq && q->nlist == 0) || (q->cmp == Comparison::all_ne && has_null);
    pfree(elems);
    pfree(nulls);
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

/*
 * Whether column var against a value of value_type by opno is one the
 * scan answers: the comparison, and whether it compares as float8.
 */
bool comparison_for(const Var *var, Oid value_type, Oid opno, const Families &families, TupleDesc desc,
                    Comparison *cmp, bool *floats)
{
    if (var->varattno <= 0 || var->varattno > desc->natts || var->varlevelsup != 0)
        return false;
    bool ints = is_integer_type(var->vartype) && is_integer_type(value_type);
    *floats = is_float_type(var->vartype) && is_float_type(value_type);
    /* same type only: date against timestamp, or timestamp against timestamptz, converts (and the latter by TimeZone) */
    bool times = is_time_type(var->vartype) && value_type == var->vartype;
    return (ints && comparison_of(opno, INTEGER_BTREE_FAM_OID, cmp)) ||
           (*floats && OidIsValid(families.float_ops) && comparison_of(opno, families.float_ops, cmp)) ||
           (times && OidIsValid(families.datetime_ops) && comparison_of(opno, families.datetime_ops, cmp));
}

/* The qual's value: a constant now, else an expression prepare evaluates. */
void take_value(NativeQual *out, Node *value, PlanState *parent, MemoryContext cxt)
{
    out->value = NULL;
    if (!IsA(value, Const)) {
        out->value = ExecInitExpr(reinterpret_cast<Expr *>(value), parent);
        return;
    }
    const Const *c = reinterpret_cast<const Const *>(value);
    if (native_qual_is_list(*out))
        set_list(out, cxt, c->constvalue, c->constisnull);
    else
        set_value(out, cxt, c->constvalue, c->constisnull);
}

/* A text or varchar column, bare or relabeled to text as `v = 'x'` compares a varchar; NULL for anything else. */
const Var *text_column(Node *n, TupleDesc desc)
{
    if (IsA(n, RelabelType))
        n = reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(n)->arg);
    if (!IsA(n, Var))
        return NULL;
    const Var *var = reinterpret_cast<const Var *>(n);
    if ((var->vartype != TEXTOID && var->vartype != VARCHAROID) || var->varattno <= 0 || var->varattno > desc->natts ||
        var->varlevelsup != 0)
        return NULL;
    return var;
}

/*
 * PostgreSQL's own text = or <> under a deterministic collation, where
 * texteq and textne compare lengths and bytes; a nondeterministic one (or
 * none, which texteq raises for) stays the executor's.
 */
bool text_comparison(Oid opno, Oid collid, Comparison *out)
{
    if (opno >= FirstGenbkiObjectId || !OidIsValid(collid) || !get_collation_isdeterministic(collid))
        return false;
    switch (get_opcode(opno)) {
    case F_TEXTEQ: *out = Comparison::eq; return true;
    case F_TEXTNE: *out = Comparison::ne; return true;
    }
    return false;
}

void take_text_column(NativeQual *out, const Var *var, TupleDesc desc)
{
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->is_text = true;
    out->is_float = false;
    out->value_type = TEXTOID;
}

/* column op ANY (array) or column op ALL (array): IN and NOT IN lists. */
bool native_list(ScalarArrayOpExpr *sa, TupleDesc desc, const Families &families, PlanState *parent,
                 MemoryContext cxt, NativeQual *out)
{
    if (list_length(sa->args) != 2)
        return false;
    Node *left = static_cast<Node *>(linitial(sa->args));
    Node *array = static_cast<Node *>(lsecond(sa->args));
    if (!fixed_for_scan(array))
        return false;
    const Var *text = text_column(left, desc);
    if (text != NULL) {
        Comparison cmp;
        if (get_element_type(exprType(array)) != TEXTOID || !text_comparison(sa->opno, sa->inputcollid, &cmp))
            return false;
        if (sa->useOr == (cmp == Comparison::eq)) {
            out->cmp = sa->useOr ? Comparison::any_eq : Comparison::all_ne;
            take_text_column(out, text, desc);
            take_value(out, array, parent, cxt);
            return true;
        }
        return false;
    }
    if (!IsA(left, Var))
        return false;
    const Var *var = reinterpret_cast<const Var *>(left);
    const Oid element = get_element_type(exprType(array));
    Comparison cmp;
    bool floats;
    if (!OidIsValid(element) || !comparison_for(var, element, sa->opno, families, desc, &cmp, &floats))
        return false;
    if (sa->useOr && cmp == Comparison::eq)
        out->cmp = Comparison::any_eq;
    else if (!sa->useOr && cmp == Comparison::ne)
        out->cmp = Comparison::all_ne;
    else
        return false;
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->is_float = floats;
    out->value_type = element;
    take_value(out, array, parent, cxt);
    return true;
}

/* column IS [NOT] NULL, of a plain column of any type (not a row's fields). */
bool native_null_test(const NullTest *nt, TupleDesc desc, NativeQual *out)
{
    if (nt->argisrow || !IsA(nt->arg, Var))
        return false;
    const Var *var = reinterpret_cast<const Var *>(nt->arg);
    if (var->varattno <= 0 || var->varattno > desc->natts || var->varlevelsup != 0)
        return false;
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->cmp = nt->nulltesttype == IS_NULL ? Comparison::is_null : Comparison::is_not_null;
    out->is_float = is_float_type(var->vartype);
    out->value_type = var->vartype;
    out->value = NULL;
    return true;
}

/*
 * A bool column as a clause: `flag`, `NOT flag`, `flag IS TRUE`, `flag IS
 * FALSE`, each failing for NULL (`IS NOT TRUE` passes NULL, and stays the
 * executor's).  The planner has made `flag = true` into `flag` already.
 */
bool native_bool(Node *clause, TupleDesc desc, NativeQual *out)
{
    Node *arg = clause;
    bool want = true;
    if (IsA(clause, BoolExpr)) {
        const BoolExpr *b = reinterpret_cast<const BoolExpr *>(clause);
        if (b->boolop != NOT_EXPR || list_length(b->args) != 1)
            return false;
        arg = static_cast<Node *>(linitial(b->args));
        want = false;
    } else if (IsA(clause, BooleanTest)) {
        const BooleanTest *b = reinterpret_cast<const BooleanTest *>(clause);
        if (b->booltesttype != IS_TRUE && b->booltesttype != IS_FALSE)
            return false;
        arg = reinterpret_cast<Node *>(b->arg);
        want = b->booltesttype == IS_TRUE;
    }
    if (!IsA(arg, Var))
        return false;
    const Var *var = reinterpret_cast<const Var *>(arg);
    if (var->vartype != BOOLOID || var->varattno <= 0 || var->varattno > desc->natts || var->varlevelsup != 0)
        return false;
    out->column = heap_column(desc, var->varattno, BOOLOID);
    out->cmp = Comparison::eq;
    out->is_float = false;
    out->int_value = want ? 1 : 0;
    out->value_type = BOOLOID;
    out->value = NULL;
    return true;
}

bool native_qual(Node *clause, TupleDesc desc, const Families &families, PlanState *parent, MemoryContext cxt,
                 NativeQual *out)
{
    if (IsA(clause, Var) || IsA(clause, BoolExpr) || IsA(clause, BooleanTest))
        return native_bool(clause, desc, out);
    if (IsA(clause, NullTest))
        return native_null_test(reinterpret_cast<const NullTest *>(clause), desc, out);
    if (IsA(clause, ScalarArrayOpExpr))
        return native_list(reinterpret_cast<ScalarArrayOpExpr *>(clause), desc, families, parent, cxt, out);
    if (!IsA(clause, OpExpr))
        return false;
    OpExpr *op = reinterpret_cast<OpExpr *>(clause);
    if (list_length(op->args) != 2)
        return false;
    Node *left = static_cast<Node *>(linitial(op->args));
    Node *right = static_cast<Node *>(lsecond(op->args));
    const Var *text = text_column(left, desc);
    Node *text_value = right;
    if (text == NULL) {
        text = text_column(right, desc);
        text_value = left;
    }
    if (text != NULL) {
        Comparison cmp;
        if (text_column(text_value, desc) != NULL || !fixed_for_scan(text_value) ||
            !text_comparison(op->opno, op->inputcollid, &cmp))
            return false;
        out->cmp = cmp; /* = and <> commute */
        take_text_column(out, text, desc);
        take_value(out, text_value, parent, cxt);
        return true;
    }
    bool var_on_left = IsA(left, Var) && !IsA(right, Var) && fixed_for_scan(right);
    if (!var_on_left && !(IsA(right, Var) && !IsA(left, Var) && fixed_for_scan(left)))
        return false;
    Var *var = reinterpret_cast<Var *>(var_on_left ? left : right);
    Node *value = var_on_left ? right : left;
    Comparison cmp;
    bool floats;
    if (!comparison_for(var, exprType(value), op->opno, families, desc, &cmp, &floats))
        return false;
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->cmp = var_on_left ? cmp : commuted(cmp);
    out->is_float = floats;
    out->value_type = exprType(value);
    take_value(out, value, parent, cxt);
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
        case BOOLOID: *value = *p != 0 ? 1 : 0; return true;
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
    case BOOLOID: *value = DatumGetBool(d) ? 1 : 0; break;
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

/* Whether v is in the qual's sorted list. */
bool listed(const NativeQual &q, double v)
{
    return bsearch(&v, q.float_list, static_cast<size_t>(q.nlist), sizeof(double), order_float8) != NULL;
}

bool listed(const NativeQual &q, int64 v)
{
    return bsearch(&v, q.int_list, static_cast<size_t>(q.nlist), sizeof(int64), order_int64) != NULL;
}

/*
 * Whether the text column's value in t is listed (false for NULL, which
 * *null says).  A compressed or out-of-line value is detoasted only where
 * its length matches a listed one: the page is unlocked then.
 */
bool text_listed(const NativeQual &q, TupleDesc desc, const HeapTupleData *t, bool *null)
{
    Datum d = heap_getattr(const_cast<HeapTupleData *>(t), q.column.attno, desc, null);
    if (*null)
        return false;
    struct varlena *v = reinterpret_cast<struct varlena *>(DatumGetPointer(d));
    if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
        return native_text_listed(q, VARDATA_ANY(v), static_cast<int32>(VARSIZE_ANY_EXHDR(v)));
    const int32 len = static_cast<int32>(toast_raw_datum_size(d) - VARHDRSZ);
    bool any = false;
    for (int i = 0; i < q.nlist && !any; i++)
        any = q.text_list[i].len == len;
    if (!any)
        return false;
    text *full = reinterpret_cast<text *>(pg_detoast_datum_packed(v));
    const bool listed = native_text_listed(q, VARDATA_ANY(full), static_cast<int32>(VARSIZE_ANY_EXHDR(full)));
    if (full != reinterpret_cast<text *>(v))
        pfree(full);
    return listed;
}

bool passes(const NativeQual &q, TupleDesc desc, const HeapTupleData *t)
{
    if (q.always)
        return true;
    if (q.never)
        return false;
    /* a tuple stored before ADD COLUMN has the column's missing value, NULL or not: heap_attisnull knows */
    if (native_qual_is_null_test(q))
        return heap_attisnull(const_cast<HeapTupleData *>(t), q.column.attno, desc) == (q.cmp == Comparison::is_null);
    if (q.is_text) {
        bool null;
        const bool listed = text_listed(q, desc, t, &null);
        return !null && listed == (q.cmp == Comparison::eq || q.cmp == Comparison::any_eq);
    }
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
        case Comparison::any_eq: return listed(q, v);
        case Comparison::all_ne: return !listed(q, v);
        case Comparison::is_null:
        case Comparison::is_not_null: break; /* answered above */
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
    case Comparison::any_eq: return listed(q, v);
    case Comparison::all_ne: return !listed(q, v);
    case Comparison::is_null:
    case Comparison::is_not_null: break; /* answered above */
    }
    return false;
}


/*
 * Whether rows may be taken away from clause before it runs: it raises no
 * error that depends on a row and has no effect but its answer.  A
 * leakproof function may not raise for some arguments and not others, so
 * a clause whose functions over the row are all leakproof qualifies, as
 * it does for PostgreSQL when it moves such a clause ahead of a security
 * barrier; a volatile one never does.
 */
bool skips_rows_safely(Node *clause)
{
    return !contain_leaked_vars(clause) && !contain_volatile_functions(clause);
}

} // namespace

bool native_quals_build(List *quals, TupleDesc desc, PlanState *parent, NativeQuals *out, List **rest)
{
    *rest = quals;
    if (quals == NIL)
        return false;
    Families families{btree_family("float_ops"), btree_family("datetime_ops")};
    NativeQual *natives = static_cast<NativeQual *>(palloc0(sizeof(NativeQual) * list_length(quals)));
    int n = 0;
    bool hoist = true; /* no clause before that rows may not be taken from */
    List *left = NIL;
    ListCell *lc;
    foreach (lc, quals) {
        Node *clause = static_cast<Node *>(lfirst(lc));
        if (hoist && native_qual(clause, desc, families, parent, CurrentMemoryContext, &natives[n])) {
            n++;
            continue;
        }
        natives[n] = NativeQual{};
        left = lappend(left, clause);
        hoist = hoist && skips_rows_safely(clause);
    }
    if (n == 0) {
        pfree(natives);
        list_free(left);
        return false;
    }
    *rest = left;
    out->count = n;
    out->quals = natives;
    out->prepared = false;
    out->cxt = CurrentMemoryContext;
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
        if (native_qual_is_list(*qual))
            set_list(qual, q->cxt, d, isnull);
        else
            set_value(qual, q->cxt, d, isnull);
    }
    ResetExprContext(econtext);
    q->prepared = true;
}

void native_quals_unprepare(NativeQuals *q)
{
    q->prepared = false;
}

bool native_text_listed(const NativeQual &q, const char *data, int32 len)
{
    const NativeText key{len, data};
    return q.nlist > 0 && bsearch(&key, q.text_list, static_cast<size_t>(q.nlist), sizeof(NativeText), order_text) != NULL;
}

bool native_quals_detoast(const NativeQuals &q)
{
    for (int k = 0; k < q.count; k++)
        if (q.quals[k].is_text)
            return true;
    return false;
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
