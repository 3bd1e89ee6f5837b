/*
 * device_policy.h: the one counter, which decides where a batch is
 * counted and sees that it is.
 *
 * Three paths hand work to the GPU service: a histogram state's batches of
 * values (gpu_binning.h), a grouped scan's batches of values and group
 * numbers (scan/grouped/table/group_gpu.h) and the scan's batches of pinned
 * pages (scan/offload/page_gpu.h).  Each hands a ready batch to
 * device_count() with its two ways of counting it.  The counter weighs the
 * setting, the batch and the service (the CPU, the GPU if the service has
 * room now, or the GPU waiting for room), sends it, and when the service
 * refuses it counts it on the CPU there and then: no path decides for
 * itself, and a refused batch never travels back up to whoever made it.
 * How a path takes its room in the service (a lease, a reservation, a slot)
 * stays its own.
 */
#ifndef GH_DEVICE_POLICY_H
#define GH_DEVICE_POLICY_H

#include "pg_headers.h"

namespace gpu_histogram {

enum class DeviceChoice {
    cpu,      /* bin it on this process's CPU */
    gpu_now,  /* the GPU if the service has room at once; if not, the CPU */
    gpu_wait, /* the GPU, waiting for room (device = gpu) */
};

/* The work in hand. */
struct DeviceWork {
    int64 values;    /* the values it bins (for pages, their line pointers) */
    bool full_batch; /* a whole batch; else what is left at the end of the input */
    bool on_gpu;     /* the caller already bins into a device histogram of the service */
    bool refused;    /* auto: the service had no room for the caller before, and it stays on the CPU */
};

/*
 * A remainder smaller than this (a histogram state's whole CPU chunk), of
 * a caller with nothing on the GPU yet, is binned on the CPU in every
 * mode; device = gpu still raises its ERROR when there is no GPU.  Sending
 * it costs a round trip to the service: on the H100 host 210,000 groups of
 * one or two values each took 28 s with device = gpu, about 130 us a
 * group, against 0.48 s for the whole query on the CPU.
 */
constexpr int64 kGpuMinValues = 8192;

/* Whether the GPU may take part at all: not with device = cpu, nor in auto while the service is not up. */
bool device_gpu_wanted(void);

/*
 * device_gpu_wanted(), where work is about to come: device = gpu raises
 * the service's ERROR (38000) when it has no GPU.
 */
bool device_gpu_possible(void);

/* A batch ready to be counted, and its path's two ways of counting it. */
struct DeviceBatch {
    DeviceWork work;
    void *batch;
    /* Hands the batch to the GPU service under choice (never cpu); false: no room, and nothing is held. */
    bool (*send)(void *batch, DeviceChoice choice);
    /*
     * Counts it on this process's CPU.  choice says why: cpu, or a GPU
     * choice whose service had no room, after which a path may keep its
     * next batches here too.
     */
    void (*count_here)(void *batch, DeviceChoice choice);
};

/*
 * Counts the batch: on the CPU in device = cpu; in auto on the GPU for a
 * full batch or a caller already on the GPU, if the service has room at
 * once; in gpu on the GPU, waiting for room.  Whatever the GPU does not
 * take is counted here before it returns.  true: the GPU took it.
 */
bool device_count(const DeviceBatch &b);

} // namespace gpu_histogram

#endif /* GH_DEVICE_POLICY_H */
