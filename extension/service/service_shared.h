/*
 * service_shared.h: the GPU service's shared memory, as the service process
 * and its clients (every backend and parallel worker) both see it.
 *
 * Three tables under one spinlock, and the batch memory:
 *   ServiceShared     the service's state and counters, and the settings it
 *                     was started with;
 *   ServiceSlot[]     batch slots: a client fills one (FILLING), queues a
 *                     request on it (QUEUED), the service runs it (RUNNING)
 *                     and frees the slot, or, for a read, leaves the answer
 *                     in it (DONE) and wakes the client;
 *   ServiceHistogram[] the device histograms: which client owns each, its
 *                     spec and device, and the device memory it reserves;
 *   batch memory      slot_values 8-byte words per slot, page-aligned, that
 *                     the service registers with CUDA once, so the copy to
 *                     the device is DMA straight out of the slot.
 * Only the service touches CUDA.  Requests carry a sequence number; one
 * client's requests run in the order it queued them.
 */
#ifndef GH_SERVICE_SHARED_H
#define GH_SERVICE_SHARED_H

#include "../pg_headers.h"
extern "C" {
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"
}

#include "../../gpu/gpu_backend.h"
#include "../../gpu/histogram_spec.h"

enum ServiceState : int32 {
    SERVICE_DOWN = 0, /* not running (exited, or not started yet) */
    SERVICE_STARTING, /* running, starting CUDA */
    SERVICE_UP,       /* running with at least one GPU */
    SERVICE_NO_GPU,   /* running, but there is no usable GPU: everything bins on the CPU */
};

enum SlotState : int32 { SLOT_FREE = 0, SLOT_FILLING, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

enum SlotRequest : int32 {
    REQUEST_BIN,        /* bin `count` values of the slot into `hist` */
    REQUEST_THRESHOLDS, /* `count` thresholds of `hist`, from index `first` on */
    REQUEST_READ,       /* counters [first, first + count) of `hist` into the slot, zeroing them */
};

struct ServiceSlot {
    SlotState state;
    pid_t owner;        /* the client that took it */
    bool abandoned;     /* the owner let go while the service held it: the service frees it */
    SlotRequest request;
    int32 hist;
    uint64 hist_serial; /* the histogram's incarnation the request is for */
    int32 first;
    int32 count;
    uint64 seq;         /* queue order */
    int32 result;       /* gh::Status of a read */
    ConditionVariable done; /* a read is DONE */
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
};

struct ServiceDevice {
    gh::DeviceInfo info;
    int64 batches;
    int64 values;
    int32 histograms; /* open on this device now */
};

struct ServiceShared {
    slock_t mutex;
    ConditionVariable slot_freed; /* clients waiting for a slot or a histogram entry */

    /* the settings it was created with (postmaster-only GUCs) */
    int32 nslots;
    int32 slot_values;
    int32 nhistograms;
    int64 device_memory_limit;

    /* the service process */
    ServiceState state;
    pid_t pid;
    Latch *latch;         /* set by clients when they queue work */
    int32 starts;
    double startup_ms;    /* CUDA start-up of the current incarnation */
    bool registered;      /* batch memory page-locked with CUDA */
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

    /* testing: the service applies gpu_fail_after(fail_calls) when fail_request changes */
    uint32 fail_request;
    int32 fail_calls;
};

/* Attached in every process once shared memory exists; NULL without preloading. */
extern ServiceShared *gh_service;
extern ServiceSlot *gh_service_slots;
extern ServiceHistogram *gh_service_histograms;
extern double *gh_service_batches;

static inline double *service_slot_values(int32 slot)
{
    return gh_service_batches + static_cast<Size>(slot) * static_cast<Size>(gh_service->slot_values);
}

/* Bytes of page-aligned batch memory, and where the aligned area starts. */
Size service_batch_bytes(void);

/* Sets the service's latch, if there is a service. */
void service_wake(void);

/*
 * Fails every request the service holds and every open histogram (recording
 * `failure` as the reason, if given), wakes the clients waiting on them, and
 * frees what no client owns.  Called by the service when it starts and when
 * it exits.
 */
void service_fail_all(const char *failure);

#endif /* GH_SERVICE_SHARED_H */
