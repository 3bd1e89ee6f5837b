/*
 * no_cuda_backend.cpp: the GPU backend of a build without nvcc.
 *
 * Every entry point answers Status::not_built, so the GPU service reports
 * that it has no GPU and every value is binned on the CPU.
 */
#include "../gpu_backend.h"

namespace gh {

Status gpu_start() noexcept { return Status::not_built; }
bool gpu_started() noexcept { return false; }
int gpu_device_count() noexcept { return 0; }
Status gpu_devices(DeviceInfo *, int, int *count) noexcept
{
    *count = 0;
    return Status::not_built;
}
const char *gpu_last_error() noexcept { return "the extension was built without CUDA"; }
GpuCounters gpu_counters() noexcept { return GpuCounters{}; }
void gpu_fail_after(long) noexcept {}
bool gpu_fail_pending() noexcept { return false; }
Status gpu_trim_memory() noexcept { return Status::not_built; }
Status gpu_host_register(void *, size_t) noexcept { return Status::not_built; }
void gpu_host_unregister(void *) noexcept {}
Status gpu_batch_create(int, const double *, size_t, BatchBuffer **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
void gpu_batch_destroy(BatchBuffer *) noexcept {}
Status gpu_batch_busy(BatchBuffer *, bool *busy) noexcept
{
    *busy = false;
    return Status::not_built;
}
Status gpu_histogram_open(const HistogramSpec &, int, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
Status gpu_histogram_submit(DeviceHistogram *, BatchBuffer *, size_t) noexcept { return Status::not_built; }
Status gpu_histogram_drain(DeviceHistogram *, int32_t, int32_t, int64_t *, InterruptCheck) noexcept
{
    return Status::not_built;
}
Status gpu_histogram_drain_async(DeviceHistogram *, int32_t, int32_t, BatchBuffer *) noexcept
{
    return Status::not_built;
}
Status gpu_drain_result(BatchBuffer *, int32_t) noexcept { return Status::not_built; }
Status gpu_grouped_open(const GroupedSpec &, int, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
Status gpu_grouped_submit(DeviceHistogram *, BatchBuffer *, BatchBuffer *, size_t) noexcept
{
    return Status::not_built;
}
Status gpu_pool_register(void *, size_t) noexcept { return Status::not_built; }
bool gpu_pool_registered() noexcept { return false; }
Status gpu_pages_submit(DeviceHistogram *, BatchBuffer *, size_t, const PageColumn &, const PageCacheKeys *) noexcept
{
    return Status::not_built;
}
Status gpu_grouped_pages_open(const GroupedPageSpec &, const int64_t *, int32_t, int, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
Status gpu_grouped_pages_submit(DeviceHistogram *, BatchBuffer *, size_t, const PageCacheKeys *) noexcept
{
    return Status::not_built;
}
Status gpu_page_cache_start(size_t, uint64_t *entries) noexcept
{
    *entries = 0;
    return Status::not_built;
}
Status gpu_page_cache_commit(BatchBuffer *) noexcept { return Status::not_built; }
Status gpu_batch_finished(BatchBuffer *, bool *finished) noexcept
{
    *finished = true; /* nothing was ever submitted */
    return Status::not_built;
}
void gpu_histogram_close(DeviceHistogram *) noexcept {}
int gpu_histogram_device(const DeviceHistogram *) noexcept { return 0; }

} // namespace gh
