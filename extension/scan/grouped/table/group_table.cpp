/*
 * group_table.cpp: the hash table of a grouped scan's groups (group_table.h).
 */
#include "group_table.h"

#include <sys/mman.h>

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

/*
 * Past the first megabyte of groups, a slab is a mapping of 2 MB of its
 * own, asked for as one huge page, where the kernel gives them.  The
 * blocks of a context come from malloc, which gives them back to the
 * kernel when the query ends, so each query's groups faulted their memory
 * in 4 kB at a time and zeroed it again: on the development machine,
 * 5-minute groups of a 10,001-row table (8,634 groups of 64 bins, 4.7 MB)
 * spent half their time there, and took 22.5 ms against the ordinary
 * plan's 15.1.  A fresh mapping is zero already, so its cells are not
 * cleared.
 */
constexpr Size kMappedBytes = 2 * 1024 * 1024;
constexpr Size kMappedAfter = 1024 * 1024;

/* The table's mappings, in its context: unmapped when the context is reset or deleted (an ERROR's too). */
struct Mappings {
    MemoryContextCallback callback;
    char *first; /* each mapping's first word names the one before */
};

void unmap_all(void *arg)
{
    Mappings *m = static_cast<Mappings *>(arg);
    for (char *at = m->first; at != NULL;) {
        char *before;
        memcpy(&before, at, sizeof before);
        munmap(at, kMappedBytes);
        at = before;
    }
    m->first = NULL;
}

/*
 * Whether the kernel backs a mapping that asks with huge pages
 * (transparent_hugepage "always" or "madvise"); read once.  Without them a
 * mapping is slower than malloc's blocks: its 4 kB pages fault again in
 * every query.  Thirty of those 5-minute queries took 67,457 page faults
 * with 4 kB mappings, 40,818 with malloc's blocks and 10,759 with huge
 * pages.
 */
bool huge_pages_given()
{
    static int known = -1;
    if (known < 0) {
        known = 0;
#ifdef MADV_HUGEPAGE
        FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (f != NULL) {
            char mode[128];
            if (fgets(mode, sizeof mode, f) != NULL && (strstr(mode, "[always]") != NULL || strstr(mode, "[madvise]") != NULL))
                known = 1;
            fclose(f);
        }
#endif
    }
    return known == 1;
}

/* A zeroed mapping of kMappedBytes, aligned to them, that the table's context gives back; NULL if none. */
char *map_slab(GroupTable *t)
{
    if (!huge_pages_given())
        return NULL;
    if (t->mappings == NULL) {
        /* before the first mapping: an error allocating this leaves nothing mapped */
        Mappings *m = static_cast<Mappings *>(MemoryContextAllocZero(t->cxt, sizeof(Mappings)));
        m->callback.func = unmap_all;
        m->callback.arg = m;
        MemoryContextRegisterResetCallback(t->cxt, &m->callback);
        t->mappings = m;
    }
    /* twice the size, then the unaligned ends unmapped: a huge page needs its own alignment */
    void *got = mmap(NULL, 2 * kMappedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (got == MAP_FAILED)
        return NULL;
    char *raw = static_cast<char *>(got);
    char *at = reinterpret_cast<char *>(TYPEALIGN(kMappedBytes, reinterpret_cast<uintptr_t>(raw)));
    if (at > raw)
        munmap(raw, at - raw);
    munmap(at + kMappedBytes, raw + 2 * kMappedBytes - (at + kMappedBytes));
#ifdef MADV_HUGEPAGE
    (void) madvise(at, kMappedBytes, MADV_HUGEPAGE); /* where it fails, pages of 4 kB: slower, still right */
#endif
    Mappings *m = static_cast<Mappings *>(t->mappings);
    memcpy(at, &m->first, sizeof m->first);
    m->first = at;
    return at;
}

/* bytes of a slab for a group; *zeroed where they are zero already */
char *carve(GroupTable *t, Size bytes, bool *zeroed)
{
    if (bytes > t->slab_left) {
        char *mapped = NULL;
        if (t->slab_bytes >= kMappedAfter && bytes <= kMappedBytes - MAXIMUM_ALIGNOF)
            mapped = map_slab(t);
        if (mapped != NULL) {
            t->slab = mapped + MAXIMUM_ALIGNOF; /* after the word that links the mappings */
            t->slab_left = kMappedBytes - MAXIMUM_ALIGNOF;
        } else {
            const Size block = Max(bytes, kSlabBytes);
            t->slab = static_cast<char *>(MemoryContextAlloc(t->cxt, block));
            t->slab_left = block;
        }
        t->slab_zeroed = mapped != NULL;
        t->slab_bytes += t->slab_left;
    }
    char *p = t->slab;
    t->slab += bytes;
    t->slab_left -= bytes;
    *zeroed = t->slab_zeroed;
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
        if (len > t->refused_cap) {
            /* a few dozen bytes, within the table's context and outside its bound, like its slots' headers */
            if (t->refused_key != NULL)
                pfree(t->refused_key);
            t->refused_cap = Max(len, Max(t->refused_cap * 2, 64u));
            t->refused_key = static_cast<char *>(MemoryContextAlloc(t->cxt, t->refused_cap));
        }
        memcpy(t->refused_key, key, len);
        t->refused_len = len;
        t->refused_hash = hash;
        t->refusals++;
        return NULL;
    }
    Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    charge(t, group_table_bytes_per_group(t->ncells, static_cast<int32>(len)) - 2 * sizeof(ScanGroup *));
    const Size key_at = MAXALIGN(sizeof(ScanGroup)), cells_at = key_at + MAXALIGN(len > 0 ? len : 1);
    bool zeroed;
    char *piece = carve(t, cells_at + (cells > 0 ? cells : sizeof(int64)), &zeroed);
    ScanGroup *g = reinterpret_cast<ScanGroup *>(piece);
    g->hash = hash;
    g->keylen = len;
    g->key = piece + key_at;
    memcpy(g->key, key, len);
    g->cells = reinterpret_cast<int64 *>(piece + cells_at);
    if (!zeroed)
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

bool group_cells_outgrow_table(double cells, Size limit, double table_bytes)
{
    /* each flushed group is written once, then again by part (grouping_shared.cpp) */
    return cells > static_cast<double>(limit) && 2 * cells > table_bytes;
}

} // namespace gpu_histogram
