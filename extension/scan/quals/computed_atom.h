/*
 * computed_atom.h: a WHERE clause over an expression of the row that the
 * scan computes natively elsewhere, as one of the native quals' atoms
 * (native_quals.h).
 *
 * Dashboards filter by the local hour or weekday (`extract(hour FROM ts)
 * BETWEEN 9 AND 17`, `extract(dow FROM ts) NOT IN (0, 6)`) and by the
 * local date (`CAST(ts AS date) BETWEEN $1 AND $2`, Metabase's relative
 * dates).  The executor evaluated those row by row, allocating a numeric
 * for every extract.  The GROUP BY keys (keys/) already compute such
 * expressions exactly as PostgreSQL does; the quals cannot depend on
 * keys/, which depends on them, so the keys offer the match through this
 * door and the executor's set-up hands it to native_quals_build.
 *
 * Unlike a column's comparison, computing such an expression may raise
 * (PostgreSQL's own errors, near the ends of the time range), so the
 * filter evaluates a page whose rows may raise in the clauses' order, row
 * by row, as the ordinary plan's Filter would.
 */
#ifndef GH_SCAN_COMPUTED_ATOM_H
#define GH_SCAN_COMPUTED_ATOM_H

#include "../../pg_headers.h"

extern "C" {
#include "access/htup.h"
#include "access/tupdesc.h"
#include "nodes/execnodes.h"
}

namespace gpu_histogram {

struct ComputedAtom;
struct HeapColumn;

/*
 * What an atom says about its column's values, for passing over pages by
 * their recorded ranges (summaries/page_range_scan.h): a row whose value
 * lies outside [lo, hi] fails the atom, where the value lies in
 * [safe_lo, safe_hi], the values whose expression raises nothing.
 */
struct AtomColumnRange {
    int64 lo, hi;
    int64 safe_lo, safe_hi;
};

struct ComputedAtomOps {
    /* Evaluates the expression's fixed arguments and the compared value, once per scan (never under a lock). */
    void (*prepare)(ComputedAtom *a, ExprContext *econtext);
    /* Whether tuple t passes; may raise what PostgreSQL's own evaluation would. */
    bool (*passes)(ComputedAtom *a, TupleDesc desc, HeapTupleData *t);
    /* Whether computing the expression for any of tuples[0 .. n) may raise. */
    bool (*page_may_raise)(ComputedAtom *a, TupleDesc desc, HeapTupleData *tuples, int n);
    /*
     * Optional (NULL: none): the column whose values bound the atom's
     * (a time key's: `CAST(ts AS date) >= $1`), known before the values,
     * or NULL ...
     */
    const HeapColumn *(*range_column)(ComputedAtom *a);
    /* ... and, prepared, the range it lets pass there; false where it knows none. */
    bool (*column_range)(ComputedAtom *a, AtomColumnRange *out);
};

struct ComputedAtom {
    const ComputedAtomOps *ops;
};

/*
 * Whether clause is an atom over an expression the scan computes: the
 * atom, made in cxt with its expressions initialized under parent, or
 * NULL.
 */
typedef ComputedAtom *(*ComputedAtomMatch)(Node *clause, Index relid, TupleDesc desc, PlanState *parent,
                                           MemoryContext cxt);

} // namespace gpu_histogram

#endif /* GH_SCAN_COMPUTED_ATOM_H */
