/*
 * qual_order.h: the order in which the scan's executor evaluates the WHERE
 * clause, the one a sequential scan's Filter would have.
 *
 * Which clause runs first decides which rows reach a later one, so it
 * decides whether a query raises: `10 / i > 1 AND s IS NULL` raises
 * "division by zero" on a row with i = 0 only if the division runs first.
 * PostgreSQL's planner sorts a scan's clauses by security level, then by
 * cost (createplan.c's order_qual_clauses, a stable sort), and a cheap
 * leakproof clause may go ahead of its level.  The scan sorts by the same
 * rules, so that a query that answers with the ordinary plan answers with
 * the scan, and one that raises raises the same error.
 */
#ifndef GH_SCAN_QUAL_ORDER_H
#define GH_SCAN_QUAL_ORDER_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* The clauses of rinfos (RestrictInfos), bare, in the order a sequential scan would evaluate them. */
List *qual_order_clauses(PlannerInfo *root, List *rinfos);

} // namespace gpu_histogram

#endif /* GH_SCAN_QUAL_ORDER_H */
