/*
 * gpu_binning.cpp: the device policy, over the GPU service's client.
 *
 * auto: a group takes the GPU once it holds a batch's worth of values, if
 * the service is up and grants it a lease and a slot without waiting;
 * otherwise its chunk is binned on the CPU right away, which is never
 * slower than waiting.  Parallel workers do the same: they no longer start
 * CUDA, so the GPU costs them nothing extra.
 * gpu: every full chunk goes to the GPU, waiting for room when there is
 * none; a group that cannot have a lease uses a transient histogram for
 * each chunk.
 */
#include "gpu_binning.h"

#include "settings.h"

namespace {

bool on_gpu_path(const GpuLease *lease)
{
    return lease->hist.index >= 0;
}

} // namespace

int32 gpu_binning_batch_size(void)
{
    return Min(gh_batch_size, gpu_service_slot_capacity());
}

bool gpu_lease_may_start(const GpuLease *lease, int64 total)
{
    switch (gh_device_mode) {
    case DEVICE_CPU:
        return false;
    case DEVICE_GPU:
        return true;
    default:
        return on_gpu_path(lease) || (!lease->refused && total >= gpu_binning_batch_size());
    }
}

SlotAnswer gpu_lease_next_slot(GpuLease *lease, const gh::HistogramSpec &spec, int64 total, bool may_wait,
                               double **values, int32 *capacity)
{
    if (!gpu_lease_may_start(lease, total))
        return SLOT_ON_CPU;
    if (gh_device_mode != DEVICE_GPU) {
        if (!gpu_service_up() ||
            (!on_gpu_path(lease) && !gpu_service_open(spec, false, SERVICE_NO_WAIT, &lease->hist))) {
            lease->refused = !on_gpu_path(lease);
            return SLOT_ON_CPU;
        }
        lease->slot = gpu_service_take_slot(SERVICE_NO_WAIT);
        if (lease->slot < 0)
            return SLOT_ON_CPU;
    } else {
        gpu_service_require();
        ServiceWait wait = may_wait ? SERVICE_WAIT : SERVICE_NO_WAIT;
        if (!on_gpu_path(lease)) {
            lease->transient = false;
            if (!gpu_service_open(spec, false, SERVICE_NO_WAIT, &lease->hist)) {
                lease->transient = true;
                if (!gpu_service_open(spec, true, wait, &lease->hist))
                    return SLOT_WAIT_FIRST;
            }
        }
        lease->slot = gpu_service_take_slot(wait);
        if (lease->slot < 0)
            return SLOT_WAIT_FIRST;
    }
    *values = gpu_service_slot(lease->slot);
    *capacity = gpu_binning_batch_size();
    return SLOT_GRANTED;
}

void gpu_lease_submit(GpuLease *lease, int32 n, int64 *counts, int32 nslots)
{
    int32 slot = lease->slot;
    lease->slot = -1;
    if (n == 0)
        gpu_service_release_slot(slot);
    else
        gpu_service_bin(slot, &lease->hist, n);
    if (lease->transient) {
        gpu_service_read(&lease->hist, nslots, counts, &lease->slot);
        gpu_service_close(&lease->hist);
    }
}

void gpu_lease_read(GpuLease *lease, int64 *counts, int32 nslots)
{
    if (on_gpu_path(lease))
        gpu_service_read(&lease->hist, nslots, counts, &lease->slot);
}

void gpu_lease_release(GpuLease *lease)
{
    if (lease->slot >= 0) {
        gpu_service_release_slot(lease->slot);
        lease->slot = -1;
    }
    gpu_service_close(&lease->hist);
}
