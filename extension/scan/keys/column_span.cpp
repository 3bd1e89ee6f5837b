/*
 * column_span.cpp: the span of a timestamp column a query reads, from its
 * statistics and its WHERE clause (column_span.h).
 */
#include "column_span.h"

extern "C" {
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_statistic.h"
#include "commands/defrem.h"
#include "datatype/timestamp.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
}

namespace gpu_histogram {

namespace {

/* A stored value of a timestamp or integer column as int64; false for an infinity. */
bool span_word(Oid type, Datum d, int64 *out)
{
    switch (type) {
    case INT2OID: *out = DatumGetInt16(d); return true;
    case INT4OID: *out = DatumGetInt32(d); return true;
    case INT8OID: *out = DatumGetInt64(d); return true;
    }
    *out = DatumGetInt64(d);
    return !TIMESTAMP_NOT_FINITE(*out);
}

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
        int64 v;
        if (!span_word(coltype, reinterpret_cast<Const *>(estimated)->constvalue, &v))
            continue;
        /* which side the value bounds: by the operator's btree strategy in the column type's family */
        Oid opfamily = get_opclass_family(GetDefaultOpClass(coltype, BTREE_AM_OID));
        int strategy = OidIsValid(opfamily) ? get_op_opfamily_strategy(op->opno, opfamily) : 0;
        if (!var_left) /* value op column: the column is on the other side */
            strategy = strategy == BTLessStrategyNumber ? BTGreaterStrategyNumber
                     : strategy == BTLessEqualStrategyNumber ? BTGreaterEqualStrategyNumber
                     : strategy == BTGreaterStrategyNumber ? BTLessStrategyNumber
                     : strategy == BTGreaterEqualStrategyNumber ? BTLessEqualStrategyNumber
                                                                : strategy;
        switch (strategy) {
        case BTLessStrategyNumber:
        case BTLessEqualStrategyNumber: *hi = Min(*hi, v); break;
        case BTGreaterStrategyNumber:
        case BTGreaterEqualStrategyNumber: *lo = Max(*lo, v); break;
        case BTEqualStrategyNumber: *lo = Max(*lo, v); *hi = Min(*hi, v); break;
        }
    }
}

} // namespace

/*
 * The span of a timestamp, timestamptz or integer column's finite values
 * the query reads: its statistics histogram's, within the WHERE clause's
 * bounds.
 */
bool planner_column_span(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, double *span_usec)
{
    if (coltype != TIMESTAMPOID && coltype != TIMESTAMPTZOID && coltype != INT2OID && coltype != INT4OID &&
        coltype != INT8OID)
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
                int64 v;
                if (!span_word(coltype, slot.values[i], &v))
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

bool planner_bucket_groups(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, double length,
                           double *groups)
{
    if (!(length > 0) || (coltype != TIMESTAMPOID && coltype != TIMESTAMPTZOID))
        return false;
    const double rows = root->simple_rel_array[relid]->tuples;
    Var *var = makeVar(relid, attno, coltype, -1, InvalidOid, 0);
    VariableStatData vardata;
    examine_variable(root, reinterpret_cast<Node *>(var), 0, &vardata);
    bool found = false;
    if (HeapTupleIsValid(vardata.statsTuple) && rows > 0) {
        int64 lo = PG_INT64_MIN, hi = PG_INT64_MAX;
        narrow_by_quals(root, relid, attno, coltype, &lo, &hi);
        double common = 0, sum = 0;
        AttStatsSlot mcv;
        if (get_attstatsslot(&mcv, vardata.statsTuple, STATISTIC_KIND_MCV, InvalidOid,
                             ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS)) {
            for (int i = 0; i < mcv.nvalues; i++) {
                int64 v;
                common += mcv.numbers[i];
                if (!span_word(coltype, mcv.values[i], &v) || (v >= lo && v <= hi))
                    sum += 1; /* a common value is one group */
            }
            free_attstatsslot(&mcv);
        }
        AttStatsSlot hist;
        if (get_attstatsslot(&hist, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
                             ATTSTATSSLOT_VALUES)) {
            const double nullfrac = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(vardata.statsTuple))->stanullfrac;
            const double per_bucket =
                hist.nvalues > 1 ? rows * Max(0.0, 1.0 - nullfrac - common) / (hist.nvalues - 1) : 0;
            for (int i = 0; i + 1 < hist.nvalues; i++) {
                int64 a, b;
                const bool finite = span_word(coltype, hist.values[i], &a) & span_word(coltype, hist.values[i + 1], &b);
                if (!finite) {
                    sum += per_bucket; /* up to an infinity: as many groups as rows, at most */
                    continue;
                }
                a = Max(a, lo);
                b = Min(b, hi);
                if (a <= b)
                    sum += Min(per_bucket, (static_cast<double>(b) - static_cast<double>(a)) / length + 1);
            }
            free_attstatsslot(&hist);
            found = true;
        }
        *groups = sum;
    }
    ReleaseVariableStats(vardata);
    return found;
}

/* The shortest a bucket of a date_trunc unit can be, in microseconds. */
double trunc_unit_usec(int unit)
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

} // namespace gpu_histogram
