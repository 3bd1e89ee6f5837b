/*
 * plan.cpp: when GpuHistogramScan replaces Aggregate -> Seq Scan, and in
 * which of its forms.
 *
 * A create_upper_paths_hook offers the scan at the grouping stage in two
 * forms: as the whole aggregation, and as the partial aggregation under a
 * Gather and a Finalize Aggregate, where each process emits its partial
 * state for the existing combine function.  It is offered only for the exact
 * shape it computes (see plan_paths.h); anything else keeps the ordinary plan,
 * which is the reference the scan's results must equal.  Whether a query
 * and a table fit is plan_fit.cpp's; a path's cost and the plan node built
 * from it are scan_path.cpp's.  This file is the hook and the choice among
 * the forms: finished rows, partial states under a Finalize Aggregate, a
 * Gather, the processes merging their groups.
 */
#include "../../device_policy.h"
#include "../grouped/table/group_table.h"
#include "plan_paths.h"
#include "cached_cost.h"
#include "../scan_node.h"
#include "../shards/shard_states.h"

extern "C" {
#include "access/heapam.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "executor/nodeHash.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/*
 * Whether the scan may apply HAVING to the finished rows it emits, as its
 * Group Filter (plan_custom_path): HAVING reads nothing but the aggregates
 * and the keys (setrefs.c matches them to the node's scan tuple), and,
 * where parallel workers evaluate it, is parallel safe (an initplan's
 * Param is: Gather evaluates it and hands it to the workers).
 */
bool having_fits(PlannerInfo *root, List *keys, bool parallel)
{
    Node *having = root->parse->havingQual;
    return having == NULL || (!column_outside(having, keys) && (!parallel || is_parallel_safe(root, having)));
}

/*
 * The scan emitting finished rows of the grouped target.  With HAVING, its
 * Group Filter: the groups it is expected to let through, at its cost per
 * group, as create_agg_path() counts them for a HashAggregate's HAVING.
 */
CustomPath *finished_scan_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel,
                               const Candidate &c, int workers)
{
    CustomPath *scan = make_scan_path(root, input_rel, grouped_rel, grouped_rel->reltarget, c, workers);
    List *having = reinterpret_cast<List *>(root->parse->havingQual);
    if (having == NIL)
        return scan;
    Path *path = &scan->path;
    QualCost cost;
    cost_qual_eval(&cost, having, root);
    path->startup_cost += cost.startup;
    path->total_cost += cost.startup + cost.per_tuple * path->rows;
    path->rows = clamp_row_est(path->rows * clauselist_selectivity(root, having, 0, JOIN_INNER, NULL));
    return scan;
}

/*
 * Whether a grouped scan may emit finished rows, merging its groups itself
 * (scan/grouped/merge/shared_groups.h): GROUP BY, with a HAVING the scan can apply,
 * and groups expected to take at most `bounds` times HashAggregate's
 * memory bound.
 */
bool merging_fits(PlannerInfo *root, const Candidate &c, double bounds, bool parallel)
{
    if (c.keys == NIL || !having_fits(root, c.keys, parallel))
        return false;
    double bytes = c.groups * group_table_bytes_per_group(c.ncells, 8 * (1 + list_length(c.keys)) + 32);
    return bytes <= static_cast<double>(get_hash_memory_limit()) * bounds;
}

/*
 * Parallel: groups beyond the memory bound go to temporary files, and a
 * process whose share of them outgrows the bound merges it in up to 256
 * parts, so the expected groups may take half of 256 bounds per process
 * (each part then fits, with room for a wrong estimate; past that a
 * Finalize Aggregate, which spills recursively, keeps the bound).  Even
 * spilling, this beat the leader's Finalize Aggregate on the H100 host:
 * 166,667 ten-minute groups over 100M rows with 8 workers in 261 ms
 * against 380 to 413.  Serially it did not (the same groups 634 to 694 ms
 * against 480 to 517: memory of its own, files and parts cost more than
 * HashAggregate's spill), so a serial scan merges only groups expected to
 * fit the bound, which they then fill no more than HashAggregate would.
 * Below it the Finalize Aggregate costs more than the wrong estimate it
 * guards against: Grafana's five minutes over 30 days (8,640 groups of 64
 * counts, 5.6 MB of the 8 MB bound at work_mem's default 4MB) took 139 to
 * 170 ms under one on the development machine, 109 to 114 without it.
 */
constexpr double kParallelBounds = 128;
constexpr double kSerialBounds = 1.0;

/*
 * A serial scan of a shape that last found every page in the GPUs' page
 * cache (cached_cost.h) emits finished rows however many its groups: each
 * is the GPU's, counted once, and goes out as its row straight from the
 * GPU's cells, with nothing to merge (scan/grouped/grouping_gpu_cells.cpp).
 * Should pages come to the host after all, its groups merge as a parallel
 * process's do, spilling up to that bound.  Serially over 100M rows on the H100 host, the Finalize
 * HashAggregate over date_bin's 27,778 groups took 32 of its 77 ms.
 */
constexpr double kAllCached = 0.99;

bool gpu_groups_fit(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel, const Candidate &c)
{
    return merging_fits(root, c, kParallelBounds, false) &&
           scan_cached_share(root, input_rel, scan_shape(c.keys, c.quals, output_rel->reltarget->exprs)) >=
               kAllCached;
}

/*
 * A serial scan that no GPU will count for emits finished rows however
 * many its groups: past the memory bound it spills tuples, and each group
 * goes out once, complete, from the table or from one partition's pass,
 * with nothing to merge (scan/grouped/grouping_shared.cpp's rows before
 * the spill).  A Finalize HashAggregate above it would hash every group
 * again, and spill them again: Grafana's minute over 200,000 rows 13
 * seconds apart, 43,334 groups of 1.1 kB at work_mem's default, took
 * 1.09-1.17x the ordinary plan's time under one and 0.72-0.76x without it
 * on the development machine (the two plans alternating in one session).
 * Where a GPU may count, its groups (which spilled tuples' keys may share)
 * would have to be merged, which costs more serially (above), unless the
 * groups are so many for the table that the host would take its pages
 * anyway: their cells, flushed past the bound, would write more than the
 * table holds (group_cells_outgrow_table, the rule grouped_pages.cpp
 * applies at run time).  The GPU host's 210,000 minute groups of 300,000
 * rows were such: the host counted them under a Finalize Aggregate in
 * 2.3-2.6x the time of its finished rows.
 */
bool host_groups_spill(PlannerInfo *root, RelOptInfo *input_rel, const Candidate &c)
{
    if (c.keys == NIL || !having_fits(root, c.keys, false))
        return false;
    if (!device_gpu_wanted())
        return true;
    double held = c.groups;
    if (input_rel->tuples > 0)
        held = Min(held, input_rel->tuples);
    const double cells = held * group_table_bytes_per_group(c.ncells, 8 * (1 + list_length(c.keys)));
    return group_cells_outgrow_table(cells, get_hash_memory_limit(), static_cast<double>(input_rel->pages) * BLCKSZ);
}

/*
 * Gather -> the scan emitting finished rows: its processes merge their
 * groups themselves, each a share of them (scan/grouped/merge/shared_groups.h),
 * which spares the leader a Finalize Aggregate, where merging_fits: every
 * process's groups wait in the query's shared memory until the last has
 * read its share, up to what the processes' own bounds allow.  Its cost
 * is the partial plan's without the Finalize Aggregate, so the planner
 * prefers it wherever it is offered.
 */
void add_merging_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel, const Candidate &c,
                      int workers)
{
    if (!merging_fits(root, c, kParallelBounds * (workers + (parallel_leader_participation ? 1 : 0)), true))
        return;
    CustomPath *scan = finished_scan_path(root, input_rel, grouped_rel, c, workers);
    double rows = scan->path.rows;
    add_path(grouped_rel,
             &create_gather_path(root, grouped_rel, &scan->path, grouped_rel->reltarget, NULL, &rows)->path);
}

void add_parallel_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *grouped_rel, const Candidate &c)
{
    if (!input_rel->consider_parallel || !grouped_rel->consider_parallel || !c.parallel_safe_args ||
        input_rel->partial_pathlist == NIL || max_parallel_workers_per_gather <= 0)
        return;
    /*
     * Workers for the pages it reads: where a BRIN index leaves a share of
     * the table, that share, as a Bitmap Heap Scan counts the pages it
     * fetches.  The two weeks of the dashboards table, 7,808 of its 636,943
     * pages, get 2 workers instead of the whole table's 6 to 8; on the H100
     * host both took 9 to 11 ms, against 3.9 to 4.6 serially, as the cost
     * model does not know that the GPU parses the pages.
     */
    int workers = compute_parallel_worker(input_rel, input_rel->pages * c.read_fraction, -1,
                                          max_parallel_workers_per_gather);
    if (workers <= 0)
        return;
    /*
     * A shape whose pages the GPU last read all from its page cache stays
     * serial: the host only names the pages, and workers add their start
     * and a Gather to work the GPU does anyway.  With every page of 100M
     * rows cached on the H200 host, 8 workers took the New York heatmap
     * 143 ms against one backend's 107, and date_bin 141 against 114.
     */
    if (scan_cached_share(root, input_rel, scan_shape(c.keys, c.quals, grouped_rel->reltarget->exprs)) >= kAllCached)
        return;
    if (!c.exact_sums && !c.no_partial_states) {
        RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, input_rel->relids);
        CustomPath *scan =
            make_scan_path(root, input_rel, partial_rel, partial_target(root, grouped_rel->reltarget), c, workers);
        double rows = scan->path.rows * workers;
        Path *gather = &create_gather_path(root, partial_rel, &scan->path, scan->path.pathtarget, NULL, &rows)->path;
        add_path(grouped_rel, finalize_path(root, grouped_rel, gather, c.keys != NIL, c.groups, c));
    }
    add_merging_path(root, input_rel, grouped_rel, c, workers);
}

void upper_paths_hook(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
                      RelOptInfo *output_rel, void *extra)
{
    if (prev_upper_paths_hook != NULL)
        prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
    if (stage != UPPERREL_GROUP_AGG)
        return;
    if (!gh_scan_enabled) {
        scan_declined(root, "gpu_histogram.scan is off");
        return;
    }
    QueryShape shape;
    if (!query_shape_fits(root, input_rel, &shape))
        return;
    if (planner_rt_fetch(input_rel->relid, root)->inh) {
        add_partition_paths(root, input_rel, output_rel, shape);
        return;
    }
    Candidate c;
    if (!rel_fits(root, input_rel, shape.keys, shape.aggrefs, &c))
        return;
    c.errors_after_keys = shape.keys != NIL && ordinary_plan_sorts_first(root, output_rel);
    if (shape.keys == NIL && having_fits(root, NIL, false)) {
        add_path(output_rel, &finished_scan_path(root, input_rel, output_rel, c, 0)->path);
    } else {
        /*
         * Grouped, the scan emits finished rows where its groups are
         * expected to fit the memory bound: should they outgrow it (the
         * estimate was wrong), it leaves them in memory of its own and then
         * temporary files and merges them back (scan/grouped/merge/shared_groups.h,
         * a process alone).  So it does where the GPU is expected to count
         * every group (gpu_groups_fit), where the host will (host_groups_spill),
         * and, however many its groups, for an aggregate whose partial
         * state would not be the scan's answer:
         *   - sum and avg of bigint or numeric (value_aggregate_partial()):
         *     a Finalize Aggregate would read the scan's final sum as
         *     PostgreSQL's internal state (on the H100 host, `sum(p)` of a
         *     numeric(10, 2) over 2,500 groups at work_mem 64kB with device =
         *     gpu raised "insufficient data left in message" so);
         *   - a float sum or mean (exact_sums): past the bound a group may
         *     go out in more than one round (grouped/grouping_policy.h's
         *     TableRounds), and float8_combine would add the rounded parts,
         *     so the last bits would follow how the rows were split: on the
         *     H100 host one group of 20,004 came out off by its last bit.
         *     Merged in the scan, the sum is rounded once.
         * Otherwise, and for a HAVING the scan cannot apply, it emits partial
         * states under a Finalize Aggregate, which combines and spills as
         * HashAggregate does; with the aggregates above, such a HAVING keeps
         * the ordinary plan.
         */
        const bool finished_only = c.no_partial_states || c.exact_sums;
        const bool having_here = having_fits(root, c.keys, false);
        if ((finished_only && having_here) || merging_fits(root, c, kSerialBounds, false) ||
            gpu_groups_fit(root, input_rel, output_rel, c) || host_groups_spill(root, input_rel, c))
            add_path(output_rel, &finished_scan_path(root, input_rel, output_rel, c, 0)->path);
        if (!finished_only) {
            RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, input_rel->relids);
            CustomPath *scan =
                make_scan_path(root, input_rel, partial_rel, partial_target(root, output_rel->reltarget), c, 0);
            add_path(output_rel, finalize_path(root, output_rel, &scan->path, shape.keys != NIL, c.groups, c));
        } else if (!having_here) {
            scan_declined(root, "a HAVING clause the scan cannot apply, beside a sum or mean whose partial state "
                                "would not be the scan's answer");
        }
    }
    add_parallel_path(root, input_rel, output_rel, c);
}

} // namespace

bool gh_scan_enabled = true;

void gpu_histogram_scan_init(void)
{
    DefineCustomBoolVariable("gpu_histogram.scan",
                             "Lets gpu_histogram() read heap pages itself (GpuHistogramScan).",
                             "When on, a query whose aggregates are gpu_histogram() calls, with count(*) "
                             "or count(col) beside them, over one table or one partitioned table or "
                             "inheritance tree, ungrouped or grouped by keys the scan computes, may be "
                             "planned as a custom scan that bins the columns straight from the pages.",
                             &gh_scan_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
    RegisterCustomScanMethods(&gh_scan_plan_methods);
    shard_states_init();
    prev_upper_paths_hook = create_upper_paths_hook;
    create_upper_paths_hook = upper_paths_hook;
}

} // namespace gpu_histogram
