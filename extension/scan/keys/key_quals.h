/*
 * key_quals.h: WHERE clauses over an expression the GROUP BY keys compute
 * (quals/computed_atom.h's door): `extract(hour FROM ts) BETWEEN 9 AND 17`,
 * `extract(dow FROM ts) NOT IN (0, 6)`, `CAST(ts AS date) >= $1`,
 * `date_trunc('day', ts) = '2026-11-05'`.
 *
 * The expression is a time key (date_trunc, date_bin, ::date, time_keys.h)
 * or a field of the local date or time (date_field_key.cpp) of one time
 * column, compared by a built-in, strict and leakproof operator (one that
 * answers and raises nothing) with a value fixed for the scan, or with an
 * IN or NOT IN list of such values.  Each row's key comes out as the keys
 * compute it, a word; whether a word passes is asked of the operator
 * itself, on the key's own value, once for each word the rows hold, and
 * remembered: the answer is PostgreSQL's by construction, and a row costs
 * the key and a lookup, not an extract's numeric and two comparisons.
 *
 * So is any other boolean clause of one integer-like or text column whose
 * statistics show few values (`host LIKE 'web%'`, `lower(host) = 'db-1'`,
 * `host ~ '^(a|b)$'`, `g % 10 = 3`): the clause itself is a key by value
 * (value_key.cpp), evaluated by the executor at the first row holding
 * each value of the column, and looked up for the others.
 */
#ifndef GH_SCAN_KEY_QUALS_H
#define GH_SCAN_KEY_QUALS_H

#include "key_tables.h"
#include "../quals/computed_atom.h"

namespace gpu_histogram {

/* computed_atom.h's match for the keys' expressions. */
ComputedAtom *key_qual_match(Node *clause, Index relid, TupleDesc desc, PlanState *parent, MemoryContext cxt);

/*
 * An atom key_qual_match made, as a WHERE clause of the GPU's pages
 * (grouped_page_spec.h's PageKey with filter): its key's table, as the
 * key's kind builds it, with each slot's answer, asked of the operator
 * once (a quiet one: asking of a value no row holds raises and shows
 * nothing); a slot no row has shown the host yet (a key by value's) is
 * the host's.  In the current memory context, never under a buffer lock.
 * false where the key has no GPU table.
 */
bool key_qual_gpu_filter(ComputedAtom *a, const KeyRows &rows, TupleDesc desc, gh::PageKey *out, KeyTables *t,
                         int k);

} // namespace gpu_histogram

#endif /* GH_SCAN_KEY_QUALS_H */
