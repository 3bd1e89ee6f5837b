/*
 * shard_plan.cpp: the path of a partitioned table's foreign leaves whose
 * servers compute the query's aggregates (shard_states.h).
 *
 * Each leaf gets a grouping relation as PostgreSQL's partitionwise
 * aggregation makes one for a child (make_grouping_rel() in planner.c):
 * the query's keys and whole aggregates in the leaf's Vars, and the leaf's
 * FDW.  Its GetForeignUpperPaths, asked for a full partitionwise grouping
 * without HAVING (which the coordinator applies to the combined groups),
 * decides what it can ship; postgres_fdw ships the aggregate only where
 * every key, aggregate and WHERE clause is shippable, and gpu_histogram
 * only where the server's `extensions` option names it.  A leaf it does not
 * take refuses the whole path, and the query keeps its other plans, which
 * are right, only slower.
 */
#include "shard_states.h"
#include "shard_node.h"
#include "zone_explicit.h"
#include "../scan_node.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "utils/syscache.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

/*
 * Whether a shard's result of aggref is already the partial state that
 * aggref's combine function takes: no final function and a transition
 * type that is the result's and not `internal` (count, min, max, sum of
 * int4), as make_partial_grouping_target()'s state would be.
 */
bool result_is_state(const Aggref *aggref)
{
    HeapTuple tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
    if (!HeapTupleIsValid(tuple))
        return false;
    const Form_pg_aggregate agg = reinterpret_cast<Form_pg_aggregate>(GETSTRUCT(tuple));
    bool same = !OidIsValid(agg->aggfinalfn) && OidIsValid(agg->aggcombinefn) && !OidIsValid(agg->aggserialfn) &&
                agg->aggtranstype != INTERNALOID && agg->aggtranstype == aggref->aggtype;
    ReleaseSysCache(tuple);
    return same;
}

/* Whether a histogram's fixed argument is the same value on the shard: no column, nothing volatile. */
bool fixed_argument(Node *arg)
{
    return arg != NULL && !contain_var_clause(arg) && !contain_volatile_functions(arg) && !contain_subplans(arg);
}

/*
 * The histogram's fixed arguments, for the node to rebuild the spec the
 * shard binned by; false if one could differ there.
 */
bool histogram_arguments(const Aggref *aggref, HistogramForm form, List **args)
{
    int first = 1, count = form == HistogramForm::thresholds ? 1 : 3;
    if (list_length(aggref->args) != first + count)
        return false;
    for (int i = first; i < first + count; i++) {
        Node *arg = reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(aggref->args, i))->expr);
        if (!fixed_argument(arg))
            return false;
        *args = lappend(*args, arg);
    }
    return true;
}

/* The query's Aggref whose partial form is `partial`. */
Aggref *whole_aggref(List *aggrefs, const Aggref *partial)
{
    ListCell *lc;
    foreach (lc, aggrefs) {
        if (!IsA(lfirst(lc), Aggref))
            continue;
        Aggref *marked = static_cast<Aggref *>(copyObjectImpl(lfirst(lc)));
        mark_partial_aggref(marked, partial->aggsplit);
        if (equal(marked, partial))
            return static_cast<Aggref *>(lfirst(lc));
    }
    return NULL;
}

/* What a shard sends for a partial target, and how the node turns it into states. */
struct ShardColumns {
    PathTarget *whole; /* the keys and whole aggregates, in top's Vars */
    List *keys;        /* the GROUP BY keys as the query has them */
    List *kinds;       /* an Integer ShardColumn per column */
    List *args;        /* the histograms' fixed arguments */
    int ncells;
    const char *refused;
};

ShardColumns shard_columns(PlannerInfo *root, PathTarget *grouped, PathTarget *partial)
{
    ShardColumns out{};
    List *aggrefs =
        list_concat(pull_var_clause(reinterpret_cast<Node *>(grouped->exprs), PVC_INCLUDE_AGGREGATES),
                    pull_var_clause(root->parse->havingQual, PVC_INCLUDE_AGGREGATES | PVC_RECURSE_PLACEHOLDERS));
    out.whole = create_empty_pathtarget();
    ListCell *lc;
    int i = 0;
    foreach (lc, partial->exprs) {
        Expr *expr = static_cast<Expr *>(lfirst(lc));
        Index ref = get_pathtarget_sortgroupref(partial, i++);
        if (!IsA(expr, Aggref)) {
            out.keys = lappend(out.keys, expr);
            add_column_to_pathtarget(out.whole, zone_explicit(expr), ref);
            out.kinds = lappend(out.kinds, makeInteger(static_cast<int>(ShardColumn::as_is)));
            continue;
        }
        Aggref *whole = whole_aggref(aggrefs, reinterpret_cast<Aggref *>(expr));
        if (whole == NULL) {
            out.refused = "an aggregate of the query not found in its target";
            return out;
        }
        if (whole->aggdistinct != NIL || whole->aggorder != NIL) {
            /* the distinct values of two shards overlap: their counts do not add up */
            out.refused = "DISTINCT or ORDER BY inside an aggregate";
            return out;
        }
        HistogramForm form;
        ShardColumn kind = ShardColumn::as_is;
        if (histogram_form_of(whole->aggfnoid, &form)) {
            if (!histogram_arguments(whole, form, &out.args)) {
                out.refused = "a gpu_histogram argument other than the value that is not fixed for the query";
                return out;
            }
            kind = static_cast<ShardColumn>(static_cast<int>(form) + 1);
            Node *n = form == HistogramForm::thresholds ? NULL : static_cast<Node *>(llast(out.args));
            out.ncells += n != NULL && IsA(n, Const) && !reinterpret_cast<Const *>(n)->constisnull
                              ? 3 + Max(DatumGetInt32(reinterpret_cast<Const *>(n)->constvalue), 0)
                              : 3 + 64;
        } else if (result_is_state(whole)) {
            out.ncells += 1;
        } else {
            out.refused = "an aggregate beside gpu_histogram whose result is not its partial state (count, "
                          "min and max are)";
            return out;
        }
        add_column_to_pathtarget(out.whole, zone_explicit(reinterpret_cast<Expr *>(whole)), 0);
        out.kinds = lappend(out.kinds, makeInteger(static_cast<int>(kind)));
    }
    if (contain_mutable_functions(reinterpret_cast<Node *>(out.whole->exprs))) {
        out.refused = "a key or an aggregate's argument depends on the session's settings and has no form the "
                      "shards compute the same way (for the session's time zone: an Area/City name or UTC)";
        return out;
    }
    set_pathtarget_cost_width(root, out.whole);
    return out;
}

/*
 * The leaf's whole grouped aggregate, from its FDW, as a path emitting
 * target (in the leaf's Vars); NULL if the FDW does not push it down.
 */
Path *leaf_aggregate_path(PlannerInfo *root, RelOptInfo *leaf, PathTarget *target, const char **refused)
{
    if (leaf->fdwroutine == NULL || leaf->fdwroutine->GetForeignUpperPaths == NULL) {
        *refused = "a foreign partition whose data wrapper does not push aggregates down";
        return NULL;
    }
    RelOptInfo *grouped = fetch_upper_rel(root, UPPERREL_GROUP_AGG, leaf->relids);
    if (grouped->pathlist != NIL || grouped->fdw_private != NULL) {
        /* enable_partitionwise_aggregate and GROUP BY the partition key: PostgreSQL pushes it down itself */
        *refused = "PostgreSQL's partitionwise aggregation already plans the foreign partitions";
        return NULL;
    }
    grouped->reloptkind = RELOPT_OTHER_UPPER_REL;
    grouped->reltarget = target;
    grouped->consider_parallel = false;
    grouped->serverid = leaf->serverid;
    grouped->userid = leaf->userid;
    grouped->useridiscurrent = leaf->useridiscurrent;
    grouped->fdwroutine = leaf->fdwroutine;

    GroupPathExtraData extra;
    memset(&extra, 0, sizeof extra);
    extra.target_parallel_safe = false;
    extra.havingQual = NULL; /* the coordinator's, on the combined groups */
    extra.targetList = make_tlist_from_pathtarget(target);
    extra.patype = PARTITIONWISE_AGGREGATE_FULL;
    leaf->fdwroutine->GetForeignUpperPaths(root, UPPERREL_GROUP_AGG, leaf, grouped, &extra);
    ListCell *lc;
    foreach (lc, grouped->pathlist)
        if (IsA(lfirst(lc), ForeignPath))
            return static_cast<Path *>(lfirst(lc));
    *refused = "a foreign partition's server does not take the aggregate (postgres_fdw ships gpu_histogram "
               "only to a server whose extensions option names it, and only immutable keys and WHERE "
               "clauses)";
    return NULL;
}

/*
 * The foreign aggregate's path costed for `groups` groups rather than the
 * FDW's estimate, where that is lower: postgres_fdw charges each group it
 * expects fdw_tuple_cost to cross the network and cpu_tuple_cost to be
 * read (estimate_path_cost_size()), and expects as many groups of
 * date_trunc('hour', ts) as ts has distinct values.  A server's own
 * fdw_tuple_cost is read from its options; the default is postgres_fdw's.
 */
void recost_groups(Path *path, RelOptInfo *leaf, double groups)
{
    groups = clamp_row_est(groups);
    if (groups >= path->rows)
        return;
    double fdw_tuple_cost = PG_VERSION_NUM >= 170000 ? 0.2 : 0.01;
    ListCell *lc;
    foreach (lc, GetForeignServer(leaf->serverid)->options) {
        DefElem *def = static_cast<DefElem *>(lfirst(lc));
        if (strcmp(def->defname, "fdw_tuple_cost") == 0)
            fdw_tuple_cost = strtod(defGetString(def), NULL);
    }
    const double saved = (path->rows - groups) * (fdw_tuple_cost + cpu_tuple_cost);
    path->total_cost = Max(path->startup_cost, path->total_cost - saved);
    path->rows = groups;
}

/* The node: its scan tuple is the partial target; the foreign rows come from its one child, the Append. */
Plan *plan_shards_path(PlannerInfo *, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *,
                       List *custom_plans)
{
    List *entries = NIL;
    ListCell *lc;
    AttrNumber resno = 1;
    foreach (lc, best_path->path.pathtarget->exprs)
        entries = lappend(entries, makeTargetEntry(static_cast<Expr *>(lfirst(lc)), resno++, NULL, false));
    CustomScan *cscan = makeNode(CustomScan);
    cscan->scan.plan.targetlist = tlist;
    cscan->scan.plan.qual = NIL;
    cscan->scan.scanrelid = 0;
    cscan->flags = best_path->flags;
    cscan->custom_plans = custom_plans;
    cscan->custom_exprs = static_cast<List *>(lsecond(best_path->custom_private));
    cscan->custom_private = static_cast<List *>(linitial(best_path->custom_private));
    cscan->custom_scan_tlist = entries;
    cscan->custom_relids = bms_copy(rel->relids);
    cscan->methods = &gh_shards_plan_methods;
    return &cscan->scan.plan;
}

const CustomPathMethods shards_path_methods = {
    GH_SHARDS_NODE_NAME,
    plan_shards_path,
    NULL, /* ReparameterizeCustomPathByChild */
};

/* The leaf's translation of a node in the Vars of top. */
template <typename T> T *in_leaf(PlannerInfo *root, T *node, RelOptInfo *leaf, RelOptInfo *top)
{
    return reinterpret_cast<T *>(
        GH_ADJUST_APPENDREL_MULTILEVEL(root, reinterpret_cast<Node *>(node), leaf, top));
}

} // namespace

ShardPlan shard_states_path(PlannerInfo *root, RelOptInfo *top, List *leaves, PathTarget *grouped,
                            PathTarget *partial, LeafGroups leaf_groups)
{
    ShardPlan plan{};
    ShardColumns columns = shard_columns(root, grouped, partial);
    if (columns.refused != NULL) {
        plan.refused = columns.refused;
        return plan;
    }
    List *subpaths = NIL;
    ListCell *lc;
    foreach (lc, leaves) {
        RelOptInfo *leaf = static_cast<RelOptInfo *>(lfirst(lc));
        PathTarget *target = copy_pathtarget(columns.whole);
        target->exprs = in_leaf(root, target->exprs, leaf, top);
        Path *path = leaf_aggregate_path(root, leaf, target, &plan.refused);
        if (path == NULL)
            return plan;
        if (columns.keys != NIL)
            recost_groups(path, leaf, leaf_groups(root, leaf, in_leaf(root, columns.keys, leaf, top)));
        subpaths = lappend(subpaths, path);
        plan.groups += path->rows;
    }
    RelOptInfo *partial_rel = fetch_upper_rel(root, UPPERREL_PARTIAL_GROUP_AGG, top->relids);
    AppendPath *append = create_append_path(root, partial_rel, subpaths, NIL, NIL, NULL, 0, false, plan.groups);
    append->path.pathtarget = columns.whole;

    CustomPath *cpath = makeNode(CustomPath);
    cpath->path.pathtype = T_CustomScan;
    cpath->path.parent = partial_rel;
    cpath->path.pathtarget = partial;
    cpath->path.param_info = NULL;
    cpath->path.parallel_aware = false;
    cpath->path.parallel_safe = false;
    cpath->path.parallel_workers = 0;
    cpath->path.pathkeys = NIL;
    cpath->path.rows = append->path.rows;
    cpath->path.startup_cost = append->path.startup_cost;
    /* a state made of each histogram row: about a copy of its counts */
    cpath->path.total_cost = append->path.total_cost + (cpu_tuple_cost + cpu_operator_cost * columns.ncells) *
                                                           append->path.rows;
    cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
    cpath->custom_paths = list_make1(append);
    cpath->custom_private = list_make2(columns.kinds, columns.args);
    cpath->methods = &shards_path_methods;
    plan.path = &cpath->path;
    plan.ncells = columns.ncells;
    return plan;
}

} // namespace gpu_histogram
