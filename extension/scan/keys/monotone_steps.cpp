/*
 * monotone_steps.cpp: the steps a monotone key may be built of, each with
 * its argument (monotone_steps.h).
 *
 * The walk goes from the key's top node down to its column, and gives
 * back, for each node, the range its values can take when the column
 * takes any value a key table may cover (key_tables.h: the timestamp range
 * less 400 days at each end).  Ranges are doubles, widened by a margin where
 * it matters; they only bound where an error could come from:
 *   - numeric arithmetic has no overflow at these sizes, and its division
 *     is by a positive constant;
 *   - integer arithmetic overflows beyond its type's range: refused unless
 *     the range stays well inside it;
 *   - float8 arithmetic raises an overflow at infinity and an underflow
 *     where a non-zero result rounds to zero: refused unless the range stays
 *     below 1e300 and the smallest non-zero magnitude ("tiny") above 1e-300;
 *   - to_timestamp() raises outside the timestamp range: refused unless its
 *     argument's range is inside, a day from each end;
 *   - a cast to an integer raises outside the integer's range: refused
 *     unless the rounded range is inside;
 *   - a date column's values are days, which the casts to a time multiply
 *     out; the days a table covers have their midnights inside its times.
 * A step whose argument is not here keeps the key the executor's, on the
 * host, where it is exact anyway: refusing costs only speed.
 */
#include "monotone_steps.h"

#include "builtin_ops.h"
#include "expression_key.h"
#include "key_tables.h"
#include "time_keys.h"
#include "zone_steps.h"

#include <cmath>

extern "C" {
#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "nodes/nodeFuncs.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
}

namespace gpu_histogram {

namespace {

/* The values a node can take: [lo, hi], and the smallest magnitude of a non-zero one. */
struct Span {
    double lo, hi;
    double tiny;
    bool minus_zero; /* whether a float8 -0 may come out */
};

struct Walk {
    Index relid;
    const Var *column;
    List *divisions;
    bool zoned;       /* a step through a zone's local time (MonotoneShape.zoned) ... */
    List *zone_steps; /* ... and each such step (MonotoneShape.zone_steps) */
    /*
     * Inside the factor of a unit's part (unit_part): the time truncated,
     * whose field below the unit is the factor's one input in place of the
     * column, and that field (DTK_SECOND, DTK_MINUTE or DTK_HOUR); NULL
     * elsewhere.
     */
    const Node *part_of;
    int part_field;
};

/* Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01: extract(epoch) counts from the first. */
constexpr double kUnixToPostgres = (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * static_cast<double>(SECS_PER_DAY);
/* float8 arithmetic is kept this far from its overflow and underflow. */
constexpr double kFloatMax = 1e300;
constexpr double kFloatTiny = 1e-300;
/* A zone's offset is less than this many days: PostgreSQL reads a POSIX zone's up to 167 hours. */
constexpr double kZoneDays = 7;

bool timestamp_type(Oid t)
{
    return t == TIMESTAMPOID || t == TIMESTAMPTZOID;
}

bool integer_type(Oid t)
{
    return t == INT2OID || t == INT4OID || t == INT8OID;
}

/* The largest magnitude an integer type holds (int8's less a margin for the doubles' rounding). */
double integer_limit(Oid t)
{
    return t == INT2OID ? PG_INT16_MAX : t == INT4OID ? PG_INT32_MAX : 9.2e18;
}

/* A non-NULL constant number as a double; false for anything else. */
bool constant_number(const Node *n, double *out)
{
    while (IsA(n, RelabelType))
        n = reinterpret_cast<const Node *>(reinterpret_cast<const RelabelType *>(n)->arg);
    if (!IsA(n, Const) || reinterpret_cast<const Const *>(n)->constisnull)
        return false;
    const Const *c = reinterpret_cast<const Const *>(n);
    switch (c->consttype) {
    case INT2OID: *out = DatumGetInt16(c->constvalue); break;
    case INT4OID: *out = DatumGetInt32(c->constvalue); break;
    case INT8OID: *out = static_cast<double>(DatumGetInt64(c->constvalue)); break;
    case FLOAT8OID: *out = DatumGetFloat8(c->constvalue); break;
    case NUMERICOID:
        if (numeric_is_nan(DatumGetNumeric(c->constvalue)) || numeric_is_inf(DatumGetNumeric(c->constvalue)))
            return false;
        *out = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, c->constvalue));
        break;
    default: return false;
    }
    return std::isfinite(*out);
}

/* Whether a float8 step's span stays clear of overflow and underflow. */
bool float_safe(const Span &s)
{
    return std::fabs(s.lo) < kFloatMax && std::fabs(s.hi) < kFloatMax && s.tiny > kFloatTiny;
}

/* Whether a step's span fits its result type without an error. */
bool fits(Oid type, const Span &s)
{
    if (integer_type(type))
        return s.lo >= -integer_limit(type) && s.hi <= integer_limit(type);
    if (type == FLOAT8OID)
        return float_safe(s);
    if (type == NUMERICOID)
        return std::fabs(s.lo) < kFloatMax && std::fabs(s.hi) < kFloatMax; /* far below numeric's own limit */
    return false;
}

bool step(const Node *n, Walk *w, Span *out);
bool date_epoch(const FuncExpr *f, Walk *w, Span *out);
bool part_field_division(const Node *dividend, double divisor, const Walk *w);

/*
 * x + c, x - c, c + x, x * c, c * x, x / c for a constant c (c > 0 for * and /):
 *   - numeric: numeric_add, _sub and _mul are exact (their scale is the
 *     operands' larger, or their sum), so order is kept; numeric_div rounds
 *     the exact quotient, half away from zero, to a scale select_div_scale
 *     takes from the dividend's magnitude.  At one scale, rounding keeps
 *     order; the table checks that one scale holds (monotone_steps.h).
 *   - float8: each result is the exact one correctly rounded, and rounding
 *     keeps order.
 *   - integers: +, - and * by c > 0 are exact; / truncates towards zero,
 *     which keeps order too.
 */
bool arithmetic(const OpExpr *op, Walk *w, Span *out)
{
    if (list_length(op->args) != 2)
        return false;
    const Oid type = op->opresulttype;
    if (type != NUMERICOID && type != FLOAT8OID && !integer_type(type))
        return false;
    const Arithmetic what = builtin_arithmetic(op); /* by function OID: a look-alike `/` may do anything */
    if (what == Arithmetic::none)
        return false;
    const Node *l = static_cast<const Node *>(linitial(op->args));
    const Node *r = static_cast<const Node *>(lsecond(op->args));
    double c;
    const Node *x;
    bool constant_left = false;
    if (constant_number(r, &c))
        x = l;
    else if (constant_number(l, &c)) {
        x = r;
        constant_left = true;
    } else
        return false;
    const Oid xtype = exprType(x);
    if (xtype != NUMERICOID && xtype != FLOAT8OID && !integer_type(xtype))
        return false;
    Span s;
    if (!step(x, w, &s))
        return false;
    switch (what) {
    case Arithmetic::add:
        /* x + c is -0 only for x = -0 and c = -0 */
        *out = {s.lo + c, s.hi + c, std::min(s.tiny, std::fabs(c)) * 0x1p-53, s.minus_zero && c == 0 && std::signbit(c)};
        break;
    case Arithmetic::sub:
        if (constant_left)
            return false; /* c - x decreases */
        *out = {s.lo - c, s.hi - c, std::min(s.tiny, std::fabs(c)) * 0x1p-53, s.minus_zero && c == 0 && !std::signbit(c)};
        break;
    case Arithmetic::mul:
        if (!(c > 0))
            return false;
        *out = {s.lo * c, s.hi * c, s.tiny * c, s.minus_zero};
        break;
    case Arithmetic::div:
        if (constant_left || !(c > 0))
            return false;
        if (integer_type(type) && c < 1)
            return false; /* an integer constant below 1 is 0 */
        *out = {s.lo / c, s.hi / c, s.tiny / c, s.minus_zero};
        if (integer_type(type))
            *out = {std::trunc(out->lo), std::trunc(out->hi), 1, false};
        if (type == NUMERICOID && w->part_of != NULL) {
            if (!part_field_division(x, c, w))
                return false;
        } else if (type == NUMERICOID) {
            if (!expression_fixed_scale(x))
                return false; /* the dividend's own scale enters the quotient's: it must be one */
            w->divisions = lappend(w->divisions, const_cast<OpExpr *>(op));
        }
        break;
    default: return false;
    }
    if (integer_type(type) || type == NUMERICOID) {
        out->tiny = integer_type(type) ? 1 : out->tiny;
        out->minus_zero = false;
    }
    return fits(type, *out);
}

/* floor, ceil, trunc and round, of a numeric (round and trunc also to a constant scale) or a float8. */
bool rounding(const FuncExpr *f, Walk *w, Span *out)
{
    int scale = 0;
    switch (f->funcid) {
    case F_FLOOR_NUMERIC:
    case F_CEIL_NUMERIC:
    case F_CEILING_NUMERIC:
    case F_TRUNC_NUMERIC:
    case F_ROUND_NUMERIC:
    case F_FLOOR_FLOAT8:
    case F_CEIL_FLOAT8:
    case F_CEILING_FLOAT8:
    case F_TRUNC_FLOAT8:
    case F_ROUND_FLOAT8:
        if (list_length(f->args) != 1)
            return false;
        break;
    case F_ROUND_NUMERIC_INT4:
    case F_TRUNC_NUMERIC_INT4: {
        double s;
        if (list_length(f->args) != 2 || !constant_number(static_cast<const Node *>(lsecond(f->args)), &s) ||
            std::fabs(s) > 100)
            return false;
        scale = static_cast<int>(s);
        break;
    }
    default: return false;
    }
    Span s;
    if (!step(static_cast<const Node *>(linitial(f->args)), w, &s))
        return false;
    /*
     * Each rounds to a grid of the same spacing everywhere (1, or 10^-scale),
     * always down, always up, towards zero, or to the nearest: each keeps
     * order, and raises nothing for a finite value.
     */
    const double unit = std::pow(10.0, -scale);
    /*
     * float8's floor keeps -0 only where it had one; ceil, trunc and round
     * make one of a negative value above -1 (numeric has no -0)
     */
    const bool floor8 = f->funcid == F_FLOOR_FLOAT8;
    const bool float8 = f->funcresulttype == FLOAT8OID;
    *out = {s.lo - unit, s.hi + unit, std::min(s.tiny, unit),
            float8 && (s.minus_zero || (!floor8 && s.lo < 0 && s.hi > -1))};
    return fits(f->funcresulttype, *out);
}

/* A constant field name of extract() or date_part(), lower-cased; NULL if not a constant. */
const char *field_name(const Node *field)
{
    if (!IsA(field, Const) || reinterpret_cast<const Const *>(field)->constisnull)
        return NULL;
    const char *name = TextDatumGetCString(reinterpret_cast<const Const *>(field)->constvalue);
    return downcase_truncate_identifier(name, strlen(name), false);
}

/* The constant field of extract() or date_part() of a timestamp or timestamptz, lower-cased; NULL for any other. */
const char *time_field_name(const FuncExpr *f)
{
    switch (f->funcid) {
    case F_EXTRACT_TEXT_TIMESTAMPTZ:
    case F_EXTRACT_TEXT_TIMESTAMP:
    case F_DATE_PART_TEXT_TIMESTAMPTZ:
    case F_DATE_PART_TEXT_TIMESTAMP: return field_name(static_cast<const Node *>(linitial(f->args)));
    }
    return NULL;
}

/*
 * extract(epoch FROM ts) and date_part('epoch', ts): the seconds since
 * 1970-01-01 of the stored time, exact in numeric (microseconds over a
 * million) and that number correctly rounded in float8: increasing, and no
 * error for a finite time.
 */
bool epoch(const FuncExpr *f, Walk *w, Span *out)
{
    if (f->funcid == F_EXTRACT_TEXT_DATE)
        return date_epoch(f, w, out);
    const char *name = time_field_name(f);
    if (name == NULL || strcmp(name, "epoch") != 0)
        return false;
    Span s;
    const Node *arg = static_cast<const Node *>(lsecond(f->args));
    if (!timestamp_type(exprType(arg)) || !step(arg, w, &s))
        return false;
    *out = {s.lo / USECS_PER_SEC + kUnixToPostgres, s.hi / USECS_PER_SEC + kUnixToPostgres, 1e-7, false};
    return true;
}

/*
 * to_timestamp(seconds): rint(seconds * 1e6) microseconds after 1970,
 * increasing; it raises for NaN (no finite step above makes one) and
 * outside the timestamp range, which the argument's span must stay inside.
 */
bool to_timestamp(const FuncExpr *f, Walk *w, Span *out)
{
    Span s;
    if (f->funcid != F_TO_TIMESTAMP_FLOAT8 || !step(static_cast<const Node *>(linitial(f->args)), w, &s))
        return false;
    const double first = MIN_TIMESTAMP / static_cast<double>(USECS_PER_SEC) + kUnixToPostgres + SECS_PER_DAY;
    const double last = END_TIMESTAMP / static_cast<double>(USECS_PER_SEC) + kUnixToPostgres - SECS_PER_DAY;
    if (!(s.lo > first && s.hi < last))
        return false;
    *out = {(s.lo - kUnixToPostgres) * USECS_PER_SEC, (s.hi - kUnixToPostgres) * USECS_PER_SEC, 1, false};
    return true;
}

/*
 * A cast to a wider number: int2 and int4 to a wider integer (the same
 * value), an integer to numeric (exact) or float8 (correctly rounded), a
 * numeric to float8 (correctly rounded; it raises only beyond float8's
 * range, which the span must stay inside).  Each keeps order.
 */
bool widening(const FuncExpr *f, Walk *w, Span *out)
{
    if (!builtin_number_widening(f))
        return false;
    const Node *arg = static_cast<const Node *>(linitial(f->args));
    const Oid from = exprType(arg), to = f->funcresulttype;
    const bool ok = (integer_type(from) && (to == NUMERICOID || to == FLOAT8OID)) ||
                    (from == NUMERICOID && to == FLOAT8OID) ||
                    (integer_type(from) && integer_type(to) && integer_limit(to) >= integer_limit(from));
    if (!ok || !step(arg, w, out))
        return false;
    out->minus_zero = false; /* an integer's or a numeric's zero is +0 */
    return fits(to, *out);
}

/*
 * A cast of a numeric or a float8 to an integer: the nearest integer
 * (numeric's halves away from zero, float8's to even, by rint()), which
 * keeps order.  It raises beyond the integer's range, which the span must
 * stay inside, a unit from each end for the rounding (Grafana's epoch in
 * milliseconds, `(floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint`).
 */
bool narrowing(const FuncExpr *f, Walk *w, Span *out)
{
    if (!builtin_number_narrowing(f))
        return false;
    const Node *arg = static_cast<const Node *>(linitial(f->args));
    const Oid from = exprType(arg);
    Span s;
    if ((from != NUMERICOID && from != FLOAT8OID) || !step(arg, w, &s))
        return false;
    *out = {std::floor(s.lo) - 1, std::ceil(s.hi) + 1, 1, false}; /* an integer's zero is +0 */
    return fits(f->funcresulttype, *out);
}

/* Records a step through a zone's local time (zone_steps.h). */
void add_zone_step(Walk *w, ZoneStepKind kind, const Node *arg, ZoneStep fields)
{
    ZoneStep *z = static_cast<ZoneStep *>(palloc(sizeof(ZoneStep)));
    *z = fields;
    z->kind = kind;
    z->arg = static_cast<Expr *>(copyObjectImpl(arg));
    w->zone_steps = lappend(w->zone_steps, z);
    w->zoned = true;
}

/*
 * ts + interval and ts - interval, for a constant interval of no months:
 * timestamp_pl_interval and timestamptz_pl_interval add months and days
 * in local time, the rest as it is.  A month's length depends on the date
 * (January 30 and 31 both go to February 28, and keep their hours), so no
 * months.  Days move a timestamp by whole days; a timestamptz's date moves
 * in the session's zone's local time, a step through it (zone_steps.h).
 * It raises outside the timestamp range, which the span must stay inside,
 * a week further for the zone's offset.
 */
bool shift(const OpExpr *op, Walk *w, Span *out)
{
    bool minus;
    if (!builtin_time_shift(op, &minus))
        return false;
    const Node *c = static_cast<const Node *>(lsecond(op->args));
    if (!IsA(c, Const) || reinterpret_cast<const Const *>(c)->constisnull)
        return false;
    const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(c)->constvalue);
    if (iv->month != 0) /* an infinite interval (PostgreSQL 17) has months too */
        return false;
    const Node *arg = static_cast<const Node *>(linitial(op->args));
    Span s;
    if (!step(arg, w, &s))
        return false;
    const double day = static_cast<double>(USECS_PER_DAY);
    const double moved = static_cast<double>(iv->day) * day + static_cast<double>(iv->time);
    const double d = minus ? -moved : moved;
    const bool zoned = iv->day != 0 && exprType(arg) == TIMESTAMPTZOID;
    const double margin = zoned ? kZoneDays * day : 0;
    if (zoned) {
        ZoneStep z{};
        z.days = minus ? -static_cast<int64>(iv->day) : iv->day;
        add_zone_step(w, ZoneStepKind::shift_days, arg, z);
    }
    *out = {s.lo + d - margin, s.hi + d + margin, 1, false};
    return out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day;
}

/*
 * date_trunc(unit, ts) of a timestamp without time zone, up to a year: the
 * start of the unit the time lies in, by its calendar fields, which keeps
 * order.  No zone enters it.  A timestamptz's date_trunc works in local
 * time, which steps back where the clocks do: a step through the session's
 * zone (zone_steps.h; of a date column, zoned: no order is assumed).  It
 * raises for an unknown unit (the recognition below takes known ones only)
 * and outside the range, which a year's margin and a week's for the zone
 * keep clear of.
 */
bool truncation(const FuncExpr *f, Walk *w, Span *out)
{
    const bool zoned = f->funcid == F_DATE_TRUNC_TEXT_TIMESTAMPTZ;
    if ((f->funcid != F_DATE_TRUNC_TEXT_TIMESTAMP && !zoned) || list_length(f->args) != 2)
        return false;
    const Node *unit = static_cast<const Node *>(linitial(f->args));
    if (!IsA(unit, Const) || reinterpret_cast<const Const *>(unit)->constisnull)
        return false;
    /* up to a year: date_trunc's decades and centuries count years in ways this does not argue for */
    const int u = time_key_trunc_unit(TextDatumGetCString(reinterpret_cast<const Const *>(unit)->constvalue));
    const bool known = u >= 0 && u != DTK_DECADE && u != DTK_CENTURY && u != DTK_MILLENNIUM;
    Span s;
    if (!known || !step(static_cast<const Node *>(lsecond(f->args)), w, &s))
        return false;
    const double day = static_cast<double>(USECS_PER_DAY);
    *out = {s.lo - 367.0 * day - (zoned ? kZoneDays * day : 0), s.hi + (zoned ? kZoneDays * day : 0), 1, false};
    if (zoned) {
        ZoneStep z{};
        z.unit = static_cast<Const *>(copyObjectImpl(unit));
        /* timestamptz_trunc_internal goes back through the zone from a day up; below, at the time's offset */
        z.redo_zone = u != DTK_MICROSEC && u != DTK_MILLISEC && u != DTK_SECOND && u != DTK_MINUTE && u != DTK_HOUR;
        add_zone_step(w, ZoneStepKind::trunc_local, static_cast<const Node *>(lsecond(f->args)), z);
    }
    return out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day;
}

/*
 * extract(epoch FROM d) of a date: the date's days since 1970-01-01 times
 * 86,400, an exact numeric with no zone in it (extract_date), so
 * increasing; it raises nothing for a finite date.
 */
bool date_epoch(const FuncExpr *f, Walk *w, Span *out)
{
    const char *name = field_name(static_cast<const Node *>(linitial(f->args)));
    Span s;
    const Node *arg = static_cast<const Node *>(lsecond(f->args));
    if (name == NULL || strcmp(name, "epoch") != 0 || exprType(arg) != DATEOID || !step(arg, w, &s))
        return false;
    *out = {s.lo * SECS_PER_DAY + kUnixToPostgres, s.hi * SECS_PER_DAY + kUnixToPostgres, 1, false};
    return true;
}

/*
 * The casts between a date and a time:
 *   - date to timestamp: the date's midnight, days times a day's
 *     microseconds, increasing;
 *   - timestamp to date: the day the time lies in, by its calendar date,
 *     which never decreases;
 *   - date to timestamptz: the date's midnight in the session's zone,
 *     zoned (MonotoneShape.zoned), and timestamptz to date, the local date
 *     of the time, zoned too.
 * Each raises only outside the timestamp range, which the spans keep a
 * day or more clear of: the days a table covers have their midnights
 * inside kKeyTableMin .. kKeyTableMax, 400 days from each end, and a zoned
 * step's span is widened by a week each side, since PostgreSQL reads a
 * POSIX zone's offsets up to 167 hours (localtime.c's getsecs).
 */
bool date_cast(const FuncExpr *f, Walk *w, Span *out)
{
    if (list_length(f->args) != 1)
        return false;
    const Node *arg = static_cast<const Node *>(linitial(f->args));
    const double day = static_cast<double>(USECS_PER_DAY);
    const bool zoned = f->funcid == F_TIMESTAMPTZ_DATE || f->funcid == F_DATE_TIMESTAMPTZ;
    const double days = zoned ? kZoneDays : 1; /* the margin of a step's span */
    Span s;
    switch (f->funcid) {
    case F_TIMESTAMP_DATE:
    case F_TIMESTAMPTZ_DATE:
        if (exprType(arg) != DATEOID || !step(arg, w, &s))
            return false;
        *out = {(s.lo - days) * day, (s.hi + days) * day, 1, false};
        if (!(out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day))
            return false;
        break;
    case F_DATE_TIMESTAMP:
    case F_DATE_TIMESTAMPTZ: /* a date of a time in range is far inside the dates' */
        if (!timestamp_type(exprType(arg)) || !step(arg, w, &s))
            return false;
        *out = {std::floor(s.lo / day) - days, std::ceil(s.hi / day) + days, 1, false};
        break;
    default: return false;
    }
    if (zoned) {
        ZoneStep z{};
        z.from_date = f->funcid == F_TIMESTAMPTZ_DATE;
        add_zone_step(w, z.from_date ? ZoneStepKind::from_local : ZoneStepKind::to_local, arg, z);
    }
    return true;
}

/*
 * A timestamptz's local time as a timestamp (ts::timestamp, ts AT TIME
 * ZONE zone) and back (lts::timestamptz, lts AT TIME ZONE zone), in the
 * session's zone or a constant one that is a zone name or a fixed offset:
 * steps through local time (zone_steps.h).  An abbreviation that stands
 * for a zone has offsets of its own, and a zone no lookup finds raises:
 * neither is a step.  Each raises only outside the timestamp range, which
 * the span keeps a week clear of.
 */
bool local_time(const FuncExpr *f, Walk *w, Span *out)
{
    const Node *zone = NULL;
    const Node *arg;
    bool into;
    switch (f->funcid) {
    case F_TIMESTAMP_TIMESTAMPTZ: into = true; break;
    case F_TIMESTAMPTZ_TIMESTAMP: into = false; break;
    case F_TIMEZONE_TEXT_TIMESTAMPTZ: into = true; break;
    case F_TIMEZONE_TEXT_TIMESTAMP: into = false; break;
    default: return false;
    }
    if (list_length(f->args) == 2) {
        zone = static_cast<const Node *>(linitial(f->args));
        arg = static_cast<const Node *>(lsecond(f->args));
        pg_tz *tz;
        if (!IsA(zone, Const) || !zone_step_zone(reinterpret_cast<const Const *>(zone), &tz))
            return false;
    } else if (list_length(f->args) == 1) {
        arg = static_cast<const Node *>(linitial(f->args));
    } else {
        return false;
    }
    Span s;
    if (!timestamp_type(exprType(arg)) || !step(arg, w, &s))
        return false;
    const double day = static_cast<double>(USECS_PER_DAY);
    *out = {s.lo - kZoneDays * day, s.hi + kZoneDays * day, 1, false};
    ZoneStep z{};
    z.zone = zone != NULL ? static_cast<Const *>(copyObjectImpl(zone)) : NULL;
    add_zone_step(w, into ? ZoneStepKind::to_local : ZoneStepKind::from_local, arg, z);
    return out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day;
}

/* extract(field FROM x) or date_part(field, x): the given field of the given time. */
bool is_field_of(const Node *n, const Node *x, int field)
{
    while (IsA(n, RelabelType))
        n = reinterpret_cast<const Node *>(reinterpret_cast<const RelabelType *>(n)->arg);
    if (!IsA(n, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
    const char *name = time_field_name(f);
    int found;
    return name != NULL && DecodeUnits(0, const_cast<char *>(name), &found) == UNITS && found == field &&
           equal(lsecond(f->args), x);
}

/* The field of a unit's part as the walk meets it, its one input. */
bool is_part_field(const Node *n, const Walk *w)
{
    return is_field_of(n, w->part_of, w->part_field);
}

/*
 * The field's values: the hour of the day, the minute of the hour, whole
 * numbers from 0 (extract's numeric of scale 0, date_part's float8), and
 * the second of the minute with its microseconds (scale 6), below 60: a
 * timestamp has no leap second.
 */
Span part_field_span(const Walk *w)
{
    switch (w->part_field) {
    case DTK_HOUR: return {0, 23, 1, false};
    case DTK_MINUTE: return {0, 59, 1, false};
    }
    return {0, 59.999999, 1e-6, false};
}

/*
 * numeric_div of the field by a constant c from 1 to a million: the
 * quotient is rounded to a scale that depends on the dividend
 * (monotone_key.cpp checks one scale over a table, which a field that
 * starts again at 0 each unit never keeps), but never to fewer than 16
 * digits: select_div_scale takes 16 less 4 per NBASE digit the quotient's
 * integer part has, and it has at most one (a field below 60, c >= 1).
 * The field's values lie a microsecond apart at least, so distinct
 * quotients lie 1e-12 apart, farther than two roundings at 16 digits
 * can move them: order is kept.  Zero divided is exactly zero.
 */
bool part_field_division(const Node *dividend, double divisor, const Walk *w)
{
    return is_part_field(dividend, w) && divisor >= 1 && divisor <= 1e6;
}

/* date_trunc(unit, x) plus or minus a constant interval of time only times a float8 factor, in its parts. */
struct UnitSum {
    const FuncExpr *trunc;
    int unit; /* the truncation's DTK_ unit */
    const Node *x;
    int64 usecs; /* the interval's */
    const Node *factor;
    bool minus;
};

bool unit_sum(const OpExpr *op, UnitSum *out)
{
    const Node *interval, *factor;
    if (!builtin_time_shift(op, &out->minus))
        return false;
    const Node *l = static_cast<const Node *>(linitial(op->args));
    const Node *r = static_cast<const Node *>(lsecond(op->args));
    if (!IsA(l, FuncExpr) || !IsA(r, OpExpr) ||
        !builtin_interval_times(reinterpret_cast<const OpExpr *>(r), &interval, &factor))
        return false;
    const FuncExpr *trunc = reinterpret_cast<const FuncExpr *>(l);
    if ((trunc->funcid != F_DATE_TRUNC_TEXT_TIMESTAMPTZ && trunc->funcid != F_DATE_TRUNC_TEXT_TIMESTAMP) ||
        list_length(trunc->args) != 2 || !IsA(linitial(trunc->args), Const) ||
        static_cast<const Const *>(linitial(trunc->args))->constisnull || !IsA(interval, Const) ||
        reinterpret_cast<const Const *>(interval)->constisnull || exprType(factor) != FLOAT8OID)
        return false;
    const Interval *iv = DatumGetIntervalP(reinterpret_cast<const Const *>(interval)->constvalue);
    if (iv->month != 0 || iv->day != 0 || iv->time <= 0) /* an infinite interval (PostgreSQL 17) has months */
        return false;
    out->trunc = trunc;
    out->unit = time_key_trunc_unit(TextDatumGetCString(static_cast<const Const *>(linitial(trunc->args))->constvalue));
    out->x = static_cast<const Node *>(lsecond(trunc->args));
    out->usecs = iv->time;
    out->factor = factor;
    return true;
}

/* The unit's length in local time; 0 for a unit of no fixed length. */
int64 unit_usecs(int unit)
{
    switch (unit) {
    case DTK_DAY: return USECS_PER_DAY;
    case DTK_HOUR: return USECS_PER_HOUR;
    case DTK_MINUTE: return USECS_PER_MINUTE;
    case DTK_SECOND: return USECS_PER_SEC;
    }
    return 0;
}

/* Records that intervals are cut where x's local time leaves a unit of the given length (zone_steps.h's same_unit). */
void add_same_unit(Walk *w, const Node *x, int64 usecs)
{
    ZoneStep z{};
    z.unit_usecs = usecs;
    z.zoned_input = exprType(x) == TIMESTAMPTZOID;
    add_zone_step(w, ZoneStepKind::same_unit, x, z);
}

/*
 * A part of a unit: date_trunc(unit, x) + interval * factor, where the
 * unit is a day, an hour or a minute, the interval a constant of time
 * only, and the factor a float8 built of this file's steps from the field
 * just below the unit (the hour of the day, the minute of the hour, the
 * second of the minute) of the same x: Superset's and hand-written
 * sub-hour groups, date_trunc('hour', ts) + interval '15 minutes' *
 * floor(extract(minute FROM ts) / 15).  Within one unit of x's local time
 * the truncation is one value and the field grows with x, so the sum does
 * not decrease there; from one unit to the next it may (interval '15
 * minutes' * extract(minute FROM ts) reaches past the next hour's start),
 * so a key table's intervals are cut where the unit changes.  interval_mul
 * of a time-only interval is its microseconds times the factor, rounded
 * (rint), which keeps order for a positive interval and raises only past
 * int64, which the factor's span keeps far from; the sum adds those
 * microseconds, and raises only outside the timestamp range, which the
 * span keeps clear of.
 */
bool unit_part(const OpExpr *op, Walk *w, Span *out)
{
    UnitSum u;
    if (w->part_of != NULL || !unit_sum(op, &u) || u.minus)
        return false;
    const int field = u.unit == DTK_DAY ? DTK_HOUR : u.unit == DTK_HOUR ? DTK_MINUTE : u.unit == DTK_MINUTE ? DTK_SECOND : -1;
    Span t, f;
    if (field < 0 || !truncation(u.trunc, w, &t))
        return false;
    w->part_of = u.x;
    w->part_field = field;
    const bool stepped = step(u.factor, w, &f);
    w->part_of = NULL;
    const double usecs = static_cast<double>(u.usecs);
    if (!stepped || !(std::fabs(usecs * f.lo) < 1e18 && std::fabs(usecs * f.hi) < 1e18))
        return false;
    add_same_unit(w, u.x, unit_usecs(u.unit));
    const double day = static_cast<double>(USECS_PER_DAY);
    *out = {t.lo + std::min(0.0, usecs * f.lo), t.hi + std::max(0.0, usecs * f.hi), 1, false};
    return out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day;
}

/*
 * A unit less its remainder: date_trunc(unit, x) - (extract(unit FROM
 * x)::int % k) * interval '1 unit', for a minute or an hour and a constant
 * k >= 1, as five-minute groups are often written by hand.  Within one
 * unit above it (an hour of minutes, a day of hours) of x's local time at
 * one offset, the truncation is that unit's start plus the field's count
 * of units, so the difference is the start plus k * floor(field / k)
 * units: it does not decrease there, and intervals are cut where the unit
 * above changes.  The field is a whole number (a minute, an hour; not a
 * second, whose cast rounds 59.6 up to 60), so its cast is exact, its
 * remainder by k >= 1 raises nothing and is below k; the product is k - 1
 * units at most, and the difference raises only outside the range the
 * span keeps clear of.
 */
bool unit_remainder(const OpExpr *op, Walk *w, Span *out)
{
    UnitSum u;
    if (w->part_of != NULL || !unit_sum(op, &u) || !u.minus || (u.unit != DTK_MINUTE && u.unit != DTK_HOUR) ||
        u.usecs != unit_usecs(u.unit))
        return false;
    const Node *n = u.factor, *dividend, *divisor;
    if (IsA(n, FuncExpr) && builtin_number_widening(reinterpret_cast<const FuncExpr *>(n)))
        n = static_cast<const Node *>(linitial(reinterpret_cast<const FuncExpr *>(n)->args));
    double k;
    if (!builtin_remainder(n, &dividend, &divisor) || !constant_number(divisor, &k) || k < 1 || k != std::floor(k) ||
        k > 1e6)
        return false;
    if (IsA(dividend, FuncExpr) && builtin_number_narrowing(reinterpret_cast<const FuncExpr *>(dividend)))
        dividend = static_cast<const Node *>(linitial(reinterpret_cast<const FuncExpr *>(dividend)->args));
    Span t;
    if (!is_field_of(dividend, u.x, u.unit) || !truncation(u.trunc, w, &t))
        return false;
    add_same_unit(w, u.x, unit_usecs(u.unit == DTK_MINUTE ? DTK_HOUR : DTK_DAY));
    const double day = static_cast<double>(USECS_PER_DAY);
    *out = {t.lo - static_cast<double>(u.usecs) * k, t.hi, 1, false};
    return out->lo > MIN_TIMESTAMP + day && out->hi < END_TIMESTAMP - day;
}

bool step(const Node *n, Walk *w, Span *out)
{
    if (w->part_of != NULL && is_part_field(n, w)) {
        *out = part_field_span(w);
        return true;
    }
    if (IsA(n, RelabelType))
        return step(reinterpret_cast<const Node *>(reinterpret_cast<const RelabelType *>(n)->arg), w, out);
    if (IsA(n, Var)) {
        if (w->part_of != NULL)
            return false; /* a unit's part reads its field, not the column */
        const Var *v = reinterpret_cast<const Var *>(n);
        if ((w->relid != 0 && v->varno != static_cast<int>(w->relid)) || v->varlevelsup != 0 ||
            v->varattno <= 0 ||
            (w->column != NULL && (w->column->varattno != v->varattno || w->column->varno != v->varno)))
            return false;
        if (!timestamp_type(v->vartype) && !integer_type(v->vartype) && v->vartype != DATEOID)
            return false;
        w->column = v;
        /* the values a key table covers (key_inside_table), within the column's type */
        *out = {static_cast<double>(kKeyTableMin), static_cast<double>(kKeyTableMax), 1, false};
        if (v->vartype == DATEOID)
            *out = {static_cast<double>(kKeyTableFirstDay), static_cast<double>(kKeyTableLastDay), 1, false};
        if (integer_type(v->vartype)) {
            out->lo = std::max(out->lo, -integer_limit(v->vartype));
            out->hi = std::min(out->hi, integer_limit(v->vartype));
        }
        return true;
    }
    if (IsA(n, OpExpr)) {
        const OpExpr *op = reinterpret_cast<const OpExpr *>(n);
        return shift(op, w, out) || unit_part(op, w, out) || unit_remainder(op, w, out) || arithmetic(op, w, out);
    }
    if (IsA(n, FuncExpr)) {
        const FuncExpr *f = reinterpret_cast<const FuncExpr *>(n);
        return rounding(f, w, out) || epoch(f, w, out) || to_timestamp(f, w, out) || truncation(f, w, out) ||
               date_cast(f, w, out) || local_time(f, w, out) || widening(f, w, out) || narrowing(f, w, out);
    }
    return false;
}

} // namespace

bool monotone_shape(const Expr *expr, Index relid, MonotoneShape *out)
{
    Walk w{relid, NULL, NIL, false, NIL, NULL, 0};
    Span s;
    if (!step(reinterpret_cast<const Node *>(expr), &w, &s) || w.column == NULL)
        return false;
    out->column = w.column;
    out->divisions = w.divisions;
    out->minus_zero = s.minus_zero;
    /* a date column's days are few enough to evaluate each; any other column's table checks each zone step */
    const bool days = w.column->vartype == DATEOID;
    out->zoned = days && w.zoned;
    out->zone_steps = days ? NIL : w.zone_steps;
    return true;
}

} // namespace gpu_histogram
