/*
 * heap_blocks.cpp: which block the heap reader reads next (heap_blocks.h).
 *
 * The blocks come from the allocation heapam would make (a parallel scan's
 * shared chunks, or a serial scan from the synchronized-scan start), less
 * those a BRIN index leaves out and those the caller's block check rules
 * out by their map LSN (heap_reader_check_blocks: the page ranges, a span
 * at a time for a serial scan), plus blocks given back to be read pinned.
 * Where the GPUs' page cache or a block check is used, each block's
 * visibility map LSN is read here too, from a copy of the map page, and runs of all-visible
 * blocks are handed out as probes without touching their buffers.  This
 * is apart from heap_reader.cpp, which pins, locks and lists one page,
 * because none of it looks at a heap page.
 */
#include "heap_blocks.h"

extern "C" {
#include "access/syncscan.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
}

namespace gpu_histogram {

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

static void skip_spans(HeapReader *r);

static BlockNumber next_allocated_block(HeapReader *r)
{
    if (r->pscan != NULL) {
        if (!r->pstarted) {
            table_block_parallelscan_startblock_init(r->rel, &r->pwork, r->pscan);
            r->pstarted = true;
        }
        return table_block_parallelscan_nextpage(r->rel, &r->pwork, r->pscan);
    }
    if (r->check_span != NULL)
        skip_spans(r);
    if (r->next_serial >= r->nblocks)
        return InvalidBlockNumber;
    BlockNumber block = serial_block(r);
    r->next_serial++;
    if (r->syncscan)
        ss_report_location(r->rel, block);
    return block;
}

/*
 * How often a run of probes reports its place to synchronized scans: a
 * report takes SyncScanLock, every 16 blocks as heapam reports them, which
 * was 7% of the host's time a probe.  Scans that join a moment later start
 * at most this many blocks back.
 */
constexpr BlockNumber kProbeReportEvery = 1024;

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

/* Whether the all-visible bits of blocks at .. at + n - 1 of the copied map page are all set (at, n multiples of 32). */
static bool map_bits_all_set(const HeapReader *r, uint32 at, uint32 n)
{
    constexpr uint64 kAllVisible = 0x5555555555555555ull; /* the all-visible bit of each of 32 blocks */
    for (uint32 b = at; b < at + n; b += 32) {
        uint64 word;
        memcpy(&word, r->map_bits + b / 4, sizeof word);
        if ((word & kAllVisible) != kAllVisible)
            return false;
    }
    return true;
}

/*
 * A serial scan at the start of a span of the block check's: passes over
 * each span it rules out whose blocks are all-visible under its map LSN,
 * without a look at any block, reporting its place to synchronized scans
 * as a run of probes does; a span it reads whole, all-visible likewise,
 * is read without a check of each block.
 */
static void skip_spans(HeapReader *r)
{
    const uint32 span = r->check_blocks;
    while (r->watch_map && r->next_serial < r->nblocks && r->next_serial >= r->unchecked_end) {
        const BlockNumber block = serial_block(r);
        if (block % span != 0 || static_cast<uint64>(block) + span > r->nblocks ||
            static_cast<uint64>(r->next_serial) + span > r->nblocks ||
            block / kMapBlocksPerPage != (block + span - 1) / kMapBlocksPerPage)
            return;
        XLogRecPtr vm = InvalidXLogRecPtr;
        const SpanVerdict verdict = r->check_span(r->check_arg, block, &vm);
        if (verdict == SpanVerdict::each || vm == InvalidXLogRecPtr)
            return;
        if (block / kMapBlocksPerPage != r->map_page)
            copy_map_page(r, block / kMapBlocksPerPage);
        if (r->map_lsn != vm || !map_bits_all_set(r, block % kMapBlocksPerPage, span))
            return;
        if (verdict == SpanVerdict::read) {
            r->unchecked_end = static_cast<uint64>(r->next_serial) + span;
            return;
        }
        r->next_serial += span;
        r->counters.pages_ranged += span;
        const BlockNumber last = block + span - 1;
        if (r->syncscan && last / kProbeReportEvery != block / kProbeReportEvery)
            ss_report_location(r->rel, last - last % kProbeReportEvery);
    }
}

/*
 * The next block to read and its map LSN: allocated blocks the caller's
 * bitmap leaves out are passed over, and so are those its check says to
 * skip; *pin, its check's wish to see it pinned.
 */
static BlockNumber next_block(HeapReader *r, XLogRecPtr *vm, bool *pin)
{
    for (;;) {
        BlockNumber block = next_allocated_block(r);
        *vm = InvalidXLogRecPtr;
        *pin = false;
        if (block == InvalidBlockNumber)
            return block;
        if (r->keep != NULL && block < r->keep_nblocks && !((r->keep[block / 8] >> (block % 8)) & 1)) {
            r->counters.pages_skipped++;
            continue;
        }
        *vm = map_vm(r, block);
        /* a serial scan's block of a span read whole (next_serial counts it already) */
        if (r->check == NULL || (r->pscan == NULL && r->next_serial <= r->unchecked_end))
            return block;
        BlockVerdict verdict = r->check(r->check_arg, block, *vm);
        if (verdict == BlockVerdict::skip) {
            r->counters.pages_ranged++;
            continue;
        }
        *pin = verdict == BlockVerdict::pin;
        return block;
    }
}

/*
 * The scan's next block, and its map LSN: one given back first
 * (*given_back), else the next allocated.  Blocks are claimed `lookahead`
 * ahead of their pinning, so that the hinted buffer's descriptor and
 * header have arrived by then: a parallel scan's chunks hand out
 * consecutive blocks, and claiming a few early changes only when this
 * process asks.  The map LSN is read now, before the page is locked.
 */
bool heap_blocks_take(HeapReader *r, BlockNumber *block, XLogRecPtr *vm, bool *given_back, bool *pin)
{
    if (r->reread_head < r->nreread) {
        *block = r->reread[r->reread_head];
        *vm = r->reread_vm[r->reread_head++];
        *pin = false;
        if (r->reread_head == r->nreread)
            r->reread_head = r->nreread = 0;
        *given_back = true;
        return true;
    }
    *given_back = false;
    int size = lengthof(r->queue);
    while (r->queued < r->lookahead && !r->blocks_done) {
        XLogRecPtr next_vm;
        bool next_pin;
        BlockNumber next = next_block(r, &next_vm, &next_pin);
        if (next == InvalidBlockNumber) {
            r->blocks_done = true;
            break;
        }
        int at = (r->queue_head + r->queued) % size;
        r->queue[at] = next;
        r->queue_vm[at] = next_vm;
        r->queue_pin[at] = next_pin;
        r->queued++;
        /* a probe's buffer is never looked at */
        if (!r->probing || next_vm == InvalidXLogRecPtr || next_pin)
            buffer_hints_prefetch(r->hints, next);
    }
    if (r->queued == 0)
        return false;
    *block = r->queue[r->queue_head];
    *vm = r->queue_vm[r->queue_head];
    *pin = r->queue_pin[r->queue_head];
    r->queue_head = (r->queue_head + 1) % size;
    r->queued--;
    return true;
}

/*
 * A serial scan's run of probes, by arithmetic on the copied map page:
 * from its next block on, while the bits are set, up to `most` blocks,
 * the map page's end and the table's end (a run never wraps).  Without
 * the queue that asks for buffers ahead, whose way took most of the
 * host's time a probe: a probe's buffer is never looked at.  32 blocks
 * whose bits are all set are passed over in one load: a run then costs
 * the host well under a ns a block.  With `follow`, only blocks that
 * continue the run *first .. *first + follow - 1 under *vm are taken.
 * Under a block check, only within a span it reads whole.
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
    if (r->check != NULL) /* within the span read whole: the next one is the block check's to see */
        limit = Min(limit, r->unchecked_end - r->next_serial);
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
        bool given_back, next_pin;
        if (!heap_blocks_take(r, &next, &next_vm, &given_back, &next_pin))
            return false;
        /* back to the queue's head, where heap_blocks_take() found it */
        int size = lengthof(r->queue);
        r->queue_head = (r->queue_head + size - 1) % size;
        r->queue[r->queue_head] = next;
        r->queue_vm[r->queue_head] = next_vm;
        r->queue_pin[r->queue_head] = next_pin;
        r->queued++;
    }
    return r->queue_vm[r->queue_head] != InvalidXLogRecPtr && !r->queue_pin[r->queue_head];
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
    const bool serial =
        r->pscan == NULL && r->keep == NULL && (r->check == NULL || r->next_serial < r->unchecked_end);
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
    while (serial && r->queued == 0 && n < most) {
        const uint32 m = serial_probe_run(r, most - n, n, first, vm);
        n += m;
        /*
         * A span read whole ends a run where the next span's check is due:
         * asked now, a run goes on over every span read whole in a row (a
         * run per span took the GPU a batch per few hundred spans, 7 ms
         * more over 100M rows on the H200 host).
         */
        if (m == 0 || r->check == NULL || r->next_serial != r->unchecked_end)
            break;
        skip_spans(r);
        if (r->next_serial >= r->unchecked_end)
            break;
    }
    r->counters.pages += n;
    r->counters.all_visible_pages += n;
    return n;
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

void heap_reader_check_blocks(HeapReader *r, BlockCheck check, SpanCheck span, uint32 blocks, void *arg,
                              MemoryContext cxt)
{
    r->check = check;
    r->check_span = span;
    r->check_blocks = blocks;
    r->check_arg = arg;
    if (!r->watch_map)
        heap_reader_watch_map(r, false, cxt);
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

} // namespace gpu_histogram
