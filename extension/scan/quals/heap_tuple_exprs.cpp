/*
 * heap_tuple_exprs.cpp: expressions compiled for a heap tuple in the scan
 * slot (heap_tuple_exprs.h).
 */
#include "heap_tuple_exprs.h"

#include "../../pg_compat.h"

extern "C" {
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
}

namespace gpu_histogram {

namespace {

Node *vars_mutator(Node *node, void *context)
{
    if (node == NULL)
        return NULL;
    if (IsA(node, Var)) {
        Var *var = static_cast<Var *>(copyObjectImpl(node));
        var->varno = INDEX_VAR;
        return reinterpret_cast<Node *>(var);
    }
    return expression_tree_mutator(node, GH_MUTATOR(vars_mutator), context);
}

/*
 * Runs compile() with parent's scan slot described as a heap tuple of
 * desc, then puts the parent's own description back: ExecInitExpr reads
 * scandesc and scanops to decide how a Var is fetched.
 */
template <typename Compile> ExprState *as_heap_tuple(TupleDesc desc, PlanState *parent, Compile compile)
{
    TupleDesc scan_desc = parent->scandesc;
    const TupleTableSlotOps *scan_ops = parent->scanops;
    const bool fixed = parent->scanopsfixed, set = parent->scanopsset;
    parent->scandesc = desc;
    parent->scanops = &TTSOpsHeapTuple;
    parent->scanopsfixed = parent->scanopsset = true;
    ExprState *state = compile();
    parent->scandesc = scan_desc;
    parent->scanops = scan_ops;
    parent->scanopsfixed = fixed;
    parent->scanopsset = set;
    return state;
}

} // namespace

Node *heap_tuple_vars(Node *node)
{
    return vars_mutator(node, NULL);
}

ExprState *heap_tuple_expr_init(Expr *expr, TupleDesc desc, PlanState *parent)
{
    Expr *over_tuple = reinterpret_cast<Expr *>(heap_tuple_vars(reinterpret_cast<Node *>(expr)));
    return as_heap_tuple(desc, parent, [&] { return ExecInitExpr(over_tuple, parent); });
}

ExprState *heap_tuple_qual_init(List *quals, TupleDesc desc, PlanState *parent)
{
    return as_heap_tuple(desc, parent, [&] { return ExecInitQual(quals, parent); });
}

bool heap_tuple_qual_passes(ExprState *qual, TupleTableSlot *slot, ExprContext *econtext, HeapTupleData *t)
{
    ExecStoreHeapTuple(t, slot, false);
    econtext->ecxt_scantuple = slot;
    const bool pass = ExecQual(qual, econtext);
    ResetExprContext(econtext);
    return pass;
}

} // namespace gpu_histogram
