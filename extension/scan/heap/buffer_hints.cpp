/*
 * buffer_hints.cpp: the backend's memory of where its tables' blocks sat
 * in shared buffers, and pinning through it (buffer_hints.h says why).
 *
 * ReadRecentBuffer() pins a buffer only after checking, under the buffer
 * header lock, that it holds the block and is valid, so a hint can be
 * stale but never wrong.  What it does not do is count the read in the
 * table's statistics and raise the buffer's usage count, as ReadBuffer's
 * hit does; buffer_hints_read() does both, so that pages the scan reads
 * this way age in the clock sweep exactly as pages a sequential scan reads.
 */
#include "buffer_hints.h"

extern "C" {
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "storage/proc.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

namespace {

/* One table's hints, in TopMemoryContext's child hints_cxt. */
struct TableHints {
    GhRelFile node;
    Buffer *buffers;         /* NULL: the slot is free */
    BlockNumber capacity;
    LocalTransactionId lxid; /* handed out in this transaction: not freed or moved */
    uint64 used;             /* for least recently used eviction */
};

constexpr int kTables = 8;
TableHints tables[kTables];
uint64 uses;
Size blocks_held;
MemoryContext hints_cxt;

/* In the DSM of a parallel scan. */
struct SharedHints {
    BlockNumber nblocks;
};
constexpr Size kSharedHeader = MAXALIGN(sizeof(SharedHints));

/*
 * A backend holds hints for at most twice shared_buffers' blocks (8 bytes
 * per 8 KB buffer: a 1/1024th of shared_buffers), and none for a table
 * bigger than shared_buffers, whose pages cannot all stay there anyway.
 */
Size blocks_bound()
{
    return 2 * static_cast<Size>(NBuffers);
}

bool hintable(Relation rel, BlockNumber nblocks)
{
    return !RelationUsesLocalBuffers(rel) && nblocks > 0 && nblocks <= static_cast<BlockNumber>(NBuffers);
}

/* A table's array holds an eighth more blocks than it has, so that a growing table is not copied at every scan. */
BlockNumber with_room(BlockNumber nblocks)
{
    return Min(nblocks + nblocks / 8, static_cast<BlockNumber>(NBuffers));
}

void free_slot(TableHints *t)
{
    pfree(t->buffers);
    blocks_held -= t->capacity;
    *t = TableHints{};
}

/* Frees least recently used tables not in use by this transaction until `need` more blocks fit. */
bool make_room(Size need)
{
    while (blocks_held + need > blocks_bound()) {
        TableHints *victim = NULL;
        for (TableHints &t : tables)
            if (t.buffers != NULL && t.lxid != GH_MY_LXID() && (victim == NULL || t.used < victim->used))
                victim = &t;
        if (victim == NULL)
            return false;
        free_slot(victim);
    }
    return true;
}

Buffer *allocate(BlockNumber nblocks)
{
    if (hints_cxt == NULL)
        hints_cxt = AllocSetContextCreate(TopMemoryContext, "gpu_histogram buffer hints", ALLOCSET_SMALL_SIZES);
    /* InvalidBuffer is 0: zeroed memory knows no buffer */
    return static_cast<Buffer *>(MemoryContextAllocExtended(hints_cxt, sizeof(Buffer) * static_cast<Size>(nblocks),
                                                            MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM | MCXT_ALLOC_ZERO));
}

/* What ReadBuffer's hit does to the usage count (PinBuffer in bufmgr.c): a bulk read raises it only from 0. */
void touch_usage(Buffer buffer, BufferAccessStrategy strategy)
{
    BufferDesc *desc = GetBufferDescriptor(buffer - 1);
    uint32 limit = strategy != NULL ? 1 : BM_MAX_USAGE_COUNT;
    uint32 old = pg_atomic_read_u32(&desc->state);
    /* the compare-and-swap fails if the header is locked meanwhile; a locked header is skipped, not waited for */
    while (!(old & BM_LOCKED) && BUF_STATE_GET_USAGECOUNT(old) < limit) {
        if (pg_atomic_compare_exchange_u32(&desc->state, &old, old + BUF_USAGECOUNT_ONE))
            break;
    }
}

} // namespace

BufferHints buffer_hints_local(Relation rel, BlockNumber nblocks)
{
    if (!hintable(rel, nblocks))
        return BufferHints{NULL, 0};
    TableHints *found = NULL, *slot = NULL;
    for (TableHints &t : tables) {
        if (t.buffers != NULL && GH_REL_FILE_EQUALS(t.node, GH_REL_FILE(rel)))
            found = &t;
        else if (t.buffers == NULL && slot == NULL)
            slot = &t;
    }
    if (found != NULL && found->capacity < nblocks && found->lxid != GH_MY_LXID()) {
        /* the table grew: a bigger array that keeps what is known (marked in use, so that make_room spares it) */
        found->lxid = GH_MY_LXID();
        BlockNumber capacity = with_room(nblocks);
        Buffer *bigger = make_room(capacity - found->capacity) ? allocate(capacity) : NULL;
        if (bigger != NULL) {
            memcpy(bigger, found->buffers, sizeof(Buffer) * static_cast<Size>(found->capacity));
            pfree(found->buffers);
            blocks_held += capacity - found->capacity;
            found->buffers = bigger;
            found->capacity = capacity;
        }
    }
    if (found == NULL) {
        if (slot == NULL) {
            /* every slot is taken: the least recently used table not in use goes */
            for (TableHints &t : tables)
                if (t.lxid != GH_MY_LXID() && (slot == NULL || t.used < slot->used))
                    slot = &t;
            if (slot == NULL)
                return BufferHints{NULL, 0};
            free_slot(slot);
        }
        BlockNumber capacity = with_room(nblocks);
        if (!make_room(capacity))
            return BufferHints{NULL, 0};
        Buffer *buffers = allocate(capacity);
        if (buffers == NULL)
            return BufferHints{NULL, 0};
        *slot = TableHints{GH_REL_FILE(rel), buffers, capacity, InvalidLocalTransactionId, 0};
        blocks_held += capacity;
        found = slot;
    }
    found->lxid = GH_MY_LXID();
    found->used = ++uses;
    return BufferHints{found->buffers, Min(nblocks, found->capacity)};
}

Size buffer_hints_shared_size(Relation rel, BlockNumber nblocks)
{
    return kSharedHeader + (hintable(rel, nblocks) ? sizeof(Buffer) * static_cast<Size>(nblocks) : 0);
}

BufferHints buffer_hints_share(Relation rel, BlockNumber nblocks, void *space)
{
    SharedHints *shared = static_cast<SharedHints *>(space);
    shared->nblocks = hintable(rel, nblocks) ? nblocks : 0;
    BufferHints hints = buffer_hints_attach(space);
    if (hints.nblocks == 0)
        return hints;
    BufferHints mine = buffer_hints_local(rel, nblocks);
    BlockNumber known = mine.buffers != NULL ? mine.nblocks : 0;
    if (known > 0)
        memcpy(hints.buffers, mine.buffers, sizeof(Buffer) * static_cast<Size>(known));
    memset(hints.buffers + known, 0, sizeof(Buffer) * static_cast<Size>(nblocks - known));
    return hints;
}

BufferHints buffer_hints_attach(void *space)
{
    SharedHints *shared = static_cast<SharedHints *>(space);
    if (shared->nblocks == 0)
        return BufferHints{NULL, 0};
    return BufferHints{reinterpret_cast<Buffer *>(static_cast<char *>(space) + kSharedHeader), shared->nblocks};
}

void buffer_hints_keep(Relation rel, const BufferHints &shared)
{
    if (shared.buffers == NULL)
        return;
    BufferHints mine = buffer_hints_local(rel, shared.nblocks);
    if (mine.buffers != NULL)
        memcpy(mine.buffers, shared.buffers, sizeof(Buffer) * static_cast<Size>(Min(mine.nblocks, shared.nblocks)));
}

Buffer buffer_hints_read(const BufferHints &hints, Relation rel, BlockNumber block, BufferAccessStrategy strategy)
{
    if (hints.buffers == NULL || block >= hints.nblocks)
        return ReadBufferExtended(rel, MAIN_FORKNUM, block, RBM_NORMAL, strategy);
    Buffer hint = hints.buffers[block];
    /* the range check matters: a parallel scan's hints are in shared memory */
    if (hint > 0 && hint <= NBuffers && ReadRecentBuffer(GH_REL_FILE(rel), MAIN_FORKNUM, block, hint)) {
        pgstat_count_buffer_read(rel);
        pgstat_count_buffer_hit(rel);
        touch_usage(hint, strategy);
        return hint;
    }
    Buffer buffer = ReadBufferExtended(rel, MAIN_FORKNUM, block, RBM_NORMAL, strategy);
    hints.buffers[block] = buffer;
    return buffer;
}

void buffer_hints_prefetch(const BufferHints &hints, BlockNumber block)
{
    if (hints.buffers == NULL || block >= hints.nblocks)
        return;
    Buffer hint = hints.buffers[block];
    if (hint <= 0 || hint > NBuffers)
        return;
    /* the descriptor is written (header lock, pin, content lock); the page header only read */
    __builtin_prefetch(GetBufferDescriptor(hint - 1), 1);
    __builtin_prefetch(BufferGetPage(hint), 0);
}

} // namespace gpu_histogram
