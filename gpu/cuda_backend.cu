/*
 * cuda_backend.cu: the CUDA backend behind gpu_backend.h.
 *
 * One of these per PostgreSQL backend process: a context and a stream made
 * on first use and kept for the process's life, a pool of pinned batch
 * buffers (each paired with a device buffer of the same size and an event
 * saying when the GPU is done with it), and device histograms allocated from
 * the stream-ordered memory pool.  Each batch goes out as a copy on a copy
 * stream and a kernel on the compute stream that waits for it, so the copy
 * of one batch overlaps the binning of the one before; the host never waits for the GPU except to reuse a
 * buffer or to read a histogram back, and then it polls, so the caller's
 * interrupt check keeps the backend responsive to cancel.
 *
 * Every CUDA call goes through check(), which records the error text and,
 * for the leak tests, can be told to fail the Nth call on purpose.
 * Nothing here throws: the entry points catch everything.
 */
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "cuda_kernels.cuh"
#include "gpu_backend.h"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {

struct PoolBuffer : PinnedBatch {
    double *device;    /* device copy the kernel reads */
    cudaEvent_t copied; /* recorded on the copy stream after the copy into `device` */
    cudaEvent_t done;  /* recorded after the kernel that reads `device` */
    bool held;         /* handed out by gpu_batch_acquire, not yet submitted or released */
    bool in_flight;    /* submitted; free again once `done` has completed */
};

struct DeviceHistogram {
    HistogramSpec spec;         /* for thresholds, spec.thresholds points at the device copy */
    unsigned long long *counts; /* histogram_slots(spec) on the device */
    int *nan_flag;              /* on the device, after the counts */
    cudaEvent_t drained;
};

namespace {

struct Backend {
    bool started = false;
    int device = 0;
    cudaStream_t stream = nullptr;      /* kernels, memsets, read-backs */
    cudaStream_t copy_stream = nullptr; /* host-to-device batch copies, overlapping the kernels */
    KernelLimits limits{};
    std::vector<PoolBuffer *> pool;
    GpuCounters counters{};
    char last_error[256] = "";
    long fail_countdown = 0; /* > 0: the countdown-th CUDA call fails on purpose */
};
Backend g;

bool check(cudaError_t err, const char *what)
{
    if (g.fail_countdown > 0 && --g.fail_countdown == 0 && err == cudaSuccess) {
        snprintf(g.last_error, sizeof g.last_error, "%s: failure injected for testing", what);
        return false;
    }
    if (err == cudaSuccess)
        return true;
    snprintf(g.last_error, sizeof g.last_error, "%s: %s (%s)", what, cudaGetErrorString(err),
             cudaGetErrorName(err));
    cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    return false;
}

Status status_of(cudaError_t err)
{
    return err == cudaErrorMemoryAllocation ? Status::out_of_memory : Status::cuda_error;
}

#define GH_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (!check(err_, #call))                                                                   \
            return status_of(err_);                                                                \
    } while (0)

/*
 * Polls `event` until it completes, asking `interrupted` between polls.
 * Most waits are for a copy or a kernel of tens of microseconds, so it spins
 * first and sleeps (up to a millisecond at a time) only after that.
 */
Status wait_for(cudaEvent_t event, InterruptCheck interrupted)
{
    auto pause = std::chrono::microseconds(0);
    for (int polls = 0;; polls++) {
        cudaError_t err = cudaEventQuery(event);
        if (err == cudaSuccess)
            return Status::ok;
        if (err != cudaErrorNotReady) {
            check(err, "cudaEventQuery");
            return Status::cuda_error;
        }
        if (interrupted != nullptr && interrupted())
            return Status::interrupted;
        if (polls < 200) {
            std::this_thread::yield();
            continue;
        }
        pause = pause < std::chrono::microseconds(10) ? std::chrono::microseconds(10) : pause;
        std::this_thread::sleep_for(pause);
        if (pause < std::chrono::microseconds(1000))
            pause *= 2;
    }
}

void free_buffer(PoolBuffer *b)
{
    cudaEventSynchronize(b->done);
    cudaEventDestroy(b->done);
    cudaEventDestroy(b->copied);
    cudaFree(b->device);
    cudaFreeHost(b->values);
    g.counters.pinned_bytes -= static_cast<int64_t>(b->capacity * sizeof(double));
    g.counters.pinned_buffers--;
    delete b;
}

Status new_buffer(size_t capacity, PoolBuffer **out)
{
    PoolBuffer *b = new (std::nothrow) PoolBuffer{};
    if (b == nullptr)
        return Status::out_of_memory;
    b->capacity = capacity;
    cudaError_t err = cudaHostAlloc(reinterpret_cast<void **>(&b->values), capacity * sizeof(double),
                                    cudaHostAllocDefault);
    if (check(err, "cudaHostAlloc")) {
        err = cudaMalloc(reinterpret_cast<void **>(&b->device), capacity * sizeof(double));
        if (check(err, "cudaMalloc")) {
            err = cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming);
            if (check(err, "cudaEventCreate")) {
                err = cudaEventCreateWithFlags(&b->copied, cudaEventDisableTiming);
                if (check(err, "cudaEventCreate")) {
                    g.pool.push_back(b);
                    g.counters.pinned_bytes += static_cast<int64_t>(capacity * sizeof(double));
                    g.counters.pinned_buffers++;
                    *out = b;
                    return Status::ok;
                }
                cudaEventDestroy(b->done);
            }
            cudaFree(b->device);
        }
        cudaFreeHost(b->values);
    }
    delete b;
    return status_of(err);
}

void retire_completed()
{
    for (PoolBuffer *b : g.pool)
        if (b->in_flight && cudaEventQuery(b->done) == cudaSuccess)
            b->in_flight = false;
}

Status acquire(size_t capacity, size_t limit, InterruptCheck interrupted, PinnedBatch **out)
{
    if (!g.started)
        return Status::no_device;
    retire_completed();
    /* a free buffer of the right size; free ones of another size (batch_size changed) go */
    for (size_t i = 0; i < g.pool.size();) {
        PoolBuffer *b = g.pool[i];
        if (!b->held && !b->in_flight && b->capacity != capacity) {
            free_buffer(b);
            g.pool.erase(g.pool.begin() + i);
            continue;
        }
        if (!b->held && !b->in_flight) {
            b->held = true;
            *out = b;
            return Status::ok;
        }
        i++;
    }
    size_t bytes = capacity * sizeof(double);
    if (static_cast<size_t>(g.counters.pinned_bytes) + bytes <= limit) {
        PoolBuffer *b = nullptr;
        Status s = new_buffer(capacity, &b);
        if (s == Status::ok) {
            b->held = true;
            *out = b;
            return s;
        }
        if (s != Status::out_of_memory)
            return s;
    }
    /* wait for the buffer submitted first: the stream completes in order */
    for (PoolBuffer *b : g.pool) {
        if (b->in_flight && b->capacity == capacity) {
            Status s = wait_for(b->done, interrupted);
            if (s != Status::ok)
                return s;
            b->in_flight = false;
            b->held = true;
            *out = b;
            return Status::ok;
        }
    }
    return Status::out_of_memory;
}

Status start()
{
    if (g.started)
        return Status::ok;
    auto t0 = std::chrono::steady_clock::now();
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0)) {
        snprintf(g.last_error, sizeof g.last_error, "%s",
                 err == cudaSuccess ? "no CUDA device is visible" : cudaGetErrorString(err));
        cudaGetLastError();
        return Status::no_device;
    }
    GH_CUDA(err);
    GH_CUDA(cudaSetDevice(g.device));
    GH_CUDA(cudaFree(nullptr)); /* creates the context now, not inside the first query's copy */
    GH_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    GH_CUDA(cudaStreamCreateWithFlags(&g.copy_stream, cudaStreamNonBlocking));
    GH_CUDA(describe_device(g.device, &g.limits));
    /* keep freed device histograms in the stream-ordered pool, up to 256 MB */
    cudaMemPool_t pool;
    GH_CUDA(cudaDeviceGetDefaultMemPool(&pool, g.device));
    unsigned long long keep = 256ull << 20;
    GH_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    g.counters.startup_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    g.started = true;
    return Status::ok;
}

/*
 * One allocation per group: the counters, the NaN flag (padded to 8 bytes)
 * and, for thresholds, their device copy, which the kernels read.
 */
Status open(const HistogramSpec &spec, DeviceHistogram **out)
{
    if (!g.started)
        return Status::no_device;
    DeviceHistogram *h = new (std::nothrow) DeviceHistogram{};
    if (h == nullptr)
        return Status::out_of_memory;
    h->spec = spec;
    size_t bytes = sizeof(unsigned long long) * static_cast<size_t>(histogram_slots(spec));
    size_t table = spec.kind == SpecKind::thresholds ? sizeof(double) * static_cast<size_t>(spec.thresholds.count) : 0;
    cudaError_t err = cudaMallocAsync(reinterpret_cast<void **>(&h->counts), bytes + 8 + table, g.stream);
    if (check(err, "cudaMallocAsync")) {
        char *base = reinterpret_cast<char *>(h->counts);
        h->nan_flag = reinterpret_cast<int *>(base + bytes);
        bool ok = check(err = cudaMemsetAsync(h->counts, 0, bytes + sizeof(int), g.stream), "cudaMemsetAsync");
        if (ok && table > 0) {
            /* from pageable memory: returns once the source has been read */
            ok = check(err = cudaMemcpyAsync(base + bytes + 8, spec.thresholds.thresholds, table,
                                             cudaMemcpyHostToDevice, g.stream),
                       "cudaMemcpyAsync");
            h->spec.thresholds.thresholds = reinterpret_cast<const double *>(base + bytes + 8);
        }
        if (ok && check(err = cudaEventCreateWithFlags(&h->drained, cudaEventDisableTiming), "cudaEventCreate")) {
            *out = h;
            return Status::ok;
        }
        cudaFreeAsync(h->counts, g.stream);
    }
    delete h;
    return status_of(err);
}

/* The kernel for the histogram's kind, over n 8-byte values at `device`. */
cudaError_t bin_batch(const DeviceHistogram *h, const double *device, size_t n)
{
    const HistogramSpec &spec = h->spec;
    switch (spec.kind) {
    case SpecKind::float_interval:
        return bin_on_device(device, n, spec.interval, h->counts, h->nan_flag, g.limits, g.stream);
    case SpecKind::int64_interval:
        return bin_int64_on_device(reinterpret_cast<const int64_t *>(device), n, spec.int64, h->counts,
                                   h->nan_flag, g.limits, g.stream);
    case SpecKind::thresholds:
        return bin_thresholds_on_device(device, n, spec.thresholds.thresholds, spec.thresholds.count, h->counts,
                                        h->nan_flag, g.limits, g.stream);
    }
    return cudaErrorInvalidValue;
}

Status submit(DeviceHistogram *h, PoolBuffer *b, size_t n)
{
    b->held = false;
    /*
     * The copy stream must not overwrite `device` while an earlier kernel
     * still reads it: the buffer's last `done` orders the copy after that
     * kernel.  The kernel waits for this copy; other batches' copies and
     * kernels overlap.
     */
    GH_CUDA(cudaStreamWaitEvent(g.copy_stream, b->done, 0));
    GH_CUDA(cudaMemcpyAsync(b->device, b->values, n * sizeof(double), cudaMemcpyHostToDevice, g.copy_stream));
    GH_CUDA(cudaEventRecord(b->copied, g.copy_stream));
    GH_CUDA(cudaStreamWaitEvent(g.stream, b->copied, 0));
    GH_CUDA(bin_batch(h, b->device, n));
    GH_CUDA(cudaEventRecord(b->done, g.stream));
    b->in_flight = true;
    g.counters.values_binned += static_cast<int64_t>(n);
    g.counters.batches++;
    return Status::ok;
}

Status drain(DeviceHistogram *h, int64_t *counts, InterruptCheck interrupted)
{
    GH_CUDA(cudaEventRecord(h->drained, g.stream));
    Status s = wait_for(h->drained, interrupted);
    if (s != Status::ok)
        return s;
    size_t n = static_cast<size_t>(histogram_slots(h->spec));
    std::vector<unsigned long long> host(n);
    int nan_flag = 0;
    GH_CUDA(cudaMemcpyAsync(host.data(), h->counts, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                            g.stream));
    GH_CUDA(cudaMemcpyAsync(&nan_flag, h->nan_flag, sizeof(int), cudaMemcpyDeviceToHost, g.stream));
    GH_CUDA(cudaMemsetAsync(h->counts, 0, n * sizeof(unsigned long long) + sizeof(int), g.stream));
    GH_CUDA(cudaEventRecord(h->drained, g.stream));
    if ((s = wait_for(h->drained, nullptr)) != Status::ok) /* a short copy: not interruptible */
        return s;
    if (nan_flag)
        return Status::nan_value;
    for (size_t i = 0; i < n; i++)
        counts[i] += static_cast<int64_t>(host[i]);
    return Status::ok;
}

} // namespace

/* ---- the interface of gpu_backend.h: every entry point catches everything ---- */

#define GH_ENTRY(...)                                                                              \
    try {                                                                                          \
        __VA_ARGS__                                                                                \
    } catch (const std::bad_alloc &) {                                                             \
        return Status::out_of_memory;                                                              \
    } catch (...) {                                                                                \
        return Status::internal_error;                                                             \
    }

Status gpu_start() noexcept { GH_ENTRY(return start();) }

bool gpu_started() noexcept { return g.started; }

Status gpu_devices(DeviceInfo *out, int capacity, int *count) noexcept
{
    *count = 0;
    GH_ENTRY({
        Status s = start();
        if (s != Status::ok)
            return s;
        int n = 0;
        GH_CUDA(cudaGetDeviceCount(&n));
        for (int i = 0; i < n && i < capacity; i++) {
            cudaDeviceProp p;
            GH_CUDA(cudaGetDeviceProperties(&p, i));
            DeviceInfo &d = out[i];
            snprintf(d.name, sizeof d.name, "%s", p.name);
            d.ordinal = i;
            d.cc_major = p.major;
            d.cc_minor = p.minor;
            d.multiprocessors = p.multiProcessorCount;
            d.total_memory = p.totalGlobalMem;
            size_t free_bytes = 0, total = 0;
            GH_CUDA(cudaSetDevice(i));
            GH_CUDA(cudaMemGetInfo(&free_bytes, &total));
            d.free_memory = free_bytes;
            *count = i + 1;
        }
        GH_CUDA(cudaSetDevice(g.device));
        return Status::ok;
    })
}

const char *gpu_last_error() noexcept { return g.last_error; }

GpuCounters gpu_counters() noexcept { return g.counters; }

size_t gpu_free_device_memory() noexcept
{
    size_t free_bytes = 0, total = 0;
    if (!g.started || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        return 0;
    return free_bytes;
}

void gpu_fail_after(long calls) noexcept { g.fail_countdown = calls; }

Status gpu_batch_acquire(size_t capacity, size_t pool_limit_bytes, InterruptCheck interrupted,
                         PinnedBatch **out) noexcept
{
    *out = nullptr;
    GH_ENTRY(return acquire(capacity, pool_limit_bytes, interrupted, out);)
}

void gpu_batch_release(PinnedBatch *batch) noexcept
{
    if (batch != nullptr)
        static_cast<PoolBuffer *>(batch)->held = false;
}

Status gpu_histogram_open(const HistogramSpec &spec, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    GH_ENTRY(return open(spec, out);)
}

Status gpu_histogram_submit(DeviceHistogram *h, PinnedBatch *batch, size_t n) noexcept
{
    GH_ENTRY(return submit(h, static_cast<PoolBuffer *>(batch), n);)
}

Status gpu_histogram_drain(DeviceHistogram *h, int64_t *counts, InterruptCheck interrupted) noexcept
{
    GH_ENTRY(return drain(h, counts, interrupted);)
}

void gpu_histogram_close(DeviceHistogram *h) noexcept
{
    if (h == nullptr)
        return;
    /* stream order frees the counters only after every kernel that uses them */
    cudaFreeAsync(h->counts, g.stream);
    cudaEventDestroy(h->drained);
    delete h;
}

} // namespace gh
