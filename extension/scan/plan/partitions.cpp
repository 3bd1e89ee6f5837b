/*
 * partitions.cpp: GpuHistogramScan over a partitioned table or an
 * inheritance tree.
 *
 * After partition pruning, the planner has a RelOptInfo per remaining leaf,
 * with the query's WHERE clause already in the leaf's own Vars.  The scan
 * reads each leaf as a partial aggregation (as under a Gather: the GROUP BY
 * keys and serialized states), an Append puts the leaves' rows together,
 * and a Finalize Aggregate combines them with the aggregates' own combine
 * functions, grouping by the keys when there are any: the plan PostgreSQL's
 * partitionwise aggregation builds, with the scan in place of each leaf's
 * Partial Aggregate over a Seq Scan.  Every leaf must take the scan (a heap
 * table whose columns fit) or be a foreign table whose server computes its
 * share (shards/shard_states.h: one path for all of them, beside the local
 * leaves under the Append); otherwise the query keeps the ordinary plan.
 *
 * When the leaves may be read in parallel, a second plan puts a Gather over
 * a Parallel Append of parallel-aware scans: the workers spread over the
 * leaves and share the blocks of a large one, as PostgreSQL's own parallel
 * partitionwise aggregation does; the planner keeps the cheaper plan.
 * Partitions pruned at run time are still read: the scan does not yet
 * prune with a Param.
 */
#include "plan_paths.h"
#include "group_estimate.h"
#include "../shards/shard_states.h"

extern "C" {
#include "optimizer/appendinfo.h"
#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "catalog/pg_class.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

struct Leaf {
    RelOptInfo *rel;
    PathTarget *target; /* the partial target in the leaf's Vars */
    Candidate c;
};

/* A number for one Append's leaves, unique among this backend's plans (scan_node.h's leaf_group). */
uint32 new_leaf_group()
{
    static uint32 last = 0;
    if (++last == 0)
        last = 1;
    return last;
}

/* The expressions of the query's top parent, in leaf's Vars. */
template <typename T> T *in_leaf(PlannerInfo *root, T *node, RelOptInfo *leaf, RelOptInfo *top)
{
    return reinterpret_cast<T *>(
        GH_ADJUST_APPENDREL_MULTILEVEL(root, reinterpret_cast<Node *>(node), leaf, top));
}

/*
 * Adds the live leaves under parent (an RT index) to *leaves, descending
 * into sub-partitioned children; false if one of them cannot take the scan.
 */
bool collect_leaves(PlannerInfo *root, RelOptInfo *top, Index parent, const QueryShape &shape, PathTarget *partial,
                    List **leaves, List **foreign)
{
    ListCell *lc;
    foreach (lc, root->append_rel_list) {
        AppendRelInfo *appinfo = lfirst_node(AppendRelInfo, lc);
        if (appinfo->parent_relid != parent)
            continue;
        RelOptInfo *child = root->simple_rel_array[appinfo->child_relid];
        if (child == NULL || IS_DUMMY_REL(child))
            continue; /* pruned, or excluded by its constraints */
        if (planner_rt_fetch(appinfo->child_relid, root)->inh) {
            if (!collect_leaves(root, top, appinfo->child_relid, shape, partial, leaves, foreign))
                return false;
            continue;
        }
        if (planner_rt_fetch(appinfo->child_relid, root)->relkind == RELKIND_FOREIGN_TABLE) {
            *foreign = lappend(*foreign, child); /* its server computes its aggregates (shard_states.h) */
            continue;
        }
        Leaf *leaf = static_cast<Leaf *>(palloc0(sizeof(Leaf)));
        leaf->rel = child;
        if (!rel_fits(root, child, in_leaf(root, shape.keys, child, top), in_leaf(root, shape.aggrefs, child, top),
                      &leaf->c))
            return false;
        if (leaf->c.no_partial_states)
            return scan_declined(root, "sum or avg of a bigint column over partitions (their partial states are "
                                 "PostgreSQL's internal ones)");
        leaf->target = copy_pathtarget(partial);
        leaf->target->exprs = in_leaf(root, partial->exprs, child, top);
        *leaves = lappend(*leaves, leaf);
    }
    return true;
}

/*
 * Finalize Aggregate -> Gather -> Parallel Append -> a parallel-aware scan
 * per leaf, if every leaf can be scanned in parallel; the workers as
 * add_paths_to_append_rel() counts them.
 */
void add_parallel_partition_path(PlannerInfo *root, RelOptInfo *parent, RelOptInfo *grouped_rel,
                                 const QueryShape &shape, PathTarget *partial, List *leaves, double groups)
{
    if (!parent->consider_parallel || !grouped_rel->consider_parallel || !enable_parallel_append ||
        max_parallel_workers_per_gather <= 0)
        return;
    List *subpaths = NIL;
    int workers = 0;
    ListCell *lc;
    foreach (lc, leaves) {
        Leaf *leaf = static_cast<Leaf *>(lfirst(lc));
        if (!leaf->rel->consider_parallel || !leaf->c.parallel_safe_args || leaf->rel->partial_pathlist == NIL)
            return;
        /* a small leaf still gets one process: a partial path of one worker's share */
        int leaf_workers =
            Max(1, compute_parallel_worker(leaf->rel, leaf->rel->pages, -1, max_parallel_workers_per_gather));
        workers = Max(workers, leaf_workers);
        RelOptInfo *leaf_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, leaf->rel->relids);
        subpaths = lappend(subpaths, make_scan_path(root, leaf->rel, leaf_rel, leaf->target, leaf->c, leaf_workers));
    }
    workers = Max(workers, pg_leftmost_one_pos32(list_length(leaves)) + 1);
    workers = Min(workers, max_parallel_workers_per_gather);
    RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, parent->relids);
    partial_rel->consider_parallel = true; /* the Append is parallel safe: every leaf's scan is */
    AppendPath *append = create_append_path(root, partial_rel, NIL, subpaths, NIL, NULL, workers, true, groups);
    append->path.pathtarget = partial;
    double rows = append->path.rows * workers;
    Path *gather = &create_gather_path(root, partial_rel, &append->path, partial, NULL, &rows)->path;
    bool grouped = shape.keys != NIL;
    add_path(grouped_rel, finalize_path(root, grouped_rel, gather, grouped, grouped ? groups : 1,
                                        static_cast<Leaf *>(linitial(leaves))->c));
}

double leaf_groups(PlannerInfo *root, RelOptInfo *leaf, List *keys)
{
    return estimate_scan_groups(root, leaf->relid, keys, leaf->rows);
}

} // namespace

void add_partition_paths(PlannerInfo *root, RelOptInfo *parent, RelOptInfo *grouped_rel, const QueryShape &shape)
{
    PathTarget *partial = partial_target(root, grouped_rel->reltarget);
    List *leaves = NIL, *foreign = NIL;
    if (!collect_leaves(root, parent, parent->relid, shape, partial, &leaves, &foreign) ||
        (leaves == NIL && foreign == NIL))
        return;
    /*
     * Where the ordinary plan sorts every leaf's rows before its
     * aggregates, each leaf holds its values' errors back until its keys
     * are computed, as a table's scan does (ordinary_order.cpp), and
     * serially until every leaf's are (leaf_errors.h).  A float sum's
     * groups go out from the Append's last leaf, each merged once
     * (leaf_merge.h); so does the one group without keys of a lone leaf,
     * whose processes would each send theirs (with keys, a lone leaf's
     * processes merge their groups themselves).  Both need the leaves to
     * know their Append.
     */
    const bool errors_after_keys = shape.keys != NIL && ordinary_plan_sorts_first(root, grouped_rel);
    bool exact_sums = false;
    ListCell *lc;
    foreach (lc, leaves)
        exact_sums |= static_cast<Leaf *>(lfirst(lc))->c.exact_sums;
    const bool several = list_length(leaves) > 1;
    const uint32 leaf_group =
        (errors_after_keys && several) || (exact_sums && (several || shape.keys == NIL)) ? new_leaf_group() : 0;
    foreach (lc, leaves) {
        static_cast<Leaf *>(lfirst(lc))->c.errors_after_keys = errors_after_keys;
        static_cast<Leaf *>(lfirst(lc))->c.leaf_group = leaf_group;
    }
    List *subpaths = NIL;
    double groups = 0;
    Candidate sizes{}; /* what the Finalize Aggregate's memory is estimated by */
    if (foreign != NIL) {
        ShardPlan shards = shard_states_path(root, parent, foreign, grouped_rel->reltarget, partial, leaf_groups);
        if (shards.path == NULL) {
            scan_declined(root, "%s", shards.refused);
            return;
        }
        subpaths = lappend(subpaths, shards.path);
        groups += shards.groups;
        sizes.ncells = shards.ncells;
        sizes.nhist = list_length(shape.aggrefs);
    }
    foreach (lc, leaves) {
        Leaf *leaf = static_cast<Leaf *>(lfirst(lc));
        RelOptInfo *leaf_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, leaf->rel->relids);
        subpaths = lappend(subpaths, make_scan_path(root, leaf->rel, leaf_rel, leaf->target, leaf->c, 0));
        groups += leaf->c.groups;
        sizes = leaf->c;
    }
    bool grouped = shape.keys != NIL;
    /* the Append also stands for the parent's Vars, in which the leaves' partial targets come out */
    RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, parent->relids);
    AppendPath *append = create_append_path(root, partial_rel, subpaths, NIL, NIL, NULL, 0, false, groups);
    append->path.pathtarget = partial;
    add_path(grouped_rel, finalize_path(root, grouped_rel, &append->path, grouped, grouped ? groups : 1, sizes));
    if (foreign == NIL)
        add_parallel_partition_path(root, parent, grouped_rel, shape, partial, leaves, groups);
}

} // namespace gpu_histogram
