/*
 * page_ranges.cpp: the shared table of pages' column ranges (page_ranges.h).
 *
 * A chunk's place is its key's hash: one of a set's kWays slots, under one
 * of kLockParts LWLocks (a set's readers share it, a writer takes it
 * alone).  A scan reads a chunk once per kRangeBlocks blocks and writes
 * what it learned once per chunk, so the locks are taken a few thousand
 * times over a 100M-row table.  A slot's `used` stamp, from one counter,
 * names the set's least recently used chunk when a new one needs room.
 */
#include "page_ranges.h"

extern "C" {
#include "common/hashfn.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
}

namespace gpu_histogram {

namespace {

constexpr int kWays = 16;
constexpr int kLockParts = 128;
constexpr const char *kTranche = "gpu_histogram page ranges";

struct ChunkKey {
    RangeColumn column;
    uint32 chunk; /* column.rel 0: an empty slot */
};

struct Slot {
    ChunkKey key;
    pg_atomic_uint32 used;
    RangeChunkHead head;
    RangeChunk ranges;
};

struct Table {
    pg_atomic_uint32 clock;
    uint32 nsets;
};

int setting_mb = 64;
Table *table = NULL;
Slot *slots = NULL;
LWLockPadded *locks = NULL;
shmem_request_hook_type prev_request = NULL;
shmem_startup_hook_type prev_startup = NULL;

uint32 sets_for_setting()
{
    const Size bytes = static_cast<Size>(setting_mb) * 1024 * 1024;
    return static_cast<uint32>(bytes / (sizeof(Slot) * kWays));
}

Size table_bytes()
{
    return add_size(MAXALIGN(sizeof(Table)), mul_size(mul_size(sets_for_setting(), kWays), sizeof(Slot)));
}

void request(void)
{
    if (prev_request != NULL)
        prev_request();
    if (sets_for_setting() == 0)
        return;
    RequestAddinShmemSpace(table_bytes());
    RequestNamedLWLockTranche(kTranche, kLockParts);
}

void startup(void)
{
    if (prev_startup != NULL)
        prev_startup();
    const uint32 nsets = sets_for_setting();
    if (nsets == 0)
        return;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    char *base = static_cast<char *>(ShmemInitStruct(kTranche, table_bytes(), &found));
    table = reinterpret_cast<Table *>(base);
    slots = reinterpret_cast<Slot *>(base + MAXALIGN(sizeof(Table)));
    locks = GetNamedLWLockTranche(kTranche);
    if (!found) {
        pg_atomic_init_u32(&table->clock, 0);
        table->nsets = nsets;
        for (Size i = 0; i < static_cast<Size>(nsets) * kWays; i++) {
            slots[i].key = ChunkKey{};
            pg_atomic_init_u32(&slots[i].used, 0);
        }
    }
    LWLockRelease(AddinShmemInitLock);
}

bool same_key(const ChunkKey &a, const ChunkKey &b)
{
    return a.chunk == b.chunk && a.column.rel == b.column.rel && a.column.db == b.column.db &&
           a.column.spc == b.column.spc && a.column.attnum == b.column.attnum && a.column.type == b.column.type;
}

uint32 set_of(const ChunkKey &key)
{
    const uint32 words[] = {key.column.spc, key.column.db, key.column.rel, static_cast<uint32>(key.column.attnum),
                            key.column.type, key.chunk};
    return hash_bytes(reinterpret_cast<const unsigned char *>(words), sizeof words) % table->nsets;
}

/* Copies what `copy` takes of chunk `chunk` of c under the set's shared lock; false if there is none. */
template <typename Copy>
bool read_slot(const RangeColumn &c, uint32 chunk, Copy copy)
{
    const ChunkKey key{c, chunk};
    const uint32 set = set_of(key);
    LWLock *lock = &locks[set % kLockParts].lock;
    LWLockAcquire(lock, LW_SHARED);
    Slot *ways = &slots[static_cast<Size>(set) * kWays];
    bool found = false;
    for (int w = 0; w < kWays && !found; w++) {
        if (same_key(ways[w].key, key)) {
            copy(ways[w]);
            pg_atomic_write_u32(&ways[w].used, pg_atomic_add_fetch_u32(&table->clock, 1));
            found = true;
        }
    }
    LWLockRelease(lock);
    return found;
}

/* The head of a slot's ranges. */
RangeChunkHead head_of(const RangeChunk &r)
{
    RangeChunkHead h{r.vm[0], 0, false, PG_INT64_MAX, PG_INT64_MIN};
    for (uint32 b = 0; b < kRangeBlocks; b++) {
        if (r.vm[b] != h.vm)
            h.vm = InvalidXLogRecPtr;
        h.known += r.vm[b] != InvalidXLogRecPtr;
        h.rows = h.rows || r.rows[b];
        if (r.vm[b] != InvalidXLogRecPtr && r.lo[b] <= r.hi[b]) {
            h.lo = Min(h.lo, r.lo[b]);
            h.hi = Max(h.hi, r.hi[b]);
        }
    }
    return h;
}

} // namespace

void page_ranges_init(void)
{
    if (!process_shared_preload_libraries_in_progress)
        return;
    DefineCustomIntVariable("gpu_histogram.page_ranges",
                            "Shared memory for the range of a filtered column on each all-visible page.",
                            "A scan with a range on an integer, date or timestamp column passes over the "
                            "pages whose rows all lie outside it, learned from earlier scans: about 26 bytes "
                            "a page (64MB: 2.5 million pages, 20 GB of heap); 0 keeps none.",
                            &setting_mb, 64, 0, 1024 * 1024, PGC_POSTMASTER, GUC_UNIT_MB, NULL, NULL, NULL);
    prev_request = shmem_request_hook;
    shmem_request_hook = request;
    prev_startup = shmem_startup_hook;
    shmem_startup_hook = startup;
}

bool page_ranges_ready(void)
{
    return table != NULL;
}

bool page_ranges_read(const RangeColumn &c, uint32 chunk, RangeChunk *out)
{
    return read_slot(c, chunk, [out](const Slot &s) { *out = s.ranges; });
}

bool page_ranges_read_head(const RangeColumn &c, uint32 chunk, RangeChunkHead *out)
{
    return read_slot(c, chunk, [out](const Slot &s) { *out = s.head; });
}

bool page_ranges_recorded(const RangeColumn &c, uint32 chunk)
{
    RangeChunkHead head;
    return page_ranges_read_head(c, chunk, &head) && head.known > 0;
}

uint32 page_ranges_clock(void)
{
    return pg_atomic_read_u32(&table->clock);
}

bool page_ranges_write(const RangeColumn &c, uint32 chunk, const RangeChunk &in, uint32 since)
{
    const ChunkKey key{c, chunk};
    const uint32 set = set_of(key);
    LWLock *lock = &locks[set % kLockParts].lock;
    LWLockAcquire(lock, LW_EXCLUSIVE);
    Slot *ways = &slots[static_cast<Size>(set) * kWays];
    Slot *slot = NULL;
    const uint32 now = pg_atomic_add_fetch_u32(&table->clock, 1);
    for (int w = 0; w < kWays && slot == NULL; w++)
        if (same_key(ways[w].key, key))
            slot = &ways[w];
    if (slot == NULL) {
        /* an empty slot, else the one used longest ago (the stamps wrap: compared as distances from now) */
        slot = &ways[0];
        bool empty = false;
        for (int w = 0; w < kWays && !empty; w++) {
            empty = ways[w].key.column.rel == 0;
            if (empty || now - pg_atomic_read_u32(&ways[w].used) > now - pg_atomic_read_u32(&slot->used))
                slot = &ways[w];
        }
        /*
         * Not one the writer's own scan used: a scan that meets more chunks
         * of a set than it has slots would push out each chunk before its
         * next scan came back to it, and find none (LRU under a cyclic
         * walk); this way the chunks already in stay, and are used.
         */
        if (!empty && now - pg_atomic_read_u32(&slot->used) <= now - since) {
            LWLockRelease(lock);
            return false;
        }
        slot->key = key;
        memset(slot->ranges.vm, 0, sizeof slot->ranges.vm);
        memset(slot->ranges.rows, 0, sizeof slot->ranges.rows);
    }
    for (uint32 b = 0; b < kRangeBlocks; b++) {
        if (in.vm[b] == InvalidXLogRecPtr)
            continue;
        slot->ranges.vm[b] = in.vm[b];
        slot->ranges.lo[b] = in.lo[b];
        slot->ranges.hi[b] = in.hi[b];
        slot->ranges.rows[b] = in.rows[b];
    }
    slot->head = head_of(slot->ranges);
    pg_atomic_write_u32(&slot->used, now);
    LWLockRelease(lock);
    return true;
}

} // namespace gpu_histogram
