/*
 * value_aggs.h: sum, avg, min and max beside the histograms, in a grouped
 * scan's cells (group_agg.h).
 *
 * A dashboard's mean line, `avg(x), max(x)` beside the heatmap, used to
 * send the whole query to the ordinary plan.  The scan now computes
 *   - sum, avg, min and max of an int2, int4, int8, float4 or float8 column,
 *   - min and max of a date, timestamp or timestamptz column,
 * each in the group's cells, as PostgreSQL's own transition functions do:
 * integer sums exactly (int8's in 128 bits, as int8_avg_accum), their
 * means as numeric_div of the same numerics; float sums and means by
 * float8_pl and float8_accum's steps, value after value in the rows'
 * order, so that a serial scan's answer is the ordinary serial plan's to
 * the bit, and an overflow raises the same error at the same row.  That
 * order is why these aggregates keep a scan serial and off the GPU's
 * pages: a worker's or the GPU's share would be summed in another order.
 *
 * Each aggregate has three cells: its non-NULL values, then its state.
 */
#ifndef GH_SCAN_VALUE_AGGS_H
#define GH_SCAN_VALUE_AGGS_H

#include "../../scan_node.h"
#include "../../heap/heap_columns.h"

namespace gpu_histogram {

constexpr int32 kValueAggCells = 3;

/*
 * Adds tuples[0 .. n) to aggregate agg (its column col), each into the
 * cells groups[i] points at, in line-pointer order: tuples are in that
 * order, or reversed.  A float column's values and NULLs come read
 * (values, nulls); an integer or time column's are read here.  May raise
 * float8_pl's and float8_accum's overflow error.
 */
void value_agg_add(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                   const double *values, const bool *nulls, int64 *const *groups, int n, bool reversed);

/*
 * The aggregate's result from its cells: its final value, or with partial
 * its partial state (value_aggregate_partial() has said it has one), as
 * PostgreSQL's combine function takes it; *isnull where it has no value.
 * NULL cells: the group had no row.
 */
Datum value_agg_result(const ScanAggregate &agg, const int64 *cells, bool partial, bool *isnull);

} // namespace gpu_histogram

#endif /* GH_SCAN_VALUE_AGGS_H */
