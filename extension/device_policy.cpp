/*
 * device_policy.cpp: the one counter (device_policy.h): gpu_histogram.device
 * turned into where each batch is counted.
 *
 * auto: a caller turns to the GPU only with a full batch, and then only if
 * the service has room at once; binning on the CPU right away is never
 * slower than waiting.  Once on the GPU it stays there while there is room.
 * gpu: every batch goes to the GPU, waiting for room, except a small
 * remainder of a caller that holds nothing there (kGpuMinValues).
 */
#include "device_policy.h"

#include "settings.h"
#include "service/service_client.h"

namespace gpu_histogram {

bool device_gpu_wanted(void)
{
    return gh_device_mode == DEVICE_GPU || (gh_device_mode == DEVICE_AUTO && gpu_service_up());
}

bool device_gpu_possible(void)
{
    if (gh_device_mode == DEVICE_GPU)
        gpu_service_require();
    return device_gpu_wanted();
}

namespace {

DeviceChoice choose(const DeviceWork &work)
{
    switch (gh_device_mode) {
    case DEVICE_CPU:
        return DeviceChoice::cpu;
    case DEVICE_GPU:
        /* no GPU is an error even where the work would stay here: the setting promises the GPU */
        gpu_service_require();
        if (!work.on_gpu && !work.full_batch && work.values < kGpuMinValues)
            return DeviceChoice::cpu;
        return DeviceChoice::gpu_wait;
    default:
        if (work.refused || (!work.on_gpu && !work.full_batch) || !gpu_service_up())
            return DeviceChoice::cpu;
        return DeviceChoice::gpu_now;
    }
}

} // namespace

bool device_count(const DeviceBatch &b)
{
    DeviceChoice choice = choose(b.work);
    if (choice != DeviceChoice::cpu && b.send(b.batch, choice))
        return true;
    b.count_here(b.batch, choice);
    return false;
}

} // namespace gpu_histogram
