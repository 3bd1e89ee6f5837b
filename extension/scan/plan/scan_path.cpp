/*
 * scan_path.cpp: a GpuHistogramScan path, its cost, and the plan node built
 * from it (plan_paths.h).
 *
 * The cost model charges the pages a sequential scan reads but a fraction
 * of its per-row CPU, which is what the scan saves, and nothing of the host
 * for the pages the GPUs' page cache is expected to hold; the planner
 * compares it with the ordinary plans as usual.  Also the levels above a
 * partial scan: its target, and the Finalize Aggregate.  Apart from
 * plan.cpp, which decides which of these paths to offer.
 */
#include "plan_paths.h"
#include "cached_cost.h"
#include "../scan_node.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "optimizer/tlist.h"
#include "utils/spccache.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

/*
 * Pages cost what a sequential scan's cost; per row, the scan pays for a
 * visibility check and a copy of each column rather than a slot, a
 * projection and a transition call, plus the quals, if any, which it
 * evaluates on each visible tuple as a sequential scan would.  The share
 * `cached` of the pages that the GPU is expected to read from its page
 * cache (cached_cost.h) costs none of that: the host names such a page
 * and the GPU parses, filters, groups and counts it, about 7 ns a page all
 * told on the H200 host, counted as a quarter of an operator.  Workers
 * divide only the host's share: a serial scan of cached pages beats any
 * parallel plan's start.
 */
void cost_scan(PlannerInfo *root, RelOptInfo *rel, const Candidate &c, int workers, double cached, Path *path)
{
    double seq_page_cost;
    get_tablespace_page_costs(rel->reltablespace, NULL, &seq_page_cost);
    QualCost quals;
    cost_qual_eval(&quals, c.quals, root);
    /* every visible tuple: the visibility check and the quals */
    double per_tuple = cpu_tuple_cost * 0.1;
    if (c.quals != NIL)
        per_tuple += cpu_tuple_cost * 0.5 + quals.per_tuple;
    /* the rows that pass: the aggregates, the keys and finding the group */
    double per_row = cpu_operator_cost * 0.25 * c.nhist;
    if (c.keys != NIL)
        per_row += cpu_operator_cost * (1 + list_length(c.keys));
    const double host = 1 - cached;
    double cpu = (per_tuple * rel->tuples * c.read_fraction + per_row * rel->rows) * host;
    if (workers > 0) {
        /* costsize.c's get_parallel_divisor() */
        double divisor = workers;
        double leader = 1.0 - 0.3 * workers;
        if (parallel_leader_participation && leader > 0)
            divisor += leader;
        cpu /= divisor;
    }
    const double pages = rel->pages * c.read_fraction;
    path->rows = c.groups;
    path->startup_cost = quals.startup + seq_page_cost * pages * host + cpu_operator_cost * 0.25 * pages * cached + cpu;
    if (c.spill_share > 0) {
        /*
         * Groups past the memory bound (plan_fit.cpp): their rows' whole
         * tuples written and read back once per depth, as cost_agg() charges
         * HashAggregate's spill (a random page written, a page read in
         * sequence, two tuple costs a row); the host does it, whoever
         * parsed the pages, and its workers share it.
         */
        double random_page_cost, seq_cost;
        get_tablespace_page_costs(rel->reltablespace, &random_page_cost, &seq_cost);
        const double tuple_bytes = rel->tuples > 0 ? rel->pages * static_cast<double>(BLCKSZ) / rel->tuples : BLCKSZ;
        const double rows = rel->rows * c.spill_share * c.spill_depth;
        const double spill_pages = ceil(rows * tuple_bytes / BLCKSZ);
        double spill = spill_pages * (random_page_cost + seq_cost) + 2 * cpu_tuple_cost * rows;
        if (workers > 0)
            spill /= workers + 1;
        path->startup_cost += spill;
    }
    path->total_cost = path->startup_cost + cpu_tuple_cost * path->rows;
}

/*
 * The plan node: the Aggrefs it computes first in custom_scan_tlist, then
 * its GROUP BY keys, then the Vars its quals read (scan_node.h).
 */
Plan *plan_custom_path(PlannerInfo *root, RelOptInfo *, CustomPath *best_path, List *tlist, List *, List *)
{
    Index relid = intVal(linitial(best_path->custom_private));
    List *quals = static_cast<List *>(lsecond(best_path->custom_private));
    List *keys = static_cast<List *>(lthird(best_path->custom_private));

    List *scan_tlist = NIL;
    ListCell *lc;
    /*
     * The aggregates come from the path's target, not tlist: a projection
     * the planner puts on the scan (below a Gather, where the select list's
     * set-returning functions are split off) plans it with CP_IGNORE_TLIST,
     * an empty tlist, and then sets the node's targetlist to its own
     * expressions of the same aggregates.
     */
    List *aggrefs = pull_var_clause(reinterpret_cast<Node *>(best_path->path.pathtarget->exprs), PVC_INCLUDE_AGGREGATES);
    bool partial = false;
    foreach (lc, aggrefs)
        if (IsA(lfirst(lc), Aggref)) {
            partial = partial || DO_AGGSPLIT_SKIPFINAL(static_cast<Aggref *>(lfirst(lc))->aggsplit);
            if (!list_member(scan_tlist, lfirst(lc)))
                scan_tlist = lappend(scan_tlist, lfirst(lc));
        }
    /*
     * Finished rows are filtered by HAVING, over the aggregates it reads
     * (computed too where the target has none of them) and the keys;
     * partial states leave it to the Finalize Aggregate above.  It follows
     * the WHERE clause in custom_exprs rather than being the node's qual,
     * whose EXPLAIN label, Filter, is the WHERE clause's (scan_node.h).
     */
    List *having = partial ? NIL : reinterpret_cast<List *>(root->parse->havingQual);
    List *having_aggrefs = pull_var_clause(reinterpret_cast<Node *>(having), PVC_INCLUDE_AGGREGATES);
    foreach (lc, having_aggrefs)
        if (IsA(lfirst(lc), Aggref) && !list_member(scan_tlist, lfirst(lc)))
            scan_tlist = lappend(scan_tlist, lfirst(lc));
    int nhist = list_length(scan_tlist);
    scan_tlist = list_concat(scan_tlist, keys);
    List *vars = pull_var_clause(reinterpret_cast<Node *>(quals), PVC_RECURSE_PLACEHOLDERS);
    foreach (lc, vars)
        if (!list_member(scan_tlist, lfirst(lc)))
            scan_tlist = lappend(scan_tlist, lfirst(lc));
    List *entries = NIL;
    AttrNumber resno = 1;
    foreach (lc, scan_tlist)
        entries = lappend(entries, makeTargetEntry(static_cast<Expr *>(lfirst(lc)), resno++, NULL, false));

    CustomScan *cscan = makeNode(CustomScan);
    cscan->scan.plan.targetlist = tlist;
    cscan->scan.plan.qual = NIL;
    cscan->scan.scanrelid = relid;
    cscan->flags = best_path->flags;
    cscan->custom_plans = NIL;
    cscan->custom_exprs = list_concat(list_copy(quals), having);
    cscan->custom_private = list_make5(makeInteger(nhist), makeInteger(list_length(keys)),
                                       makeInteger(list_length(quals)), lfourth(best_path->custom_private),
                                       list_nth(best_path->custom_private, 4));
    cscan->custom_private = lappend(cscan->custom_private, list_nth(best_path->custom_private, 5));
    cscan->custom_scan_tlist = entries;
    cscan->custom_relids = NULL;
    cscan->methods = &gh_scan_plan_methods;
    return &cscan->scan.plan;
}

const CustomPathMethods path_methods = {
    GH_SCAN_NODE_NAME,
    plan_custom_path,
    NULL, /* ReparameterizeCustomPathByChild */
};

} // namespace

CustomPath *make_scan_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *output_rel, PathTarget *target,
                           const Candidate &c, int workers)
{
    CustomPath *cpath = makeNode(CustomPath);
    cpath->path.pathtype = T_CustomScan;
    cpath->path.parent = output_rel;
    cpath->path.pathtarget = target;
    cpath->path.param_info = NULL;
    cpath->path.parallel_aware = workers > 0;
    cpath->path.parallel_safe = workers > 0;
    cpath->path.parallel_workers = workers;
    cpath->path.pathkeys = NIL;
    const uint32 shape = scan_shape(c.keys, c.quals, target->exprs);
    cost_scan(root, input_rel, c, workers, scan_cached_share(root, input_rel, shape), &cpath->path);
    cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
    cpath->custom_paths = NIL;
    cpath->custom_private = list_make5(makeInteger(c.relid), c.quals, c.keys, makeInteger(static_cast<int>(shape)),
                                       makeBoolean(c.errors_after_keys));
    cpath->custom_private = lappend(cpath->custom_private, makeInteger(static_cast<int>(c.leaf_group)));
    cpath->methods = &path_methods;
    return cpath;
}

/*
 * What each process emits under a Gather, as make_partial_grouping_target()
 * builds it: the GROUP BY keys, labelled for the Finalize Aggregate's
 * grouping, then each Aggref of the target, marked to skip its final
 * function and serialize its state.
 */
PathTarget *partial_target(PlannerInfo *root, PathTarget *target)
{
    PathTarget *partial = create_empty_pathtarget();
    ListCell *lc;
    int i = 0;
    foreach (lc, target->exprs) {
        Index ref = get_pathtarget_sortgroupref(target, i++);
        if (ref != 0 && get_sortgroupref_clause_noerr(ref, root->parse->groupClause) != NULL)
            add_column_to_pathtarget(partial, static_cast<Expr *>(lfirst(lc)), ref);
    }
    /* HAVING's aggregates too: the Finalize Aggregate evaluates it on the combined states */
    List *aggrefs = list_concat(
        pull_var_clause(reinterpret_cast<Node *>(target->exprs), PVC_INCLUDE_AGGREGATES),
        pull_var_clause(root->parse->havingQual, PVC_INCLUDE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS));
    foreach (lc, aggrefs) {
        if (!IsA(lfirst(lc), Aggref))
            continue;
        Aggref *aggref = static_cast<Aggref *>(copyObjectImpl(lfirst(lc)));
        mark_partial_aggref(aggref, AGGSPLIT_INITIAL_SERIAL);
        add_new_column_to_pathtarget(partial, reinterpret_cast<Expr *>(aggref));
    }
    return set_pathtarget_cost_width(root, partial);
}

/*
 * Finalize Aggregate -> Gather -> the scan as the partial aggregation, which
 * is what the planner builds from a Partial Aggregate.  PostgreSQL 15 calls
 * create_upper_paths_hook for the grouping stage only, not for the partial
 * one, so the scan builds the three levels itself.  The query's HAVING
 * clause (an outer query's filter on a grouped subquery's aggregates ends
 * up there too) is the Finalize Aggregate's qual, as in PostgreSQL's own
 * parallel plans: the scan still reads the table, and only the groups are
 * filtered.
 */
Path *finalize_path(PlannerInfo *root, RelOptInfo *grouped_rel, Path *subpath, bool grouped, double groups,
                    const Candidate &c)
{
    AggClauseCosts final_costs;
    MemSet(&final_costs, 0, sizeof(final_costs)); /* get_agg_clause_costs() adds to it */
    get_agg_clause_costs(root, AGGSPLIT_FINAL_DESERIAL, &final_costs);
    /*
     * gpu_histogram's state is `internal`, which the planner sizes at 8 kB
     * a group and so expects a HashAggregate of a few thousand groups to
     * spill; the combined states are the counters and a header.
     */
    final_costs.transitionSpace = sizeof(int64) * c.ncells + 128 * c.nhist;
    return &create_agg_path(root, grouped_rel, subpath, grouped_rel->reltarget, grouped ? AGG_HASHED : AGG_PLAIN,
                            AGGSPLIT_FINAL_DESERIAL, grouped ? root->parse->groupClause : NIL,
                            reinterpret_cast<List *>(root->parse->havingQual), &final_costs, groups)
                ->path;
}

} // namespace gpu_histogram
