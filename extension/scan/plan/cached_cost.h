/*
 * cached_cost.h: what the planner knows of the GPUs' page cache.
 *
 * A scan whose pages the GPU reads from its own memory costs the host
 * almost nothing a page: over the 636,943 cached pages of 100M rows a
 * serial scan took 4.4 ms on the H200 host, where 8 workers took 10 ms
 * just to start.  Costed as a sequential scan's pages and rows, the plan
 * gets those 8 workers.  Whether a table is in the cache, only the scans
 * that read it know: each notes, at its end, the share of its pages the
 * GPU read from the cache, under the table's file and the scan's shape
 * (the GPU takes some shapes' pages and not others'), and the planner
 * costs the next scan of that shape by it.
 */
#ifndef GH_SCAN_CACHED_COST_H
#define GH_SCAN_CACHED_COST_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/*
 * The shape of a scan: its GROUP BY keys, its WHERE clause and its
 * aggregates' arguments as expressions over the table's columns,
 * whatever their constants, which change from one dashboard refresh to
 * the next while the GPU takes the same pages.
 */
uint32 scan_shape(List *keys, List *quals, List *target_exprs);

/*
 * The share of rel's pages (0 to 1) that a scan of this shape is expected
 * to find in the GPUs' page cache: what the last such scan found, where
 * the GPU may take part and probes are on (without probes the host pins
 * every page, and 8 workers pin faster than one); else 0.
 */
double scan_cached_share(PlannerInfo *root, RelOptInfo *rel, uint32 shape);

} // namespace gpu_histogram

#endif /* GH_SCAN_CACHED_COST_H */
