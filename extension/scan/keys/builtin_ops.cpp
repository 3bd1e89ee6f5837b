/*
 * builtin_ops.cpp: the built-in operators and casts, by function OID
 * (builtin_ops.h).
 */
#include "builtin_ops.h"

extern "C" {
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

/* The function an operator runs; the planner has filled opfuncid by the time a plan is made. */
Oid operator_function(const OpExpr *op)
{
    return OidIsValid(op->opfuncid) ? op->opfuncid : get_opcode(op->opno);
}

bool one_argument(const FuncExpr *f)
{
    return list_length(f->args) == 1;
}

} // namespace

Arithmetic builtin_arithmetic(const OpExpr *op)
{
    if (list_length(op->args) != 2)
        return Arithmetic::none;
    switch (operator_function(op)) {
    case F_INT2PL:
    case F_INT4PL:
    case F_INT8PL:
    case F_INT24PL:
    case F_INT42PL:
    case F_INT28PL:
    case F_INT82PL:
    case F_INT48PL:
    case F_INT84PL:
    case F_FLOAT8PL:
    case F_NUMERIC_ADD: return Arithmetic::add;
    case F_INT2MI:
    case F_INT4MI:
    case F_INT8MI:
    case F_INT24MI:
    case F_INT42MI:
    case F_INT28MI:
    case F_INT82MI:
    case F_INT48MI:
    case F_INT84MI:
    case F_FLOAT8MI:
    case F_NUMERIC_SUB: return Arithmetic::sub;
    case F_INT2MUL:
    case F_INT4MUL:
    case F_INT8MUL:
    case F_INT24MUL:
    case F_INT42MUL:
    case F_INT28MUL:
    case F_INT82MUL:
    case F_INT48MUL:
    case F_INT84MUL:
    case F_FLOAT8MUL:
    case F_NUMERIC_MUL: return Arithmetic::mul;
    case F_INT2DIV:
    case F_INT4DIV:
    case F_INT8DIV:
    case F_INT24DIV:
    case F_INT42DIV:
    case F_INT28DIV:
    case F_INT82DIV:
    case F_INT48DIV:
    case F_INT84DIV:
    case F_FLOAT8DIV:
    case F_NUMERIC_DIV: return Arithmetic::div;
    }
    return Arithmetic::none;
}

bool builtin_integer_to_numeric(const FuncExpr *f)
{
    switch (f->funcid) {
    case F_NUMERIC_INT2:
    case F_NUMERIC_INT4:
    case F_NUMERIC_INT8: return one_argument(f);
    }
    return false;
}

bool builtin_number_widening(const FuncExpr *f)
{
    switch (f->funcid) {
    case F_INT4_INT2:
    case F_INT8_INT2:
    case F_INT8_INT4:
    case F_FLOAT8_INT2:
    case F_FLOAT8_INT4:
    case F_FLOAT8_INT8:
    case F_FLOAT8_NUMERIC: return one_argument(f);
    }
    return builtin_integer_to_numeric(f);
}

bool builtin_number_narrowing(const FuncExpr *f)
{
    switch (f->funcid) {
    case F_INT2_NUMERIC:
    case F_INT4_NUMERIC:
    case F_INT8_NUMERIC:
    case F_INT2_FLOAT8:
    case F_INT4_FLOAT8:
    case F_INT8_FLOAT8: return one_argument(f);
    }
    return false;
}

bool builtin_time_zone_cast(const FuncExpr *f)
{
    return (f->funcid == F_TIMESTAMP_TIMESTAMPTZ || f->funcid == F_TIMESTAMPTZ_TIMESTAMP) && one_argument(f);
}

bool builtin_time_shift(const OpExpr *op, bool *minus)
{
    if (list_length(op->args) != 2)
        return false;
    switch (operator_function(op)) {
    case F_TIMESTAMP_PL_INTERVAL:
    case F_TIMESTAMPTZ_PL_INTERVAL: *minus = false; return true;
    case F_TIMESTAMP_MI_INTERVAL:
    case F_TIMESTAMPTZ_MI_INTERVAL: *minus = true; return true;
    }
    return false;
}

bool builtin_interval_times(const OpExpr *op, const Node **interval, const Node **factor)
{
    if (list_length(op->args) != 2)
        return false;
    const Node *l = static_cast<const Node *>(linitial(op->args));
    const Node *r = static_cast<const Node *>(lsecond(op->args));
    switch (operator_function(op)) {
    case F_INTERVAL_MUL:
        *interval = l;
        *factor = r;
        return true;
    case F_MUL_D_INTERVAL:
        *interval = r;
        *factor = l;
        return true;
    }
    return false;
}

bool builtin_remainder(const Node *n, const Node **dividend, const Node **divisor)
{
    Oid fn;
    List *args;
    if (IsA(n, OpExpr)) {
        fn = operator_function(reinterpret_cast<const OpExpr *>(n));
        args = reinterpret_cast<const OpExpr *>(n)->args;
    } else if (IsA(n, FuncExpr)) {
        fn = reinterpret_cast<const FuncExpr *>(n)->funcid;
        args = reinterpret_cast<const FuncExpr *>(n)->args;
    } else {
        return false;
    }
    if (list_length(args) != 2)
        return false;
    switch (fn) {
    case F_INT2MOD:
    case F_INT4MOD:
    case F_INT8MOD:
    case F_NUMERIC_MOD:
    case F_MOD_INT2_INT2:
    case F_MOD_INT4_INT4:
    case F_MOD_INT8_INT8:
    case F_MOD_NUMERIC_NUMERIC:
        *dividend = static_cast<const Node *>(linitial(args));
        *divisor = static_cast<const Node *>(lsecond(args));
        return true;
    }
    return false;
}

} // namespace gpu_histogram
