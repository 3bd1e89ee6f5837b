/*
 * text_ids.cpp: the numbers a scan gives a text column's values
 * (text_ids.h), in an open-addressing table of the values' bytes.
 */
#include "text_ids.h"

extern "C" {
#include "common/hashfn.h"
}

namespace gpu_histogram {

namespace {

struct Entry {
    const char *bytes; /* NULL: empty */
    int32 n;
    uint32 hash;
    int64 number;
};

} // namespace

struct TextIds {
    MemoryContext cxt;
    Entry *slots;
    uint32 mask; /* slots - 1, a power of two less one */
    int32 count;
    int32 max_values;
    int64 bytes_left;  /* of kTextIdsBytes */
    const Entry **by_number; /* by_number[i] is number i + 1's entry, moved with it */
    int32 by_number_cap;
};

TextIds *text_ids_create(int32 max_values)
{
    TextIds *ids = static_cast<TextIds *>(palloc0(sizeof(TextIds)));
    ids->cxt = CurrentMemoryContext;
    ids->mask = 255;
    ids->slots = static_cast<Entry *>(palloc0(sizeof(Entry) * (ids->mask + 1)));
    ids->max_values = max_values;
    ids->bytes_left = kTextIdsBytes;
    ids->by_number_cap = 128;
    ids->by_number = static_cast<const Entry **>(palloc(sizeof(Entry *) * ids->by_number_cap));
    return ids;
}

namespace {

/* Where hash's probe meets bytes equal to data, or the empty slot where they go. */
Entry *probe(TextIds *ids, const char *data, int32 n, uint32 hash)
{
    for (uint32 at = hash & ids->mask;; at = (at + 1) & ids->mask) {
        Entry *e = &ids->slots[at];
        if (e->bytes == NULL || (e->hash == hash && e->n == n && memcmp(e->bytes, data, n) == 0))
            return e;
    }
}

/* Twice the slots, the entries placed again: kept at most half full, so a probe ends soon. */
void grow(TextIds *ids)
{
    Entry *old = ids->slots;
    const uint32 old_slots = ids->mask + 1;
    /* allocated before anything changes: a table may outlive the query that an ERROR here ends */
    Entry *slots = static_cast<Entry *>(MemoryContextAllocZero(ids->cxt, sizeof(Entry) * 2 * old_slots));
    ids->slots = slots;
    ids->mask = 2 * old_slots - 1;
    for (uint32 i = 0; i < old_slots; i++)
        if (old[i].bytes != NULL) {
            Entry *e = probe(ids, old[i].bytes, old[i].n, old[i].hash);
            *e = old[i];
            ids->by_number[e->number - 1] = e;
        }
    pfree(old);
}

} // namespace

int64 text_ids_number(TextIds *ids, const char *data, int32 n)
{
    const uint32 hash = hash_bytes(reinterpret_cast<const unsigned char *>(data), n);
    Entry *e = probe(ids, data, n, hash);
    if (e->bytes != NULL)
        return e->number;
    if (ids->count >= ids->max_values || n > ids->bytes_left)
        return -1;
    if (ids->count == ids->by_number_cap) {
        ids->by_number = static_cast<const Entry **>(repalloc(ids->by_number, sizeof(Entry *) * 2 * ids->by_number_cap));
        ids->by_number_cap *= 2;
    }
    if (static_cast<uint32>(ids->count + 1) * 2 > ids->mask) { /* before the entry, so the table never fills */
        grow(ids);
        e = probe(ids, data, n, hash);
    }
    char *copy = static_cast<char *>(MemoryContextAlloc(ids->cxt, Max(n, 1)));
    memcpy(copy, data, n);
    ids->bytes_left -= n;
    *e = Entry{copy, n, hash, ids->count + 1};
    ids->by_number[ids->count++] = e;
    return ids->count;
}

void text_ids_value(const TextIds *ids, int64 number, const char **data, int32 *n)
{
    Assert(number >= 1 && number <= ids->count);
    const Entry *e = ids->by_number[number - 1];
    *data = e->bytes;
    *n = e->n;
}

} // namespace gpu_histogram
