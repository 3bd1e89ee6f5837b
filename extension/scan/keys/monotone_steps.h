/*
 * monotone_steps.h: whether a GROUP BY expression never decreases as its
 * one column grows, read step by step from its nodes.
 *
 * A key that is a non-decreasing function f of one column is constant
 * between any two values where PostgreSQL's own f agrees: for a < t < b,
 * f(a) <= f(t) <= f(b).  So the GPU can place such a key's rows through
 * a table of intervals of the stored column, each checked by evaluating the
 * whole expression at its two ends (monotone_key.cpp), as the time buckets'
 * tables are.  Grafana's $__timeGroup, floor(extract(epoch FROM ts)/60)*60,
 * is one; so are to_timestamp() around it, a shifted time, and the integer
 * steps of an epoch column; and, over ranges that cross no transition of
 * the zone, the steps through local time (zone_steps.h), such as the
 * weeks from Sunday of Metabase, date_trunc('week', ts + interval '1 day')
 * - interval '1 day'.
 *
 * Each step accepted here comes with its argument (monotone_steps.cpp):
 * why it does not decrease, and why it raises no error for any value of
 * the column a key table may cover, so that evaluating it at a table's
 * ends (which may be no row's values) cannot raise what the ordinary plan
 * would not.  Anything else is not such a key, and stays the executor's on
 * the host (expression_key.cpp).
 */
#ifndef GH_SCAN_MONOTONE_STEPS_H
#define GH_SCAN_MONOTONE_STEPS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

struct MonotoneShape {
    const Var *column; /* the one column the expression reads */
    /*
     * The numeric divisions in it (OpExpr nodes): numeric_div rounds to a
     * scale that depends on the dividend's magnitude, so the table checks
     * that one scale holds over its whole range (monotone_key.cpp).
     */
    List *divisions;
    /*
     * Whether a float8 key may be -0 (a ceil or trunc of a value above -1):
     * the ordinary plan shows a group of -0 and 0 as whichever came first,
     * so such a key keeps the ordinary plan; without one, float8 equality is
     * the bits' equality, and the group table can keep the key.
     */
    bool minus_zero;
    /*
     * Whether a step works in the session's zone: a date column's local
     * midnight (date_trunc('month', d) is date_trunc of d::timestamptz).
     * Midnights follow the dates only where a zone's offset never rises by
     * more than a day from one midnight to the next, and a POSIX zone's may
     * rise by days (sql/dashboards.sql has one).  So no order is assumed
     * of such a key: its table evaluates it at every day it covers
     * (monotone_key.cpp).  Only a date column's keys may have such a step.
     */
    bool zoned;
    /*
     * Of a timestamp, timestamptz or integer column: the steps through a
     * zone's local time (zone_steps.h, ZoneStep *), which keep order only
     * over ranges that cross none of the zone's transitions: the table's
     * intervals are checked for each (monotone_key.cpp).  NIL for a date
     * column, whose zoned steps are the every-day evaluation above.
     */
    List *zone_steps;
};

/*
 * Whether expr, over table relid (0: whichever its column's), is a
 * non-decreasing function of one timestamp, timestamptz, date or integer
 * column (zoned: a function of one date column; with zone_steps: where
 * they keep order), built only of the steps monotone_steps.cpp argues
 * for; fills *out (the lists in the current memory context).
 */
bool monotone_shape(const Expr *expr, Index relid, MonotoneShape *out);

} // namespace gpu_histogram

#endif /* GH_SCAN_MONOTONE_STEPS_H */
