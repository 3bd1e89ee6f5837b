/*
 * group_table.h: the groups of a grouped GpuHistogramScan, found by key.
 *
 * Each group is its key (the bytes group_keys.h's words and text make) and
 * a row of 64-bit cells: the counters of every histogram and count the
 * query computes for it.  An open-addressing hash table finds a row's group;
 * the group of the previous row is tried first, since time-ordered tables
 * bring long runs of one key.  The table charges what it allocates against
 * the limit HashAggregate would get (work_mem x hash_mem_multiplier).  When
 * the groups outgrow it, a table that may spill closes: it takes no new
 * group, and a key it does not hold gets none (NULL), so that the caller
 * writes its tuple to the spill (tuple_spill.h), as HashAggregate does.
 * Counts the GPU made for a whole group still get theirs: past the bound
 * the table is then full, and the caller emits what it has and starts
 * again.  A table that may do neither raises an error with a hint.  The
 * scan never takes more memory than the plan it replaced would before
 * spilling.
 */
#ifndef GH_SCAN_GROUP_TABLE_H
#define GH_SCAN_GROUP_TABLE_H

#include "../../../pg_headers.h"

namespace gpu_histogram {

struct ScanGroup {
    uint64 hash;
    uint32 index;      /* its place in GroupTable.groups: the group's number on the GPU */
    uint32 keylen;
    char *key;
    int64 *cells;
};

struct GroupTable {
    MemoryContext cxt;
    ScanGroup **slots;     /* capacity entries, NULL when empty */
    uint32 capacity;   /* a power of two */
    ScanGroup **groups;    /* in order of creation, for the output */
    uint32 ngroups;
    uint32 groups_cap;
    int32 ncells;      /* cells per group */
    Size bytes;        /* charged so far */
    Size limit;
    bool can_spill;    /* over the limit: close (new keys spill) ... */
    bool closed;
    uint64 refused_hash; /* ... the hash of the last key refused, ... */
    char *refused_key;   /* ... a copy of its bytes (the caller's buffer may be gone, or reused), ... */
    uint32 refused_len;
    uint32 refused_cap;
    uint64 refusals;     /* ... and how many refusals so far: unchanged, the same key */
    bool can_flush;    /* ... or set full (the caller emits the groups and starts again) ... */
    bool full;         /* ... rather than raise an error */
    ScanGroup *last;
    char *slab;        /* where the next group is carved (carve()), slab_left bytes on */
    Size slab_left;
    bool slab_zeroed;  /* the slab is a fresh mapping: zero, its cells not cleared */
    Size slab_bytes;   /* every slab's bytes so far */
    void *mappings;    /* the slabs mapped of their own (group_table.cpp), given back with cxt */
    /*
     * How another part's cells of a group join its cells here (a parallel
     * scan's processes, shared_groups.h): each cell added, or where set,
     * this (the value aggregates' states do not add cell by cell).
     */
    void (*combine)(void *arg, int64 *cells, const int64 *other);
    void *combine_arg;
};

/*
 * An empty table in cxt whose groups have ncells cells each, bounded by
 * limit bytes: past it, the table closes if can_spill, else full is set
 * if can_flush, else an error is raised.
 */
void group_table_init(GroupTable *t, MemoryContext cxt, int32 ncells, Size limit, bool can_spill, bool can_flush);

uint64 group_key_hash(const char *key, uint32 len);

/* Adds another part's cells of a group into g's, as t->combine says. */
void group_table_combine(GroupTable *t, ScanGroup *g, const int64 *other);

/*
 * The group of key, created with zeroed cells if it is new; NULL if it is
 * new and the table is closed (refused_hash and refused_key are then its
 * hash and bytes, until the next refusal).
 */
ScanGroup *group_table_insert(GroupTable *t, const char *key, uint32 len, uint64 hash);

/*
 * The group of key even in a closed table: counts made elsewhere (the
 * GPU's cells, the groups other processes left), which have no tuple to
 * spill.  Past the bound the table is then full.
 */
ScanGroup *group_table_insert_always(GroupTable *t, const char *key, uint32 len, uint64 hash);

static inline ScanGroup *group_table_lookup(GroupTable *t, const char *key, uint32 len)
{
    ScanGroup *g = t->last;
    if (g != NULL && g->keylen == len && memcmp(g->key, key, len) == 0)
        return g;
    g = group_table_insert(t, key, len, group_key_hash(key, len));
    t->last = g;
    return g;
}

/* Estimated bytes one group takes, for the planner's check against the limit. */
Size group_table_bytes_per_group(int32 ncells, int32 keylen);

/*
 * Whether groups whose cells take `cells` bytes in all, counted on the GPU
 * and flushed past the memory bound `limit`, would write more to temporary
 * files than a table of `table_bytes` holds.  The host then takes the
 * pages (grouped_pages.cpp) and the planner emits finished rows rather
 * than states for a Finalize Aggregate (plan.cpp): one rule for both.
 */
bool group_cells_outgrow_table(double cells, Size limit, double table_bytes);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_TABLE_H */
