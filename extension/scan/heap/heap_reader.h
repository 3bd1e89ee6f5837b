/*
 * heap_reader.h: reads a heap table a page at a time, as heapam's page mode
 * does, for the GpuHistogramScan executor.
 *
 * The reader hands out blocks (one process's share of a parallel block scan,
 * or the whole table, from the synchronized-scan start), pins and share-locks
 * each page, and lists the tuples that the query's snapshot sees.  The
 * caller copies what it needs and unlocks; tuple data stays valid while the
 * page is pinned, as it does for heapam's page-mode scans.  Which blocks
 * come next, and which are probes of the visibility map, is heap_blocks.cpp's;
 * reading the tuples' columns is heap_columns.h's.
 */
#ifndef GH_SCAN_HEAP_READER_H
#define GH_SCAN_HEAP_READER_H

#include "../../pg_headers.h"
#include "buffer_hints.h"
#include "heap_columns.h" /* the columns of the tuples it lists */
#include "heap_reader_state.h"

extern "C" {
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tupmacs.h"
#include "storage/bufmgr.h"
#include "utils/snapshot.h"
}

namespace gpu_histogram {

/*
 * Prepares a scan of rel under snapshot; pscan is the shared block scan, or
 * NULL, and shared_hints the parallel scan's hints (NULL: this backend's
 * own).  list_all_visible: list the tuples of all-visible pages in
 * tuples[] as well (a caller that evaluates quals needs them); otherwise
 * such pages come back as whole_page.
 */
void heap_reader_begin(HeapReader *r, Relation rel, Snapshot snapshot, ParallelBlockTableScanDesc pscan,
                       const BufferHints *shared_hints, bool list_all_visible);

/*
 * From now on, reads only the blocks whose bit is set in keep[0 ..
 * nblocks / 8] (and any block past nblocks); the others are handed out
 * as before, in a parallel scan too, and counted as skipped.  keep must
 * outlive the scan.
 */
void heap_reader_keep_blocks(HeapReader *r, const uint8 *keep, BlockNumber nblocks);

/*
 * From now on, asks check(arg, block, vm) of each block it hands out, vm
 * being its map LSN (0: not all-visible), and passes over those it says
 * to skip, counted as pages_ranged; a block it says to pin is never
 * handed out as a probe, and its page says so (page_pin).  A serial scan
 * first asks span(arg, first, &vm) at each multiple of `blocks` and, where
 * every block's map bit is set under that vm, passes over the whole span
 * or reads it without asking check, as the span check says.  The map is watched (heap_reader_watch_map) for
 * it.  Both run with no page locked, though pages may be pinned.
 */
void heap_reader_check_blocks(HeapReader *r, BlockCheck check, SpanCheck span, uint32 blocks, void *arg,
                              MemoryContext cxt);

/*
 * From now on, each page carries its visibility map LSN (page_vm), for
 * the GPUs' page cache; with `probing`, too, a block whose map bit is set
 * comes out of heap_reader_next_page() unpinned, as a probe.  Only for a
 * WAL-logged relation read under an MVCC snapshot outside recovery and
 * SERIALIZABLE, where an all-visible page holds exactly the tuples the
 * scan sees (the caller checks); the map's copy is made in cxt.
 */
void heap_reader_watch_map(HeapReader *r, bool probing, MemoryContext cxt);

/*
 * Pins and share-locks the next page and fills r->tuples with its visible
 * tuples; or, while probing, answers a probe (r->probe: r->probe_block and
 * its r->page_vm, nothing pinned), which the caller takes elsewhere or
 * reads with heap_reader_read_probe().  Returns false when there is no
 * page left; blocks given back with heap_reader_reread() after that are
 * handed out by the next call.
 */
bool heap_reader_next_page(HeapReader *r);

/*
 * The probes heap_reader_next_page() would hand out next, as a run: up to
 * `most` consecutive blocks from *first on, all under map LSN *vm, counted
 * as pages read; how many (0: the next block, if any, is no probe, and
 * stays the next page's).  For a caller that takes probes by the batch.
 */
uint32 heap_reader_next_probe_run(HeapReader *r, uint32 most, BlockNumber *first, XLogRecPtr *vm);

/* The probe after all: pins and share-locks its page as heap_reader_next_page() would have. */
void heap_reader_read_probe(HeapReader *r);

/*
 * A probe the cache could not answer: its block is read pinned by a later
 * heap_reader_next_page(), before any other, and not counted as a page
 * again.  vm: the map LSN the probe was made with.
 */
void heap_reader_reread(HeapReader *r, BlockNumber block, XLogRecPtr vm);

/*
 * Whether the current page may be read with only a pin, by the GPU or
 * later on the CPU: whole_page, a shared buffer, and no free line pointer.
 * While it stays pinned, no tuple up to its current line pointer count can
 * move or change its column values; an insert into its free space adds
 * line pointers past that count, and with no unused one (PD_HAS_FREE_LINES
 * clear) none below it can be reused: only pruning, which needs a cleanup
 * lock, could set that flag.
 */
bool heap_reader_page_shareable(const HeapReader *r);

/*
 * Takes the current page's pin over (the caller releases it with
 * ReleaseBuffer) and unlocks it.  *lines is its line pointer count under
 * the lock, *lsn its LSN then (its map LSN is r->page_vm).  Its tuples are not counted as read: whoever parses the page
 * counts them (heap_reader_count_tuples), the GPU included, so that the
 * host never walks the line pointers of a page it does not parse.
 */
Buffer heap_reader_take_page(HeapReader *r, OffsetNumber *lines, XLogRecPtr *lsn);

/*
 * The current whole_page page's tuples after all, in r->tuples (every
 * normal one: the page is all-visible), counted as read; for a caller
 * that began without list_all_visible to send such pages elsewhere, and
 * keeps this one.  Nothing for a page that is not whole_page.
 */
void heap_reader_list_page(HeapReader *r);
/*
 * The same once the page is unlocked: of its first `lines` line pointers,
 * as many as it had under the lock (a tuple inserted since is not in the
 * snapshot; the pin keeps those listed where they are).
 */
void heap_reader_list_lines(HeapReader *r, OffsetNumber lines);
/*
 * The normal tuples among the first `lines` line pointers of an
 * all-visible page that `buffer` holds pinned, into out[]; how many.
 */
int heap_page_tuples(Relation rel, Buffer buffer, OffsetNumber lines, HeapTupleData *out);
/* Counts n tuples of whole_page pages as read (statistics, EXPLAIN). */
void heap_reader_count_tuples(HeapReader *r, uint64 n);

/* The normal tuples among the first `lines` line pointers of a whole_page page. */
int heap_page_normal_tuples(Page page, OffsetNumber lines);

/*
 * From now on, pin the scan's next page while the current one is read
 * and, while prefetch_next is set, ask for all of its lines then: parsed
 * on the host, it is in cache by the time the current one is done.  For
 * an ungrouped scan of whole pages (the ungrouped CPU scan: 20% faster on
 * the dev VM); a grouped scan measured 5% slower with it.
 */
void heap_reader_read_ahead(HeapReader *r);

/* Releases the page's lock, keeping the pin (tuple data stays valid). */
void heap_reader_unlock(HeapReader *r);

/* Releases the current page entirely. */
void heap_reader_release(HeapReader *r);

/* Ends the scan: releases the page and the strategy. */
void heap_reader_end(HeapReader *r);

} // namespace gpu_histogram

#endif /* GH_SCAN_HEAP_READER_H */
