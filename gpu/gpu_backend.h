/*
 * gpu_backend.h: the CUDA backend's interface, as the extension sees it.
 *
 * Plain data and Status codes only, so the extension needs neither CUDA nor
 * C++ exceptions.  A build without nvcc links no_cuda_backend.cpp, whose
 * every call answers Status::not_built.
 *
 * Lifecycle, per PostgreSQL backend: gpu_start() creates the CUDA context on
 * first use and keeps it for the process's life (never call it in the
 * postmaster: backends are forked and CUDA is not fork-safe).  Pinned batch
 * buffers come from a per-process pool bounded by the caller's limit and are
 * reused across queries.  A DeviceHistogram holds one group's counters on the
 * device while batches are copied and binned on a stream behind the scan; it
 * is read back once, when the group's result is needed.
 */
#ifndef GH_GPU_BACKEND_H
#define GH_GPU_BACKEND_H

#include <cstddef>
#include <cstdint>

#include "histogram_spec.h"
#include "status.h"

namespace gh {

/* Polled while waiting for the GPU; returning true abandons the wait (Status::interrupted). */
using InterruptCheck = bool (*)();

struct DeviceInfo {
    char name[128];
    int ordinal;
    int cc_major, cc_minor;
    int multiprocessors;
    size_t total_memory, free_memory;
};

struct GpuCounters {
    int64_t values_binned; /* values sent through the kernel */
    int64_t batches;       /* kernel launches over host batches */
    int64_t pinned_bytes;  /* pinned memory held by the pool now */
    int64_t pinned_buffers;
    double startup_ms;     /* wall time of gpu_start()'s context creation, 0 if not started */
};

/* Creates the CUDA context, stream and pool on the first call; cheap afterwards. */
Status gpu_start() noexcept;
bool gpu_started() noexcept;

/* The devices this process sees; *count is set even when there are none. */
Status gpu_devices(DeviceInfo *out, int capacity, int *count) noexcept;

/* Text of the most recent CUDA failure in this process ("" if none). */
const char *gpu_last_error() noexcept;
GpuCounters gpu_counters() noexcept;
size_t gpu_free_device_memory() noexcept;

/* Testing only: the calls-th CUDA call from now on fails as if CUDA had (0: never). */
void gpu_fail_after(long calls) noexcept;

/*
 * A page-locked host buffer of `capacity` 8-byte values from the pool:
 * doubles, or int64s written into them byte for byte for a time histogram.
 */
struct PinnedBatch {
    double *values;
    size_t capacity;
};

/*
 * Takes a free buffer of `capacity` values, allocating one while the pool is
 * under `pool_limit_bytes`, else waiting for a buffer in flight to come back.
 * Answers Status::out_of_memory if every buffer is held and none is in flight.
 */
Status gpu_batch_acquire(size_t capacity, size_t pool_limit_bytes, InterruptCheck interrupted,
                         PinnedBatch **out) noexcept;
/* Returns an unsubmitted buffer to the pool. */
void gpu_batch_release(PinnedBatch *batch) noexcept;

struct DeviceHistogram;

/*
 * Zeroed device counters for one group's histogram_slots(spec) buckets; for
 * thresholds, also a device copy of them (the caller's may go after this).
 */
Status gpu_histogram_open(const HistogramSpec &spec, DeviceHistogram **out) noexcept;

inline Status gpu_histogram_open(const BucketSpec &spec, DeviceHistogram **out) noexcept
{
    return gpu_histogram_open(float_histogram(spec), out);
}

/*
 * Queues a copy of batch->values[0 .. n) to the device and a kernel that bins
 * it (8-byte words: int64s for an int64_interval spec, doubles else), and returns at once; the buffer goes back to the pool when the GPU is
 * done with it.  The batch is the backend's from then on, even on failure.
 */
Status gpu_histogram_submit(DeviceHistogram *h, PinnedBatch *batch, size_t n) noexcept;

/*
 * Waits for the submitted work, adds the device counters into counts[0 ..
 * histogram_slots(spec)) and zeroes them on the device.  Status::nan_value if any binned
 * value was NaN.
 */
Status gpu_histogram_drain(DeviceHistogram *h, int64_t *counts, InterruptCheck interrupted) noexcept;

/* Frees the device counters once the GPU is done with them.  Never fails. */
void gpu_histogram_close(DeviceHistogram *h) noexcept;

} // namespace gh

#endif /* GH_GPU_BACKEND_H */
