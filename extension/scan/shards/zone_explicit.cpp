/*
 * zone_explicit.cpp: session-zone keys rewritten for the shards
 * (zone_explicit.h).
 *
 * Each rewrite computes what PostgreSQL's own function computes, from the
 * same steps in its sources, out of immutable functions only (the zone
 * named as a constant): date_trunc(unit, ts, zone) would be the obvious
 * form, but it is stable too (a zone's name may be an abbreviation, read
 * through timezone_abbreviations).  A field of a timestamptz is
 * timestamp2tm() in the session's zone, which is what ts AT TIME ZONE zone
 * holds as a timestamp; the epoch of a timestamptz is its microseconds as
 * they are, which ts AT TIME ZONE 'UTC' keeps.
 */
#include "zone_explicit.h"

#include <initializer_list>

extern "C" {
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

/* The session's zone as the shards would read it, or NULL where they might read it otherwise. */
const char *portable_session_zone()
{
    const char *name = pg_get_timezone_name(session_timezone);
    if (name == NULL)
        return NULL;
    if (strcmp(name, "UTC") == 0 || (strchr(name, '/') != NULL && strpbrk(name, "<>,") == NULL))
        return name;
    return NULL;
}

Const *text_const(const char *s)
{
    return makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(s), false, false);
}

/*
 * A call of a function that reads its text arguments as names (a unit, a
 * field, a zone), never through a collation.  postgres_fdw refuses a call
 * whose input collation does not come from a foreign column, which a
 * constant's never does, so these are built, and left, without one.
 */
Expr *call(Oid fn, Oid type, List *args)
{
    return reinterpret_cast<Expr *>(makeFuncExpr(fn, type, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
}

bool names_only(Oid fn)
{
    switch (fn) {
    case F_DATE_TRUNC_TEXT_TIMESTAMP:
    case F_DATE_TRUNC_TEXT_INTERVAL:
    case F_DATE_PART_TEXT_TIMESTAMP:
    case F_DATE_PART_TEXT_DATE:
    case F_DATE_PART_TEXT_INTERVAL:
    case F_EXTRACT_TEXT_TIMESTAMP:
    case F_EXTRACT_TEXT_DATE:
    case F_EXTRACT_TEXT_INTERVAL:
    case F_TIMEZONE_TEXT_TIMESTAMP:
    case F_TIMEZONE_TEXT_TIMESTAMPTZ: return true;
    default: return false;
    }
}

/* ts AT TIME ZONE zone: the local time, a timestamp */
Expr *local_time(const char *zone, Expr *ts)
{
    return call(F_TIMEZONE_TEXT_TIMESTAMPTZ, TIMESTAMPOID, list_make2(text_const(zone), ts));
}

/* local AT TIME ZONE zone: the instant of a local time, a timestamptz */
Expr *instant(const char *zone, Expr *local)
{
    return call(F_TIMEZONE_TEXT_TIMESTAMP, TIMESTAMPTZOID, list_make2(text_const(zone), local));
}

/* pg_operator.dat's timestamp - timestamp and timestamp + interval, immutable */
constexpr Oid kTimestampMinus = 2067;
constexpr Oid kTimestampPlusInterval = 2066;

Expr *op(Oid opno, Oid fn, Oid type, Expr *a, Expr *b)
{
    OpExpr *e = reinterpret_cast<OpExpr *>(make_opclause(opno, type, false, a, b, InvalidOid, InvalidOid));
    e->opfuncid = fn;
    return reinterpret_cast<Expr *>(e);
}

/* A constant name's lower-case form. */
bool name_of(Node *arg, char *out, size_t size)
{
    if (!IsA(arg, Const) || reinterpret_cast<Const *>(arg)->constisnull ||
        reinterpret_cast<Const *>(arg)->consttype != TEXTOID)
        return false;
    char *s = TextDatumGetCString(reinterpret_cast<Const *>(arg)->constvalue);
    if (strlen(s) >= size)
        return false;
    for (size_t i = 0; s[i] != '\0'; i++)
        out[i] = static_cast<char>(pg_tolower(static_cast<unsigned char>(s[i])));
    out[strlen(s)] = '\0';
    return true;
}

bool one_of(const char *name, std::initializer_list<const char *> names)
{
    for (const char *n : names)
        if (strcmp(name, n) == 0)
            return true;
    return false;
}

/*
 * date_trunc(unit, ts) in the session's zone.  From a day up it is the
 * local midnight's instant, which timestamptz_trunc_internal() finds as
 * ts AT TIME ZONE does (DetermineTimeZoneOffset()).  Below a day it keeps
 * ts's own offset (in a fall-back hour, 01:30 EDT goes to 01:00 EDT, not
 * to the 01:00 EST a local time round trip would give): ts less the local
 * time's part below the unit, each a difference of timestamps; infinity
 * stays infinity, as date_trunc keeps it.
 */
Expr *trunc_in_zone(Node *unit_arg, Expr *ts, const char *zone)
{
    char unit[32];
    if (zone == NULL || !name_of(unit_arg, unit, sizeof unit))
        return NULL;
    Expr *unit_const = static_cast<Expr *>(copyObjectImpl(unit_arg));
    if (one_of(unit, {"day", "week", "month", "quarter", "year", "decade", "century", "millennium"}))
        return instant(zone, call(F_DATE_TRUNC_TEXT_TIMESTAMP, TIMESTAMPOID,
                                  list_make2(unit_const, local_time(zone, ts))));
    if (!one_of(unit, {"hour", "minute", "second", "milliseconds", "microseconds"}))
        return NULL;
    Expr *local = local_time(zone, ts);
    Expr *below = op(kTimestampMinus, F_TIMESTAMP_MI, INTERVALOID,
                     call(F_DATE_TRUNC_TEXT_TIMESTAMP, TIMESTAMPOID, list_make2(unit_const, local)),
                     static_cast<Expr *>(copyObjectImpl(local)));
    Expr *utc = op(kTimestampPlusInterval, F_TIMESTAMP_PL_INTERVAL, TIMESTAMPOID, local_time("UTC", ts), below);
    CaseWhen *finite = makeNode(CaseWhen);
    finite->expr = call(F_ISFINITE_TIMESTAMPTZ, BOOLOID, list_make1(copyObjectImpl(ts)));
    finite->result = instant("UTC", utc);
    finite->location = -1;
    CaseExpr *c = makeNode(CaseExpr);
    c->casetype = TIMESTAMPTZOID;
    c->casecollid = InvalidOid;
    c->arg = NULL;
    c->args = list_make1(finite);
    c->defresult = static_cast<Expr *>(copyObjectImpl(ts));
    c->location = -1;
    return reinterpret_cast<Expr *>(c);
}

Expr *rewrite_call(FuncExpr *f, const char *zone)
{
    switch (f->funcid) {
    case F_DATE_TRUNC_TEXT_TIMESTAMPTZ:
        return trunc_in_zone(static_cast<Node *>(linitial(f->args)), static_cast<Expr *>(lsecond(f->args)), zone);
    case F_DATE_PART_TEXT_TIMESTAMPTZ:
    case F_EXTRACT_TEXT_TIMESTAMPTZ: {
        char field[32];
        if (!name_of(static_cast<Node *>(linitial(f->args)), field, sizeof field) ||
            strncmp(field, "timezone", 8) == 0)
            return NULL; /* the session's own offset: no timestamp has it */
        /* an epoch is the instant's: the local time of UTC holds it as it is */
        const bool epoch = strcmp(field, "epoch") == 0;
        if (!epoch && zone == NULL)
            return NULL;
        Oid fn = f->funcid == F_EXTRACT_TEXT_TIMESTAMPTZ ? F_EXTRACT_TEXT_TIMESTAMP : F_DATE_PART_TEXT_TIMESTAMP;
        return call(fn, f->funcresulttype,
                    list_make2(linitial(f->args), local_time(epoch ? "UTC" : zone, static_cast<Expr *>(lsecond(f->args)))));
    }
    case F_DATE_TIMESTAMPTZ:
        if (zone == NULL)
            return NULL;
        return call(F_DATE_TIMESTAMP, DATEOID, list_make1(local_time(zone, static_cast<Expr *>(linitial(f->args)))));
    case F_TIMESTAMP_TIMESTAMPTZ:
        return zone == NULL ? NULL : local_time(zone, static_cast<Expr *>(linitial(f->args)));
    default:
        if (names_only(f->funcid))
            f->inputcollid = InvalidOid;
        return NULL;
    }
}

Node *rewrite(Node *node, void *context)
{
    if (node == NULL)
        return NULL;
    Node *done = expression_tree_mutator(node, GH_MUTATOR(rewrite), context);
    if (!IsA(done, FuncExpr))
        return done;
    const char *zone = *static_cast<const char **>(context);
    Expr *explicit_form = rewrite_call(reinterpret_cast<FuncExpr *>(done), zone);
    return explicit_form != NULL ? reinterpret_cast<Node *>(explicit_form) : done;
}

} // namespace

Expr *zone_explicit(Expr *expr)
{
    const char *zone = portable_session_zone(); /* NULL: only an epoch, which needs none */
    return reinterpret_cast<Expr *>(rewrite(reinterpret_cast<Node *>(expr), &zone));
}

namespace {

/* node as a call of fn with nargs arguments, or NULL */
FuncExpr *call_of(Node *node, Oid fn, int nargs)
{
    if (node == NULL || !IsA(node, FuncExpr) || reinterpret_cast<FuncExpr *>(node)->funcid != fn ||
        list_length(reinterpret_cast<FuncExpr *>(node)->args) != nargs)
        return NULL;
    return reinterpret_cast<FuncExpr *>(node);
}

OpExpr *op_of(Node *node, Oid opno)
{
    if (node == NULL || !IsA(node, OpExpr) || reinterpret_cast<OpExpr *>(node)->opno != opno)
        return NULL;
    return reinterpret_cast<OpExpr *>(node);
}

Node *arg(FuncExpr *f, int i)
{
    return static_cast<Node *>(list_nth(f->args, i));
}

Node *arg(OpExpr *o, int i)
{
    return static_cast<Node *>(list_nth(o->args, i));
}

/* local_time(zone, ts) as a shard received it: *zone and *ts, or false */
bool is_local_time(Node *node, Node **zone, Node **ts)
{
    FuncExpr *f = call_of(node, F_TIMEZONE_TEXT_TIMESTAMPTZ, 2);
    if (f == NULL || !IsA(arg(f, 0), Const) || reinterpret_cast<Const *>(arg(f, 0))->constisnull)
        return false;
    *zone = arg(f, 0);
    *ts = arg(f, 1);
    return true;
}

bool same_name(Node *a, Node *b)
{
    char x[NAMEDATALEN * 2], y[NAMEDATALEN * 2];
    return name_of(a, x, sizeof x) && name_of(b, y, sizeof y) && strcmp(x, y) == 0;
}

bool is_utc(Node *zone)
{
    char z[8];
    return name_of(zone, z, sizeof z) && strcmp(z, "utc") == 0;
}

Expr *trunc_with_zone(Node *unit, Node *ts, Node *zone)
{
    return reinterpret_cast<Expr *>(makeFuncExpr(
        F_DATE_TRUNC_TEXT_TIMESTAMPTZ_TEXT, TIMESTAMPTZOID,
        list_make3(copyObjectImpl(unit), copyObjectImpl(ts), copyObjectImpl(zone)), InvalidOid,
        DEFAULT_COLLATION_OID, COERCE_EXPLICIT_CALL));
}

/* trunc_in_zone()'s form below a day: date_trunc(unit, ts, zone), or NULL */
Expr *recognise_below_day(Node *node)
{
    if (!IsA(node, CaseExpr))
        return NULL;
    CaseExpr *c = reinterpret_cast<CaseExpr *>(node);
    if (c->arg != NULL || list_length(c->args) != 1)
        return NULL;
    CaseWhen *w = static_cast<CaseWhen *>(linitial(c->args));
    FuncExpr *finite = call_of(reinterpret_cast<Node *>(w->expr), F_ISFINITE_TIMESTAMPTZ, 1);
    if (finite == NULL)
        return NULL;
    Node *ts = arg(finite, 0);
    if (!equal(c->defresult, ts))
        return NULL;
    FuncExpr *back = call_of(reinterpret_cast<Node *>(w->result), F_TIMEZONE_TEXT_TIMESTAMP, 2);
    OpExpr *plus = back != NULL && is_utc(arg(back, 0)) ? op_of(arg(back, 1), kTimestampPlusInterval) : NULL;
    Node *zone, *t;
    if (plus == NULL || !is_local_time(arg(plus, 0), &zone, &t) || !is_utc(zone) || !equal(t, ts))
        return NULL;
    OpExpr *minus = op_of(arg(plus, 1), kTimestampMinus);
    FuncExpr *trunc = minus != NULL ? call_of(arg(minus, 0), F_DATE_TRUNC_TEXT_TIMESTAMP, 2) : NULL;
    Node *z1, *z2, *t1, *t2;
    char unit[32];
    if (trunc == NULL || !is_local_time(arg(trunc, 1), &z1, &t1) || !is_local_time(arg(minus, 1), &z2, &t2) ||
        !equal(t1, ts) || !equal(t2, ts) || !same_name(z1, z2) || !name_of(arg(trunc, 0), unit, sizeof unit) ||
        !one_of(unit, {"hour", "minute", "second", "milliseconds", "microseconds"}))
        return NULL;
    return trunc_with_zone(arg(trunc, 0), ts, z1);
}

/* trunc_in_zone()'s form from a day up: date_trunc(unit, ts, zone), or NULL */
Expr *recognise_from_day(Node *node)
{
    FuncExpr *back = call_of(node, F_TIMEZONE_TEXT_TIMESTAMP, 2);
    FuncExpr *trunc = back != NULL ? call_of(arg(back, 1), F_DATE_TRUNC_TEXT_TIMESTAMP, 2) : NULL;
    Node *zone, *ts;
    char unit[32];
    if (trunc == NULL || !is_local_time(arg(trunc, 1), &zone, &ts) || !same_name(zone, arg(back, 0)) ||
        !name_of(arg(trunc, 0), unit, sizeof unit) ||
        !one_of(unit, {"day", "week", "month", "quarter", "year", "decade", "century", "millennium"}))
        return NULL;
    return trunc_with_zone(arg(trunc, 0), ts, zone);
}

/* an epoch of ts AT TIME ZONE 'UTC': the epoch of ts, or NULL */
Expr *recognise_epoch(Node *node)
{
    FuncExpr *f = call_of(node, F_EXTRACT_TEXT_TIMESTAMP, 2);
    Oid fn = F_EXTRACT_TEXT_TIMESTAMPTZ;
    if (f == NULL) {
        f = call_of(node, F_DATE_PART_TEXT_TIMESTAMP, 2);
        fn = F_DATE_PART_TEXT_TIMESTAMPTZ;
    }
    Node *zone, *ts;
    char field[8];
    if (f == NULL || !name_of(arg(f, 0), field, sizeof field) || strcmp(field, "epoch") != 0 ||
        !is_local_time(arg(f, 1), &zone, &ts) || !is_utc(zone))
        return NULL;
    return reinterpret_cast<Expr *>(makeFuncExpr(fn, f->funcresulttype,
                                                 list_make2(copyObjectImpl(arg(f, 0)), copyObjectImpl(ts)),
                                                 InvalidOid, DEFAULT_COLLATION_OID, COERCE_EXPLICIT_CALL));
}

Node *recognise(Node *node, void *context)
{
    if (node == NULL)
        return NULL;
    Expr *found = recognise_below_day(node);
    if (found == NULL)
        found = recognise_from_day(node);
    if (found == NULL)
        found = recognise_epoch(node);
    if (found != NULL)
        return reinterpret_cast<Node *>(found);
    return expression_tree_mutator(node, GH_MUTATOR(recognise), context);
}

} // namespace

Expr *zone_explicit_recognise(Expr *expr)
{
    return reinterpret_cast<Expr *>(recognise(reinterpret_cast<Node *>(expr), NULL));
}

} // namespace gpu_histogram
