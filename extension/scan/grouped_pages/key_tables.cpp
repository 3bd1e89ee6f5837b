/*
 * key_tables.cpp: a grouped scan's keys as the GPU places them
 * (key_tables.h).
 */
#include "key_tables.h"

#include "../heap/page_layout.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <algorithm>

namespace {

/* Most slots a key may have on the GPU: its groups' cells stay in device memory a scan can take. */
constexpr int64 kMaxKeySlots = 1 << 20;
/*
 * Most intervals a time key's table may have: each costs a step of the
 * time key (and from a day up, a call of PostgreSQL's function) when the
 * scan starts; three years of hours are 26,304.
 */
constexpr int64 kMaxIntervals = 1 << 18;
/*
 * The stored values a table may cover: well inside the timestamp range, as
 * time_keys.cpp's fast paths are, so that no PostgreSQL function called for
 * a value the table covers (which may be no row's) can raise a range
 * error.  Rows beyond it are the host's.
 */
constexpr int64 kTableMargin = 400 * USECS_PER_DAY;
constexpr int64 kTableMin = MIN_TIMESTAMP + kTableMargin;
constexpr int64 kTableMax = END_TIMESTAMP - kTableMargin;

/* A stored integer-like value as the word the scan's keys use. */
bool datum_word(Oid type, Datum d, int64 *out)
{
    switch (type) {
    case INT2OID: *out = DatumGetInt16(d); return true;
    case INT4OID:
    case DATEOID: *out = DatumGetInt32(d); return true;
    case INT8OID: *out = DatumGetInt64(d); return true;
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: {
        int64 ts = DatumGetInt64(d);
        if (TIMESTAMP_NOT_FINITE(ts))
            return false; /* an infinity would stretch the window over every time */
        *out = ts;
        return true;
    }
    }
    return false;
}

/* The smallest and largest of the column's statistics: its histogram's bounds and its most common values. */
bool column_range(Oid relid, AttrNumber attno, Oid type, int64 *lo, int64 *hi)
{
    HeapTuple tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attno),
                                      BoolGetDatum(false));
    if (!HeapTupleIsValid(tuple))
        return false;
    bool any = false;
    for (int kind : {STATISTIC_KIND_HISTOGRAM, STATISTIC_KIND_MCV}) {
        AttStatsSlot slot;
        if (!get_attstatsslot(&slot, tuple, kind, InvalidOid, ATTSTATSSLOT_VALUES))
            continue;
        for (int i = 0; i < slot.nvalues; i++) {
            int64 w;
            if (!datum_word(type, slot.values[i], &w))
                continue;
            *lo = any ? Min(*lo, w) : w;
            *hi = any ? Max(*hi, w) : w;
            any = true;
        }
        free_attstatsslot(&slot);
    }
    ReleaseSysCache(tuple);
    return any;
}

/* [lo, hi] widened by a sixty-fourth each side: the sample's ends are seldom the table's. */
void widen(int64 *lo, int64 *hi)
{
    __int128 margin = (static_cast<__int128>(*hi) - *lo) / 64 + 1;
    *lo = static_cast<int64>(Max(static_cast<__int128>(*lo) - margin, static_cast<__int128>(PG_INT64_MIN / 2)));
    *hi = static_cast<int64>(Min(static_cast<__int128>(*hi) + margin, static_cast<__int128>(PG_INT64_MAX / 2)));
}

/* [lo, hi] narrowed by the WHERE clause's integer comparisons of the same column. */
void narrow(const NativeQuals &quals, AttrNumber attno, int64 *lo, int64 *hi)
{
    for (int i = 0; i < quals.count; i++) {
        const NativeQual &q = quals.quals[i];
        if (q.is_float || q.never || q.column.attno != attno)
            continue;
        const int64 v = q.int_value;
        switch (q.cmp) {
        case Comparison::ge: *lo = Max(*lo, v); break;
        case Comparison::gt: *lo = v < PG_INT64_MAX ? Max(*lo, v + 1) : *lo; break;
        case Comparison::le: *hi = Min(*hi, v); break;
        case Comparison::lt: *hi = v > PG_INT64_MIN ? Min(*hi, v - 1) : *hi; break;
        case Comparison::eq:
            *lo = Max(*lo, v);
            *hi = Min(*hi, v);
            break;
        case Comparison::ne: break;
        }
    }
}

/*
 * Where the rows' values of col lie, as far as the statistics (widened)
 * and the WHERE clause say; false if nothing is known, or nothing is left.
 */
bool rows_range(Oid relid, const HeapColumn &col, const NativeQuals &quals, int64 *lo, int64 *hi)
{
    if (!column_range(relid, col.attno, col.type, lo, hi))
        return false;
    widen(lo, hi);
    narrow(quals, col.attno, lo, hi);
    return *lo <= *hi;
}

/* [lo, hi] cut to the values a table may cover; false if nothing is left. */
bool inside_table(int64 *lo, int64 *hi)
{
    *lo = Max(*lo, kTableMin);
    *hi = Min(*hi, kTableMax - 1);
    return *lo <= *hi;
}

void reserve(KeyTables *t, int64 words)
{
    if (t->nwords + words <= t->capacity)
        return;
    int32 cap = static_cast<int32>(Max(t->nwords + words, static_cast<int64>(t->capacity) * 2));
    t->words = t->words == NULL ? static_cast<int64 *>(palloc(sizeof(int64) * cap))
                                : static_cast<int64 *>(repalloc(t->words, sizeof(int64) * cap));
    t->capacity = cap;
}

/*
 * The key of one stored time ts and the interval [*from, *to) around it
 * whose every value has that key, as the scan's own key verified it with
 * PostgreSQL's (or TimescaleDB's) function; false where it comes with no
 * such interval.
 */
using VerifiedKey = bool (*)(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to);

bool time_key_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    TimeKey *tk = &key->time;
    tk->hit_lo = 1;
    tk->hit_hi = 0;
    *result = time_key_compute(tk, ts);
    *from = tk->hit_lo;
    *to = tk->hit_hi;
    return *from <= ts && ts < *to;
}

bool tsdb_key_interval(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to)
{
    TsdbBucket *b = &key->tsdb;
    b->hit_lo = 1;
    b->hit_hi = 0;
    if (!tsdb_bucket_compute(b, ts, result))
        return false; /* a NULL bucket */
    *from = b->hit_lo;
    *to = b->hit_hi + 1; /* its hits are inclusive; hi is below kTableMax */
    return b->hit_lo <= ts && ts <= b->hit_hi;
}

/*
 * A time key's intervals over [lo, hi], at least step apart: the key of
 * each stored value t there, with the interval around t that has the same
 * key; adjacent intervals with one key are merged.  false where a value's
 * key comes with no such interval (its function's own path: the range's
 * ends, a zone with leap seconds) or there are too many.
 */
bool time_intervals(GroupKey *key, VerifiedKey verified, int64 step, int64 lo, int64 hi, gh::PageKey *out,
                    KeyTables *t, int k)
{
    /* too many intervals is known without making them */
    if (step <= 0 || (static_cast<__int128>(hi) - lo) / step > kMaxIntervals)
        return false;
    int64 *starts = static_cast<int64 *>(palloc(sizeof(int64) * 1024));
    int64 *results = static_cast<int64 *>(palloc(sizeof(int64) * 1024));
    int64 n = 0, cap = 1024, end = lo;
    /*
     * A key's interval ends at its bucket's end, or where a zone's offset
     * changes: a few per step.  One that keeps ending right after ts (a
     * function whose buckets the search cannot verify) would walk the range
     * a microsecond at a time.
     */
    int64 calls_left = 4 * ((hi - lo) / step + 1) + 1024;
    for (int64 ts = lo; ts <= hi;) {
        int64 r, from, to;
        if (--calls_left < 0 || !verified(key, ts, &r, &from, &to))
            return false;
        if (n == 0 || results[n - 1] != r) {
            if (n == kMaxIntervals)
                return false;
            if (n == cap) {
                cap *= 2;
                starts = static_cast<int64 *>(repalloc(starts, sizeof(int64) * cap));
                results = static_cast<int64 *>(repalloc(results, sizeof(int64) * cap));
            }
            starts[n] = ts;
            results[n++] = r;
        }
        end = to;
        ts = to;
    }
    if (n == 0)
        return false;
    /* each distinct key a slot, in key order */
    int64 *keys = static_cast<int64 *>(palloc(sizeof(int64) * n));
    memcpy(keys, results, sizeof(int64) * n);
    std::sort(keys, keys + n);
    int64 nkeys = std::unique(keys, keys + n) - keys;
    reserve(t, 2 * n);
    out->table_first = static_cast<uint32>(t->nwords);
    out->intervals = static_cast<uint32>(n);
    out->end = end;
    out->slots = static_cast<uint32>(nkeys);
    for (int64 i = 0; i < n; i++) {
        t->words[t->nwords + i] = starts[i];
        t->words[t->nwords + n + i] = std::lower_bound(keys, keys + nkeys, results[i]) - keys;
    }
    t->nwords += static_cast<int32>(2 * n);
    t->slot_words[k] = keys;
    pfree(starts);
    pfree(results);
    return true;
}

} // namespace

bool key_table_build(GroupKey *key, Oid relid, TupleDesc desc, const NativeQuals &quals, gh::PageKey *out,
                     KeyTables *t, int k)
{
    *out = gh::PageKey{};
    const HeapColumn &col = key->column;
    if (!page_column_for(desc, col, &out->column))
        return false;
    switch (key->def.kind) {
    case KeyKind::width_bucket:
        /* only once PostgreSQL's function accepted the arguments and bucket.h gives its answers */
        if (key->wb_null || !key->wb_fast)
            return false;
        out->kind = gh::PageKeyKind::width_bucket;
        out->wb = key->wb_spec;
        out->slots = static_cast<uint32>(key->wb_spec.nbins) + 2;
        t->slot_words[k] = NULL; /* the slot is the bucket */
        return true;
    case KeyKind::column: {
        int64 lo, hi;
        if (col.type == BOOLOID) {
            lo = 0; /* false and true: every value, whatever the statistics say */
            hi = 1;
        } else if (col.type != INT2OID && col.type != INT4OID && col.type != INT8OID && col.type != DATEOID) {
            return false;
        } else if (!rows_range(relid, col, quals, &lo, &hi) || static_cast<__int128>(hi) - lo + 1 > kMaxKeySlots) {
            return false;
        }
        out->kind = gh::PageKeyKind::column;
        out->base = lo;
        out->slots = static_cast<uint32>(hi - lo + 1);
        int64 *words = static_cast<int64 *>(palloc(sizeof(int64) * out->slots));
        for (uint32 s = 0; s < out->slots; s++)
            words[s] = lo + s;
        t->slot_words[k] = words;
        return true;
    }
    case KeyKind::time: {
        TimeKey *tk = &key->time;
        int64 lo, hi;
        if (time_key_always_null(tk) || (col.type != TIMESTAMPOID && col.type != TIMESTAMPTZOID) ||
            !rows_range(relid, col, quals, &lo, &hi) || !inside_table(&lo, &hi))
            return false;
        /* date_bin subtracts its origin: keep that far from overflowing too */
        if (tk->kind == TimeKeyKind::bin &&
            (tk->stride_usec <= 0 || tk->origin < kTableMin || tk->origin >= kTableMax ||
             static_cast<__int128>(hi) - tk->origin > (INT64CONST(1) << 62) ||
             static_cast<__int128>(tk->origin) - lo > (INT64CONST(1) << 62)))
            return false;
        /* a step is at least the stride or the unit, or a day */
        const int64 step = tk->kind == TimeKeyKind::bin ? tk->stride_usec
                           : tk->kind == TimeKeyKind::trunc && tk->unit_usec > 0 ? tk->unit_usec
                                                                                  : USECS_PER_DAY;
        out->kind = gh::PageKeyKind::intervals;
        const bool built = time_intervals(key, time_key_interval, step, lo, hi, out, t, k);
        tk->hit_lo = 1; /* the rows start from an empty cache, as before */
        tk->hit_hi = 0;
        return built && out->slots <= kMaxKeySlots;
    }
    case KeyKind::time_bucket: {
        /*
         * TimescaleDB's function over values no row may have: only where
         * its arguments leave it no error to raise inside the table's range
         * (tsdb_bucket_range_safe).  A date column stays on the host.
         */
        TsdbBucket *b = &key->tsdb;
        int64 lo, hi;
        if ((col.type != TIMESTAMPOID && col.type != TIMESTAMPTZOID) || !tsdb_bucket_range_safe(b) ||
            !rows_range(relid, col, quals, &lo, &hi) || !inside_table(&lo, &hi))
            return false;
        out->kind = gh::PageKeyKind::intervals;
        const bool built = time_intervals(key, tsdb_key_interval, b->span + 1, lo, hi, out, t, k);
        b->hit_lo = 1;
        b->hit_hi = 0;
        return built && out->slots <= kMaxKeySlots;
    }
    }
    return false;
}
