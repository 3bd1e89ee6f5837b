/*
 * scan_node.h: what the GpuHistogramScan planner and executor agree on.
 *
 * The plan node is a CustomScan on the table (scanrelid), with
 *   custom_scan_tlist  the Aggrefs it computes (gpu_histogram(), count(*),
 *                      count(col)), then its GROUP BY keys (group_keys.h),
 *                      then the table's Vars that the quals use;
 *   custom_exprs       the WHERE clause, as an implicit AND list, then,
 *                      where the node emits finished rows, HAVING's;
 *   custom_private     (naggs, nkeys, nquals, shape, errors_after_keys,
 *                      leaf_group): how many of custom_scan_tlist are
 *                      Aggrefs and keys, how many of custom_exprs are the
 *                      WHERE clause's, the scan's shape
 *                      (plan/cached_cost.h), whether the plan it replaced
 *                      sorts every row before its aggregates
 *                      (plan/ordinary_order.cpp), and the Append whose
 *                      leaves' errors (serially) or float sums wait for
 *                      its last (0: none; grouped/leaf_errors.h,
 *                      grouped/leaf_merge.h).
 * setrefs.c rewrites the targetlist and custom_exprs to INDEX_VAR references
 * into custom_scan_tlist (a qual that repeats a key's expression refers to
 * the key); the executor maps the quals' references back to the entries'
 * expressions over the table's own attributes and evaluates them on the
 * heap tuple.
 */
#ifndef GH_SCAN_NODE_H
#define GH_SCAN_NODE_H

#include "../pg_headers.h"

#include "../../gpu/specs/histogram_spec.h"

extern "C" {
#include "nodes/extensible.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
}

#define GH_SCAN_NODE_NAME "GpuHistogramScan"

namespace gpu_histogram {

/* gpu_histogram.scan */
extern bool gh_scan_enabled;

/* The executor's side of the plan node (exec.cpp). */
extern const CustomScanMethods gh_scan_plan_methods;

/*
 * Which gpu_histogram a call is (sql/gpu_histogram--1.0--1.1.sql): the
 * float8 form width_bucket(value, lo, hi, nbins); the time form over a
 * timestamptz, timestamp or date column, whose values travel as the
 * stored integer and are bucketed as numeric width_bucket would bucket
 * it; and the thresholds form width_bucket(value, thresholds).
 */
enum class HistogramForm { interval, time, date, thresholds };

/* One gpu_histogram call, taken apart. */
struct HistogramCall {
    HistogramForm form;
    AttrNumber attno; /* the binned column of the scanned table */
    Oid coltype;      /* its type: float8, float4, int2, int4, int8 or numeric (interval, thresholds);
                         timestamptz or timestamp (time); date (date) */
    Expr *lo;         /* the other arguments: no Vars, fixed for the scan */
    Expr *hi;
    Expr *nbins;
    Expr *thresholds; /* the thresholds form's float8[] (lo, hi and nbins are NULL) */
};

/* The aggregates the scan computes besides gpu_histogram(). */
enum class AggKind { histogram, count_star, count_column, sum, avg, min, max };

/* One Aggref of the scan, taken apart. */
struct ScanAggregate {
    AggKind kind;
    HistogramCall call;     /* histogram */
    AttrNumber count_attno; /* count_column: the column whose non-NULL values count */
    AttrNumber attno;       /* sum, avg, min, max: their column ... */
    Oid coltype;            /* ... and its type (value_aggs.h lists those taken) */
    int32 scale;            /* a numeric(p, s) column's s */
};

/*
 * An aggregate beside the histograms, over a column of table relid, plain
 * (no DISTINCT, ORDER BY or FILTER): count(*), count(col), or sum, avg,
 * min or max of a column of a type value_aggs.h takes.  Fills *out.  The
 * planner has checked the rest.
 */
bool beside_call_parse(const Aggref *aggref, Index relid, ScanAggregate *out);

/*
 * Why aggregate aggref (one beside_call_parse() or histogram_call_parse()
 * refused) is not the scan's, for the planner's DEBUG1 line: a DISTINCT,
 * an ORDER BY or a FILTER inside it, a numeric column of a typmod the scan
 * does not read, or an argument other than a column of the table (or a
 * value fixed for the scan).  palloc'd.
 */
char *aggregate_refusal(const Aggref *aggref, Index relid);

/* Whether aggfnoid is one beside_call_parse() may take (its argument aside). */
bool beside_aggregate(Oid aggfnoid);

/* sum, avg, min or max */
static inline bool value_aggregate_kind(AggKind kind)
{
    return kind == AggKind::sum || kind == AggKind::avg || kind == AggKind::min || kind == AggKind::max;
}

/* Whether the scan emits agg's partial state (under a partitioned table's Append): all but sum and avg of int8, and numeric's. */
static inline bool value_aggregate_partial(const ScanAggregate &agg)
{
    return !((agg.kind == AggKind::sum || agg.kind == AggKind::avg) && agg.coltype == INT8OID) &&
           agg.coltype != NUMERICOID;
}

/* The arguments of one histogram, evaluated when the scan starts. */
struct HistogramArgs {
    bool skip;             /* an argument is NULL: every row is skipped, as by the aggregate */
    double lo;             /* interval */
    double hi;
    int64 time_lo;         /* time: microseconds; date: day numbers */
    int64 time_hi;
    int32 nbins;
    ArrayType *thresholds; /* thresholds: a copy that lives as long as the scan's arguments */
};

/*
 * The arguments of a histogram of this form, evaluated from their states
 * (lo, hi and nbins; the thresholds alone): a thresholds array is copied
 * into keep, which must outlive the states that point into it.
 */
HistogramArgs histogram_args_evaluate(HistogramForm form, ExprState *const *states, ExprContext *econtext,
                                      MemoryContext keep);

/*
 * The histogram's spec when its arguments are valid (false otherwise: its
 * first value then raises the aggregate's error, histogram_first_spec()).
 */
bool histogram_args_spec(const HistogramCall &call, const HistogramArgs &args, gh::HistogramSpec *out);

/*
 * The spec of a histogram's first value, a word as heap_columns.h reads
 * it, checked as the aggregate's transition function checks the first
 * row of a group: raises width_bucket's error for invalid arguments.
 */
gh::HistogramSpec histogram_first_spec(const HistogramCall &call, const HistogramArgs &args, double first_word);

/*
 * value is column attno of table relid: bare float8, or under the implicit
 * cast from int2, int4, int8 or float4 (*coltype says which).
 */
bool float8_column(const Expr *value, Index relid, AttrNumber *attno, Oid *coltype);

/*
 * Which form of gpu_histogram aggfnoid is, if it is one of this database's
 * extension: false for any other function.
 */
bool histogram_form_of(Oid aggfnoid, HistogramForm *form);

/*
 * Takes apart a call of one of the forms whose value is a plain column of
 * table `relid` (for the float8 forms bare float8, or under the implicit
 * cast from one of the other types; for the time form a column of the
 * bounds' type) and whose other arguments are fixed for the scan.
 * Returns false for anything else.
 */
bool histogram_call_parse(const Aggref *aggref, Index relid, HistogramCall *out);

} // namespace gpu_histogram

#endif /* GH_SCAN_NODE_H */
