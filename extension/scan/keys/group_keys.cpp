/*
 * group_keys.cpp: the list of key kinds, and the scan's one door to them
 * (group_keys.h): each call goes to the key's kind (key_kind.h).
 */
#include "group_keys.h"
#include "../shards/zone_explicit.h"
#include "key_helpers.h"
#include "key_tables.h"

extern "C" {
#include "executor/executor.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

/* Asked in this order; the first that recognises an expression has it. */
const KeyKindOps *const kKinds[] = {&column_key_kind,   &time_key_kind,    &width_bucket_key_kind,
                                    &tsdb_key_kind,     &date_field_key_kind, &monotone_key_kind,
                                    &value_key_kind,    &derived_key_kind,
                                    &expression_key_kind /* last: any expression the others leave */};

} // namespace

bool key_table_var(const Expr *e, Index relid, const Var **out)
{
    const Node *n = heap_domain_column(reinterpret_cast<const Node *>(e));
    if (n == NULL || !IsA(n, Var))
        return false;
    const Var *v = reinterpret_cast<const Var *>(n);
    if (v->varno != static_cast<int>(relid) || v->varlevelsup != 0 || v->varattno <= 0)
        return false;
    if (n != reinterpret_cast<const Node *>(e)) {
        /* a domain's column relabeled to its base type (date_trunc('hour', ts) of a domain over timestamptz): the base type's column */
        const RelabelType *r = reinterpret_cast<const RelabelType *>(e);
        Var *base = static_cast<Var *>(palloc(sizeof(Var)));
        *base = *v;
        base->vartype = r->resulttype;
        base->vartypmod = r->resulttypmod;
        base->varcollid = r->resultcollid;
        v = base;
    }
    *out = v;
    return true;
}

bool key_local_time(const Expr *e, Const **zone, const Expr **inner)
{
    if (e == NULL || !IsA(e, FuncExpr))
        return false;
    const FuncExpr *f = reinterpret_cast<const FuncExpr *>(e);
    if (f->funcid == F_TIMESTAMP_TIMESTAMPTZ && list_length(f->args) == 1) {
        *zone = NULL;
        *inner = static_cast<const Expr *>(linitial(f->args));
        return true;
    }
    if (f->funcid != F_TIMEZONE_TEXT_TIMESTAMPTZ || list_length(f->args) != 2 || !IsA(linitial(f->args), Const))
        return false;
    Const *z = static_cast<Const *>(linitial(f->args));
    if (z->constisnull || z->consttype != TEXTOID)
        return false;
    *zone = z;
    *inner = static_cast<const Expr *>(lsecond(f->args));
    return true;
}

bool key_type_kept_as_is(Oid type, Oid collation)
{
    switch (heap_stored_type(type)) { /* a domain's base type; an enum's label OID, an int4 */
    case INT2OID:
    case INT4OID:
    case INT8OID:
    case BOOLOID:
    case DATEOID:
    case TIMESTAMPOID:
    case TIMESTAMPTZOID:
        return true;
    case TEXTOID:
    case VARCHAROID:
        return OidIsValid(collation) && get_collation_isdeterministic(collation);
    default:
        return false;
    }
}

Datum key_arg_value(ExprState *state, ExprContext *econtext, Oid type, bool *isnull)
{
    Datum d = ExecEvalExprSwitchContext(state, econtext, isnull);
    if (*isnull)
        return 0;
    int16 len;
    bool byval;
    get_typlenbyval(type, &len, &byval);
    return datumCopy(d, byval, len);
}

bool group_key_parse(Expr *expr, Index relid, GroupKeyDef *out)
{
    /* a coordinator's date_trunc in its zone, as postgres_fdw sent it to this shard */
    expr = zone_explicit_recognise(expr);
    for (const KeyKindOps *kind : kKinds) {
        memset(out, 0, sizeof *out);
        if (kind->recognise(expr, relid, out)) {
            out->ops = kind;
            out->kind = kind->id;
            return true;
        }
    }
    return false;
}

void group_key_init(GroupKey *key, const GroupKeyDef &def, TupleDesc desc, PlanState *parent)
{
    memset(key, 0, sizeof *key);
    key->def = def;
    key->column = heap_column(desc, def.attno, def.coltype);
    if (def.ops->init != NULL)
        def.ops->init(key, desc, parent);
}

void group_key_prepare(GroupKey *key, ExprContext *econtext)
{
    if (key->def.ops->prepare != NULL)
        key->def.ops->prepare(key, econtext);
    ResetExprContext(econtext);
}

bool group_key_word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    return key->def.ops->word(key, desc, t, word);
}

bool group_key_bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    return key->def.ops->bytes(key, desc, t, data, len);
}

Datum group_key_datum(const GroupKey *key, int64 word)
{
    if (key->def.ops->datum != NULL)
        return key->def.ops->datum(key, word);
    switch (key->def.keytype) { /* never a domain; an enum's word is its label's OID */
    case BOOLOID: return BoolGetDatum(word != 0);
    case INT2OID: return Int16GetDatum(static_cast<int16>(word));
    case INT4OID:
    case DATEOID: return Int32GetDatum(static_cast<int32>(word));
    case FLOAT4OID: return static_cast<Datum>(static_cast<uint32>(word)); /* the float's bits, as Float4GetDatum */
    }
    return Int64GetDatum(word);
}

const char *group_key_describe(const GroupKey *key)
{
    return key->def.ops->describe(key);
}

void group_key_host_table(GroupKey *key, const KeyRows &rows)
{
    if (key->def.ops->host_table != NULL)
        key->def.ops->host_table(key, rows);
}

bool group_key_span_word(GroupKey *key, const KeySpan &span, int64 *word)
{
    return span.known && key->def.ops->span_word != NULL && key->def.ops->span_word(key, span.lo, span.hi, word);
}

bool group_key_span_bytes(GroupKey *key, const KeySpan &span, const char **data, int32 *len)
{
    return span.known && key->def.ops->span_bytes != NULL && key->def.ops->span_bytes(key, span.lo, span.hi, data, len);
}

namespace {

/*
 * The words of the key's column in [*lo, *hi) whose keys are computed
 * without raising, and whether a NULL column's is (*null_quiet); false
 * where the kind knows no such range.
 */
bool quiet_range(GroupKey *key, int64 *lo, int64 *hi, bool *null_quiet)
{
    *null_quiet = true;
    switch (key->def.kind) {
    case KeyKind::time:
        if (!time_key_quiet(&key->time))
            return false;
        *lo = time_key_quiet_min; /* infinities too lie outside: PostgreSQL's functions take them */
        *hi = time_key_quiet_max;
        return true;
    case KeyKind::date_field:
        /* the cached offset's fast path holds inside the tables' range; infinities are NULL or an infinity */
        *lo = kKeyTableMin;
        *hi = kKeyTableMax;
        return true;
    default:
        return key->def.ops->quiet_range != NULL && key->def.ops->quiet_range(key, lo, hi, null_quiet);
    }
}

} // namespace

bool group_key_page_may_raise(GroupKey *key, TupleDesc desc, HeapTupleData *tuples, int n, KeySpan *span)
{
    span->known = false;
    if (key->def.ops->page_may_raise != NULL)
        return key->def.ops->page_may_raise(key, desc, tuples, n, span);
    if (key->def.kind == KeyKind::column || (key->def.kind == KeyKind::time && time_key_always_null(&key->time)))
        return false;
    int64 lo, hi;
    bool null_quiet;
    if (!quiet_range(key, &lo, &hi, &null_quiet))
        return true;
    /*
     * from the last: the page's first touch of its tuples, at rising
     * addresses (value_key.cpp's page_may_raise); the span comes free with it
     */
    const bool infinities = key->def.kind == KeyKind::date_field;
    int64 least = PG_INT64_MAX, most = PG_INT64_MIN;
    bool nulls = false;
    for (int i = n - 1; i >= 0; i--) {
        int64 ts;
        if (!heap_column_word(key->column, desc, &tuples[i], &ts)) {
            if (!null_quiet)
                return true;
            nulls = true;
            continue;
        }
        if ((ts < lo || ts >= hi) && !(infinities && TIMESTAMP_NOT_FINITE(ts)))
            return true;
        least = Min(least, ts);
        most = Max(most, ts);
    }
    span->known = n > 0 && !nulls;
    span->lo = least;
    span->hi = most;
    return false;
}

bool group_key_span_quiet(GroupKey *key, int64 least, int64 most)
{
    int64 lo, hi;
    bool null_quiet;
    return key->def.ops->page_may_raise == NULL && key->def.ops->span_word != NULL &&
           quiet_range(key, &lo, &hi, &null_quiet) && least >= lo && most < hi;
}

} // namespace gpu_histogram
