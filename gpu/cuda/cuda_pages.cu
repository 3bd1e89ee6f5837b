/*
 * cuda_pages.cu: the CUDA backend's side of reading heap pages on the GPU
 * (gpu_backend.h: gpu_pool_register, gpu_pages_submit, gpu_batch_finished).
 *
 * The server's buffer pool is registered once, page-locked and mapped, so
 * that the page kernel (kernel_pages.cuh) reads pinned pages where they
 * lie, with no copy on the host.  Each device may see the mapping at its
 * own address (the same as the host's wherever the device can use host
 * pointers for registered memory, as with unified addressing on 64-bit
 * Linux), so the backend keeps one per device and the caller only ever
 * names buffers by their index.
 *
 * A page batch moves like a value batch (cuda_backend.cu's submit()): its
 * page words are copied on the device's copy stream once the buffer's last
 * kernel is done, and the kernel waits for that copy; only the kernel
 * reads the pages, so gpu_batch_finished, not gpu_batch_busy, says when
 * they may be unpinned.
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_backend_state.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {

using namespace cuda_state;

namespace {

/* Pages of the registered pool; its device addresses are in Device::pool. */
uint64_t pool_pages() { return g.pool_bytes / heap_layout::kPageBytes; }

/*
 * Registers [host, host + bytes) mapped and portable (every device's
 * context may read it), then asks each started device where it sees it.
 * Any failure, an injected one too, unregisters what was registered.
 */
Status register_pool(void *host, size_t bytes)
{
    if (!g.started)
        return Status::no_device;
    if (g.pool_host != nullptr) /* once per process: the same pool again is no news, another one a bug */
        return host == g.pool_host && bytes == g.pool_bytes ? Status::ok : Status::internal_error;
    if (host == nullptr || bytes < heap_layout::kPageBytes || reinterpret_cast<uintptr_t>(host) % 16 != 0) {
        snprintf(g.last_error, sizeof g.last_error, "the buffer pool must be 16-byte aligned and hold a page");
        return Status::internal_error;
    }
    cudaError_t err = cudaHostRegister(host, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (!check(err, "cudaHostRegister")) {
        if (err == cudaSuccess) /* an injected failure: undo what did happen */
            cudaHostUnregister(host);
        return status_of(err);
    }
    const unsigned char *mapped[kMaxDevices] = {};
    for (int i = 0; i < g.ndevices; i++) {
        void *p = nullptr;
        if (!check(err = cudaSetDevice(i), "cudaSetDevice") ||
            !check(err = cudaHostGetDevicePointer(&p, host, 0), "cudaHostGetDevicePointer")) {
            cudaHostUnregister(host);
            return status_of(err);
        }
        if (reinterpret_cast<uintptr_t>(p) % 16 != 0) { /* the kernel's 16-byte loads need it */
            snprintf(g.last_error, sizeof g.last_error, "device %d maps the buffer pool at an unaligned address", i);
            cudaHostUnregister(host);
            return Status::internal_error;
        }
        mapped[i] = static_cast<const unsigned char *>(p);
    }
    for (int i = 0; i < g.ndevices; i++)
        g.devices[i].pool = mapped[i];
    g.pool_host = host;
    g.pool_bytes = bytes;
    return Status::ok;
}

/*
 * What every page batch's submission starts with, its kernel aside: the
 * histogram's device, the batch's page words copied in, and its pages
 * resolved against the page cache (*cache: where the kernel reads hits).
 */
Status begin_page_batch(const DeviceHistogram *h, BatchBuffer *b, size_t n, const PageCacheKeys *keys,
                        const Device **d, PageCacheView *cache)
{
    Status s = set_device(h->device);
    if (s != Status::ok)
        return s;
    *d = &g.devices[h->device];
    if ((s = copy_page_batch_in(**d, b, n, keys)) != Status::ok)
        return s;
    return resolve_cached_pages(**d, b, n, keys, pool_pages(), cache);
}

/* ... and ends with: the cache's hits read back, and the batch's event recorded after all of it. */
Status end_page_batch(const Device &d, BatchBuffer *b)
{
    Status s = read_cache_hits(d, b);
    if (s != Status::ok)
        return s;
    GH_CUDA(cudaEventRecord(b->done, d.stream));
    g.counters.batches++;
    return Status::ok;
}

Status submit_pages(DeviceHistogram *h, BatchBuffer *b, size_t n, const PageColumn &col, const PageCacheKeys *keys)
{
    /* the float8 form reads the value as the cast makes it, the time form as the stored integer (as_word) */
    if (h->groups != 0 || (h->spec.kind == SpecKind::thresholds && h->spec.thresholds.count > kMaxPageThresholds) ||
        col.as_word != (h->spec.kind == SpecKind::int64_interval) || b->device != h->device || n > b->capacity ||
        g.pool_host == nullptr || !page_column_fits(col) ||
        (keys != nullptr && !page_cache_keys_fit(*keys, n, b->capacity)))
        return Status::internal_error;
    const Device *dev = nullptr;
    PageCacheView cache;
    Status s = begin_page_batch(h, b, n, keys, &dev, &cache);
    if (s != Status::ok)
        return s;
    const Device &d = *dev;
    GH_CUDA(bin_pages_on_device(reinterpret_cast<const uint64_t *>(b->on_device), n, d.pool, pool_pages(), col,
                                h->spec, h->counts, h->flags, h->counts + h->cells, d.limits, d.stream, cache));
    /* values_binned stays: the pages' values are counted when they are drained */
    return end_page_batch(d, b);
}

/*
 * A grouped page batch: as submit_pages, then the pages' flags (1: left to
 * the host) copied back into the host area after the page words, before
 * `done` is recorded, so that whoever sees the batch finished sees them.
 * The device side of the flags is the buffer's own, after its page words.
 */
Status submit_grouped_pages(DeviceHistogram *h, BatchBuffer *b, size_t n, const PageCacheKeys *keys)
{
    if (h->page_spec == nullptr || b->device != h->device || n > grouped_page_capacity(b->capacity) ||
        g.pool_host == nullptr || (keys != nullptr && !page_cache_keys_fit(*keys, n, b->capacity)))
        return Status::internal_error;
    const Device *dev = nullptr;
    PageCacheView cache;
    Status s = begin_page_batch(h, b, n, keys, &dev, &cache);
    if (s != Status::ok)
        return s;
    const Device &d = *dev;
    unsigned char *flags_on_device = reinterpret_cast<unsigned char *>(b->on_device + n);
    GH_CUDA(bin_grouped_pages_on_device(reinterpret_cast<const uint64_t *>(b->on_device), n, d.pool, pool_pages(),
                                        *h->page_spec, h->table, h->table_words, h->counts, h->flags,
                                        h->counts + h->cells, flags_on_device, d.limits, d.stream, cache));
    unsigned char *flags_on_host = reinterpret_cast<unsigned char *>(const_cast<double *>(b->host) + n);
    GH_CUDA(cudaMemcpyAsync(flags_on_host, flags_on_device, n, cudaMemcpyDeviceToHost, d.stream));
    return end_page_batch(d, b);
}

} // namespace

Status gpu_grouped_pages_submit(DeviceHistogram *h, BatchBuffer *pages, size_t n, const PageCacheKeys *cache) noexcept
{
    GH_ENTRY(return submit_grouped_pages(h, pages, n, cache);)
}

Status gpu_pool_register(void *host, size_t bytes) noexcept { GH_ENTRY(return register_pool(host, bytes);) }

bool gpu_pool_registered() noexcept { return g.pool_host != nullptr; }

Status gpu_pages_submit(DeviceHistogram *h, BatchBuffer *pages, size_t n, const PageColumn &col,
                        const PageCacheKeys *cache) noexcept
{
    GH_ENTRY(return submit_pages(h, pages, n, col, cache);)
}

Status gpu_batch_finished(BatchBuffer *b, bool *finished) noexcept
{
    *finished = false;
    cudaError_t err = cudaEventQuery(b->done); /* never recorded: finished */
    if (err == cudaErrorNotReady)
        return Status::ok;
    if (!check(err, "cudaEventQuery"))
        return Status::cuda_error;
    *finished = true;
    return Status::ok;
}

} // namespace gh
