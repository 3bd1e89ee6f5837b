/*
 * group_find.cpp: a page's tuples into dense group numbers, through the
 * groups' hash table (group_agg_parts.h).
 *
 * This is where a grouped scan's keys meet its table of groups: each
 * tuple's key (group_keys.h) is computed and looked up, and what the
 * counters see is only the group's number (ScanGroup.index), or kNoGroup
 * for a tuple the closed table refused, whose key is kept for the spill.
 * The common shapes have loops of their own, so that they inline whole:
 * one fixed-width key through a direct-mapped cache of its recent values,
 * one text key through a cache by its bytes' hash, and any other as the
 * bytes of all its keys.
 */
#include "group_agg_parts.h"

namespace gpu_histogram {

void group_agg_reserve_key(GroupAgg *ga, Size bytes)
{
    if (bytes <= ga->keybuf_cap)
        return;
    Size cap = Max(bytes, ga->keybuf_cap * 2);
    ga->keybuf = static_cast<char *>(repalloc(ga->keybuf, cap));
    ga->keybuf_cap = cap;
}

namespace {

/* Tuple t's key in keybuf (group_agg_parts.h); its length. */
uint32 build_key(GroupAgg *ga, TupleDesc desc, HeapTupleData *t)
{
    uint64 nulls = 0;
    uint32 len = group_agg_key_bytes(ga);
    for (int k = 0; k < ga->nkeys; k++) {
        GroupKey *key = &ga->keys[k];
        int64 word = 0;
        if (group_key_is_text(key)) {
            const char *data;
            int32 n;
            if (group_key_bytes(key, desc, t, &data, &n)) {
                group_agg_reserve_key(ga, len + sizeof(int32) + n);
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

/*
 * 4,096 entries (64 kB, within L2): with 1,024, a thousand hosts shared
 * slots and most rows went to the hash table.
 */
constexpr int kWordCacheBits = 12;

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
    e.group = group_table_lookup(&ga->table, reinterpret_cast<char *>(k), group_agg_key_bytes(ga));
    return e.group;
}

ScanGroup *null_group(GroupAgg *ga)
{
    if (ga->null_group == NULL) {
        int64 k[2] = {1, 0};
        ga->null_group = group_table_lookup(&ga->table, reinterpret_cast<char *>(k), group_agg_key_bytes(ga));
    }
    return ga->null_group;
}

/*
 * The closed table's last refused key's hash, and its bytes where the
 * spill keeps keys, copied once for a run of tuples of one key (a page of
 * one hour); where they lie.
 */
uint32 keep_refused_key(GroupAgg *ga)
{
    const GroupTable &t = ga->table;
    if (ga->refused_last >= 0 && ga->refused_seen == t.refusals)
        return static_cast<uint32>(ga->refused_last);
    const Size head = MAXALIGN(sizeof(uint64) + sizeof(uint32));
    const uint32 len = ga->spill_keys ? t.refused_len : 0; /* else the hash alone, for the partition */
    const Size at = ga->refused_used, need = at + head + MAXALIGN(len);
    if (need > ga->refused_cap) {
        ga->refused_cap = Max(need, ga->refused_cap * 2);
        ga->refused_keys = static_cast<char *>(repalloc(ga->refused_keys, ga->refused_cap));
    }
    memcpy(ga->refused_keys + at, &t.refused_hash, sizeof t.refused_hash);
    memcpy(ga->refused_keys + at + sizeof t.refused_hash, &len, sizeof len);
    memcpy(ga->refused_keys + at + head, t.refused_key, len);
    ga->refused_used = need;
    ga->refused_last = static_cast<int64>(at);
    ga->refused_seen = t.refusals;
    return static_cast<uint32>(at);
}

/*
 * Tuple i's group; NULL if the table is closed and the key is not in it:
 * the tuple then waits in the spill, with its key.
 */
inline void set_group(GroupAgg *ga, int i, const ScanGroup *g)
{
    if (likely(g != NULL)) {
        ga->page_groups[i] = g->index;
        ga->page_cells[i] = g->cells;
        return;
    }
    ga->page_groups[i] = kNoGroup;
    ga->page_cells[i] = NULL;
    ga->page_key_at[i] = keep_refused_key(ga);
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
    case KeyKind::date_field:
    case KeyKind::monotone:
    case KeyKind::by_value:
    case KeyKind::derived:
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
     * A label of up to 8 bytes is its own fingerprint: its bytes in one
     * word, zero past its end, and the group's key length beside (equal
     * words and lengths, equal labels).  A longer one is hashed and
     * compared.  GROUP BY host over 10M rows of 1,000 hosts of 6 to 8
     * bytes took 525 ms with 7 bytes and a cache of 1,024 entries, 289 ms
     * with 8 and 4,096 on the development machine.
     */
    uint64 h;
    bool exact = len <= 8;
    if (exact) {
        h = 0;
        memcpy(&h, data, len);
    } else {
        h = group_key_hash(data, static_cast<uint32>(len));
    }
    WordCacheEntry &e = ga->word_cache[word_slot(static_cast<int64>(h))];
    ScanGroup *g = e.group;
    if (likely(g != NULL && e.word == static_cast<int64>(h) && g->keylen == kTextAt + sizeof(int32) + len &&
               (exact || memcmp(g->key + kTextAt + sizeof(int32), data, len) == 0)))
        return g;
    group_agg_reserve_key(ga, kTextAt + sizeof(int32) + len);
    memset(ga->keybuf, 0, kTextAt);
    memcpy(ga->keybuf + kTextAt, &len, sizeof len);
    memcpy(ga->keybuf + kTextAt + sizeof len, data, len);
    e.word = static_cast<int64>(h);
    e.group = group_table_lookup(&ga->table, ga->keybuf, kTextAt + sizeof(int32) + len);
    return e.group;
}

/* The group of tuple t's one key; NULL where the closed table refused it. */
ScanGroup *one_key_group(GroupAgg *ga, TupleDesc desc, HeapTupleData *t)
{
    if (!ga->has_text_key) {
        int64 word;
        return group_key_word(&ga->keys[0], desc, t, &word) ? word_group(ga, word) : null_group(ga);
    }
    const char *data;
    int32 len;
    return group_key_bytes(&ga->keys[0], desc, t, &data, &len) ? text_group(ga, data, len) : null_group(ga);
}

/*
 * One key by value (g % 10, g::text): each tuple's group by its value's
 * number in the key's memo, found when the page was checked, so that no
 * key is computed, copied or hashed but the first of each value.  On the
 * development machine this took GROUP BY g::text from 1.8x GROUP BY g's
 * time, a text key found by its bytes for each row, to about g's.
 */
bool find_groups_by_value(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    if (!group_key_page_value_numbers(&ga->keys[0], tuples, n, ga->page_numbers))
        return false;
    for (int i = 0; i < n; i++) {
        const int32 number = ga->page_numbers[i];
        if (unlikely(number >= ga->value_groups_cap)) {
            const int32 cap = Max(number + 1, ga->value_groups_cap * 2);
            ScanGroup **grown = static_cast<ScanGroup **>(MemoryContextAllocZero(ga->cxt, sizeof(ScanGroup *) * cap));
            if (ga->value_groups != NULL) {
                memcpy(grown, ga->value_groups, sizeof(ScanGroup *) * ga->value_groups_cap);
                pfree(ga->value_groups);
            }
            ga->value_groups = grown;
            ga->value_groups_cap = cap;
        }
        ScanGroup *g = ga->value_groups[number];
        if (unlikely(g == NULL)) {
            g = one_key_group(ga, desc, &tuples[i]);
            ga->value_groups[number] = g; /* a refused key stays NULL: it is looked up again */
        }
        set_group(ga, i, g);
    }
    return true;
}

/* The one group of a page whose keys' spans each name one key; false where one does not. */
bool span_group(GroupAgg *ga, const ScanGroup **g)
{
    if (ga->has_text_key) {
        /* one key kept as bytes (Grafana's numeric epoch): one_key_group()'s text group of the span's key */
        const char *data;
        int32 len;
        if (ga->nkeys != 1 || !group_key_span_bytes(&ga->keys[0], ga->page_spans[0], &data, &len))
            return false;
        *g = text_group(ga, data, len);
        return true;
    }
    /* build_key()'s layout: no NULL, then each key's word */
    memset(ga->keybuf, 0, group_agg_key_bytes(ga));
    for (int k = 0; k < ga->nkeys; k++) {
        int64 word;
        if (!group_key_span_word(&ga->keys[k], ga->page_spans[k], &word))
            return false;
        memcpy(ga->keybuf + sizeof(int64) * (1 + k), &word, sizeof word);
    }
    if (ga->nkeys == 1) {
        int64 word;
        memcpy(&word, ga->keybuf + sizeof(int64), sizeof word);
        *g = word_group(ga, word);
    } else {
        *g = group_table_lookup(&ga->table, ga->keybuf, group_agg_key_bytes(ga));
    }
    return true;
}

} // namespace

bool group_agg_find_one_group(GroupAgg *ga, int n)
{
    const ScanGroup *g;
    if (ga->nkeys == 0 || !span_group(ga, &g))
        return false;
    for (int i = 0; i < n; i++)
        set_group(ga, i, g);
    ga->page_one = true;
    return true;
}

void group_agg_find_group(GroupAgg *ga, TupleDesc desc, HeapTupleData *t, int i)
{
    if (ga->nkeys == 1) {
        set_group(ga, i, one_key_group(ga, desc, t));
    } else {
        uint32 len = build_key(ga, desc, t);
        set_group(ga, i, group_table_lookup(&ga->table, ga->keybuf, len));
    }
}

void group_agg_find_groups(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    if (ga->nkeys == 1 && (ga->keys[0].def.kind == KeyKind::by_value || ga->keys[0].def.kind == KeyKind::derived) &&
        find_groups_by_value(ga, desc, tuples, n))
        return;
    if (ga->nkeys == 1 && !ga->has_text_key) {
        find_groups_one_word(ga, desc, tuples, n);
        return;
    }
    for (int i = 0; i < n; i++)
        group_agg_find_group(ga, desc, &tuples[i], i);
}

void group_agg_find_keyed(GroupAgg *ga, const SpillKey *keys, int n)
{
    GroupTable *t = &ga->table;
    for (int i = 0; i < n; i++) {
        /* group_table_lookup()'s way, with the hash the key was spilled under */
        ScanGroup *g = t->last;
        if (g == NULL || g->keylen != keys[i].len || memcmp(g->key, keys[i].data, keys[i].len) != 0)
            t->last = g = group_table_insert(t, keys[i].data, keys[i].len, keys[i].hash);
        set_group(ga, i, g);
    }
}

void group_agg_find_init(GroupAgg *ga)
{
    ga->word_cache = static_cast<WordCacheEntry *>(palloc0(sizeof(WordCacheEntry) << kWordCacheBits));
    ga->page_numbers = static_cast<int32 *>(palloc(sizeof(int32) * MaxHeapTuplesPerPage));
    ga->page_spans = static_cast<KeySpan *>(palloc0(sizeof(KeySpan) * Max(ga->nkeys, 1)));
    ga->page_key_at = static_cast<uint32 *>(palloc(sizeof(uint32) * MaxHeapTuplesPerPage));
    ga->refused_cap = 1024;
    ga->refused_keys = static_cast<char *>(palloc(ga->refused_cap));
    group_agg_forget_refused(ga);
}

void group_agg_find_forget(GroupAgg *ga)
{
    memset(ga->word_cache, 0, sizeof(WordCacheEntry) << kWordCacheBits);
    ga->null_group = NULL;
    ga->value_groups = NULL; /* went with cxt */
    ga->value_groups_cap = 0;
    group_agg_forget_refused(ga); /* the table's count of refusals starts again */
}

} // namespace gpu_histogram
