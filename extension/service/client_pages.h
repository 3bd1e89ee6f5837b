/*
 * client_pages.h: the GPU service's client for page batches
 * (gpu/specs/page_spec.h).  Instead of values, a scan sends the shared
 * buffers it holds pinned, and the GPU reads the pages out of the mapped
 * buffer pool; probes name pages by block alone, for the GPUs' page cache
 * (gpu/specs/page_cache.h).  A batch is handed over as one request: the
 * client writes the slot, so no caller knows a page slot's layout
 * (service_shared.h).  What values and pages share is in service_client.h.
 */
#ifndef GH_CLIENT_PAGES_H
#define GH_CLIENT_PAGES_H

#include "service_client.h"

#include "../../gpu/specs/grouped_page_spec.h"
#include "../../gpu/specs/histogram_spec.h"
#include "../../gpu/specs/page_cache.h"
#include "../../gpu/specs/page_spec.h"

namespace gpu_histogram {

/* What the service can do with pages now. */
struct ServicePages {
    bool ready;         /* it is up and has mapped the buffer pool: page batches can go */
    bool cache_running; /* the GPUs keep a page cache, so that probes can be answered */
};
ServicePages gpu_service_pages(void);

/*
 * What a page histogram's kernel computes: one column's histogram, or,
 * with `grouped`, a grouped page histogram (gpu/specs/grouped_page_spec.h)
 * over the keys' interval tables table[0 .. table_words).
 */
struct ServicePageHistogram {
    gh::HistogramSpec spec;              /* without `grouped` */
    gh::PageColumn column;               /* ... the column it reads */
    const gh::GroupedPageSpec *grouped;  /* NULL: a column's histogram */
    const int64 *table;
    int32 table_words;
};

/*
 * Opens a lease on a device histogram fed by page batches (a grouped
 * one's tables are loaded now), as client_values.h's gpu_service_open
 * otherwise.
 */
bool gpu_service_open_pages(const ServicePageHistogram &what, ServiceWait wait, ServiceHistogramRef *out);

/*
 * Takes a free page slot for filling, without waiting (-1 if none): page
 * batches have slots of their own (service_shared.h, kPageSlotPages).
 * With most_on_gpus below INT32_MAX, auto's bound on the GPUs' queue: -1
 * and *gpus_busy also while all sessions together have that many page
 * batches for each GPU being filled, queued or read.  Batches the GPUs
 * have finished do not count, though their scans, busy elsewhere, have
 * not collected them yet.
 */
int32 gpu_service_take_page_slot(int32 most_on_gpus, bool *gpus_busy);

/*
 * A page batch: its pinned pages, then its probes, in runs (gh::ProbeRun,
 * each `at` counted from the first probe).  The pages stay pinned until
 * gpu_service_pages_done() says the batch is done.
 */
struct ServicePageBatch {
    int32 npages;
    const Buffer *buffers;
    const OffsetNumber *lines; /* each page's line pointer count under its share lock */
    /* each page's key in the GPUs' page cache, read only with rel.rel != 0: */
    const uint64 *lsns;        /* its LSN under its lock (0: not to be cached), ... */
    const uint32 *blocks;      /* ... its block number ... */
    const uint64 *vms;         /* ... and its visibility map LSN (0: none) */
    int32 nprobes;
    int32 nruns;
    const gh::ProbeRun *runs;
    gh::PageCacheRel rel;      /* their relation's file (rel 0: none of them is cached; then no probes) */
};

/* Writes the batch into the slot taken for it and queues it for the histogram. */
void gpu_service_send_pages(int32 slot, const ServiceHistogramRef *ref, const ServicePageBatch &batch);

/* The service's answer for a finished page batch. */
struct ServicePageAnswer {
    gh::Status result;   /* cuda_error if the service died meanwhile */
    uint64 cached;       /* of its pages, those the GPU read from its page cache */
    uint8 *left_to_host; /* a grouped batch's: 1 for each page the GPU did not count, which the caller
                            reads on the CPU before it unpins it (NULL: not grouped) */
    uint8 *missed;       /* 1 for each probe the cache did not answer, at its page's place (every probe of
                            a failed batch); NULL: no probes */
};

/*
 * Whether the page batch of npages pages (probes included) queued on slot
 * is done (the GPU has read its pages); with wait, waits for it,
 * interruptibly.  When done, the slot is free again and *answer filled in.
 */
bool gpu_service_pages_done(int32 slot, int32 npages, bool wait, ServicePageAnswer *answer);

/*
 * The share of its pages (0 to 1) that a scan of shape `shape` over rel's
 * file found in the GPUs' page cache, as the scan notes it at its end
 * (each parallel participant its own), and as the planner asks for it:
 * 0 when no such scan has been noted, or the cache is not running.
 */
void gpu_service_note_cached_share(const gh::PageCacheRel &rel, uint32 shape, double share);
double gpu_service_cached_share(const gh::PageCacheRel &rel, uint32 shape);

/*
 * The entry of the GPUs' page caches where block 0 of rel's file goes (its
 * PageCacheRel's base), for a scan of its first nblocks blocks: its place
 * (gpu/specs/page_cache_places.h), kept or made.  0 when no cache runs.
 */
uint32 gpu_service_cache_base(const gh::PageCacheRel &rel, uint32 nblocks);

} // namespace gpu_histogram

#endif /* GH_CLIENT_PAGES_H */
