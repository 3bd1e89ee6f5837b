/*
 * leaf_merge.h: the float sums of a partitioned table's leaves, each
 * group merged once across all of them.
 *
 * A leaf's scan emits partial states, and the Finalize Aggregate above
 * the Append adds a group's float sums from each leaf (float8_combine),
 * each rounded: a group in three leaves is rounded three times, and with
 * workers the sums arrive in whatever order the processes finish, so the
 * last bits changed from run to run.  The scan computes such sums exactly
 * (table/value_aggs.h), so instead each leaf leaves its groups (their
 * exact accumulators) for the Append's last leaf, which merges every
 * leaf's groups and emits each group once, rounded once; the others emit
 * no row.  The Finalize then combines one partial state per group.  A
 * lone leaf without keys does the same across its workers, each of which
 * would otherwise send its own row.
 *
 * Serially the groups wait in this process's own area and files; the
 * leaves run one after another, and the one that ends when every other
 * registered leaf has is the last.  With workers they wait in the query's
 * area and shared files, in the space of the Append's first leaf (the
 * lowest plan node id, which every process finds alike); a leaf is done
 * when every process that joined it has left its groups
 * (merge/shared_groups.h), and the process that completes the last leaf
 * to be done merges and emits all the groups.  No process waits for
 * another: a Parallel Append process leaves a leaf when its node returns
 * no row, and moves on.
 */
#ifndef GH_SCAN_LEAF_MERGE_H
#define GH_SCAN_LEAF_MERGE_H

#include "grouped_state.h"

extern "C" {
#include "port/atomics.h"
}

namespace gpu_histogram {

/* In each grouped leaf's DSM space: the Append's groups, used in its first leaf's. */
struct LeafMergeShared {
    SharedGroups groups;
    pg_atomic_uint32 leaves_done;
};

void leaf_merge_shared_init(LeafMergeShared *shared, dsm_segment *seg);

/* A rescan of the parallel plan (before workers start again): what the last execution left goes. */
void leaf_merge_shared_reset(LeafMergeShared *shared, dsa_area *area);

/* At the scan's begin: g is a leaf of the Append numbered group whose groups merge in its last leaf. */
void leaf_merge_join(GroupedRows *g, EState *estate, uint32 group);

/* With a parallel context, each leaf in each process: the Append's merge is in its first leaf's space. */
void leaf_merge_attach(GroupedRows *g, LeafMergeShared *space);

/*
 * Before the leaf's first block: the Append's groups, where its own go.
 * Serially, the first leaf of a round (a rescan's) empties them first.
 */
SharedGroups *leaf_merge_start(GroupedRows *g);

/* The area the Append's groups are left in (a serial merge's own, made when first needed). */
dsa_area *leaf_merge_area(GroupedRows *g);

/*
 * The leaf's input ended and this process left its groups (leaf_sg: the
 * leaf's own processes, or NULL without a parallel context): true if every
 * leaf is now done and this process merges and emits every group.
 */
bool leaf_merge_leaf_done(GroupedRows *g, SharedGroups *leaf_sg);

/* A rescan: the leaf starts a new round; the first leaf to start it empties the groups. */
void leaf_merge_rescan(GroupedRows *g);

/* ExecEnd: the last leaf gives back a serial merge's area. */
void leaf_merge_end(GroupedRows *g);

} // namespace gpu_histogram

#endif /* GH_SCAN_LEAF_MERGE_H */
