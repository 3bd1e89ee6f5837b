/*
 * plan_fit.cpp: whether GpuHistogramScan computes a query, and whether it
 * can read one table for it (plan_paths.h).
 *
 * The scan is offered only for the exact shape it computes: gpu_histogram()
 * of this database's extension over a plain column, count(*) or count(col)
 * beside it, GROUP BY keys group_keys.h computes, a heap table.  Anything
 * else keeps the ordinary plan.  These checks are apart from the hook
 * (plan.cpp) because partitions.cpp asks them of each leaf too.
 */
#include "../quals/fixed_exprs.h"
#include "../quals/qual_order.h"
#include "group_estimate.h"
#include "../keys/group_keys.h"
#include "../grouped/table/group_table.h"
#include "../grouped/table/value_aggs.h"
#include "plan_paths.h"
#include "../grouped/table/tuple_spill.h"
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
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

/* Whether the query calls gpu_histogram in any form: only then is a declined scan worth a line. */
bool calls_gpu_histogram(PlannerInfo *root)
{
    ListCell *lc;
    foreach (lc, root->agginfos) {
        char *name = get_func_name(GH_AGGINFO_AGGREF(static_cast<AggInfo *>(lfirst(lc)))->aggfnoid);
        if (name != NULL && strcmp(name, "gpu_histogram") == 0)
            return true;
    }
    return false;
}

} // namespace

bool scan_declined(PlannerInfo *root, const char *fmt, ...)
{
    if (!message_level_is_interesting(DEBUG1) || !calls_gpu_histogram(root))
        return false;
    char reason[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    ereport(DEBUG1, (errmsg_internal("gpu_histogram: the scan is not offered: %s", reason)));
    return false;
}

namespace {

bool is_heap_table(Oid relid)
{
    Relation rel = table_open(relid, NoLock); /* the planner holds its lock */
    bool heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;
    table_close(rel, NoLock);
    return heap;
}

/* The most GROUP BY keys the scan takes (a bit each in the key's NULL mask). */
constexpr int kMaxKeys = 32;

/* Counters per group for an aggregate: gpu_histogram's buckets, when its count is known. */
int aggregate_cells(const Aggref *aggref, Index relid)
{
    HistogramCall call;
    if (!histogram_call_parse(aggref, relid, &call))
        return 1;
    if (call.form == HistogramForm::thresholds) {
        const Const *c = IsA(call.thresholds, Const) ? reinterpret_cast<const Const *>(call.thresholds) : NULL;
        if (c == NULL || c->constisnull)
            return 2 + 64;
        ArrayType *a = DatumGetArrayTypeP(c->constvalue);
        return 2 + ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
    }
    if (IsA(call.nbins, Const) && !reinterpret_cast<Const *>(call.nbins)->constisnull)
        return 3 + Max(DatumGetInt32(reinterpret_cast<Const *>(call.nbins)->constvalue), 0);
    return 3 + 64; /* a parameter: a dashboard's usual resolution */
}

} // namespace

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

bool query_shape_fits(PlannerInfo *root, RelOptInfo *input_rel, QueryShape *shape)
{
    Query *parse = root->parse;
    if (parse->commandType != CMD_SELECT || !parse->hasAggs)
        return false;
    if (parse->groupingSets != NIL)
        return scan_declined(root, "GROUPING SETS, ROLLUP or CUBE");
    if (contain_subplans(parse->havingQual))
        return scan_declined(root, "a subquery in HAVING");
    /*
     * Window functions, DISTINCT and the select list's set-returning
     * functions (unnest of the histogram) are planned above the grouped rows
     * (upper_targets[UPPERREL_GROUP_AGG] is their input, ProjectSet their
     * node), so the scan can make those rows.  A set-returning GROUP BY key
     * is evaluated below them, once per row it multiplies, and is refused
     * with the keys.  (FOR UPDATE the parser refuses with aggregates.)
     */
    if (input_rel->reloptkind != RELOPT_BASEREL || input_rel->rtekind != RTE_RELATION)
        return scan_declined(root, "the aggregates read a join or a subquery, not one table");
    if (IS_DUMMY_REL(input_rel))
        return false;
    RangeTblEntry *rte = planner_rt_fetch(input_rel->relid, root);
    if (rte->tablesample != NULL)
        return scan_declined(root, "TABLESAMPLE");
    PathTarget *target = root->upper_targets[UPPERREL_GROUP_AGG];
    if (target == NULL)
        return false;
    if (contain_subplans(reinterpret_cast<Node *>(target->exprs)))
        return scan_declined(root, "a subquery in the select list");

    shape->keys = NIL;
    ListCell *lc;
    foreach (lc, parse->groupClause) {
        SortGroupClause *sgc = static_cast<SortGroupClause *>(lfirst(lc));
        if (!sgc->hashable)
            return scan_declined(root, "GROUP BY key %d has no hashable equality", list_length(shape->keys) + 1);
        Node *key = get_sortgroupclause_expr(sgc, parse->targetList);
        if (expression_returns_set(key))
            return scan_declined(root, "GROUP BY key %d is a set-returning function", list_length(shape->keys) + 1);
        shape->keys = lappend(shape->keys, key);
    }
    if (list_length(shape->keys) > kMaxKeys)
        return scan_declined(root, "more than %d GROUP BY keys", kMaxKeys);
    /* no column outside an aggregate or a key (a column functionally dependent on the keys) */
    if (column_outside(reinterpret_cast<Node *>(target->exprs), shape->keys))
        return scan_declined(root, "a column outside the aggregates and the GROUP BY keys");
    shape->aggrefs = NIL;
    foreach (lc, root->agginfos) {
        Aggref *aggref = GH_AGGINFO_AGGREF(static_cast<AggInfo *>(lfirst(lc)));
        HistogramForm form;
        if (!histogram_form_of(aggref->aggfnoid, &form) && !beside_aggregate(aggref->aggfnoid))
            return scan_declined(root, "the aggregate %s(%s), which the scan does not compute (it computes "
                                 "gpu_histogram in each of its forms, count, and sum, avg, min and max of "
                                 "integer, float and time columns)",
                                 get_func_name(aggref->aggfnoid), format_type_be(aggref->aggtype));
        shape->aggrefs = lappend(shape->aggrefs, aggref);
    }
    return true;
}

bool rel_fits(PlannerInfo *root, RelOptInfo *rel, List *keys, List *aggrefs, Candidate *c)
{
    RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
    if (IS_DUMMY_REL(rel))
        return false;
    if (rte->inh || (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
        !is_heap_table(rte->relid))
        return scan_declined(root, "%s is not a heap table or materialized view", get_rel_name(rte->relid));
    ListCell *lc;
    foreach (lc, keys) {
        GroupKeyDef def;
        if (!group_key_parse(static_cast<Expr *>(lfirst(lc)), rel->relid, &def))
            return scan_declined(root, "GROUP BY key %d is not one the scan computes: it reads another table, is "
                                 "volatile or parallel unsafe, or is of a type whose equal values may differ "
                                 "in their bytes (docs/custom-scan.md)",
                                 foreach_current_index(lc) + 1);
    }
    c->keys = keys;
    c->nhist = 0;
    c->ncells = 0;
    c->parallel_safe_args = is_parallel_safe(root, reinterpret_cast<Node *>(keys));
    c->no_partial_states = false;
    c->exact_sums = false;
    c->errors_after_keys = false;
    c->leaf_group = 0;
    int histograms = 0;
    foreach (lc, aggrefs) {
        Aggref *aggref = static_cast<Aggref *>(lfirst(lc));
        HistogramCall call;
        ScanAggregate beside{};
        if (!beside_aggregate(aggref->aggfnoid) && histogram_call_parse(aggref, rel->relid, &call))
            histograms++;
        else if (!beside_call_parse(aggref, rel->relid, &beside))
            return scan_declined(root, "%s", aggregate_refusal(aggref, rel->relid));
        if (!is_parallel_safe(root, reinterpret_cast<Node *>(aggref)))
            c->parallel_safe_args = false;
        if (value_aggregate_kind(beside.kind) && !value_aggregate_partial(beside))
            c->no_partial_states = true;
        /*
         * processes' float sums are merged exactly by the scan itself
         * (value_aggs.h), never by a Finalize Aggregate's float8_combine,
         * which adds them in the order they arrive
         */
        if (value_aggregate_kind(beside.kind) && value_agg_exact(beside))
            c->exact_sums = true;
        c->ncells += value_aggregate_kind(beside.kind) ? value_agg_cells(beside) : aggregate_cells(aggref, rel->relid);
        c->nhist++;
    }
    if (histograms == 0)
        return scan_declined(root, "no gpu_histogram over a column of %s",
                             get_rel_name(rte->relid));
    c->groups = 1;
    c->spill_share = 0;
    c->spill_depth = 0;
    if (keys != NIL) {
        c->groups = estimate_scan_groups(root, rel->relid, keys, rel->rows);
        /*
         * HashAggregate's bound.  Groups that come one after another in the
         * table (a time bucket over a time-ordered table) are emitted about
         * once each when the memory fills (group_table.h), where a group
         * has more than a few rows (else each would cost a partial row).
         * Others past the bound are spilled as HashAggregate spills them
         * (tuple_spill.h): the share of the rows whose groups do not fit is
         * written to temporary files and read back, once per depth of 32
         * partitions, which cost_scan() charges as costsize.c's cost_agg()
         * charges HashAggregate's spill, so the planner weighs it against
         * the ordinary plan's own.
         */
        const double bytes = c->groups * group_table_bytes_per_group(c->ncells, 8 * (1 + list_length(keys)) + 32);
        const double limit = static_cast<double>(get_hash_memory_limit());
        if (bytes > limit && (c->groups * 8 > rel->rows || !keys_follow_physical_order(root, rel->relid, keys))) {
            c->spill_share = 1 - limit / bytes;
            c->spill_depth = Max(1.0, ceil(log(bytes / limit) / log(static_cast<double>(kSpillParts))));
        }
    }

    /* row-level security's clauses first, then by cost, as a sequential scan's Filter */
    c->quals = qual_order_clauses(root, rel->baserestrictinfo);
    c->relid = rel->relid;
    c->read_fraction = Min(brin_read_fraction(root, rel, c->quals), ranges_read_fraction(root, rel, c->quals));
    return true;
}

} // namespace gpu_histogram
