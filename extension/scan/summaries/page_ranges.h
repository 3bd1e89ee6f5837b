/*
 * page_ranges.h: the smallest and largest value of one column on each
 * all-visible heap page, learned from the pages that scans read and kept
 * in shared memory, so that a later scan with a range on that column
 * passes over the pages none of whose rows can qualify without reading
 * them: a columnar engine's zone maps, for the heap, without an index.
 *
 * A page's range is kept with the visibility map LSN its all-visible bit
 * was set under (the key the GPUs' page cache trusts, page_gpu.h): while
 * the bit stays set under that LSN, no tuple of the page has changed,
 * since every change clears the bit and only a new WAL record sets it
 * again.  A range read from a page whose bit was cleared meanwhile is
 * thus never used.  What guarantees it, in every major: heapam's
 * heap_insert, heap_multi_insert, heap_update, heap_delete and
 * heap_lock_tuple clear the bit (visibilitymap_clear) in the critical
 * section that changes the page, and only visibilitymap_set sets it, under
 * the WAL record it gives the map page as its LSN.  17.11 and 18.6 also
 * give the map page the heap record's LSN when a bit is cleared, which
 * only makes a range stale sooner.  Only for the relations and snapshots the page cache
 * allows (page_range_scan.h decides).
 *
 * Ranges lie in chunks of kRangeBlocks consecutive blocks, in a
 * set-associative table of gpu_histogram.page_ranges bytes, whose least
 * recently used chunk of a set makes room, unless the writing scan used it
 * itself.  Without the library preloaded
 * there is no table, and nothing is kept.
 */
#ifndef GH_SCAN_PAGE_RANGES_H
#define GH_SCAN_PAGE_RANGES_H

#include "../../pg_headers.h"

extern "C" {
#include "access/xlogdefs.h"
}

namespace gpu_histogram {

/*
 * Blocks a chunk: a serial scan asks whether a whole chunk is ruled out
 * at once (its head), which costs a lock and a hash once per 256 blocks,
 * so that passing over 100M rows' 735,000 pages costs about 3,000 asks.
 */
constexpr uint32 kRangeBlocks = 256;

/* One column of one relation file (its type too: a rewrite-free type change keeps the file). */
struct RangeColumn {
    uint32 spc, db, rel;
    int32 attnum;
    Oid type;
};

/*
 * The ranges of kRangeBlocks blocks from chunk * kRangeBlocks on: for each,
 * the map LSN it was read under (0: none known), whether the page held
 * any tuple, and the smallest and largest non-NULL value as an int64
 * (lo > hi: none, every tuple's value NULL).
 */
struct RangeChunk {
    XLogRecPtr vm[kRangeBlocks];
    int64 lo[kRangeBlocks];
    int64 hi[kRangeBlocks];
    bool rows[kRangeBlocks];
};

/*
 * What a chunk's blocks hold together: the map LSN all were read under
 * (0 unless every block of the chunk is known, each under the same LSN),
 * whether any page held a tuple, and the smallest lo and largest hi.
 */
struct RangeChunkHead {
    XLogRecPtr vm;
    uint32 known; /* blocks whose range is known, under whatever map LSN */
    bool rows;
    int64 lo, hi;
};

/* In _PG_init while preloading: the setting and the shared memory's request. */
void page_ranges_init(void);

/* Whether the table exists (the library was preloaded with gpu_histogram.page_ranges above 0). */
bool page_ranges_ready(void);

/* Copies chunk `chunk` of column c into *out; false (out untouched) if the table holds none. */
bool page_ranges_read(const RangeColumn &c, uint32 chunk, RangeChunk *out);

/* Copies chunk `chunk`'s head into *out; false if the table holds no such chunk. */
bool page_ranges_read_head(const RangeColumn &c, uint32 chunk, RangeChunkHead *out);

/* Whether ranges of some of chunk `chunk`'s blocks are recorded: for the planner, which scans learned the column. */
bool page_ranges_recorded(const RangeColumn &c, uint32 chunk);

/* The table's clock now: a scan's start, for page_ranges_write. */
uint32 page_ranges_clock(void);

/*
 * Stores the blocks of *in whose vm is set into chunk `chunk` of column
 * c, making room if need be by the chunk of its set used longest ago,
 * unless that one was used since `since` (the writer's scan began): then
 * nothing is stored, and it returns false.
 */
bool page_ranges_write(const RangeColumn &c, uint32 chunk, const RangeChunk &in, uint32 since);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_RANGES_H */
