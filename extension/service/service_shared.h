/*
 * service_shared.h: the GPU service's shared memory, as the service process
 * and its clients (every backend and parallel worker) both see it.
 *
 * Three tables under one lock, and the batch memory:
 *   ServiceShared     the service's state and counters, and the settings it
 *                     was started with;
 *   ServiceSlot[]     batch slots: a client fills one (FILLING), queues a
 *                     request on it (QUEUED), the service runs it (RUNNING)
 *                     and frees the slot, or, for a read or a page batch,
 *                     leaves the answer in it (DONE) and wakes the client.
 *                     The first nslots carry values; the npage_slots after
 *                     them carry page batches only (see kPageSlotPages);
 *   ServiceHistogram[] the device histograms: which client owns each, its
 *                     spec and device, and the device memory it reserves;
 *   batch memory      slot_values 8-byte words per value slot, then
 *                     kPageSlotWords per page slot, page-aligned, that
 *                     the service registers with CUDA once, so the copy to
 *                     the device is DMA straight out of the slot.
 * Only the CUDA process touches CUDA.  Requests carry a sequence number; one
 * client's requests run in the order it queued them.
 *
 * Three kinds of process share this memory: clients (backends and parallel
 * workers), the supervisor (the background worker the postmaster knows) and
 * the CUDA process it forks, which the postmaster does not know and which
 * may die at any instant, by any signal.  So the lock records its holder's
 * pid (a dead CUDA process's lock is taken over by the supervisor, which
 * then repairs the tables), and the CUDA process uses nothing of
 * PostgreSQL's that needs a PGPROC: it wakes clients by setting their
 * latches, and asks the supervisor to broadcast the condition variable.
 */
#ifndef GH_SERVICE_SHARED_H
#define GH_SERVICE_SHARED_H

#include "../pg_headers.h"
extern "C" {
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
}

#include "../../gpu/gpu_backend.h"
#include "../../gpu/specs/grouped_page_spec.h"
#include "../../gpu/specs/histogram_spec.h"
#include "../../gpu/specs/page_cache.h"
#include "../../gpu/specs/page_cache_places.h"
#include "../../gpu/specs/page_spec.h"

namespace gpu_histogram {

enum ServiceState : int32 {
    SERVICE_DOWN = 0, /* no CUDA process (exited, or not started yet) */
    SERVICE_STARTING, /* the CUDA process is starting CUDA */
    SERVICE_UP,       /* the CUDA process runs with at least one GPU */
    SERVICE_NO_GPU,   /* the CUDA process found no usable GPU: everything bins on the CPU */
};

enum SlotState : int32 { SLOT_FREE = 0, SLOT_FILLING, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

enum SlotRequest : int32 {
    REQUEST_BIN,        /* bin `count` values of the slot into `hist` */
    REQUEST_THRESHOLDS, /* `count` thresholds of `hist` (a grouped page histogram's table words), from `first` on */
    REQUEST_READ,       /* counters [first, first + count) of `hist` into the slot, zeroing them */
    REQUEST_BIN_GROUPED, /* bin `count` values of the slot, each with its group number, into grouped `hist` */
    REQUEST_BIN_PAGES,   /* parse `count` pinned pages (page words, gpu/specs/page_spec.h) and bin hist's column */
};

/*
 * Requests whose owner waits for the answer: a read's counters, or the end
 * of a page batch, after which its pages may be unpinned.  The service
 * leaves them DONE and sets the owner's latch; the owner frees the slot.
 */
static inline bool request_answers_owner(SlotRequest request)
{
    return request == REQUEST_READ || request == REQUEST_BIN_PAGES;
}

struct ServiceSlot {
    SlotState state;
    pid_t owner;        /* the client that took it */
    int owner_procno;   /* its PGPROC number: the CUDA process sets its latch when a read is DONE */
    bool abandoned;     /* the owner let go while the service held it: the service frees it */
    SlotRequest request;
    int32 hist;
    uint64 hist_serial; /* the histogram's incarnation the request is for */
    int32 first;
    int32 count;
    uint64 seq;         /* queue order */
    int32 result;       /* gh::Status of a read */
    gh::PageCacheRel cache_rel; /* a page batch's relation, for the GPUs' page cache (rel 0: not cached) */
    int32 probe_runs;   /* a page batch's runs of probes (kPageSlotRunWord) */
};

enum HistEntryState : int32 { HIST_FREE = 0, HIST_OPEN, HIST_CLOSING };

struct ServiceHistogram {
    HistEntryState state;
    pid_t owner;
    uint64 serial;       /* changes every time the entry is taken */
    int32 device;
    bool transient;      /* taken for one batch (device = 'gpu' past a backend's lease limit) */
    int32 error;         /* gh::Status of a failed request: the next read reports it */
    int64 device_bytes;  /* reserved out of device_memory_limit */
    gh::HistogramSpec spec; /* spec.thresholds.thresholds is meaningless here: they travel in slots */
    uint32 groups;       /* > 0: a grouped histogram of spec.interval (gh::GroupedSpec), groups side by side */
    bool pages;          /* fed by REQUEST_BIN_PAGES: `column` says what to read out of each page */
    gh::PageColumn column;
    bool grouped_pages;  /* fed by REQUEST_BIN_PAGES, grouped: page_spec says what to read and count */
    gh::GroupedPageSpec page_spec;
    int32 table_words;   /* its keys' interval tables, loaded by REQUEST_THRESHOLDS before the first batch */
};

struct ServiceDevice {
    gh::DeviceInfo info;
    int64 batches;
    int64 values;
    int32 histograms; /* open on this device now */
};

/*
 * What share of a scan's pages the GPU last read from its page cache, for
 * one relation file and one shape of scan (scan/plan/cached_cost.h): the
 * planner's only way to know whether a table is in the GPUs' caches.
 * Kept for the kCacheShares shapes noted last.
 */
struct CachedShare {
    gh::PageCacheRel rel; /* rel 0: an empty entry */
    uint32 shape;
    float share;
    uint64 noted;         /* ServiceShared::shares_noted when last noted */
};
constexpr int kCachedShares = 64;

/* The page caches' places of the files placed last (gpu/specs/page_cache_places.h). */
constexpr int kCachePlaces = 1024;

struct ServiceShared {
    pg_atomic_uint32 lock;        /* pid of the holder, 0 when free: service_lock() */
    ConditionVariable slot_freed; /* clients waiting for a slot or a histogram entry */

    /* the settings it was created with (postmaster-only GUCs) */
    int32 nslots;      /* value slots: [0, nslots) */
    int32 slot_values;
    int32 npage_slots; /* page slots: [nslots, nslots + npage_slots) */
    int32 nhistograms;
    int64 device_memory_limit;

    /* the supervisor (the background worker) */
    Latch *supervisor_latch;
    pg_atomic_uint32 broadcast_wanted; /* the CUDA process asks for a broadcast of slot_freed */

    /* the CUDA process */
    ServiceState state;
    pid_t pid;
    pg_atomic_uint32 doorbell; /* rung by clients when they queue work: service_wake() */
    pg_atomic_uint32 sleeping; /* the CUDA process waits for the doorbell (SIGURG wakes it) */
    int32 starts;
    double startup_ms;    /* CUDA start-up of the current incarnation */
    bool registered;      /* batch memory page-locked with CUDA */
    bool map_buffers;     /* gpu_histogram.service_map_buffers: register the shared buffer pool */
    bool pool_registered; /* the shared buffer pool is mapped for the GPUs: scans may send pages */
    int64 page_cache_bytes;   /* gpu_histogram.gpu_page_cache, per device */
    int64 page_cache_entries; /* pages each GPU's cache holds (0: none) */
    char message[256];    /* why there is no GPU ("" when there is one) */
    int32 start_status;   /* gh::Status of starting CUDA: not_built, no_device, ... */
    char last_failure[256]; /* the last fatal CUDA error, kept across restarts for the clients it failed */
    int32 ndevices;
    ServiceDevice devices[gh::kMaxDevices];

    /* the tables' bookkeeping */
    uint64 next_seq;
    uint64 next_serial;
    int32 next_device;
    int32 slots_in_use;
    int32 histograms_open;
    int32 histograms_closing; /* entries in HIST_CLOSING, for the service to free */
    int64 device_bytes;
    int64 batches;
    int64 values;

    /* the scans' page cache shares, for the planner */
    CachedShare shares[kCachedShares];
    uint64 shares_noted;
    /* the page caches' places of relation files (gpu_service_cache_base) */
    gh::CachePlace places[kCachePlaces];
    uint64 places_made;
    int64 next_place; /* where the next file goes */

    /* testing: the service applies gpu_fail_after(fail_calls) when fail_request changes */
    uint32 fail_request;
    int32 fail_calls;
    /* testing: the CUDA process kills itself with SIGSEGV, holding the lock, when crash_request changes */
    uint32 crash_request;
};

/* Attached in every process once shared memory exists; NULL without preloading. */
extern ServiceShared *gh_service;
extern ServiceSlot *gh_service_slots;
extern ServiceHistogram *gh_service_histograms;
extern double *gh_service_batches;

/*
 * Pages a page batch names at most.  A batch of pinned pages names at
 * most 8,192 of them (page_gpu.cpp says why); the rest of a slot is for
 * probes, which pin nothing.  A batch costs the GPU service about 50 us
 * beyond its pages (the request, the copies and launches, the collection),
 * and a scan has one batch on the GPU at a time: a serial scan of 100M
 * cached rows, all probes, sent 78 batches of 8,192 pages, and waited 4.4
 * of its 8.6 ms for them on the H200 host.
 *
 * Page batches have slots of their own.  In the value slots (8 MB each,
 * 32 by default) a page batch used 72 kB of one, and under 64 pgbench
 * clients each running an hourly heatmap over 10M rows, batches the GPU
 * had finished, still uncollected by scans waiting for a core, held every
 * slot: the GPU received 30-36 GB/s, against 58-62 when nothing held it
 * back (H100 and H200 alike).  With 128 page slots, and auto's bound
 * counting only batches not yet finished, it received 42-54 GB/s and auto
 * ran 1.19x the transactions; 256 slots changed nothing.
 */
constexpr int32 kPageSlotPages = 32768;
/*
 * A page slot's words: the page words, then a byte a page for a grouped
 * batch's answer (gh::grouped_page_capacity), then the pages' keys for the
 * GPUs' page cache (gh::PageCacheKeys): their LSNs, their block numbers,
 * their visibility map LSNs, room for the directives on the device, the
 * number of hits, a byte a page for the probes the cache missed, and the
 * batch's runs of probes (gh::ProbeRun), at most kPageSlotProbeRuns: a
 * serial scan of an all-visible table sends one a batch, a parallel one a
 * few (its blocks come in chunks), and a batch whose runs are used up is
 * sent as it is.
 */
constexpr int32 kPageSlotProbeRuns = 1024;
constexpr int32 kPageSlotLsnWord = kPageSlotPages + kPageSlotPages / 8;
constexpr int32 kPageSlotBlockWord = kPageSlotLsnWord + kPageSlotPages;
constexpr int32 kPageSlotVmWord = kPageSlotBlockWord + kPageSlotPages / 2;
constexpr int32 kPageSlotDirectiveWord = kPageSlotVmWord + kPageSlotPages;
constexpr int32 kPageSlotHitsWord = kPageSlotDirectiveWord + kPageSlotPages / 2;
constexpr int32 kPageSlotMissWord = kPageSlotHitsWord + 1;
constexpr int32 kPageSlotRunWord = kPageSlotMissWord + kPageSlotPages / 8;
constexpr int32 kPageSlotWords = kPageSlotRunWord + kPageSlotProbeRuns * sizeof(gh::ProbeRun) / sizeof(uint64);

static inline gh::PageCacheKeys service_page_cache_keys(const gh::PageCacheRel &rel, int32 probe_runs)
{
    return gh::PageCacheKeys{rel,
                             kPageSlotLsnWord,
                             kPageSlotBlockWord,
                             kPageSlotVmWord,
                             kPageSlotDirectiveWord,
                             kPageSlotHitsWord,
                             kPageSlotMissWord,
                             kPageSlotRunWord,
                             static_cast<uint32>(probe_runs)};
}

/* Value slots and page slots together: the slot table's length. */
static inline int32 service_all_slots(void)
{
    return gh_service->nslots + gh_service->npage_slots;
}

static inline bool service_is_page_slot(int32 slot)
{
    return slot >= gh_service->nslots;
}

/* The 8-byte words a slot holds. */
static inline int32 service_slot_words(int32 slot)
{
    return service_is_page_slot(slot) ? kPageSlotWords : gh_service->slot_values;
}

static inline double *service_slot_values(int32 slot)
{
    const Size values = static_cast<Size>(gh_service->nslots) * static_cast<Size>(gh_service->slot_values);
    if (service_is_page_slot(slot))
        return gh_service_batches + values + static_cast<Size>(slot - gh_service->nslots) * kPageSlotWords;
    return gh_service_batches + static_cast<Size>(slot) * static_cast<Size>(gh_service->slot_values);
}

/*
 * A grouped batch (REQUEST_BIN_GROUPED) shares one slot between its values
 * and their group numbers: at most this many doubles from the slot's start,
 * then as many uint32 group numbers from word service_grouped_values() on.
 */
static inline int32 service_grouped_values(void)
{
    return static_cast<int32>(static_cast<int64>(gh_service->slot_values) * 2 / 3);
}

static inline uint32 *service_slot_groups(int32 slot)
{
    return reinterpret_cast<uint32 *>(service_slot_values(slot) + service_grouped_values());
}

/* Bytes of page-aligned batch memory, and where the aligned area starts. */
Size service_batch_bytes(void);

/*
 * The lock over everything above: a spinlock that knows its holder, so
 * that the supervisor can take over one a killed CUDA process held.  Held
 * for a few instructions, with no system call and nothing that can fail
 * in between.
 */
void service_lock(void);
void service_unlock(void);

/* Rings the CUDA process's doorbell: there is work queued. */
void service_wake(void);

/* Wakes a client that waits on its latch for a read. */
void service_wake_owner(const ServiceSlot *slot);

/*
 * Fails every request the CUDA process holds and every open histogram
 * (recording `failure` as the reason, if given), frees what no client owns,
 * and recounts the tables' totals from the entries themselves (a process
 * killed under the lock may have left them half updated).  Called with the
 * lock held; the caller then wakes the clients (service_wake_clients).
 */
void service_fail_all_locked(const char *failure);

/* The readers of failed reads and everyone waiting for room: after service_fail_all_locked. */
void service_wake_clients(void);

} // namespace gpu_histogram

#endif /* GH_SERVICE_SHARED_H */
