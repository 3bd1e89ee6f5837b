/*
 * plan_args.cpp: the arguments of gpu_histogram() other than the binned
 * value, evaluated once per query when they do not depend on the row.
 *
 * Why: the executor evaluates every aggregate argument on every row.  For a
 * literal or a parameter that costs nothing, but an expression the planner
 * cannot fold to a constant is computed again for each row: a thresholds
 * argument such as (SELECT array_agg(v) FROM edges)::float8[] converts the
 * whole array per row (1,000 numeric thresholds over 200,000 rows: seconds
 * instead of milliseconds), and now() - interval '1 day' is a little work per
 * row too.
 *
 * How, in PostgreSQL's own terms: a planner hook, before standard_planner,
 * rewrites such an argument E into the uncorrelated scalar sub-select
 * (SELECT E).  The planner turns that into an InitPlan: evaluated once,
 * lazily (not at all for a query that reads no rows), shown by EXPLAIN, and
 * passed to parallel workers by Gather as any InitPlan is.  The aggregate
 * then sees a Param, which the threshold form treats as a constant array
 * (threshold_aggregate.cpp) and the custom scan accepts as a fixed argument.
 *
 * An argument is rewritten when it
 *   - belongs to one of this database's gpu_histogram aggregates (found by
 *     name and extension; nothing happens where the extension is not
 *     created), in an Aggref of its own query level without DISTINCT or
 *     ORDER BY;
 *   - is not the first argument (the value binned on every row);
 *   - references no column of any query level, no aggregate or grouping of
 *     the enclosing queries, no window function and no set-returning
 *     function of its own, and calls nothing volatile (so evaluating it once
 *     gives what every row would have got);
 *   - would be evaluated per row at all: it is not a Const, a Param or a
 *     scalar or ARRAY() sub-select (an InitPlan already), and it holds a
 *     sub-select, a parameter the planner will not replace by its value, a
 *     stable function, or a domain check.  An expression of immutable
 *     functions over constants is left to the planner, which folds it into
 *     a constant anyway.
 * Every query level is visited: sub-selects in FROM, CTEs, sub-links, the
 * branches of set operations.  Window aggregates (WindowFunc) are left
 * alone: a sub-select in their arguments would keep PostgreSQL from using
 * the moving-aggregate functions.
 */
#include "pg_headers.h"

#include "plan_args.h"

extern "C" {
#include "catalog/dependency.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "rewrite/rewriteManip.h"
#include "utils/syscache.h"
}
#include "pg_compat.h"

namespace gpu_histogram {

namespace {

planner_hook_type prev_planner_hook = NULL;

/* What one planner call has found out so far. */
struct Rewriter {
    ParamListInfo bound_params;
    bool extension_looked_up;
    Oid extension; /* InvalidOid where it is not created */
    List *ours;    /* aggregate OIDs known to be our gpu_histogram ... */
    List *others;  /* ... and known not to be */
    Query *query;  /* the query level whose expressions are being walked */
};

/* aggfnoid is a gpu_histogram aggregate of this database's extension. */
bool is_our_aggregate(Rewriter *rw, Oid aggfnoid)
{
    if (list_member_oid(rw->ours, aggfnoid))
        return true;
    if (list_member_oid(rw->others, aggfnoid))
        return false;
    bool ours = false;
    HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(aggfnoid));
    if (HeapTupleIsValid(tuple)) {
        Form_pg_proc proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple));
        ours = proc->prokind == PROKIND_AGGREGATE && strcmp(NameStr(proc->proname), "gpu_histogram") == 0;
        ReleaseSysCache(tuple);
    }
    if (ours) {
        if (!rw->extension_looked_up) {
            rw->extension = get_extension_oid("gpu_histogram", true);
            rw->extension_looked_up = true;
        }
        ours = OidIsValid(rw->extension) && getExtensionOfObject(ProcedureRelationId, aggfnoid) == rw->extension;
    }
    if (ours)
        rw->ours = lappend_oid(rw->ours, aggfnoid);
    else
        rw->others = lappend_oid(rw->others, aggfnoid);
    return ours;
}

/*
 * Whether an expression depends on the row it is evaluated for, or holds
 * something that must not move into a sub-select of its own.  depth counts
 * the sub-selects entered: inside one, only references that reach the
 * expression's own level or beyond (levelsup >= depth) count.
 */
bool depends_on_row_walker(Node *node, int *depth)
{
    if (node == NULL)
        return false;
    switch (nodeTag(node)) {
    case T_Var:
        return static_cast<int>(reinterpret_cast<Var *>(node)->varlevelsup) >= *depth;
    case T_PlaceHolderVar:
        return static_cast<int>(reinterpret_cast<PlaceHolderVar *>(node)->phlevelsup) >= *depth;
    case T_Aggref:
        if (static_cast<int>(reinterpret_cast<Aggref *>(node)->agglevelsup) >= *depth)
            return true;
        break;
    case T_GroupingFunc:
        return static_cast<int>(reinterpret_cast<GroupingFunc *>(node)->agglevelsup) >= *depth;
    case T_WindowFunc:
        if (*depth == 0)
            return true;
        break;
    case T_CurrentOfExpr:
        return true;
    case T_Param: {
        /* PARAM_EXTERN is fixed for the query; PARAM_SUBLINK belongs to the expression's own sub-link */
        ParamKind kind = reinterpret_cast<Param *>(node)->paramkind;
        return kind == PARAM_EXEC || kind == PARAM_MULTIEXPR;
    }
    case T_FuncExpr:
        if (*depth == 0 && reinterpret_cast<FuncExpr *>(node)->funcretset)
            return true;
        break;
    case T_OpExpr:
        if (*depth == 0 && reinterpret_cast<OpExpr *>(node)->opretset)
            return true;
        break;
    case T_Query: {
        (*depth)++;
        bool found = query_tree_walker(reinterpret_cast<Query *>(node), GH_WALKER(depends_on_row_walker), depth, 0);
        (*depth)--;
        return found;
    }
    default:
        break;
    }
    return expression_tree_walker(node, GH_WALKER(depends_on_row_walker), depth);
}

/* A parameter that the planner replaces by its value (eval_const_expressions' test). */
bool param_is_bound_constant(const Rewriter *rw, const Param *param)
{
    ParamListInfo params = rw->bound_params;
    if (param->paramkind != PARAM_EXTERN || params == NULL || param->paramid <= 0 ||
        param->paramid > params->numParams)
        return false;
    ParamExternData scratch;
    const ParamExternData *prm = params->paramFetch != NULL
                                     ? params->paramFetch(params, param->paramid, true, &scratch)
                                     : &params->params[param->paramid - 1];
    return OidIsValid(prm->ptype) && (prm->pflags & PARAM_FLAG_CONST) && prm->ptype == param->paramtype;
}

/*
 * Whether the planner leaves part of an expression to be evaluated per row:
 * a sub-select, a parameter it does not replace, a domain check (stable
 * functions: contain_mutable_functions).
 */
bool left_unfolded_walker(Node *node, Rewriter *rw)
{
    if (node == NULL)
        return false;
    if (IsA(node, SubLink) || IsA(node, CoerceToDomain))
        return true;
    if (IsA(node, Param))
        return !param_is_bound_constant(rw, reinterpret_cast<Param *>(node));
    return expression_tree_walker(node, GH_WALKER(left_unfolded_walker), rw);
}

bool evaluate_once(Rewriter *rw, Expr *e)
{
    if (IsA(e, Const) || IsA(e, Param))
        return false;
    /* an uncorrelated scalar or ARRAY() sub-select is an InitPlan already */
    if (IsA(e, SubLink)) {
        SubLinkType type = reinterpret_cast<SubLink *>(e)->subLinkType;
        if (type == EXPR_SUBLINK || type == ARRAY_SUBLINK)
            return false;
    }
    int depth = 0;
    Node *node = reinterpret_cast<Node *>(e);
    return !depends_on_row_walker(node, &depth) && !contain_volatile_functions(node) &&
           (left_unfolded_walker(node, rw) || contain_mutable_functions(node));
}

/* (SELECT e): a sub-select with no FROM and one output column, e one level further down. */
Expr *scalar_subselect(Expr *e)
{
    Node *node = reinterpret_cast<Node *>(e);
    IncrementVarSublevelsUp(node, 1, 0); /* references to outer CTEs now reach one level further */
    Query *sub = makeNode(Query);
    sub->commandType = CMD_SELECT;
    sub->querySource = QSRC_ORIGINAL;
    sub->canSetTag = true;
    sub->jointree = makeFromExpr(NIL, NULL);
    sub->targetList = list_make1(makeTargetEntry(e, 1, pstrdup("?column?"), false));
    sub->hasSubLinks = checkExprHasSubLink(node);
    SubLink *link = makeNode(SubLink);
    link->subLinkType = EXPR_SUBLINK;
    link->subLinkId = 0;
    link->testexpr = NULL;
    link->operName = NIL;
    link->subselect = reinterpret_cast<Node *>(sub);
    link->location = exprLocation(node);
    return reinterpret_cast<Expr *>(link);
}

void rewrite_arguments(Rewriter *rw, Aggref *aggref)
{
    if (aggref->agglevelsup != 0 || aggref->aggkind != AGGKIND_NORMAL || aggref->aggdistinct != NIL ||
        aggref->aggorder != NIL || list_length(aggref->args) < 2 || !is_our_aggregate(rw, aggref->aggfnoid))
        return;
    ListCell *lc;
    for_each_from(lc, aggref->args, 1) {
        TargetEntry *tle = static_cast<TargetEntry *>(lfirst(lc));
        if (evaluate_once(rw, tle->expr)) {
            tle->expr = scalar_subselect(tle->expr);
            rw->query->hasSubLinks = true;
        }
    }
}

bool rewrite_walker(Node *node, Rewriter *rw)
{
    if (node == NULL)
        return false;
    if (IsA(node, Query)) {
        Query *outer = rw->query;
        rw->query = reinterpret_cast<Query *>(node);
        query_tree_walker(rw->query, GH_WALKER(rewrite_walker), rw, 0);
        rw->query = outer;
        return false;
    }
    if (IsA(node, Aggref))
        rewrite_arguments(rw, reinterpret_cast<Aggref *>(node));
    return expression_tree_walker(node, GH_WALKER(rewrite_walker), rw);
}

PlannedStmt *plan_args_planner(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params)
{
    Rewriter rw = {bound_params, false, InvalidOid, NIL, NIL, NULL};
    rewrite_walker(reinterpret_cast<Node *>(parse), &rw);
    if (prev_planner_hook != NULL)
        return prev_planner_hook(parse, query_string, cursor_options, bound_params);
    return standard_planner(parse, query_string, cursor_options, bound_params);
}

} // namespace

void gpu_histogram_plan_args_init(void)
{
    prev_planner_hook = planner_hook;
    planner_hook = plan_args_planner;
}

} // namespace gpu_histogram
