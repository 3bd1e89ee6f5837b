/*
 * native_parts.h: what the native WHERE clause's files share
 * (native_quals.h is the scan's door to them): native_match.cpp recognizes
 * a clause, native_values.cpp holds its values and compares a row's with
 * them, native_quals.cpp orders the clauses and filters the tuples.
 */
#ifndef GH_SCAN_NATIVE_PARTS_H
#define GH_SCAN_NATIVE_PARTS_H

#include "native_quals.h"

namespace gpu_histogram {

/* The btree families whose comparisons are native, looked up once per build. */
struct NativeFamilies {
    Oid float_ops;
    Oid datetime_ops;
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

#endif /* GH_SCAN_NATIVE_PARTS_H */
