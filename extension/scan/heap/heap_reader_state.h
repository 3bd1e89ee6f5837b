/*
 * heap_reader_state.h: what a heap reader holds, apart from what it does
 * (heap_reader.h), so that the reader's two files, heap_reader.cpp (a page
 * pinned, locked and listed) and heap_blocks.cpp (which block comes next),
 * share the state without depending on each other's functions.
 */
#ifndef GH_SCAN_HEAP_READER_STATE_H
#define GH_SCAN_HEAP_READER_STATE_H

#include "../../pg_headers.h"
#include "buffer_hints.h"

extern "C" {
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tupmacs.h"
#include "storage/bufmgr.h"
#include "utils/snapshot.h"
}

namespace gpu_histogram {

/* What one scan has read, reported by EXPLAIN ANALYZE. */
struct HeapReadCounters {
    uint64 pages;
    uint64 all_visible_pages;
    uint64 tuples;        /* visible tuples */
    uint64 pages_skipped; /* blocks handed out but left unread (heap_reader_keep_blocks) */
    uint64 pages_ranged;  /* blocks left unread by what was known of their pages (heap_reader_check_blocks) */
};

/* What a block check (heap_reader_check_blocks) says of a block. */
enum class BlockVerdict {
    read, /* as any other */
    skip, /* none of its rows can pass: left unread */
    pin   /* read pinned, never as a probe: the caller wants to see it */
};

typedef BlockVerdict (*BlockCheck)(void *arg, BlockNumber block, XLogRecPtr vm);

/* What a span check says of a whole span of blocks, provided each one's map bit is set under its *vm. */
enum class SpanVerdict {
    each, /* ask block by block */
    skip, /* none of their rows can pass: left unread */
    read  /* every block is read, none needs its own check: a serial scan may probe them by arithmetic */
};

/*
 * The verdict on the blocks from `first` (a multiple of the check's span)
 * to the span's end, and the map LSN *vm it holds under; for a serial
 * scan to pass over them, or read them, at once.
 */
typedef SpanVerdict (*SpanCheck)(void *arg, BlockNumber first, XLogRecPtr *vm);

struct HeapReader {
    Relation rel;
    Snapshot snapshot;
    bool check_serializable; /* SERIALIZABLE: report rw-conflicts as heapam does */
    /* block allocation: parallel if pscan is set, else start..nblocks wrapping */
    ParallelBlockTableScanDesc pscan;
    ParallelBlockTableScanWorkerData pwork;
    bool pstarted;
    BlockNumber nblocks;
    BlockNumber start;
    BlockNumber next_serial; /* blocks handed out so far (serial) */
    bool syncscan;
    const uint8 *keep;       /* a bit per block to read, or NULL: every block */
    BlockNumber keep_nblocks; /* blocks keep covers; later ones are read */
    BlockCheck check;        /* each block's verdict by its map LSN, or NULL: read every block */
    SpanCheck check_span;    /* ... and whole spans' of check_blocks blocks, for a serial scan */
    uint32 check_blocks;
    uint64 unchecked_end;    /* a serial scan's blocks before this place (next_serial's count) need no check */
    void *check_arg;
    BufferAccessStrategy strategy;
    /*
     * Where the blocks were last seen in shared buffers (buffer_hints.h),
     * and the blocks claimed from the allocation but not yet pinned: their
     * buffers' descriptors and headers are asked for that many pages ahead.
     */
    BufferHints hints;
    BlockNumber queue[8];
    XLogRecPtr queue_vm[8];  /* each claimed block's map LSN (map_vm) */
    bool queue_pin[8];       /* its check said BlockVerdict::pin */
    int queue_head;
    int queued;
    int lookahead;
    bool blocks_done;
    bool list_all_visible;   /* fill tuples[] on all-visible pages too */
    /*
     * The visibility map (heap_reader_watch_map): the map page that covers
     * the block last claimed, copied with its LSN under its share lock.
     * Each page then carries the map LSN its all-visible bit was set under
     * (page_vm, 0: not set), the key the GPUs' page cache probes by
     * (gpu/specs/page_cache.h); with probing, a block whose bit is set is handed
     * out unpinned, as a probe.
     */
    bool watch_map;
    bool probing;
    Buffer map_buffer;
    BlockNumber map_page;    /* the map page copied, InvalidBlockNumber: none */
    XLogRecPtr map_lsn;      /* its LSN then, 0 if there is no such map page */
    uint8 *map_bits;         /* its bitmap */
    XLogRecPtr page_vm;      /* the current page's map LSN, or the probe's */
    bool page_pin;           /* the current page's check said BlockVerdict::pin */
    bool probe;              /* the current page is a probe: block probe_block, not pinned */
    BlockNumber probe_block;
    /* blocks to read pinned before any other (probes the cache missed), with their map LSNs */
    BlockNumber *reread;
    XLogRecPtr *reread_vm;
    int reread_head;
    int nreread;
    int reread_size;
    /*
     * Reading ahead (heap_reader_read_ahead): the next page, pinned while
     * the current one is read, and whether to ask for all of it now
     * because the host will parse it.
     */
    bool read_ahead;
    bool prefetch_next;
    /* a listed all-visible page's first lines asked for (heap_page_prefetch_start); 0: all of them */
    uint32 prefetch_lines;
    Buffer ahead;
    XLogRecPtr ahead_vm;
    bool ahead_pin;
    /* the current page */
    Buffer buffer;
    Page page;
    bool locked;
    /*
     * Every normal tuple of the page is visible and tuples[] is left empty:
     * the caller reads the page's line pointers itself, in one pass.
     */
    bool whole_page;
    int ntuples;
    HeapTupleData tuples[MaxHeapTuplesPerPage]; /* the visible ones, unless whole_page */
    HeapReadCounters counters;
};

/* Whether blocks given back wait to be read. */
static inline bool heap_reader_has_rereads(const HeapReader *r)
{
    return r->reread_head < r->nreread;
}

} // namespace gpu_histogram

#endif /* GH_SCAN_HEAP_READER_STATE_H */
