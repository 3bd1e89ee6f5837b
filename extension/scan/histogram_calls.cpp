/*
 * histogram_calls.cpp: the aggregates GpuHistogramScan computes, taken
 * apart (scan_node.h), and each histogram's spec from its arguments.
 *
 * The planner and the executor take an Aggref apart the same way, and the
 * row strategies (ungrouped, grouped, grouped pages) build a histogram's
 * spec the same way, so both live here, below all of them.  The spec
 * follows the aggregate's own transition functions exactly: the float8
 * form checks its first row as aggregate.cpp does, the time form as
 * time_aggregate.cpp does, the thresholds form as threshold_aggregate.cpp
 * does; the errors are raised by the same functions (errors.h).
 */
#include "scan_node.h"

#include "heap/heap_columns.h"
#include "quals/fixed_exprs.h"
#include "../errors.h"
#include "../histogram_state.h"

extern "C" {
#include "access/transam.h"
#include "catalog/dependency.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

/* The cast functions through which int2, int4, int8, float4 and numeric reach float8. */
Oid column_type_under_cast(Oid funcid)
{
    switch (funcid) {
    case F_FLOAT8_INT2: return INT2OID;
    case F_FLOAT8_INT4: return INT4OID;
    case F_FLOAT8_INT8: return INT8OID;
    case F_FLOAT8_FLOAT4: return FLOAT4OID;
    case F_FLOAT8_NUMERIC: return NUMERICOID;
    }
    return InvalidOid;
}

/*
 * A numeric column whose every value numeric_float8 converts without an
 * error: its typmod keeps each value below 10^308 and any nonzero one at
 * least 10^-323, inside float8's range (its subnormals included), so the
 * scan reading the column can never raise where the ordinary plan's cast
 * would.  An unconstrained numeric may hold 1e400, whose cast raises at
 * its row: such a column stays with the ordinary plan.
 */
/* A numeric typmod's precision and scale; false for an unconstrained numeric. */
bool numeric_typmod(int32 typmod, int *precision, int *scale)
{
    if (typmod < static_cast<int32>(VARHDRSZ))
        return false;
    const int32 tm = typmod - static_cast<int32>(VARHDRSZ);
    *precision = (tm >> 16) & 0xffff;
    *scale = ((tm & 0x7ff) ^ 1024) - 1024; /* 11 bits, signed: PostgreSQL 15 allows negative scales */
    return true;
}

bool numeric_always_converts(int32 typmod)
{
    int precision, scale;
    return numeric_typmod(typmod, &precision, &scale) && precision - scale <= 308 && scale <= 323;
}

/* Whether the column's values are of this type: its own, or a domain's over it (an enum's OID is not an int4). */
bool stored_as(const Var *var, Oid type)
{
    return heap_stored_type(var->vartype) == type && !type_is_enum(getBaseType(var->vartype));
}

/* The column's typmod: its own, or its domain's (a column of a domain type has none of its own). */
int32 column_typmod(const Var *var)
{
    int32 typmod = var->vartypmod;
    if (typmod < 0 && var->vartype >= FirstGenbkiObjectId)
        (void) getBaseTypeAndTypmod(var->vartype, &typmod);
    return typmod;
}

/* A bare column of table relid of exactly this type, or of a domain over it: the column, else NULL. */
const Var *plain_column(const Expr *value, Index relid, Oid type, AttrNumber *attno)
{
    const Node *n = heap_domain_column(reinterpret_cast<const Node *>(value));
    if (!IsA(n, Var))
        return NULL;
    const Var *var = reinterpret_cast<const Var *>(n);
    if (var->varno != static_cast<int>(relid) || var->varlevelsup != 0 || var->varattno <= 0 ||
        !stored_as(var, type))
        return NULL;
    *attno = var->varattno;
    return var;
}

/* The form of gpu_histogram with these argument types, if it is one. */
bool form_of_signature(const Oid *types, int nargs, HistogramForm *form)
{
    if (nargs == 2 && types[0] == FLOAT8OID && types[1] == FLOAT8ARRAYOID) {
        *form = HistogramForm::thresholds;
        return true;
    }
    if (nargs != 4 || types[1] != types[0] || types[2] != types[0] || types[3] != INT4OID)
        return false;
    switch (types[0]) {
    case FLOAT8OID: *form = HistogramForm::interval; return true;
    case TIMESTAMPTZOID:
    case TIMESTAMPOID: *form = HistogramForm::time; return true;
    case DATEOID: *form = HistogramForm::date; return true;
    }
    return false;
}

Expr *argument(const Aggref *aggref, int n)
{
    return static_cast<TargetEntry *>(list_nth(aggref->args, n))->expr;
}

bool fixed(const Expr *e)
{
    return fixed_for_scan(reinterpret_cast<Node *>(const_cast<Expr *>(e)));
}

int32 thresholds_count(ArrayType *a)
{
    return ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
}

/* time_aggregate.cpp's check: infinite bounds raise numeric width_bucket's error. */
bool time_bound_infinite(const HistogramCall &call, const HistogramArgs &args)
{
    return time_bounds_infinite(args.time_lo, args.time_hi, call.form == HistogramForm::date);
}

} // namespace

bool float8_column(const Expr *value, Index relid, AttrNumber *attno, Oid *coltype)
{
    Oid type = FLOAT8OID;
    if (IsA(value, FuncExpr)) {
        const FuncExpr *cast = reinterpret_cast<const FuncExpr *>(value);
        type = column_type_under_cast(cast->funcid);
        if (!OidIsValid(type) || list_length(cast->args) != 1)
            return false;
        value = static_cast<const Expr *>(linitial(cast->args));
    }
    const Var *var = plain_column(value, relid, type, attno);
    if (var == NULL || (type == NUMERICOID && !numeric_always_converts(column_typmod(var))))
        return false;
    *coltype = type;
    return true;
}

bool histogram_form_of(Oid aggfnoid, HistogramForm *form)
{
    char *name = get_func_name(aggfnoid);
    if (name == NULL || strcmp(name, "gpu_histogram") != 0)
        return false;
    Oid *types;
    int nargs;
    get_func_signature(aggfnoid, &types, &nargs);
    if (!form_of_signature(types, nargs, form))
        return false;
    Oid ext = get_extension_oid("gpu_histogram", true);
    return OidIsValid(ext) && getExtensionOfObject(ProcedureRelationId, aggfnoid) == ext;
}

bool histogram_call_parse(const Aggref *aggref, Index relid, HistogramCall *out)
{
    if (aggref->aggdistinct != NIL || aggref->aggorder != NIL || aggref->aggfilter != NULL ||
        aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0 || aggref->aggstar || aggref->aggvariadic)
        return false;
    *out = HistogramCall{};
    if (!histogram_form_of(aggref->aggfnoid, &out->form))
        return false;
    const Expr *value = argument(aggref, 0);
    if (out->form == HistogramForm::thresholds) {
        out->thresholds = argument(aggref, 1);
        return float8_column(value, relid, &out->attno, &out->coltype) && fixed(out->thresholds);
    }
    if (out->form == HistogramForm::interval) {
        if (!float8_column(value, relid, &out->attno, &out->coltype))
            return false;
    } else {
        /* the time form's value has the bounds' type: a column of another type is under a cast, and stays out */
        out->coltype = exprType(reinterpret_cast<const Node *>(argument(aggref, 1)));
        if (!plain_column(value, relid, out->coltype, &out->attno))
            return false;
    }
    out->lo = argument(aggref, 1);
    out->hi = argument(aggref, 2);
    out->nbins = argument(aggref, 3);
    return fixed(out->lo) && fixed(out->hi) && fixed(out->nbins);
}

namespace {
bool value_aggregate(Oid aggfnoid, AggKind *kind, Oid *type);
}

bool beside_call_parse(const Aggref *aggref, Index relid, ScanAggregate *out)
{
    if (aggref->aggdistinct != NIL || aggref->aggorder != NIL || aggref->aggfilter != NULL ||
        aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0 || aggref->aggvariadic)
        return false;
    if (aggref->aggfnoid == F_COUNT_ && aggref->aggstar) {
        out->kind = AggKind::count_star;
        return true;
    }
    AggKind kind = AggKind::count_column;
    Oid type = InvalidOid;
    if ((aggref->aggfnoid != F_COUNT_ANY && !value_aggregate(aggref->aggfnoid, &kind, &type)) ||
        list_length(aggref->args) != 1 || aggref->aggstar)
        return false;
    const Node *arg = heap_domain_column(reinterpret_cast<Node *>(static_cast<TargetEntry *>(linitial(aggref->args))->expr));
    /* count(1), as hand-written SQL counts rows: a constant that is not NULL counts every row */
    if (kind == AggKind::count_column && IsA(arg, Const) && !reinterpret_cast<const Const *>(arg)->constisnull) {
        out->kind = AggKind::count_star;
        return true;
    }
    if (!IsA(arg, Var))
        return false;
    const Var *var = reinterpret_cast<const Var *>(arg);
    if (var->varno != static_cast<int>(relid) || var->varlevelsup != 0 || var->varattno <= 0)
        return false;
    out->kind = kind;
    if (kind == AggKind::count_column) {
        out->count_attno = var->varattno;
        return true;
    }
    /* a domain over the aggregate's type, which the parser relabeled: sum(float8) of its values */
    if (!stored_as(var, type))
        return false;
    int precision = 0, scale = 0;
    /*
     * numeric: a typmod whose values are whole numbers of 10^-s below 10^18
     * of them, which an int64 holds and 128 bits sum; any other numeric
     * keeps the ordinary plan
     */
    if (type == NUMERICOID && (!numeric_typmod(column_typmod(var), &precision, &scale) || precision > 18 || scale < 0))
        return false;
    out->attno = var->varattno;
    out->coltype = type;
    out->scale = scale;
    return true;
}

namespace {

/* sum, avg, min or max by the aggregate's OID (fmgroids.h), with the column type it takes. */
bool value_aggregate(Oid aggfnoid, AggKind *kind, Oid *type)
{
    switch (aggfnoid) {
    case F_SUM_INT2: *kind = AggKind::sum; *type = INT2OID; return true;
    case F_SUM_INT4: *kind = AggKind::sum; *type = INT4OID; return true;
    case F_SUM_INT8: *kind = AggKind::sum; *type = INT8OID; return true;
    case F_SUM_FLOAT4: *kind = AggKind::sum; *type = FLOAT4OID; return true;
    case F_SUM_FLOAT8: *kind = AggKind::sum; *type = FLOAT8OID; return true;
    case F_AVG_INT2: *kind = AggKind::avg; *type = INT2OID; return true;
    case F_AVG_INT4: *kind = AggKind::avg; *type = INT4OID; return true;
    case F_AVG_INT8: *kind = AggKind::avg; *type = INT8OID; return true;
    case F_AVG_FLOAT4: *kind = AggKind::avg; *type = FLOAT4OID; return true;
    case F_AVG_FLOAT8: *kind = AggKind::avg; *type = FLOAT8OID; return true;
    case F_MIN_INT2: *kind = AggKind::min; *type = INT2OID; return true;
    case F_MIN_INT4: *kind = AggKind::min; *type = INT4OID; return true;
    case F_MIN_INT8: *kind = AggKind::min; *type = INT8OID; return true;
    case F_MIN_FLOAT4: *kind = AggKind::min; *type = FLOAT4OID; return true;
    case F_MIN_FLOAT8: *kind = AggKind::min; *type = FLOAT8OID; return true;
    case F_MIN_DATE: *kind = AggKind::min; *type = DATEOID; return true;
    case F_MIN_TIMESTAMP: *kind = AggKind::min; *type = TIMESTAMPOID; return true;
    case F_MIN_TIMESTAMPTZ: *kind = AggKind::min; *type = TIMESTAMPTZOID; return true;
    case F_MAX_INT2: *kind = AggKind::max; *type = INT2OID; return true;
    case F_MAX_INT4: *kind = AggKind::max; *type = INT4OID; return true;
    case F_MAX_INT8: *kind = AggKind::max; *type = INT8OID; return true;
    case F_MAX_FLOAT4: *kind = AggKind::max; *type = FLOAT4OID; return true;
    case F_MAX_FLOAT8: *kind = AggKind::max; *type = FLOAT8OID; return true;
    case F_MAX_DATE: *kind = AggKind::max; *type = DATEOID; return true;
    case F_MAX_TIMESTAMP: *kind = AggKind::max; *type = TIMESTAMPOID; return true;
    case F_MAX_TIMESTAMPTZ: *kind = AggKind::max; *type = TIMESTAMPTZOID; return true;
    case F_SUM_NUMERIC: *kind = AggKind::sum; *type = NUMERICOID; return true;
    case F_AVG_NUMERIC: *kind = AggKind::avg; *type = NUMERICOID; return true;
    case F_MIN_NUMERIC: *kind = AggKind::min; *type = NUMERICOID; return true;
    case F_MAX_NUMERIC: *kind = AggKind::max; *type = NUMERICOID; return true;
    }
    return false;
}

} // namespace

char *aggregate_refusal(const Aggref *aggref, Index relid)
{
    const char *name = get_func_name(aggref->aggfnoid);
    if (aggref->aggdistinct != NIL)
        return psprintf("%s(DISTINCT ...), which the scan does not compute", name);
    if (aggref->aggorder != NIL)
        return psprintf("an ORDER BY inside %s()", name);
    if (aggref->aggfilter != NULL)
        return psprintf("a FILTER clause on %s()", name);
    /* a numeric column the scan does not read: its value under numeric_float8, or itself */
    ListCell *lc;
    foreach (lc, aggref->args) {
        const Expr *e = static_cast<TargetEntry *>(lfirst(lc))->expr;
        if (IsA(e, FuncExpr) && reinterpret_cast<const FuncExpr *>(e)->funcid == F_FLOAT8_NUMERIC &&
            list_length(reinterpret_cast<const FuncExpr *>(e)->args) == 1)
            e = static_cast<const Expr *>(linitial(reinterpret_cast<const FuncExpr *>(e)->args));
        if (!IsA(e, Var) || reinterpret_cast<const Var *>(e)->vartype != NUMERICOID ||
            reinterpret_cast<const Var *>(e)->varno != static_cast<int>(relid))
            continue;
        const int32 typmod = reinterpret_cast<const Var *>(e)->vartypmod;
        int precision, scale;
        HistogramForm form;
        const bool histogram = histogram_form_of(aggref->aggfnoid, &form);
        if (histogram ? numeric_always_converts(typmod)
                      : numeric_typmod(typmod, &precision, &scale) && precision <= 18 && scale >= 0)
            continue;
        if (histogram)
            return psprintf("%s() of a numeric column of %s, which may hold values past float8's range (the scan reads "
                            "numeric(p, s) with p - s at most 308)",
                            name, typmod < 0 ? "no precision" : "a greater one");
        return psprintf("%s() of a numeric column of %s (the scan computes it for numeric(p, s) with p at most 18 and "
                        "s at least 0)", name, typmod < 0 ? "no precision" : "another precision or scale");
    }
    return psprintf("an argument of %s() is not a column of the table (or a value fixed for the scan)", name);
}

bool beside_aggregate(Oid aggfnoid)
{
    AggKind kind;
    Oid type;
    return aggfnoid == F_COUNT_ || aggfnoid == F_COUNT_ANY || value_aggregate(aggfnoid, &kind, &type);
}

bool histogram_args_spec(const HistogramCall &call, const HistogramArgs &args, gh::HistogramSpec *out)
{
    switch (call.form) {
    case HistogramForm::interval: {
        gh::BucketSpec spec{args.lo, args.hi, args.nbins, kServerRule};
        *out = gh::float_histogram(spec);
        return gh::validate_spec(spec) == gh::SpecError::none;
    }
    case HistogramForm::time:
    case HistogramForm::date: {
        gh::Int64Spec spec{args.time_lo, args.time_hi, args.nbins, kServerNumericRule};
        *out = gh::int64_histogram(spec);
        return gh::validate_int64_spec(spec, time_bound_infinite(call, args)) == gh::SpecError::none;
    }
    case HistogramForm::thresholds:
        /* an array checked_thresholds() would refuse: the first row raises its error instead */
        if (!thresholds_acceptable(args.thresholds))
            return false;
        *out = gh::threshold_histogram(reinterpret_cast<const double *>(ARR_DATA_PTR(args.thresholds)),
                                       thresholds_count(args.thresholds));
        return true;
    }
    return false;
}

gh::HistogramSpec histogram_first_spec(const HistogramCall &call, const HistogramArgs &args, double first_word)
{
    switch (call.form) {
    case HistogramForm::interval:
        return gh::float_histogram(checked_first_row_spec(first_word, args.lo, args.hi, args.nbins));
    case HistogramForm::time:
    case HistogramForm::date:
        return gh::int64_histogram(
            checked_int64_spec(args.time_lo, args.time_hi, args.nbins, time_bound_infinite(call, args)));
    case HistogramForm::thresholds: {
        int32 count = checked_thresholds(args.thresholds);
        return gh::threshold_histogram(reinterpret_cast<const double *>(ARR_DATA_PTR(args.thresholds)), count);
    }
    }
    elog(ERROR, "gpu_histogram scan: unexpected histogram form");
    return gh::HistogramSpec{};
}

HistogramArgs histogram_args_evaluate(HistogramForm form, ExprState *const *states, ExprContext *econtext,
                                      MemoryContext keep)
{
    HistogramArgs a{};
    if (form == HistogramForm::thresholds) {
        Datum t = ExecEvalExprSwitchContext(states[0], econtext, &a.skip);
        if (!a.skip) {
            /* a detoasted copy that lives as long as the states that point into it */
            MemoryContext old = MemoryContextSwitchTo(keep);
            a.thresholds = DatumGetArrayTypePCopy(t);
            MemoryContextSwitchTo(old);
        }
        return a;
    }
    bool lo_null, hi_null, nbins_null;
    Datum lo = ExecEvalExprSwitchContext(states[0], econtext, &lo_null);
    Datum hi = ExecEvalExprSwitchContext(states[1], econtext, &hi_null);
    Datum nbins = ExecEvalExprSwitchContext(states[2], econtext, &nbins_null);
    a.skip = lo_null || hi_null || nbins_null;
    if (a.skip)
        return a;
    a.nbins = DatumGetInt32(nbins);
    switch (form) {
    case HistogramForm::interval:
        a.lo = DatumGetFloat8(lo);
        a.hi = DatumGetFloat8(hi);
        break;
    case HistogramForm::time:
        a.time_lo = DatumGetTimestamp(lo);
        a.time_hi = DatumGetTimestamp(hi);
        break;
    case HistogramForm::date:
        a.time_lo = DatumGetDateADT(lo);
        a.time_hi = DatumGetDateADT(hi);
        break;
    case HistogramForm::thresholds: break;
    }
    return a;
}

} // namespace gpu_histogram
