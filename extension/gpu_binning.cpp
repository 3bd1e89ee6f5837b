/*
 * gpu_binning.cpp: a histogram state's leases, over the GPU service's client.
 *
 * Where a group's chunk goes is the counter's answer (device_policy.h) for
 * the group's values so far: a batch's worth is a full batch.  gpu_now: a lease and a
 * slot if the service grants them without waiting, else the CPU, which is
 * never slower than waiting.  gpu_wait: the GPU, waiting for room when
 * there is none; a group that cannot have a lease uses a transient
 * histogram for each chunk.  Parallel workers do the same: they do not
 * start CUDA, so the GPU costs them nothing extra.
 */
#include "gpu_binning.h"

#include "device_policy.h"
#include "settings.h"

namespace gpu_histogram {

namespace {

bool on_gpu_path(const GpuLease *lease)
{
    return lease->hist.index >= 0;
}

} // namespace

DeviceWork gpu_lease_work(const GpuLease *lease, int64 total)
{
    return DeviceWork{total, total >= gpu_binning_batch_size(), on_gpu_path(lease), lease->refused};
}

int32 gpu_binning_batch_size(void)
{
    return Min(gh_batch_size, gpu_service_limits().slot_values);
}

SlotAnswer gpu_lease_next_slot(GpuLease *lease, const gh::HistogramSpec &spec, DeviceChoice choice, bool may_wait,
                               double **values, int32 *capacity)
{
    if (choice == DeviceChoice::gpu_now) {
        if (!on_gpu_path(lease) && !gpu_service_open(spec, false, SERVICE_NO_WAIT, &lease->hist)) {
            lease->refused = true;
            return SLOT_ON_CPU;
        }
        lease->slot = gpu_service_take_slot(SERVICE_NO_WAIT);
        if (lease->slot < 0)
            return SLOT_ON_CPU;
    } else {
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
        gpu_service_read_range(&lease->hist, 0, nslots, counts, &lease->slot);
        gpu_service_close(&lease->hist);
    }
}

void gpu_lease_read(GpuLease *lease, int64 *counts, int32 nslots)
{
    if (on_gpu_path(lease))
        gpu_service_read_range(&lease->hist, 0, nslots, counts, &lease->slot);
}

void gpu_lease_release(GpuLease *lease)
{
    if (lease->slot >= 0) {
        gpu_service_release_slot(lease->slot);
        lease->slot = -1;
    }
    gpu_service_close(&lease->hist);
}

} // namespace gpu_histogram
