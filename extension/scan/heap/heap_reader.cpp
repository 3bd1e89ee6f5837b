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
 * work: no slot, no projection, no transition call per row.
 */
#include "heap_reader.h"

extern "C" {
#include "access/heapam.h"
#include "access/visibilitymap.h"
#include "access/syncscan.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "pgstat.h"
#include "storage/predicate.h"
#include "utils/rel.h"
}
#include "../../pg_compat.h"

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
    r->hints = shared_hints != NULL ? *shared_hints : buffer_hints_local(rel, r->nblocks);
    r->queue_head = 0;
    r->queued = 0;
    /* with no hints there is nothing to ask for ahead */
    r->lookahead = r->hints.buffers != NULL ? lengthof(r->queue) : 1;
    r->blocks_done = false;
    r->buffer = InvalidBuffer;
    r->read_ahead = false;
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

/*
 * Asks for every cache line of the page's tuples at once, before the
 * first is read.  Read in order they would arrive one or two at a time:
 * pages lie scattered over the buffer pool, and the hardware prefetcher
 * starts again at each one (and at each 4 KB within it).  Asked for
 * together they come in parallel.  Only for pages the host itself parses:
 * a page on its way to the GPU is never read here.
 */
static inline void prefetch_tuples(Page page)
{
    const PageHeader header = reinterpret_cast<PageHeader>(page);
    for (uint32 off = header->pd_upper & ~63u; off < header->pd_special; off += 64)
        __builtin_prefetch(page + off);
}

void heap_reader_keep_blocks(HeapReader *r, const uint8 *keep, BlockNumber nblocks)
{
    r->keep = keep;
    r->keep_nblocks = nblocks;
}

/* The serial scan's next block, from the synchronized-scan start, wrapping (no division: a probe costs a few ns). */
static inline BlockNumber serial_block(const HeapReader *r)
{
    uint64 block = static_cast<uint64>(r->start) + r->next_serial;
    return static_cast<BlockNumber>(block >= r->nblocks ? block - r->nblocks : block);
}

static BlockNumber next_allocated_block(HeapReader *r)
{
    if (r->pscan != NULL) {
        if (!r->pstarted) {
            table_block_parallelscan_startblock_init(r->rel, &r->pwork, r->pscan);
            r->pstarted = true;
        }
        return table_block_parallelscan_nextpage(r->rel, &r->pwork, r->pscan);
    }
    if (r->next_serial >= r->nblocks)
        return InvalidBlockNumber;
    BlockNumber block = serial_block(r);
    r->next_serial++;
    if (r->syncscan)
        ss_report_location(r->rel, block);
    return block;
}

/* The next block to read: allocated blocks the caller's bitmap leaves out are passed over. */
static BlockNumber next_block(HeapReader *r)
{
    for (;;) {
        BlockNumber block = next_allocated_block(r);
        if (block == InvalidBlockNumber || r->keep == NULL || block >= r->keep_nblocks ||
            ((r->keep[block / 8] >> (block % 8)) & 1))
            return block;
        r->counters.pages_skipped++;
    }
}

/*
 * The visibility map's layout (visibilitymap.c keeps it private): after
 * the page header, two bits a heap block, the all-visible one first.
 */
constexpr Size kMapBytes = BLCKSZ - MAXALIGN(SizeOfPageHeaderData);
constexpr BlockNumber kMapBlocksPerPage = kMapBytes * (BITS_PER_BYTE / BITS_PER_HEAPBLOCK);

/*
 * Copies the map page that covers heap blocks from page * kMapBlocksPerPage
 * on, its bits and its LSN together, under its share lock: setting or
 * clearing a bit takes the exclusive lock, and a set gives the page its
 * new LSN under it.  The map is read, never extended: without the page,
 * no block of its range counts as all-visible.
 */
static void copy_map_page(HeapReader *r, BlockNumber page)
{
    r->map_page = page;
    r->map_lsn = InvalidXLogRecPtr;
    (void)visibilitymap_get_status(r->rel, page * kMapBlocksPerPage, &r->map_buffer);
    if (!BufferIsValid(r->map_buffer))
        return;
    LockBuffer(r->map_buffer, BUFFER_LOCK_SHARE);
    Page map = BufferGetPage(r->map_buffer);
    r->map_lsn = PageGetLSN(map);
    memcpy(r->map_bits, PageGetContents(map), kMapBytes);
    LockBuffer(r->map_buffer, BUFFER_LOCK_UNLOCK);
}

/* Whether block `at` of the copied map page is all-visible. */
static inline bool map_bit(const HeapReader *r, uint32 at)
{
    return (r->map_bits[at / 4] >> (BITS_PER_HEAPBLOCK * (at % 4))) & VISIBILITYMAP_ALL_VISIBLE;
}

/* The map LSN block's all-visible bit is set under, 0 if it is not set (or the map is not watched). */
static XLogRecPtr map_vm(HeapReader *r, BlockNumber block)
{
    if (!r->watch_map)
        return InvalidXLogRecPtr;
    if (block / kMapBlocksPerPage != r->map_page)
        copy_map_page(r, block / kMapBlocksPerPage);
    return map_bit(r, block % kMapBlocksPerPage) ? r->map_lsn : InvalidXLogRecPtr;
}

/*
 * The scan's next block, and its map LSN: one given back first
 * (*given_back), else the next allocated.  Blocks are claimed `lookahead`
 * ahead of their pinning, so that the hinted buffer's descriptor and
 * header have arrived by then: a parallel scan's chunks hand out
 * consecutive blocks, and claiming a few early changes only when this
 * process asks.  The map LSN is read now, before the page is locked.
 */
static bool take_block(HeapReader *r, BlockNumber *block, XLogRecPtr *vm, bool *given_back)
{
    if (r->reread_head < r->nreread) {
        *block = r->reread[r->reread_head];
        *vm = r->reread_vm[r->reread_head++];
        if (r->reread_head == r->nreread)
            r->reread_head = r->nreread = 0;
        *given_back = true;
        return true;
    }
    *given_back = false;
    int size = lengthof(r->queue);
    while (r->queued < r->lookahead && !r->blocks_done) {
        BlockNumber next = next_block(r);
        if (next == InvalidBlockNumber) {
            r->blocks_done = true;
            break;
        }
        int at = (r->queue_head + r->queued) % size;
        r->queue[at] = next;
        r->queue_vm[at] = map_vm(r, next);
        r->queued++;
        /* a probe's buffer is never looked at */
        if (!r->probing || r->queue_vm[at] == InvalidXLogRecPtr)
            buffer_hints_prefetch(r->hints, next);
    }
    if (r->queued == 0)
        return false;
    *block = r->queue[r->queue_head];
    *vm = r->queue_vm[r->queue_head];
    r->queue_head = (r->queue_head + 1) % size;
    r->queued--;
    return true;
}

/*
 * How often a run of probes reports its place to synchronized scans: a
 * report takes SyncScanLock, every 16 blocks as heapam reports them, which
 * was 7% of the host's time a probe.  Scans that join a moment later start
 * at most this many blocks back.
 */
constexpr BlockNumber kProbeReportEvery = 1024;

/*
 * A serial scan's run of probes, by arithmetic on the copied map page:
 * from its next block on, while the bits are set, up to `most` blocks,
 * the map page's end and the table's end (a run never wraps).  Without
 * the queue that asks for buffers ahead, whose way took most of the
 * host's time a probe: a probe's buffer is never looked at.  32 blocks
 * whose bits are all set are passed over in one load: a run then costs
 * the host well under a ns a block.  With `follow`, only blocks that
 * continue the run *first .. *first + follow - 1 under *vm are taken.
 */
static uint32 serial_probe_run(HeapReader *r, uint32 most, uint32 follow, BlockNumber *first, XLogRecPtr *vm)
{
    if (r->next_serial >= r->nblocks)
        return 0;
    BlockNumber block = serial_block(r);
    XLogRecPtr block_vm = map_vm(r, block);
    if (block_vm == InvalidXLogRecPtr || (follow > 0 && (block != *first + follow || block_vm != *vm)))
        return 0;
    uint32 begin = block % kMapBlocksPerPage;
    uint64 limit = Min(static_cast<uint64>(most), static_cast<uint64>(r->nblocks - r->next_serial));
    limit = Min(limit, static_cast<uint64>(r->nblocks - block));
    limit = Min(limit, static_cast<uint64>(kMapBlocksPerPage - begin));
    const uint32 end = begin + static_cast<uint32>(limit);
    constexpr uint64 kAllVisible = 0x5555555555555555ull; /* the all-visible bit of each of 32 blocks */
    uint32 at = begin + 1;
    while (at < end) {
        if (at % 32 == 0 && at + 32 <= end) {
            uint64 word;
            memcpy(&word, r->map_bits + at / 4, sizeof word);
            if ((word & kAllVisible) == kAllVisible) {
                at += 32;
                continue;
            }
        }
        if (!map_bit(r, at))
            break;
        at++;
    }
    uint32 n = at - begin;
    r->next_serial += n;
    BlockNumber last = block + n - 1;
    if (r->syncscan && (last / kProbeReportEvery != block / kProbeReportEvery || block % kProbeReportEvery == 0))
        ss_report_location(r->rel, last - last % kProbeReportEvery);
    if (follow == 0) {
        *first = block;
        *vm = block_vm;
    }
    return n;
}

/* Whether the queue's head is a probe, claiming blocks into the queue if it is empty. */
static bool queued_probe(HeapReader *r)
{
    if (r->queued == 0) {
        BlockNumber next;
        XLogRecPtr next_vm;
        bool given_back;
        if (!take_block(r, &next, &next_vm, &given_back))
            return false;
        /* back to the queue's head, where take_block() found it */
        int size = lengthof(r->queue);
        r->queue_head = (r->queue_head + size - 1) % size;
        r->queue[r->queue_head] = next;
        r->queue_vm[r->queue_head] = next_vm;
        r->queued++;
    }
    return r->queue_vm[r->queue_head] != InvalidXLogRecPtr;
}

uint32 heap_reader_next_probe_run(HeapReader *r, uint32 most, BlockNumber *first, XLogRecPtr *vm)
{
    /* given-back blocks are read pinned, and a block that is no probe stays first in the queue */
    if (!r->probing || most == 0 || BufferIsValid(r->ahead) || heap_reader_has_rereads(r))
        return 0;
    /*
     * Blocks already claimed into the queue first, in order; then a serial
     * scan goes on by arithmetic, and any other (a parallel scan's chunks,
     * a bitmap's blocks) through the queue, a block at a time, while they
     * follow on.  (Claiming refills the queue: a serial scan that took
     * that way never left it, and it cost 6 ns a block on the H200 host,
     * 3.8 of a serial scan's 8.6 ms over 100M rows.)
     */
    const bool serial = r->pscan == NULL && r->keep == NULL;
    uint32 n = 0;
    while (n < most && (r->queued > 0 || !serial) && queued_probe(r)) {
        BlockNumber block = r->queue[r->queue_head];
        XLogRecPtr block_vm = r->queue_vm[r->queue_head];
        if (n == 0) {
            *first = block;
            *vm = block_vm;
        } else if (block != *first + n || block_vm != *vm) {
            break;
        }
        r->queue_head = (r->queue_head + 1) % lengthof(r->queue);
        r->queued--;
        n++;
    }
    if (serial && r->queued == 0 && n < most)
        n += serial_probe_run(r, most - n, n, first, vm);
    r->counters.pages += n;
    r->counters.all_visible_pages += n;
    return n;
}

/* Pins the scan's next page (*vm its map LSN); InvalidBuffer at its end. */
static Buffer pin_next(HeapReader *r, XLogRecPtr *vm)
{
    BlockNumber block;
    bool given_back;
    if (!take_block(r, &block, vm, &given_back))
        return InvalidBuffer;
    return buffer_hints_read(r->hints, r->rel, block, r->strategy);
}

void heap_reader_read_ahead(HeapReader *r)
{
    /* a page pinned ahead could not be a probe */
    r->read_ahead = !r->probing;
}

void heap_reader_watch_map(HeapReader *r, bool probing, MemoryContext cxt)
{
    if (r->map_bits == NULL)
        r->map_bits = static_cast<uint8 *>(MemoryContextAlloc(cxt, kMapBytes));
    r->watch_map = true;
    r->probing = probing;
    if (probing) {
        r->read_ahead = false;
        if (r->reread == NULL) {
            r->reread_size = 1024;
            r->reread = static_cast<BlockNumber *>(MemoryContextAlloc(cxt, sizeof(BlockNumber) * r->reread_size));
            r->reread_vm = static_cast<XLogRecPtr *>(MemoryContextAlloc(cxt, sizeof(XLogRecPtr) * r->reread_size));
        }
    }
}

void heap_reader_reread(HeapReader *r, BlockNumber block, XLogRecPtr vm)
{
    if (r->nreread == r->reread_size) {
        r->reread_size *= 2;
        r->reread = static_cast<BlockNumber *>(repalloc(r->reread, sizeof(BlockNumber) * r->reread_size));
        r->reread_vm = static_cast<XLogRecPtr *>(repalloc(r->reread_vm, sizeof(XLogRecPtr) * r->reread_size));
    }
    r->reread[r->nreread] = block;
    r->reread_vm[r->nreread++] = vm;
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
    prefetch_tuples(page);
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
    if (BufferIsValid(r->ahead)) {
        buffer = r->ahead;
        vm = r->ahead_vm;
        r->ahead = InvalidBuffer;
    } else {
        BlockNumber block;
        if (!take_block(r, &block, &vm, &given_back))
            return false;
        if (r->probing && vm != InvalidXLogRecPtr && !given_back) {
            r->probe = true;
            r->probe_block = block;
            r->page_vm = vm;
            r->counters.pages++;
            r->counters.all_visible_pages++;
            return true;
        }
        buffer = buffer_hints_read(r->hints, r->rel, block, r->strategy);
    }
    r->page_vm = vm;
    if (r->read_ahead) {
        r->ahead = pin_next(r, &r->ahead_vm);
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
    if (!r->whole_page)
        return;
    r->ntuples = heap_page_tuples(r->rel, r->buffer, PageGetMaxOffsetNumber(r->page), r->tuples);
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

/* nocachegetattr()'s walk for a tuple without NULLs, without its general cases. */
const char *heap_column_walk(const HeapColumn &col, const char *tp)
{
    uint32 off = 0;
    for (int i = 0; i < col.nprefix; i++) {
        const AttrLayout &a = col.prefix[i];
        if (a.len > 0) {
            off = att_align_nominal(off, a.align) + a.len;
        } else if (a.len == -1) {
            off = att_align_pointer(off, a.align, -1, tp + off);
            off += VARSIZE_ANY(tp + off);
        } else {
            off = att_align_nominal(off, a.align);
            off += strlen(tp + off) + 1;
        }
    }
    return tp + att_align_nominal(off, col.align);
}

HeapColumn heap_column(TupleDesc desc, AttrNumber attno, Oid type)
{
    Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
    HeapColumn col{attno, type, att->attlen, att->attalign, -1, attno - 1, NULL};
    AttrLayout *prefix = static_cast<AttrLayout *>(palloc(sizeof(AttrLayout) * attno));
    bool fixed = true;
    int32 off = 0;
    for (int i = 0; i < attno - 1; i++) {
        /* dropped columns keep their length and alignment, so they count too */
        Form_pg_attribute a = TupleDescAttr(desc, i);
        prefix[i] = AttrLayout{a->attlen, a->attalign};
        fixed = fixed && a->attlen > 0;
        if (fixed)
            off = att_align_nominal(off, a->attalign) + a->attlen;
    }
    col.prefix = prefix;
    if (fixed)
        col.fixed_offset = att_align_nominal(off, col.align);
    return col;
}

namespace {

template <typename T> inline double stored_value(const char *p)
{
    T v;
    memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
}

template <typename T> inline double datum_value(Datum d);
template <> inline double datum_value<double>(Datum d) { return DatumGetFloat8(d); }
template <> inline double datum_value<float>(Datum d) { return DatumGetFloat4(d); }
template <> inline double datum_value<int16>(Datum d) { return DatumGetInt16(d); }
template <> inline double datum_value<int32>(Datum d) { return DatumGetInt32(d); }
template <> inline double datum_value<int64>(Datum d) { return static_cast<double>(DatumGetInt64(d)); }

/*
 * The column's value in tuple t as float8, false if it is NULL:
 * heap_column_data() where it can, heap_getattr() for the rest.
 */
template <typename T>
inline bool tuple_value(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, double *value)
{
    const char *data = heap_column_data(col, t->t_data);
    if (likely(data != NULL)) {
        *value = stored_value<T>(data);
        return true;
    }
    bool isnull;
    Datum d = heap_getattr(const_cast<HeapTupleData *>(t), col.attno, desc, &isnull);
    if (!isnull)
        *value = datum_value<T>(d);
    return !isnull;
}

template <typename T>
int column_values(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += tuple_value<T>(col, desc, &tuples[i], &out[k]);
    return k;
}

template <typename T>
int column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out,
                       bool *isnull)
{
    for (int i = 0; i < n; i++)
        isnull[i] = !tuple_value<T>(col, desc, &tuples[i], &out[i]);
    return n;
}

/*
 * heap_column_values() over every normal tuple of an all-visible page, in
 * one pass.  It walks the line pointers from the last to the first, so that
 * the tuples, which fill the page from its end, are read at rising
 * addresses (a quarter faster on the dev VM), and stores each value from the
 * end of buf downwards, so that they still come out in the page's order:
 * the first value of a scan is the one whose row the aggregate checks first.
 */
template <typename T>
int page_column_values(const HeapColumn &col, TupleDesc desc, Page page, OffsetNumber lines, double *buf,
                       int *ntuples)
{
    double *out = buf + MaxHeapTuplesPerPage;
    int n = 0;
    prefetch_tuples(page);
    for (OffsetNumber off = lines; off >= FirstOffsetNumber; off--) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        n++;
        HeapTupleData t;
        t.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t.t_len = ItemIdGetLength(item);
        double v;
        if (tuple_value<T>(col, desc, &t, &v))
            *--out = v;
    }
    *ntuples = n;
    return static_cast<int>(buf + MaxHeapTuplesPerPage - out);
}

/* Calls fn with a value of the C type the column's SQL type stores. */
template <typename Fn> int by_column_type(Oid type, Fn &&fn)
{
    switch (type) {
    case FLOAT8OID: return fn(double{});
    case FLOAT4OID: return fn(float{});
    case INT2OID: return fn(int16{});
    case INT4OID: return fn(int32{});
    case INT8OID: return fn(int64{});
    }
    elog(ERROR, "gpu_histogram scan: unexpected column type %u", type);
    return 0;
}

} // namespace

int heap_page_column_values(const HeapColumn &col, TupleDesc desc, Page page, OffsetNumber lines, double *buf,
                            int *ntuples)
{
    return by_column_type(col.type, [&](auto v) {
        return page_column_values<decltype(v)>(col, desc, page, lines, buf, ntuples);
    });
}

int heap_column_values(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out)
{
    return by_column_type(col.type, [&](auto v) { return column_values<decltype(v)>(col, desc, tuples, n, out); });
}

void heap_column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n,
                             double *out, bool *isnull)
{
    by_column_type(col.type, [&](auto v) { return column_values_each<decltype(v)>(col, desc, tuples, n, out, isnull); });
}
