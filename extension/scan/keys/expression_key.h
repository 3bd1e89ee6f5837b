/*
 * expression_key.h: a GROUP BY key the executor evaluates, row by row
 * (expression_key.cpp), as a door for the kinds that compute such a key
 * on the host the same way but know more of it for the GPU
 * (monotone_key.cpp).  Internal to keys/.
 */
#ifndef GH_SCAN_EXPRESSION_KEY_H
#define GH_SCAN_EXPRESSION_KEY_H

#include "group_keys.h"

namespace gpu_histogram {

/*
 * Whether expr is a key the executor can evaluate for the scan, and the
 * group table keep; fills *out.  float8_ok: a float8 key is kept too (its
 * caller knows it is never -0 nor NaN).
 */
bool expression_key_recognise(Expr *expr, Index relid, GroupKeyDef *out, bool float8_ok = false);

/* Compiles the key for heap tuples of desc under parent; its slot and per-row context. */
void expression_key_init(GroupKey *key, TupleDesc desc, PlanState *parent);

/* The key's value for tuple t, in its row context (reset here: valid until the next call). */
Datum expression_key_evaluate(GroupKey *key, HeapTupleData *t, bool *isnull);

/* The same for another expression compiled for the key's heap tuples (heap_tuple_expr_init), a part of it. */
Datum expression_key_evaluate_state(GroupKey *key, ExprState *state, HeapTupleData *t, bool *isnull);

/* The key of tuple t as a word (key_kind.h's word), or as bytes (key_kind.h's bytes). */
bool expression_key_word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word);
bool expression_key_bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len);

/*
 * The key of tuple t evaluated by the executor, for a key that remembers
 * each result by a value (value_key.cpp's column value, derived_key.cpp's
 * inner key): into the key's memo under (valnull, value) where remember,
 * else into *fresh, which the result then is.
 */
const struct MemoResult *expression_key_remember(GroupKey *key, TupleDesc desc, HeapTupleData *t, bool valnull,
                                                 int64 value, bool remember, struct MemoResult *fresh);

/* Whether every value of the numeric expression n has one display scale (so equal values have equal bytes). */
bool expression_fixed_scale(const Node *n);

} // namespace gpu_histogram

#endif /* GH_SCAN_EXPRESSION_KEY_H */
