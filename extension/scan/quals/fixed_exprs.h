/*
 * fixed_exprs.h: which expressions have one value for a whole scan.
 *
 * The scan evaluates such an expression once, where the ordinary plan
 * evaluates it on every row: the bounds of a histogram (plan_fit.cpp) and the
 * value a column is compared with in a native WHERE clause
 * (native_quals.cpp).  One definition for both, so that they cannot drift.
 */
#ifndef GH_SCAN_FIXED_EXPRS_H
#define GH_SCAN_FIXED_EXPRS_H

#include "../../pg_headers.h"

namespace gpu_histogram {

/*
 * True when e reads no column (Var or PlaceHolderVar), holds no aggregate,
 * window function, grouping function or sub-select, returns no set, and
 * calls nothing volatile: constants, parameters (also an InitPlan's), outer
 * references of a correlated subquery, and stable functions of those.
 */
bool fixed_for_scan(Node *e);

} // namespace gpu_histogram

#endif /* GH_SCAN_FIXED_EXPRS_H */
