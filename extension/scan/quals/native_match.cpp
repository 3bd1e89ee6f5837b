/*
 * native_match.cpp: which WHERE clauses are native (native_quals.h), and
 * what each compares: recognized by PostgreSQL's own operators and
 * functions, never by name, as NativeQuals whose values native_values.cpp
 * sets.
 */
#include "native_qual.h"

#include "fixed_exprs.h"

extern "C" {
#include "access/transam.h"
#include "access/nbtree.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
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

Oid btree_family(const char *name)
{
    return get_opfamily_oid(BTREE_AM_OID, list_make2(makeString(pstrdup("pg_catalog")), makeString(pstrdup(name))),
                            true);
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
 * A comparison's column: a bare Var of the table, or one under a cast
 * that maps each stored word to its own number, in order (an integer to
 * numeric, int2 and int4 to float8), *cast being that function's OID
 * (InvalidOid for none).  NULL for anything else.
 */
const Var *compared_column(Node *n, TupleDesc desc, Oid *cast)
{
    *cast = InvalidOid;
    Oid from = InvalidOid;
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        if (list_length(f->args) != 1)
            return NULL;
        switch (f->funcid) {
        case F_NUMERIC_INT2: from = INT2OID; break;
        case F_NUMERIC_INT4: from = INT4OID; break;
        case F_NUMERIC_INT8: from = INT8OID; break;
        case F_FLOAT8_INT2: from = INT2OID; break;
        case F_FLOAT8_INT4: from = INT4OID; break;
        default: return NULL;
        }
        *cast = f->funcid;
        n = static_cast<Node *>(linitial(f->args));
    }
    n = const_cast<Node *>(heap_domain_column(n));
    if (!IsA(n, Var))
        return NULL;
    const Var *var = reinterpret_cast<const Var *>(n);
    if (var->varattno <= 0 || var->varattno > desc->natts || var->varlevelsup != 0 ||
        (OidIsValid(from) && heap_stored_type(var->vartype) != from))
        return NULL;
    return var;
}

/* How a value of another type is compared with the column's words (native_qual.h's order and cast). */
struct Conversion {
    Oid order; /* InvalidOid: the value is of a type the column's words compare with directly */
    Oid cast;
};

/*
 * Whether column var (under cast, if valid) against a value of value_type
 * by opno is one the scan answers: the comparison, whether it compares as
 * float8, and how a value of another type is placed among the column's
 * words.
 */
bool comparison_for(const Var *var, Oid cast, Oid value_type, Oid opno, const NativeFamilies &families,
                    Comparison *cmp, bool *floats, Conversion *conv)
{
    *conv = Conversion{InvalidOid, cast};
    *floats = false;
    if (type_is_enum(var->vartype)) {
        /* enum_eq and enum_ne compare the labels' OIDs, which the column stores (heap_stored_type) */
        if (OidIsValid(cast) || value_type != var->vartype || opno >= FirstGenbkiObjectId)
            return false;
        switch (get_opcode(opno)) {
        case F_ENUM_EQ: *cmp = Comparison::eq; return true;
        case F_ENUM_NE: *cmp = Comparison::ne; return true;
        }
        return false;
    }
    const Oid coltype = heap_stored_type(var->vartype); /* a domain's base type */
    if (OidIsValid(cast)) {
        /* an integer column under a cast to numeric or float8, against a value of the cast's family */
        const bool to_numeric = cast == F_NUMERIC_INT2 || cast == F_NUMERIC_INT4 || cast == F_NUMERIC_INT8;
        const Oid family = to_numeric ? families.numeric_ops : families.float_ops;
        const Oid cast_type = to_numeric ? NUMERICOID : FLOAT8OID;
        if (!OidIsValid(family) || (to_numeric ? value_type != NUMERICOID : !is_float_type(value_type)) ||
            !comparison_of(opno, family, cmp))
            return false;
        conv->order = get_opfamily_proc(family, cast_type, value_type, BTORDER_PROC);
        return OidIsValid(conv->order);
    }
    bool ints = is_integer_type(coltype) && is_integer_type(value_type);
    *floats = is_float_type(coltype) && is_float_type(value_type);
    bool times = is_time_type(coltype) && value_type == coltype;
    if ((ints && comparison_of(opno, INTEGER_BTREE_FAM_OID, cmp)) ||
        (*floats && OidIsValid(families.float_ops) && comparison_of(opno, families.float_ops, cmp)) ||
        (times && OidIsValid(families.datetime_ops) && comparison_of(opno, families.datetime_ops, cmp)))
        return true;
    /* a time column against a value of another time type, placed by the cross-type comparison */
    if (!native_time_value_converts(coltype, value_type) || !OidIsValid(families.datetime_ops) ||
        !comparison_of(opno, families.datetime_ops, cmp))
        return false;
    conv->order = get_opfamily_proc(families.datetime_ops, coltype, value_type, BTORDER_PROC);
    return OidIsValid(conv->order);
}

/* The column, the comparison and, for a value of another type, how it converts. */
void take_column(NativeQual *out, const Var *var, TupleDesc desc, Comparison cmp, bool floats, const Conversion &conv,
                 Oid collation, Oid value_type, MemoryContext cxt)
{
    out->column = heap_column(desc, var->varattno, var->vartype);
    out->cmp = cmp;
    out->asked = cmp;
    out->is_float = floats;
    out->value_type = heap_stored_type(value_type); /* an enum's label: its OID, as the column stores it */
    out->order = NULL;
    out->cast = NULL;
    out->order_collation = collation;
    if (OidIsValid(conv.order)) {
        out->order = static_cast<FmgrInfo *>(MemoryContextAllocZero(cxt, sizeof(FmgrInfo)));
        fmgr_info_cxt(conv.order, out->order, cxt);
    }
    if (OidIsValid(conv.cast)) {
        out->cast = static_cast<FmgrInfo *>(MemoryContextAllocZero(cxt, sizeof(FmgrInfo)));
        fmgr_info_cxt(conv.cast, out->cast, cxt);
    }
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
        native_set_list(out, cxt, c->constvalue, c->constisnull);
    else
        native_set_value(out, cxt, c->constvalue, c->constisnull);
}

/*
 * A column compared as bytes: text or varchar, bare or relabeled to text as
 * `v = 'x'` compares a varchar, or a bare uuid; NULL for anything else.
 */
const Var *text_column(Node *n, TupleDesc desc)
{
    n = const_cast<Node *>(heap_domain_column(n)); /* a domain over text or uuid is its base type here */
    const bool relabeled = IsA(n, RelabelType);
    if (relabeled)
        n = reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(n)->arg);
    if (!IsA(n, Var))
        return NULL;
    const Var *var = reinterpret_cast<const Var *>(n);
    const Oid type = heap_stored_type(var->vartype);
    const bool text = type == TEXTOID || type == VARCHAROID;
    if (!(text || (type == UUIDOID && !relabeled)) || var->varattno <= 0 || var->varattno > desc->natts ||
        var->varlevelsup != 0)
        return NULL;
    return var;
}

/* The type a bytes column's values are compared as: text, or uuid. */
Oid bytes_value_type(const Var *var)
{
    return heap_stored_type(var->vartype) == UUIDOID ? UUIDOID : TEXTOID;
}

/*
 * PostgreSQL's own = or <> of the column's values as bytes: text's under
 * a deterministic collation, where texteq and textne compare lengths and
 * bytes (a nondeterministic one, or none, which texteq raises for, stays
 * the executor's); uuid's, where uuid_eq and uuid_ne compare its 16 bytes.
 */
bool text_comparison(const Var *var, Oid opno, Oid collid, Comparison *out)
{
    if (opno >= FirstGenbkiObjectId)
        return false;
    const RegProcedure fn = get_opcode(opno);
    if (bytes_value_type(var) == UUIDOID) {
        switch (fn) {
        case F_UUID_EQ: *out = Comparison::eq; return true;
        case F_UUID_NE: *out = Comparison::ne; return true;
        }
        return false;
    }
    if (!OidIsValid(collid) || !get_collation_isdeterministic(collid))
        return false;
    switch (fn) {
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
    out->value_type = bytes_value_type(var);
}

/* column op ANY (array) or column op ALL (array): IN and NOT IN lists. */
bool native_list(ScalarArrayOpExpr *sa, TupleDesc desc, const NativeFamilies &families, PlanState *parent,
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
        if (get_element_type(exprType(array)) != bytes_value_type(text) ||
            !text_comparison(text, sa->opno, sa->inputcollid, &cmp))
            return false;
        if (sa->useOr == (cmp == Comparison::eq)) {
            out->cmp = sa->useOr ? Comparison::any_eq : Comparison::all_ne;
            take_text_column(out, text, desc);
            take_value(out, array, parent, cxt);
            return true;
        }
        return false;
    }
    Oid cast;
    const Var *var = compared_column(left, desc, &cast);
    if (var == NULL)
        return false;
    const Oid element = get_element_type(exprType(array));
    Comparison cmp;
    bool floats;
    Conversion conv;
    if (!OidIsValid(element) || !comparison_for(var, cast, element, sa->opno, families, &cmp, &floats, &conv))
        return false;
    if (sa->useOr && cmp == Comparison::eq)
        cmp = Comparison::any_eq;
    else if (!sa->useOr && cmp == Comparison::ne)
        cmp = Comparison::all_ne;
    else
        return false;
    take_column(out, var, desc, cmp, floats, conv, sa->inputcollid, element, cxt);
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
    out->is_float = is_float_type(heap_stored_type(var->vartype));
    out->value_type = heap_stored_type(var->vartype);
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

} // namespace

NativeFamilies native_families(void)
{
    return NativeFamilies{btree_family("float_ops"), btree_family("datetime_ops"), btree_family("numeric_ops")};
}

namespace {

/*
 * A comparison of a column with a value fixed for the scan, op an OpExpr
 * (or a DistinctExpr, which has its = operator).
 */
bool native_comparison(OpExpr *op, TupleDesc desc, const NativeFamilies &families, PlanState *parent,
                       MemoryContext cxt, NativeQual *out);

/*
 * `column IS DISTINCT FROM value` (negated: IS NOT DISTINCT FROM), which
 * the parser makes of the type's = operator: the column's <>, or = when
 * negated, made null-safe (native_qual.h).
 */
bool native_distinct(OpExpr *op, bool negated, TupleDesc desc, const NativeFamilies &families, PlanState *parent,
                     MemoryContext cxt, NativeQual *out)
{
    if (!native_comparison(op, desc, families, parent, cxt, out) || out->asked != Comparison::eq)
        return false;
    out->null_safe = true;
    out->asked = negated ? Comparison::eq : Comparison::ne;
    /* a constant's value was set as =: set it again as asked */
    if (out->value == NULL) {
        const Const *c = reinterpret_cast<const Const *>(IsA(linitial(op->args), Const) ? linitial(op->args)
                                                                                       : lsecond(op->args));
        out->cmp = out->asked;
        native_set_value(out, cxt, c->constvalue, c->constisnull);
    } else {
        out->cmp = out->asked;
    }
    return true;
}

} // namespace

bool native_match(Node *clause, TupleDesc desc, const NativeFamilies &families, PlanState *parent, MemoryContext cxt,
                  NativeQual *out)
{
    if (IsA(clause, DistinctExpr))
        return native_distinct(reinterpret_cast<OpExpr *>(clause), false, desc, families, parent, cxt, out);
    if (IsA(clause, BoolExpr) && reinterpret_cast<BoolExpr *>(clause)->boolop == NOT_EXPR &&
        list_length(reinterpret_cast<BoolExpr *>(clause)->args) == 1 &&
        IsA(linitial(reinterpret_cast<BoolExpr *>(clause)->args), DistinctExpr))
        return native_distinct(static_cast<OpExpr *>(linitial(reinterpret_cast<BoolExpr *>(clause)->args)), true, desc,
                               families, parent, cxt, out);
    if (IsA(clause, Var) || IsA(clause, BoolExpr) || IsA(clause, BooleanTest))
        return native_bool(clause, desc, out);
    if (IsA(clause, NullTest))
        return native_null_test(reinterpret_cast<const NullTest *>(clause), desc, out);
    if (IsA(clause, ScalarArrayOpExpr))
        return native_list(reinterpret_cast<ScalarArrayOpExpr *>(clause), desc, families, parent, cxt, out);
    if (!IsA(clause, OpExpr))
        return false;
    return native_comparison(reinterpret_cast<OpExpr *>(clause), desc, families, parent, cxt, out);
}

namespace {

bool native_comparison(OpExpr *op, TupleDesc desc, const NativeFamilies &families, PlanState *parent,
                       MemoryContext cxt, NativeQual *out)
{
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
            !text_comparison(text, op->opno, op->inputcollid, &cmp))
            return false;
        out->cmp = cmp; /* = and <> commute */
        out->asked = cmp;
        take_text_column(out, text, desc);
        take_value(out, text_value, parent, cxt);
        return true;
    }
    Oid left_cast, right_cast;
    const Var *left_var = compared_column(left, desc, &left_cast);
    const Var *right_var = compared_column(right, desc, &right_cast);
    bool var_on_left = left_var != NULL && right_var == NULL && fixed_for_scan(right);
    if (!var_on_left && !(right_var != NULL && left_var == NULL && fixed_for_scan(left)))
        return false;
    const Var *var = var_on_left ? left_var : right_var;
    const Oid cast = var_on_left ? left_cast : right_cast;
    Node *value = var_on_left ? right : left;
    Comparison cmp;
    bool floats;
    Conversion conv;
    if (!comparison_for(var, cast, exprType(value), op->opno, families, &cmp, &floats, &conv))
        return false;
    take_column(out, var, desc, var_on_left ? cmp : commuted(cmp), floats, conv, op->inputcollid, exprType(value), cxt);
    take_value(out, value, parent, cxt);
    return true;
}

} // namespace

bool native_time_value_converts(Oid column, Oid value)
{
    return (column == TIMESTAMPTZOID && (value == DATEOID || value == TIMESTAMPOID)) ||
           (column == TIMESTAMPOID && value == DATEOID) || (column == DATEOID && value == TIMESTAMPOID);
}

} // namespace gpu_histogram
