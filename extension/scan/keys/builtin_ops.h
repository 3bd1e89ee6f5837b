/*
 * builtin_ops.h: PostgreSQL's own arithmetic operators and number casts,
 * recognised by the OID of the function they run.
 *
 * The keys' files read a key's shape to prove something of it: that it
 * keeps the column's order (monotone_steps.cpp), that every value has one
 * display scale (expression_key.cpp), how many groups it can make
 * (expression_bound.cpp).  An operator's name proves nothing: any role can
 * create `/` on bigint in pg_temp and make it do anything, and a proof
 * built on it gave wrong groups and called the role's function on values
 * row-level security hid.  So these look at pg_proc OIDs only, which a
 * user cannot give to a function of their own.  Internal to keys/.
 */
#ifndef GH_SCAN_BUILTIN_OPS_H
#define GH_SCAN_BUILTIN_OPS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

/* The four arithmetic operations, as the built-in operators of integers, float8 and numeric run them. */
enum class Arithmetic { none, add, sub, mul, div };

/*
 * The operation of a binary OpExpr whose function is a built-in one of
 * int2/int4/int8 (any mix), float8 or numeric; none for any other
 * operator, whatever its name.
 */
Arithmetic builtin_arithmetic(const OpExpr *op);

/*
 * Whether f is a built-in cast to a wider number, which keeps the value (or
 * rounds it correctly): int2 to int4 or int8, int4 to int8, any integer to
 * numeric or float8, numeric to float8.
 */
bool builtin_number_widening(const FuncExpr *f);

/*
 * Whether f is a built-in cast of a numeric or a float8 to an integer
 * (int2, int4 or int8), which rounds to the nearest.
 */
bool builtin_number_narrowing(const FuncExpr *f);

/* Whether f is a built-in integer to numeric cast (an exact numeric of scale 0). */
bool builtin_integer_to_numeric(const FuncExpr *f);

/* Whether f is the built-in cast between timestamp and timestamptz (either way). */
bool builtin_time_zone_cast(const FuncExpr *f);

/* Whether op is the built-in timestamp or timestamptz plus or minus an interval; *minus for the latter. */
bool builtin_time_shift(const OpExpr *op, bool *minus);

/*
 * Whether op is the built-in interval times float8 (interval_mul, or
 * mul_d_interval with the operands the other way round): *interval and
 * *factor are its two operands.
 */
bool builtin_interval_times(const OpExpr *op, const Node **interval, const Node **factor);

/*
 * Whether n is the built-in remainder of an integer or a numeric, as the
 * operator % or the function mod(): *dividend and *divisor its operands.
 */
bool builtin_remainder(const Node *n, const Node **dividend, const Node **divisor);

} // namespace gpu_histogram

#endif /* GH_SCAN_BUILTIN_OPS_H */
