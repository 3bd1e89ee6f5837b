/*
 * scan_node.h: what the GpuHistogramScan planner and executor agree on.
 *
 * The plan node is a CustomScan on the table (scanrelid), with
 *   custom_scan_tlist  the Aggrefs it computes (gpu_histogram(), count(*),
 *                      count(col)), then its GROUP BY keys (group_keys.h),
 *                      then the table's Vars that the quals use;
 *   custom_exprs       the WHERE clause, as an implicit AND list, then,
 *                      where the node emits finished rows, HAVING's;
 *   custom_private     (naggs, nkeys, nquals, shape): how many of
 *                      custom_scan_tlist are Aggrefs and keys, how many
 *                      of custom_exprs are the WHERE clause's, and the
 *                      scan's shape (plan/cached_cost.h).
 * setrefs.c rewrites the targetlist and custom_exprs to INDEX_VAR references
 * into custom_scan_tlist (a qual that repeats a key's expression refers to
 * the key); the executor maps the quals' references back to the entries'
 * expressions over the table's own attributes and evaluates them on the
 * heap tuple.
 */
#ifndef GH_SCAN_NODE_H
#define GH_SCAN_NODE_H

#include "../pg_headers.h"

extern "C" {
#include "nodes/extensible.h"
#include "nodes/primnodes.h"
}

#define GH_SCAN_NODE_NAME "GpuHistogramScan"

/* gpu_histogram.scan */
extern bool gh_scan_enabled;

/* The executor's side of the plan node (exec.cpp). */
extern const CustomScanMethods gh_scan_plan_methods;

/* One gpu_histogram(col, lo, hi, nbins) call, taken apart. */
struct HistogramCall {
    AttrNumber attno; /* the binned column of the scanned table */
    Oid coltype;      /* its type: float8, float4, int2, int4 or int8 */
    Expr *lo;         /* the other arguments: no Vars, fixed for the scan */
    Expr *hi;
    Expr *nbins;
};

/* The aggregates the scan computes besides gpu_histogram(). */
enum class AggKind { histogram, count_star, count_column };

/* One Aggref of the scan, taken apart. */
struct ScanAggregate {
    AggKind kind;
    HistogramCall call;     /* histogram */
    AttrNumber count_attno; /* count_column: the column whose non-NULL values count */
};

/*
 * count(*) or count(col) over a column of table relid, plain (no DISTINCT,
 * ORDER BY or FILTER): fills *out.  The planner has checked the rest.
 */
bool count_call_parse(const Aggref *aggref, Index relid, ScanAggregate *out);

/* The arguments of one histogram, evaluated when the scan starts. */
struct HistogramArgs {
    bool skip; /* lo, hi or nbins is NULL: every row is skipped, as by the aggregate */
    double lo;
    double hi;
    int32 nbins;
};

/*
 * value is column attno of table relid: bare float8, or under the implicit
 * cast from int2, int4, int8 or float4 (*coltype says which).
 */
bool float8_column(const Expr *value, Index relid, AttrNumber *attno, Oid *coltype);

/*
 * Takes apart a call whose value is a plain column of table `relid` (bare
 * float8, or under the implicit cast from one of the other types) and whose
 * lo, hi and nbins are fixed for the scan.  Returns false for anything else.
 * It does not check which aggregate aggref calls: the planner does.
 */
bool histogram_call_parse(const Aggref *aggref, Index relid, HistogramCall *out);

#endif /* GH_SCAN_NODE_H */
