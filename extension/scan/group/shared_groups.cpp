/*
 * shared_groups.cpp: a parallel grouped scan's groups, left in the query's
 * shared memory area and merged by its last process (shared_groups.h).
 */
#include "shared_groups.h"

namespace {

/* One process's groups at one moment, a chunk of the area. */
struct Dump {
    dsa_pointer next;
    uint64 bytes; /* the whole chunk */
    int32 ncells;
    uint32 ngroups;
};

/* Each group: this, its ncells counters, then its key's bytes, padded to MAXALIGN. */
struct Record {
    uint64 hash;
    uint32 keylen;
    uint32 unused;
};

constexpr Size kDumpHead = MAXALIGN(sizeof(Dump));

Size record_bytes(int32 ncells, uint32 keylen)
{
    return sizeof(Record) + sizeof(int64) * static_cast<Size>(ncells) + MAXALIGN(keylen);
}

/* t's groups into the area, linked into the list; nothing for no group. */
void leave(SharedGroups *sg, dsa_area *area, const GroupTable *t)
{
    if (t->ngroups == 0)
        return;
    Size bytes = kDumpHead;
    for (uint32 i = 0; i < t->ngroups; i++)
        bytes += record_bytes(t->ncells, t->groups[i]->keylen);
    dsa_pointer dp = dsa_allocate_extended(area, bytes, DSA_ALLOC_HUGE);
    char *base = static_cast<char *>(dsa_get_address(area, dp));
    Dump *d = reinterpret_cast<Dump *>(base);
    d->bytes = bytes;
    d->ncells = t->ncells;
    d->ngroups = t->ngroups;
    char *p = base + kDumpHead;
    const Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    for (uint32 i = 0; i < t->ngroups; i++) {
        const ScanGroup *g = t->groups[i];
        Record *r = reinterpret_cast<Record *>(p);
        r->hash = g->hash;
        r->keylen = g->keylen;
        r->unused = 0;
        p += sizeof(Record);
        memcpy(p, g->cells, cells);
        p += cells;
        memcpy(p, g->key, g->keylen);
        p += MAXALIGN(g->keylen);
    }
    Assert(static_cast<Size>(p - base) == bytes);
    SpinLockAcquire(&sg->mutex);
    d->next = sg->dumps;
    sg->dumps = dp;
    sg->dump_bytes += bytes;
    SpinLockRelease(&sg->mutex);
}

} // namespace

void shared_groups_init(SharedGroups *sg)
{
    SpinLockInit(&sg->mutex);
    sg->attached = 0;
    sg->finished = 0;
    sg->chosen = false;
    sg->dumps = InvalidDsaPointer;
    sg->dump_bytes = 0;
}

void shared_groups_reset(SharedGroups *sg, dsa_area *area)
{
    dsa_pointer dp = sg->dumps;
    while (DsaPointerIsValid(dp)) {
        dsa_pointer next = static_cast<Dump *>(dsa_get_address(area, dp))->next;
        dsa_free(area, dp);
        dp = next;
    }
    shared_groups_init(sg);
}

bool shared_groups_attach(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    bool late = sg->chosen;
    if (!late)
        sg->attached++;
    SpinLockRelease(&sg->mutex);
    return !late;
}

FinishAnswer shared_groups_finish(SharedGroups *sg, dsa_area *area, const GroupTable *t)
{
    /* the last one keeps its groups where they are */
    SpinLockAcquire(&sg->mutex);
    bool last = sg->finished + 1 == sg->attached;
    if (last) {
        sg->finished++;
        sg->chosen = true;
    }
    SpinLockRelease(&sg->mutex);
    if (last)
        return FinishAnswer::emit;
    /*
     * Others were still reading: leave the groups, then count this process
     * finished; whoever finishes last after that emits, and it may be this
     * one, if the others finished while it was leaving its groups.
     */
    leave(sg, area, t);
    SpinLockAcquire(&sg->mutex);
    sg->finished++;
    last = sg->finished == sg->attached && !sg->chosen;
    if (last)
        sg->chosen = true;
    SpinLockRelease(&sg->mutex);
    return last ? FinishAnswer::emit_from_area : FinishAnswer::done;
}

void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t)
{
    leave(sg, area, t);
}

uint64 shared_groups_left_bytes(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    uint64 bytes = sg->dump_bytes;
    SpinLockRelease(&sg->mutex);
    return bytes;
}

void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, uint32 pass, uint32 passes)
{
    SpinLockAcquire(&sg->mutex);
    dsa_pointer dp = sg->dumps;
    SpinLockRelease(&sg->mutex);
    const Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    for (; DsaPointerIsValid(dp);) {
        const char *base = static_cast<const char *>(dsa_get_address(area, dp));
        const Dump *d = reinterpret_cast<const Dump *>(base);
        if (d->ncells != t->ncells)
            elog(ERROR, "gpu_histogram scan: a process left groups of %d counters, not %d", d->ncells, t->ncells);
        const char *p = base + kDumpHead;
        for (uint32 i = 0; i < d->ngroups; i++) {
            const Record *r = reinterpret_cast<const Record *>(p);
            const int64 *c = reinterpret_cast<const int64 *>(p + sizeof(Record));
            const char *key = p + sizeof(Record) + cells;
            p += record_bytes(t->ncells, r->keylen);
            if (passes > 1 && static_cast<uint32>(r->hash >> 32) % passes != pass)
                continue;
            ScanGroup *g = group_table_insert(t, key, r->keylen, r->hash);
            for (int32 k = 0; k < t->ncells; k++)
                g->cells[k] += c[k];
        }
        dp = d->next;
    }
}
