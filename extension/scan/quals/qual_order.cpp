/*
 * qual_order.cpp: the scan's clauses in a sequential scan's order
 * (qual_order.h).
 */
#include "qual_order.h"

extern "C" {
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
}

namespace gpu_histogram {

namespace {

struct OrderedQual {
    Node *clause;
    Cost cost;
    Index security_level;
};

} // namespace

List *qual_order_clauses(PlannerInfo *root, List *rinfos)
{
    const int n = list_length(rinfos);
    if (n == 0)
        return NIL;
    OrderedQual *items = static_cast<OrderedQual *>(palloc(sizeof(OrderedQual) * n));
    int i = 0;
    ListCell *lc;
    foreach (lc, rinfos) {
        RestrictInfo *rinfo = static_cast<RestrictInfo *>(lfirst(lc));
        QualCost cost;
        cost_qual_eval_node(&cost, reinterpret_cast<Node *>(rinfo), root);
        items[i].clause = reinterpret_cast<Node *>(rinfo->clause);
        items[i].cost = cost.per_tuple;
        /*
         * As the planner does: a leakproof clause that costs less than ten
         * operators may run before the clauses of lower security levels
         * (a row-level security policy's), as if it had none.
         */
        items[i].security_level = rinfo->leakproof && cost.per_tuple < 10 * cpu_operator_cost ? 0 : rinfo->security_level;
        i++;
    }
    /* a stable insertion sort, by level, then cost: equal ones keep the query's order */
    for (i = 1; i < n; i++) {
        const OrderedQual item = items[i];
        int j = i;
        for (; j > 0; j--) {
            const OrderedQual &before = items[j - 1];
            if (item.security_level > before.security_level ||
                (item.security_level == before.security_level && item.cost >= before.cost))
                break;
            items[j] = before;
        }
        items[j] = item;
    }
    List *clauses = NIL;
    for (i = 0; i < n; i++)
        clauses = lappend(clauses, items[i].clause);
    pfree(items);
    return clauses;
}

} // namespace gpu_histogram
