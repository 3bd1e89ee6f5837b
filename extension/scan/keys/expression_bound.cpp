/*
 * expression_bound.cpp: the groups an expression key can make, from its
 * shape (expression_bound.h).
 */
#include "expression_bound.h"
#include "builtin_ops.h"
#include "column_span.h"
#include "time_keys.h"

#include <cmath>

extern "C" {
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

/* More than this many is no bound worth giving. */
constexpr double kUnbounded = 1e15;

struct Context {
    PlannerInfo *root;
    Index relid;
};

/* The values a periodic field of a date or time takes; 0 for a field that is not periodic. */
double field_values(const char *field)
{
    static const struct {
        const char *name;
        double values;
    } fields[] = {{"minute", 60}, {"hour", 24},    {"day", 31},   {"dow", 7},  {"isodow", 7},
                  {"doy", 366},   {"week", 53},    {"month", 12}, {"quarter", 4}};
    for (const auto &f : fields)
        if (pg_strcasecmp(field, f.name) == 0)
            return f.values;
    return 0;
}

/* How many years one value of a field of the year's spans (decade: 10); 0 for any other. */
double year_field_years(const char *field)
{
    static const struct {
        const char *name;
        double years;
    } fields[] = {{"year", 1}, {"isoyear", 1}, {"decade", 10}, {"century", 100}, {"millennium", 1000}};
    for (const auto &f : fields)
        if (pg_strcasecmp(field, f.name) == 0)
            return f.years;
    return 0;
}

bool is_extract(Oid funcid)
{
    switch (funcid) {
    case F_EXTRACT_TEXT_TIMESTAMPTZ:
    case F_EXTRACT_TEXT_TIMESTAMP:
    case F_EXTRACT_TEXT_DATE:
    case F_DATE_PART_TEXT_TIMESTAMPTZ:
    case F_DATE_PART_TEXT_TIMESTAMP:
    case F_DATE_PART_TEXT_DATE:
        return true;
    }
    return false;
}

const Const *constant(const Node *n)
{
    return n != NULL && IsA(n, Const) && !reinterpret_cast<const Const *>(n)->constisnull
               ? reinterpret_cast<const Const *>(n)
               : NULL;
}

/* A constant number as a double; false if it is not one. */
bool number(const Node *n, double *out)
{
    const Const *c = constant(n);
    if (c == NULL)
        return false;
    switch (c->consttype) {
    case INT2OID: *out = DatumGetInt16(c->constvalue); return true;
    case INT4OID: *out = DatumGetInt32(c->constvalue); return true;
    case INT8OID: *out = static_cast<double>(DatumGetInt64(c->constvalue)); return true;
    case FLOAT4OID: *out = DatumGetFloat4(c->constvalue); return true;
    case FLOAT8OID: *out = DatumGetFloat8(c->constvalue); return true;
    case NUMERICOID:
        *out = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, c->constvalue));
        return true;
    }
    return false;
}

/* The argument of a RelabelType, or of a built-in cast to a wider number or between the time types; else NULL. */
const Node *cast_argument(const Node *n)
{
    if (IsA(n, RelabelType))
        return reinterpret_cast<const Node *>(reinterpret_cast<const RelabelType *>(n)->arg);
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        if (builtin_number_widening(f) || builtin_time_zone_cast(f))
            return static_cast<const Node *>(linitial(f->args));
    }
    return NULL;
}

/*
 * The built-in arithmetic of n (by its function's OID, builtin_ops.h), a
 * time shifted by a built-in interval operator as add or sub, or none; its
 * arguments in *l and *r.
 */
Arithmetic binary(const Node *n, const Node **l, const Node **r)
{
    if (!IsA(n, OpExpr) || list_length(reinterpret_cast<const OpExpr *>(n)->args) != 2)
        return Arithmetic::none;
    const OpExpr *op = reinterpret_cast<const OpExpr *>(n);
    *l = static_cast<const Node *>(linitial(op->args));
    *r = static_cast<const Node *>(lsecond(op->args));
    bool minus;
    if (builtin_time_shift(op, &minus))
        return minus ? Arithmetic::sub : Arithmetic::add;
    return builtin_arithmetic(op);
}

/*
 * Whether n is a linear function of one column of the table, n = col * scale
 * + b, with col counted in its stored units (microseconds for a timestamp).
 */
bool linear(const Context &c, const Node *n, const Var **col, double *scale)
{
    if (IsA(n, Var)) {
        const Var *v = reinterpret_cast<const Var *>(n);
        if (v->varno != static_cast<int>(c.relid) || v->varlevelsup != 0 || v->varattno <= 0)
            return false;
        switch (v->vartype) {
        case INT2OID:
        case INT4OID:
        case INT8OID:
        case TIMESTAMPOID:
        case TIMESTAMPTZOID:
            *col = v;
            *scale = 1;
            return true;
        }
        return false;
    }
    if (const Node *arg = cast_argument(n)) {
        const Oid to = exprType(n);
        const Oid from = exprType(arg);
        /*
         * To a wider number: the same value.  Between timestamp and
         * timestamptz: shifted by the session zone's offset, as AT TIME ZONE
         * below.
         */
        return (to == INT8OID || to == FLOAT8OID || to == NUMERICOID ||
                (to == TIMESTAMPOID && from == TIMESTAMPTZOID) || (to == TIMESTAMPTZOID && from == TIMESTAMPOID)) &&
               linear(c, arg, col, scale);
    }
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        /* extract(epoch FROM ts): seconds, a microsecond's millionth each */
        const Const *field = list_length(f->args) == 2 ? constant(static_cast<const Node *>(linitial(f->args))) : NULL;
        if (is_extract(f->funcid) && field != NULL && field->consttype == TEXTOID &&
            pg_strcasecmp(TextDatumGetCString(field->constvalue), "epoch") == 0) {
            const Node *arg = static_cast<const Node *>(lsecond(f->args));
            if (!IsA(arg, Var) || !linear(c, arg, col, scale) || ((*col)->vartype != TIMESTAMPOID &&
                                                                  (*col)->vartype != TIMESTAMPTZOID))
                return false;
            *scale = 1e-6;
            return true;
        }
        /*
         * ts AT TIME ZONE z: the column shifted by the zone's offset, which
         * changes only at transitions; each adds at most a step or two,
         * which the bound's partial ends absorb for an estimate.
         */
        if ((f->funcid == F_TIMEZONE_TEXT_TIMESTAMPTZ || f->funcid == F_TIMEZONE_TEXT_TIMESTAMP) &&
            list_length(f->args) == 2 && IsA(linitial(f->args), Const))
            return linear(c, static_cast<const Node *>(lsecond(f->args)), col, scale);
        return false;
    }
    const Node *l, *r;
    const Arithmetic op = binary(n, &l, &r);
    double k;
    if (op == Arithmetic::none || exprType(n) == INT2OID || exprType(n) == INT4OID || exprType(n) == INT8OID)
        return false; /* integer arithmetic truncates: a step, not linear (step()) */
    const bool add_sub = op == Arithmetic::add || op == Arithmetic::sub;
    if (add_sub && number(r, &k))
        return linear(c, l, col, scale);
    /* a time moved by a constant interval: the same steps, shifted (a month's or a day's length varies a little) */
    if (add_sub && constant(r) != NULL && constant(r)->consttype == INTERVALOID)
        return linear(c, l, col, scale);
    if (op == Arithmetic::add && number(l, &k))
        return linear(c, r, col, scale);
    if (op == Arithmetic::mul && number(r, &k) && k != 0 && linear(c, l, col, scale)) {
        *scale *= k;
        return true;
    }
    if (op == Arithmetic::mul && number(l, &k) && k != 0 && linear(c, r, col, scale)) {
        *scale *= k;
        return true;
    }
    if (op == Arithmetic::div && number(r, &k) && k != 0 && linear(c, l, col, scale)) {
        *scale /= k;
        return true;
    }
    return false;
}

/*
 * The values of a step of a column over the rows read: their span over the
 * step's width, and both ends; of a time column, bounded bucket by bucket
 * of its statistics as a time key's are (column_span.h), so that rows of two
 * years fifteen years apart are not counted as fifteen years of hours.
 */
double steps(const Context &c, const Var *col, double width)
{
    double span, buckets;
    if (!(width > 0) || !planner_column_span(c.root, c.relid, col->varattno, col->vartype, &span))
        return 0;
    if ((col->vartype == TIMESTAMPOID || col->vartype == TIMESTAMPTZOID) &&
        planner_bucket_groups(c.root, c.relid, col->varattno, col->vartype, width, &buckets))
        span = Min(span, buckets * width);
    return span / width + 2;
}

bool is_rounding(Oid funcid)
{
    switch (funcid) {
    case F_FLOOR_FLOAT8:
    case F_FLOOR_NUMERIC:
    case F_CEIL_FLOAT8:
    case F_CEIL_NUMERIC:
    case F_CEILING_FLOAT8:
    case F_CEILING_NUMERIC:
    case F_TRUNC_FLOAT8:
    case F_TRUNC_NUMERIC:
    case F_ROUND_FLOAT8:
    case F_ROUND_NUMERIC:
        return true;
    }
    return false;
}

/* A cast of a number to an integer, which rounds it: one value per unit, as round() is. */
bool is_integer_cast(Oid funcid)
{
    switch (funcid) {
    case F_INT2_NUMERIC:
    case F_INT4_NUMERIC:
    case F_INT8_NUMERIC:
    case F_INT2_FLOAT8:
    case F_INT4_FLOAT8:
    case F_INT8_FLOAT8:
    case F_INT2_FLOAT4:
    case F_INT4_FLOAT4:
    case F_INT8_FLOAT4:
        return true;
    }
    return false;
}

/* Whether n is a cast of a number to an integer. */
bool rounding_cast(const Node *n)
{
    return IsA(n, FuncExpr) && is_integer_cast(reinterpret_cast<const FuncExpr *>(n)->funcid) &&
           list_length(reinterpret_cast<const FuncExpr *>(n)->args) == 1;
}

/*
 * The decimal places n rounds its one argument to: 0 for floor, ceil, a
 * cast to an integer and the like; s for round(x, s) and trunc(x, s) of a
 * constant s, which is what round(x) and trunc(x) of a numeric become once
 * the planner inlines them (SQL functions calling round($1, 0)); false
 * where n is no rounding.
 */
bool rounding_places(const Node *n, int *places)
{
    if (!IsA(n, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
    double s;
    if ((is_rounding(f->funcid) || is_integer_cast(f->funcid)) && list_length(f->args) == 1) {
        *places = 0;
        return true;
    }
    if ((f->funcid == F_ROUND_NUMERIC_INT4 || f->funcid == F_TRUNC_NUMERIC_INT4) && list_length(f->args) == 2 &&
        number(static_cast<const Node *>(lsecond(f->args)), &s) && std::fabs(s) <= 15) {
        *places = static_cast<int>(s);
        return true;
    }
    return false;
}

/* x rounded (floor, ceil, trunc, round, a cast to an integer), x linear in a column: one value per 1/scale. */
bool rounded_linear(const Context &c, const Node *n, const Var **col, double *scale)
{
    int places;
    if (!rounding_places(n, &places) ||
        !linear(c, static_cast<const Node *>(linitial(reinterpret_cast<const FuncExpr *>(n)->args)), col, scale))
        return false;
    *scale *= std::pow(10.0, places);
    return true;
}

/*
 * Whether n is a periodic field (extract(minute FROM ts), its cast to an
 * integer or a float8), whose values lie in [0, *top]: a field of whole
 * numbers below its count of values, the second below 60 with its
 * microseconds (which a cast to an integer may round up to 60).
 */
bool bounded_field(const Node *n, double *top)
{
    for (;;) {
        const Node *a = cast_argument(n);
        if (a == NULL && rounding_cast(n))
            a = static_cast<const Node *>(linitial(reinterpret_cast<const FuncExpr *>(n)->args));
        if (a == NULL)
            break;
        n = a;
    }
    if (!IsA(n, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
    const Const *field = list_length(f->args) == 2 ? constant(static_cast<const Node *>(linitial(f->args))) : NULL;
    if (!is_extract(f->funcid) || field == NULL || field->consttype != TEXTOID)
        return false;
    const char *name = TextDatumGetCString(field->constvalue);
    *top = pg_strcasecmp(name, "second") == 0 ? 60 : field_values(name);
    return *top > 0;
}

/*
 * A field divided by a constant k > 0 and rounded, floor(extract(minute
 * FROM ts) / 15) or extract(minute FROM ts)::int / 15, as a part of a
 * unit's factor has it: values in [0, top / k] on a grid of 1 (or of
 * 10^-places), one per k of the field's and one more; 0 where n is not
 * such.
 */
double divided_field(const Node *n)
{
    int places = 0;
    const bool rounded = rounding_places(n, &places);
    if (rounded)
        n = static_cast<const Node *>(linitial(reinterpret_cast<const FuncExpr *>(n)->args));
    const Node *l, *r;
    double k, top;
    const Arithmetic op = binary(n, &l, &r);
    const bool integer = exprType(n) == INT2OID || exprType(n) == INT4OID || exprType(n) == INT8OID;
    if (op != Arithmetic::div || !(rounded || integer) || !number(r, &k) || !(k > 0) || !bounded_field(l, &top))
        return 0;
    return std::floor(top / k * std::pow(10.0, places)) + 1;
}

double bound(const Context &c, const Node *n);

/*
 * A unit less its remainder, date_trunc('minute', ts) - (extract(minute
 * FROM ts)::int % 5) * interval '1 minute': the truncation's values, a
 * value per k of them and one more per unit above (an hour's minutes need
 * not divide by k); 0 where n is not such.
 */
double remainder_bound(const Context &c, const Node *n)
{
    const Node *l, *r, *interval, *factor, *dividend, *divisor;
    double k;
    if (binary(n, &l, &r) != Arithmetic::sub || !IsA(l, FuncExpr) || !IsA(r, OpExpr) ||
        !builtin_interval_times(reinterpret_cast<const OpExpr *>(r), &interval, &factor))
        return 0;
    const FuncExpr *trunc = reinterpret_cast<const FuncExpr *>(l);
    const Const *unit = list_length(trunc->args) == 2 ? constant(static_cast<const Node *>(linitial(trunc->args))) : NULL;
    if ((trunc->funcid != F_DATE_TRUNC_TEXT_TIMESTAMPTZ && trunc->funcid != F_DATE_TRUNC_TEXT_TIMESTAMP) ||
        unit == NULL || unit->consttype != TEXTOID)
        return 0;
    const int u = time_key_trunc_unit(TextDatumGetCString(unit->constvalue));
    for (const Node *a; (a = cast_argument(factor)) != NULL;)
        factor = a;
    if ((u != DTK_MINUTE && u != DTK_HOUR) || !builtin_remainder(factor, &dividend, &divisor) || !number(divisor, &k) ||
        !(k >= 1))
        return 0;
    const double units = bound(c, l);
    return units > 0 ? units / k + units / (u == DTK_MINUTE ? 60 : 24) + 2 : 0;
}

/*
 * The shortest span of time over which to_char(ts, format) cannot change:
 * the finest field its format names, read from its patterns outside
 * double quotes (a pattern the check misreads as finer only loosens the
 * bound); 0 where it names none it knows.
 */
double to_char_unit_usec(const char *format)
{
    StringInfoData up;
    initStringInfo(&up);
    bool quoted = false;
    for (const char *p = format; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted)
            appendStringInfoChar(&up, pg_toupper(static_cast<unsigned char>(*p)));
    }
    static const struct {
        const char *pattern;
        double usec;
    } kPatterns[] = {{"US", 1},
                     {"FF", 1},
                     {"MS", 1e3},
                     {"SS", 1e6},
                     {"MI", 60e6},
                     {"HH", 3600e6},
                     {"AM", 3600e6},
                     {"PM", 3600e6},
                     {"A.M.", 3600e6},
                     {"P.M.", 3600e6},
                     {"D", 86400e6},
                     {"J", 86400e6},
                     {"W", 7 * 86400e6},
                     {"MM", 28 * 86400e6},
                     {"MON", 28 * 86400e6},
                     {"RM", 28 * 86400e6},
                     {"Q", 90 * 86400e6},
                     {"Y", 365 * 86400e6},
                     {"CC", 365 * 86400e6}};
    double unit = 0;
    for (const auto &pt : kPatterns)
        if (strstr(up.data, pt.pattern) != NULL && (unit == 0 || pt.usec < unit))
            unit = pt.usec;
    pfree(up.data);
    return unit;
}

/*
 * The span of time key n cannot change over, and its column: a periodic
 * field (its hour, minute or local day), date_trunc (its unit), ::date (a
 * day), to_char (its format's finest field) of a time linear in a column
 * at its own pace (the column, a shift, AT TIME ZONE).  0 for any other.
 */
double time_unit(const Context &c, const Node *n, const Var **col)
{
    if (!IsA(n, FuncExpr))
        return 0;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
    double scale = 0;
    const Const *first = list_length(f->args) >= 1 ? constant(static_cast<const Node *>(linitial(f->args))) : NULL;
    const Node *time = NULL;
    double unit = 0;
    if (is_extract(f->funcid) && first != NULL && first->consttype == TEXTOID && list_length(f->args) == 2) {
        const char *field = TextDatumGetCString(first->constvalue);
        time = static_cast<const Node *>(lsecond(f->args));
        unit = pg_strcasecmp(field, "minute") == 0       ? 60e6
               : pg_strcasecmp(field, "hour") == 0       ? 3600e6
               : field_values(field) > 0                ? 86400e6 /* the fields of the local date */
               : year_field_years(field) > 0             ? year_field_years(field) * 365 * 86400e6
                                                         : 0;
    } else if ((f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ || f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP) &&
               first != NULL && first->consttype == TEXTOID) {
        const int u = time_key_trunc_unit(TextDatumGetCString(first->constvalue));
        time = static_cast<const Node *>(lsecond(f->args));
        unit = u >= 0 ? trunc_unit_usec(u) : 0;
    } else if ((f->funcid == F_TO_CHAR_TIMESTAMPTZ_TEXT || f->funcid == F_TO_CHAR_TIMESTAMP_TEXT) &&
               list_length(f->args) == 2) {
        const Const *format = constant(static_cast<const Node *>(lsecond(f->args)));
        time = static_cast<const Node *>(linitial(f->args));
        unit = format != NULL ? to_char_unit_usec(TextDatumGetCString(format->constvalue)) : 0;
    } else if ((f->funcid == F_DATE_TIMESTAMPTZ || f->funcid == F_DATE_TIMESTAMP) && list_length(f->args) == 1) {
        time = static_cast<const Node *>(linitial(f->args));
        unit = 86400e6;
    }
    if (unit <= 0 || time == NULL || !linear(c, time, col, &scale) || scale != 1 ||
        ((*col)->vartype != TIMESTAMPOID && (*col)->vartype != TIMESTAMPTZOID))
        return 0;
    return unit;
}

/* The product of the bounds of a node's inputs, or 0 if any is unknown. */
double product(const Context &c, List *args)
{
    double p = 1;
    ListCell *lc;
    foreach (lc, args) {
        const double b = bound(c, static_cast<const Node *>(lfirst(lc)));
        if (b <= 0)
            return 0;
        p = Min(p * b, kUnbounded);
    }
    return p;
}

double bound(const Context &c, const Node *n)
{
    if (n == NULL)
        return 0;
    if (IsA(n, Const))
        return 1;
    const Var *col;
    double scale;
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        const Const *field = list_length(f->args) == 2 ? constant(static_cast<const Node *>(linitial(f->args))) : NULL;
        if (is_extract(f->funcid) && field != NULL && field->consttype == TEXTOID) {
            const double values = field_values(TextDatumGetCString(field->constvalue));
            if (values > 0)
                return values; /* of whatever time: its zone or arithmetic changes no field's range */
        }
        /* date_trunc(unit, x [, zone]) and date_bin(stride, x, origin) of x linear in the column */
        if ((f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ || f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMP ||
             f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ_TEXT) &&
            constant(static_cast<const Node *>(linitial(f->args))) != NULL &&
            constant(static_cast<const Node *>(linitial(f->args)))->consttype == TEXTOID) {
            const int unit = time_key_trunc_unit(
                TextDatumGetCString(constant(static_cast<const Node *>(linitial(f->args)))->constvalue));
            if (unit >= 0 && linear(c, static_cast<const Node *>(lsecond(f->args)), &col, &scale))
                return steps(c, col, trunc_unit_usec(unit) / std::fabs(scale));
        }
        if ((f->funcid == F_DATE_BIN_INTERVAL_TIMESTAMPTZ_TIMESTAMPTZ ||
             f->funcid == F_DATE_BIN_INTERVAL_TIMESTAMP_TIMESTAMP) &&
            constant(static_cast<const Node *>(linitial(f->args))) != NULL &&
            linear(c, static_cast<const Node *>(lsecond(f->args)), &col, &scale)) {
            const Interval *iv = DatumGetIntervalP(constant(static_cast<const Node *>(linitial(f->args)))->constvalue);
            return steps(c, col, (iv->day * 86400e6 + static_cast<double>(iv->time)) / std::fabs(scale));
        }
        /* to_char(ts, format): one value per its format's finest field */
        if (f->funcid == F_TO_CHAR_TIMESTAMPTZ_TEXT || f->funcid == F_TO_CHAR_TIMESTAMP_TEXT) {
            const double unit = time_unit(c, n, &col);
            if (unit > 0)
                return steps(c, col, unit);
        }
        /* floor(x), ceil(x), trunc(x), round(x), x::bigint of x linear in the column: one value per 1/scale */
        if (rounded_linear(c, n, &col, &scale))
            return steps(c, col, 1 / std::fabs(scale));
        const double part = divided_field(n);
        if (part > 0)
            return part;
        return product(c, f->args);
    }
    const Node *l, *r;
    const Arithmetic op = binary(n, &l, &r);
    double k;
    const double part = divided_field(n);
    if (part > 0)
        return part;
    const double blocks = remainder_bound(c, n);
    if (blocks > 0)
        return blocks;
    /* col / k in integers, or a rounded x / k (Grafana's extract(epoch FROM ts)::bigint / 300): one value per k */
    if (op == Arithmetic::div && number(r, &k) && k != 0 &&
        (exprType(n) == INT2OID || exprType(n) == INT4OID || exprType(n) == INT8OID) &&
        (linear(c, l, &col, &scale) || rounded_linear(c, l, &col, &scale)))
        return steps(c, col, std::fabs(k / scale));
    if (IsA(n, OpExpr))
        return product(c, reinterpret_cast<const OpExpr *>(n)->args);
    if (IsA(n, RelabelType) || IsA(n, CoerceViaIO))
        return bound(c, reinterpret_cast<const Node *>(IsA(n, RelabelType)
                                                           ? reinterpret_cast<const RelabelType *>(n)->arg
                                                           : reinterpret_cast<const CoerceViaIO *>(n)->arg));
    return 0;
}

} // namespace

double expression_group_bound(PlannerInfo *root, Index relid, const Expr *expr)
{
    const double b = bound(Context{root, relid}, reinterpret_cast<const Node *>(expr));
    return b > 0 && b < kUnbounded ? b + 1 : 0; /* and NULL */
}

double expression_keys_joint_bound(PlannerInfo *root, Index relid, List *keys)
{
    const Context c{root, relid};
    const Var *column = NULL;
    double unit = 0;
    ListCell *lc;
    foreach (lc, keys) {
        const Var *col;
        const double u = time_unit(c, static_cast<const Node *>(lfirst(lc)), &col);
        if (u <= 0 || (column != NULL && col->varattno != column->varattno))
            return 0;
        column = col;
        unit = unit == 0 ? u : Min(unit, u);
    }
    if (column == NULL)
        return 0;
    const double b = steps(c, column, unit);
    return b > 0 && b < kUnbounded ? b + 1 : 0; /* and NULL */
}

} // namespace gpu_histogram
