/*
 * key_tables.cpp: a grouped scan's keys as the GPU places them
 * (key_tables.h).
 */
#include "key_tables.h"
#include "text_memo.h"
#include "value_memo.h"

#include "../heap/page_layout.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <algorithm>

namespace gpu_histogram {

namespace {

/*
 * Most intervals a time key's table may have: each costs a step of the
 * time key (and from a day up, a call of PostgreSQL's function) when the
 * scan starts; three years of hours are 26,304.
 */
constexpr int64 kMaxIntervals = 1 << 18;

/* A stored integer-like value as the word the scan's keys use. */
bool datum_word(Oid type, Datum d, int64 *out)
{
    switch (type) {
    case INT2OID: *out = DatumGetInt16(d); return true;
    case INT4OID: *out = DatumGetInt32(d); return true;
    case DATEOID:
        if (DATE_NOT_FINITE(DatumGetDateADT(d)))
            return false; /* as a time's infinity below */
        *out = DatumGetDateADT(d);
        return true;
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
        if (q.is_float || q.is_text || q.never || q.always || q.column.attno != attno || !native_qual_alone(quals, i))
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
        case Comparison::any_eq:
            /* the list's ends (never empty here: a list without values is `never`) */
            if (q.nlist > 0) {
                *lo = Max(*lo, q.int_list[0]);
                *hi = Min(*hi, q.int_list[q.nlist - 1]);
            }
            break;
        case Comparison::ne:
        case Comparison::all_ne:
        case Comparison::is_null:
        case Comparison::is_not_null: break;
        }
    }
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

} // namespace

/*
 * Where the rows' values of col lie, as far as the statistics (widened)
 * and the WHERE clause say; false if nothing is known, or nothing is left.
 */
bool key_rows_range(const KeyRows &rows, const HeapColumn &col, int64 *lo, int64 *hi)
{
    if (!column_range(rows.relid, col.attno, col.type, lo, hi))
        return false;
    widen(lo, hi);
    narrow(*rows.quals, col.attno, lo, hi);
    return *lo <= *hi;
}

/* [lo, hi] cut to the values a table may cover; false if nothing is left. */
bool key_inside_table(int64 *lo, int64 *hi)
{
    *lo = Max(*lo, kKeyTableMin);
    *hi = Min(*hi, kKeyTableMax - 1);
    return *lo <= *hi;
}

bool key_inside_table(int64 *lo, int64 *hi, Oid coltype)
{
    if (coltype != DATEOID)
        return key_inside_table(lo, hi);
    *lo = Max(*lo, kKeyTableFirstDay);
    *hi = Min(*hi, kKeyTableLastDay);
    return *lo <= *hi;
}

/*
 * A time key's intervals over [lo, hi], at least step apart: the key of
 * each stored value t there, with the interval around t that has the same
 * key; adjacent intervals with one key are merged.  false where a value's
 * key comes with no such interval (its function's own path: the range's
 * ends, a zone with leap seconds) or there are too many.
 */
bool key_time_intervals(GroupKey *key, VerifiedKey verified, int64 step, int64 lo, int64 hi, gh::PageKey *out,
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

void key_tables_add_intervals(KeyTables *t, const int64 *starts, const int64 *slots, int32 n, gh::PageKey *out)
{
    reserve(t, 2 * static_cast<int64>(n));
    out->table_first = static_cast<uint32>(t->nwords);
    out->intervals = static_cast<uint32>(n);
    memcpy(t->words + t->nwords, starts, sizeof(int64) * static_cast<Size>(n));
    memcpy(t->words + t->nwords + n, slots, sizeof(int64) * static_cast<Size>(n));
    t->nwords += 2 * n;
}

bool key_tables_add_dictionary(KeyTables *t, struct varlena *const *values, const int64 *slots, int32 n,
                               gh::PageKey *out)
{
    int64 words = 2 * static_cast<int64>(n);
    for (int32 i = 0; i < n; i++)
        words += 1 + (static_cast<int64>(VARSIZE_ANY_EXHDR(values[i])) + 7) / 8;
    if (n == 0 || t->nwords + words > PG_INT32_MAX / 2)
        return false;
    reserve(t, words);
    const int64 first = t->nwords;
    int64 *table = t->words + first;
    memset(table, 0, sizeof(int64) * static_cast<Size>(words));
    int64 at = 2 * static_cast<int64>(n);
    for (int32 i = 0; i < n; i++) {
        const int64 len = static_cast<int64>(VARSIZE_ANY_EXHDR(values[i]));
        table[i] = first + at;
        table[n + i] = slots[i];
        table[at] = len;
        memcpy(&table[at + 1], VARDATA_ANY(values[i]), static_cast<size_t>(len));
        at += 1 + (len + 7) / 8;
    }
    t->nwords += static_cast<int32>(words);
    out->kind = gh::PageKeyKind::text;
    out->table_first = static_cast<uint32>(first);
    out->entries = static_cast<uint32>(n);
    return true;
}

int32 key_tables_add_list(KeyTables *t, const int64 *words, int32 n)
{
    reserve(t, n);
    const int32 first = t->nwords;
    memcpy(t->words + first, words, sizeof(int64) * static_cast<Size>(n));
    t->nwords += n;
    return first;
}

bool key_table_build(GroupKey *key, Oid relid, TupleDesc desc, const NativeQuals &quals, gh::PageKey *out,
                     KeyTables *t, int k)
{
    *out = gh::PageKey{};
    if (key->def.ops->gpu_table == NULL)
        return false;
    if (key->column.type == TEXTOID || key->column.type == VARCHAROID) {
        Datum missing; /* an older tuple's value: the kernel leaves it to the host */
        if (!page_text_column_for(desc, key->column, &out->column, &missing))
            return false;
    } else if (key->column.type == UUIDOID) {
        Datum missing; /* the same */
        if (!page_uuid_column_for(desc, key->column, &out->column, &missing))
            return false;
    } else if (!page_column_for(desc, key->column, &out->column)) {
        return false;
    }
    return key->def.ops->gpu_table(key, KeyRows{relid, &quals}, out, t, k);
}

uint32 key_tables_number_results(GroupKey *key, const MemoResult *const *results, int32 n, int64 *slot, KeyTables *t,
                                 int k)
{
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * n));
    int32 live = 0;
    for (int32 i = 0; i < n; i++)
        if (!results[i]->isnull)
            order[live++] = i;
    const bool text = group_key_is_text(key);
    auto less = [&](int32 a, int32 b) {
        return text ? text_key_order(results[a]->bytes, results[b]->bytes) < 0 : results[a]->word < results[b]->word;
    };
    std::sort(order, order + live, less);
    uint32 slots = 0;
    int64 *words = text ? NULL : static_cast<int64 *>(palloc(sizeof(int64) * Max(live, 1)));
    struct varlena **values =
        text ? static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * Max(live, 1))) : NULL;
    for (int32 j = 0; j < live; j++) {
        const int32 i = order[j];
        if (j == 0 || less(order[j - 1], i)) {
            if (text)
                values[slots] = results[i]->bytes;
            else
                words[slots] = results[i]->word;
            slots++;
        }
        slot[i] = slots - 1;
    }
    for (int32 i = 0; i < n; i++)
        if (results[i]->isnull)
            slot[i] = slots; /* the NULL group */
    t->slot_words[k] = words;
    t->slot_values[k] = values;
    pfree(order);
    return slots;
}

} // namespace gpu_histogram
