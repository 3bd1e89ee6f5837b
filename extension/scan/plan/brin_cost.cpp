/*
 * brin_cost.cpp: the share of a table's pages the scan reads when a BRIN
 * index narrows its WHERE clause (scan/quals/brin_ranges.h), for the
 * scan's cost.  Without it the planner would price the scan at the whole
 * table and prefer a Bitmap Heap Scan under the ordinary aggregate, which
 * reads the same blocks and then every row through the executor.
 *
 * As brincostestimate() reasons: the ranges the clauses select, spread by
 * how far the column's order departs from the table's (its correlation
 * statistic); a column in table order leaves the clauses' share plus one
 * range, an unordered one the whole table.
 */
#include "plan_paths.h"

#include "../quals/brin_ranges.h"

#include <cmath>

extern "C" {
#include "access/brin.h"
#include "access/genam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_statistic.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace gpu_histogram {

double column_correlation(Oid relid, AttrNumber attno, bool inh)
{
    HeapTuple tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attno),
                                      BoolGetDatum(inh));
    if (!HeapTupleIsValid(tuple))
        return 0;
    double correlation = 0;
    AttStatsSlot slot;
    if (get_attstatsslot(&slot, tuple, STATISTIC_KIND_CORRELATION, InvalidOid, ATTSTATSSLOT_NUMBERS)) {
        if (slot.nnumbers > 0)
            correlation = std::fabs(slot.numbers[0]);
        free_attstatsslot(&slot);
    }
    ReleaseSysCache(tuple);
    return correlation;
}

double brin_read_fraction(PlannerInfo *root, RelOptInfo *rel, List *quals)
{
    if (quals == NIL || rel->pages <= 0)
        return 1;
    RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
    bool leakproof_only = rte->securityQuals != NIL; /* row-level security (brin_ranges.h) */
    double best = 1;
    ListCell *lc;
    foreach (lc, rel->indexlist) {
        IndexOptInfo *info = static_cast<IndexOptInfo *>(lfirst(lc));
        if (info->relam != BRIN_AM_OID)
            continue;
        List *usable = NIL;
        double correlation = 1;
        ListCell *qc;
        foreach (qc, quals) {
            Expr *clause = static_cast<Expr *>(lfirst(qc));
            int16 strategy;
            int col = brin_clause_column(clause, rel->relid, leakproof_only, info->nkeycolumns, info->indexkeys,
                                         info->opfamily, &strategy);
            if (col == 0)
                continue;
            usable = lappend(usable, clause);
            correlation = Min(correlation, column_correlation(rte->relid, info->indexkeys[col - 1], rte->inh));
        }
        if (usable == NIL)
            continue;
        Relation index = index_open(info->indexoid, NoLock); /* locked by the planner already */
        double per_range = BrinGetPagesPerRange(index);
        index_close(index, NoLock);
        double selectivity = clauselist_selectivity(root, usable, rel->relid, JOIN_INNER, NULL);
        double fraction = (selectivity + per_range / rel->pages) / Max(correlation * correlation, 1e-6);
        best = Min(best, fraction);
    }
    return Max(best, 0.0);
}

} // namespace gpu_histogram
