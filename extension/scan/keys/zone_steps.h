/*
 * zone_steps.h: the steps of a monotone key that pass through a zone's
 * local time, and whether they keep order over a range of the column.
 *
 * Metabase's and Superset's weeks that start on Sunday,
 * date_trunc('week', ts + interval '1 day') - interval '1 day', add a day
 * in the local time of the session's zone and truncate there.  Such a
 * step is not monotone everywhere: a fall-back hour makes the local time
 * go back, and PostgreSQL turns a local time in a spring-forward gap into
 * an instant after the gap's end (DetermineTimeZoneOffset, "prefer the
 * before interpretation").  But between the zone's transitions each step
 * is the stored time moved by a constant, and only where a range crosses a
 * transition can it step back.  So a key table's interval (key_tables.h)
 * is accepted only where each such step keeps order over it, checked from
 * the step's own input at the interval's two ends (monotone_key.cpp):
 *   - into local time (ts::timestamp, ts::date, ts AT TIME ZONE zone, and
 *     the first half of each step below): no transition of the zone lies
 *     in the input's range;
 *   - out of local time (lts::timestamptz, d::timestamptz, lts AT TIME
 *     ZONE zone, the second half below): the local range is one instant,
 *     or crosses none of the local times where PostgreSQL's choice of
 *     offset changes: each transition's instant plus its offset before,
 *     plus its offset after, and plus a day (DetermineTimeZoneOffset looks
 *     for the first transition after the local time less a day);
 *   - ts + interval of days (timestamptz_pl_interval: into local time, the
 *     days added, out again) and date_trunc(unit, ts) in the session's
 *     zone (into local time, truncated, and from a day up out again);
 *   - a part of a unit, date_trunc('hour', ts) + interval '15 minutes' *
 *     floor(extract(minute FROM ts) / 15): the local times at the two ends
 *     lie in one unit (one hour), into local time for a timestamptz.  The
 *     part grows with the field inside a unit but may reach past the next
 *     unit's start (interval '15 minutes' * extract(minute FROM ts)), so
 *     order is argued only within one.
 * Those cut the table's intervals at the exact instants where an order
 * could break, so a transition costs a few more intervals, not rows sent to
 * the host.
 */
#ifndef GH_SCAN_ZONE_STEPS_H
#define GH_SCAN_ZONE_STEPS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/primnodes.h"
#include "pgtime.h"
}

namespace gpu_histogram {

enum class ZoneStepKind {
    to_local,   /* a timestamptz into local time (a timestamp or a date) */
    from_local, /* a timestamp or date's local time into a timestamptz */
    shift_days, /* a timestamptz plus days, in local time */
    trunc_local, /* date_trunc(unit, ts) of a timestamptz in the session's zone */
    same_unit    /* a part of a unit: both ends in one unit of the local time */
};

/* One such step of a key, as monotone_steps.cpp finds it. */
struct ZoneStep {
    ZoneStepKind kind;
    Expr *arg;       /* the step's input, an expression of the key's one column */
    Const *zone;     /* AT TIME ZONE's zone; NULL: the session's */
    int64 days;      /* shift_days: the days added (negative to subtract) */
    Const *unit;     /* trunc_local: date_trunc's unit */
    bool redo_zone;  /* trunc_local: from a day up the truncated local time goes back through the zone */
    bool from_date;  /* from_local: the input is a date (days), not a timestamp */
    int64 unit_usecs; /* same_unit: the unit's length in local time (a second, a minute, an hour, a day) */
    bool zoned_input; /* same_unit: the input is a timestamptz, whose fields are its local time's */
};

/*
 * Whether a zone named in a key is one whose local time these checks
 * follow: a zone name or a fixed offset, as PostgreSQL's AT TIME ZONE
 * resolves it; not an abbreviation that stands for a zone (its own
 * offsets), nor one no lookup finds.  *tz is its pg_tz.
 */
bool zone_step_zone(const Const *zone, pg_tz **tz);

/*
 * Whether step keeps order over inputs in [lo, hi] (lo <= hi, the step's
 * input at the two ends of a range of the column over which the steps
 * inside it keep order): a timestamp or timestamptz's microseconds, or a
 * date's days for from_local.  tz is the step's zone.
 */
bool zone_step_holds(const ZoneStep &step, pg_tz *tz, int64 lo, int64 hi);

} // namespace gpu_histogram

#endif /* GH_SCAN_ZONE_STEPS_H */
