/*
 * group_table.cpp: the hash table of a grouped scan's groups (group_table.h).
 */
#include "group_table.h"

extern "C" {
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

constexpr uint32 kFirstCapacity = 256;

/*
 * Groups are carved from blocks of this size: an entry, its key and its
 * cells in one piece.  Allocated one by one, a histogram of 64 bins' cells
 * (552 bytes with its counts) took a chunk of 1,024, beside two more
 * chunks for the entry and the key, and the pages all that touched were
 * a fifth of Grafana's five minutes over 30 days (8,640 groups) on the
 * development machine.  Groups are never freed one at a time: the table's
 * context is reset whole.
 */
constexpr Size kSlabBytes = 64 * 1024;

char *carve(GroupTable *t, Size bytes)
{
    if (bytes > t->slab_left) {
        const Size block = Max(bytes, kSlabBytes);
        t->slab = static_cast<char *>(MemoryContextAlloc(t->cxt, block));
        t->slab_left = block;
    }
    char *p = t->slab;
    t->slab += bytes;
    t->slab_left -= bytes;
    return p;
}

inline uint64 mix(uint64 h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

void charge(GroupTable *t, Size bytes)
{
    t->bytes += bytes;
    if (t->bytes <= t->limit)
        return;
    if (t->can_spill)
        t->closed = true;
    else if (t->can_flush)
        t->full = true;
    else
        ereport(ERROR,
                (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                 errmsg_plural("gpu_histogram scan: %u group needs more memory than work_mem x "
                               "hash_mem_multiplier (%zu kB)",
                               "gpu_histogram scan: %u groups need more memory than work_mem x "
                               "hash_mem_multiplier (%zu kB)",
                               t->ngroups, t->ngroups, t->limit / 1024),
                 errhint("Raise work_mem or hash_mem_multiplier, or SET gpu_histogram.scan = off to let "
                         "HashAggregate spill to disk.")));
}

void grow(GroupTable *t)
{
    uint32 capacity = t->capacity * 2;
    charge(t, sizeof(ScanGroup *) * (capacity - t->capacity));
    ScanGroup **slots = static_cast<ScanGroup **>(MemoryContextAllocZero(t->cxt, sizeof(ScanGroup *) * capacity));
    for (uint32 i = 0; i < t->capacity; i++) {
        ScanGroup *g = t->slots[i];
        if (g == NULL)
            continue;
        uint32 pos = static_cast<uint32>(g->hash) & (capacity - 1);
        while (slots[pos] != NULL)
            pos = (pos + 1) & (capacity - 1);
        slots[pos] = g;
    }
    pfree(t->slots);
    t->slots = slots;
    t->capacity = capacity;
}

} // namespace

void group_table_init(GroupTable *t, MemoryContext cxt, int32 ncells, Size limit, bool can_spill, bool can_flush)
{
    memset(t, 0, sizeof *t);
    t->cxt = cxt;
    t->ncells = ncells;
    t->limit = limit;
    t->can_spill = can_spill;
    t->can_flush = can_flush;
    t->capacity = kFirstCapacity;
    t->slots = static_cast<ScanGroup **>(MemoryContextAllocZero(cxt, sizeof(ScanGroup *) * t->capacity));
    t->groups_cap = kFirstCapacity;
    t->groups = static_cast<ScanGroup **>(MemoryContextAlloc(cxt, sizeof(ScanGroup *) * t->groups_cap));
    charge(t, (sizeof(ScanGroup *) * 2) * kFirstCapacity);
}

void group_table_combine(GroupTable *t, ScanGroup *g, const int64 *other)
{
    if (t->combine != NULL) {
        t->combine(t->combine_arg, g->cells, other);
        return;
    }
    for (int32 k = 0; k < t->ncells; k++)
        g->cells[k] += other[k];
}

uint64 group_key_hash(const char *key, uint32 len)
{
    uint64 h = 0x9E3779B97F4A7C15ULL ^ len;
    while (len >= 8) {
        uint64 w;
        memcpy(&w, key, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        key += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64 w = 0;
        memcpy(&w, key, len);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    }
    return mix(h);
}

ScanGroup *group_table_insert(GroupTable *t, const char *key, uint32 len, uint64 hash)
{
    uint32 mask = t->capacity - 1;
    uint32 pos = static_cast<uint32>(hash) & mask;
    for (ScanGroup *g; (g = t->slots[pos]) != NULL; pos = (pos + 1) & mask)
        if (g->hash == hash && g->keylen == len && memcmp(g->key, key, len) == 0)
            return g;

    /* a new group, unless the table is closed: then the key's tuples spill */
    if (t->closed) {
        t->refused_hash = hash;
        return NULL;
    }
    Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    charge(t, group_table_bytes_per_group(t->ncells, static_cast<int32>(len)) - 2 * sizeof(ScanGroup *));
    const Size key_at = MAXALIGN(sizeof(ScanGroup)), cells_at = key_at + MAXALIGN(len > 0 ? len : 1);
    char *piece = carve(t, cells_at + (cells > 0 ? cells : sizeof(int64)));
    ScanGroup *g = reinterpret_cast<ScanGroup *>(piece);
    g->hash = hash;
    g->keylen = len;
    g->key = piece + key_at;
    memcpy(g->key, key, len);
    g->cells = reinterpret_cast<int64 *>(piece + cells_at);
    memset(g->cells, 0, cells > 0 ? cells : sizeof(int64));
    t->slots[pos] = g;
    if (t->ngroups == t->groups_cap) {
        t->groups_cap *= 2;
        t->groups = static_cast<ScanGroup **>(repalloc(t->groups, sizeof(ScanGroup *) * t->groups_cap));
    }
    g->index = t->ngroups;
    t->groups[t->ngroups++] = g;
    if (t->ngroups * 4 > t->capacity * 3)
        grow(t);
    return g;
}

ScanGroup *group_table_insert_always(GroupTable *t, const char *key, uint32 len, uint64 hash)
{
    const bool closed = t->closed, can_spill = t->can_spill;
    t->closed = false;
    t->can_spill = false;
    ScanGroup *g = group_table_insert(t, key, len, hash);
    t->closed = closed;
    t->can_spill = can_spill;
    return g;
}

Size group_table_bytes_per_group(int32 ncells, int32 keylen)
{
    /* the entry, its key and cells with allocation overhead, two pointers in the table and the list */
    return sizeof(ScanGroup) + MAXALIGN(keylen) + sizeof(int64) * ncells + 3 * 16 + 2 * sizeof(ScanGroup *);
}

} // namespace gpu_histogram
