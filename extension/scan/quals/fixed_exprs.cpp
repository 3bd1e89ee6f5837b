/*
 * fixed_exprs.cpp: see fixed_exprs.h.
 */
#include "fixed_exprs.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

bool row_dependent_walker(Node *node, void *)
{
    if (node == NULL)
        return false;
    if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, Aggref) || IsA(node, WindowFunc) ||
        IsA(node, GroupingFunc) || IsA(node, SubLink) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan))
        return true;
    return expression_tree_walker(node, GH_WALKER(row_dependent_walker), NULL);
}

} // namespace

bool fixed_for_scan(Node *e)
{
    return !row_dependent_walker(e, NULL) && !contain_volatile_functions(e) && !expression_returns_set(e);
}

} // namespace gpu_histogram
