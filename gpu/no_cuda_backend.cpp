/*
 * no_cuda_backend.cpp: the GPU backend of a build without nvcc.
 *
 * Every entry point answers Status::not_built, so device = 'gpu' raises a
 * clear error and device = 'auto' stays on the CPU.
 */
#include "gpu_backend.h"

namespace gh {

Status gpu_start() noexcept { return Status::not_built; }
bool gpu_started() noexcept { return false; }
Status gpu_devices(DeviceInfo *, int, int *count) noexcept
{
    *count = 0;
    return Status::not_built;
}
const char *gpu_last_error() noexcept { return "the extension was built without CUDA"; }
GpuCounters gpu_counters() noexcept { return GpuCounters{}; }
size_t gpu_free_device_memory() noexcept { return 0; }
void gpu_fail_after(long) noexcept {}
Status gpu_batch_acquire(size_t, size_t, InterruptCheck, PinnedBatch **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
void gpu_batch_release(PinnedBatch *) noexcept {}
Status gpu_histogram_open(const HistogramSpec &, DeviceHistogram **out) noexcept
{
    *out = nullptr;
    return Status::not_built;
}
Status gpu_histogram_submit(DeviceHistogram *, PinnedBatch *, size_t) noexcept { return Status::not_built; }
Status gpu_histogram_drain(DeviceHistogram *, int64_t *, InterruptCheck) noexcept { return Status::not_built; }
void gpu_histogram_close(DeviceHistogram *) noexcept {}

} // namespace gh
