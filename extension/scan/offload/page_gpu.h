/*
 * page_gpu.h: the scan hands pinned pages to the GPU instead of values.
 *
 * For an ungrouped scan without a WHERE clause, reading the tuples is the
 * query: the host's share of the work is the line pointer, the header and
 * the copy of each value.  Here the host only pins each all-visible page,
 * notes its line pointer count under the share lock and unlocks; a batch of
 * such pages goes to the GPU service as buffer numbers, one request per
 * histogram, and the GPU reads the pages out of the mapped buffer pool,
 * extracts each histogram's column and bins it (gpu/specs/page_spec.h).  The
 * pins are kept until the GPU has read the pages.
 *
 * Each batch decides for itself: it goes to the GPU if the service has
 * room for it (a page slot and a lease per histogram, taken without
 * waiting; in auto also a place in the GPUs' queue, which bounds all
 * sessions' batches being read there), otherwise the caller parses its pinned pages on
 * the CPU, so that under load both devices work at once.  With device =
 * 'gpu' a refused batch is parsed on the CPU too and its values go to the
 * GPU the old way, through the histogram states.  A scan has one batch on
 * the GPU at a time, or two that hold probes only.  In a parallel scan,
 * while the GPU is still busy with it when the next is full, the host
 * parses pages off the full one's end rather than wait, if a core would
 * otherwise idle: there the GPU's link is the limit.
 *
 * gpu_histogram.debug_pages_on_cpu (testing) makes every batch one the GPU
 * refused, half of it first taken off its end as while the GPU is busy, so
 * that a machine without a GPU runs this pinning, batching and unpinning
 * too (test/gpu/page_checks.sh in CI).
 *
 * A batch holds its pages' pins itself (batch_pins.h), so the memory
 * context callback that gives the service's slots and leases back after
 * an ERROR or a cancel releases them too, while the GPU may still be
 * reading those pages; what it reads then goes into histograms that are
 * closed unread, and the page kernel never reads outside the pool.
 */
#ifndef GH_SCAN_PAGE_GPU_H
#define GH_SCAN_PAGE_GPU_H

#include "../heap/batch_pins.h"
#include "../heap/heap_reader.h"

#include "../../histogram_state.h"
#include "../../service/client_pages.h"

namespace gpu_histogram {

/*
 * Pinned pages on their way to the GPU, or back to the CPU; and probes,
 * pages asked of the GPUs' page cache by block number and visibility map
 * LSN alone (gpu/specs/page_cache.h), in runs of consecutive blocks under one
 * map LSN, which follow the pinned pages on the GPU (gh::ProbeRun).  A
 * probe the cache does not answer goes back to the reader
 * (heap_reader_reread), as does every probe of a batch the GPU does not
 * take: a batch comes back to the caller with pinned pages only.
 */
struct PageBatch {
    int npages;          /* pinned pages */
    int nprobes;         /* probes, in ... */
    int nruns;           /* ... this many runs, each `at` counted from the first probe */
    gh::ProbeRun *runs;
    Buffer *buffers;     /* pinned by the batch itself (batch_pins.h) */
    OffsetNumber *lines; /* each page's line pointer count under its lock */
    int32 *slots;        /* one per histogram while the batch is on the GPU, else -1 */
    uint64 *lsns;        /* each page's LSN under its lock, ... */
    uint32 *blocks;      /* ... its block number ... */
    uint64 *vms;         /* ... and its map LSN: its key in the GPUs' page cache */
    uint64 cached;       /* of its pages, those the GPU read from its page cache */
    bool on_gpu;
    uint64 sent;         /* its place in the order the scan's batches went to the GPU */
    BatchPinList pins;   /* buffers[0 .. npages), for the exit backstop */
};

struct PageSink; /* page_sink.h: where a batch's pages are counted */

struct PageGpu {
    bool possible;              /* the table, the columns and the service allow pages on the GPU */
    bool probing;               /* the reader hands out probes (heap_reader_watch_map) */
    Relation rel;               /* the table: every batch's pages are its */
    HeapReader *reader;         /* the scan's: missed probes go back to it */
    uint8 *miss_flags;          /* the GPU's answer for each probe of a batch: 1, missed */
    gh::PageCacheRel cache_rel; /* its file, for the GPUs' page cache; rel 0: pages not cached (no WAL) */
    const PageSink *sink;       /* a histogram per column (page_gpu_begin), or a grouped scan's (its own begin) */
    void *sink_state;           /* the sink's own */
    PageBatch kept;             /* pages of finished batches the sink keeps pinned for the caller (page_gpu_left) */
    bool cpu_only;              /* gpu_histogram.debug_pages_on_cpu: every batch is parsed on the CPU */
    bool parallel;              /* a participant of a parallel scan: it may parse pages while the GPU is busy */
    int nhist;
    ServiceHistogramRef *hist;  /* each histogram's lease, opened by the first batch that goes */
    int32 capacity;             /* pages per batch, probes included */
    int32 pin_capacity;         /* pinned pages per batch */
    int32 run_capacity;         /* runs of probes per batch */
    int32 probes_unlooked;      /* probes taken since the other batch was last looked at */
    PageBatch batch[3];         /* one filling while one is on the GPU, or two of probes only */
    uint64 sends;               /* batches sent so far: each batch's `sent` */
    PageBatch spill;            /* pages taken off a full batch's end for the host, while the GPU is busy */
    bool pending;               /* the filling batch is ready and waits for page_gpu_resume() */
    int filling;
    int32 cpu_pages_left;       /* auto: pages that take the CPU path before the GPU is asked again */
    int32 read_slot;            /* the slot of a read in progress, for the cleanup */
    uint64 pages_gpu;
    uint64 pages_cached;        /* of those, pages the GPU read from its page cache */
    uint64 probes;              /* probes sent to the GPU ... */
    uint64 probes_missed;       /* ... and those given back to the reader */
    uint64 pages_cpu;           /* pages batched, then parsed on the CPU */
    uint64 pages_stolen;        /* of those, pages parsed off a ready batch while the GPU was busy */
    uint64 gpus_busy;           /* auto: ready batches that found the GPUs' queue full */
    uint64 no_room;             /* batches the service had no lease or slot for */
    uint64 tuples_uncounted;    /* normal tuples of batches no kernel read (no histogram took part) */
    bool defer_nan;             /* a NaN in a batch is remembered, not raised, until every row's keys are computed ... */
    bool nan_deferred;          /* ... and here it is (the caller raises it: group_agg.h's errors_after_keys) */
    MemoryContextCallback cleanup;
};

/*
 * The key of rel's pages in the GPUs' page cache (gpu/specs/page_cache.h), which
 * trusts a page's LSN to change with its contents, and its map LSN to
 * change before its tuples do: none (rel 0) for a relation whose changes
 * skip WAL (unlogged, or created in this transaction under wal_level =
 * minimal), whose pages keep their LSN while they change, nor for a
 * temporary one, nor for one whose file this transaction may have created
 * or truncated (COPY FREEZE changes its all-visible pages under an
 * unchanged map LSN), so that nothing of such a file is cached or probed
 * before its transaction ends.
 */
gh::PageCacheRel page_gpu_cache_rel(Relation rel);

/*
 * Decides whether pages can go to the GPU at all for this scan of rel by
 * reader r, whose histograms read columns[0 .. nhist) (histograms with a
 * NULL column do not count), and prepares the batches in cxt.
 * `parallel`: this process is one participant of a parallel scan.  Where
 * the GPUs keep a page cache, the reader watches the visibility map from
 * now on, and hands out probes where the batches go to one histogram.
 */
void page_gpu_begin(PageGpu *pg, HeapReader *r, const HeapColumn *columns, int nhist, bool parallel,
                    MemoryContext cxt);

/*
 * Whether the reader's current page goes into a batch: the scan may use
 * the GPU, the page can be read under a pin alone (or is a probe, and the
 * batches go to one histogram), every histogram has its
 * state (the first row has been checked on the CPU) or no input, and, in
 * auto, the pages are not in a stretch that takes the CPU path because the
 * last ready batch found no room.
 */
bool page_gpu_accepts(PageGpu *pg, const HeapReader *r, HistogramState *const *states,
                      const bool *skip);

/*
 * For a histogram state of this scan, just created: in auto, the values
 * the host parses itself are binned on the CPU, where they are, and the
 * GPU takes its share as page batches.  Sent to the GPU as values as well,
 * they held every one of the service's slots under load (64 sessions, 32
 * slots), and page batches found none.
 */
void page_gpu_keep_values_on_cpu(const PageGpu *pg, HistogramState *st);

/*
 * Whether the reader's next page will likely be parsed on the host as it
 * comes (no GPU for this scan, or auto's stretch of CPU pages), so that
 * asking for its lines ahead pays; not a batch's, parsed later or never.
 */
static inline bool page_gpu_parses_next_on_host(const PageGpu *pg)
{
    return !pg->possible || pg->cpu_pages_left > 0;
}

/*
 * Takes the reader's page (or probe) into the filling batch.  When that fills, it is
 * sent, or a batch is returned: the caller parses the returned batch's
 * pages on the CPU, calls page_gpu_release(), and then page_gpu_resume()
 * until that returns NULL.  (While the GPU is busy with the scan's other
 * batch, the returned batches are a few pages off the full one's end.)
 */
PageBatch *page_gpu_add(PageGpu *pg, HeapReader *r, HistogramState *const *states, const bool *skip);

/* After a returned batch is parsed: the next to parse, or NULL once the ready batch is sent or parsed. */
PageBatch *page_gpu_resume(PageGpu *pg, HistogramState *const *states, const bool *skip);

/* At the scan's end: the partial batch, sent or returned as above (NULL if empty or sent). */
PageBatch *page_gpu_flush(PageGpu *pg, HistogramState *const *states, const bool *skip);

/*
 * At the end of the reader's blocks, after page_gpu_flush() and the
 * parsing of what it returned: waits for the batches that hold probes and
 * answers whether any went back to the reader, which the caller then
 * reads on (and, grouped, parses page_gpu_left() first).
 */
bool page_gpu_collect_probes(PageGpu *pg);

/* Unpins a returned batch's pages (those not moved elsewhere) and empties it. */
void page_gpu_release(PageBatch *b);

/* Counts a returned batch's pages as parsed on the CPU (before page_gpu_release). */
void page_gpu_parsed_on_cpu(PageGpu *pg, const PageBatch *b);

/*
 * Waits for the batches on the GPU, unpins them, and adds each device
 * histogram into its state's counters; the leases go back.  Answers the
 * normal tuples of the pages that went to the GPU, which the kernel
 * counted (the host only noted each page's line pointer count).
 */
uint64 page_gpu_finish(PageGpu *pg, HistogramState *const *states);

/* Unpins and gives back everything (rescan, end of scan). */
void page_gpu_end(PageGpu *pg);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_GPU_H */
