/*
 * key_helpers.h: what the key kinds' files share: finding the table's
 * column in an expression (and a column's local time in it), the types
 * whose values the group table keeps as they are, and evaluating an
 * argument fixed for the scan.
 * Internal to keys/.
 */
#ifndef GH_SCAN_KEY_HELPERS_H
#define GH_SCAN_KEY_HELPERS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

/*
 * Whether e is a column of table relid (a user column of this query level),
 * or one of a domain type relabeled to its base type; sets *out, for the
 * latter to a copy of the column typed as the base type.
 */
bool key_table_var(const Expr *e, Index relid, const Var **out);

/*
 * Whether e is the local time of a timestamptz expression, *inner: inner AT
 * TIME ZONE a constant text zone (*zone), or inner::timestamp, the
 * session's (*zone NULL).
 */
bool key_local_time(const Expr *e, Const **zone, const Expr **inner);

/*
 * Whether the group table keeps values of this type as they are, equal
 * keys being equal words or bytes: a word (int2, int4, int8, bool, date,
 * timestamp, timestamptz, an enum's label OID), or a text or varchar's
 * bytes under a deterministic collation (texteq is byte equality only
 * there); a domain's values as its base type's.
 */
bool key_type_kept_as_is(Oid type, Oid collation);

/* An argument fixed for the scan, evaluated and copied into the current memory context; 0 when NULL. */
Datum key_arg_value(ExprState *state, ExprContext *econtext, Oid type, bool *isnull);

} // namespace gpu_histogram

#endif /* GH_SCAN_KEY_HELPERS_H */
