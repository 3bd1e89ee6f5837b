/*
 * plan.cpp: when GpuHistogramScan replaces Aggregate -> Seq Scan, and the
 * plan node it builds.
 *
 * A create_upper_paths_hook offers the scan at the grouping stage in two
 * forms: as the whole aggregation, and as the partial aggregation under a
 * Gather and a Finalize Aggregate, where each process emits its partial
 * state for the existing combine function.  It is offered only for the exact
 * shape it computes (see plan_paths.h); anything else keeps the ordinary plan,
 * which is the reference the scan's results must equal.  The cost model
 * charges the same pages as a sequential scan but a fraction of its per-row
 * CPU, which is what the scan saves; the planner compares it with the
 * ordinary plans as usual.
 */
#include "../quals/fixed_exprs.h"
#include "group_estimate.h"
#include "../keys/group_keys.h"
#include "../group/group_table.h"
#include "plan_paths.h"
#include "cached_cost.h"
#include "../scan_node.h"

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

namespace {

create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/* The cast functions through which int2, int4, int8 and float4 reach float8. */
Oid column_type_under_cast(Oid funcid)
{
    switch (funcid) {
    case F_FLOAT8_INT2: return INT2OID;
    case F_FLOAT8_INT4: return INT4OID;
    case F_FLOAT8_INT8: return INT8OID;
    case F_FLOAT8_FLOAT4: return FLOAT4OID;
    }
    return InvalidOid;
}

/* aggfnoid is gpu_histogram(float8, float8, float8, integer) of this database's extension. */
bool is_our_histogram(Oid aggfnoid)
{
    char *name = get_func_name(aggfnoid);
    if (name == NULL || strcmp(name, "gpu_histogram") != 0)
        return false;
    Oid argtypes[] = {FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID};
    Oid *types;
    int nargs;
    get_func_signature(aggfnoid, &types, &nargs);
    if (nargs != 4 || memcmp(types, argtypes, sizeof argtypes) != 0)
        return false;
    Oid ext = get_extension_oid("gpu_histogram", true);
    return OidIsValid(ext) && getExtensionOfObject(ProcedureRelationId, aggfnoid) == ext;
}

bool is_heap_table(Oid relid)
{
    Relation rel = table_open(relid, NoLock); /* the planner holds its lock */
    bool heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;
    table_close(rel, NoLock);
    return heap;
}

/* The most GROUP BY keys the scan takes (a bit each in the key's NULL mask). */
constexpr int kMaxKeys = 32;

/* Whether node has a column of the table outside the GROUP BY keys and the aggregates. */
bool column_outside(Node *node, List *keys)
{
    if (node == NULL || IsA(node, Aggref))
        return false;
    if (list_member(keys, node))
        return false;
    if (IsA(node, Var) || IsA(node, PlaceHolderVar))
        return true;
    return expression_tree_walker(node, GH_WALKER(column_outside), keys);
}

/* Counters per group for an aggregate: gpu_histogram's buckets, when its count is known. */
int aggregate_cells(const Aggref *aggref, Index relid)
{
    HistogramCall call;
    if (!histogram_call_parse(aggref, relid, &call))
        return 1;
    if (IsA(call.nbins, Const) && !reinterpret_cast<Const *>(call.nbins)->constisnull)
        return 3 + Max(DatumGetInt32(reinterpret_cast<Const *>(call.nbins)->constvalue), 0);
    return 3 + 64; /* a parameter: a dashboard's usual resolution */
}

} // namespace

bool query_shape_fits(PlannerInfo *root, RelOptInfo *input_rel, QueryShape *shape)
{
    Query *parse = root->parse;
    if (parse->commandType != CMD_SELECT || !parse->hasAggs ||
        parse->groupingSets != NIL || contain_subplans(parse->havingQual) ||
        parse->hasWindowFuncs || parse->hasTargetSRFs || parse->distinctClause != NIL ||
        parse->rowMarks != NIL)
        return false;
    if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION ||
        IS_DUMMY_REL(input_rel))
        return false;
    RangeTblEntry *rte = planner_rt_fetch(input_rel->relid, root);
    if (rte->tablesample != NULL)
        return false;
    PathTarget *target = root->upper_targets[UPPERREL_GROUP_AGG];
    if (target == NULL || contain_subplans(reinterpret_cast<Node *>(target->exprs)))
        return false;

    shape->keys = NIL;
    ListCell *lc;
    foreach (lc, parse->groupClause) {
        SortGroupClause *sgc = static_cast<SortGroupClause *>(lfirst(lc));
        if (!sgc->hashable)
            return false;
        shape->keys = lappend(shape->keys, get_sortgroupclause_expr(sgc, parse->targetList));
    }
    if (list_length(shape->keys) > kMaxKeys)
        return false;
    /* no column outside an aggregate or a key (a column functionally dependent on the keys) */
    if (column_outside(reinterpret_cast<Node *>(target->exprs), shape->keys))
        return false;
    shape->aggrefs = NIL;
    foreach (lc, root->agginfos) {
        Aggref *aggref = GH_AGGINFO_AGGREF(static_cast<AggInfo *>(lfirst(lc)));
        if (!is_our_histogram(aggref->aggfnoid) && aggref->aggfnoid != F_COUNT_ && aggref->aggfnoid != F_COUNT_ANY)
            return false;
        shape->aggrefs = lappend(shape->aggrefs, aggref);
    }
    return true;
}

bool rel_fits(PlannerInfo *root, RelOptInfo *rel, List *keys, List *aggrefs, Candidate *c)
{
    RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
    if (rte->inh || (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
        !is_heap_table(rte->relid) || IS_DUMMY_REL(rel))
        return false;
    ListCell *lc;
    foreach (lc, keys) {
        GroupKeyDef def;
        if (!group_key_parse(static_cast<Expr *>(lfirst(lc)), rel->relid, &def))
            return false;
    }
    c->keys = keys;
    c->nhist = 0;
    c->ncells = 0;
    c->parallel_safe_args = is_parallel_safe(root, reinterpret_cast<Node *>(keys));
    int histograms = 0;
    foreach (lc, aggrefs) {
        Aggref *aggref = static_cast<Aggref *>(lfirst(lc));
        HistogramCall call;
        ScanAggregate count;
        if (aggref->aggfnoid != F_COUNT_ && aggref->aggfnoid != F_COUNT_ANY &&
            histogram_call_parse(aggref, rel->relid, &call))
            histograms++;
        else if (!count_call_parse(aggref, rel->relid, &count))
            return false;
        if (!is_parallel_safe(root, reinterpret_cast<Node *>(aggref)))
            c->parallel_safe_args = false;
        c->ncells += aggregate_cells(aggref, rel->relid);
        c->nhist++;
    }
    if (histograms == 0)
        return false;
    c->groups = 1;
    if (keys != NIL) {
        c->groups = estimate_scan_groups(root, rel->relid, keys, rel->rows);
        /*
         * HashAggregate's bound: groups that would not fit keep the ordinary
         * plan, unless they come one after another in the table (a time
         * bucket over a time-ordered table): the scan then emits each
         * group about once when its memory fills (group_table.h).
         */
        double bytes = c->groups * group_table_bytes_per_group(c->ncells, 8 * (1 + list_length(keys)) + 32);
        if (bytes > static_cast<double>(get_hash_memory_limit()) &&
            (c->groups * 8 > rel->rows || !keys_follow_physical_order(root, rel->relid, keys)))
            return false; /* (a group of a few rows would cost a partial row each) */
    }

    /* Quals of lower security levels (row-level security) must run first. */
    List *rinfos = list_copy(rel->baserestrictinfo);
    list_sort(rinfos, [](const ListCell *a, const ListCell *b) {
        Index la = static_cast<RestrictInfo *>(lfirst(a))->security_level;
        Index lb = static_cast<RestrictInfo *>(lfirst(b))->security_level;
        return la < lb ? -1 : (la > lb ? 1 : 0);
    });
    c->quals = NIL;
    foreach (lc, rinfos)
        c->quals = lappend(c->quals, static_cast<RestrictInfo *>(lfirst(lc))->clause);
    c->relid = rel->relid;
    c->read_fraction = brin_read_fraction(root, rel, c->quals);
    return true;
}

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
    List *aggrefs = pull_var_clause(reinterpret_cast<Node *>(tlist), PVC_INCLUDE_AGGREGATES);
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
    cscan->custom_private = list_make4(makeInteger(nhist), makeInteger(list_length(keys)),
                                       makeInteger(list_length(quals)), lfourth(best_path->custom_private));
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
    cpath->custom_private = list_make4(makeInteger(c.relid), c.quals, c.keys, makeInteger(static_cast<int>(shape)));
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

namespace {

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
 * (scan/group/shared_groups.h): GROUP BY, with a HAVING the scan can apply,
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
 * fit half the bound.
 */
constexpr double kParallelBounds = 128;
constexpr double kSerialBounds = 0.5;

/*
 * A serial scan of a shape that last found every page in the GPUs' page
 * cache (cached_cost.h) emits finished rows however many its groups: each
 * is the GPU's, counted once, and goes out as its row straight from the
 * GPU's cells, with nothing to merge (rows_grouped.cpp).  Should pages come to the host
 * after all, its groups merge as a parallel process's do, spilling up to
 * that bound.  Serially over 100M rows on the H100 host, the Finalize
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
 * Gather -> the scan emitting finished rows: its processes merge their
 * groups themselves, each a share of them (scan/group/shared_groups.h),
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
    RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, input_rel->relids);
    CustomPath *scan =
        make_scan_path(root, input_rel, partial_rel, partial_target(root, grouped_rel->reltarget), c, workers);
    double rows = scan->path.rows * workers;
    Path *gather = &create_gather_path(root, partial_rel, &scan->path, scan->path.pathtarget, NULL, &rows)->path;
    add_path(grouped_rel, finalize_path(root, grouped_rel, gather, c.keys != NIL, c.groups, c));
    add_merging_path(root, input_rel, grouped_rel, c, workers);
}

void upper_paths_hook(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
                      RelOptInfo *output_rel, void *extra)
{
    if (prev_upper_paths_hook != NULL)
        prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
    if (!gh_scan_enabled || stage != UPPERREL_GROUP_AGG)
        return;
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
    if (shape.keys == NIL && having_fits(root, NIL, false)) {
        add_path(output_rel, &finished_scan_path(root, input_rel, output_rel, c, 0)->path);
    } else {
        /*
         * Grouped, the scan emits finished rows where its groups are
         * expected to fit half the memory bound: should they outgrow it (the
         * estimate was wrong), it leaves them in memory of its own and then
         * temporary files and merges them back (scan/group/shared_groups.h,
         * a process alone).  So it does where the GPU is expected to count
         * every group (gpu_groups_fit).  Otherwise, and for a HAVING the
         * scan cannot apply, it emits partial states under a Finalize
         * Aggregate, which combines and spills as HashAggregate does.
         */
        if (merging_fits(root, c, kSerialBounds, false) || gpu_groups_fit(root, input_rel, output_rel, c))
            add_path(output_rel, &finished_scan_path(root, input_rel, output_rel, c, 0)->path);
        RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, input_rel->relids);
        CustomPath *scan =
            make_scan_path(root, input_rel, partial_rel, partial_target(root, output_rel->reltarget), c, 0);
        add_path(output_rel, finalize_path(root, output_rel, &scan->path, shape.keys != NIL, c.groups, c));
    }
    add_parallel_path(root, input_rel, output_rel, c);
}

} // namespace

bool float8_column(const Expr *value, Index relid, AttrNumber *attno, Oid *coltype)
{
    Oid type = FLOAT8OID;
    if (IsA(value, FuncExpr)) {
        const FuncExpr *cast = reinterpret_cast<const FuncExpr *>(value);
        type = column_type_under_cast(cast->funcid);
        if (!OidIsValid(type) || list_length(cast->args) != 1)
            return false;
        value = static_cast<const Expr *>(linitial(cast->args));
    }
    if (!IsA(value, Var))
        return false;
    const Var *var = reinterpret_cast<const Var *>(value);
    if (var->varno != static_cast<int>(relid) || var->varlevelsup != 0 || var->varattno <= 0 ||
        var->vartype != type)
        return false;
    *attno = var->varattno;
    *coltype = type;
    return true;
}

bool histogram_call_parse(const Aggref *aggref, Index relid, HistogramCall *out)
{
    if (aggref->aggdistinct != NIL || aggref->aggorder != NIL || aggref->aggfilter != NULL ||
        aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0 || aggref->aggstar ||
        aggref->aggvariadic || list_length(aggref->args) != 4)
        return false;
    if (!float8_column(static_cast<TargetEntry *>(linitial(aggref->args))->expr, relid, &out->attno, &out->coltype))
        return false;
    out->lo = static_cast<TargetEntry *>(lsecond(aggref->args))->expr;
    out->hi = static_cast<TargetEntry *>(lthird(aggref->args))->expr;
    out->nbins = static_cast<TargetEntry *>(lfourth(aggref->args))->expr;
    return fixed_for_scan(reinterpret_cast<Node *>(out->lo)) && fixed_for_scan(reinterpret_cast<Node *>(out->hi)) &&
           fixed_for_scan(reinterpret_cast<Node *>(out->nbins));
}

bool count_call_parse(const Aggref *aggref, Index relid, ScanAggregate *out)
{
    if (aggref->aggdistinct != NIL || aggref->aggorder != NIL || aggref->aggfilter != NULL ||
        aggref->aggkind != AGGKIND_NORMAL || aggref->agglevelsup != 0 || aggref->aggvariadic)
        return false;
    if (aggref->aggfnoid == F_COUNT_ && aggref->aggstar) {
        out->kind = AggKind::count_star;
        return true;
    }
    if (aggref->aggfnoid != F_COUNT_ANY || list_length(aggref->args) != 1)
        return false;
    Expr *arg = static_cast<TargetEntry *>(linitial(aggref->args))->expr;
    if (!IsA(arg, Var))
        return false;
    Var *var = reinterpret_cast<Var *>(arg);
    if (var->varno != static_cast<int>(relid) || var->varlevelsup != 0 || var->varattno <= 0)
        return false;
    out->kind = AggKind::count_column;
    out->count_attno = var->varattno;
    return true;
}

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
    prev_upper_paths_hook = create_upper_paths_hook;
    create_upper_paths_hook = upper_paths_hook;
}
