/*
 * leaf_errors.cpp: the leaves' held errors, one entry per serial Append
 * (leaf_errors.h, leaf_group.h).
 */
#include "leaf_errors.h"
#include "leaf_group.h"

#include "table/group_agg.h"

extern "C" {
#include "utils/memutils.h"
}

namespace gpu_histogram {

struct LeafErrors {
    int registered; /* leaves begun */
    int ended;      /* ... and whose input ended */
    HeldError held; /* the first error an earlier leaf held */
};

struct LeafState {
    LeafErrors *entry;
    bool ended;
};

void leaf_errors_join(GroupedRows *g, EState *estate, uint32 group)
{
    LeafErrors *e = static_cast<LeafErrors *>(leaf_group_entry(estate, group, LeafGroupKind::errors, sizeof(LeafErrors)));
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
