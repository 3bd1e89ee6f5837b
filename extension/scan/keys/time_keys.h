/*
 * time_keys.h: the time-bucket GROUP BY keys of dashboards, computed per row
 * exactly as PostgreSQL computes them, at a fraction of the cost.
 *
 *   date_trunc(unit, ts)        timestamp and timestamptz (the session's TimeZone)
 *   date_trunc(unit, ts, zone)  timestamptz, in a constant zone named in the query
 *   date_trunc(unit, ts AT TIME ZONE zone), (ts AT TIME ZONE zone)::date
 *                               timestamptz, the local time in a constant zone
 *                               (or, for ts::timestamp, in the session's)
 *   date_bin(stride, ts, origin) timestamp and timestamptz
 *   ts::date                    timestamp and timestamptz
 *
 * PostgreSQL's own functions are the reference, and they stay the fallback
 * for anything the fast paths cannot prove they compute identically:
 *   - A timestamptz's local time is ts plus the zone's UTC offset.  The
 *     offset is constant between the zone's transitions, so it is looked up
 *     once per interval (timestamp2tm, as date_trunc itself does) and cached
 *     with the interval [second of ts, next transition), which
 *     pg_next_dst_boundary() gives: the same table DetermineTimeZoneOffset
 *     reads.  A zone with leap seconds fails the check made at each lookup
 *     (local fields != ts + offset) and every row takes PostgreSQL's path.
 *   - date_trunc below a day is arithmetic on the local time: PostgreSQL
 *     zeroes the lower fields and converts back with the same offset.  From
 *     a day up, the result depends on the local date alone, so it is
 *     PostgreSQL's function once per local date, cached.
 *   - date_bin is monotonic in ts, so when PostgreSQL's function gives the
 *     same bin at both ends of an interval, the whole interval has it.  Each
 *     bin's interval is verified that way once and kept in a small cache.
 *   - ::date is the local date: floor(local / day).
 *   - date_trunc with a zone is the same function (timestamptz_trunc_internal)
 *     with the zone's pg_tz in place of the session's: time_key_zone()
 *     finds it as PostgreSQL's function does, an abbreviation first (a
 *     fixed offset, or the zone it stands for), then a zone name.
 *   - ts AT TIME ZONE zone is that same local time, ts plus the zone's offset
 *     (timestamptz_zone: timestamp2tm and back for a zone name, the fixed
 *     offset of an abbreviation); date_trunc and ::date of it are the
 *     computations above without the conversion back.  An abbreviation
 *     that stands for a zone resolves its offset its own way
 *     (DetermineTimeZoneAbbrevOffsetTS): every row of it is PostgreSQL's.
 * Infinities, values near the ends of the timestamp range and NULL
 * parameters go to PostgreSQL's functions, which raise their own errors;
 * so does every row of a zone no lookup finds ("time zone not recognized").
 */
#ifndef GH_SCAN_TIME_KEYS_H
#define GH_SCAN_TIME_KEYS_H

#include "../../pg_headers.h"

extern "C" {
#include "pgtime.h"
}

namespace gpu_histogram {

enum class TimeKeyKind { trunc, bin, to_date };

/* The zone's UTC offset over [lo, hi), in microseconds. */
struct TzOffsetCache {
    pg_tz *tz;
    bool usable;   /* false for a zone with leap seconds: always PostgreSQL's path */
    int64 lo;
    int64 hi;      /* lo == hi: empty */
    int64 offset;  /* local = ts + offset */
};

/*
 * Refills the cache around ts: the zone's offset at ts (timestamp2tm, what
 * date_trunc and ::date use), valid from ts's second up to the zone's next
 * transition.  False if ts has no offset PostgreSQL would use there.
 */
bool tz_offset_refill(TzOffsetCache *c, int64 ts);

/* The zone's first transition after second t: pg_next_dst_boundary's answer, read once. */
struct ZoneTransition {
    int found;    /* 1: one follows; 0: none does (before is the offset from t on); -1: failure */
    long before;  /* the UTC offset before it, in seconds */
    long after;   /* ... and after it */
    pg_time_t at; /* its second */
};
ZoneTransition zone_transition_after(pg_tz *tz, pg_time_t t);

/*
 * The least and the most of the zone's UTC offsets over [lo, hi], in
 * microseconds: the offset at lo and each transition's before and after
 * up to hi (pg_next_dst_boundary, the table date_trunc and ::date read).
 * False for a zone whose local fields are not ts plus an offset (leap
 * seconds), or with more transitions there than are worth walking.
 */
bool tz_offset_bounds(pg_tz *tz, int64 lo, int64 hi, int64 *least, int64 *most);

/* One verified date_bin interval: every ts in [lo, hi] bins to result. */
struct BinInterval {
    int64 lo;
    int64 hi;
    int64 result;
};
constexpr int kBinCacheSize = 256;

struct TimeKey {
    /* the last key's interval of ts: every ts in [hit_lo, hit_hi) has key hit_result */
    int64 hit_lo;
    int64 hit_hi;
    int64 hit_result;
    TimeKeyKind kind;
    bool with_tz;          /* the column is timestamptz */
    int64 unit_usec;       /* date_trunc below a day: the unit's length; else 0 */
    Datum unit_text;       /* date_trunc's first argument, for PostgreSQL's function */
    Datum zone_text;       /* date_trunc's zone (a text Datum), or 0 for the session's */
    bool zone_unknown;     /* a zone only PostgreSQL's functions resolve (not found; local time at an
                              abbreviation that stands for a zone): every row is theirs */
    bool local_time;       /* the key is of ts AT TIME ZONE zone: a timestamp, not converted back */
    /* date_bin's stride and origin, set by time_key_set_bin() */
    bool bin_null;         /* a NULL stride or origin: every key is NULL */
    Datum stride;          /* Interval * */
    int64 origin;
    int64 stride_usec;     /* slot selection only: 0 if not a plain positive length */
    TzOffsetCache tzc;
    bool have_day;         /* date_trunc from a day up: the last local date and its result */
    int64 day;
    int64 day_result;
    BinInterval *bins;     /* kBinCacheSize entries, palloc'd */
};

/*
 * Sets up a key of `kind` over a timestamp (with_tz false) or timestamptz
 * column; unit_text is date_trunc's unit (a text Datum, kept by the caller),
 * unit the DTK_ code DecodeUnits gave it, zone_text date_trunc's zone (a text
 * Datum) or 0 for the session's.  Allocates in the current context.
 */
void time_key_init(TimeKey *k, TimeKeyKind kind, bool with_tz, Datum unit_text, int unit, Datum zone_text);

/* Makes k (a timestamptz key) a key of ts AT TIME ZONE its zone, or of ts::timestamp; after time_key_init. */
void time_key_set_local(TimeKey *k);

/*
 * The zone date_trunc(unit, ts, zone) would use for zone (a text Datum),
 * under the session's timezone_abbreviations; NULL where PostgreSQL would
 * raise "time zone not recognized" instead.  *dynamic says whether it is
 * an abbreviation that stands for a zone.
 */
pg_tz *time_key_zone(Datum zone_text, bool *dynamic);

/* date_bin's stride (an Interval Datum) and origin, or NULL ones; before the first row. */
void time_key_set_bin(TimeKey *k, bool null, Datum stride, int64 origin);

/* Whether every key is NULL (date_bin with a NULL stride or origin). */
static inline bool time_key_always_null(const TimeKey *k)
{
    return k->kind == TimeKeyKind::bin && k->bin_null;
}

/*
 * The key of ts: a timestamp, a timestamptz, or for to_date a date in the
 * low 32 bits.  May call PostgreSQL's function, which may raise its error.
 */
int64 time_key_compute(TimeKey *k, int64 ts);

static inline int64 time_key_value(TimeKey *k, int64 ts)
{
    if (likely(ts >= k->hit_lo && ts < k->hit_hi))
        return k->hit_result; /* time-ordered rows: most rows */
    return time_key_compute(k, ts);
}

/*
 * Whether the key of a finite ts in [time_key_quiet_min, _max) never
 * raises: not for a zone only PostgreSQL resolves, nor for a date_bin whose
 * stride or origin the fast path does not take.  Then the key is computed
 * there without PostgreSQL's functions, or with them far inside the range;
 * a scan need not compute such rows' keys in their order (group_keys.h).
 */
bool time_key_quiet(const TimeKey *k);
extern const int64 time_key_quiet_min;
extern const int64 time_key_quiet_max;

/* "hour", "15 mins from 2026-01-01 00:00:00", ... and the zone: for EXPLAIN. */
const char *time_key_describe(const TimeKey *k);

/*
 * date_trunc's units that the scan computes: the DTK_ code of a unit name
 * (DecodeUnits), or -1 for one it leaves to the ordinary plan.
 */
int time_key_trunc_unit(const char *name);

} // namespace gpu_histogram

#endif /* GH_SCAN_TIME_KEYS_H */
