/*
 * native_quals.h: WHERE clauses the scan evaluates itself, without the
 * executor.
 *
 * A clause of the form `column op value` (either way round) is answered by
 * comparing the stored value with the value, when
 *   - the column is int2, int4 or int8 and the value of one of those types,
 *     op from integer_ops: exact int64 comparison;
 *   - the column is float4 or float8 and the value too, op from float_ops:
 *     float.h's NaN-aware comparisons;
 *   - the column is date, timestamp or timestamptz and the value of the same
 *     type, op from datetime_ops: their int32 or int64 representations
 *     compare as date_cmp and timestamp_cmp do, infinities included (the
 *     time ranges of dashboards: `ts >= $1`, `ts > now() - interval '1 day'`,
 *     BETWEEN);
 *   - the value is of another type, and the comparison monotone in the
 *     column's stored word (native_qual.h): a timestamptz column against a
 *     date or timestamp, a timestamp column against a date, a date column
 *     against a timestamp (datetime_ops' cross-type operators), and an
 *     integer column under a cast to numeric or (int2, int4) float8, as a
 *     numeric or float literal puts it (`bytes > 1e8`): the value is placed
 *     among the column's words once per scan by PostgreSQL's own
 *     cross-type comparison, and the words compared;
 * op being one of the family's btree comparisons or the negator of its
 * equality, and a NULL column failing, as the strict operators give.  So
 * is `column = ANY(array)` (`IN (...)`) and `column <> ALL(array)` (`NOT
 * IN`) of those types, answered by a search of the array's values, sorted
 * once per scan, with ScalarArrayOpExpr's semantics: a NULL element never
 * matches, but makes NOT IN pass no row; an empty array passes no row for
 * IN and every row for NOT IN, NULLs too; a NULL array passes none.  So
 * is `column IS NULL` and `column IS NOT NULL`, of a column of any type
 * (the GPU's pages take those of the types above), and a bool column as a
 * clause, `flag`, `NOT flag`, `flag IS TRUE` and `flag IS FALSE`, as an
 * integer equality with 1 or 0.  So is `column = value`, `column <> value`,
 * `IN` and `NOT IN` of a text or varchar column under a deterministic
 * collation (texteq and textne, PostgreSQL's own operators only), which
 * compare bytes: a value stored compressed or out of line is compared by
 * its length first, and detoasted only where a length matches, so the page
 * is unlocked before such clauses run (native_quals_detoast).  So is any
 * AND and OR of such clauses (the planner has pushed NOT down onto them
 * already), put in conjunctive form: a list of ORs of atoms, which a row
 * passes where it passes one atom of each.  The value (or array)
 * is a constant, or an expression fixed for the scan (a parameter, a
 * stable function of constants, an InitPlan's result): no Vars, nothing
 * volatile.  Such an expression is evaluated once per scan, when the first
 * tuples arrive, never under a buffer lock.  What does not qualify the
 * executor evaluates after, on the rows that passed (native_quals_build).
 */
#ifndef GH_SCAN_NATIVE_QUALS_H
#define GH_SCAN_NATIVE_QUALS_H

#include "native_qual.h"

namespace gpu_histogram {

struct NativeQuals {
    int count;         /* atoms */
    int clauses;       /* clauses of the WHERE list evaluated natively, whatever their form */
    NativeQual *quals;
    bool prepared;     /* every value is known for this scan */
    MemoryContext cxt; /* where the lists live: the scan's */
};

/*
 * Fills `out` (palloc'd) with the clauses of the implicit-AND list `quals`
 * (their Vars INDEX_VAR's, the table's attributes); an atom over an
 * expression of the row is asked of `computed` (computed_atom.h), where
 * no clause before it stays the executor's and its clause is not
 * distributed into conjunctive form (which would evaluate it on rows the
 * ordinary plan's OR does not, and it may raise).
 * (in the order a sequential scan evaluates them, qual_order.h) that
 * qualify and may run first, and sets *rest to the others, for the
 * executor to evaluate, in their order, on the rows that pass `out`.  A
 * native clause may run first where every clause before it that stays
 * the executor's may lose rows without a different answer: it raises
 * nothing that depends on the row and has no side effect (leakproof, not
 * volatile).  Otherwise `10 / i > 1 AND g = 3` would not raise where the
 * ordinary plan does.  Returns false, *rest being quals, when no clause
 * qualifies.  The clauses' Vars must already refer to the table's
 * attributes.
 */
bool native_quals_build(List *quals, TupleDesc desc, PlanState *parent, ComputedAtomMatch computed, NativeQuals *out,
                        List **rest);

/*
 * Evaluates the values that are expressions (user code: never under a
 * buffer lock), and marks the quals prepared; native_quals_unprepare makes
 * the next scan (a rescan, with new parameters) evaluate them again.
 */
void native_quals_prepare(NativeQuals *q, ExprContext *econtext);
void native_quals_unprepare(NativeQuals *q);

/*
 * Whether some clause may detoast a stored value (a text comparison), so
 * that the page must be unlocked, though pinned, before the filter runs.
 */
bool native_quals_detoast(const NativeQuals &q);

/*
 * Whether atom i is a clause of its own, not one of an OR's atoms: what a
 * row must pass, which the keys' windows may be narrowed by.
 */
static inline bool native_qual_alone(const NativeQuals &q, int i)
{
    return (i == 0 || q.quals[i - 1].clause != q.quals[i].clause) &&
           (i + 1 == q.count || q.quals[i + 1].clause != q.quals[i].clause);
}

/*
 * The column of the first clause that is one date or timestamp comparison
 * of its own (`ts >= $1`, not in an OR, not a list), else of the first
 * computed atom that bounds its column (`CAST(ts AS date) >= $1`,
 * computed_atom.h's range_column), else of the first integer comparison,
 * or NULL: what a page's range of values can rule out
 * (page_range_scan.h; a time column is the one that follows the table's
 * order).  Known before the values are.
 */
const HeapColumn *native_quals_range_column(const NativeQuals &q);

/*
 * The quals prepared: the range of column attno's stored words that the
 * computed atoms of their own over it let pass, and the values within
 * which that holds (AtomColumnRange), where the atoms before each raise
 * nothing first; false where none bounds the column.
 */
bool native_quals_computed_range(const NativeQuals &q, AttrNumber attno, AtomColumnRange *out);

/*
 * The closed range [*lo, *hi] of the column's stored values (as
 * heap_column_word gives them) that every such comparison of attno lets
 * pass, the quals prepared; *lo > *hi when none does.  A row outside it
 * fails the WHERE clause, whatever its other columns hold.
 */
void native_quals_column_range(const NativeQuals &q, AttrNumber attno, int64 *lo, int64 *hi);

/*
 * Whether every clause is a comparison of column attno of its own, of a
 * kind that may be one integer comparison once prepared (not in an OR,
 * not of floats or text, not computed, not IS [NOT] DISTINCT FROM).
 * Known before the values are.
 */
bool native_quals_of_column(const NativeQuals &q, AttrNumber attno);

/*
 * Once prepared: whether every clause is one integer comparison of attno
 * of its own, and then the closed range [*lo, *hi] of the column's stored
 * words that a row must lie in to pass them all (*lo > *hi: none does; a
 * NULL fails).  Unlike native_quals_column_range, false where any clause
 * is anything else: a page whose values all lie inside the range then
 * passes whole, and one whose values all lie outside passes no row.
 */
bool native_quals_exact_range(const NativeQuals &q, AttrNumber attno, int64 *lo, int64 *hi);

/*
 * Keeps the tuples of tuples[0 .. n) that pass every clause; returns how
 * many.  Where a clause may raise on one of them (a computed atom,
 * computed_atom.h, meets a value it has not answered), nothing is kept
 * back and *row_by_row is set: a filter over the page would raise at a
 * later row before an earlier row's keys and values were checked, so the
 * caller takes the rows one at a time through native_quals_pass, each
 * before its keys and aggregates, as the ordinary plan's Filter does.
 */
int native_quals_filter(const NativeQuals &q, TupleDesc desc, HeapTupleData *tuples, int n, bool *row_by_row);

/* Whether tuple t passes every clause (native_quals_filter, of one row). */
bool native_quals_pass(const NativeQuals &q, TupleDesc desc, HeapTupleData *t);

} // namespace gpu_histogram

#endif /* GH_SCAN_NATIVE_QUALS_H */
