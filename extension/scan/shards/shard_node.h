/*
 * shard_node.h: what the GpuHistogramShards node's planner (shard_plan.cpp)
 * hands its executor (shard_exec.cpp) in the plan.
 *
 * custom_private holds one Integer per column of the node's scan tuple,
 * which is the partial target: a ShardColumn.  custom_exprs holds the fixed
 * arguments of each histogram column in order: lo, hi and nbins, or the
 * thresholds alone.  custom_plans holds the Append of the foreign scans,
 * whose rows have the same columns, each whole.
 */
#ifndef GH_SCAN_SHARDS_SHARD_NODE_H
#define GH_SCAN_SHARDS_SHARD_NODE_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/extensible.h"
}

#define GH_SHARDS_NODE_NAME "GpuHistogramShards"

namespace gpu_histogram {

/*
 * How a shard's column becomes the partial state's: a GROUP BY key, or an
 * aggregate whose result is its own state (count), goes as it is; a
 * gpu_histogram's bigint[] becomes its serialized state, of its form.
 */
enum class ShardColumn : int { as_is = 0, interval = 1, time = 2, date = 3, thresholds = 4 };

extern const CustomScanMethods gh_shards_plan_methods;

} // namespace gpu_histogram

#endif /* GH_SCAN_SHARDS_SHARD_NODE_H */
