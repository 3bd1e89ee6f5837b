/*
 * group_keys.cpp: which GROUP BY expressions the scan computes, and
 * computing them per row (see group_keys.h).
 */
#include "group_keys.h"
#include "../quals/fixed_exprs.h"
#include "../scan_node.h"

#include "../../errors.h"

extern "C" {
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
}

namespace {

bool table_var(const Expr *e, Index relid, const Var **out)
{
    if (e == NULL || !IsA(e, Var))
        return false;
    const Var *v = reinterpret_cast<const Var *>(e);
    if (v->varno != static_cast<int>(relid) || v->varlevelsup != 0 || v->varattno <= 0)
        return false;
    *out = v;
    return true;
}

bool plain_column_key(const Var *v, GroupKeyDef *out)
{
    switch (v->vartype) {
    case INT2OID:
    case INT4OID:
    case INT8OID:
    case BOOLOID:
    case DATEOID:
    case TIMESTAMPOID:
    case TIMESTAMPTZOID:
        break;
    case TEXTOID:
    case VARCHAROID:
        /* equality is byte equality only under a deterministic collation */
        if (!OidIsValid(v->varcollid) || !get_collation_isdeterministic(v->varcollid))
            return false;
        break;
    default:
        return false;
    }
    out->kind = KeyKind::column;
    out->attno = v->varattno;
    out->coltype = out->keytype = v->vartype;
    return true;
}

bool time_column(const Expr *e, Index relid, Oid type, GroupKeyDef *out)
{
    const Var *v;
    if (!table_var(e, relid, &v) || v->vartype != type)
        return false;
    out->attno = v->varattno;
    out->coltype = type;
    return true;
}

bool function_key(const FuncExpr *f, Index relid, GroupKeyDef *out)
{
    List *args = f->args;
    switch (f->funcid) {
    case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
    case F_DATE_TRUNC_TEXT_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ ? TIMESTAMPTZOID : TIMESTAMPOID;
        if (list_length(args) != 2 || !IsA(linitial(args), Const))
            return false;
        Const *unit = static_cast<Const *>(linitial(args));
        if (unit->constisnull || unit->consttype != TEXTOID ||
            !time_column(static_cast<Expr *>(lsecond(args)), relid, type, out))
            return false;
        out->unit = time_key_trunc_unit(TextDatumGetCString(unit->constvalue));
        if (out->unit < 0)
            return false;
        out->kind = KeyKind::time;
        out->time_kind = TimeKeyKind::trunc;
        out->unit_text = unit;
        out->keytype = type;
        return true;
    }
    case F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ:
    case F_DATE_BIN_INTERVAL_TIMESTAMP_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ ? TIMESTAMPTZOID : TIMESTAMPOID;
        if (list_length(args) != 3 || !time_column(static_cast<Expr *>(lsecond(args)), relid, type, out))
            return false;
        out->args[0] = static_cast<Expr *>(linitial(args));
        out->args[1] = static_cast<Expr *>(lthird(args));
        if (!fixed_for_scan(reinterpret_cast<Node *>(out->args[0])) ||
            !fixed_for_scan(reinterpret_cast<Node *>(out->args[1])))
            return false;
        out->kind = KeyKind::time;
        out->time_kind = TimeKeyKind::bin;
        out->keytype = type;
        return true;
    }
    case F_DATE_TIMESTAMPTZ:
    case F_DATE_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_TIMESTAMPTZ ? TIMESTAMPTZOID : TIMESTAMPOID;
        if (list_length(args) != 1 || !time_column(static_cast<Expr *>(linitial(args)), relid, type, out))
            return false;
        out->kind = KeyKind::time;
        out->time_kind = TimeKeyKind::to_date;
        out->keytype = DATEOID;
        return true;
    }
    case F_WIDTH_BUCKET_FLOAT8_FLOAT8_FLOAT8_INT4: {
        if (list_length(args) != 4 ||
            !float8_column(static_cast<Expr *>(linitial(args)), relid, &out->attno, &out->coltype))
            return false;
        for (int i = 0; i < 3; i++) {
            out->args[i] = static_cast<Expr *>(list_nth(args, i + 1));
            if (!fixed_for_scan(reinterpret_cast<Node *>(out->args[i])))
                return false;
        }
        out->kind = KeyKind::width_bucket;
        out->keytype = INT4OID;
        return true;
    }
    }
    /* not a built-in key: TimescaleDB's time_bucket, where it is installed */
    if (tsdb_bucket_parse(f, relid, &out->tsdb, &out->attno, &out->coltype)) {
        out->kind = KeyKind::time_bucket;
        out->keytype = out->coltype;
        return true;
    }
    return false;
}

/* Evaluates an argument fixed for the scan, copied into the key's memory. */
Datum evaluate_arg(ExprState *state, ExprContext *econtext, Oid type, bool *isnull)
{
    Datum d = ExecEvalExprSwitchContext(state, econtext, isnull);
    if (*isnull)
        return 0;
    int16 len;
    bool byval;
    get_typlenbyval(type, &len, &byval);
    return datumCopy(d, byval, len);
}

} // namespace

bool group_key_parse(Expr *expr, Index relid, GroupKeyDef *out)
{
    memset(out, 0, sizeof *out);
    const Var *v;
    if (table_var(expr, relid, &v))
        return plain_column_key(v, out);
    if (IsA(expr, RelabelType)) {
        /* text COLLATE "C", as the planner leaves it: the collation decides equality */
        const RelabelType *r = reinterpret_cast<const RelabelType *>(expr);
        if (!table_var(r->arg, relid, &v) || (v->vartype != TEXTOID && v->vartype != VARCHAROID) ||
            (r->resulttype != TEXTOID && r->resulttype != VARCHAROID))
            return false;
        Var with = *v;
        with.varcollid = r->resultcollid;
        if (!plain_column_key(&with, out))
            return false;
        out->keytype = r->resulttype;
        return true;
    }
    if (IsA(expr, FuncExpr))
        return function_key(reinterpret_cast<const FuncExpr *>(expr), relid, out);
    return false;
}

void group_key_init(GroupKey *key, const GroupKeyDef &def, TupleDesc desc, PlanState *parent)
{
    memset(key, 0, sizeof *key);
    key->def = def;
    key->column = heap_column(desc, def.attno, def.coltype);
    for (int i = 0; i < 3; i++)
        if (def.args[i] != NULL)
            key->arg_states[i] = ExecInitExpr(def.args[i], parent);
    if (def.kind == KeyKind::time_bucket) {
        for (int i = 0; i < def.tsdb.nargs; i++)
            if (def.tsdb.args[i] != NULL)
                key->arg_states[i] = ExecInitExpr(def.tsdb.args[i], parent);
        tsdb_bucket_init(&key->tsdb, def.tsdb, def.coltype);
    }
    if (def.kind == KeyKind::time)
        time_key_init(&key->time, def.time_kind, def.coltype == TIMESTAMPTZOID,
                      def.unit_text != NULL ? def.unit_text->constvalue : 0, def.unit);
}

void group_key_prepare(GroupKey *key, ExprContext *econtext)
{
    if (key->def.kind == KeyKind::time && key->def.time_kind == TimeKeyKind::bin) {
        bool stride_null, origin_null;
        Datum stride = evaluate_arg(key->arg_states[0], econtext, INTERVALOID, &stride_null);
        Datum origin = evaluate_arg(key->arg_states[1], econtext, key->def.coltype, &origin_null);
        time_key_set_bin(&key->time, stride_null || origin_null, stride, DatumGetInt64(origin));
    } else if (key->def.kind == KeyKind::time_bucket) {
        Datum values[5] = {};
        bool nulls[5] = {};
        for (int i = 0; i < key->def.tsdb.nargs; i++)
            if (key->arg_states[i] != NULL)
                values[i] = evaluate_arg(key->arg_states[i], econtext, exprType(reinterpret_cast<Node *>(key->def.tsdb.args[i])),
                                         &nulls[i]);
        tsdb_bucket_set_args(&key->tsdb, values, nulls);
    } else if (key->def.kind == KeyKind::width_bucket) {
        bool lo_null, hi_null, n_null;
        key->wb_lo = evaluate_arg(key->arg_states[0], econtext, FLOAT8OID, &lo_null);
        key->wb_hi = evaluate_arg(key->arg_states[1], econtext, FLOAT8OID, &hi_null);
        key->wb_n = evaluate_arg(key->arg_states[2], econtext, INT4OID, &n_null);
        key->wb_null = lo_null || hi_null || n_null;
        key->wb_checked = key->wb_fast = false;
    }
    ResetExprContext(econtext);
}

bool group_key_word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    switch (key->def.kind) {
    case KeyKind::column:
        return heap_column_word(key->column, desc, t, word);
    case KeyKind::time: {
        int64 ts;
        if (time_key_always_null(&key->time) || !heap_column_word(key->column, desc, t, &ts))
            return false;
        *word = time_key_value(&key->time, ts);
        return true;
    }
    case KeyKind::time_bucket: {
        int64 ts;
        return heap_column_word(key->column, desc, t, &ts) && tsdb_bucket_value(&key->tsdb, ts, word);
    }
    case KeyKind::width_bucket: {
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
        *word = DatumGetInt32(DirectFunctionCall4(width_bucket_float8, Float8GetDatum(y), key->wb_lo,
                                                  key->wb_hi, key->wb_n));
        if (!key->wb_checked) {
            key->wb_checked = true;
            key->wb_spec = gh::BucketSpec{DatumGetFloat8(key->wb_lo), DatumGetFloat8(key->wb_hi),
                                          DatumGetInt32(key->wb_n), kServerRule};
            key->wb_fast = gh::validate_spec(key->wb_spec) == gh::SpecError::none;
        }
        return true;
    }
    }
    return false;
}

bool group_key_bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    bool isnull;
    Datum d = heap_getattr(t, key->def.attno, desc, &isnull);
    if (isnull)
        return false;
    struct varlena *v = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(d)));
    *data = VARDATA_ANY(v);
    *len = VARSIZE_ANY_EXHDR(v);
    return true;
}

Datum group_key_datum(const GroupKey *key, int64 word)
{
    switch (key->def.keytype) {
    case BOOLOID: return BoolGetDatum(word != 0);
    case INT2OID: return Int16GetDatum(static_cast<int16>(word));
    case INT4OID:
    case DATEOID: return Int32GetDatum(static_cast<int32>(word));
    }
    return Int64GetDatum(word);
}

const char *group_key_describe(const GroupKey *key)
{
    switch (key->def.kind) {
    case KeyKind::column: return "column";
    case KeyKind::time: return time_key_describe(&key->time);
    case KeyKind::width_bucket: return "width_bucket";
    case KeyKind::time_bucket: return tsdb_bucket_describe(&key->tsdb);
    }
    return "";
}
