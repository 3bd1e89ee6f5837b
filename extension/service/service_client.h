/*
 * service_client.h: what a backend or parallel worker may ask of the GPU
 * service (supervisor.cpp and cuda_process.cpp).  The client never touches CUDA.
 *
 * A client opens a device histogram in the service (an entry of the shared
 * table), takes a batch slot, fills it with values and queues it for
 * binning, and goes on while the service copies and bins it; when the
 * group's result is needed it reads the counters back, and at the end it
 * closes the histogram.  Everything a client holds is recorded with its pid
 * in shared memory: releasing it is cheap and safe in any state, and when
 * the process exits, whatever is left is given back.
 *
 * Functions that wait do so on condition variables, interruptibly: a cancel
 * raises its ERROR from inside the wait, and the caller's cleanup releases
 * the slot and histogram it held.  Errors are ereported here, after no C++
 * object is left on the stack.
 */
#ifndef GH_SERVICE_CLIENT_H
#define GH_SERVICE_CLIENT_H

#include "../pg_headers.h"
#include "../../gpu/specs/grouped_page_spec.h"
#include "../../gpu/specs/grouped_spec.h"
#include "../../gpu/specs/histogram_spec.h"
#include "../../gpu/specs/page_cache.h"
#include "../../gpu/specs/page_spec.h"
#include "../../gpu/specs/status.h"

/* A histogram entry taken in the service. */
struct ServiceHistogramRef {
    int32 index; /* -1: none */
    uint64 serial;
};

/* Whether the service runs with at least one GPU. */
bool gpu_service_up(void);

/* Raises the ERROR that device = 'gpu' gives when the service has no GPU to offer. */
void gpu_service_require(void);

/* The device memory the service's histograms may take, in bytes (0 without a service). */
int64 gpu_service_device_memory(void);

/* The largest batch a slot holds (INT32_MAX without a service). */
int32 gpu_service_slot_capacity(void);

enum ServiceWait {
    SERVICE_NO_WAIT, /* answer at once: nothing free means "bin it on the CPU" */
    SERVICE_WAIT,    /* wait for room (the caller holds no slot that could be what is missing) */
};

/*
 * Opens a device histogram for spec (and, for thresholds, loads them into
 * the service).  A lease (transient = false) is kept for a group's whole
 * life and only granted while this backend and the whole server are under
 * their limits; a transient one serves one batch.  Returns false if there
 * is no room (only with SERVICE_NO_WAIT), and raises an ERROR if the
 * histogram could never fit in the service's device memory and the caller
 * waits.
 */
bool gpu_service_open(const gh::HistogramSpec &spec, bool transient, ServiceWait wait, ServiceHistogramRef *out);

/*
 * Opens a grouped histogram (gpu/specs/grouped_spec.h): spec.groups histograms of
 * spec.interval as one array of cells, always a lease, as gpu_service_open.
 */
bool gpu_service_open_grouped(const gh::GroupedSpec &spec, ServiceWait wait, ServiceHistogramRef *out);

/* The most values a grouped batch holds (a slot also carries their group numbers). */
int32 gpu_service_grouped_capacity(void);

/* Where a slot's group numbers go, value i's at [i]. */
uint32 *gpu_service_slot_groups(int32 slot);

/* Queues the slot's first n values, each in the group its number names, for a grouped histogram. */
void gpu_service_bin_grouped(int32 slot, const ServiceHistogramRef *ref, int32 n);

/* Closes the histogram; the service frees its device memory.  Never fails. */
void gpu_service_close(ServiceHistogramRef *ref);

/* Takes a free slot for filling (-1 if none, with SERVICE_NO_WAIT). */
int32 gpu_service_take_slot(ServiceWait wait);

/* Where a slot's values go. */
double *gpu_service_slot(int32 slot);

/* Queues the slot's first n values for binning into the histogram; the slot is the service's from then on. */
void gpu_service_bin(int32 slot, const ServiceHistogramRef *ref, int32 n);

/* Gives an unqueued slot back, or lets go of one the service still holds.  Never fails. */
void gpu_service_release_slot(int32 slot);

/*
 * Adds the histogram's counters into counts[0 .. nslots) and zeroes them in
 * the service, waiting for every batch queued before.  *slot holds the slot
 * used while waiting (so that the caller's cleanup can release it after a
 * cancel), and is -1 again on return.
 */
void gpu_service_read(const ServiceHistogramRef *ref, int32 nslots, int64 *counts, int32 *slot);

/* The same for counters [first, first + n), added into counts[0 .. n). */
void gpu_service_read_range(const ServiceHistogramRef *ref, int32 first, int32 n, int64 *counts, int32 *slot);

/*
 * Page batches (gpu/specs/page_spec.h): instead of values, a scan sends the
 * numbers of shared buffers it holds pinned, and the GPU reads the pages
 * out of the mapped buffer pool.  Whether the service can take them now:
 * it is up and has mapped the pool.
 */
bool gpu_service_pages_ready(void);

/* Opens a lease on a device histogram fed by page batches that read `column`, as gpu_service_open. */
bool gpu_service_open_pages(const gh::HistogramSpec &spec, const gh::PageColumn &column, ServiceWait wait,
                            ServiceHistogramRef *out);

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

/* The most pages a batch names: a page slot's, grouped or not. */
int32 gpu_service_page_capacity(void);

/* Where a slot's page words go. */
uint64 *gpu_service_slot_pages(int32 slot);

/*
 * Gives back every slot and device histogram this process holds, as its
 * exit callback does; for a caller whose own exit callback must run after
 * the slots are let go (the page batches' pins: page_gpu.cpp).
 */
void gpu_service_release_everything(void);

/*
 * Where the GPUs' page cache finds each page's key (gpu/specs/page_cache.h):
 * the LSN the scan saw under the page's share lock (0: not to be cached)
 * and its block number, in the page words' order.
 */
uint64 *gpu_service_slot_page_lsns(int32 slot);
uint32 *gpu_service_slot_page_blocks(int32 slot);

/*
 * For probes (gpu/specs/page_cache.h): each page's visibility map LSN (0:
 * none), and a byte a page the scan sets to 1 for each probe before it
 * queues the batch; the GPU clears those it answers.
 */
uint64 *gpu_service_slot_page_vms(int32 slot);
uint8 *gpu_service_slot_page_misses(int32 slot);

/*
 * Where a batch's runs of probes go (gh::ProbeRun), at most
 * gpu_service_probe_run_capacity() of them: its last pages, whose words
 * and keys the scan then leaves unwritten (their miss bytes it sets).
 */
gh::ProbeRun *gpu_service_slot_probe_runs(int32 slot);
int32 gpu_service_probe_run_capacity(void);

/* Whether the GPUs keep a page cache now, so that probes can be answered. */
bool gpu_service_page_cache_running(void);

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

/*
 * Queues the slot's n pages: the first n page words, or, with probe_runs,
 * the words up to the first run and then the runs; the pages stay pinned
 * until gpu_service_pages_done() says so.  rel: their relation's file, for
 * the GPUs' page cache (rel.rel 0: none of them is cached).
 */
void gpu_service_bin_pages(int32 slot, const ServiceHistogramRef *ref, int32 n, const gh::PageCacheRel &rel,
                           int32 probe_runs);

/*
 * Whether the page batch queued on slot is done (the GPU has read its
 * pages); with wait, waits for it, interruptibly.  When done, the slot is
 * free again, *result is the batch's gh::Status (cuda_error if the
 * service died meanwhile), *cached how many of its npages pages the GPU
 * read from its page cache, and, if missed is not NULL, missed[p] 1 for
 * each probe it did not answer (every probe of a failed batch).
 */
bool gpu_service_pages_done(int32 slot, int32 npages, bool wait, gh::Status *result, uint64 *cached,
                            uint8 *missed);

/*
 * Opens a lease on a grouped page histogram (gpu/specs/grouped_page_spec.h):
 * page batches are read, filtered, grouped and counted by the GPU, whose
 * interval tables table[0 .. table_words) are loaded now.  As
 * gpu_service_open otherwise.
 */
bool gpu_service_open_grouped_pages(const gh::GroupedPageSpec &spec, const int64 *table, int32 table_words,
                                    ServiceWait wait, ServiceHistogramRef *out);


/*
 * gpu_service_pages_done for a grouped page batch of npages pages: when
 * done, left_to_host[p] is 1 for each page the GPU did not count, which
 * the caller reads on the CPU before it unpins them; missed as above.
 */
bool gpu_service_grouped_pages_done(int32 slot, int32 npages, bool wait, gh::Status *result, uint64 *cached,
                                    uint8 *left_to_host, uint8 *missed);

/* Raises the ERROR for a request's failed gh::Status (nothing for ok). */
void gpu_service_report(gh::Status s);

/* Testing: the service's Nth CUDA call from now on fails. */
void gpu_service_fail_after(int32 calls);

/* Testing: the CUDA process kills itself with SIGSEGV while it holds the service's lock. */
void gpu_service_crash_cuda_process(void);

/* This process's traffic to the service, for gpu_histogram_stats() and EXPLAIN ANALYZE. */
extern int64 gh_values_sent_to_gpu;
extern int64 gh_batches_sent_to_gpu;
extern int32 gh_histograms_open;

#endif /* GH_SERVICE_CLIENT_H */
