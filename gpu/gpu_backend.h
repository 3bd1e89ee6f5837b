/*
 * gpu_backend.h: the CUDA backend's interface, as the GPU service sees it.
 *
 * Plain data and Status codes only, so the caller needs neither CUDA nor
 * C++ exceptions.  A build without nvcc links no_cuda_backend.cpp, whose
 * every call answers Status::not_built.
 *
 * One process of the server calls this: the GPU service (extension/service).
 * gpu_start() creates a context and two streams on every visible device;
 * call it in that process only (never in the postmaster: CUDA is not
 * fork-safe).  Host batch memory belongs to the caller (the service's shared
 * slots): gpu_host_register() page-locks it once, so that every copy to a
 * device is DMA straight from it.  A BatchBuffer pairs one such host area
 * with a device buffer on one device; a DeviceHistogram holds one group's
 * counters on one device while batches are copied and binned behind the
 * caller's back, until the caller reads them.  A grouped histogram holds
 * many groups' histograms of one layout (grouped_spec.h) as one array of
 * cells, binned from a batch of values and a batch of group numbers.
 */
#ifndef GH_GPU_BACKEND_H
#define GH_GPU_BACKEND_H

#include <cstddef>
#include <cstdint>

#include "specs/grouped_page_spec.h"
#include "specs/grouped_spec.h"
#include "specs/histogram_spec.h"
#include "specs/page_cache.h"
#include "specs/page_spec.h"
#include "specs/status.h"

namespace gh {

/* Polled while waiting for the GPU; returning true abandons the wait (Status::interrupted). */
using InterruptCheck = bool (*)();

/* Device ordinals go up to kMaxDevices - 1; more devices than that are not used. */
constexpr int kMaxDevices = 8;

struct DeviceInfo {
    char name[128];
    int ordinal;
    int cc_major, cc_minor;
    int multiprocessors;
    size_t total_memory, free_memory;
};

struct GpuCounters {
    int64_t values_binned; /* values sent through the kernels */
    int64_t batches;       /* kernel launches over host batches */
    double startup_ms;     /* wall time of gpu_start() over every device, 0 if not started */
};

/* Creates a context and streams on every visible device (up to kMaxDevices). */
Status gpu_start() noexcept;
bool gpu_started() noexcept;
/* The devices gpu_start() opened (0 before it succeeded). */
int gpu_device_count() noexcept;

/* The devices started (free memory read now); *count is set even when there are none. */
Status gpu_devices(DeviceInfo *out, int capacity, int *count) noexcept;

/* Text of the most recent CUDA failure in this process ("" if none). */
const char *gpu_last_error() noexcept;
GpuCounters gpu_counters() noexcept;

/* Gives the device memory that freed histograms left in each device's pool back to the driver. */
Status gpu_trim_memory() noexcept;

/* Testing only: the calls-th CUDA call from now on fails as if CUDA had (0: never). */
void gpu_fail_after(long calls) noexcept;
/* Whether an injected failure is still to come. */
bool gpu_fail_pending() noexcept;

/*
 * Page-locks the caller's [host, host + bytes) for DMA, for the life of the
 * process (or until gpu_host_unregister).  If this fails, copies from it
 * still work, staged by the driver; the caller may go on.
 */
Status gpu_host_register(void *host, size_t bytes) noexcept;
void gpu_host_unregister(void *host) noexcept;

/* One host batch area of `capacity` 8-byte words, with its device twin on `device`. */
struct BatchBuffer;
Status gpu_batch_create(int device, const double *host, size_t capacity, BatchBuffer **out) noexcept;
/* Waits for the GPU to be done with the buffer, then frees its device side. */
void gpu_batch_destroy(BatchBuffer *b) noexcept;
/*
 * Whether the GPU has finished copying the buffer's last submitted batch:
 * the host area may be refilled then.  Status::ok and *busy; a failed query
 * is a CUDA error.
 */
Status gpu_batch_busy(BatchBuffer *b, bool *busy) noexcept;

struct DeviceHistogram;

/*
 * Zeroed device counters for one group's histogram_slots(spec) buckets on
 * `device`; for thresholds, also a device copy of them (the caller's may go
 * after this returns).
 */
Status gpu_histogram_open(const HistogramSpec &spec, int device, DeviceHistogram **out) noexcept;

/*
 * Queues a copy of the buffer's host words [0 .. n) to the device and a
 * kernel that bins them (int64s for an int64_interval spec, doubles else),
 * and returns at once.  The buffer must be on the histogram's device and
 * not busy.
 */
Status gpu_histogram_submit(DeviceHistogram *h, BatchBuffer *b, size_t n) noexcept;

/*
 * Waits for the submitted work, adds device counters [first, first + n)
 * into counts[0 .. n) and zeroes them on the device.  Status::nan_value if
 * any binned value was NaN (for grouped histograms, see gpu_grouped_submit).
 * One counter follows the histogram's own (the cell at index slots, or
 * grouped_cells, which may be drained too): the normal tuples that
 * gpu_pages_submit's kernels found; 0 for a histogram fed values.
 */
Status gpu_histogram_drain(DeviceHistogram *h, int32_t first, int32_t n, int64_t *counts,
                           InterruptCheck interrupted) noexcept;

/*
 * gpu_histogram_drain without waiting, for a process that serves many
 * histograms on one stream and must not stop at each read for all the
 * work queued ahead of it: queues the copy of counters [first, first + n)
 * into b's host area (n + 1 <= its capacity: the flags go after the
 * counts) and their zeroing, and returns.  Once gpu_batch_finished(b)
 * says so, gpu_drain_result() reads what arrived.  b must be on the
 * histogram's device, and its host area registered.
 */
Status gpu_histogram_drain_async(DeviceHistogram *h, int32_t first, int32_t n, BatchBuffer *b) noexcept;

/* After gpu_histogram_drain_async: turns b's host words [0 .. n) into int64 counts and answers the flags' status. */
Status gpu_drain_result(BatchBuffer *b, int32_t n) noexcept;

/*
 * A grouped histogram (grouped_spec.h): grouped_cells(spec) zeroed device
 * counters on `device`, fed by gpu_grouped_submit and drained, by ranges of
 * cells, and closed like any other.  Status::internal_error for a spec
 * that grouped_spec_fits() refuses.
 */
Status gpu_grouped_open(const GroupedSpec &spec, int device, DeviceHistogram **out) noexcept;

/*
 * Queues copies of `values`' host words [0 .. n) (doubles) and of n group
 * numbers (uint32_t) from the start of `groups`' host area, whose capacity
 * of 8-byte words holds two of them each, and the kernel that bins them;
 * returns at once.  Both buffers must be on the histogram's device, not
 * busy, and not the same buffer.  A later drain answers
 * Status::internal_error if a group number was >= spec.groups (such
 * values are not counted), else Status::nan_value if a value was NaN.
 * gpu_histogram_submit refuses a grouped histogram, and this call any
 * other (Status::internal_error).
 */
Status gpu_grouped_submit(DeviceHistogram *h, BatchBuffer *values, BatchBuffer *groups, size_t n) noexcept;

/*
 * Registers the server's shared buffer pool, [host, host + bytes) of 8 kB
 * pages (page_spec.h), with CUDA once for the life of the process:
 * page-locked and mapped into every device's address space, so that the
 * page kernel reads pages where they lie, with no copy on the host.  On
 * failure nothing stays registered, and pages are parsed on the CPU.
 */
Status gpu_pool_register(void *host, size_t bytes) noexcept;
bool gpu_pool_registered() noexcept;

/*
 * Queues a copy of `pages`' host words [0 .. n) (page_word()s of buffers in
 * the registered pool) and the kernel that reads those pages: for every
 * normal tuple among each page's first `lines` line pointers it extracts
 * col (NULLs skipped) and bins it into the histogram, which must be a
 * float_interval one (col not as_word), a thresholds one of at most
 * kMaxPageThresholds, or an int64_interval one over a date or timestamp
 * column read as its stored integer (col.as_word), not grouped; it also
 * adds the number of those
 * normal tuples to the counter past the histogram's slots (see
 * gpu_histogram_drain).  Returns at once.  The pages must stay
 * pinned until gpu_batch_finished() says the buffer's kernel is done.  A
 * NaN value makes the next drain answer Status::nan_value.  A line pointer
 * or tuple header that points outside its page is skipped (it cannot
 * happen on a pinned page; the kernel only never reads out of bounds).
 * With cache (page_cache.h), pages are read from and kept in the device's
 * page cache (gpu_page_cache_start), and, once gpu_batch_finished() says
 * so, the host word cache->hits_word holds how many were read from it,
 * and the host bytes from cache->miss_word which probes it did not answer
 * (left as the caller wrote them where no cache was used);
 * then the caller commits the batch's fills with gpu_page_cache_commit(),
 * if the pages stayed pinned until then, before the buffer is reused.
 */
Status gpu_pages_submit(DeviceHistogram *h, BatchBuffer *pages, size_t n, const PageColumn &col,
                        const PageCacheKeys *cache = nullptr) noexcept;

/*
 * A grouped page histogram (grouped_page_spec.h): grouped_page_cells(spec)
 * zeroed counters on `device`, drained like any other (the tuple counter
 * follows them), and a device copy of table[0 .. table_words), the keys'
 * interval tables.  Status::internal_error for a spec the kernel cannot
 * run.
 */
Status gpu_grouped_pages_open(const GroupedPageSpec &spec, const int64_t *table, int32_t table_words, int device,
                              DeviceHistogram **out) noexcept;
/*
 * As gpu_pages_submit, for a grouped page histogram: queues the copy of
 * the n page words and the grouped page kernel, and returns at once.  n is
 * at most grouped_page_capacity(the buffer's capacity): once
 * gpu_batch_finished() says so, byte p of the host area after the n words
 * is 1 for each page the GPU left uncounted, for the caller to read on
 * the CPU, 0 for the others.  Those bytes arrive after the kernel: the
 * host area is free again only once gpu_batch_finished() says so, not
 * gpu_batch_busy().
 */
Status gpu_grouped_pages_submit(DeviceHistogram *h, BatchBuffer *pages, size_t n,
                                const PageCacheKeys *cache = nullptr) noexcept;
/*
 * A page cache of bytes_per_device on every device (page_cache.h), once,
 * after gpu_pool_register; *entries: pages each device holds.  On failure
 * no device has one, and page batches read every page from the pool.
 */
Status gpu_page_cache_start(size_t bytes_per_device, uint64_t *entries) noexcept;
/*
 * A finished page batch whose pages stayed pinned until its kernel was
 * done: the pages it copied into the cache become hits for later batches.
 * Never call it for a batch whose pins may have gone earlier (a cancelled
 * scan's): its copies may be of other pages.  Nothing for a batch that
 * was not cached.
 */
Status gpu_page_cache_commit(BatchBuffer *b) noexcept;
/* Whether the kernel that read the buffer's last batch has finished: its pages may be unpinned then. */
Status gpu_batch_finished(BatchBuffer *b, bool *finished) noexcept;

/* Frees the device counters once the GPU is done with them.  Never fails. */
void gpu_histogram_close(DeviceHistogram *h) noexcept;

/* The device a histogram lives on. */
int gpu_histogram_device(const DeviceHistogram *h) noexcept;

} // namespace gh

#endif /* GH_GPU_BACKEND_H */
