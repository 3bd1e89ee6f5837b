/*
 * group_estimate.h: how many groups the scan's GROUP BY keys make, for the
 * planner's memory bound and costs.
 *
 * PostgreSQL estimates the groups of an expression from its column's
 * distinct values: date_trunc('hour', ts) over a column of unique
 * timestamps counts as one group per row, and width_bucket(y, 0, 1, 10) as
 * one per distinct y.  Both are bounded far lower by what the functions do:
 * a time bucket's groups by the column's span (from its statistics
 * histogram) over the bucket's length, a width_bucket's by its n + 2
 * buckets.  The estimate is PostgreSQL's, lowered by those bounds.
 */
#ifndef GH_SCAN_GROUP_ESTIMATE_H
#define GH_SCAN_GROUP_ESTIMATE_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* The groups of GROUP BY keys (their expressions) over input_rows rows of table relid. */
double estimate_scan_groups(PlannerInfo *root, Index relid, List *keys, double input_rows);

/*
 * Whether the rows come in the order of one of the keys' columns (its
 * statistics' correlation at least 0.9 either way): then a key's rows lie
 * together, and a grouped scan that outgrows its memory and emits its
 * groups emits each about once (a time-ordered table grouped by hour).
 */
bool keys_follow_physical_order(PlannerInfo *root, Index relid, List *keys);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_ESTIMATE_H */
