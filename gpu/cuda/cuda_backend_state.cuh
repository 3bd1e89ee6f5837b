/*
 * cuda_backend_state.cuh: the CUDA backend's state and the helpers every
 * part of it uses, for cuda_backend.cu (devices, batches, histograms) and
 * cuda_pages.cu (the registered buffer pool and the page batches) and
 * cuda_page_cache.cu (the pages kept in device memory) only.
 *
 * One Backend per process, as gpu_backend.h says: a context and two
 * streams per device, the counters, the text of the last CUDA failure and
 * the failure injection of the tests.  Every CUDA call goes through
 * check(), so that an injected failure can land on any of them, in either
 * file.
 */
#ifndef GH_CUDA_BACKEND_STATE_CUH
#define GH_CUDA_BACKEND_STATE_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <new>

#include "../dispatch/cuda_kernels.cuh"
#include "../gpu_backend.h"

namespace gh {

struct BatchBuffer {
    const double *host; /* the caller's (registered) area */
    size_t capacity;
    int device;
    double *on_device;  /* the device copy the kernel reads */
    cudaEvent_t copied; /* recorded on the copy stream after the copy into on_device */
    cudaEvent_t done;   /* recorded after the kernel that reads on_device */
    /* a page batch's cache fills, to commit once its pins are known to have lasted (gpu_page_cache_commit) */
    unsigned long long cache_seq; /* 0: nothing to commit */
    size_t cache_pages;
    PageCacheKeys cache_keys;
};

struct DeviceHistogram {
    int device;
    HistogramSpec spec;         /* for thresholds, spec.thresholds points at the device copy */
    DeviceThresholds thresholds; /* thresholds: the device copy and its index (stage_thresholds) */
    uint32_t groups;            /* grouped: spec.interval in this many groups; 0: not grouped */
    int32_t cells;              /* counters: histogram_slots(spec), or grouped_cells() */
    unsigned long long *counts; /* `cells` on the device */
    int *flags;                 /* on the device, after the counts: 1 NaN, 2 group out of range */
    cudaEvent_t drained;
    GroupedPageSpec *page_spec; /* a grouped page histogram's spec (gpu_grouped_pages_open), else null */
    int64_t *table;             /* ... its keys' interval tables on the device ... */
    int32_t table_words;        /* ... of this many int64s */
};

namespace cuda_state {

/* One device's page cache (page_cache.h); entries == 0: none. */
struct PageCacheMemory {
    uint4 *pages = nullptr;
    kernels::CacheKey *keys = nullptr;
    unsigned long long *claims = nullptr; /* the batch that last claimed each entry */
    uint32_t entries = 0;
    unsigned long long next_seq = 1;      /* claims start at 0: no batch */
};

struct Device {
    PageCacheMemory cache;
    cudaStream_t stream = nullptr;      /* kernels, memsets, read-backs */
    cudaStream_t copy_stream = nullptr; /* host-to-device batch copies, overlapping the kernels */
    KernelLimits limits{};
    const unsigned char *pool = nullptr; /* the registered buffer pool, as this device addresses it */
};

struct Backend {
    bool started = false;
    int ndevices = 0;
    Device devices[kMaxDevices];
    GpuCounters counters{};
    char last_error[256] = "";
    long fail_countdown = 0; /* > 0: the countdown-th CUDA call fails on purpose */
    void *pool_host = nullptr; /* the buffer pool gpu_pool_register was given, once it is registered */
    size_t pool_bytes = 0;
};
extern Backend g;

/* Records a failure's text (or fails a successful call on purpose); true if the call may go on. */
bool check(cudaError_t err, const char *what);
Status status_of(cudaError_t err);
/* Makes `device` current, if it is one gpu_start() opened. */
Status set_device(int device);

#define GH_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (!check(err_, #call))                                                                   \
            return status_of(err_);                                                                \
    } while (0)

/*
 * A batch's first n words onto its device, for the kernel that follows on
 * d.stream.  The copy must not overwrite on_device while an earlier kernel
 * still reads it: the buffer's last `done` orders it after that kernel,
 * and the stream waits for the copy; other batches' copies and kernels
 * overlap.  (A page batch's words and keys: copy_page_batch_in.)
 */
inline Status copy_batch_in(const Device &d, BatchBuffer *b, size_t n)
{
    GH_CUDA(cudaStreamWaitEvent(d.copy_stream, b->done, 0));
    GH_CUDA(cudaMemcpyAsync(b->on_device, b->host, n * sizeof(double), cudaMemcpyHostToDevice, d.copy_stream));
    GH_CUDA(cudaEventRecord(b->copied, d.copy_stream));
    GH_CUDA(cudaStreamWaitEvent(d.stream, b->copied, 0));
    return Status::ok;
}

/* The body of an entry point of gpu_backend.h: nothing escapes it. */
#define GH_ENTRY(...)                                                                              \
    try {                                                                                          \
        __VA_ARGS__                                                                                \
    } catch (const std::bad_alloc &) {                                                             \
        return Status::out_of_memory;                                                              \
    } catch (...) {                                                                                \
        return Status::internal_error;                                                             \
    }

} // namespace cuda_state

/*
 * The page cache's steps around a page batch's kernel (cuda_page_cache.cu),
 * for cuda_pages.cu: whether keys' areas fit a buffer of capacity words
 * holding n page words and their grouped answer; the resolution of the
 * pages against the device's entries (*view: none if the batch is not
 * cached), after copy_page_batch_in(); and, after the kernel, the
 * copy of the number of hits and of the probes' misses into the host area
 * (a batch not cached leaves the host's miss bytes as they were: the
 * caller flags every probe missed before it submits).
 */
bool page_cache_keys_fit(const PageCacheKeys &k, size_t n, size_t capacity);
/*
 * A page batch's n page words onto its device as copy_batch_in() does,
 * with its keys (if any) at the same offsets; of a batch with probe runs,
 * the words and keys before the first run, then the runs, which a kernel
 * on d.stream expands into the rest.  Runs out of order or past n are a
 * client's mistake: internal_error, nothing queued.
 */
Status copy_page_batch_in(const cuda_state::Device &d, BatchBuffer *b, size_t n, const PageCacheKeys *keys);
Status resolve_cached_pages(const cuda_state::Device &d, BatchBuffer *b, size_t n, const PageCacheKeys *keys,
                            uint64_t pool_pages, PageCacheView *view);
Status read_cache_hits(const cuda_state::Device &d, BatchBuffer *b);

} // namespace gh

#endif /* GH_CUDA_BACKEND_STATE_CUH */
