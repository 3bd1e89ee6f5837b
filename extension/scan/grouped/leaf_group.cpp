/*
 * leaf_group.cpp: the entries the leaves of an Append share in this
 * process, a list of them (leaf_group.h).
 */
#include "leaf_group.h"

extern "C" {
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

struct Entry {
    Entry *next;
    EState *estate;
    uint32 group;
    LeafGroupKind kind;
    MemoryContextCallback unlink;
    void *payload;
};

Entry *entries = NULL;

void unlink_entry(void *arg)
{
    Entry *e = static_cast<Entry *>(arg);
    for (Entry **p = &entries; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

} // namespace

void *leaf_group_entry(EState *estate, uint32 group, LeafGroupKind kind, Size bytes)
{
    for (Entry *e = entries; e != NULL; e = e->next)
        if (e->estate == estate && e->group == group && e->kind == kind)
            return e->payload;
    Entry *e = static_cast<Entry *>(MemoryContextAllocZero(estate->es_query_cxt, sizeof(Entry)));
    e->estate = estate;
    e->group = group;
    e->kind = kind;
    e->payload = MemoryContextAllocZero(estate->es_query_cxt, bytes);
    e->unlink.func = unlink_entry;
    e->unlink.arg = e;
    MemoryContextRegisterResetCallback(estate->es_query_cxt, &e->unlink);
    e->next = entries;
    entries = e;
    return e->payload;
}

} // namespace gpu_histogram
