/*
 * date_field_key.cpp: extract(field FROM ts) and date_part('field', ts) of
 * a field of the local date or time, over a timestamp or timestamptz
 * column or ts AT TIME ZONE a constant zone, as GROUP BY keys
 * (key_kind.h): the hour-of-day and day-of-week heatmaps, and the year,
 * ISO week or decade a hand-written report groups by.
 *
 * PostgreSQL computes these by timestamp2tm(), the local time in the
 * session's zone, then the field.  Here the local time is ts plus the
 * zone's offset (for ts AT TIME ZONE zone, the offset of the zone
 * time_keys.h's time_key_zone() finds), kept with the interval it holds
 * over (time_keys.h's TzOffsetCache, verified at each lookup as
 * date_trunc's fast path is), and
 * the field comes from it by the same steps as timestamp2tm's: the time of
 * day for hour and minute, j2date() and j2day() of the local day for the
 * date's fields, once per day.  A zone whose local fields are not ts plus
 * an offset (leap seconds), and the timestamp range's ends, go through
 * timestamp2tm() itself.  Infinities are NULL for the periodic fields and
 * an infinity of their own sign for the year's (year, isoyear, decade,
 * century, millennium), as extract makes them.  extract answers a numeric
 * of scale 0 and date_part a float8, both made from the field's integer at
 * output.
 * On the GPU the hour, minute and day of the week are computed from the
 * local time by the same steps, with a table of the zone's offsets between
 * its transitions (gpu_period_table).  The other fields are a table of
 * intervals of the stored time, one per local day, each checked against
 * PostgreSQL's date_part at both its ends (verified_interval): a year is
 * no more monotone in a timestamptz than the local day is (a fall-back
 * across midnight moves it back), so it is verified day by day as the
 * other date fields are.
 */
#include "column_span.h"
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"

extern "C" {
#include "datatype/timestamp.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

enum Field { kHour, kMinute, kDay, kDow, kIsodow, kDoy, kWeek, kMonth, kQuarter, kYear, kIsoyear, kDecade, kCentury, kMillennium };

/*
 * values: how many a periodic field takes; 0 for a field of the year's,
 * whose values the column's span bounds at one per `years` years (an ISO
 * year is at least 364 days, close enough to a year for an estimate).
 */
const struct {
    const char *name;
    Field field;
    double values;
    double years;
} kFields[] = {{"hour", kHour, 24, 0},       {"minute", kMinute, 60, 0},    {"day", kDay, 31, 0},
               {"dow", kDow, 7, 0},          {"isodow", kIsodow, 7, 0},     {"doy", kDoy, 366, 0},
               {"week", kWeek, 53, 0},       {"month", kMonth, 12, 0},      {"quarter", kQuarter, 4, 0},
               {"year", kYear, 0, 1},        {"isoyear", kIsoyear, 0, 1},   {"decade", kDecade, 0, 10},
               {"century", kCentury, 0, 100}, {"millennium", kMillennium, 0, 1000}};

/* Whether a field is one of the year's, which is an infinity of infinite input (PostgreSQL's NonFiniteTimestampTzPart). */
bool year_field(Field f)
{
    return f >= kYear;
}

/* The words of the infinities of a year field: no year is near them. */
constexpr int64 kPlusInfinity = PG_INT64_MAX;
constexpr int64 kMinusInfinity = PG_INT64_MIN;

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    if (!IsA(expr, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(expr);
    Oid type;
    bool numeric;
    switch (f->funcid) {
    case F_EXTRACT_TEXT_TIMESTAMPTZ: type = TIMESTAMPTZOID; numeric = true; break;
    case F_EXTRACT_TEXT_TIMESTAMP: type = TIMESTAMPOID; numeric = true; break;
    case F_DATE_PART_TEXT_TIMESTAMPTZ: type = TIMESTAMPTZOID; numeric = false; break;
    case F_DATE_PART_TEXT_TIMESTAMP: type = TIMESTAMPOID; numeric = false; break;
    default: return false;
    }
    if (list_length(f->args) != 2 || !IsA(linitial(f->args), Const))
        return false;
    const Expr *arg = static_cast<const Expr *>(lsecond(f->args));
    Const *zone;
    const Expr *inner;
    if (type == TIMESTAMPOID && key_local_time(arg, &zone, &inner)) {
        /* ts AT TIME ZONE zone, ts::timestamp: the local time of a timestamptz column */
        out->zone_text = zone;
        out->local_time = true;
        arg = inner;
        type = TIMESTAMPTZOID;
    }
    const Var *v;
    if (!key_table_var(arg, relid, &v) || v->vartype != type)
        return false;
    const Const *c = static_cast<const Const *>(linitial(f->args));
    if (c->constisnull || c->consttype != TEXTOID)
        return false;
    char *name = downcase_truncate_identifier(TextDatumGetCString(c->constvalue),
                                              strlen(TextDatumGetCString(c->constvalue)), false);
    for (const auto &fd : kFields)
        if (strcmp(name, fd.name) == 0) {
            out->attno = v->varattno;
            out->coltype = type;
            out->keytype = numeric ? NUMERICOID : FLOAT8OID;
            out->unit = fd.field;
            return true;
        }
    return false;
}

void init(GroupKey *key, TupleDesc, PlanState *)
{
    key->tzc.tz = session_timezone;
    key->zone_by_postgres = false;
    if (key->def.local_time && key->def.zone_text != NULL) {
        /* an abbreviation that stands for a zone has offsets of its own (timestamptz_zone) */
        bool dynamic = false;
        key->tzc.tz = time_key_zone(key->def.zone_text->constvalue, &dynamic);
        key->zone_by_postgres = key->tzc.tz == NULL || dynamic;
    }
    key->tzc.lo = key->tzc.hi = 0;
    key->have_day = false;
}

/* PostgreSQL's own date_part(field, ts), or of ts AT TIME ZONE zone: the check of each interval's ends. */
int64 date_part_of(const GroupKey *key, int64 ts);

/* a / b rounded down, for b > 0 */
int64 floor_div(int64 a, int64 b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The field of the local day (days since 2000-01-01), by timestamp2tm's steps. */
int64 day_field(Field field, int64 day)
{
    const int julian = static_cast<int>(day + POSTGRES_EPOCH_JDATE);
    int year, month, mday;
    j2date(julian, &year, &month, &mday);
    /* j2date's year 0 is 1 BC: timestamp_part_common's steps, which have no year 0 */
    switch (field) {
    case kDay: return mday;
    case kDow: return j2day(julian);
    case kIsodow: return j2day(julian) == 0 ? 7 : j2day(julian);
    case kDoy: return date2j(year, month, mday) - date2j(year, 1, 1) + 1;
    case kWeek: return date2isoweek(year, month, mday);
    case kMonth: return month;
    case kQuarter: return (month - 1) / 3 + 1;
    case kYear: return year > 0 ? year : year - 1;
    case kIsoyear: {
        const int iso = date2isoyear(year, month, mday);
        return iso > 0 ? iso : iso - 1;
    }
    case kDecade: return year >= 0 ? year / 10 : -((8 - (year - 1)) / 10);
    case kCentury: return year > 0 ? (year + 99) / 100 : -((99 - (year - 1)) / 100);
    case kMillennium: return year > 0 ? (year + 999) / 1000 : -((999 - (year - 1)) / 1000);
    default: return 0;
    }
}

/* The field from PostgreSQL's own broken-down local time (the slow path). */
int64 tm_field(Field field, const struct pg_tm &tm)
{
    switch (field) {
    case kHour: return tm.tm_hour;
    case kMinute: return tm.tm_min;
    default: return day_field(field, date2j(tm.tm_year, tm.tm_mon, tm.tm_mday) - POSTGRES_EPOCH_JDATE);
    }
}

/* The field of the finite stored time ts, from the zone's offset where it can (PostgreSQL's timestamp2tm otherwise). */
int64 field_of(GroupKey *key, int64 ts)
{
    const Field field = static_cast<Field>(key->def.unit);
    int64 local = ts;
    if (key->def.coltype == TIMESTAMPTZOID) {
        /*
         * Near the range's ends the local time may fall outside it, where
         * PostgreSQL raises: such a time never takes the cached offset,
         * even one whose interval (up to the zone's last transition, or
         * for ever) reaches it.
         */
        if (unlikely(ts < key->tzc.lo || ts >= key->tzc.hi || ts < kKeyTableMin || ts >= kKeyTableMax)) {
            if (ts < kKeyTableMin || ts >= kKeyTableMax || !tz_offset_refill(&key->tzc, ts)) {
                if (key->def.local_time)
                    return date_part_of(key, ts); /* its own range error near the ends */
                struct pg_tm tm;
                fsec_t fsec;
                int tz;
                if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, key->tzc.tz) != 0)
                    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
                return tm_field(field, tm);
            }
        }
        local = ts + key->tzc.offset;
    }
    const int64 day = floor_div(local, USECS_PER_DAY);
    const int64 tod = local - day * USECS_PER_DAY;
    switch (field) {
    case kHour: return tod / USECS_PER_HOUR;
    case kMinute: return tod / USECS_PER_MINUTE % MINS_PER_HOUR;
    default:
        if (!key->have_day || key->day != day) {
            key->day = day;
            key->day_value = day_field(field, day);
            key->have_day = true;
        }
        return key->day_value;
    }
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    int64 ts;
    if (!heap_column_word(key->column, desc, t, &ts))
        return false;
    if (TIMESTAMP_NOT_FINITE(ts)) {
        /* extract's NULL for the periodic fields, an infinity for the year's */
        if (!year_field(static_cast<Field>(key->def.unit)))
            return false;
        *word = TIMESTAMP_IS_NOBEGIN(ts) ? kMinusInfinity : kPlusInfinity;
        return true;
    }
    *word = unlikely(key->zone_by_postgres) ? date_part_of(key, ts) : field_of(key, ts);
    return true;
}

/* The span of local time over which the field cannot change: its hour, its minute, or its local day. */
int64 field_span(Field field)
{
    return field == kHour ? USECS_PER_HOUR : field == kMinute ? USECS_PER_MINUTE : USECS_PER_DAY;
}

const char *field_name(Field field)
{
    for (const auto &fd : kFields)
        if (fd.field == field)
            return fd.name;
    return "";
}

int64 date_part_of(const GroupKey *key, int64 ts)
{
    Datum unit = CStringGetTextDatum(field_name(static_cast<Field>(key->def.unit)));
    if (key->def.local_time) {
        Datum local = key->def.zone_text != NULL
                          ? DirectFunctionCall2(timestamptz_zone, key->def.zone_text->constvalue, TimestampTzGetDatum(ts))
                          : DirectFunctionCall1(timestamptz_timestamp, TimestampTzGetDatum(ts));
        return static_cast<int64>(DatumGetFloat8(DirectFunctionCall2(timestamp_part, unit, local)));
    }
    Datum part = key->def.coltype == TIMESTAMPTZOID
                     ? DirectFunctionCall2(timestamptz_part, unit, TimestampTzGetDatum(ts))
                     : DirectFunctionCall2(timestamp_part, unit, TimestampGetDatum(ts));
    return static_cast<int64>(DatumGetFloat8(part));
}

/*
 * The field of one stored time and the interval around it with that field,
 * for the GPU's table (key_tables.h).  Over [from, to) the zone's offset is
 * one (the offset cache's interval, which ends at the zone's next
 * transition) and the local time stays within one field_span(), so the
 * local hour, minute or day, and every field of the day, is one; and
 * PostgreSQL's date_part at both ends agrees with it, or no table is made.
 */
bool verified_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    const int64 span = field_span(static_cast<Field>(key->def.unit));
    int64 offset = 0, lo = PG_INT64_MIN, hi = PG_INT64_MAX;
    if (key->def.coltype == TIMESTAMPTZOID) {
        if (!tz_offset_refill(&key->tzc, ts))
            return false;
        offset = key->tzc.offset;
        lo = key->tzc.lo;
        hi = key->tzc.hi;
    }
    const int64 start = floor_div(ts + offset, span) * span - offset;
    *from = Max(start, lo);
    *to = Min(start + span, hi);
    if (!(*from <= ts && ts < *to))
        return false;
    *result = field_of(key, ts);
    return date_part_of(key, *from) == *result && date_part_of(key, *to - 1) == *result;
}

/*
 * The fields the GPU computes from the local time itself, as field_of
 * does: the number of the local time's unit (hour, minute or day), plus
 * shift, modulo period, is the field's slot, and slot s holds the value
 * s + first.  A day's: j2day() of Julian day d is (d + 1) mod 7, and local
 * day 0, 2000-01-01, is Julian day 2451545, a Saturday (6).
 */
struct LocalPeriod {
    int64 unit;
    int32 period;
    int32 shift;
    int32 first;
};

bool local_period(Field field, LocalPeriod *p)
{
    switch (field) {
    case kHour: *p = LocalPeriod{USECS_PER_HOUR, HOURS_PER_DAY, 0, 0}; return true;
    case kMinute: *p = LocalPeriod{USECS_PER_MINUTE, MINS_PER_HOUR, 0, 0}; return true;
    case kDow: *p = LocalPeriod{USECS_PER_DAY, 7, 6, 0}; return true;
    case kIsodow: *p = LocalPeriod{USECS_PER_DAY, 7, 5, 1}; return true; /* Sunday is 7 */
    default: return false;
    }
}

/* The field of local time `local` by the period's steps: the kernel's (kernel_grouped_pages.cuh). */
int64 period_value(const LocalPeriod &p, int64 local)
{
    const int64 r = (floor_div(local, p.unit) + p.shift) % p.period;
    return (r < 0 ? r + p.period : r) + p.first;
}

/* Most intervals of one UTC offset a table takes: two a year in a zone with DST. */
constexpr int32 kMaxOffsetIntervals = 4096;

/*
 * A periodic field's table for the GPU: the rows' span [lo, hi] cut where
 * the zone's offset changes (tz_offset_refill's intervals, a few a year
 * instead of one an hour), each with its offset, and PostgreSQL's
 * date_part at both ends of each interval agreeing with period_value.
 * Cut and verified hour by hour, three years of New York's hours were
 * 27,778 intervals and 7.5 ms of the dev VM's; the H200's whole scan of
 * 100M rows by hour of day took 16 ms with that table, 8 with this one.
 */
bool gpu_period_table(GroupKey *key, const LocalPeriod &p, int64 lo, int64 hi, gh::PageKey *out, KeyTables *t,
                      int k)
{
    int64 *starts = static_cast<int64 *>(palloc(sizeof(int64) * kMaxOffsetIntervals));
    int64 *offsets = static_cast<int64 *>(palloc(sizeof(int64) * kMaxOffsetIntervals));
    int32 n = 0;
    int64 end = hi + 1;
    for (int64 ts = lo; ts <= hi; n++) {
        int64 offset = 0;
        end = hi + 1;
        if (key->def.coltype == TIMESTAMPTZOID) {
            if (!tz_offset_refill(&key->tzc, ts))
                return false;
            offset = key->tzc.offset;
            end = Min(key->tzc.hi, hi + 1);
        }
        if (n == kMaxOffsetIntervals || period_value(p, ts + offset) != date_part_of(key, ts) ||
            period_value(p, end - 1 + offset) != date_part_of(key, end - 1))
            return false;
        starts[n] = ts;
        offsets[n] = offset;
        ts = end;
    }
    if (n == 0)
        return false;
    key_tables_add_intervals(t, starts, offsets, n, out);
    out->kind = gh::PageKeyKind::local_period;
    out->end = end;
    out->unit = p.unit;
    out->period = p.period;
    out->shift = p.shift;
    out->slots = static_cast<uint32>(p.period);
    int64 *words = static_cast<int64 *>(palloc(sizeof(int64) * p.period));
    for (int32 s = 0; s < p.period; s++)
        words[s] = s + p.first;
    t->slot_words[k] = words;
    pfree(starts);
    pfree(offsets);
    return true;
}

/*
 * The rows' span of the column for the GPU (key_kind.h): a periodic field
 * by its offsets (gpu_period_table), the others cut into the intervals of
 * each field value.
 */
bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    int64 lo, hi;
    if (key->zone_by_postgres || !key_rows_range(rows, key->column, &lo, &hi) || !key_inside_table(&lo, &hi))
        return false;
    LocalPeriod period;
    if (local_period(static_cast<Field>(key->def.unit), &period)) {
        const bool built = gpu_period_table(key, period, lo, hi, out, t, k);
        key->tzc.lo = key->tzc.hi = 0; /* the rows start from an empty cache */
        if (built)
            return true;
        /* a zone whose offset changes too often: by the intervals of each value, as the other fields */
    }
    out->kind = gh::PageKeyKind::intervals;
    const bool built =
        key_time_intervals(key, verified_interval, field_span(static_cast<Field>(key->def.unit)), lo, hi, out, t, k);
    key->tzc.lo = key->tzc.hi = 0; /* the rows start from an empty cache, as before */
    key->have_day = false;
    return built && out->slots <= kMaxKeySlots;
}

double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    for (const auto &fd : kFields) {
        if (fd.field != def.unit)
            continue;
        if (fd.values > 0)
            return fd.values + 1; /* and NULL */
        /* the year's fields: the span the query reads, as time_key.cpp bounds a bucket's */
        const double length = fd.years * 365 * static_cast<double>(USECS_PER_DAY);
        double span, buckets;
        if (!planner_column_span(root, relid, def.attno, def.coltype, &span))
            return 0;
        if (planner_bucket_groups(root, relid, def.attno, def.coltype, length, &buckets))
            span = Min(span, buckets * length);
        return span / length + 4.0; /* a partial unit at each end, the infinities, NULL */
    }
    return 0;
}

Datum datum(const GroupKey *key, int64 word)
{
    if (word == kPlusInfinity || word == kMinusInfinity) {
        const double inf = word == kPlusInfinity ? get_float8_infinity() : -get_float8_infinity();
        return key->def.keytype == NUMERICOID ? DirectFunctionCall1(float8_numeric, Float8GetDatum(inf))
                                              : Float8GetDatum(inf);
    }
    return key->def.keytype == NUMERICOID ? NumericGetDatum(int64_to_numeric(word))
                                          : Float8GetDatum(static_cast<double>(word));
}

/*
 * The field of lo, where lo and hi lie in one local hour, minute or day
 * (field_span) under one cached offset: every time between has it too.
 */
bool span_word(GroupKey *key, int64 lo, int64 hi, int64 *word)
{
    if (key->zone_by_postgres || lo < kKeyTableMin || hi >= kKeyTableMax)
        return false;
    const int64 w = field_of(key, lo);
    int64 offset = 0;
    if (key->def.coltype == TIMESTAMPTZOID) {
        /* field_of refilled the cache around lo where it could; a failed refill leaves lo outside */
        if (lo < key->tzc.lo || hi >= key->tzc.hi)
            return false;
        offset = key->tzc.offset;
    }
    const int64 span = field_span(static_cast<Field>(key->def.unit));
    if (floor_div(lo + offset, span) != floor_div(hi + offset, span))
        return false;
    *word = w;
    return true;
}

const char *describe(const GroupKey *key)
{
    for (const auto &fd : kFields)
        if (fd.field == key->def.unit)
            return psprintf("%s of the local time%s", fd.name,
                            key->def.local_time && key->def.zone_text != NULL
                                ? psprintf(" at %s", TextDatumGetCString(key->def.zone_text->constvalue))
                            : key->def.coltype == TIMESTAMPTZOID
                                ? psprintf(", %s", pg_get_timezone_name(session_timezone))
                                : "");
    return "";
}

} // namespace

const KeyKindOps date_field_key_kind = {
    KeyKind::date_field, "date field", recognise, init, NULL, word, NULL, gpu_table, group_bound, false, datum, describe,
    NULL, NULL, span_word,
};

} // namespace gpu_histogram
