/*
 * leaf_merge.cpp: an Append's leaves leaving their groups for the last
 * one (leaf_merge.h), one entry per Append in each process (leaf_group.h).
 */
#include "leaf_merge.h"
#include "leaf_group.h"

extern "C" {
#include "storage/lwlock.h"
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

struct LeafMergeEntry {
    int registered;          /* the Append's leaves (leaf_group.h) */
    int ended;               /* ... whose ExecEnd came */
    /* without a parallel context: this process's groups, area and files */
    SharedGroups local;
    dsa_area *area;
    uint32 round;            /* the round the groups are of */
    int done;                /* leaves done in it */
    /* with one: the first leaf's space */
    LeafMergeShared *shared;
    int shared_node;         /* its plan node id */
};

} // namespace

struct LeafMergeState {
    LeafMergeEntry *entry;
    uint32 round; /* 1, and one more at each rescan */
};

void leaf_merge_shared_init(LeafMergeShared *shared, dsm_segment *seg)
{
    shared_groups_init(&shared->groups);
    shared_groups_init_files(&shared->groups, seg);
    pg_atomic_init_u32(&shared->leaves_done, 0);
}

void leaf_merge_shared_reset(LeafMergeShared *shared, dsa_area *area)
{
    shared_groups_reset(&shared->groups, area);
    pg_atomic_write_u32(&shared->leaves_done, 0);
}

void leaf_merge_join(GroupedRows *g, EState *estate, uint32 group)
{
    LeafMergeEntry *e = static_cast<LeafMergeEntry *>(
        leaf_group_entry(estate, group, LeafGroupKind::merge, sizeof(LeafMergeEntry)));
    if (e->registered++ == 0) {
        /* the files go with the query's memory, after an error too */
        shared_groups_init(&e->local);
        shared_groups_init_local_files(&e->local, estate->es_query_cxt);
    }
    g->merge = static_cast<LeafMergeState *>(MemoryContextAllocZero(estate->es_query_cxt, sizeof(LeafMergeState)));
    g->merge->entry = e;
    g->merge->round = 1;
}

void leaf_merge_attach(GroupedRows *g, LeafMergeShared *space)
{
    LeafMergeEntry *e = g->merge->entry;
    const int node = g->s->css.ss.ps.plan->plan_node_id;
    if (e->shared == NULL || node < e->shared_node) {
        e->shared = space;
        e->shared_node = node;
    }
}

namespace {

/* With a parallel context: every process of every leaf meets in the first leaf's space. */
bool parallel_merge(const GroupedRows *g)
{
    return g->merge->entry->shared != NULL && g->s->shared != NULL;
}

} // namespace

SharedGroups *leaf_merge_start(GroupedRows *g)
{
    LeafMergeEntry *e = g->merge->entry;
    if (parallel_merge(g))
        return &e->shared->groups;
    if (g->merge->round > e->round) {
        /* the first leaf of a round: what an earlier one left goes */
        if (e->round > 0)
            shared_groups_reset(&e->local, e->area);
        e->round = g->merge->round;
        e->done = 0;
    }
    return &e->local;
}

dsa_area *leaf_merge_area(GroupedRows *g)
{
    if (parallel_merge(g))
        return g->s->area;
    LeafMergeEntry *e = g->merge->entry;
    if (e->area == NULL) {
        /* for every leaf of the query's Append: in its memory */
        MemoryContext old = MemoryContextSwitchTo(g->s->css.ss.ps.state->es_query_cxt);
        e->area = dsa_create(LWTRANCHE_PARALLEL_QUERY_DSA);
        MemoryContextSwitchTo(old);
    }
    return e->area;
}

bool leaf_merge_leaf_done(GroupedRows *g, SharedGroups *leaf_sg)
{
    LeafMergeEntry *e = g->merge->entry;
    if (parallel_merge(g)) {
        if (!shared_groups_done(leaf_sg))
            return false; /* another process still reads this leaf */
        return pg_atomic_add_fetch_u32(&e->shared->leaves_done, 1) == static_cast<uint32>(e->registered);
    }
    return ++e->done == e->registered;
}

void leaf_merge_rescan(GroupedRows *g)
{
    g->merge->round++;
}

void leaf_merge_end(GroupedRows *g)
{
    LeafMergeEntry *e = g->merge->entry;
    if (++e->ended < e->registered || e->area == NULL)
        return;
    dsa_detach(e->area);
    e->area = NULL;
}

} // namespace gpu_histogram
