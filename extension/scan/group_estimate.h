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

#include "../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

/* The groups of GROUP BY keys (their expressions) over input_rows rows of table relid. */
double estimate_scan_groups(PlannerInfo *root, Index relid, List *keys, double input_rows);

#endif /* GH_SCAN_GROUP_ESTIMATE_H */
