/*
 * tsdb_bucket.cpp: TimescaleDB's time_bucket() as a GROUP BY key, through
 * its own function and a cache of verified intervals (see tsdb_bucket.h for
 * why a verified interval holds one bucket).
 */
#include "tsdb_bucket.h"
#include "../quals/fixed_exprs.h"

extern "C" {
#include "catalog/dependency.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "datatype/timestamp.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

/*
 * Intervals are verified only this far inside the timestamp range (in
 * microseconds; dates use the same margin in days): near the ends,
 * TimescaleDB raises its range errors, which a cached interval would skip.
 */
constexpr int64 kMarginUsec = 400 * USECS_PER_DAY;
constexpr int64 kMarginDays = 400;

/* The shortest month: a month bucket is never narrower. */
constexpr int64 kShortestMonthDays = 28;

bool is_timescaledb_time_bucket(Oid funcid)
{
    char *name = get_func_name(funcid);
    if (name == NULL || strcmp(name, "time_bucket") != 0)
        return false;
    Oid ext = get_extension_oid("timescaledb", true);
    return OidIsValid(ext) && getExtensionOfObject(ProcedureRelationId, funcid) == ext;
}

/* The function at ts; false where it returns NULL.  Its errors are its own. */
bool call_bucket(TsdbBucket *b, int64 ts, int64 *result)
{
    LOCAL_FCINFO(fcinfo, 5);
    InitFunctionCallInfoData(*fcinfo, &b->flinfo, b->nargs, InvalidOid, NULL, NULL);
    bool any_null = false;
    for (int i = 0; i < b->nargs; i++) {
        if (i == kTsdbTsArg) {
            fcinfo->args[i].value = b->coltype == DATEOID ? DateADTGetDatum(static_cast<DateADT>(ts)) : Int64GetDatum(ts);
            fcinfo->args[i].isnull = false;
        } else {
            fcinfo->args[i].value = b->args[i];
            fcinfo->args[i].isnull = b->nulls[i];
            any_null |= b->nulls[i];
        }
    }
    if (any_null && b->flinfo.fn_strict)
        return false;
    Datum d = FunctionCallInvoke(fcinfo);
    if (fcinfo->isnull)
        return false;
    *result = b->coltype == DATEOID ? static_cast<int64>(DatumGetDateADT(d)) : DatumGetInt64(d);
    return true;
}

/* Narrows [*lo, *hi] to where the zone's offset at ts holds; false if it cannot tell. */
bool within_zone(TzOffsetCache *c, int64 ts, int64 *lo, int64 *hi)
{
    if ((ts < c->lo || ts >= c->hi) && !tz_offset_refill(c, ts))
        return false; /* a zone with leap seconds, say */
    *lo = Max(*lo, c->lo);
    *hi = Min(*hi, c->hi - 1);
    return true;
}

/*
 * The widest [lo, hi] around ts, at most span + 1 wide and inside
 * [floor, ceiling], whose ends both bucket to r; [ts, ts] when none is
 * found.  The first candidate is r's own bucket, [r, r + span], where r is
 * the bucket's start (every form but a zone's gap); otherwise a binary
 * search for each end.  Whatever the search finds, its ends were asked.
 */
void widest_interval(TsdbBucket *b, int64 ts, int64 r, int64 floor, int64 ceiling, int64 *out_lo, int64 *out_hi)
{
    *out_lo = *out_hi = ts;
    int64 v;
    if (r <= ts && r >= floor && r <= ceiling - b->span && ts <= r + b->span) {
        int64 hi = r + b->span;
        if (call_bucket(b, r, &v) && v == r && call_bucket(b, hi, &v) && v == r) {
            *out_lo = r;
            *out_hi = hi;
            return;
        }
    }
    /* the highest x in [ts, ts + span] with bucket r: x_ok is known good, x_bad known bad */
    int64 x_ok = ts, x_bad = Min(ceiling, ts + b->span) + 1;
    while (x_bad - x_ok > 1) {
        int64 mid = x_ok + (x_bad - x_ok) / 2;
        if (call_bucket(b, mid, &v) && v == r)
            x_ok = mid;
        else
            x_bad = mid;
    }
    int64 hi = x_ok;
    int64 y_ok = ts, y_bad = Max(floor, hi - b->span) - 1;
    while (y_ok - y_bad > 1) {
        int64 mid = y_ok - (y_ok - y_bad) / 2;
        if (call_bucket(b, mid, &v) && v == r)
            y_ok = mid;
        else
            y_bad = mid;
    }
    *out_lo = y_ok;
    *out_hi = hi;
}

/* The cache slot of ts: intervals are at most span + 1 wide, so each lies in two slots at most. */
inline int slot_of(const TsdbBucket *b, int64 ts)
{
    int64 w = b->span + 1;
    int64 q = ts / w - (ts % w < 0 ? 1 : 0);
    return static_cast<int>(static_cast<uint64>(q) & (kBinCacheSize - 1));
}

} // namespace

bool tsdb_bucket_parse(const FuncExpr *f, Index relid, TsdbBucketDef *def, AttrNumber *attno, Oid *type)
{
    Oid result = f->funcresulttype;
    int nargs = list_length(f->args);
    if ((result != TIMESTAMPTZOID && result != TIMESTAMPOID && result != DATEOID) || nargs < 2 || nargs > 5 ||
        exprType(static_cast<Node *>(linitial(f->args))) != INTERVALOID)
        return false;
    const Expr *col = static_cast<const Expr *>(list_nth(f->args, kTsdbTsArg));
    if (!IsA(col, Var))
        return false;
    const Var *v = reinterpret_cast<const Var *>(col);
    if (v->varno != static_cast<int>(relid) || v->varlevelsup != 0 || v->varattno <= 0 || v->vartype != result)
        return false;
    memset(def, 0, sizeof *def);
    def->nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        if (i == kTsdbTsArg)
            continue;
        def->args[i] = static_cast<Expr *>(list_nth(f->args, i));
        if (!fixed_for_scan(reinterpret_cast<Node *>(def->args[i])))
            return false;
    }
    if (!is_timescaledb_time_bucket(f->funcid))
        return false;
    def->funcid = f->funcid;
    *attno = v->varattno;
    *type = result;
    return true;
}

void tsdb_bucket_init(TsdbBucket *b, const TsdbBucketDef &def, Oid coltype)
{
    memset(b, 0, sizeof *b);
    fmgr_info(def.funcid, &b->flinfo);
    b->nargs = def.nargs;
    b->coltype = coltype;
    for (int i = 0; i < def.nargs; i++) {
        b->argtypes[i] = def.args[i] != NULL ? exprType(reinterpret_cast<Node *>(def.args[i])) : coltype;
        /* EXPLAIN names the zone before the first row evaluates the arguments */
        if (b->argtypes[i] == TEXTOID) {
            const Const *k = IsA(def.args[i], Const) ? reinterpret_cast<const Const *>(def.args[i]) : NULL;
            b->zone_name = k == NULL ? "the timezone argument" : k->constisnull ? "NULL" : TextDatumGetCString(k->constvalue);
        }
    }
    b->hit_lo = 1; /* empty */
    b->hit_hi = 0;
    b->cache = static_cast<BinInterval *>(palloc(sizeof(BinInterval) * kBinCacheSize));
    for (int i = 0; i < kBinCacheSize; i++)
        b->cache[i] = BinInterval{1, 0, 0};
}

void tsdb_bucket_set_args(TsdbBucket *b, const Datum *values, const bool *nulls)
{
    for (int i = 0; i < b->nargs; i++) {
        b->args[i] = values[i];
        b->nulls[i] = nulls[i];
    }
    for (int i = 0; i < kBinCacheSize; i++)
        b->cache[i] = BinInterval{1, 0, 0};
    b->hit_lo = 1;
    b->hit_hi = 0;
    b->span = 0;
    b->nzones = 0;
    if (b->nulls[0])
        return;

    /* the narrowest a bucket can be, in the column's unit */
    const Interval *width = DatumGetIntervalP(b->args[0]);
    __int128 unit = b->coltype == DATEOID ? USECS_PER_DAY : 1;
    __int128 narrowest = width->month != 0
                             ? static_cast<__int128>(width->month) * kShortestMonthDays * USECS_PER_DAY
                             : static_cast<__int128>(width->day) * USECS_PER_DAY + width->time;
    if (width->month < 0 || (width->month != 0 && (width->day != 0 || width->time != 0)) || narrowest / unit < 2 ||
        narrowest > PG_INT64_MAX / 4)
        return; /* TimescaleDB refuses it, or one bucket per value: every row asks the function */
    b->span = static_cast<int64>(narrowest / unit) - 1;

    /*
     * The zones whose offsets enter: the session's for timestamptz (interval
     * arithmetic and month buckets may use it), and the timezone argument
     * of the (interval, timestamptz, text, ...) form.  A zone name that
     * pg_tzset does not know (an abbreviation with a zone of its own, say)
     * leaves nothing cacheable: every row asks the function.
     */
    if (b->coltype == TIMESTAMPTZOID) {
        b->zones[b->nzones].tz = session_timezone;
        b->zones[b->nzones].lo = b->zones[b->nzones].hi = 0;
        b->nzones++;
        for (int i = kTsdbTsArg + 1; i < b->nargs; i++) {
            if (b->nulls[i] || b->argtypes[i] != TEXTOID)
                continue;
            char *name = TextDatumGetCString(b->args[i]);
            pg_tz *tz = pg_tzset(name);
            if (tz == NULL) {
                b->span = 0;
                return;
            }
            b->zone_name = name;
            b->zones[b->nzones].tz = tz;
            b->zones[b->nzones].lo = b->zones[b->nzones].hi = 0;
            b->nzones++;
        }
    }
}

bool tsdb_bucket_compute(TsdbBucket *b, int64 ts, int64 *key)
{
    int64 floor, ceiling;
    if (b->coltype == DATEOID) {
        floor = static_cast<int64>(DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE) + kMarginDays;
        ceiling = static_cast<int64>(DATE_END_JULIAN - POSTGRES_EPOCH_JDATE) - kMarginDays;
    } else {
        floor = MIN_TIMESTAMP + kMarginUsec;
        ceiling = END_TIMESTAMP - kMarginUsec;
    }
    bool cacheable = b->span > 0 && ts >= floor && ts <= ceiling; /* not infinities, nor the range's ends */
    if (cacheable) {
        const BinInterval &e = b->cache[slot_of(b, ts)];
        if (ts >= e.lo && ts <= e.hi) {
            b->hit_lo = e.lo;
            b->hit_hi = e.hi;
            b->hit_result = *key = e.result;
            return true;
        }
    }
    int64 r;
    if (!call_bucket(b, ts, &r))
        return false;
    *key = r;
    if (!cacheable)
        return true;
    for (int z = 0; z < b->nzones; z++)
        if (!within_zone(&b->zones[z], ts, &floor, &ceiling))
            return true;
    int64 lo, hi;
    widest_interval(b, ts, r, floor, ceiling, &lo, &hi);
    b->cache[slot_of(b, lo)] = BinInterval{lo, hi, r};
    b->cache[slot_of(b, hi)] = BinInterval{lo, hi, r};
    b->hit_lo = lo;
    b->hit_hi = hi;
    b->hit_result = r;
    return true;
}

bool tsdb_bucket_range_safe(const TsdbBucket *b)
{
    constexpr int64 kWidestUsec = 366 * USECS_PER_DAY;
    constexpr int64 kFarthestOffsetUsec = 31 * USECS_PER_DAY;
    if ((b->coltype != TIMESTAMPOID && b->coltype != TIMESTAMPTZOID) || b->span <= 0 || b->nulls[0])
        return false;
    const Interval *width = DatumGetIntervalP(b->args[0]);
    if (width->month > 12 || width->day < 0 || width->time < 0 || width->day > 366 ||
        (width->month == 0 && static_cast<__int128>(width->day) * USECS_PER_DAY + width->time > kWidestUsec))
        return false;
    for (int i = 0; i < b->nargs; i++) {
        /* a NULL origin or offset of the zone's form is its default; elsewhere it makes every bucket NULL */
        if (i == 0 || i == kTsdbTsArg || b->nulls[i])
            continue;
        switch (b->argtypes[i]) {
        case TIMESTAMPOID:
        case TIMESTAMPTZOID: { /* the origin */
            const int64 origin = DatumGetInt64(b->args[i]);
            if (origin < MIN_TIMESTAMP + kMarginUsec || origin > END_TIMESTAMP - kMarginUsec)
                return false;
            break;
        }
        case INTERVALOID: { /* the offset */
            const Interval *offset = DatumGetIntervalP(b->args[i]);
            const __int128 usec = static_cast<__int128>(offset->day) * USECS_PER_DAY + offset->time;
            if (offset->month != 0 || offset->day < -31 || offset->day > 31 || usec < -kFarthestOffsetUsec ||
                usec > kFarthestOffsetUsec)
                return false;
            break;
        }
        case TEXTOID: break; /* the zone: span > 0 says pg_tzset knows it */
        default: return false;
        }
    }
    return true;
}

const char *tsdb_bucket_describe(const TsdbBucket *b)
{
    if (b->zone_name != NULL)
        return psprintf("time_bucket, %s", b->zone_name);
    if (b->coltype == TIMESTAMPTZOID)
        return psprintf("time_bucket, %s", pg_get_timezone_name(session_timezone));
    return "time_bucket";
}

} // namespace gpu_histogram
