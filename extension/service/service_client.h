/*
 * service_client.h: what every client of the GPU service shares, whether it
 * sends values (client_values.h) or pages (client_pages.h).  A backend or
 * parallel worker asks the service (supervisor.cpp and cuda_process.cpp)
 * only through these three headers; the client never touches CUDA.
 *
 * A client opens a device histogram in the service (an entry of the shared
 * table), takes a batch slot, fills it and queues it for binning, and goes
 * on while the service copies and bins it; when the group's result is
 * needed it reads the counters back, and at the end it closes the
 * histogram.  Everything a client holds is recorded with its pid in shared
 * memory: releasing it is cheap and safe in any state, and when the
 * process exits, whatever is left is given back.
 *
 * Functions that wait do so on condition variables, interruptibly: a cancel
 * raises its ERROR from inside the wait, and the caller's cleanup releases
 * the slot and histogram it held.  Errors are ereported here, after no C++
 * object is left on the stack.
 */
#ifndef GH_SERVICE_CLIENT_H
#define GH_SERVICE_CLIENT_H

#include "../pg_headers.h"
#include "../../gpu/specs/status.h"

namespace gpu_histogram {

/* A histogram entry taken in the service. */
struct ServiceHistogramRef {
    int32 index; /* -1: none */
    uint64 serial;
};

enum ServiceWait {
    SERVICE_NO_WAIT, /* answer at once: nothing free means "bin it on the CPU" */
    SERVICE_WAIT,    /* wait for room (the caller holds no slot that could be what is missing) */
};

/* What the service can hold, for sizing a client's batches. */
struct ServiceLimits {
    int64 device_memory;  /* the device memory its histograms may take, in bytes (0 without a service) */
    int32 slot_values;    /* values a slot holds (INT32_MAX without a service) */
    int32 grouped_values; /* values a grouped batch holds: a slot also carries their group numbers (0 without) */
    int32 batch_pages;    /* pages a page batch names, probes included, grouped or not */
    int32 probe_runs;     /* runs of probes a page batch names (gh::ProbeRun) */
};
ServiceLimits gpu_service_limits(void);

/* Whether the service runs with at least one GPU. */
bool gpu_service_up(void);

/* Raises the ERROR that device = 'gpu' gives when the service has no GPU to offer. */
void gpu_service_require(void);

/* Closes the histogram; the service frees its device memory.  Never fails. */
void gpu_service_close(ServiceHistogramRef *ref);

/* Gives an unqueued slot back, or lets go of one the service still holds.  Never fails. */
void gpu_service_release_slot(int32 slot);

/*
 * Adds the histogram's counters [first, first + n) into counts[0 .. n) and
 * zeroes them in the service, waiting for every batch queued before.
 * *slot holds the slot used while waiting (so that the caller's cleanup
 * can release it after a cancel), and is -1 again on return.
 */
void gpu_service_read_range(const ServiceHistogramRef *ref, int32 first, int32 n, int64 *counts, int32 *slot);

/*
 * The same, but a histogram that met a NaN value answers nan_value rather
 * than raising it (and adds none of its counts): for a caller that holds
 * the error back (a leaf of a partitioned table, scan/grouped/leaf_errors.h).
 */
gh::Status gpu_service_read_range_or_nan(const ServiceHistogramRef *ref, int32 first, int32 n, int64 *counts,
                                         int32 *slot);

/* Raises the ERROR for a request's failed gh::Status (nothing for ok). */
void gpu_service_report(gh::Status s);

/*
 * Gives back every slot and device histogram this process holds, as its
 * exit callback does; for a caller whose own exit callback must run after
 * the slots are let go (the page batches' pins: scan/offload/page_gpu.cpp).
 */
void gpu_service_release_everything(void);

/* Testing: the service's Nth CUDA call from now on fails. */
void gpu_service_fail_after(int32 calls);

/* Testing: the CUDA process kills itself with SIGSEGV while it holds the service's lock. */
void gpu_service_crash_cuda_process(void);

/* This process's traffic to the service, for gpu_histogram_stats() and EXPLAIN ANALYZE. */
extern int64 gh_values_sent_to_gpu;
extern int64 gh_batches_sent_to_gpu;
extern int32 gh_histograms_open;

} // namespace gpu_histogram

#endif /* GH_SERVICE_CLIENT_H */
