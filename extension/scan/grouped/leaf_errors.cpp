/*
 * leaf_errors.cpp: the leaves' held errors, one entry per Append in a
 * query's executor state (leaf_errors.h).
 *
 * The entries are a list of this backend's, each in its query's memory
 * and unlinked when that memory goes (after the query, or an ERROR), so
 * that an executor state at an address used before never finds an old one.
 */
#include "leaf_errors.h"

#include "table/group_agg.h"

extern "C" {
#include "utils/memutils.h"
}

namespace gpu_histogram {

struct LeafErrors {
    LeafErrors *next;
    EState *estate;
    uint32 group;
    int registered; /* leaves begun */
    int ended;      /* ... and whose input ended */
    HeldError held; /* the first error an earlier leaf held */
    MemoryContextCallback unlink;
};

struct LeafState {
    LeafErrors *entry;
    bool ended;
};

namespace {

LeafErrors *entries = NULL;

void unlink_entry(void *arg)
{
    LeafErrors *e = static_cast<LeafErrors *>(arg);
    for (LeafErrors **p = &entries; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

} // namespace

void leaf_errors_join(GroupedRows *g, EState *estate, uint32 group)
{
    LeafErrors *e = entries;
    while (e != NULL && !(e->estate == estate && e->group == group))
        e = e->next;
    if (e == NULL) {
        e = static_cast<LeafErrors *>(MemoryContextAllocZero(estate->es_query_cxt, sizeof(LeafErrors)));
        e->estate = estate;
        e->group = group;
        e->unlink.func = unlink_entry;
        e->unlink.arg = e;
        MemoryContextRegisterResetCallback(estate->es_query_cxt, &e->unlink);
        e->next = entries;
        entries = e;
    }
    e->registered++;
    g->leaf = static_cast<LeafState *>(MemoryContextAllocZero(estate->es_query_cxt, sizeof(LeafState)));
    g->leaf->entry = e;
    g->table.defer_to = &e->held;
}

void leaf_errors_input_ended(GroupedRows *g)
{
    LeafState *leaf = g->leaf;
    if (leaf == NULL || leaf->ended)
        return;
    leaf->ended = true;
    LeafErrors *e = leaf->entry;
    if (++e->ended < e->registered)
        return;
    /* the last leaf: every row's keys are computed */
    g->table.defer_to = NULL;
    const HeldError held = e->held;
    e->held = HeldError{};
    group_agg_raise_error(&held);
}

void leaf_errors_rescan(GroupedRows *g)
{
    LeafState *leaf = g->leaf;
    if (leaf == NULL || !leaf->ended)
        return;
    leaf->ended = false;
    leaf->entry->ended--;
    g->table.defer_to = &leaf->entry->held;
}

} // namespace gpu_histogram
