/*
 * group_estimate.cpp: PostgreSQL's group estimate, bounded by what the
 * scan's key functions can produce (group_estimate.h).
 */
#include "group_estimate.h"
#include "../group/group_keys.h"

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_statistic.h"
#include "commands/defrem.h"
#include "nodes/nodeFuncs.h"
#include "nodes/makefuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "datatype/timestamp.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/timestamp.h"
}

namespace {

/*
 * Narrows [*lo, *hi] by the WHERE clause's comparisons of the column with
 * values fixed for the query (`ts >= $1`, BETWEEN, `ts > now() - interval
 * '2 days'`, Grafana's $__timeFilter), each estimated as the planner
 * estimates a stable expression.  Minute buckets over two weeks of a
 * table of years are a few tens of thousands of groups, not millions: the
 * estimate that ignored the range sent them to the ordinary plan.
 */
void narrow_by_quals(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, int64 *lo, int64 *hi)
{
    RelOptInfo *rel = root->simple_rel_array[relid];
    ListCell *lc;
    foreach (lc, rel->baserestrictinfo) {
        Expr *clause = static_cast<RestrictInfo *>(lfirst(lc))->clause;
        if (!IsA(clause, OpExpr) || list_length(reinterpret_cast<OpExpr *>(clause)->args) != 2)
            continue;
        OpExpr *op = reinterpret_cast<OpExpr *>(clause);
        Node *left = static_cast<Node *>(linitial(op->args)), *right = static_cast<Node *>(lsecond(op->args));
        bool var_left = IsA(left, Var);
        Var *var = reinterpret_cast<Var *>(var_left ? left : right);
        Node *value = var_left ? right : left;
        if (!IsA(var, Var) || static_cast<Index>(var->varno) != relid || var->varattno != attno || var->vartype != coltype ||
            exprType(value) != coltype || contain_var_clause(value) || contain_volatile_functions(value))
            continue;
        Node *estimated = estimate_expression_value(root, value);
        if (!IsA(estimated, Const) || reinterpret_cast<Const *>(estimated)->constisnull)
            continue;
        const int64 v = DatumGetInt64(reinterpret_cast<Const *>(estimated)->constvalue);
        /* which side the value bounds: by the operator's btree strategy in the column type's family */
        Oid opfamily = get_opclass_family(GetDefaultOpClass(coltype, BTREE_AM_OID));
        int strategy = OidIsValid(opfamily) ? get_op_opfamily_strategy(op->opno, opfamily) : 0;
        if (!var_left) /* value op column: the column is on the other side */
            strategy = strategy == BTLessStrategyNumber ? BTGreaterStrategyNumber
                     : strategy == BTLessEqualStrategyNumber ? BTGreaterEqualStrategyNumber
                     : strategy == BTGreaterStrategyNumber ? BTLessStrategyNumber
                     : strategy == BTGreaterEqualStrategyNumber ? BTLessEqualStrategyNumber
                                                                : strategy;
        if (TIMESTAMP_NOT_FINITE(v))
            continue;
        switch (strategy) {
        case BTLessStrategyNumber:
        case BTLessEqualStrategyNumber: *hi = Min(*hi, v); break;
        case BTGreaterStrategyNumber:
        case BTGreaterEqualStrategyNumber: *lo = Max(*lo, v); break;
        case BTEqualStrategyNumber: *lo = Max(*lo, v); *hi = Min(*hi, v); break;
        }
    }
}

/*
 * The span of a timestamp or timestamptz column's finite values the query
 * reads: its statistics histogram's, within the WHERE clause's bounds.
 */
bool column_span(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, double *span_usec)
{
    if (coltype != TIMESTAMPOID && coltype != TIMESTAMPTZOID)
        return false;
    Var *var = makeVar(relid, attno, coltype, -1, InvalidOid, 0);
    VariableStatData vardata;
    examine_variable(root, reinterpret_cast<Node *>(var), 0, &vardata);
    bool found = false;
    if (HeapTupleIsValid(vardata.statsTuple)) {
        AttStatsSlot slot;
        if (get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
                             ATTSTATSSLOT_VALUES)) {
            int64 lo = 0, hi = 0;
            bool any = false;
            for (int i = 0; i < slot.nvalues; i++) {
                int64 v = DatumGetInt64(slot.values[i]);
                if (TIMESTAMP_NOT_FINITE(v))
                    continue;
                lo = any ? Min(lo, v) : v;
                hi = any ? Max(hi, v) : v;
                any = true;
            }
            if (any) {
                narrow_by_quals(root, relid, attno, coltype, &lo, &hi);
                *span_usec = hi > lo ? static_cast<double>(hi) - static_cast<double>(lo) : 0;
                found = true;
            }
            free_attstatsslot(&slot);
        }
    }
    ReleaseVariableStats(vardata);
    return found;
}

/* The shortest a bucket of a date_trunc unit can be, in microseconds. */
double unit_usec(int unit)
{
    switch (unit) {
    case DTK_MICROSEC: return 1;
    case DTK_MILLISEC: return 1e3;
    case DTK_SECOND: return 1e6;
    case DTK_MINUTE: return 60e6;
    case DTK_HOUR: return 3600e6;
    case DTK_DAY: return 23 * 3600e6; /* a DST change shortens a day */
    case DTK_WEEK: return 7 * 23 * 3600e6;
    case DTK_MONTH: return 28 * 86400e6 - 3600e6;
    case DTK_QUARTER: return 89 * 86400e6;
    case DTK_YEAR: return 365 * 86400e6;
    case DTK_DECADE: return 3652 * 86400e6;
    case DTK_CENTURY: return 36524 * 86400e6;
    case DTK_MILLENNIUM: return 365242 * 86400e6;
    }
    return 0;
}

/* An upper bound on the key's distinct values, or 0 if none is known. */
double key_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    if (def.kind == KeyKind::width_bucket) {
        const Expr *n = def.args[2];
        if (IsA(n, Const) && !reinterpret_cast<const Const *>(n)->constisnull)
            return Max(DatumGetInt32(reinterpret_cast<const Const *>(n)->constvalue), 0) + 3.0;
        return 0;
    }
    double length = 0;
    if (def.kind == KeyKind::time_bucket && def.coltype != DATEOID) {
        /* its width, when a constant; a month as its shortest */
        const Expr *width = def.tsdb.args[0];
        if (IsA(width, Const) && !reinterpret_cast<const Const *>(width)->constisnull) {
            const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(width)->constvalue);
            length = iv->month * 28 * 86400e6 + iv->day * 86400e6 + static_cast<double>(iv->time);
        }
        double span;
        if (length <= 0 || !column_span(root, relid, def.attno, def.coltype, &span))
            return 0;
        return span / length + 3.0;
    }
    if (def.kind != KeyKind::time)
        return 0;
    switch (def.time_kind) {
    case TimeKeyKind::trunc: length = unit_usec(def.unit); break;
    case TimeKeyKind::to_date: length = unit_usec(DTK_DAY); break;
    case TimeKeyKind::bin: {
        const Expr *stride = def.args[0];
        if (IsA(stride, Const) && !reinterpret_cast<const Const *>(stride)->constisnull) {
            const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(stride)->constvalue);
            length = iv->day * 86400e6 + static_cast<double>(iv->time);
        }
        break;
    }
    }
    double span;
    if (length <= 0 || !column_span(root, relid, def.attno, def.coltype, &span))
        return 0;
    return span / length + 3.0; /* both partial ends, and infinities or NULLs */
}

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
        if (!group_key_parse(static_cast<Expr *>(lfirst(lc)), relid, &def) || def.kind == KeyKind::width_bucket)
            continue; /* width_bucket's groups do not follow its column's order */
        if (fabs(column_correlation(root, relid, def.attno, def.coltype)) >= 0.9)
            return true;
    }
    return false;
}

double estimate_scan_groups(PlannerInfo *root, Index relid, List *keys, double input_rows)
{
    double groups = estimate_num_groups(root, keys, input_rows, NULL, NULL);
    ListCell *lc;
    foreach (lc, keys) {
        GroupKeyDef def;
        if (!group_key_parse(static_cast<Expr *>(lfirst(lc)), relid, &def))
            continue;
        double bound = key_bound(root, relid, def);
        if (bound <= 0)
            continue;
        double alone = estimate_num_groups(root, list_make1(lfirst(lc)), input_rows, NULL, NULL);
        if (bound < alone)
            groups *= bound / alone;
    }
    return clamp_row_est(groups);
}
