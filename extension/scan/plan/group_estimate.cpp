/*
 * group_estimate.cpp: PostgreSQL's group estimate, bounded by what the
 * scan's key functions can produce (group_estimate.h).
 */
#include "group_estimate.h"
#include "../keys/expression_bound.h"
#include "../keys/group_keys.h"

extern "C" {
#include "catalog/pg_statistic.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

namespace gpu_histogram {

namespace {

/* The correlation of the column's values with the rows' physical order, 0 if unknown. */
double column_correlation(PlannerInfo *root, Index relid, AttrNumber attno, Oid type)
{
    Var *var = makeVar(relid, attno, type, -1, InvalidOid, 0);
    VariableStatData vardata;
    examine_variable(root, reinterpret_cast<Node *>(var), 0, &vardata);
    double correlation = 0;
    if (HeapTupleIsValid(vardata.statsTuple)) {
        AttStatsSlot slot;
        if (get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_CORRELATION, InvalidOid,
                             ATTSTATSSLOT_NUMBERS)) {
            if (slot.nnumbers == 1)
                correlation = slot.numbers[0];
            free_attstatsslot(&slot);
        }
    }
    ReleaseVariableStats(vardata);
    return correlation;
}

} // namespace

bool keys_follow_physical_order(PlannerInfo *root, Index relid, List *keys)
{
    ListCell *lc;
    foreach (lc, keys) {
        GroupKeyDef def;
        if (!group_key_parse(static_cast<Expr *>(lfirst(lc)), relid, &def) || !def.ops->follows_column)
            continue; /* width_bucket's groups do not follow its column's order */
        if (fabs(column_correlation(root, relid, def.attno, def.coltype)) >= 0.9)
            return true;
    }
    return false;
}

double estimate_scan_groups(PlannerInfo *root, Index relid, List *keys, double input_rows)
{
    /*
     * PostgreSQL's estimate, and at most the product of each key's own:
     * its bound where its kind knows one, else PostgreSQL's for it alone.
     * (Scaling PostgreSQL's estimate by each bound over its key's own
     * estimate undercounts keys of one column: extract(dow) and
     * extract(hour) of one ts came out as one group.)
     */
    double groups = estimate_num_groups(root, keys, input_rows, NULL, NULL);
    double product = 1;
    bool bounded = false;
    ListCell *lc;
    foreach (lc, keys) {
        double alone = estimate_num_groups(root, list_make1(lfirst(lc)), input_rows, NULL, NULL);
        GroupKeyDef def;
        if (group_key_parse(static_cast<Expr *>(lfirst(lc)), relid, &def) && def.ops->group_bound != NULL) {
            const double bound = def.ops->group_bound(root, relid, def);
            if (bound > 0 && bound < alone) {
                alone = bound;
                bounded = true;
            }
        }
        product *= alone;
    }
    const double joint = expression_keys_joint_bound(root, relid, keys);
    if (joint > 0 && joint < (bounded ? Min(groups, product) : groups)) {
        groups = joint;
        product = joint;
        bounded = true;
    }
    return clamp_row_est(bounded ? Min(groups, product) : groups);
}

} // namespace gpu_histogram
