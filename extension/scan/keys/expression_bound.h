/*
 * expression_bound.h: how many groups a key the executor evaluates can
 * make, read from its shape, for the planner.
 *
 * PostgreSQL counts the groups of an expression as its column's distinct
 * values: extract(hour FROM ts) over a column of unique timestamps is one
 * group per row, and so is Grafana's floor(extract(epoch FROM ts)/60)*60.
 * Their groups are far fewer, and that is known from the expression:
 *   - a periodic field (extract or date_part of hour, dow, month, ...) has
 *     at most its field's values: 24 hours, 7 days of the week;
 *   - a step of the column (floor, ceil, trunc or round of a linear function
 *     of it, or an integer division of it) has at most the span the query
 *     reads over the step's width, plus its partial ends;
 *   - a function of such parts and constants has at most the product of
 *     theirs (a function gives one value for each combination of inputs);
 *   - to_char of a time has at most one value per its format's finest
 *     field over the span.
 */
#ifndef GH_SCAN_EXPRESSION_BOUND_H
#define GH_SCAN_EXPRESSION_BOUND_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* An upper bound on expr's distinct non-NULL values over the rows of table relid the query reads; 0: unknown. */
double expression_group_bound(PlannerInfo *root, Index relid, const Expr *expr);

/*
 * An upper bound on the groups of keys taken together (NULL included), where
 * each is a function of one time column's value within a span of time (a
 * periodic field within its hour, minute or local day, date_trunc within its
 * unit, to_char within its format's finest field, ::date within its day):
 * together they take at most one value per such span the rows cover.  The
 * day, month, quarter and day of year of six weeks are at most 44 groups,
 * not 31 x 12 x 4 x 366.  0: unknown.
 */
double expression_keys_joint_bound(PlannerInfo *root, Index relid, List *keys);

} // namespace gpu_histogram

#endif /* GH_SCAN_EXPRESSION_BOUND_H */
