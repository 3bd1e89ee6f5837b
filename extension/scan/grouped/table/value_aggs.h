/*
 * value_aggs.h: sum, avg, min and max beside the histograms, in a grouped
 * scan's cells (group_agg.h).
 *
 * A dashboard's mean line, `avg(x), max(x)` beside the heatmap, used to
 * send the whole query to the ordinary plan.  The scan now computes
 *   - sum, avg, min and max of an int2, int4, int8, float4 or float8 column,
 *     and of a numeric(p, s) column with p at most 18 (whole units of
 *     10^-s, summed in 128 bits),
 *   - min and max of a date, timestamp or timestamptz column,
 * each in the group's cells, as PostgreSQL's own transition functions do:
 * integer sums exactly (int8's in 128 bits, as int8_avg_accum), their
 * means as numeric_div of the same numerics, min and max by the type's
 * order.  Float sums and means are summed exactly and rounded once
 * (value_aggs.cpp), so that they do not depend on how the rows were split
 * between processes; they may differ from the ordinary plan's sequential
 * sum in the last bits.
 *
 * Each aggregate has value_agg_cells() cells: its non-NULL values, then
 * its state; zeroed cells are the state of no row.
 */
#ifndef GH_SCAN_VALUE_AGGS_H
#define GH_SCAN_VALUE_AGGS_H

#include "../../scan_node.h"
#include "../../heap/heap_columns.h"

namespace gpu_histogram {

/* Whether agg is a float sum or mean, summed exactly (workers' states merge only in the scan). */
bool value_agg_exact(const ScanAggregate &agg);

/* The cells aggregate agg takes in each group. */
int32 value_agg_cells(const ScanAggregate &agg);

/*
 * Adds the state in src (of another process, or another part of the
 * table) into dst, as the aggregate's combine function would.
 */
void value_agg_combine(const ScanAggregate &agg, int64 *dst, const int64 *src);

/*
 * The same for the GPU's state of it (grouped_page_spec.h's PageAgg), laid
 * out as these cells but for min and max, which come as order keys.
 */
void value_agg_combine_gpu(const ScanAggregate &agg, int64 *dst, const int64 *gpu);

/*
 * Adds tuples[0 .. n) to aggregate agg (its column col), each into the
 * cells groups[i] points at, in line-pointer order: tuples are in that
 * order, or reversed (min and max keep the first of equal values,
 * as float8smaller does with 0 and -0).  A float column's values and NULLs
 * come read (values, nulls); an integer or time column's are read here.
 */
void value_agg_add(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                   const double *values, const bool *nulls, int64 *const *groups, int n, bool reversed);

/* The same for rows of one group, whose cells are `cells` (a page of one hour). */
void value_agg_add_one(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                       const double *values, const bool *nulls, int64 *cells, int n, bool reversed);

/*
 * The aggregate's result from its cells: its final value, or with partial
 * its partial state (value_aggregate_partial() has said it has one), as
 * PostgreSQL's combine function takes it; *isnull where it has no value.
 * NULL cells: the group had no row.  A float sum past the type's range
 * raises float8_pl's overflow error.
 */
Datum value_agg_result(const ScanAggregate &agg, const int64 *cells, bool partial, bool *isnull);

} // namespace gpu_histogram

#endif /* GH_SCAN_VALUE_AGGS_H */
