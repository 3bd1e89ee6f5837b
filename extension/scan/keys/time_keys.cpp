/*
 * time_keys.cpp: date_trunc, date_bin and ::date as GROUP BY keys, exact and
 * cheap (see time_keys.h for why each fast path equals PostgreSQL's).
 */
#include "time_keys.h"

extern "C" {
#include "datatype/timestamp.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

/* Seconds from the Unix epoch to PostgreSQL's (2000-01-01). */
constexpr int64 kEpochShiftSecs = static_cast<int64>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;

/*
 * The fast paths run only this far inside the timestamp range: truncation,
 * offsets and bins then stay well inside it, where PostgreSQL raises no
 * range error.  The ends go to PostgreSQL's functions.
 */
constexpr int64 kMargin = 400 * USECS_PER_DAY;
constexpr int64 kSafeMin = MIN_TIMESTAMP + kMargin;
constexpr int64 kSafeMax = END_TIMESTAMP - kMargin;

inline int64 floor_div(int64 a, int64 b)
{
    int64 q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64 floor_mod(int64 a, int64 b)
{
    return a - floor_div(a, b) * b;
}

/* ts's local time in the session's zone, into *local and *offset. */
inline bool local_time(TzOffsetCache *c, int64 ts, int64 *local, int64 *offset)
{
    if (unlikely(ts < c->lo || ts >= c->hi)) {
        if (!tz_offset_refill(c, ts))
            return false;
    }
    *offset = c->offset;
    *local = ts + c->offset;
    return true;
}

/* PostgreSQL's own function for this key: the reference, and the fallback. */
int64 postgres_value(const TimeKey *k, int64 ts)
{
    if (k->local_time) {
        Datum local = k->zone_text != 0 ? DirectFunctionCall2(timestamptz_zone, k->zone_text, Int64GetDatum(ts))
                                        : DirectFunctionCall1(timestamptz_timestamp, Int64GetDatum(ts));
        if (k->kind == TimeKeyKind::to_date)
            return DatumGetDateADT(DirectFunctionCall1(timestamp_date, local));
        return DatumGetInt64(DirectFunctionCall2(timestamp_trunc, k->unit_text, local));
    }
    switch (k->kind) {
    case TimeKeyKind::trunc:
        if (k->zone_text != 0)
            return DatumGetInt64(
                DirectFunctionCall3(timestamptz_trunc_zone, k->unit_text, Int64GetDatum(ts), k->zone_text));
        return DatumGetInt64(k->with_tz ? DirectFunctionCall2(timestamptz_trunc, k->unit_text, Int64GetDatum(ts))
                                        : DirectFunctionCall2(timestamp_trunc, k->unit_text, Int64GetDatum(ts)));
    case TimeKeyKind::bin:
        return DatumGetInt64(k->with_tz ? DirectFunctionCall3(timestamptz_bin, k->stride, Int64GetDatum(ts),
                                                              Int64GetDatum(k->origin))
                                        : DirectFunctionCall3(timestamp_bin, k->stride, Int64GetDatum(ts),
                                                              Int64GetDatum(k->origin)));
    case TimeKeyKind::to_date:
        return DatumGetDateADT(k->with_tz ? DirectFunctionCall1(timestamptz_date, Int64GetDatum(ts))
                                          : DirectFunctionCall1(timestamp_date, Int64GetDatum(ts)));
    }
    return 0;
}

/* Every ts in [lo, hi) has key result: the next rows are tried there first. */
inline void remember(TimeKey *k, int64 lo, int64 hi, int64 result)
{
    k->hit_lo = lo;
    k->hit_hi = hi;
    k->hit_result = result;
}

/*
 * date_bin through the cache of verified intervals.  A miss asks PostgreSQL
 * for ts's bin r, then for the bin at the ends of the widest candidate
 * interval around ts ([r, r + stride - 1], then shifted by one, as PG 15's
 * rounding for an origin after ts makes the bins (r, r + stride]): where
 * both ends agree with r, monotonicity puts the whole interval in r.
 */
int64 bin_value(TimeKey *k, int64 ts)
{
    int slot = 0;
    if (k->stride_usec > 0) {
        __int128 d = static_cast<__int128>(ts) - k->origin;
        __int128 q = d / k->stride_usec;
        slot = static_cast<int>(static_cast<uint64>(static_cast<int64>(q)) & (kBinCacheSize - 1));
    }
    BinInterval &e = k->bins[slot];
    if (ts >= e.lo && ts <= e.hi) {
        remember(k, e.lo, e.hi + 1, e.result);
        return e.result;
    }
    int64 r = postgres_value(k, ts);
    e.lo = ts;
    e.hi = ts;
    e.result = r;
    if (k->stride_usec <= 1)
        return r;
    const int64 s = k->stride_usec;
    const int64 candidates[][2] = {{r, r + s - 1}, {r + 1, r + s}, {r + 1, r + s - 1}};
    for (const auto &c : candidates) {
        int64 lo = c[0], hi = c[1];
        if (lo > ts || hi < ts || lo < kSafeMin || hi >= kSafeMax)
            continue;
        if ((lo == ts || postgres_value(k, lo) == r) && (hi == ts || postgres_value(k, hi) == r)) {
            e.lo = lo;
            e.hi = hi;
            remember(k, lo, hi + 1, r);
            break;
        }
    }
    return r;
}

} // namespace

/*
 * Refills the offset cache around ts: the offset from timestamp2tm (what
 * date_trunc and ::date use), valid from ts's second up to the zone's next
 * transition.  Returns false if ts has no offset PostgreSQL would use here.
 */
bool tz_offset_refill(TzOffsetCache *c, int64 ts)
{
    struct pg_tm tm;
    fsec_t fsec;
    int tz;
    if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, c->tz) != 0)
        return false;
    int64 offset = -static_cast<int64>(tz) * USECS_PER_SEC;
    Timestamp local;
    if (tm2timestamp(&tm, fsec, NULL, &local) != 0 || local != ts + offset)
        return false; /* local fields are not ts + offset: never cache */
    const pg_time_t second = floor_div(ts, USECS_PER_SEC) + kEpochShiftSecs;
    const ZoneTransition z = zone_transition_after(c->tz, second);
    c->offset = offset;
    c->lo = (second - kEpochShiftSecs) * USECS_PER_SEC;
    c->hi = c->lo + USECS_PER_SEC; /* at least ts's own second */
    if (z.found >= 0 && z.before * USECS_PER_SEC == offset) {
        if (z.found == 0)
            c->hi = PG_INT64_MAX;
        else if (z.at - kEpochShiftSecs < kSafeMax / USECS_PER_SEC)
            c->hi = (z.at - kEpochShiftSecs) * USECS_PER_SEC;
    }
    return true;
}

ZoneTransition zone_transition_after(pg_tz *tz, pg_time_t t)
{
    ZoneTransition z;
    int before_dst, after_dst;
    z.found = pg_next_dst_boundary(&t, &z.before, &before_dst, &z.at, &z.after, &after_dst, tz);
    return z;
}

bool tz_offset_bounds(pg_tz *tz, int64 lo, int64 hi, int64 *least, int64 *most)
{
    TzOffsetCache c{};
    c.tz = tz;
    if (tz == NULL || lo > hi || !tz_offset_refill(&c, lo))
        return false;
    int64 low = c.offset, high = c.offset;
    auto widen = [&](long gmtoff) {
        low = Min(low, static_cast<int64>(gmtoff) * USECS_PER_SEC);
        high = Max(high, static_cast<int64>(gmtoff) * USECS_PER_SEC);
    };
    pg_time_t t = floor_div(lo, USECS_PER_SEC) + kEpochShiftSecs;
    const pg_time_t last = floor_div(hi, USECS_PER_SEC) + kEpochShiftSecs;
    /* a zone changes its offset a few times a year; a range this bound never needs more */
    for (int i = 0; i < 1024; i++) {
        const ZoneTransition z = zone_transition_after(tz, t);
        if (z.found < 0)
            return false;
        widen(z.before);
        if (z.found == 0 || z.at > last) {
            *least = low;
            *most = high;
            return true;
        }
        widen(z.after);
        t = z.at; /* the next transition is strictly after it */
    }
    return false;
}

pg_tz *time_key_zone(Datum zone_text, bool *dynamic)
{
    /* as timestamptz_trunc_zone: the name cut to TZ_STRLEN_MAX, an abbreviation first */
    char name[TZ_STRLEN_MAX + 1];
    text_to_cstring_buffer(DatumGetTextPP(zone_text), name, sizeof name);
    char *lower = downcase_truncate_identifier(name, strlen(name), false);
    int type, offset = 0;
    pg_tz *tz = NULL;
#if PG_VERSION_NUM >= 160000
    DateTimeErrorExtra extra;
    if (DecodeTimezoneAbbrev(0, lower, &type, &offset, &tz, &extra) != 0)
        return NULL; /* PostgreSQL raises: a dynamic abbreviation whose zone is missing */
#else
    type = DecodeTimezoneAbbrev(0, lower, &offset, &tz);
#endif
    *dynamic = type == DYNTZ;
    if (type == TZ || type == DTZ)
        return pg_tzset_offset(-offset); /* a fixed offset, in POSIX's sign */
    if (type == DYNTZ)
        return tz;
    return pg_tzset(name);
}

void time_key_init(TimeKey *k, TimeKeyKind kind, bool with_tz, Datum unit_text, int unit, Datum zone_text)
{
    memset(k, 0, sizeof *k);
    k->hit_lo = 1; /* empty */
    k->hit_hi = 0;
    k->kind = kind;
    k->with_tz = with_tz;
    k->unit_text = unit_text;
    switch (unit) {
    case DTK_MICROSEC: k->unit_usec = 1; break;
    case DTK_MILLISEC: k->unit_usec = 1000; break;
    case DTK_SECOND: k->unit_usec = USECS_PER_SEC; break;
    case DTK_MINUTE: k->unit_usec = USECS_PER_MINUTE; break;
    case DTK_HOUR: k->unit_usec = USECS_PER_HOUR; break;
    default: k->unit_usec = 0; break;
    }
    k->zone_text = zone_text;
    k->tzc.tz = session_timezone;
    if (zone_text != 0) {
        bool dynamic;
        k->tzc.tz = time_key_zone(zone_text, &dynamic);
        k->zone_unknown = k->tzc.tz == NULL;
    }
    k->tzc.lo = k->tzc.hi = 0;
    if (kind == TimeKeyKind::bin) {
        k->bins = static_cast<BinInterval *>(palloc(sizeof(BinInterval) * kBinCacheSize));
        for (int i = 0; i < kBinCacheSize; i++)
            k->bins[i] = BinInterval{1, 0, 0}; /* empty */
    }
}

void time_key_set_local(TimeKey *k)
{
    k->local_time = true;
    bool dynamic = false;
    if (k->zone_text != 0 && !k->zone_unknown && time_key_zone(k->zone_text, &dynamic) != NULL && dynamic)
        k->zone_unknown = true; /* its offset is the abbreviation's own: PostgreSQL's, row by row */
}

void time_key_set_bin(TimeKey *k, bool null, Datum stride, int64 origin)
{
    k->bin_null = null;
    k->stride = stride;
    k->origin = origin;
    k->stride_usec = 0;
    if (!null) {
        const Interval *iv = DatumGetIntervalP(stride);
        __int128 usec = static_cast<__int128>(iv->day) * USECS_PER_DAY + iv->time;
        if (iv->month == 0 && usec > 0 && usec < PG_INT64_MAX / 4)
            k->stride_usec = static_cast<int64>(usec);
    }
    for (int i = 0; k->bins != NULL && i < kBinCacheSize; i++)
        k->bins[i] = BinInterval{1, 0, 0};
    k->hit_lo = 1;
    k->hit_hi = 0;
}

int64 time_key_compute(TimeKey *k, int64 ts)
{
    if (unlikely(ts < kSafeMin || ts >= kSafeMax || k->zone_unknown)) /* infinities included */
        return postgres_value(k, ts);
    if (k->kind == TimeKeyKind::bin)
        return bin_value(k, ts);

    int64 local = ts, offset = 0;
    int64 valid_lo = PG_INT64_MIN, valid_hi = PG_INT64_MAX; /* where offset holds */
    if (k->with_tz) {
        if (!local_time(&k->tzc, ts, &local, &offset))
            return postgres_value(k, ts);
        valid_lo = k->tzc.lo;
        valid_hi = k->tzc.hi;
    }
    /*
     * The local interval [start, start + length) that gives this key, back
     * in ts (where the offset holds): the next rows' test.
     */
    int64 length = k->kind == TimeKeyKind::trunc && k->unit_usec > 0 ? k->unit_usec : USECS_PER_DAY;
    int64 start = local - floor_mod(local, length);
    int64 result;
    if (k->kind == TimeKeyKind::to_date) {
        result = floor_div(local, USECS_PER_DAY);
    } else if (k->unit_usec > 0) {
        result = k->local_time ? start : start - offset;
    } else {
        /* from a day up the result depends on the local date alone */
        int64 day = start / USECS_PER_DAY;
        if (!k->have_day || day != k->day) {
            k->day_result = postgres_value(k, ts);
            k->day = day;
            k->have_day = true;
        }
        result = k->day_result;
    }
    remember(k, Max(start - offset, valid_lo), Min(start + length - offset, valid_hi), result);
    return result;
}

const int64 time_key_quiet_min = kSafeMin;
const int64 time_key_quiet_max = kSafeMax;

bool time_key_quiet(const TimeKey *k)
{
    if (k->zone_unknown)
        return false;
    /* date_bin's result lies within a stride of ts, and it subtracts the origin */
    return k->kind != TimeKeyKind::bin ||
           (k->stride_usec > 0 && k->stride_usec < kMargin && k->origin >= kSafeMin && k->origin < kSafeMax);
}

const char *time_key_describe(const TimeKey *k)
{
    const char *zone = k->zone_text == 0
                           ? (!k->with_tz     ? NULL
                              : k->local_time ? psprintf("local time, %s", pg_get_timezone_name(session_timezone))
                                              : pg_get_timezone_name(session_timezone))
                       : k->local_time ? psprintf("local time at %s", TextDatumGetCString(k->zone_text))
                                       : TextDatumGetCString(k->zone_text);
    StringInfoData s;
    initStringInfo(&s);
    switch (k->kind) {
    case TimeKeyKind::trunc: {
        char *unit = TextDatumGetCString(k->unit_text);
        appendStringInfo(&s, "date_trunc %s", unit);
        break;
    }
    case TimeKeyKind::bin: appendStringInfoString(&s, "date_bin"); break;
    case TimeKeyKind::to_date: appendStringInfoString(&s, "date"); break;
    }
    if (zone != NULL && k->kind != TimeKeyKind::bin)
        appendStringInfo(&s, ", %s", zone);
    return s.data;
}

int time_key_trunc_unit(const char *name)
{
    char *lower = downcase_truncate_identifier(name, strlen(name), false);
    int val;
    int type = DecodeUnits(0, lower, &val);
    if (type != UNITS)
        return -1;
    switch (val) {
    case DTK_MICROSEC:
    case DTK_MILLISEC:
    case DTK_SECOND:
    case DTK_MINUTE:
    case DTK_HOUR:
    case DTK_DAY:
    case DTK_WEEK:
    case DTK_MONTH:
    case DTK_QUARTER:
    case DTK_YEAR:
    case DTK_DECADE:
    case DTK_CENTURY:
    case DTK_MILLENNIUM:
        return val;
    }
    return -1;
}

} // namespace gpu_histogram
