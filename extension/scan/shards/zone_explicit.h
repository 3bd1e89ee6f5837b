/*
 * zone_explicit.h: the keys of the session's time zone, in forms a shard
 * computes the same way.
 *
 * postgres_fdw sends only immutable expressions, and runs the remote
 * session in UTC.  date_trunc('hour', ts) over a timestamptz is stable: it
 * reads the session's TimeZone.  Its zone-explicit form, date_trunc('hour',
 * ts, 'America/New_York'), is immutable and gives the same value, so that
 * is what the shard is sent (the coordinator's groups keep the query's own
 * expression).
 */
#ifndef GH_SCAN_SHARDS_ZONE_EXPLICIT_H
#define GH_SCAN_SHARDS_ZONE_EXPLICIT_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

/*
 * expr with each function of the session's zone replaced by a
 * zone-explicit form that gives the same value: date_trunc of a
 * timestamptz by a constant unit, extract and date_part of one (epoch in
 * UTC, other fields in the zone; not the zone's own offset), and its casts
 * to date and timestamp.  Functions that read their text arguments as
 * names (date_trunc, extract, AT TIME ZONE) lose their input collation,
 * which they never use and postgres_fdw would refuse.  The session's zone is named only where the shards read its
 * name the same way: an Area/City name or UTC, never an abbreviation or a
 * POSIX rule, which timezone_abbreviations may read otherwise.  What has
 * no such form is left as it is (postgres_fdw then keeps it local).
 */
Expr *zone_explicit(Expr *expr);

/*
 * The other end: on the shard, the expression zone_explicit() made of a
 * date_trunc or an epoch, back as the function it stands for
 * (date_trunc(unit, ts, zone), extract(epoch FROM ts)), which the scan's
 * time keys compute on the GPU's pages; anything else as it is.  Matched
 * node by node, so only what zone_explicit() builds is taken.
 */
Expr *zone_explicit_recognise(Expr *expr);

} // namespace gpu_histogram

#endif /* GH_SCAN_SHARDS_ZONE_EXPLICIT_H */
