/*
 * group_agg.cpp: a grouped scan's keys, groups and counters (group_agg.h).
 */
#include "group_agg.h"

#include <cmath>

#include "../../errors.h"
#include "../../histogram_state.h"
#include "../../../gpu/cpu/cpu_backend.h"

extern "C" {
#include "executor/nodeHash.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
}

namespace {

/*
 * A key is word 0, the NULL keys' bits, then one word per key (0 for a
 * NULL or text key), then each non-NULL text key as its length and bytes,
 * in key order: equal keys make equal bytes.
 */
uint32 fixed_key_bytes(const GroupAgg *ga)
{
    return static_cast<uint32>(sizeof(int64) * (1 + ga->nkeys));
}

void reserve_key(GroupAgg *ga, Size bytes)
{
    if (bytes <= ga->keybuf_cap)
        return;
    Size cap = Max(bytes, ga->keybuf_cap * 2);
    ga->keybuf = static_cast<char *>(repalloc(ga->keybuf, cap));
    ga->keybuf_cap = cap;
}

uint32 build_key(GroupAgg *ga, TupleDesc desc, HeapTupleData *t)
{
    uint64 nulls = 0;
    uint32 len = fixed_key_bytes(ga);
    for (int k = 0; k < ga->nkeys; k++) {
        GroupKey *key = &ga->keys[k];
        int64 word = 0;
        if (group_key_is_text(key)) {
            const char *data;
            int32 n;
            if (group_key_bytes(key, desc, t, &data, &n)) {
                reserve_key(ga, len + sizeof(int32) + n);
                memcpy(ga->keybuf + len, &n, sizeof n);
                memcpy(ga->keybuf + len + sizeof n, data, n);
                len += sizeof(int32) + n;
            } else {
                nulls |= UINT64CONST(1) << k;
            }
        } else if (!group_key_word(key, desc, t, &word)) {
            nulls |= UINT64CONST(1) << k;
            word = 0;
        }
        memcpy(ga->keybuf + sizeof(int64) * (1 + k), &word, sizeof word);
    }
    memcpy(ga->keybuf, &nulls, sizeof nulls);
    return len;
}

} // namespace

/*
 * The groups of one fixed-width key by its value, direct-mapped: a GROUP BY
 * g over rows in no order of g finds its group here without hashing the
 * key bytes, most of the time.
 */
struct WordCacheEntry {
    int64 word;
    ScanGroup *group;
};

namespace {

constexpr int kWordCacheBits = 10;

inline uint32 word_slot(int64 word)
{
    return static_cast<uint32>((static_cast<uint64>(word) * 0x9E3779B97F4A7C15ULL) >> (64 - kWordCacheBits));
}

/* The group of a word key, through the direct-mapped cache. */
inline ScanGroup *word_group(GroupAgg *ga, int64 word)
{
    WordCacheEntry &e = ga->word_cache[word_slot(word)];
    if (likely(e.group != NULL && e.word == word))
        return e.group;
    int64 k[2] = {0, word};
    e.word = word;
    e.group = group_table_lookup(&ga->table, reinterpret_cast<char *>(k), fixed_key_bytes(ga));
    return e.group;
}

ScanGroup *null_group(GroupAgg *ga)
{
    if (ga->null_group == NULL) {
        int64 k[2] = {1, 0};
        ga->null_group = group_table_lookup(&ga->table, reinterpret_cast<char *>(k), fixed_key_bytes(ga));
    }
    return ga->null_group;
}

/*
 * Tuple i's group; NULL if the table is closed and the key is not in it:
 * the tuple then waits in the spill, under its key's hash.
 */
inline void set_group(GroupAgg *ga, int i, ScanGroup *g)
{
    ga->page_groups[i] = g;
    if (unlikely(g == NULL))
        ga->page_hashes[i] = ga->table.refused_hash;
}

/*
 * Each tuple's group, for a single key that is not text.  A loop per kind
 * of key, so that the common ones (a column, a time bucket) inline whole.
 */
void find_groups_one_word(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    GroupKey *key = &ga->keys[0];
    int64 word;
    switch (key->def.kind) {
    case KeyKind::column:
        for (int i = 0; i < n; i++)
            set_group(ga, i,
                      heap_column_word(key->column, desc, &tuples[i], &word) ? word_group(ga, word) : null_group(ga));
        return;
    case KeyKind::time:
        if (!time_key_always_null(&key->time)) {
            for (int i = 0; i < n; i++)
                set_group(ga, i,
                          heap_column_word(key->column, desc, &tuples[i], &word)
                              ? word_group(ga, time_key_value(&key->time, word))
                              : null_group(ga));
            return;
        }
        break;
    case KeyKind::time_bucket:
        for (int i = 0; i < n; i++) {
            int64 ts;
            set_group(ga, i,
                      heap_column_word(key->column, desc, &tuples[i], &ts) && tsdb_bucket_value(&key->tsdb, ts, &word)
                          ? word_group(ga, word)
                          : null_group(ga));
        }
        return;
    case KeyKind::width_bucket:
    case KeyKind::periodic:
    case KeyKind::expression:
        break;
    }
    for (int i = 0; i < n; i++)
        set_group(ga, i, group_key_word(key, desc, &tuples[i], &word) ? word_group(ga, word) : null_group(ga));
}

/*
 * The group of a text key, direct-mapped by the bytes' hash; a group's key
 * is the NULL word, a zero word, then the length and the bytes.
 */
constexpr uint32 kTextAt = 2 * sizeof(int64);

inline ScanGroup *text_group(GroupAgg *ga, const char *data, int32 len)
{
    /*
     * A label of up to 7 bytes is its own fingerprint (the bytes and the
     * length in one word: equal words, equal labels); a longer one is
     * hashed and compared.
     */
    uint64 h;
    bool exact = len <= 7;
    if (exact) {
        h = static_cast<uint64>(len) << 56;
        for (int32 j = 0; j < len; j++)
            h |= static_cast<uint64>(static_cast<uint8>(data[j])) << (8 * j);
    } else {
        h = group_key_hash(data, static_cast<uint32>(len));
    }
    WordCacheEntry &e = ga->word_cache[word_slot(static_cast<int64>(h))];
    ScanGroup *g = e.group;
    if (likely(g != NULL && e.word == static_cast<int64>(h) && g->keylen == kTextAt + sizeof(int32) + len &&
               (exact || memcmp(g->key + kTextAt + sizeof(int32), data, len) == 0)))
        return g;
    reserve_key(ga, kTextAt + sizeof(int32) + len);
    memset(ga->keybuf, 0, kTextAt);
    memcpy(ga->keybuf + kTextAt, &len, sizeof len);
    memcpy(ga->keybuf + kTextAt + sizeof len, data, len);
    e.word = static_cast<int64>(h);
    e.group = group_table_lookup(&ga->table, ga->keybuf, kTextAt + sizeof(int32) + len);
    return e.group;
}

void find_groups(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    if (ga->nkeys == 1 && !ga->has_text_key) {
        find_groups_one_word(ga, desc, tuples, n);
        return;
    }
    if (ga->nkeys == 1) {
        for (int i = 0; i < n; i++) {
            const char *data;
            int32 len;
            set_group(ga, i,
                      group_key_bytes(&ga->keys[0], desc, &tuples[i], &data, &len) ? text_group(ga, data, len)
                                                                                      : null_group(ga));
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        uint32 len = build_key(ga, desc, &tuples[i]);
        set_group(ga, i, group_table_lookup(&ga->table, ga->keybuf, len));
    }
}

/* Rows handed to the grouped loop at once when a GPU batch comes back to the CPU. */
constexpr int32 kRowsAtOnce = 1024;

/* The one grouped loop (gh::cpu_bin_rows) over values[0 .. n) into rows[0 .. n). */
void bin_rows(GroupAgg *ga, int a, const double *values, int64 *const *rows, int n)
{
    report_engine_status(gh::cpu_bin_rows(ga->specs[a], values, rows, static_cast<size_t>(n)));
    ga->values_binned += static_cast<uint64>(n);
}

/* A GPU batch the service did not take, binned into its groups' rows here. */
void bin_batch_on_cpu(GroupAgg *ga, int a)
{
    GroupGpu *gg = &ga->gpu[a];
    int64 *rows[kRowsAtOnce];
    for (int32 start = 0; start < gg->filled; start += kRowsAtOnce) {
        int32 n = Min(kRowsAtOnce, gg->filled - start);
        for (int32 i = 0; i < n; i++)
            rows[i] = ga->table.groups[gg->numbers[start + i]]->cells + ga->offsets[a];
        bin_rows(ga, a, gg->values + start, rows, n);
    }
    group_gpu_clear(gg);
}

void ship_batch(GroupAgg *ga, int a)
{
    if (!group_gpu_ship(&ga->gpu[a]))
        bin_batch_on_cpu(ga, a);
}

/*
 * One histogram over the page's tuples: values whose group the GPU holds
 * go into its buffer, the others into their groups' rows on the CPU.
 */
void count_histogram(GroupAgg *ga, int a, TupleDesc desc, HeapTupleData *tuples, int n)
{
    const HistogramArgs &arg = ga->args[a];
    if (arg.skip)
        return;
    heap_column_values_each(ga->columns[a], desc, tuples, n, ga->page_values, ga->page_nulls);
    const int32 off = ga->offsets[a];
    if (unlikely(!ga->spec_valid[a])) {
        /* the first value in the page's order (the tuples are reversed) gets width_bucket's error */
        for (int i = n - 1; i >= 0; i--)
            if (!ga->page_nulls[i])
                checked_first_row_spec(ga->page_values[i], arg.lo, arg.hi, arg.nbins);
        return;
    }
    GroupGpu *gg = &ga->gpu[a];
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (ga->page_nulls[i])
            continue;
        double x = ga->page_values[i];
        ScanGroup *g = ga->page_groups[i];
        if (group_gpu_takes(gg, g->index)) {
            if (unlikely(std::isnan(x)))
                report_engine_status(gh::Status::nan_value); /* here, as the CPU would: not at the read */
            if (group_gpu_add(gg, x, g->index))
                ship_batch(ga, a);
            continue;
        }
        ga->page_values[kept] = x;
        ga->page_rows[kept++] = g->cells + off;
    }
    bin_rows(ga, a, ga->page_values, ga->page_rows, kept);
}

/* A histogram's slots in a row: nbins + 2, from its first cell. */
int32 histogram_slots(const GroupAgg *ga, int a)
{
    return ga->specs[a].nbins + 2;
}

/* The values a histogram's slots counted: every value falls in exactly one. */
int64 histogram_values(const GroupAgg *ga, int a, const int64 *c)
{
    int64 total = 0;
    for (int32 b = 0; b < histogram_slots(ga, a); b++)
        total += c[b];
    return total;
}

/* Each aggregate's cells, once the histograms' arguments are known. */
void lay_out(GroupAgg *ga, const HistogramArgs *args)
{
    int32 ncells = 0;
    for (int a = 0; a < ga->naggs; a++) {
        ga->offsets[a] = ncells;
        if (ga->aggs[a].kind != AggKind::histogram) {
            ncells += 1; /* the rows counted */
            continue;
        }
        if (args[a].skip)
            continue;
        ga->specs[a] = gh::BucketSpec{args[a].lo, args[a].hi, args[a].nbins, kServerRule};
        ga->spec_valid[a] = gh::validate_spec(ga->specs[a]) == gh::SpecError::none;
        if (ga->spec_valid[a])
            ncells += histogram_slots(ga, a);
    }
    ga->args = args;
    /* one group is what the ordinary aggregate takes too: bounded only by the keys' groups */
    Size limit = ga->nkeys > 0 ? get_hash_memory_limit() : SIZE_MAX;
    group_table_init(&ga->table, ga->cxt, ncells, limit, ga->can_flush, ga->can_flush);
    ga->laid_out = true;
    if (!ga->gpu_ready) {
        /* no more groups than the table can hold before it is full */
        Size per_group = group_table_bytes_per_group(ncells, static_cast<int32>(fixed_key_bytes(ga)));
        uint32 max_groups = ga->nkeys == 0 ? 1 : static_cast<uint32>(Min(limit / per_group + 1, Size(PG_UINT32_MAX)));
        for (int a = 0; a < ga->naggs; a++)
            if (ga->aggs[a].kind == AggKind::histogram && !args[a].skip && ga->spec_valid[a])
                group_gpu_init(&ga->gpu[a], ga->specs[a], max_groups, ga->gpu_cxt);
        ga->gpu_ready = true;
    }
}

/* One histogram's result from its cells, nvalues of them: the bigint[] or the serialized state. */
Datum histogram_datum(GroupAgg *ga, int a, const int64 *c, int64 nvalues, bool partial)
{
    int32 slots = histogram_slots(ga, a);
    if (!partial)
        return PointerGetDatum(int64_array(c, slots));
    return PointerGetDatum(histogram_wire(gh::float_histogram(ga->specs[a]), c, nvalues));
}

void fill_row(GroupAgg *ga, const ScanGroup *g, TupleTableSlot *slot, bool partial)
{
    static const int64 no_cells[1] = {0};
    for (int a = 0; a < ga->naggs; a++) {
        const int64 *c = g != NULL ? g->cells + ga->offsets[a] : no_cells;
        slot->tts_isnull[a] = false;
        if (ga->aggs[a].kind != AggKind::histogram) {
            slot->tts_values[a] = Int64GetDatum(c[0]);
            continue;
        }
        int64 nvalues = g != NULL && !ga->args[a].skip && ga->spec_valid[a] ? histogram_values(ga, a, c) : 0;
        slot->tts_isnull[a] = nvalues == 0; /* no value: NULL, as the aggregate gives */
        slot->tts_values[a] = nvalues == 0 ? 0 : histogram_datum(ga, a, c, nvalues, partial);
    }
    if (g == NULL)
        return;
    uint64 nulls;
    memcpy(&nulls, g->key, sizeof nulls);
    uint32 text_at = fixed_key_bytes(ga);
    for (int k = 0; k < ga->nkeys; k++) {
        int col = ga->naggs + k;
        bool isnull = (nulls >> k) & 1;
        slot->tts_isnull[col] = isnull;
        slot->tts_values[col] = 0;
        if (isnull)
            continue;
        if (group_key_is_text(&ga->keys[k])) {
            int32 n;
            memcpy(&n, g->key + text_at, sizeof n);
            slot->tts_values[col] = PointerGetDatum(cstring_to_text_with_len(g->key + text_at + sizeof n, n));
            text_at += sizeof n + n;
        } else {
            int64 word;
            memcpy(&word, g->key + sizeof(int64) * (1 + k), sizeof word);
            slot->tts_values[col] = group_key_datum(&ga->keys[k], word);
        }
    }
}

} // namespace

void group_agg_init(GroupAgg *ga, ScanAggregate *aggs, int naggs, GroupKey *keys, int nkeys, TupleDesc desc,
                    MemoryContext parent_cxt, bool can_flush)
{
    memset(ga, 0, sizeof *ga);
    ga->can_flush = can_flush;
    ga->naggs = naggs;
    ga->aggs = aggs;
    ga->nkeys = nkeys;
    ga->keys = keys;
    ga->columns = static_cast<HeapColumn *>(palloc0(sizeof(HeapColumn) * naggs));
    ga->specs = static_cast<gh::BucketSpec *>(palloc0(sizeof(gh::BucketSpec) * naggs));
    ga->spec_valid = static_cast<bool *>(palloc0(sizeof(bool) * naggs));
    ga->offsets = static_cast<int32 *>(palloc0(sizeof(int32) * naggs));
    for (int a = 0; a < naggs; a++)
        if (aggs[a].kind == AggKind::histogram)
            ga->columns[a] = heap_column(desc, aggs[a].call.attno, aggs[a].call.coltype);
    for (int k = 0; k < nkeys; k++)
        ga->has_text_key = ga->has_text_key || group_key_is_text(&keys[k]);
    ga->keybuf_cap = 256 + fixed_key_bytes(ga);
    ga->keybuf = static_cast<char *>(palloc(ga->keybuf_cap));
    ga->page_groups = static_cast<ScanGroup **>(palloc(sizeof(ScanGroup *) * MaxHeapTuplesPerPage));
    ga->page_hashes = static_cast<uint64 *>(palloc(sizeof(uint64) * MaxHeapTuplesPerPage));
    ga->page_rows = static_cast<int64 **>(palloc(sizeof(int64 *) * MaxHeapTuplesPerPage));
    ga->page_values = static_cast<double *>(palloc(sizeof(double) * MaxHeapTuplesPerPage));
    ga->page_nulls = static_cast<bool *>(palloc(sizeof(bool) * MaxHeapTuplesPerPage));
    ga->word_cache = static_cast<WordCacheEntry *>(palloc0(sizeof(WordCacheEntry) << kWordCacheBits));
    ga->gpu = static_cast<GroupGpu *>(palloc(sizeof(GroupGpu) * naggs));
    for (int a = 0; a < naggs; a++)
        group_gpu_none(&ga->gpu[a]);
    ga->cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan groups", ALLOCSET_DEFAULT_SIZES);
    ga->gpu_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan GPU batches", ALLOCSET_DEFAULT_SIZES);
    ga->page_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan page keys", ALLOCSET_DEFAULT_SIZES);
    ga->row_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan output row", ALLOCSET_DEFAULT_SIZES);
    tuple_spill_init(&ga->spill,
                     AllocSetContextCreate(parent_cxt, "GpuHistogramScan spilled tuples", ALLOCSET_DEFAULT_SIZES));
}

namespace {

/*
 * The tuples the closed table gave no group go to the spill; the others
 * move up, in order, with their groups.  How many stay.
 */
int spill_refused(GroupAgg *ga, HeapTupleData *tuples, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (ga->page_groups[i] == NULL) {
            tuple_spill_write(&ga->spill, ga->page_hashes[i], &tuples[i]);
            continue;
        }
        tuples[kept] = tuples[i];
        ga->page_groups[kept++] = ga->page_groups[i];
    }
    return kept;
}

} // namespace

void group_agg_add(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, const HistogramArgs *args)
{
    if (n == 0)
        return;
    if (!ga->laid_out)
        lay_out(ga, args);
    /*
     * Tuples fill a page from its end: in reverse line-pointer order they
     * lie at rising addresses, which the prefetcher follows (a third faster
     * on the dev VM).  Counting is order-free; the one thing that depends
     * on the first row, a histogram's argument error, looks for it in the
     * page's order (count_histogram).
     */
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        HeapTupleData tmp = tuples[i];
        tuples[i] = tuples[j];
        tuples[j] = tmp;
    }
    MemoryContext old = MemoryContextSwitchTo(ga->page_cxt);
    find_groups(ga, desc, tuples, n);
    if (unlikely(ga->table.closed))
        n = spill_refused(ga, tuples, n);
    for (int a = 0; a < ga->naggs; a++) {
        const ScanAggregate &agg = ga->aggs[a];
        const int32 off = ga->offsets[a];
        switch (agg.kind) {
        case AggKind::histogram: count_histogram(ga, a, desc, tuples, n); break;
        case AggKind::count_star:
            for (int i = 0; i < n; i++)
                ga->page_groups[i]->cells[off]++;
            break;
        case AggKind::count_column:
            for (int i = 0; i < n; i++)
                if (!heap_attisnull(&tuples[i], agg.count_attno, desc))
                    ga->page_groups[i]->cells[off]++;
            break;
        }
    }
    MemoryContextSwitchTo(old);
    MemoryContextReset(ga->page_cxt); /* detoasted keys, PostgreSQL's functions' garbage */
}

void group_agg_lay_out(GroupAgg *ga, const HistogramArgs *args)
{
    if (!ga->laid_out)
        lay_out(ga, args);
}

namespace {

/* A group's key as the table keeps it: the NULL bits, then each fixed-width key's word. */
uint32 counted_key(GroupAgg *ga, const int64 *words, uint64 nulls)
{
    memcpy(ga->keybuf, &nulls, sizeof nulls);
    for (int k = 0; k < ga->nkeys; k++) {
        int64 word = (nulls >> k) & 1 ? 0 : words[k];
        memcpy(ga->keybuf + sizeof(int64) * (1 + k), &word, sizeof word);
    }
    return fixed_key_bytes(ga);
}

/* Adds counts made elsewhere into a group's cells (group_agg_add_counts). */
void add_counted(GroupAgg *ga, int64 *group_cells, const int64 *cells, int64 rows)
{
    int64 values = 0;
    for (int a = 0; a < ga->naggs; a++) {
        if (ga->aggs[a].kind != AggKind::histogram)
            continue;
        int64 *c = group_cells + ga->offsets[a];
        for (int32 b = 0; b < histogram_slots(ga, a); b++)
            c[b] += cells[b];
        values = histogram_values(ga, a, cells);
    }
    for (int a = 0; a < ga->naggs; a++) {
        if (ga->aggs[a].kind == AggKind::count_star)
            group_cells[ga->offsets[a]] += rows;
        else if (ga->aggs[a].kind == AggKind::count_column)
            group_cells[ga->offsets[a]] += values; /* the histogram's column: its non-NULL values */
    }
    ga->values_gpu += static_cast<uint64>(values);
}

} // namespace

void group_agg_add_counts(GroupAgg *ga, const int64 *words, uint64 nulls, const int64 *cells, int64 rows)
{
    Assert(!ga->has_text_key && ga->args != NULL);
    if (!ga->laid_out)
        lay_out(ga, ga->args); /* after a flush: the same arguments */
    const uint32 len = counted_key(ga, words, nulls);
    add_counted(ga, group_table_insert_always(&ga->table, ga->keybuf, len, group_key_hash(ga->keybuf, len))->cells,
                cells, rows);
}

void group_agg_row_from_counts(GroupAgg *ga, const int64 *words, uint64 nulls, const int64 *cells, int64 rows,
                               TupleTableSlot *slot, bool partial)
{
    Assert(!ga->has_text_key && ga->args != NULL);
    if (!ga->laid_out)
        lay_out(ga, ga->args);
    MemoryContextReset(ga->row_cxt);
    MemoryContext old = MemoryContextSwitchTo(ga->row_cxt);
    ScanGroup group{};
    group.keylen = counted_key(ga, words, nulls);
    group.key = ga->keybuf;
    group.cells = static_cast<int64 *>(palloc0(sizeof(int64) * Max(ga->table.ncells, 1)));
    add_counted(ga, group.cells, cells, rows);
    fill_row(ga, &group, slot, partial);
    ga->groups_emitted++;
    MemoryContextSwitchTo(old);
}

bool group_agg_next(GroupAgg *ga, TupleTableSlot *slot, bool partial)
{
    MemoryContextReset(ga->row_cxt);
    MemoryContext old = MemoryContextSwitchTo(ga->row_cxt);
    bool more = true;
    if (ga->laid_out && ga->next < ga->table.ngroups) {
        fill_row(ga, ga->table.groups[ga->next++], slot, partial);
        ga->groups_emitted++;
    } else if (ga->nkeys == 0 && (!ga->laid_out || ga->table.ngroups == 0) && !ga->emitted_empty) {
        /* no row at all (laid out before any, perhaps): an ungrouped aggregate still returns its one row */
        ga->emitted_empty = true;
        fill_row(ga, NULL, slot, partial);
    } else {
        more = false;
    }
    MemoryContextSwitchTo(old);
    return more;
}

/* Cells read back per request round: a bounded buffer, whatever the number of groups. */
constexpr int32 kReadCells = 1 << 18;

void group_agg_collect(GroupAgg *ga)
{
    if (!ga->laid_out || ga->collected)
        return;
    for (int a = 0; a < ga->naggs; a++) {
        GroupGpu *gg = &ga->gpu[a];
        if (gg->filled > 0)
            ship_batch(ga, a); /* the partial batch: the GPU or here, as the policy says */
        const int32 slots = histogram_slots(ga, a);
        const uint32 held = group_gpu_groups_held(gg, ga->table.ngroups);
        const uint32 per_read = static_cast<uint32>(Max(1, kReadCells / slots));
        int64 *cells = held > 0 ? static_cast<int64 *>(palloc(sizeof(int64) * per_read * slots)) : NULL;
        for (uint32 first = 0; first < held; first += per_read) {
            uint32 n = Min(per_read, held - first);
            group_gpu_read(gg, first, n, cells);
            for (uint32 j = 0; j < n; j++) {
                int64 *c = ga->table.groups[first + j]->cells + ga->offsets[a];
                const int64 *d = cells + static_cast<Size>(j) * slots;
                for (int32 b = 0; b < slots; b++)
                    c[b] += d[b];
            }
        }
        if (cells != NULL)
            pfree(cells);
        ga->values_gpu += gg->sent;
        gg->sent = 0;
    }
    ga->collected = true;
}

void group_agg_done(GroupAgg *ga)
{
    for (int a = 0; a < ga->naggs; a++)
        group_gpu_close(&ga->gpu[a]);
}

namespace {

/* Every group gone; the GPU's share stays for the groups to come. */
void forget_groups(GroupAgg *ga)
{
    MemoryContextReset(ga->cxt);
    MemoryContextReset(ga->page_cxt);
    MemoryContextReset(ga->row_cxt);
    memset(&ga->table, 0, sizeof ga->table);
    ga->laid_out = false;
    memset(ga->word_cache, 0, sizeof(WordCacheEntry) << kWordCacheBits);
    ga->null_group = NULL;
    ga->next = 0;
    ga->emitted_empty = false;
    ga->collected = false;
}

} // namespace

void group_agg_reset(GroupAgg *ga)
{
    forget_groups(ga);
    tuple_spill_discard(&ga->spill);
    /* new arguments perhaps: the device histograms go back (the callbacks close them) */
    MemoryContextReset(ga->gpu_cxt);
    for (int a = 0; a < ga->naggs; a++)
        group_gpu_none(&ga->gpu[a]);
    ga->gpu_ready = false;
    ga->values_binned = 0;
    ga->values_gpu = 0;
    ga->groups_emitted = 0;
}

void group_agg_restart(GroupAgg *ga)
{
    forget_groups(ga);
}

bool group_agg_spilled(const GroupAgg *ga)
{
    return tuple_spill_pending(&ga->spill);
}

bool group_agg_replay(GroupAgg *ga, TupleDesc desc, const HistogramArgs *args)
{
    Assert(!ga->laid_out || ga->table.ngroups == 0);
    if (!tuple_spill_begin_pass(&ga->spill))
        return false;
    HeapTupleData tuples[MaxHeapTuplesPerPage];
    for (int n; (n = tuple_spill_read(&ga->spill, tuples, MaxHeapTuplesPerPage)) > 0;) {
        CHECK_FOR_INTERRUPTS();
        group_agg_add(ga, desc, tuples, n, args);
    }
    return true;
}

void group_agg_end(GroupAgg *ga)
{
    tuple_spill_discard(&ga->spill);
}
