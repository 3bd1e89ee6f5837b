/*
 * page_range_scan.cpp: one scan's use of the pages' column ranges
 * (page_range_scan.h): the reader's block check, and the ranges of the
 * pages it reads.
 */
#include "page_range_scan.h"

#include "../offload/page_gpu.h"

#include "../../settings.h"

extern "C" {
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

namespace gpu_histogram {

namespace {

constexpr uint32 kNoChunk = UINT32_MAX;
constexpr uint32 kDropsAllowed = 8; /* chunks a scan may fail to store before it stops pinning pages to learn them */

/* Writes the gathered chunk, if any. */
void flush(PageRangeScan *p)
{
    if (p->write_chunk == kNoChunk)
        return;
    /* a few sets full of this scan's own chunks cost a few chunks pinned each time; many, the table is too small */
    if (!page_ranges_write(p->key, p->write_chunk, p->write, p->began) && ++p->dropped >= kDropsAllowed)
        p->room = false;
    p->write_chunk = kNoChunk;
}

/* Makes p->read hold chunk's ranges, as the table has them. */
void load(PageRangeScan *p, uint32 chunk)
{
    if (p->read_chunk == chunk)
        return;
    /* what this scan gathered for the chunk is the table's too */
    if (p->write_chunk == chunk)
        flush(p);
    p->last_chunk = p->read_chunk;
    p->last_found = p->read_found;
    if (p->last_found)
        p->last = p->read;
    p->read_chunk = chunk;
    p->read_found = page_ranges_read(p->key, chunk, &p->read);
}

/*
 * Whether pages whose rows hold values lo .. hi (lo > hi: NULLs alone)
 * hold none the clause lets pass.  The clause's values come first: for
 * a page with rows, which the ordinary plan evaluates them for too (the
 * header), with no page locked.
 */
bool ruled_out(PageRangeScan *p, int64 lo, int64 hi)
{
    if (!p->have_range) {
        if (!p->quals->prepared)
            native_quals_prepare(p->quals, p->econtext);
        native_quals_column_range(*p->quals, p->column.attno, &p->lo, &p->hi);
        p->have_computed = native_quals_computed_range(*p->quals, p->column.attno, &p->computed);
        p->have_range = true;
    }
    if (lo > hi || hi < p->lo || lo > p->hi || p->lo > p->hi)
        return true;
    /* a computed atom's range, over pages none of whose values would raise computing it */
    const AtomColumnRange &c = p->computed;
    return p->have_computed && c.safe_lo <= lo && hi <= c.safe_hi && (hi < c.lo || lo > c.hi || c.lo > c.hi);
}

/*
 * The reader's check: a block whose range is known under its map LSN is
 * skipped when that range and the clause's do not meet, or when its page
 * held no rows; an all-visible block whose range is not known is read
 * pinned, so that its range is recorded even where the GPU would have
 * read it from its page cache unseen, until the table has no room for
 * what the scan learns.
 */
BlockVerdict check(void *arg, BlockNumber block, XLogRecPtr vm)
{
    PageRangeScan *p = static_cast<PageRangeScan *>(arg);
    if (vm == InvalidXLogRecPtr)
        return BlockVerdict::read;
    const uint32 at = block % kRangeBlocks;
    load(p, block / kRangeBlocks);
    if (!p->read_found || p->read.vm[at] != vm)
        return p->room ? BlockVerdict::pin : BlockVerdict::read;
    if (!p->read.rows[at])
        return BlockVerdict::skip;
    return ruled_out(p, p->read.lo[at], p->read.hi[at]) ? BlockVerdict::skip : BlockVerdict::read;
}

/*
 * The reader's check of a whole chunk, by its head, where every block is
 * known under one map LSN: skipped if none of its values is in the range,
 * read without a check of each block if all of them are (no block's own
 * check would skip it, but one holding NULLs alone), else block by block.
 */
SpanVerdict check_span(void *arg, BlockNumber first, XLogRecPtr *vm)
{
    PageRangeScan *p = static_cast<PageRangeScan *>(arg);
    RangeChunkHead head;
    if (!page_ranges_read_head(p->key, first / kRangeBlocks, &head) || head.vm == InvalidXLogRecPtr)
        return SpanVerdict::each;
    *vm = head.vm;
    if (!head.rows || ruled_out(p, head.lo, head.hi))
        return SpanVerdict::skip;
    const bool inside = p->lo <= head.lo && head.hi <= p->hi &&
                        (!p->have_computed || (p->computed.lo <= head.lo && head.hi <= p->computed.hi));
    return inside ? SpanVerdict::read : SpanVerdict::each;
}

/* Whether the range of block chunk * kRangeBlocks + at under vm is known, as last read. */
bool known(const PageRangeScan *p, uint32 chunk, uint32 at, XLogRecPtr vm)
{
    if (p->read_chunk == chunk)
        return p->read_found && p->read.vm[at] == vm;
    return p->last_chunk == chunk && p->last_found && p->last.vm[at] == vm;
}

} // namespace

void page_range_scan_begin(PageRangeScan *p, HeapReader *r, NativeQuals *quals, ExprContext *econtext,
                           MemoryContext cxt)
{
    p->on = false;
    const HeapColumn *column = quals != NULL ? native_quals_range_column(*quals) : NULL;
    if (column == NULL || !gh_skip_pages_by_range || !page_ranges_ready())
        return;
    /* the GPUs' page cache's rule (watch_map in page_gpu.cpp): an all-visible page holds what the scan sees */
    const gh::PageCacheRel file = page_gpu_cache_rel(r->rel);
    if (file.rel == 0 || r->check_serializable || !IsMVCCSnapshot(r->snapshot) || r->snapshot->takenDuringRecovery ||
        RecoveryInProgress() || IsCatalogRelation(r->rel))
        return;
    p->on = true;
    p->key = RangeColumn{file.spc, file.db, file.rel, column->attno, column->type};
    p->column = *column;
    p->desc = RelationGetDescr(r->rel);
    p->rel = r->rel;
    p->quals = quals;
    p->econtext = econtext;
    p->have_range = false;
    p->have_computed = false;
    p->read_chunk = kNoChunk;
    p->read_found = false;
    p->last_chunk = kNoChunk;
    p->last_found = false;
    p->write_chunk = kNoChunk;
    p->noted = 0;
    p->began = page_ranges_clock();
    p->room = true;
    p->dropped = 0;
    heap_reader_check_blocks(r, check, check_span, kRangeBlocks, p, cxt);
}

void page_range_scan_note(PageRangeScan *p, BlockNumber block, XLogRecPtr vm, Page page, OffsetNumber lines)
{
    if (!p->on || !p->room || vm == InvalidXLogRecPtr)
        return;
    const uint32 chunk = block / kRangeBlocks, at = block % kRangeBlocks;
    /* a chunk read whole was never asked of block by block (heap_reader_check_blocks): ask it now, once */
    if (p->read_chunk != chunk && p->last_chunk != chunk)
        load(p, chunk);
    if (known(p, chunk, at, vm))
        return;
    if (p->write_chunk != chunk) {
        flush(p);
        p->write_chunk = chunk;
        memset(p->write.vm, 0, sizeof p->write.vm);
    }
    int64 lo = PG_INT64_MAX, hi = PG_INT64_MIN;
    bool rows = false;
    HeapTupleData t;
    t.t_tableOid = RelationGetRelid(p->rel);
    for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        rows = true;
        t.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t.t_len = ItemIdGetLength(item);
        ItemPointerSet(&t.t_self, block, off);
        int64 v;
        if (heap_column_word(p->column, p->desc, &t, &v)) {
            lo = Min(lo, v);
            hi = Max(hi, v);
        }
    }
    p->write.vm[at] = vm;
    p->write.lo[at] = lo;
    p->write.hi[at] = hi;
    p->write.rows[at] = rows;
    p->noted++;
}

void page_range_scan_note_current(PageRangeScan *p, const HeapReader *r)
{
    if (!p->on || r->probe || r->page_vm == InvalidXLogRecPtr || !r->locked || !PageIsAllVisible(r->page))
        return;
    page_range_scan_note(p, BufferGetBlockNumber(r->buffer), r->page_vm, r->page, PageGetMaxOffsetNumber(r->page));
}

void page_range_scan_end(PageRangeScan *p)
{
    if (!p->on)
        return;
    flush(p);
    p->on = false;
}

} // namespace gpu_histogram
