/*
 * heap_reader.cpp: page-at-a-time heap access for GpuHistogramScan.
 *
 * This follows heapam's page mode (heapgetpage() and initscan() in
 * access/heap/heapam.c) step for step, so that the scan sees exactly the
 * rows a sequential scan would: the same opportunistic pruning, visibility
 * decided under the share lock (skipped on all-visible pages unless the
 * snapshot was taken during recovery), SERIALIZABLE conflict checks, the
 * bulk-read strategy and synchronized scans for large tables, and the
 * table-level predicate lock.  What it leaves out is the executor's per-row
 * work: no slot, no projection, no transition call per row.  Which block
 * comes next is heap_blocks.cpp's; a tuple's columns are heap_columns.cpp's.
 */
#include "heap_reader.h"
#include "heap_blocks.h"

extern "C" {
#include "access/heapam.h"
#include "access/syncscan.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "pgstat.h"
#include "storage/predicate.h"
#include "utils/rel.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

void heap_reader_begin(HeapReader *r, Relation rel, Snapshot snapshot, ParallelBlockTableScanDesc pscan,
                       const BufferHints *shared_hints, bool list_all_visible)
{
    r->list_all_visible = list_all_visible;
    r->rel = rel;
    r->snapshot = snapshot;
    r->check_serializable = IsolationIsSerializable();
    r->pscan = pscan;
    r->pstarted = false;
    r->nblocks = pscan != NULL ? pscan->phs_nblocks : RelationGetNumberOfBlocks(rel);
    /* heapam's initscan(): only tables bigger than a quarter of shared buffers */
    bool large = !RelationUsesLocalBuffers(rel) && r->nblocks > static_cast<BlockNumber>(NBuffers / 4);
    r->strategy = large ? GetAccessStrategy(BAS_BULKREAD) : NULL;
    /* a parallel scan synchronizes through its shared descriptor */
    r->syncscan = pscan == NULL && large && synchronize_seqscans;
    r->start = r->syncscan ? ss_get_location(rel, r->nblocks) : 0;
    r->next_serial = 0;
    r->keep = NULL;
    r->keep_nblocks = 0;
    r->check = NULL;
    r->check_span = NULL;
    r->check_blocks = 0;
    r->unchecked_end = 0;
    r->check_arg = NULL;
    r->page_pin = false;
    r->hints = shared_hints != NULL ? *shared_hints : buffer_hints_local(rel, r->nblocks);
    r->queue_head = 0;
    r->queued = 0;
    /* with no hints there is nothing to ask for ahead */
    r->lookahead = r->hints.buffers != NULL ? lengthof(r->queue) : 1;
    r->blocks_done = false;
    r->buffer = InvalidBuffer;
    r->read_ahead = false;
    r->prefetch_lines = 0;
    r->prefetch_next = false;
    r->ahead = InvalidBuffer;
    r->locked = false;
    r->ntuples = 0;
    r->watch_map = false;
    r->probing = false;
    r->map_buffer = InvalidBuffer;
    r->map_page = InvalidBlockNumber;
    r->map_lsn = InvalidXLogRecPtr;
    r->map_bits = NULL;
    r->page_vm = InvalidXLogRecPtr;
    r->ahead_vm = InvalidXLogRecPtr;
    r->probe = false;
    r->probe_block = InvalidBlockNumber;
    r->reread = NULL;
    r->reread_vm = NULL;
    r->reread_head = 0;
    r->nreread = 0;
    r->reread_size = 0;
    r->counters = HeapReadCounters{};
    PredicateLockRelation(rel, snapshot);
    pgstat_count_heap_scan(rel);
}

/* Pins the scan's next page (*vm its map LSN); InvalidBuffer at its end. */
static Buffer pin_next(HeapReader *r, XLogRecPtr *vm, bool *pin)
{
    BlockNumber block;
    bool given_back;
    if (!heap_blocks_take(r, &block, vm, &given_back, pin))
        return InvalidBuffer;
    return buffer_hints_read(r->hints, r->rel, block, r->strategy);
}

void heap_reader_read_ahead(HeapReader *r)
{
    /* a page pinned ahead could not be a probe */
    r->read_ahead = !r->probing;
}

/*
 * Share-locks the pinned page and lists its tuples the snapshot sees;
 * count_page: count it as a page read (not for a probe's, already counted).
 */
static void read_page(HeapReader *r, Buffer buffer, bool count_page)
{
    r->buffer = buffer;
    Relation rel = r->rel;
    BlockNumber block = BufferGetBlockNumber(buffer);
    heap_page_prune_opt(rel, r->buffer);
    LockBuffer(r->buffer, BUFFER_LOCK_SHARE);
    r->locked = true;

    Page page = BufferGetPage(r->buffer);
    r->page = page;
    GH_TEST_FOR_OLD_SNAPSHOT(r->snapshot, rel, page);
    bool all_visible = PageIsAllVisible(page) && !r->snapshot->takenDuringRecovery;
    if (count_page) {
        r->counters.pages++;
        r->counters.all_visible_pages += all_visible;
    }
    /* SERIALIZABLE checks every tuple, as heapgetpage() does, even here */
    r->whole_page = all_visible && !r->list_all_visible && !r->check_serializable;
    if (r->whole_page) {
        r->ntuples = 0;
        return;
    }
    OffsetNumber lines = PageGetMaxOffsetNumber(page);
    /* a page not all-visible has each tuple's header read below, in the order of its lines */
    if (all_visible && r->prefetch_lines > 0)
        heap_page_prefetch_start(page, r->prefetch_lines);
    else
        heap_page_prefetch(page);
    int n = 0;
    for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        HeapTupleData *t = &r->tuples[n];
        t->t_tableOid = RelationGetRelid(rel);
        t->t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t->t_len = ItemIdGetLength(item);
        ItemPointerSet(&t->t_self, block, off);
        bool visible = all_visible || HeapTupleSatisfiesVisibility(t, r->snapshot, r->buffer);
        if (r->check_serializable)
            HeapCheckForSerializableConflictOut(visible, rel, t, r->buffer, r->snapshot);
        if (visible)
            n++;
    }
    r->ntuples = n;
    heap_reader_count_tuples(r, n);
}

bool heap_reader_next_page(HeapReader *r)
{
    heap_reader_release(r);
    r->probe = false;
    /* a page at a time, never under a lock: a cancel is served within a page */
    CHECK_FOR_INTERRUPTS();
    Buffer buffer;
    XLogRecPtr vm;
    bool given_back = false;
    bool pin = false;
    if (BufferIsValid(r->ahead)) {
        buffer = r->ahead;
        vm = r->ahead_vm;
        pin = r->ahead_pin;
        r->ahead = InvalidBuffer;
    } else {
        BlockNumber block;
        if (!heap_blocks_take(r, &block, &vm, &given_back, &pin))
            return false;
        if (r->probing && vm != InvalidXLogRecPtr && !given_back && !pin) {
            r->probe = true;
            r->probe_block = block;
            r->page_vm = vm;
            r->page_pin = false;
            r->counters.pages++;
            r->counters.all_visible_pages++;
            return true;
        }
        buffer = buffer_hints_read(r->hints, r->rel, block, r->strategy);
    }
    r->page_vm = vm;
    r->page_pin = pin;
    if (r->read_ahead) {
        r->ahead = pin_next(r, &r->ahead_vm, &r->ahead_pin);
        /* the whole page, its header unread: pd_upper would cost the miss this hides */
        if (BufferIsValid(r->ahead) && r->prefetch_next) {
            const char *next = BufferGetPage(r->ahead);
            for (int off = 0; off < BLCKSZ; off += 64)
                __builtin_prefetch(next + off);
        }
    }
    read_page(r, buffer, !given_back);
    return true;
}

void heap_reader_read_probe(HeapReader *r)
{
    Assert(r->probe);
    r->probe = false;
    read_page(r, buffer_hints_read(r->hints, r->rel, r->probe_block, r->strategy), false);
}

int heap_page_tuples(Relation rel, Buffer buffer, OffsetNumber lines, HeapTupleData *out)
{
    Page page = BufferGetPage(buffer);
    BlockNumber block = BufferGetBlockNumber(buffer);
    int n = 0;
    for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        HeapTupleData *t = &out[n++];
        t->t_tableOid = RelationGetRelid(rel);
        t->t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t->t_len = ItemIdGetLength(item);
        ItemPointerSet(&t->t_self, block, off);
    }
    return n;
}

void heap_reader_list_page(HeapReader *r)
{
    if (r->whole_page)
        heap_reader_list_lines(r, PageGetMaxOffsetNumber(r->page));
}

void heap_reader_list_lines(HeapReader *r, OffsetNumber lines)
{
    Assert(r->whole_page);
    r->ntuples = heap_page_tuples(r->rel, r->buffer, lines, r->tuples);
    r->whole_page = false;
    heap_reader_count_tuples(r, r->ntuples);
}

bool heap_reader_page_shareable(const HeapReader *r)
{
    return r->whole_page && !BufferIsLocal(r->buffer) && !PageHasFreeLinePointers(r->page);
}

Buffer heap_reader_take_page(HeapReader *r, OffsetNumber *lines, XLogRecPtr *lsn)
{
    Assert(r->locked && r->whole_page);
    *lines = PageGetMaxOffsetNumber(r->page);
    /* as MarkBufferDirtyHint() may set it under a share lock, with checksums on */
    *lsn = BufferGetLSNAtomic(r->buffer);
    heap_reader_unlock(r);
    Buffer buffer = r->buffer;
    r->buffer = InvalidBuffer;
    r->whole_page = false;
    return buffer;
}

int heap_page_normal_tuples(Page page, OffsetNumber lines)
{
    int normal = 0;
    for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++)
        normal += ItemIdIsNormal(PageGetItemId(page, off));
    return normal;
}

void heap_reader_count_tuples(HeapReader *r, uint64 n)
{
    r->counters.tuples += n;
    if (pgstat_should_count_relation(r->rel))
        GH_PGSTAT_TUPLES_RETURNED(r->rel) += n;
}

void heap_reader_unlock(HeapReader *r)
{
    if (r->locked) {
        LockBuffer(r->buffer, BUFFER_LOCK_UNLOCK);
        r->locked = false;
    }
}

void heap_reader_release(HeapReader *r)
{
    heap_reader_unlock(r);
    if (BufferIsValid(r->buffer)) {
        ReleaseBuffer(r->buffer);
        r->buffer = InvalidBuffer;
    }
    r->ntuples = 0;
    r->whole_page = false;
}

void heap_reader_end(HeapReader *r)
{
    heap_reader_release(r);
    r->probe = false;
    if (BufferIsValid(r->map_buffer)) {
        ReleaseBuffer(r->map_buffer);
        r->map_buffer = InvalidBuffer;
    }
    if (BufferIsValid(r->ahead)) {
        ReleaseBuffer(r->ahead);
        r->ahead = InvalidBuffer;
    }
    if (r->strategy != NULL) {
        FreeAccessStrategy(r->strategy);
        r->strategy = NULL;
    }
}

} // namespace gpu_histogram
