/*
 * time_key.cpp: date_trunc(unit, ts), date_bin(stride, ts, origin) and
 * ts::date over a timestamp or timestamptz column as GROUP BY keys
 * (key_kind.h).  time_keys.h computes them row by row, exactly; on the GPU
 * each is a table of intervals of the stored time, every interval verified
 * by that same computation (key_tables.h).
 */
#include "column_span.h"
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"
#include "../quals/fixed_exprs.h"

extern "C" {
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

/*
 * Whether e is a column of type, or for a timestamp the local time of a
 * timestamptz column in a constant zone (ts AT TIME ZONE zone) or in the
 * session's (ts::timestamp).
 */
bool time_column(const Expr *e, Index relid, Oid type, GroupKeyDef *out)
{
    Const *zone;
    const Expr *inner;
    if (type == TIMESTAMPOID && key_local_time(e, &zone, &inner)) {
        if (out->zone_text != NULL || !time_column(inner, relid, TIMESTAMPTZOID, out))
            return false;
        out->zone_text = zone;
        out->local_time = true;
        return true;
    }
    const Var *v;
    if (!key_table_var(e, relid, &v) || v->vartype != type)
        return false;
    out->attno = v->varattno;
    out->coltype = type;
    return true;
}

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    if (!IsA(expr, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(expr);
    List *args = f->args;
    switch (f->funcid) {
    case F_DATE_TRUNC_TEXT_TIMESTAMPTZ_TEXT: {
        /* a constant zone: the same computation in that zone; a NULL one makes every key NULL (strict) */
        if (list_length(args) != 3 || !IsA(lthird(args), Const))
            return false;
        Const *zone = static_cast<Const *>(lthird(args));
        if (zone->constisnull || zone->consttype != TEXTOID)
            return false;
        out->zone_text = zone;
    }
        /* FALLTHROUGH */
    case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
    case F_DATE_TRUNC_TEXT_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP ? TIMESTAMPOID : TIMESTAMPTZOID;
        if (list_length(args) != (f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ_TEXT ? 3 : 2) ||
            !IsA(linitial(args), Const))
            return false;
        Const *unit = static_cast<Const *>(linitial(args));
        if (unit->constisnull || unit->consttype != TEXTOID ||
            !time_column(static_cast<Expr *>(lsecond(args)), relid, type, out))
            return false;
        out->unit = time_key_trunc_unit(TextDatumGetCString(unit->constvalue));
        if (out->unit < 0)
            return false;
        out->time_kind = TimeKeyKind::trunc;
        out->unit_text = unit;
        out->keytype = type;
        return true;
    }
    case F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ:
    case F_DATE_BIN_INTERVAL_TIMESTAMP_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ ? TIMESTAMPTZOID : TIMESTAMPOID;
        if (list_length(args) != 3 || !time_column(static_cast<Expr *>(lsecond(args)), relid, type, out) ||
            out->local_time)
            return false;
        out->args[0] = static_cast<Expr *>(linitial(args));
        out->args[1] = static_cast<Expr *>(lthird(args));
        if (!fixed_for_scan(reinterpret_cast<Node *>(out->args[0])) ||
            !fixed_for_scan(reinterpret_cast<Node *>(out->args[1])))
            return false;
        out->time_kind = TimeKeyKind::bin;
        out->keytype = type;
        return true;
    }
    case F_DATE_TIMESTAMPTZ:
    case F_DATE_TIMESTAMP: {
        Oid type = f->funcid == F_DATE_TIMESTAMPTZ ? TIMESTAMPTZOID : TIMESTAMPOID;
        if (list_length(args) != 1 || !time_column(static_cast<Expr *>(linitial(args)), relid, type, out))
            return false;
        out->time_kind = TimeKeyKind::to_date;
        out->keytype = DATEOID;
        return true;
    }
    }
    return false;
}

void init(GroupKey *key, TupleDesc, PlanState *parent)
{
    const GroupKeyDef &def = key->def;
    for (int i = 0; i < 2; i++)
        if (def.args[i] != NULL)
            key->arg_states[i] = ExecInitExpr(def.args[i], parent);
    time_key_init(&key->time, def.time_kind, def.coltype == TIMESTAMPTZOID,
                  def.unit_text != NULL ? def.unit_text->constvalue : 0, def.unit,
                  def.zone_text != NULL ? def.zone_text->constvalue : 0);
    if (def.local_time)
        time_key_set_local(&key->time);
}

void prepare(GroupKey *key, ExprContext *econtext)
{
    if (key->def.time_kind != TimeKeyKind::bin)
        return;
    bool stride_null, origin_null;
    Datum stride = key_arg_value(key->arg_states[0], econtext, INTERVALOID, &stride_null);
    Datum origin = key_arg_value(key->arg_states[1], econtext, key->def.coltype, &origin_null);
    time_key_set_bin(&key->time, stride_null || origin_null, stride, DatumGetInt64(origin));
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    int64 ts;
    if (time_key_always_null(&key->time) || !heap_column_word(key->column, desc, t, &ts))
        return false;
    *word = time_key_value(&key->time, ts);
    return true;
}

/* The key of one stored time and the interval around it with that key, as time_keys.cpp verified it. */
bool verified_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    TimeKey *tk = &key->time;
    tk->hit_lo = 1;
    tk->hit_hi = 0;
    *result = time_key_compute(tk, ts);
    *from = tk->hit_lo;
    *to = tk->hit_hi;
    return *from <= ts && ts < *to;
}

bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    const HeapColumn &col = key->column;
    TimeKey *tk = &key->time;
    int64 lo, hi;
    if (time_key_always_null(tk) || tk->zone_unknown || (col.type != TIMESTAMPOID && col.type != TIMESTAMPTZOID) ||
        !key_rows_range(rows, col, &lo, &hi) || !key_inside_table(&lo, &hi))
        return false;
    /* date_bin subtracts its origin: keep that far from overflowing too */
    if (tk->kind == TimeKeyKind::bin &&
        (tk->stride_usec <= 0 || tk->origin < kKeyTableMin || tk->origin >= kKeyTableMax ||
         static_cast<__int128>(hi) - tk->origin > (INT64CONST(1) << 62) ||
         static_cast<__int128>(tk->origin) - lo > (INT64CONST(1) << 62)))
        return false;
    /* a step is at least the stride or the unit, or a day */
    const int64 step = tk->kind == TimeKeyKind::bin ? tk->stride_usec
                       : tk->kind == TimeKeyKind::trunc && tk->unit_usec > 0 ? tk->unit_usec
                                                                              : USECS_PER_DAY;
    out->kind = gh::PageKeyKind::intervals;
    const bool built = key_time_intervals(key, verified_interval, step, lo, hi, out, t, k);
    tk->hit_lo = 1; /* the rows start from an empty cache, as before */
    tk->hit_hi = 0;
    return built && out->slots <= kMaxKeySlots;
}

/* The span the query reads over the shortest bucket, and both partial ends, infinities or NULLs. */
double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    double length = 0;
    switch (def.time_kind) {
    case TimeKeyKind::trunc: length = trunc_unit_usec(def.unit); break;
    case TimeKeyKind::to_date: length = trunc_unit_usec(DTK_DAY); break;
    case TimeKeyKind::bin: {
        const Expr *stride = def.args[0];
        if (IsA(stride, Const) && !reinterpret_cast<const Const *>(stride)->constisnull) {
            const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(stride)->constvalue);
            length = iv->day * 86400e6 + static_cast<double>(iv->time);
        }
        break;
    }
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
    return time_key_describe(&key->time);
}

/* The key of lo, where the interval time_keys.h verified for it reaches hi. */
bool span_word(GroupKey *key, int64 lo, int64 hi, int64 *word)
{
    TimeKey *tk = &key->time;
    if (time_key_always_null(tk) || !time_key_quiet(tk) || lo < time_key_quiet_min || hi >= time_key_quiet_max)
        return false;
    const int64 w = time_key_value(tk, lo);
    /* an answer of PostgreSQL's own function leaves no interval: lo stays outside it */
    if (lo < tk->hit_lo || hi >= tk->hit_hi)
        return false;
    *word = w;
    return true;
}

} // namespace

const KeyKindOps time_key_kind = {
    KeyKind::time, "time bucket", recognise, init, prepare, word, NULL, gpu_table, group_bound, true, NULL, describe,
    NULL, NULL, span_word,
};

} // namespace gpu_histogram
