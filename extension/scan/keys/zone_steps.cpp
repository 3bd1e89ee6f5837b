/*
 * zone_steps.cpp: whether a step through a zone's local time keeps order
 * over a range of its input (zone_steps.h).
 */
#include "zone_steps.h"

#include "time_keys.h"

extern "C" {
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

/* Seconds from 1970-01-01, pg_time_t's origin, to 2000-01-01, the stored times'. */
constexpr int64 kEpochShiftSecs = static_cast<int64>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
/*
 * How far from a local time a transition can move PostgreSQL's choice of
 * offset for it: the offsets themselves (a POSIX zone's up to 167 hours,
 * localtime.c's getsecs) and the day DetermineTimeZoneOffset looks back.
 */
constexpr int64 kReachSecs = 8 * SECS_PER_DAY;
/* More transitions than this in one range is not worth following: the range is refused. */
constexpr int kMaxTransitions = 4096;

int64 floor_div(int64 a, int64 b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/*
 * Into local time over stored times [lo, hi]: no transition after lo's
 * second and at or before hi, so that every time's local time is the time
 * plus *offset (timestamp2tm reads the offset of the time's second).
 */
bool into_local(pg_tz *tz, int64 lo, int64 hi, int64 *offset)
{
    TzOffsetCache c{};
    c.tz = tz;
    if (!tz_offset_refill(&c, lo))
        return false; /* local fields that are not the time plus an offset (leap seconds), or the range's ends */
    *offset = c.offset;
    return hi < c.hi;
}

/*
 * Out of local time over local times [lo, hi]: PostgreSQL's offset is one
 * (DetermineTimeZoneOffset, in whole seconds: the local second compared
 * with the first transition after it less a day, the transition's offset
 * before and after).  Its choice changes only where the local second
 * reaches a transition plus its offset before, plus its offset after, or
 * plus a day: none of those may lie in (lo's second, hi's second].
 */
bool out_of_local(pg_tz *tz, int64 lo, int64 hi)
{
    const int64 first = floor_div(lo, USECS_PER_SEC) + kEpochShiftSecs;
    const int64 last = floor_div(hi, USECS_PER_SEC) + kEpochShiftSecs;
    if (first == last)
        return true;
    pg_time_t t = first - kReachSecs;
    for (int i = 0; i < kMaxTransitions; i++) {
        const ZoneTransition z = zone_transition_after(tz, t);
        if (z.found < 0)
            return false;
        if (z.found == 0)
            return true; /* no transition after t: one offset from here on */
        const int64 edges[3] = {z.at + z.before, z.at + z.after, z.at + SECS_PER_DAY};
        for (int64 e : edges)
            if (first < e && e <= last)
                return false;
        if (z.at > last + kReachSecs)
            return true;
        t = z.at;
    }
    return false;
}

} // namespace

bool zone_step_zone(const Const *zone, pg_tz **tz)
{
    if (zone == NULL) {
        *tz = session_timezone;
        return true;
    }
    if (zone->constisnull || zone->consttype != TEXTOID)
        return false;
    bool dynamic = false;
    *tz = time_key_zone(zone->constvalue, &dynamic);
    return *tz != NULL && !dynamic;
}

bool zone_step_holds(const ZoneStep &step, pg_tz *tz, int64 lo, int64 hi)
{
    if (lo > hi)
        return false;
    int64 offset;
    switch (step.kind) {
    case ZoneStepKind::to_local: return into_local(tz, lo, hi, &offset);
    case ZoneStepKind::from_local: {
        const int64 scale = step.from_date ? USECS_PER_DAY : 1;
        return out_of_local(tz, lo * scale, hi * scale);
    }
    case ZoneStepKind::shift_days: {
        /* timestamptz_pl_interval: the local time's date moved by the days, back through the zone */
        if (!into_local(tz, lo, hi, &offset))
            return false;
        const int64 moved = step.days * USECS_PER_DAY + offset;
        return out_of_local(tz, lo + moved, hi + moved);
    }
    case ZoneStepKind::trunc_local: {
        if (!into_local(tz, lo, hi, &offset))
            return false;
        if (!step.redo_zone)
            return true; /* below a day the local time less its part below the unit, at the time's own offset */
        /* timestamptz_trunc_internal: the local time truncated, back through the zone */
        const Datum a = DirectFunctionCall2(timestamp_trunc, step.unit->constvalue, TimestampGetDatum(lo + offset));
        const Datum b = DirectFunctionCall2(timestamp_trunc, step.unit->constvalue, TimestampGetDatum(hi + offset));
        return out_of_local(tz, DatumGetTimestamp(a), DatumGetTimestamp(b));
    }
    case ZoneStepKind::same_unit:
        /* a timestamp's fields are its own; local time's units start at multiples of their length */
        offset = 0;
        if (step.zoned_input && !into_local(tz, lo, hi, &offset))
            return false;
        return floor_div(lo + offset, step.unit_usecs) == floor_div(hi + offset, step.unit_usecs);
    }
    return false;
}

} // namespace gpu_histogram
