/*
 * page_range_scan.h: one scan's use of the pages' column ranges
 * (page_ranges.h): it passes over the all-visible pages whose known range
 * of the WHERE clause's range column lies outside the clause's range, and
 * records the range of each all-visible page it reads whose range is not
 * known, for the scans after it.  The scan's door to the shared table.
 *
 * The clause's values may be user code (a stable function, a parameter's
 * expression), evaluated once per scan when the first rows arrive: here,
 * when the first page whose known range holds rows is met, which is a row
 * the ordinary plan would evaluate them for too.  A page known to hold no
 * rows is passed over without them.
 */
#ifndef GH_SCAN_PAGE_RANGE_SCAN_H
#define GH_SCAN_PAGE_RANGE_SCAN_H

#include "page_ranges.h"

#include "../heap/heap_reader.h"
#include "../quals/native_quals.h"

namespace gpu_histogram {

struct PageRangeScan {
    bool on;
    RangeColumn key;
    HeapColumn column;
    TupleDesc desc;
    Relation rel;
    NativeQuals *quals;    /* the scan's, prepared here if a page needs their values first */
    ExprContext *econtext; /* ... in this context */
    bool have_range;       /* lo, hi are the prepared quals' */
    int64 lo, hi;
    bool have_computed;    /* computed: their computed atoms' range of the column (native_quals_computed_range) */
    AtomColumnRange computed;
    uint32 read_chunk;     /* the chunk `read` holds (UINT32_MAX: none) */
    bool read_found;
    RangeChunk read;
    uint32 last_chunk;     /* the one before it, in `last`: the reader claims blocks ahead of the page it reads */
    bool last_found;
    RangeChunk last;
    uint32 write_chunk;    /* the chunk `write` gathers, UINT32_MAX: none */
    RangeChunk write;
    uint64 noted;          /* pages whose range this scan recorded */
    uint32 began;          /* the table's clock when the scan began */
    uint32 dropped;        /* chunks it learned that the table had no room for */
    bool room;             /* few enough: it still pins pages to record them */
};

/*
 * Whether the scan of rel by reader r under `quals` (which econtext
 * evaluates) can use the pages' ranges: a range column among the quals,
 * the shared table, and a relation and snapshot whose all-visible pages
 * hold exactly the tuples the scan sees (the GPUs' page cache's rule,
 * page_gpu.h).  If so, the reader checks each block with it from now on.
 */
void page_range_scan_begin(PageRangeScan *p, HeapReader *r, NativeQuals *quals, ExprContext *econtext,
                           MemoryContext cxt);

/*
 * Records the range of page `page` (block, map LSN vm, its first `lines`
 * line pointers), read locked or pinned while all-visible, if its range
 * under vm is not known.
 */
void page_range_scan_note(PageRangeScan *p, BlockNumber block, XLogRecPtr vm, Page page, OffsetNumber lines);

/* The reader's current page (locked), as above: only if it is all-visible under a watched map. */
void page_range_scan_note_current(PageRangeScan *p, const HeapReader *r);

/* Writes what the scan learned and stops; the scan's end, or a rescan's. */
void page_range_scan_end(PageRangeScan *p);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_RANGE_SCAN_H */
