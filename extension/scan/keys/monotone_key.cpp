/*
 * monotone_key.cpp: a GROUP BY key that never decreases as its one column
 * grows (monotone_steps.h), such as Grafana's $__timeGroup,
 * floor(extract(epoch FROM ts)/60)*60 (key_kind.h).
 *
 * A row's key is PostgreSQL's own evaluation of the whole expression
 * (expression_key.h), or the value of a table of intervals where its
 * column's value lies in one.  The table is the GPU's, and the host's too:
 * the range of the column the rows lie in
 * (key_tables.h) cut into intervals over which the key is one value, found
 * by evaluating the same expression, through the same compiled state, at
 * stored values of the column.  An interval [a, b) holds one key because
 * the expression is equal at a and at b - 1 and never decreases between.
 * Finding the ends costs two evaluations per interval where the intervals
 * are as wide as the one before (a minute after a minute), and a search
 * where they are not.  A key kept as bytes (a numeric) gets each slot's
 * value for the groups the GPU counts (KeyTables.slot_values); a word key
 * (a timestamptz from to_timestamp, an integer) its word.  The intervals a
 * table verified are kept for the backend's next tables of the same key
 * (interval_memo.h), which evaluate it only where none did.
 *
 * The host makes the table for its own rows where there are at least 16
 * rows an interval, as the statistics count them (host_table): evaluating
 * Grafana's numeric key costs about half a microsecond a row on the
 * development machine, which made an hourly group over 10M rows 16 times
 * slower than date_trunc('hour', ts).  A row outside the table, or whose
 * column is NULL, is evaluated.
 *
 * A key of a date column through its midnight in the session's zone
 * (date_trunc('month', d)) is zoned (monotone_steps.h): no order is
 * assumed of it, so its table evaluates it at every day it covers, and no
 * host table is made of more days than 16 times the rows it would place.
 */
#include "expression_bound.h"
#include "expression_key.h"
#include "interval_memo.h"
#include "key_tables.h"
#include "monotone_steps.h"
#include "value_memo.h"
#include "zone_steps.h"

#include "../quals/heap_tuple_exprs.h"

#include <algorithm>

extern "C" {
#include "nodes/nodeFuncs.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "executor/executor.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
}

namespace gpu_histogram {

/* The search for a monotone key's intervals, from one stored value to the next. */
struct MonotoneState {
    List *divisions;   /* ExprState of each numeric division (monotone_steps.h) */
    HeapTuple probe;   /* a tuple of the table with only the key's column set ... */
    char *probe_value; /* ... whose bytes lie here */
    int64 limit;       /* the last stored value the table covers, and the search may evaluate */
    int64 width;       /* the last interval's width: the first guess at the next one's */
    /* the value at next_at, the first stored value past the last interval found */
    bool have_next;
    int64 next_at;
    int64 next_word;
    struct varlena *next_bytes;
    /* a key kept as bytes: its distinct values, in the order of the column's */
    struct varlena **values;
    int32 nvalues, capacity;
    int64 max_intervals; /* > 0: a table of more intervals than this is not made (the host's) */
    bool zoned;          /* no order is assumed: every day is evaluated (MonotoneShape.zoned) */
    /* the steps through local time (MonotoneShape.zone_steps): each one's input, compiled, and its zone */
    List *zone_steps;  /* ZoneStep * */
    List *zone_inputs; /* ExprState * */
    pg_tz **zone_tzs;
    /* the host's table: a row whose column lies in [host_starts[0], host_end) is placed by it */
    bool host_tried;
    int32 host_n;
    int32 host_last;       /* the interval of the last row placed */
    const int64 *host_starts;
    const int64 *host_slots;
    int64 host_end;
    const int64 *host_words;             /* a word key's value of each slot */
    struct varlena *const *host_values;  /* a bytes key's */
    /* the intervals earlier tables of this key found (interval_memo.h): open while a table is made */
    const char *memo_name;
    IntervalMemo *memo;
    int64 evaluations; /* of the key, by the table being made: for DEBUG2 */
    int64 remembered;  /* its intervals the memo gave */
};

namespace {

/*
 * The most days a zoned key's table evaluates it at, one call each: 2^18
 * days are 717 years; date_trunc('month', d) over that many dates took
 * 55 ms more than reading the dates on the development machine.
 */
constexpr int64 kMaxZonedDays = 1 << 18;

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    MonotoneShape shape;
    if (!monotone_shape(expr, relid, &shape))
        return false;
    /* a float8 key that is never -0 (nor NaN: no step makes one of finite values) */
    const bool float8 = exprType(reinterpret_cast<Node *>(expr)) == FLOAT8OID;
    if (float8 && shape.minus_zero)
        return false;
    /*
     * a zoned key kept as bytes: its slots are numbered as its values come,
     * which needs each value's days together, an order not assumed of it
     * (nor of a key with steps through local time across transitions)
     */
    if ((shape.zoned || shape.zone_steps != NIL) && exprType(reinterpret_cast<Node *>(expr)) == NUMERICOID)
        return false;
    return expression_key_recognise(expr, relid, out, float8) && shape.column->varattno == out->attno;
}

void init(GroupKey *key, TupleDesc desc, PlanState *parent)
{
    expression_key_init(key, desc, parent);
    MonotoneState *m = static_cast<MonotoneState *>(palloc0(sizeof(MonotoneState)));
    MonotoneShape shape;
    if (monotone_shape(key->def.expr, 0, &shape)) {
        ListCell *lc;
        foreach (lc, shape.divisions)
            m->divisions = lappend(m->divisions, heap_tuple_expr_init(static_cast<Expr *>(lfirst(lc)), desc, parent));
        m->zoned = shape.zoned;
        m->zone_steps = shape.zone_steps;
        m->zone_tzs = static_cast<pg_tz **>(palloc0(sizeof(pg_tz *) * Max(1, list_length(shape.zone_steps))));
        int i = 0;
        foreach (lc, shape.zone_steps) {
            ZoneStep *z = static_cast<ZoneStep *>(lfirst(lc));
            m->zone_inputs = lappend(m->zone_inputs, heap_tuple_expr_init(z->arg, desc, parent));
            if (!zone_step_zone(z->zone, &m->zone_tzs[i])) /* as planned: a zone the planner resolved */
                m->zone_tzs[i] = NULL;
            i++;
        }
    }
    /* a row of NULLs but the column: the column is then the first value of the tuple's data */
    Datum *values = static_cast<Datum *>(palloc0(sizeof(Datum) * desc->natts));
    bool *nulls = static_cast<bool *>(palloc(sizeof(bool) * desc->natts));
    memset(nulls, true, sizeof(bool) * desc->natts);
    nulls[key->def.attno - 1] = false;
    m->probe = heap_form_tuple(desc, values, nulls);
    m->probe_value = reinterpret_cast<char *>(m->probe->t_data) + m->probe->t_data->t_hoff;
    m->memo_name = memo_expression_name(key->def.expr);
    key->monotone = m;
}

/* The column's stored value ts written into the probe tuple, in the column's own width. */
void set_probe(GroupKey *key, int64 ts)
{
    MonotoneState *m = key->monotone;
    switch (key->def.coltype) {
    case INT2OID: {
        int16 v = static_cast<int16>(ts);
        memcpy(m->probe_value, &v, sizeof v);
        break;
    }
    case INT4OID:
    case DATEOID: {
        int32 v = static_cast<int32>(ts);
        memcpy(m->probe_value, &v, sizeof v);
        break;
    }
    default: memcpy(m->probe_value, &ts, sizeof ts);
    }
}

/* A word key's value, or a bytes key's (detoasted, valid until the next evaluation); false if NULL. */
struct Value {
    int64 word;
    struct varlena *bytes;
};

bool evaluate_at(GroupKey *key, int64 ts, Value *out)
{
    key->monotone->evaluations++;
    set_probe(key, ts);
    bool isnull;
    Datum d = expression_key_evaluate(key, key->monotone->probe, &isnull);
    if (isnull)
        return false;
    if (group_key_is_text(key)) {
        MemoryContext old = MemoryContextSwitchTo(key->row_context->ecxt_per_tuple_memory);
        out->bytes = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(d)));
        MemoryContextSwitchTo(old);
        out->word = 0;
        return true;
    }
    out->bytes = NULL;
    switch (key->def.keytype) {
    case INT2OID: out->word = DatumGetInt16(d); break;
    case INT4OID:
    case DATEOID: out->word = DatumGetInt32(d); break;
    case BOOLOID: out->word = DatumGetBool(d) ? 1 : 0; break;
    default: out->word = DatumGetInt64(d); /* int8, timestamp, timestamptz */
    }
    return true;
}

bool same_bytes(const struct varlena *a, const struct varlena *b)
{
    return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
           memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

struct varlena *copy_bytes(const struct varlena *v)
{
    const Size n = VARSIZE_ANY_EXHDR(v);
    struct varlena *c = static_cast<struct varlena *>(palloc(VARHDRSZ + n));
    SET_VARSIZE(c, VARHDRSZ + n);
    memcpy(VARDATA(c), VARDATA_ANY(v), n);
    return c;
}

/*
 * Whether the key at ts equals v: 1 if so, 0 if not (ts's value is then
 * kept as the next interval's first), -1 where it is NULL.
 */
int same_at(GroupKey *key, int64 ts, const Value &v)
{
    MonotoneState *m = key->monotone;
    Value here;
    if (!evaluate_at(key, ts, &here))
        return -1;
    if (v.bytes != NULL ? same_bytes(here.bytes, v.bytes) : here.word == v.word)
        return 1;
    m->have_next = true;
    m->next_at = ts;
    m->next_word = here.word;
    m->next_bytes = here.bytes != NULL ? copy_bytes(here.bytes) : NULL;
    return 0;
}

/* A zone step's input (a timestamp's microseconds, a date's days) at stored value ts; false if NULL or infinite. */
bool zone_input_at(GroupKey *key, ExprState *state, bool date, int64 ts, int64 *out)
{
    MonotoneState *m = key->monotone;
    set_probe(key, ts);
    bool isnull;
    Datum d = expression_key_evaluate_state(key, state, m->probe, &isnull);
    if (isnull)
        return false;
    if (date) {
        const DateADT day = DatumGetDateADT(d);
        *out = day;
        return !DATE_NOT_FINITE(day);
    }
    *out = DatumGetInt64(d);
    return !TIMESTAMP_NOT_FINITE(*out);
}

/*
 * Whether each step through local time keeps order over stored values
 * [lo, hi] (zone_steps.h): checked inside out, each from its input at the
 * two ends, which the steps inside it make a non-decreasing function of
 * the column there.
 */
bool zone_steps_hold(GroupKey *key, int64 lo, int64 hi)
{
    MonotoneState *m = key->monotone;
    ListCell *sc, *ic;
    int i = 0;
    forboth (sc, m->zone_steps, ic, m->zone_inputs) {
        const ZoneStep *z = static_cast<const ZoneStep *>(lfirst(sc));
        ExprState *state = static_cast<ExprState *>(lfirst(ic));
        const bool date = exprType(reinterpret_cast<Node *>(z->arg)) == DATEOID;
        int64 a, b;
        if (m->zone_tzs[i] == NULL || !zone_input_at(key, state, date, lo, &a) || !zone_input_at(key, state, date, hi, &b) ||
            !zone_step_holds(*z, m->zone_tzs[i], a, b))
            return false;
        i++;
    }
    return true;
}

/*
 * same_at(key, ts, v), where the key's interval would run from `from` to
 * ts: 0 too where a step through local time may not keep order over it,
 * so that the interval ends before (the next one starts where it ends).
 */
int same_through(GroupKey *key, int64 from, int64 ts, const Value &v)
{
    const int s = same_at(key, ts, v);
    if (s > 0 && key->monotone->zone_steps != NIL && !zone_steps_hold(key, from, ts))
        return 0;
    return s;
}

/*
 * The end of verified_interval: [ts, end) has key v, whose result is its
 * word, or for a bytes key its number among the values met.
 */
bool interval_found(GroupKey *key, int64 ts, int64 end, const Value &v, int64 *result, int64 *from, int64 *to)
{
    MonotoneState *m = key->monotone;
    *from = ts;
    *to = end;
    m->width = end - ts;
    if (end > m->limit)
        m->have_next = false;
    if (v.bytes == NULL) {
        *result = v.word;
        return true;
    }
    /* a bytes key's result is its value's number among those met, which grow with ts */
    if (m->nvalues == 0 || !same_bytes(m->values[m->nvalues - 1], v.bytes)) {
        if (m->nvalues == m->capacity) {
            m->capacity = Max(64, m->capacity * 2);
            m->values = m->values == NULL
                            ? static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * m->capacity))
                            : static_cast<struct varlena **>(repalloc(m->values, sizeof(struct varlena *) * m->capacity));
        }
        m->values[m->nvalues++] = v.bytes;
    }
    *result = m->nvalues - 1;
    return true;
}

/*
 * The key of stored value ts and the interval [ts, *to) that has it, for
 * the GPU's table (key_tables.h's VerifiedKey).  The expression is equal at
 * ts and at *to - 1, and does not decrease between (monotone_steps.h; its
 * steps through local time checked over it): so it is one value over the
 * interval.  *to - 1 is the table's last value, or
 * *to is a value with another key, which starts the next interval.
 */
bool verified_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    MonotoneState *m = key->monotone;
    if (ts > m->limit)
        return false;
    Value v;
    int64 known_to;
    const struct varlena *known_bytes;
    if (m->memo != NULL && interval_memo_find(m->memo, ts, &known_to, &v.word, &known_bytes)) {
        /* an earlier table's interval: the key is one value over all of it */
        v.bytes = known_bytes != NULL ? copy_bytes(known_bytes) : NULL;
        m->remembered++;
        return interval_found(key, ts, known_to > m->limit ? m->limit + 1 : known_to, v, result, from, to);
    }
    if (m->have_next && m->next_at == ts) {
        v.word = m->next_word;
        v.bytes = m->next_bytes;
    } else {
        if (!evaluate_at(key, ts, &v))
            return false;
        if (v.bytes != NULL)
            v.bytes = copy_bytes(v.bytes);
    }
    int64 good = ts; /* the key is v here ... */
    int64 bad = 0;   /* ... and another here, once found (stored times before 2000 are negative) */
    bool found = false, to_end = false;
    const int64 g = m->width;
    if (m->zoned) {
        /* a zoned key (a date column's): each next day, equal or not, with no order assumed between */
        for (;; good++) {
            if (good == m->limit) {
                to_end = true;
                break;
            }
            const int s = same_at(key, good + 1, v);
            if (s < 0)
                return false;
            if (s == 0) {
                bad = good + 1;
                found = true;
                break;
            }
        }
    } else if (g > 1 && g - 1 <= m->limit - ts) {
        /* the interval as wide as the last: two evaluations */
        const int s = same_through(key, ts, ts + g - 1, v);
        if (s < 0)
            return false;
        if (s > 0) {
            good = ts + g - 1;
            if (good == m->limit)
                to_end = true;
            else {
                const int n = same_at(key, good + 1, v);
                if (n < 0)
                    return false;
                if (n == 0) {
                    bad = good + 1;
                    found = true;
                }
            }
        }
    }
    if (!to_end && !found) {
        /* otherwise a search: steps doubling from good until the key changes, then halving */
        for (int64 step = 1;; step = step < PG_INT64_MAX / 4 ? step * 2 : step) {
            const int64 t = step <= m->limit - good ? good + step : m->limit;
            if (t == good) {
                to_end = true;
                break;
            }
            const int s = same_through(key, ts, t, v);
            if (s < 0)
                return false;
            if (s == 0) {
                bad = t;
                found = true;
                break;
            }
            good = t;
        }
        while (!to_end && bad - good > 1) {
            const int64 mid = good + (bad - good) / 2;
            const int s = same_through(key, ts, mid, v);
            if (s < 0)
                return false;
            if (s > 0)
                good = mid;
            else
                bad = mid; /* its value is the one kept as next */
        }
    }
    if (m->memo != NULL)
        interval_memo_add(m->memo, ts, to_end ? m->limit + 1 : bad, v.word, v.bytes);
    return interval_found(key, ts, to_end ? m->limit + 1 : bad, v, result, from, to);
}

/*
 * Whether each numeric division rounds to one scale over [lo, hi]:
 * select_div_scale takes the quotient's scale from the dividend's weight
 * and leading digit, which never decrease with its magnitude, so where the
 * dividend keeps one sign (no zero) and the quotient one scale at both
 * ends, it has that scale between, and rounding at one scale keeps order.
 */
bool divisions_hold(GroupKey *key, int64 lo, int64 hi)
{
    MonotoneState *m = key->monotone;
    ListCell *lc;
    foreach (lc, m->divisions) {
        ExprState *state = static_cast<ExprState *>(lfirst(lc));
        int32 sign[2], scale[2];
        const int64 at[2] = {lo, hi};
        for (int e = 0; e < 2; e++) {
            set_probe(key, at[e]);
            bool isnull;
            Datum q = expression_key_evaluate_state(key, state, m->probe, &isnull);
            if (isnull)
                return false;
            sign[e] = DatumGetInt32(DirectFunctionCall2(numeric_cmp, q, NumericGetDatum(int64_to_numeric(0))));
            scale[e] = DatumGetInt32(DirectFunctionCall1(numeric_scale, q));
        }
        if (sign[0] == 0 || sign[0] != sign[1] || scale[0] != scale[1])
            return false;
    }
    return true;
}

/* The rows' span of the column, cut into the intervals of each key value (gpu_table). */
bool make_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    MonotoneState *m = key->monotone;
    /* the values of a table that failed went with the memory it was made in (a rescan makes it again) */
    m->values = NULL;
    m->capacity = m->nvalues = 0;
    int64 lo, hi;
    if (!key_rows_range(rows, key->column, &lo, &hi) || !key_inside_table(&lo, &hi, key->def.coltype) ||
        !divisions_hold(key, lo, hi))
        return false;
    /* a zoned key costs a call a day: more than the rows' own calls where the days outnumber them */
    if (m->zoned && (hi - lo >= kMaxZonedDays || (m->max_intervals > 0 && (hi - lo) / 16 > m->max_intervals)))
        return false;
    /* the first two intervals give the width the others are searched from, and the table's size */
    m->limit = hi;
    m->width = 1;
    m->have_next = false;
    m->nvalues = 0;
    int64 r, from, to;
    if (!verified_interval(key, lo, &r, &from, &to))
        return false;
    int64 step = to - lo;
    if (to <= hi) {
        if (!verified_interval(key, to, &r, &from, &to))
            return false;
        step = Max(step, to - from);
    }
    if (m->max_intervals > 0 && (hi - lo) / step > m->max_intervals)
        return false;
    m->width = step;
    m->have_next = false;
    m->nvalues = 0;
    out->kind = gh::PageKeyKind::intervals;
    if (!key_time_intervals(key, verified_interval, step, lo, hi, out, t, k) || out->slots > kMaxKeySlots)
        return false;
    if (group_key_is_text(key)) {
        if (m->nvalues != static_cast<int32>(out->slots))
            return false;
        t->slot_values[k] = m->values; /* slot s is the s-th value: key_time_intervals numbers them in order */
        m->values = NULL;
        m->capacity = m->nvalues = 0;
    }
    return true;
}

/*
 * The table of key_kind.h, made with the intervals earlier tables of the
 * key verified, which it adds to (interval_memo.h): a dashboard's next
 * refresh evaluates the key only where its range moved.
 */
bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    MonotoneState *m = key->monotone;
    m->memo = interval_memo_open(m->memo_name);
    m->evaluations = m->remembered = 0;
    const bool made = make_table(key, rows, out, t, k);
    interval_memo_commit(m->memo);
    m->memo = NULL;
    elog(DEBUG2, "gpu_histogram scan: a table of %s: %s, %lld intervals remembered, %lld evaluations",
         NameStr(TupleDescAttr(key->slot->tts_tupleDescriptor, key->def.attno - 1)->attname),
         made ? psprintf("%u intervals", out->intervals) : "not made", static_cast<long long>(m->remembered),
         static_cast<long long>(m->evaluations));
    return made;
}

/*
 * The table for the host's rows: the GPU's, over the same range, where the
 * statistics put at least 16 rows in each interval (fewer would cost more
 * evaluations making it than it saves).
 */
void host_table(GroupKey *key, const KeyRows &rows)
{
    MonotoneState *m = key->monotone;
    if (m->host_tried)
        return;
    m->host_tried = true;
    Relation rel = table_open(rows.relid, NoLock); /* the scan holds its lock */
    const double reltuples = rel->rd_rel->reltuples;
    table_close(rel, NoLock);
    const NativeQuals none{};
    int64 lo, hi, all_lo, all_hi;
    if (reltuples <= 0 || !key_rows_range(rows, key->column, &lo, &hi) ||
        !key_rows_range(KeyRows{rows.relid, &none}, key->column, &all_lo, &all_hi))
        return;
    const double in_range = reltuples * (static_cast<double>(hi - lo) + 1) / (static_cast<double>(all_hi - all_lo) + 1);
    m->max_intervals = static_cast<int64>(Min(in_range / 16, 1e9));
    if (m->max_intervals < 1)
        return;
    KeyTables t = KeyTables{};
    gh::PageKey out = gh::PageKey{};
    const bool built = gpu_table(key, rows, &out, &t, 0);
    m->max_intervals = 0;
    if (!built)
        return;
    m->host_n = static_cast<int32>(out.intervals);
    m->host_starts = t.words + out.table_first;
    m->host_slots = m->host_starts + out.intervals;
    m->host_end = out.end;
    m->host_words = t.slot_words[0];
    m->host_values = t.slot_values[0];
    m->host_last = 0;
}

/* The slot of tuple t's key in the host's table; false where the table does not place it. */
inline bool host_slot(GroupKey *key, TupleDesc desc, HeapTupleData *t, int32 *slot)
{
    const MonotoneState *m = key->monotone;
    int64 ts;
    if (m->host_n == 0 || !heap_column_word(key->column, desc, t, &ts) || ts < m->host_starts[0] ||
        ts >= m->host_end)
        return false;
    int32 i = m->host_last;
    if (ts < m->host_starts[i] || (i + 1 < m->host_n && ts >= m->host_starts[i + 1])) {
        i = static_cast<int32>(std::upper_bound(m->host_starts, m->host_starts + m->host_n, ts) - m->host_starts) - 1;
        key->monotone->host_last = i;
    }
    *slot = static_cast<int32>(m->host_slots[i]);
    return true;
}

/*
 * Where a key never raises: each row whose column lies in the host's table
 * takes its interval's value, evaluated without error at both the
 * interval's ends; any other is evaluated (a NULL column too: the
 * expression need not be strict).  A page the host's table places whole
 * then groups as fast as a column's (Metabase's Sunday weeks over 10M
 * rows, 313 -> 221 ms on the development machine).
 */
bool quiet_range(GroupKey *key, int64 *lo, int64 *hi, bool *null_quiet)
{
    const MonotoneState *m = key->monotone;
    if (m->host_n == 0)
        return false;
    *lo = m->host_starts[0];
    *hi = m->host_end;
    *null_quiet = false;
    return true;
}

/* The slot of a span that one interval of the host's table holds whole (a page of one week, say). */
bool span_slot(GroupKey *key, int64 lo, int64 hi, int32 *slot)
{
    MonotoneState *m = key->monotone;
    if (m->host_n == 0 || lo < m->host_starts[0] || hi >= m->host_end)
        return false;
    int32 i = m->host_last;
    if (lo < m->host_starts[i] || (i + 1 < m->host_n && lo >= m->host_starts[i + 1])) {
        i = static_cast<int32>(std::upper_bound(m->host_starts, m->host_starts + m->host_n, lo) - m->host_starts) - 1;
        m->host_last = i;
    }
    if (i + 1 < m->host_n && hi >= m->host_starts[i + 1])
        return false;
    *slot = static_cast<int32>(m->host_slots[i]);
    return true;
}

bool span_word(GroupKey *key, int64 lo, int64 hi, int64 *word)
{
    int32 slot;
    if (group_key_is_text(key) || !span_slot(key, lo, hi, &slot))
        return false;
    *word = key->monotone->host_words[slot];
    return true;
}

/* As bytes() reads a row of the slot: a numeric key is the interval's value. */
bool span_bytes(GroupKey *key, int64 lo, int64 hi, const char **data, int32 *len)
{
    int32 slot;
    if (!group_key_is_text(key) || !span_slot(key, lo, hi, &slot))
        return false;
    const struct varlena *v = key->monotone->host_values[slot];
    *data = VARDATA_ANY(v);
    *len = VARSIZE_ANY_EXHDR(v);
    return true;
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    int32 slot;
    if (host_slot(key, desc, t, &slot)) {
        *word = key->monotone->host_words[slot];
        return true;
    }
    return expression_key_word(key, desc, t, word);
}

bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    int32 slot;
    if (host_slot(key, desc, t, &slot)) {
        const struct varlena *v = key->monotone->host_values[slot];
        *data = VARDATA_ANY(v);
        *len = VARSIZE_ANY_EXHDR(v);
        return true;
    }
    return expression_key_bytes(key, desc, t, data, len);
}

double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    return expression_group_bound(root, relid, def.expr);
}

const char *describe(const GroupKey *key)
{
    const TupleDesc desc = key->slot->tts_tupleDescriptor;
    const char *column = NameStr(TupleDescAttr(desc, key->def.attno - 1)->attname);
    const char *how = psprintf(key->monotone->zoned ? "evaluated at each day of %s" : "non-decreasing in %s", column);
    if (key->monotone->host_n > 0) /* EXPLAIN ANALYZE: the table the host's rows were placed by */
        return psprintf("%s, %d intervals on the host", how, key->monotone->host_n);
    return how;
}

} // namespace

const KeyKindOps monotone_key_kind = {
    KeyKind::monotone, "monotone expression", recognise, init, NULL, word, bytes, gpu_table, group_bound,
    true /* its groups come in the column's order */, NULL, describe, host_table, NULL, span_word, quiet_range,
    span_bytes,
};

} // namespace gpu_histogram
