/*
 * scan.h: the GpuHistogramScan custom scan, as the rest of the extension
 * sees it: one call that installs it.
 *
 * The scan replaces Aggregate -> Seq Scan for queries that compute only
 * gpu_histogram() over one heap table; it reads the heap pages itself and
 * feeds the column's values straight into the histogram states.  Planning
 * (plan/), execution (exec/) and heap access (heap/) each live in rooms of
 * their own; scan_node.h is what the first two share.
 */
#ifndef GH_SCAN_H
#define GH_SCAN_H

namespace gpu_histogram {

/* _PG_init: defines gpu_histogram.scan, installs the planner hook, registers the node. */
void gpu_histogram_scan_init(void);

} // namespace gpu_histogram

#endif /* GH_SCAN_H */
