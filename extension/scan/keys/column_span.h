/*
 * column_span.h: the span of a timestamp column's values that a query
 * reads, as the planner can know it: the column's statistics histogram,
 * within the WHERE clause's comparisons of the column with values fixed
 * for the query.  A time key's groups are at most this span over its
 * bucket's length, whatever the column's distinct values.
 */
#ifndef GH_SCAN_COLUMN_SPAN_H
#define GH_SCAN_COLUMN_SPAN_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* The span of column attno of table relid, in microseconds for a timestamp or timestamptz, in units for an integer; false if unknown. */
bool planner_column_span(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, double *span_usec);

/*
 * The groups a time bucket of at least `length` microseconds makes of a
 * timestamp column attno of table relid, as its statistics bound them:
 * each bucket of the column's histogram (between the WHERE clause's
 * bounds) holds at most its share of the rows and at most its span over
 * length, and each common value is one group.  Bounded bucket by bucket,
 * a few timestamps of 1850 in a table of one month cost a bucket's rows,
 * where the span of all of them would count 176 years of hours.  False
 * without statistics.
 */
bool planner_bucket_groups(PlannerInfo *root, Index relid, AttrNumber attno, Oid coltype, double length,
                           double *groups);

/* The shortest a bucket of a date_trunc unit (a DTK_ code) can be, in microseconds; 0 for none. */
double trunc_unit_usec(int unit);

} // namespace gpu_histogram

#endif /* GH_SCAN_COLUMN_SPAN_H */
