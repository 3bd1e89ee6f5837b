/*
 * shared_groups.cpp: a parallel grouped scan's groups, left in the query's
 * shared memory area and merged by its processes, a share each
 * (shared_groups.h).
 */
#include "shared_groups.h"

extern "C" {
#include "miscadmin.h"
#include "utils/wait_event.h"
}

namespace {

/*
 * Groups are placed in buckets by the top bits of their key hash (the low
 * bits place them in a group table's slots); a share is every bucket b
 * with b % shares == index.  256 buckets split among 9 processes differ
 * by at most one bucket in 28.
 */
constexpr int kBucketBits = 8;
constexpr int kBuckets = 1 << kBucketBits;

inline int bucket_of(uint64 hash)
{
    return static_cast<int>(hash >> (64 - kBucketBits));
}

/* One process's groups at one moment, a chunk of the area: this, then its records by bucket. */
struct Dump {
    dsa_pointer next;
    uint64 bytes; /* the whole chunk */
    int32 ncells;
    uint32 ngroups;
    uint64 bucket_start[kBuckets + 1]; /* bucket b's records: [bucket_start[b], bucket_start[b + 1]) from the chunk */
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

Dump *dump_at(dsa_area *area, dsa_pointer dp)
{
    return static_cast<Dump *>(dsa_get_address(area, dp));
}

} // namespace

void shared_groups_init(SharedGroups *sg)
{
    SpinLockInit(&sg->mutex);
    sg->joined = 0;
    sg->finished = 0;
    sg->closed = false;
    sg->dumps = InvalidDsaPointer;
    sg->dump_bytes = 0;
    ConditionVariableInit(&sg->cv);
}

void shared_groups_reset(SharedGroups *sg, dsa_area *area)
{
    dsa_pointer dp = sg->dumps;
    while (DsaPointerIsValid(dp)) {
        dsa_pointer next = dump_at(area, dp)->next;
        dsa_free(area, dp);
        dp = next;
    }
    shared_groups_init(sg);
}

bool shared_groups_join(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    bool late = sg->closed;
    if (!late)
        sg->joined++;
    SpinLockRelease(&sg->mutex);
    return !late;
}

void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t)
{
    if (t->ngroups == 0)
        return;
    /* each bucket's bytes, then where each starts */
    uint64 start[kBuckets + 1] = {};
    for (uint32 i = 0; i < t->ngroups; i++)
        start[bucket_of(t->groups[i]->hash) + 1] += record_bytes(t->ncells, t->groups[i]->keylen);
    start[0] = kDumpHead;
    for (int b = 0; b < kBuckets; b++)
        start[b + 1] += start[b];
    const Size bytes = start[kBuckets];
    dsa_pointer dp = dsa_allocate_extended(area, bytes, DSA_ALLOC_HUGE);
    char *base = static_cast<char *>(dsa_get_address(area, dp));
    Dump *d = reinterpret_cast<Dump *>(base);
    d->bytes = bytes;
    d->ncells = t->ncells;
    d->ngroups = t->ngroups;
    memcpy(d->bucket_start, start, sizeof start);
    uint64 at[kBuckets];
    memcpy(at, start, sizeof at);
    const Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    for (uint32 i = 0; i < t->ngroups; i++) {
        const ScanGroup *g = t->groups[i];
        char *p = base + at[bucket_of(g->hash)];
        at[bucket_of(g->hash)] += record_bytes(t->ncells, g->keylen);
        Record *r = reinterpret_cast<Record *>(p);
        r->hash = g->hash;
        r->keylen = g->keylen;
        r->unused = 0;
        p += sizeof(Record);
        memcpy(p, g->cells, cells);
        p += cells;
        memcpy(p, g->key, g->keylen);
    }
    SpinLockAcquire(&sg->mutex);
    d->next = sg->dumps;
    sg->dumps = dp;
    sg->dump_bytes += bytes;
    SpinLockRelease(&sg->mutex);
}

bool shared_groups_close_alone(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    bool alone = sg->joined == 1 && sg->finished == 0 && !DsaPointerIsValid(sg->dumps);
    if (alone) {
        sg->finished = 1;
        sg->closed = true;
    }
    SpinLockRelease(&sg->mutex);
    return alone;
}

GroupShare shared_groups_finish(SharedGroups *sg)
{
    GroupShare share{};
    SpinLockAcquire(&sg->mutex);
    share.index = sg->finished++;
    bool last = sg->finished == sg->joined;
    if (last)
        sg->closed = true;
    SpinLockRelease(&sg->mutex);
    if (last) {
        ConditionVariableBroadcast(&sg->cv);
    } else {
        ConditionVariablePrepareToSleep(&sg->cv);
        for (;;) {
            SpinLockAcquire(&sg->mutex);
            bool closed = sg->closed;
            SpinLockRelease(&sg->mutex);
            if (closed)
                break;
            /* interruptible: a cancel, or another process's error reaching the leader, ends the wait */
            ConditionVariableSleep(&sg->cv, PG_WAIT_EXTENSION);
        }
        ConditionVariableCancelSleep();
    }
    SpinLockAcquire(&sg->mutex);
    share.shares = sg->joined; /* closed: no process joins any more */
    share.bytes = sg->dump_bytes;
    SpinLockRelease(&sg->mutex);
    return share;
}

void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, const GroupShare &share, uint32 pass,
                         uint32 passes)
{
    SpinLockAcquire(&sg->mutex);
    dsa_pointer dp = sg->dumps;
    SpinLockRelease(&sg->mutex);
    const Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    while (DsaPointerIsValid(dp)) {
        const char *base = static_cast<const char *>(dsa_get_address(area, dp));
        const Dump *d = reinterpret_cast<const Dump *>(base);
        if (d->ncells != t->ncells)
            elog(ERROR, "gpu_histogram scan: a process left groups of %d counters, not %d", d->ncells, t->ncells);
        for (int b = share.index; b < kBuckets; b += share.shares) {
            const char *p = base + d->bucket_start[b];
            const char *stop = base + d->bucket_start[b + 1];
            while (p < stop) {
                const Record *r = reinterpret_cast<const Record *>(p);
                const int64 *c = reinterpret_cast<const int64 *>(p + sizeof(Record));
                const char *key = p + sizeof(Record) + cells;
                p += record_bytes(t->ncells, r->keylen);
                if (passes > 1 && static_cast<uint32>(r->hash >> 24) % passes != pass)
                    continue;
                ScanGroup *g = group_table_insert(t, key, r->keylen, r->hash);
                for (int32 k = 0; k < t->ncells; k++)
                    g->cells[k] += c[k];
            }
        }
        dp = d->next;
    }
}
