/*
 * heap_tuple_exprs.h: expressions the scan evaluates on the heap tuple
 * itself, before any key or aggregate exists: the WHERE clause the
 * executor evaluates (exec.cpp), and a GROUP BY key only the executor can
 * compute (keys/expression_key.cpp).
 *
 * The node's own scan slot is virtual (custom_scan_tlist), but these read
 * the table's columns from a heap tuple stored in a slot of the relation's
 * descriptor.  ExecInitExpr compiles Var fetches for the parent's scan
 * slot type, and skips the deforming step for a virtual one, so both are
 * compiled here against TTSOpsHeapTuple and the relation's descriptor, and
 * their Vars point at the scan slot (INDEX_VAR), where the caller stores
 * the tuple as ecxt_scantuple.  One door, so the two cannot drift apart.
 */
#ifndef GH_SCAN_HEAP_TUPLE_EXPRS_H
#define GH_SCAN_HEAP_TUPLE_EXPRS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/execnodes.h"
}

namespace gpu_histogram {

/* A copy of node whose table Vars read the scan tuple (INDEX_VAR). */
Node *heap_tuple_vars(Node *node);

/* expr, compiled to read a heap tuple of desc from the scan slot of parent's expression context. */
ExprState *heap_tuple_expr_init(Expr *expr, TupleDesc desc, PlanState *parent);

/* The same for an implicit-AND list of quals (ExecInitQual); NULL for none. */
ExprState *heap_tuple_qual_init(List *quals, TupleDesc desc, PlanState *parent);

/*
 * Whether heap tuple t passes qual (from heap_tuple_qual_init): t stored in
 * slot, a heap-tuple slot of the relation, as econtext's scan tuple, whose
 * per-row memory is reset afterwards.
 */
bool heap_tuple_qual_passes(ExprState *qual, TupleTableSlot *slot, ExprContext *econtext, HeapTupleData *t);

} // namespace gpu_histogram

#endif /* GH_SCAN_HEAP_TUPLE_EXPRS_H */
