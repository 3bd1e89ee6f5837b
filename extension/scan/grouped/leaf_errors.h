/*
 * leaf_errors.h: the values' errors of a partitioned table's leaves, held
 * back until the last leaf has read its rows.
 *
 * Where the ordinary plan sorts every row of every leaf (the Append's
 * rows, through their WHERE clauses and keys) before an aggregate sees a
 * value (plan/ordinary_order.cpp), a key or a clause that raises in a
 * later leaf wins over a NaN or invalid arguments in an earlier one.
 * Each leaf's scan already holds its values' errors until its own rows
 * are read (group_agg.h, errors_after_keys); under a serial Append its
 * partial states then go up to the Finalize Aggregate while the next
 * leaves are still unread.  So the leaves of one Append note their first
 * such error in an entry they share, and the last of them to reach its
 * input's end raises it, before its own.  Every leaf of our Append is
 * initialized before any runs and each runs to its end (the Finalize
 * reads all of its input; the Append prunes none at run time), so the
 * last one is the one that finds every registered leaf ended.  Workers
 * keep each leaf's own order (docs/errors.md: with workers the first
 * error of any process wins).
 */
#ifndef GH_SCAN_LEAF_ERRORS_H
#define GH_SCAN_LEAF_ERRORS_H

#include "grouped_state.h"

namespace gpu_histogram {

/*
 * At the scan's start: g is a leaf of the Append numbered group in estate
 * (the planner's number, never 0, unique among this backend's plans).
 */
void leaf_errors_join(GroupedRows *g, EState *estate, uint32 group);

/*
 * g's input ended (or it had none): the last leaf raises the error an
 * earlier one held, and then raises its own as a table's scan does.
 */
void leaf_errors_input_ended(GroupedRows *g);

/* g starts again (a rescan): not ended. */
void leaf_errors_rescan(GroupedRows *g);

} // namespace gpu_histogram

#endif /* GH_SCAN_LEAF_ERRORS_H */
