/*
 * cached_cost.cpp: the scan's shape and its cached share (cached_cost.h).
 */
#include "cached_cost.h"

#include "../offload/page_gpu.h"

#include "../../device_policy.h"
#include "../../pg_compat.h"
#include "../../settings.h"

extern "C" {
#include "access/table.h"
#include "access/xlog.h"
#include "common/hashfn.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

namespace {

/* Mixes a node's kind and what identifies it, never a constant's value. */
bool shape_walker(Node *node, uint32 *h)
{
    if (node == NULL)
        return false;
    uint32 part = static_cast<uint32>(nodeTag(node));
    switch (nodeTag(node)) {
    case T_Var: part ^= static_cast<uint32>(castNode(Var, node)->varattno) << 8; break;
    case T_Const: part ^= castNode(Const, node)->consttype << 8; break;
    case T_FuncExpr: part ^= castNode(FuncExpr, node)->funcid << 8; break;
    case T_OpExpr: part ^= castNode(OpExpr, node)->opno << 8; break;
    case T_ScalarArrayOpExpr: part ^= castNode(ScalarArrayOpExpr, node)->opno << 8; break;
    case T_Aggref: part ^= castNode(Aggref, node)->aggfnoid << 8; break;
    default: break;
    }
    *h = hash_combine(*h, hash_bytes_uint32(part));
    return expression_tree_walker(node, GH_WALKER(shape_walker), h);
}

} // namespace

uint32 scan_shape(List *keys, List *quals, List *target_exprs)
{
    uint32 h = 0;
    (void)shape_walker(reinterpret_cast<Node *>(keys), &h);
    h = hash_combine(h, 1);
    (void)shape_walker(reinterpret_cast<Node *>(quals), &h);
    h = hash_combine(h, 2);
    /* the aggregates only: a partial and a finished scan of one query are one shape */
    ListCell *lc;
    foreach (lc, target_exprs)
        if (IsA(lfirst(lc), Aggref))
            (void)shape_walker(reinterpret_cast<Node *>(castNode(Aggref, lfirst(lc))->args), &h);
    return h;
}

double scan_cached_share(PlannerInfo *root, RelOptInfo *rel, uint32 shape)
{
    if (!device_gpu_wanted() || !gh_pages_on_gpu || !gh_page_probes || RecoveryInProgress())
        return 0;
    Relation r = table_open(planner_rt_fetch(rel->relid, root)->relid, NoLock);
    gh::PageCacheRel file = page_gpu_cache_rel(r);
    table_close(r, NoLock);
    return gpu_service_cached_share(file, shape);
}

} // namespace gpu_histogram
