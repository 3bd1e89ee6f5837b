/*
 * cuda_backend.cu: the CUDA backend behind gpu_backend.h: its batches and
 * device histograms (starting the devices is cuda_devices.cu's).
 *
 * Lives in the GPU service process: a context and two streams per device
 * (copies on one, kernels and read-backs on the other, so the copy of one
 * batch overlaps the binning of the one before), host batch areas that the
 * caller owns and registers, each paired per device with a device buffer and
 * events, and device histograms allocated from the stream-ordered memory
 * pool.  The host waits for the GPU only to read a histogram back, and then
 * it polls, so the caller's interrupt check keeps it responsive.
 *
 * A grouped histogram is one such histogram whose batches come in pairs,
 * values and group numbers, copied one after the other.
 *
 * Every CUDA call goes through check() (cuda_devices.cu), which records the
 * error text and, for the failure tests, can be told to fail the Nth call
 * on purpose.
 * Nothing here throws: the entry points catch everything.  The state and
 * those helpers are in cuda_backend_state.cuh, shared with cuda_pages.cu,
 * which holds the registered buffer pool and the page batches.
 */
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "cuda_backend_state.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {

using namespace cuda_state;

namespace {

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

/*
 * An injected failure may land on a call that did succeed: every failure
 * path frees whatever was really made (the fields start out null).
 */
void free_batch_parts(BatchBuffer *b)
{
    if (b->done != nullptr)
        cudaEventDestroy(b->done);
    if (b->copied != nullptr)
        cudaEventDestroy(b->copied);
    if (b->on_device != nullptr)
        cudaFree(b->on_device);
    delete b;
}

Status create_batch(int device, const double *host, size_t capacity, BatchBuffer **out)
{
    Status s = set_device(device);
    if (s != Status::ok)
        return s;
    BatchBuffer *b = new (std::nothrow) BatchBuffer{};
    if (b == nullptr)
        return Status::out_of_memory;
    b->host = host;
    b->capacity = capacity;
    b->device = device;
    cudaError_t err = cudaSuccess;
    if (check(err = cudaMalloc(reinterpret_cast<void **>(&b->on_device), capacity * sizeof(double)), "cudaMalloc") &&
        check(err = cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming), "cudaEventCreate") &&
        check(err = cudaEventCreateWithFlags(&b->copied, cudaEventDisableTiming), "cudaEventCreate")) {
        *out = b;
        return Status::ok;
    }
    free_batch_parts(b);
    return status_of(err);
}

/*
 * One allocation per group: the counters, the flags (padded to 8 bytes)
 * and, for thresholds, their device copy, which the kernels read.
 */
Status open(const HistogramSpec &spec, uint32_t groups, int32_t cells, int device, DeviceHistogram **out)
{
    Status s = set_device(device);
    if (s != Status::ok)
        return s;
    cudaStream_t stream = g.devices[device].stream;
    DeviceHistogram *h = new (std::nothrow) DeviceHistogram{};
    if (h == nullptr)
        return Status::out_of_memory;
    h->device = device;
    h->spec = spec;
    h->groups = groups;
    h->cells = cells;
    /*
     * The cells, then the page kernel's tuple counter (drained as cell
     * `cells`), the flags, and 16-byte aligned, the thresholds with their index
     * and segments (stage_thresholds).
     */
    size_t bytes = sizeof(unsigned long long) * (static_cast<size_t>(cells) + 1);
    const size_t table_at = (bytes + sizeof(int) + 15) / 16 * 16;
    size_t table = spec.kind == SpecKind::thresholds
                       ? threshold_device_bytes(spec.thresholds.thresholds, spec.thresholds.count)
                       : 0;
    cudaError_t err = cudaMallocAsync(reinterpret_cast<void **>(&h->counts), table_at + table, stream);
    bool ok = check(err, "cudaMallocAsync");
    if (ok) {
        char *base = reinterpret_cast<char *>(h->counts);
        h->flags = reinterpret_cast<int *>(base + bytes);
        ok = check(err = cudaMemsetAsync(h->counts, 0, bytes + sizeof(int), stream), "cudaMemsetAsync");
        if (ok && spec.kind == SpecKind::thresholds) {
            ok = check(err = stage_thresholds(spec.thresholds.thresholds, spec.thresholds.count, base + table_at,
                                              stream, &h->thresholds),
                       "stage_thresholds");
            h->spec.thresholds.thresholds = h->thresholds.thresholds;
        }
        ok = ok && check(err = cudaEventCreateWithFlags(&h->drained, cudaEventDisableTiming), "cudaEventCreate");
    }
    if (ok) {
        *out = h;
        return Status::ok;
    }
    /* an injected failure may follow a call that succeeded: free what exists */
    if (h->drained != nullptr)
        cudaEventDestroy(h->drained);
    if (h->counts != nullptr)
        cudaFreeAsync(h->counts, stream);
    delete h;
    return status_of(err);
}

/* The kernel for the histogram's kind, over n 8-byte values at `values`. */
cudaError_t bin_batch(const DeviceHistogram *h, const double *values, size_t n)
{
    const HistogramSpec &spec = h->spec;
    const Device &d = g.devices[h->device];
    switch (spec.kind) {
    case SpecKind::float_interval:
        return bin_on_device(values, n, spec.interval, h->counts, h->flags, d.limits, d.stream);
    case SpecKind::int64_interval:
        return bin_int64_on_device(reinterpret_cast<const int64_t *>(values), n, spec.int64, h->counts, h->flags,
                                   d.limits, d.stream);
    case SpecKind::thresholds:
        return bin_thresholds_on_device(values, n, h->thresholds, h->counts,
                                        h->flags, d.limits, d.stream);
    }
    return cudaErrorInvalidValue;
}

Status submit(DeviceHistogram *h, BatchBuffer *b, size_t n)
{
    if (h->groups != 0 || b->device != h->device || n > b->capacity)
        return Status::internal_error;
    Status s = set_device(h->device);
    if (s != Status::ok)
        return s;
    const Device &d = g.devices[h->device];
    if ((s = copy_batch_in(d, b, n)) != Status::ok)
        return s;
    GH_CUDA(bin_batch(h, b->on_device, n));
    GH_CUDA(cudaEventRecord(b->done, d.stream));
    g.counters.values_binned += static_cast<int64_t>(n);
    g.counters.batches++;
    return Status::ok;
}

/* The same with a batch of group numbers beside the values: two copies, then the grouped kernel. */
Status submit_grouped(DeviceHistogram *h, BatchBuffer *values, BatchBuffer *groups, size_t n)
{
    if (h->groups == 0 || h->page_spec != nullptr || values == groups || values->device != h->device ||
        groups->device != h->device ||
        n > values->capacity || n > 2 * groups->capacity)
        return Status::internal_error;
    Status s = set_device(h->device);
    if (s != Status::ok)
        return s;
    const Device &d = g.devices[h->device];
    GH_CUDA(cudaStreamWaitEvent(d.copy_stream, values->done, 0));
    GH_CUDA(cudaStreamWaitEvent(d.copy_stream, groups->done, 0));
    GH_CUDA(cudaMemcpyAsync(values->on_device, values->host, n * sizeof(double), cudaMemcpyHostToDevice,
                            d.copy_stream));
    GH_CUDA(cudaMemcpyAsync(groups->on_device, groups->host, n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                            d.copy_stream));
    GH_CUDA(cudaEventRecord(values->copied, d.copy_stream));
    GH_CUDA(cudaEventRecord(groups->copied, d.copy_stream));
    GH_CUDA(cudaStreamWaitEvent(d.stream, groups->copied, 0)); /* after both copies: one stream */
    GH_CUDA(bin_grouped_on_device(values->on_device, reinterpret_cast<const uint32_t *>(groups->on_device), n,
                                  GroupedSpec{h->spec.interval, h->groups}, h->counts, h->flags, d.limits,
                                  d.stream));
    GH_CUDA(cudaEventRecord(values->done, d.stream));
    GH_CUDA(cudaEventRecord(groups->done, d.stream));
    g.counters.values_binned += static_cast<int64_t>(n);
    g.counters.batches++;
    return Status::ok;
}

Status drain(DeviceHistogram *h, int32_t first, int32_t n, int64_t *counts, InterruptCheck interrupted)
{
    if (first < 0 || n < 0 || first + static_cast<int64_t>(n) > static_cast<int64_t>(h->cells) + 1)
        return Status::internal_error;
    Status s = set_device(h->device);
    if (s != Status::ok)
        return s;
    cudaStream_t stream = g.devices[h->device].stream;
    GH_CUDA(cudaEventRecord(h->drained, stream));
    if ((s = wait_for(h->drained, interrupted)) != Status::ok)
        return s;
    std::vector<unsigned long long> host(static_cast<size_t>(n));
    int flags = 0;
    size_t bytes = static_cast<size_t>(n) * sizeof(unsigned long long);
    GH_CUDA(cudaMemcpyAsync(host.data(), h->counts + first, bytes, cudaMemcpyDeviceToHost, stream));
    GH_CUDA(cudaMemcpyAsync(&flags, h->flags, sizeof(int), cudaMemcpyDeviceToHost, stream));
    GH_CUDA(cudaMemsetAsync(h->counts + first, 0, bytes, stream));
    GH_CUDA(cudaEventRecord(h->drained, stream));
    if ((s = wait_for(h->drained, nullptr)) != Status::ok) /* a short copy: not interruptible */
        return s;
    if (flags & 2) /* a group number out of range: the caller's bug */
        return Status::internal_error;
    if (flags & 1)
        return Status::nan_value;
    for (int32_t i = 0; i < n; i++)
        counts[i] += static_cast<int64_t>(host[static_cast<size_t>(i)]);
    return Status::ok;
}

Status drain_async(DeviceHistogram *h, int32_t first, int32_t n, BatchBuffer *b)
{
    if (first < 0 || n < 0 || first + static_cast<int64_t>(n) > static_cast<int64_t>(h->cells) + 1 ||
        static_cast<size_t>(n) + 1 > b->capacity || b->device != h->device)
        return Status::internal_error;
    Status s = set_device(h->device);
    if (s != Status::ok)
        return s;
    cudaStream_t stream = g.devices[h->device].stream;
    /* the host area is registered: these copies are DMA, queued behind the stream's kernels */
    unsigned long long *host = reinterpret_cast<unsigned long long *>(const_cast<double *>(b->host));
    size_t bytes = static_cast<size_t>(n) * sizeof(unsigned long long);
    host[n] = 0;
    GH_CUDA(cudaMemcpyAsync(host, h->counts + first, bytes, cudaMemcpyDeviceToHost, stream));
    GH_CUDA(cudaMemcpyAsync(host + n, h->flags, sizeof(int), cudaMemcpyDeviceToHost, stream));
    GH_CUDA(cudaMemsetAsync(h->counts + first, 0, bytes, stream));
    GH_CUDA(cudaEventRecord(b->done, stream));
    return Status::ok;
}

Status drain_result(BatchBuffer *b, int32_t n)
{
    const unsigned long long *host = reinterpret_cast<const unsigned long long *>(b->host);
    int flags = static_cast<int>(host[n] & 0xffffffffu);
    if (flags & 2) /* a group number out of range: the caller's bug */
        return Status::internal_error;
    if (flags & 1)
        return Status::nan_value;
    /* counts below 2^63 are the same bits as int64 */
    return Status::ok;
}

} // namespace

/* ---- the interface of gpu_backend.h: every entry point catches everything ---- */

Status gpu_batch_create(int device, const double *host, size_t capacity, BatchBuffer **out) noexcept
{
    *out = nullptr;
    GH_ENTRY(return create_batch(device, host, capacity, out);)
}

void gpu_batch_destroy(BatchBuffer *b) noexcept
{
    if (b == nullptr)
        return;
    cudaSetDevice(b->device);
    cudaEventSynchronize(b->done);
    cudaEventDestroy(b->done);
    cudaEventDestroy(b->copied);
    cudaFree(b->on_device);
    delete b;
}

Status gpu_batch_busy(BatchBuffer *b, bool *busy) noexcept
{
    *busy = false;
    /* the host area is free again once its copy is done; the kernel may still run */
    cudaError_t err = cudaEventQuery(b->copied);
    if (err == cudaErrorNotReady) {
        *busy = true;
        return Status::ok;
    }
    if (!check(err, "cudaEventQuery"))
        return Status::cuda_error;
    return Status::ok;
}

Status gpu_histogram_open(const HistogramSpec &spec, int device, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    GH_ENTRY(return open(spec, 0, histogram_slots(spec), device, out);)
}

Status gpu_grouped_open(const GroupedSpec &spec, int device, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    if (!grouped_spec_fits(spec))
        return Status::internal_error;
    GH_ENTRY(return open(float_histogram(spec.interval), spec.groups, static_cast<int32_t>(grouped_cells(spec)),
                         device, out);)
}

namespace {

/*
 * A grouped histogram of nbins + 3 cells a group, with its spec kept and
 * its interval tables copied beside it; gpu_histogram_close frees both.
 */
Status open_grouped_pages(const GroupedPageSpec &spec, const int64_t *table, int32_t table_words, int device,
                          DeviceHistogram **out)
{
    if (table_words < 0 || !grouped_page_spec_fits(spec, table, table_words) || (table_words > 0 && table == nullptr)) {
        /* the extension sends only specs it expects to pass: a refusal means the two disagree, so name the spec */
        snprintf(g.last_error, sizeof g.last_error,
                 "a grouped page spec the engine refuses (%d keys, %d aggregates, %d table words)",
                 static_cast<int>(spec.nkeys), static_cast<int>(spec.naggs), static_cast<int>(table_words));
        return Status::internal_error;
    }
    /* the kernel trusts the tables: sorted starts, and every slot one of the key's, its NULL group's or the host's */
    for (int k = 0; k < spec.nkeys; k++) {
        const PageKey &key = spec.keys[k];
        if (key.kind != PageKeyKind::intervals && key.kind != PageKeyKind::local_period)
            continue;
        const int64_t *starts = table + key.table_first, *slots = starts + key.intervals;
        const bool offsets = key.kind == PageKeyKind::local_period;
        for (uint32_t i = 0; i < key.intervals; i++)
            if ((offsets ? slots[i] < -kMaxLocalOffset || slots[i] > kMaxLocalOffset
                         : slots[i] < kHostSlot || slots[i] > static_cast<int64_t>(page_key_found_slots(key))) ||
                (i > 0 && starts[i] <= starts[i - 1]) || starts[i] >= key.end)
                return Status::internal_error;
        /* w + offset stays an int64 for every w the intervals hold */
        if (offsets && (starts[0] < INT64_MIN + kMaxLocalOffset || key.end > INT64_MAX - kMaxLocalOffset))
            return Status::internal_error;
    }
    DeviceHistogram *h = nullptr;
    Status s = open(float_histogram(spec.interval), static_cast<uint32_t>(grouped_page_groups(spec)),
                    static_cast<int32_t>(grouped_page_cells(spec)), device, &h);
    if (s != Status::ok)
        return s;
    h->page_spec = new (std::nothrow) GroupedPageSpec(spec);
    if (h->page_spec == nullptr) {
        gpu_histogram_close(h);
        return Status::out_of_memory;
    }
    if (table_words > 0) {
        cudaStream_t stream = g.devices[device].stream;
        const size_t bytes = sizeof(int64_t) * static_cast<size_t>(table_words);
        cudaError_t err = cudaMallocAsync(reinterpret_cast<void **>(&h->table), bytes, stream);
        if (check(err, "cudaMallocAsync"))
            h->table_words = table_words;
        else if (err == cudaSuccess) /* an injected failure: free what was allocated */
            cudaFreeAsync(h->table, stream), h->table = nullptr;
        else
            h->table = nullptr;
        /* pageable source: the copy is done when this returns, so the caller's table may go */
        if (h->table == nullptr || !check(err = cudaMemcpyAsync(h->table, table, bytes, cudaMemcpyHostToDevice, stream),
                                          "cudaMemcpyAsync") ||
            !check(err = cudaStreamSynchronize(stream), "cudaStreamSynchronize")) {
            gpu_histogram_close(h);
            return status_of(err);
        }
    }
    *out = h;
    return Status::ok;
}

} // namespace

Status gpu_grouped_pages_open(const GroupedPageSpec &spec, const int64_t *table, int32_t table_words, int device,
                              DeviceHistogram **out) noexcept
{
    *out = nullptr;
    GH_ENTRY(return open_grouped_pages(spec, table, table_words, device, out);)
}

Status gpu_grouped_submit(DeviceHistogram *h, BatchBuffer *values, BatchBuffer *groups, size_t n) noexcept
{
    GH_ENTRY(return submit_grouped(h, values, groups, n);)
}

Status gpu_histogram_submit(DeviceHistogram *h, BatchBuffer *b, size_t n) noexcept
{
    GH_ENTRY(return submit(h, b, n);)
}

Status gpu_histogram_drain(DeviceHistogram *h, int32_t first, int32_t n, int64_t *counts,
                           InterruptCheck interrupted) noexcept
{
    GH_ENTRY(return drain(h, first, n, counts, interrupted);)
}

Status gpu_histogram_drain_async(DeviceHistogram *h, int32_t first, int32_t n, BatchBuffer *b) noexcept
{
    GH_ENTRY(return drain_async(h, first, n, b);)
}

Status gpu_drain_result(BatchBuffer *b, int32_t n) noexcept { GH_ENTRY(return drain_result(b, n);) }

void gpu_histogram_close(DeviceHistogram *h) noexcept
{
    if (h == nullptr)
        return;
    /* stream order frees the counters only after every kernel that uses them */
    cudaSetDevice(h->device);
    cudaFreeAsync(h->counts, g.devices[h->device].stream);
    if (h->table != nullptr)
        cudaFreeAsync(h->table, g.devices[h->device].stream);
    if (h->drained != nullptr)
        cudaEventDestroy(h->drained);
    delete h->page_spec;
    delete h;
}

int gpu_histogram_device(const DeviceHistogram *h) noexcept { return h->device; }

} // namespace gh
