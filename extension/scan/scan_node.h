/*
 * scan_node.h: what the GpuHistogramScan planner and executor agree on.
 *
 * The plan node is a CustomScan on the table (scanrelid), with
 *   custom_scan_tlist  the gpu_histogram() Aggrefs it computes, then the
 *                      table's Vars that the quals use;
 *   custom_exprs       the WHERE clause, as an implicit AND list;
 *   custom_private     (nhist): how many of custom_scan_tlist are Aggrefs.
 * setrefs.c rewrites the targetlist and custom_exprs to INDEX_VAR references
 * into custom_scan_tlist; the executor maps the quals' references back to
 * the table's own attribute numbers and evaluates them on the heap tuple.
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

/*
 * Takes apart a call whose value is a plain column of table `relid` (bare
 * float8, or under the implicit cast from one of the other types) and whose
 * lo, hi and nbins are fixed for the scan.  Returns false for anything else.
 * It does not check which aggregate aggref calls: the planner does.
 */
bool histogram_call_parse(const Aggref *aggref, Index relid, HistogramCall *out);

#endif /* GH_SCAN_NODE_H */
