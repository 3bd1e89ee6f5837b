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
 *     theirs (a function gives one value for each combination of inputs).
 */
#ifndef GH_SCAN_EXPRESSION_BOUND_H
#define GH_SCAN_EXPRESSION_BOUND_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

/* An upper bound on expr's distinct non-NULL values over the rows of table relid the query reads; 0: unknown. */
double expression_group_bound(PlannerInfo *root, Index relid, const Expr *expr);

#endif /* GH_SCAN_EXPRESSION_BOUND_H */
