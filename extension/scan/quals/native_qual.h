/*
 * native_qual.h: one WHERE clause the scan evaluates natively: what it
 * compares and how (native_quals.h has the whole list: which clauses, in
 * what order, and the filter).  native_match.cpp recognizes a clause;
 * native_values.cpp holds its values and compares a row's with them.
 */
#ifndef GH_SCAN_NATIVE_QUAL_H
#define GH_SCAN_NATIVE_QUAL_H

#include "../heap/heap_reader.h"
#include "computed_atom.h"

namespace gpu_histogram {

/* Comparisons, as btree strategies number them, plus <>; then = ANY and <> ALL of a list; then IS [NOT] NULL. */
enum class Comparison { lt, le, eq, ge, gt, ne, any_eq, all_ne, is_null, is_not_null };

/* A text value of a list, its bytes without the header. */
struct NativeText {
    int32 len;
    const char *data;
};

struct NativeQual {
    /*
     * Which clause of the WHERE list it belongs to: the atoms of an OR share
     * the number and lie next to each other; a row passes a clause when it
     * passes one of its atoms.  (The planner has already pushed every NOT
     * down onto the atoms, by their negators; a clause with an AND inside
     * an OR is several of these, its conjunctive form.)
     */
    int clause;
    HeapColumn column;
    Comparison cmp;
    bool is_float;     /* compare as float8 (float_ops) or as int64 (integer_ops, datetime_ops) */
    bool is_text;      /* compare a text column's bytes: eq and ne hold one value in text_list */
    bool never;        /* a NULL value: no row passes */
    bool always;       /* <> ALL of an empty array: every row passes */
    int64 int_value;
    double float_value;
    /* any_eq and all_ne: the array's non-NULL values, sorted as the family orders them, without repeats */
    int nlist;
    int64 *int_list;
    double *float_list;
    NativeText *text_list; /* sorted by length, then bytes */
    Oid value_type;    /* the value's type, or the array's element type */
    ExprState *value;  /* NULL for a constant; else evaluated by native_quals_prepare */
    /*
     * A value of another type than the column's, or a column under a cast:
     * `ts >= date '2026-11-01'`, `(bytes)::numeric > 1e8`.  Each value is
     * placed among the column's stored words by PostgreSQL's own comparison
     * (`order`, of the column under `cast` where there is one), once per
     * value (native_values.cpp), and the qual then compares words: `asked`
     * is the operator's comparison, cmp and int_value what the words are
     * compared by.  NULL `order`: the value is of the column's type.
     */
    FmgrInfo *order;
    FmgrInfo *cast;
    Oid order_collation;
    Comparison asked;
    /*
     * IS NOT DISTINCT FROM (asked eq) and IS DISTINCT FROM (asked ne): a
     * NULL value makes them IS NULL and IS NOT NULL, and IS DISTINCT FROM
     * a value passes a NULL column too.
     */
    bool null_safe;
    /*
     * An atom over an expression the scan computes elsewhere (extract(hour
     * FROM ts) BETWEEN 9 AND 17): computed_atom.h's, NULL for a column's
     * comparison.  Its column and comparison are unused.
     */
    struct ComputedAtom *computed;
};

/* Whether the qual is a NULL test, which has no value. */
static inline bool native_qual_is_null_test(const NativeQual &q)
{
    return q.cmp == Comparison::is_null || q.cmp == Comparison::is_not_null;
}

/* Whether the qual is a list's (= ANY, <> ALL). */
static inline bool native_qual_is_list(const NativeQual &q)
{
    return q.cmp == Comparison::any_eq || q.cmp == Comparison::all_ne;
}

/*
 * Whether a comparison of a `column` column with a `value` value of
 * another type, both of date, timestamp and timestamptz, converts only the
 * value (or converts the column without a zone, date to timestamp), so
 * that the comparison is monotone in the column's stored word and one
 * word at most compares equal: a timestamptz column against a date or
 * timestamp, a timestamp column against a date, a date column against a
 * timestamp.  Not a date or timestamp column against a timestamptz, whose
 * conversion of the column by TimeZone may go back across a gap.
 */
bool native_time_value_converts(Oid column, Oid value);

/* Whether a text qual's list holds the bytes. */
bool native_text_listed(const NativeQual &q, const char *data, int32 len);

/* The btree families whose comparisons are native, looked up once per build. */
struct NativeFamilies {
    Oid float_ops;
    Oid datetime_ops;
    Oid numeric_ops;
};

NativeFamilies native_families(void);

/*
 * Fills *out if clause is native: a comparison, list, NULL test, bool
 * column or text equality of one of the table's columns; a constant value
 * is set now, another (a parameter, a stable expression) is initialized to
 * be evaluated by native_quals_prepare.
 */
bool native_match(Node *clause, TupleDesc desc, const NativeFamilies &families, PlanState *parent, MemoryContext cxt,
                  NativeQual *out);

/* The qual's value, or a list qual's array (ScalarArrayOpExpr's answers for NULLs and empty arrays), in cxt. */
void native_set_value(NativeQual *q, MemoryContext cxt, Datum d, bool isnull);
void native_set_list(NativeQual *q, MemoryContext cxt, Datum d, bool isnull);

/* Whether tuple t passes the qual; a text value may be detoasted (the page unlocked). */
bool native_passes(const NativeQual &q, TupleDesc desc, const HeapTupleData *t);

} // namespace gpu_histogram

#endif /* GH_SCAN_NATIVE_QUAL_H */
