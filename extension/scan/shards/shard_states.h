/*
 * shard_states.h: a partitioned table's postgres_fdw partitions, each
 * computing the query's aggregates on its own server.
 *
 * PostgreSQL pushes an aggregate down to a foreign partition only when the
 * whole aggregate can run there (GROUP BY the partition key); a time bucket
 * never is one, so every row of every shard used to cross the network.  But
 * a shard's finished gpu_histogram() is a bigint[] of counts and its count()
 * a bigint, and both are as mergeable as the partial states PostgreSQL's
 * partial aggregation would have asked for.  So each foreign leaf gets the
 * whole grouped aggregate, through its own FDW's GetForeignUpperPaths (the
 * path postgres_fdw builds for partitionwise aggregation), the foreign scans
 * go under one Append (asynchronous where the servers are async_capable),
 * and a thin node above it, GpuHistogramShards, turns each row into the
 * partial states the query's Finalize Aggregate combines.
 *
 * This is the room's one door: the planner of partitioned tables
 * (plan/partitions.cpp) asks it for that path, and _PG_init registers the
 * node.
 */
#ifndef GH_SCAN_SHARDS_SHARD_STATES_H
#define GH_SCAN_SHARDS_SHARD_STATES_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* What shard_states_path found, beside the path. */
struct ShardPlan {
    Path *path;          /* GpuHistogramShards over the Append of the leaves' foreign aggregates */
    double groups;       /* the rows the shards are expected to send, all told */
    int ncells;          /* estimated counters per group, for the Finalize Aggregate's memory */
    const char *refused; /* when path is NULL: why, for the scan's DEBUG1 line */
};

/*
 * The groups that keys (in leaf's Vars) make over the leaf's rows: the
 * planner's own estimate, which knows what a time bucket does to a
 * column's distinct values, where the FDW's (estimate_num_groups()) does
 * not.
 */
typedef double (*LeafGroups)(PlannerInfo *root, RelOptInfo *leaf, List *keys);

/*
 * The path that emits `partial` (the query's GROUP BY keys and its
 * aggregates' partial states, in top's Vars) for the foreign leaves
 * `leaves` (a list of RelOptInfo) of partitioned table top, each leaf's
 * whole aggregate computed on its server.  grouped is the query's grouping
 * target.  Each shard's groups are costed as leaf_groups estimates them.
 * Refused (path NULL) unless every leaf's FDW pushes the whole
 * aggregate down and every aggregate's result is a state its combine
 * function takes.
 */
ShardPlan shard_states_path(PlannerInfo *root, RelOptInfo *top, List *leaves, PathTarget *grouped,
                            PathTarget *partial, LeafGroups leaf_groups);

/* Registers the GpuHistogramShards node (_PG_init). */
void shard_states_init(void);

} // namespace gpu_histogram

#endif /* GH_SCAN_SHARDS_SHARD_STATES_H */
