/*
 * native_quals.h: WHERE clauses the scan evaluates itself, without the
 * executor.
 *
 * A clause of the form `column op constant` (either way round), where the
 * column is int2, int4, int8, float4 or float8, the constant is of one of
 * those types too, and op is one of the btree comparison operators of
 * PostgreSQL's integer_ops or float_ops families or the negator of their
 * equality, is answered by comparing the stored value with the constant:
 * exact int64 comparison for integers, float.h's NaN-aware comparisons for
 * floats, and false for a NULL column, as the strict operators give.  The
 * scan uses this path only when every clause qualifies; otherwise the
 * executor evaluates them all (exec.cpp).
 */
#ifndef GH_SCAN_NATIVE_QUALS_H
#define GH_SCAN_NATIVE_QUALS_H

#include "heap_reader.h"

/* Comparisons, as btree strategies number them, plus <>. */
enum class Comparison { lt, le, eq, ge, gt, ne };

struct NativeQual {
    HeapColumn column;
    Comparison cmp;
    bool is_float;     /* compare as float8 (float_ops) or as int64 (integer_ops) */
    bool never;        /* a NULL constant: no row passes */
    int64 int_value;
    double float_value;
};

struct NativeQuals {
    int count;
    NativeQual *quals;
};

/*
 * Fills `out` (palloc'd) if every clause of the implicit-AND list `quals`
 * qualifies; returns false, leaving the list to the executor, otherwise.
 * The clauses' Vars must already refer to the table's attributes.
 */
bool native_quals_build(List *quals, TupleDesc desc, NativeQuals *out);

/* Keeps the tuples of tuples[0 .. n) that pass every clause; returns how many. */
int native_quals_filter(const NativeQuals &q, TupleDesc desc, HeapTupleData *tuples, int n);

#endif /* GH_SCAN_NATIVE_QUALS_H */
