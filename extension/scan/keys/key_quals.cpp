/*
 * key_quals.cpp: a WHERE clause over a time key or a local date field
 * (key_quals.h).
 */
#include "key_quals.h"

#include "group_keys.h"
#include "key_tables.h"
#include "../quals/fixed_exprs.h"

extern "C" {
#include "access/stratnum.h"
#include "access/transam.h"
#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "catalog/pg_statistic.h"
}

namespace gpu_histogram {

namespace {

/*
 * Words remembered at most: a periodic field has a few dozen, a day's key
 * over years a few thousand; a key of more (minute buckets of a year) asks
 * the operator for the rest each time.
 */
constexpr uint32 kMostRemembered = 1u << 16;

enum Answer : uint8 { kUnknown = 0, kFails, kPasses };

struct KeyQual {
    ComputedAtom base;
    GroupKey key;
    bool truth;          /* the clause is itself the key, by value: a row passes where it is true */
    FmgrInfo op;
    Oid collation;
    bool key_left;       /* key op value (a list's key is always on the left) */
    bool list;           /* key op ANY (array) or key op ALL (array) */
    bool use_or;
    ExprState *value_state; /* NULL: a constant, set at the match */
    Oid value_type;      /* the value's type, or the array's */
    Datum value;
    bool value_null;
    Datum *elems;        /* a list's values */
    bool *elem_nulls;
    int nelems;
    bool null_key_passes; /* a NULL key: only <> ALL of an empty array passes */
    /* each word's answer, by open addressing; `count` words held */
    int64 *words;
    uint8 *answers;
    uint32 capacity;
    uint32 count;
    MemoryContext cxt;   /* the quals': the values and the memo live here */
    MemoryContext ask;   /* the operator's own allocations, freed after each question */
    /*
     * A date_trunc or ::date key compared by the btree order of its own
     * type (range_strategy, as if the key were on the left), and the
     * longest its bucket can be: what bounds the column (column_range).
     */
    int range_strategy;
    int64 bucket_usec;
};

/* The operator's answer for the key's value at word. */
bool ask(KeyQual *q, int64 word)
{
    MemoryContext old = MemoryContextSwitchTo(q->ask);
    const Datum k = group_key_datum(&q->key, word);
    bool pass = false;
    if (!q->list) {
        if (!q->value_null)
            pass = DatumGetBool(FunctionCall2Coll(&q->op, q->collation, q->key_left ? k : q->value,
                                                  q->key_left ? q->value : k));
    } else if (!q->value_null) {
        /* ScalarArrayOpExpr's answer with a strict operator: a NULL element makes no match true */
        bool any_null = false, decided = false;
        pass = !q->use_or;
        for (int i = 0; i < q->nelems && !decided; i++) {
            if (q->elem_nulls[i]) {
                any_null = true;
                continue;
            }
            const bool r = DatumGetBool(FunctionCall2Coll(&q->op, q->collation, k, q->elems[i]));
            if (q->use_or && r) {
                pass = true;
                decided = true;
            } else if (!q->use_or && !r) {
                pass = false;
                decided = true;
            }
        }
        if (!decided && any_null)
            pass = false; /* NULL, which the WHERE clause fails */
    }
    MemoryContextSwitchTo(old);
    MemoryContextReset(q->ask);
    return pass;
}

inline uint32 slot_of(int64 word, uint32 capacity)
{
    uint64 h = static_cast<uint64>(word) * UINT64CONST(0x9E3779B97F4A7C15);
    return static_cast<uint32>(h >> 32) & (capacity - 1);
}

void remember(KeyQual *q, int64 word, Answer a);

void grow(KeyQual *q)
{
    const uint32 old_capacity = q->capacity;
    int64 *old_words = q->words;
    uint8 *old_answers = q->answers;
    q->capacity = old_capacity == 0 ? 64 : old_capacity * 2;
    q->words = static_cast<int64 *>(MemoryContextAllocZero(q->cxt, sizeof(int64) * q->capacity));
    q->answers = static_cast<uint8 *>(MemoryContextAllocZero(q->cxt, q->capacity));
    q->count = 0;
    for (uint32 i = 0; i < old_capacity; i++)
        if (old_answers[i] != kUnknown)
            remember(q, old_words[i], static_cast<Answer>(old_answers[i]));
    if (old_words != NULL) {
        pfree(old_words);
        pfree(old_answers);
    }
}

void remember(KeyQual *q, int64 word, Answer a)
{
    if (q->count >= kMostRemembered)
        return;
    if (2 * (q->count + 1) > q->capacity)
        grow(q);
    uint32 i = slot_of(word, q->capacity);
    while (q->answers[i] != kUnknown)
        i = (i + 1) & (q->capacity - 1);
    q->words[i] = word;
    q->answers[i] = static_cast<uint8>(a);
    q->count++;
}

Answer recalled(const KeyQual *q, int64 word)
{
    if (q->capacity == 0)
        return kUnknown;
    for (uint32 i = slot_of(word, q->capacity);; i = (i + 1) & (q->capacity - 1)) {
        if (q->answers[i] == kUnknown)
            return kUnknown;
        if (q->words[i] == word)
            return static_cast<Answer>(q->answers[i]);
    }
}

/* Whether the key's value at word passes (the operator asked once a word, as passes() asks it). */
bool word_passes(KeyQual *q, int64 word)
{
    if (q->truth)
        return word != 0;
    const Answer known = recalled(q, word);
    if (known != kUnknown)
        return known == kPasses;
    const bool pass = ask(q, word);
    remember(q, word, pass ? kPasses : kFails);
    return pass;
}

bool passes(ComputedAtom *a, TupleDesc desc, HeapTupleData *t)
{
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    int64 word;
    if (!group_key_word(&q->key, desc, t, &word))
        return q->null_key_passes;
    return word_passes(q, word);
}

void set_list(KeyQual *q, Datum array)
{
    ArrayType *a = DatumGetArrayTypeP(array);
    int16 typlen;
    bool typbyval;
    char typalign;
    get_typlenbyvalalign(ARR_ELEMTYPE(a), &typlen, &typbyval, &typalign);
    MemoryContext old = MemoryContextSwitchTo(q->cxt);
    deconstruct_array(a, ARR_ELEMTYPE(a), typlen, typbyval, typalign, &q->elems, &q->elem_nulls, &q->nelems);
    for (int i = 0; i < q->nelems; i++)
        if (!q->elem_nulls[i])
            q->elems[i] = datumCopy(q->elems[i], typbyval, typlen);
    MemoryContextSwitchTo(old);
}

/* The value (or list) as the atom compares with it; the memo starts again. */
void set_value(KeyQual *q, Datum d, bool isnull)
{
    q->value_null = isnull;
    q->nelems = 0;
    q->count = 0;
    if (q->capacity > 0)
        memset(q->answers, 0, q->capacity);
    if (!isnull && q->list) {
        set_list(q, d);
    } else if (!isnull) {
        int16 typlen;
        bool typbyval;
        get_typlenbyval(q->value_type, &typlen, &typbyval);
        MemoryContext old = MemoryContextSwitchTo(q->cxt);
        q->value = datumCopy(d, typbyval, typlen);
        MemoryContextSwitchTo(old);
    }
    /* ScalarArrayOpExpr answers an empty array before it looks at the key */
    q->null_key_passes = q->list && !isnull && q->nelems == 0 && !q->use_or;
}

void prepare(ComputedAtom *a, ExprContext *econtext)
{
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    group_key_prepare(&q->key, econtext);
    if (q->truth)
        return;
    if (q->value_state != NULL) {
        bool isnull;
        Datum d = ExecEvalExprSwitchContext(q->value_state, econtext, &isnull);
        set_value(q, d, isnull);
        ResetExprContext(econtext);
    }
}

bool page_may_raise(ComputedAtom *a, TupleDesc desc, HeapTupleData *tuples, int n)
{
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    KeySpan span;
    return group_key_page_may_raise(&q->key, desc, tuples, n, &span);
}

/*
 * How far a key's value lies from its column's, in microseconds of the
 * same 2000-01-01 epoch: a date_trunc or ::date key of t lies in
 * [t - bucket - kZoneSlack, t + kZoneSlack].  The local time is t plus the
 * zone's offset, less than 7 days either way (tzcode takes offsets below
 * 168 hours), and date_trunc of a timestamptz goes back through the offset
 * of the truncated local time, which a fall-back hour may make later than
 * t: two offsets at most, 14 days.  That holds in any zone; zone_reach()
 * narrows it to the zones' own offsets near the value.
 */
constexpr int64 kZoneSlack = 15 * USECS_PER_DAY;
/* A date column read as a timestamptz is its local midnight: one offset more. */
constexpr int64 kDateColumnSlack = 8 * USECS_PER_DAY;
/*
 * Where every time the 15-day bound admits and every instant whose offset
 * PostgreSQL may take for its truncated local time lie: the bucket and the
 * slack about the value, and the day DetermineTimeZoneOffset looks back,
 * with room to spare.
 */
constexpr int64 kReachWindow = 32 * USECS_PER_DAY;
/* Added to the zones' own reach: the bound does not rest on its last hour. */
constexpr int64 kReachMargin = USECS_PER_DAY;
/*
 * Values whose key raises nothing: ten years inside the timestamp range,
 * so that no bucket reaches its ends (a year at most here).  A page with
 * a value outside is never passed over by the key's range, since the
 * ordinary plan would raise at that row.
 */
constexpr int64 kEdge = 3653 * USECS_PER_DAY;
constexpr int64 kSafeLo = MIN_TIMESTAMP + kEdge;
constexpr int64 kSafeHi = END_TIMESTAMP - kEdge;

/* The longest bucket of date_trunc's unit, ::date's day; 0 for units past a year. */
int64 bucket_usec(const GroupKeyDef &def)
{
    if (def.time_kind == TimeKeyKind::to_date)
        return USECS_PER_DAY;
    switch (def.unit) {
    case DTK_MICROSEC:
    case DTK_MILLISEC:
    case DTK_SECOND:
    case DTK_MINUTE:
    case DTK_HOUR:
    case DTK_DAY: return USECS_PER_DAY;
    case DTK_WEEK: return 7 * USECS_PER_DAY;
    case DTK_MONTH: return 31 * USECS_PER_DAY;
    case DTK_QUARTER: return 92 * USECS_PER_DAY;
    case DTK_YEAR: return 366 * USECS_PER_DAY;
    }
    return 0;
}

bool is_time_type(Oid type)
{
    return type == TIMESTAMPTZOID || type == TIMESTAMPOID || type == DATEOID;
}

/*
 * The btree strategy of opno in type's default btree family (the value is
 * of the key's type, so it is the family's same-type operator), as if the
 * key were its left argument; 0 where it is none (<>).
 */
int key_strategy(Oid opno, Oid type, bool key_left)
{
    const Oid opclass = GetDefaultOpClass(type, BTREE_AM_OID);
    const int strategy = OidIsValid(opclass) ? get_op_opfamily_strategy(opno, get_opclass_family(opclass)) : 0;
    if (strategy < BTLessStrategyNumber || strategy > BTGreaterStrategyNumber)
        return 0;
    return key_left ? strategy : BTMaxStrategyNumber + 1 - strategy; /* value < key is key > value */
}

const HeapColumn *range_column(ComputedAtom *a)
{
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    return q->range_strategy != 0 ? &q->key.column : NULL;
}

/* The column's stored words from microseconds: a date column's days, rounded outwards. */
int64 column_floor(const HeapColumn &col, int64 usec)
{
    if (col.type != DATEOID)
        return usec;
    return usec / USECS_PER_DAY - (usec % USECS_PER_DAY < 0 ? 1 : 0);
}

int64 column_ceil(const HeapColumn &col, int64 usec)
{
    if (col.type != DATEOID)
        return usec;
    return usec / USECS_PER_DAY + (usec % USECS_PER_DAY > 0 ? 1 : 0);
}

/*
 * The zones' own reach about values [v_lo, v_hi]: how far from t its key can lie
 * beyond its bucket, where every offset of the zones the key may pass
 * through (the session's, and date_trunc's or AT TIME ZONE's) over the
 * window about the values lies in [least, most].  A local time (::date, AT TIME
 * ZONE) is t plus one offset, at most the largest's size from t; a
 * timestamptz truncated in a zone is the local time less the offset of its
 * truncated local time, at most the offsets' spread from t.  Either is
 * within size + spread; a date column's midnight is one offset more
 * (*date_reach).  False where a zone gives no such bounds: then the
 * 15-day bound, which holds in any zone.
 */
bool zone_reach(const KeyQual *q, int64 v_lo, int64 v_hi, int64 *reach, int64 *date_reach)
{
    const TimeKey &k = q->key.time;
    if (k.zone_unknown)
        return false;
    const int64 lo = v_lo - q->bucket_usec - kReachWindow, hi = v_hi + 2 * q->bucket_usec + kReachWindow;
    int64 least, most;
    if (!tz_offset_bounds(session_timezone, lo, hi, &least, &most))
        return false;
    if (k.zone_text != 0) {
        int64 zone_least, zone_most;
        if (!tz_offset_bounds(k.tzc.tz, lo, hi, &zone_least, &zone_most))
            return false;
        least = Min(least, zone_least);
        most = Max(most, zone_most);
    }
    const int64 size = Max(least < 0 ? -least : least, most < 0 ? -most : most); /* 17 has no Abs() */
    *reach = size + (most - least) + kReachMargin;
    *date_reach = size;
    return *reach < kZoneSlack;
}

/* A value of the key's type in microseconds, if it lies where no key raises (the infinities lie outside). */
bool safe_usec(Oid type, Datum value, int64 *usec)
{
    if (type == DATEOID) {
        const DateADT d = DatumGetDateADT(value);
        if (DATE_NOT_FINITE(d) || d < kSafeLo / USECS_PER_DAY || d > kSafeHi / USECS_PER_DAY)
            return false;
        *usec = static_cast<int64>(d) * USECS_PER_DAY;
        return true;
    }
    *usec = DatumGetTimestamp(value);
    return *usec >= kSafeLo && *usec <= kSafeHi;
}

bool column_range(ComputedAtom *a, AtomColumnRange *out)
{
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    if (q->range_strategy == 0 || q->value_null)
        return false;
    int64 v_lo, v_hi;
    if (!q->list) {
        if (!safe_usec(q->value_type, q->value, &v_lo))
            return false;
        v_hi = v_lo;
    } else {
        /* = ANY: a key passes only where it equals one of the values; a NULL one matches nothing */
        bool any = false;
        for (int i = 0; i < q->nelems; i++) {
            int64 v;
            if (q->elem_nulls[i])
                continue;
            if (!safe_usec(q->key.def.keytype, q->elems[i], &v))
                return false;
            v_lo = any ? Min(v_lo, v) : v;
            v_hi = any ? Max(v_hi, v) : v;
            any = true;
        }
        if (!any)
            return false;
    }
    const HeapColumn &col = q->key.column;
    int64 reach, date_reach;
    int64 slack = kZoneSlack + (col.type == DATEOID ? kDateColumnSlack : 0);
    if (zone_reach(q, v_lo, v_hi, &reach, &date_reach))
        slack = reach + (col.type == DATEOID ? date_reach : 0);
    out->lo = PG_INT64_MIN;
    out->hi = PG_INT64_MAX;
    if (q->range_strategy != BTLessStrategyNumber && q->range_strategy != BTLessEqualStrategyNumber)
        out->lo = column_floor(col, v_lo - slack);
    if (q->range_strategy != BTGreaterStrategyNumber && q->range_strategy != BTGreaterEqualStrategyNumber)
        out->hi = column_ceil(col, v_hi + q->bucket_usec + slack);
    out->safe_lo = column_ceil(col, kSafeLo);
    out->safe_hi = column_floor(col, kSafeHi);
    return true;
}

const ComputedAtomOps kKeyQualOps = {prepare, passes, page_may_raise, range_column, column_range};

/*
 * A built-in operator that answers and raises nothing, NULL for NULL:
 * leakproof, or numeric's comparisons, which extract's numeric takes and
 * which compare two valid numerics without an error (cmp_numerics), though
 * pg_proc does not mark them leakproof.
 */
bool quiet_operator(Oid opno, Oid *funcid)
{
    if (opno >= FirstGenbkiObjectId)
        return false;
    *funcid = get_opcode(opno);
    if (!OidIsValid(*funcid) || !func_strict(*funcid) || get_func_rettype(*funcid) != BOOLOID)
        return false;
    switch (*funcid) {
    case F_NUMERIC_EQ:
    case F_NUMERIC_NE:
    case F_NUMERIC_LT:
    case F_NUMERIC_LE:
    case F_NUMERIC_GT:
    case F_NUMERIC_GE: return true;
    }
    return get_func_leakproof(*funcid);
}

/* Whether e is a key this file takes: a time key, a local date field or an expression of one (derived_key.cpp), kept as a word. */
bool time_key_of(Node *e, Index relid, GroupKeyDef *def)
{
    if (e == NULL || IsA(e, Var) || !group_key_parse(reinterpret_cast<Expr *>(e), relid, def))
        return false;
    return !def->as_bytes &&
           (def->kind == KeyKind::time || def->kind == KeyKind::date_field || def->kind == KeyKind::derived);
}

/* A KeyQual of key def, in cxt, its key set up under parent. */
KeyQual *new_key_qual(const GroupKeyDef &def, TupleDesc desc, PlanState *parent, MemoryContext cxt)
{
    MemoryContext old = MemoryContextSwitchTo(cxt);
    KeyQual *q = static_cast<KeyQual *>(palloc0(sizeof(KeyQual)));
    q->base.ops = &kKeyQualOps;
    q->cxt = cxt;
    group_key_init(&q->key, def, desc, parent);
    MemoryContextSwitchTo(old);
    return q;
}

/* A comparison or list of a time key, local date field or derived key with a value fixed for the scan. */
ComputedAtom *time_key_match(Node *clause, Index relid, TupleDesc desc, PlanState *parent, MemoryContext cxt)
{
    Node *value;
    Oid opno, collation;
    bool key_left = true, list = false, use_or = false;
    GroupKeyDef def;
    if (IsA(clause, OpExpr) && list_length(reinterpret_cast<OpExpr *>(clause)->args) == 2) {
        const OpExpr *op = reinterpret_cast<const OpExpr *>(clause);
        Node *left = static_cast<Node *>(linitial(op->args)), *right = static_cast<Node *>(lsecond(op->args));
        if (time_key_of(left, relid, &def) && fixed_for_scan(right)) {
            value = right;
        } else if (time_key_of(right, relid, &def) && fixed_for_scan(left)) {
            value = left;
            key_left = false;
        } else {
            return NULL;
        }
        opno = op->opno;
        collation = op->inputcollid;
    } else if (IsA(clause, ScalarArrayOpExpr) && list_length(reinterpret_cast<ScalarArrayOpExpr *>(clause)->args) == 2) {
        const ScalarArrayOpExpr *sa = reinterpret_cast<const ScalarArrayOpExpr *>(clause);
        value = static_cast<Node *>(lsecond(sa->args));
        if (!time_key_of(static_cast<Node *>(linitial(sa->args)), relid, &def) || !fixed_for_scan(value))
            return NULL;
        opno = sa->opno;
        collation = sa->inputcollid;
        list = true;
        use_or = sa->useOr;
    } else {
        return NULL;
    }
    Oid funcid;
    if (!quiet_operator(opno, &funcid))
        return NULL;
    KeyQual *q = new_key_qual(def, desc, parent, cxt);
    MemoryContext old = MemoryContextSwitchTo(cxt);
    q->ask = AllocSetContextCreate(cxt, "gpu_histogram key qual", ALLOCSET_SMALL_SIZES);
    fmgr_info_cxt(funcid, &q->op, cxt);
    q->collation = collation;
    q->key_left = key_left;
    q->list = list;
    q->use_or = use_or;
    q->value_type = exprType(value);
    /* a range of the column where the key is a bucket of it, compared in its own order */
    if (def.kind == KeyKind::time && (def.time_kind == TimeKeyKind::trunc || def.time_kind == TimeKeyKind::to_date) &&
        (list ? get_element_type(q->value_type) : q->value_type) == def.keytype && is_time_type(def.keytype) &&
        is_time_type(q->key.column.type)) {
        q->bucket_usec = bucket_usec(def);
        q->range_strategy = q->bucket_usec > 0 ? key_strategy(opno, def.keytype, key_left) : 0;
        /* a list bounds its column only as = ANY: between its least and its greatest value */
        if (list && (!use_or || q->range_strategy != BTEqualStrategyNumber))
            q->range_strategy = 0;
    }
    if (IsA(value, Const))
        set_value(q, reinterpret_cast<Const *>(value)->constvalue, reinterpret_cast<Const *>(value)->constisnull);
    else
        q->value_state = ExecInitExpr(reinterpret_cast<Expr *>(value), parent);
    MemoryContextSwitchTo(old);
    return &q->base;
}

/*
 * Whether column attno of the scan's table holds few enough distinct
 * values, by its statistics, for a clause over it to be evaluated once per
 * value: past the memo's bound each row is evaluated as before, and pays
 * the look-up too (a text column's values are numbered by their bytes,
 * text_ids.h), so a column of unique values (log lines, ids), or of
 * fewer than four rows a value, keeps the executor's row by row
 * evaluation.  So does a column without statistics.
 */
constexpr double kMostValuesByValue = 32768;

bool few_values(PlanState *parent, AttrNumber attno)
{
    Relation rel = reinterpret_cast<ScanState *>(parent)->ss_currentRelation;
    if (rel == NULL)
        return false;
    HeapTuple stats = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(RelationGetRelid(rel)), Int16GetDatum(attno),
                                      BoolGetDatum(false));
    if (!HeapTupleIsValid(stats))
        return false;
    const float4 distinct = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(stats))->stadistinct;
    ReleaseSysCache(stats);
    const double rows = Max(rel->rd_rel->reltuples, 0.0);
    const double values = distinct >= 0 ? distinct : -distinct * rows;
    /* and at least four rows a value, on average, for the evaluations it saves */
    return distinct != 0 && values <= kMostValuesByValue && 4 * values <= rows;
}

/*
 * A boolean clause of one integer-like or text column (`host LIKE 'web%'`,
 * `lower(host) = 'db-1'`, `host ~ '^(a|b)$'`, `g % 10 = 3`): the clause
 * itself as a key by value (value_key.cpp), evaluated by the executor once
 * per value of the column, at the first row that holds it.
 */
ComputedAtom *truth_match(Node *clause, Index relid, TupleDesc desc, PlanState *parent, MemoryContext cxt)
{
    GroupKeyDef def;
    memset(&def, 0, sizeof def);
    if (exprType(clause) != BOOLOID || IsA(clause, Var) ||
        !value_key_kind.recognise(reinterpret_cast<Expr *>(clause), relid, &def) ||
        !few_values(parent, def.attno))
        return NULL;
    def.ops = &value_key_kind;
    def.kind = value_key_kind.id;
    KeyQual *q = new_key_qual(def, desc, parent, cxt);
    q->truth = true;
    return &q->base;
}

/* Most slots a clause's GPU table answers: each is one question to the operator, once per scan. */
constexpr uint32 kMostFilterSlots = 1u << 16;

} // namespace

bool key_qual_gpu_filter(ComputedAtom *a, const KeyRows &rows, TupleDesc desc, gh::PageKey *out, KeyTables *t, int k)
{
    if (a->ops != &kKeyQualOps)
        return false;
    KeyQual *q = reinterpret_cast<KeyQual *>(a);
    if (!key_table_build(&q->key, rows.relid, desc, *rows.quals, out, t, k) || t->slot_values[k] != NULL)
        return false;
    /* the key's own slots, or those its remap renumbers to (a derived key's) */
    const uint32 slots = out->slots;
    const uint32 entries = out->remap_count != 0 ? out->remap_count : slots + 1;
    if (entries > kMostFilterSlots)
        return false;
    const int64 *words = t->slot_words[k];
    const int64 *renumbered = out->remap_count != 0 ? t->words + out->remap_first : NULL;
    int64 *answers = static_cast<int64 *>(palloc(sizeof(int64) * entries));
    for (uint32 i = 0; i < entries; i++) {
        const int64 s = renumbered != NULL ? renumbered[i] : i;
        if (s == gh::kHostSlot)
            answers[i] = gh::kHostSlot;
        else if (s == slots) /* a NULL key */
            answers[i] = q->null_key_passes ? 0 : 1;
        else
            answers[i] = word_passes(q, words != NULL ? words[s] : s) ? 0 : 1;
    }
    out->remap_first = static_cast<uint32>(key_tables_add_list(t, answers, static_cast<int32>(entries)));
    out->remap_count = entries;
    out->slots = 1;
    out->filter = 1;
    t->slot_words[k] = NULL;
    pfree(answers);
    return true;
}

ComputedAtom *key_qual_match(Node *clause, Index relid, TupleDesc desc, PlanState *parent, MemoryContext cxt)
{
    ComputedAtom *by_time = time_key_match(clause, relid, desc, parent, cxt);
    return by_time != NULL ? by_time : truth_match(clause, relid, desc, parent, cxt);
}

} // namespace gpu_histogram
