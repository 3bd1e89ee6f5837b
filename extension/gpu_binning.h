/*
 * gpu_binning.h: when a group's values go to the GPU, and the group's share
 * of the GPU service.
 *
 * The counter (device_policy.h: gpu_histogram.device, the batch size)
 * decides, chunk by chunk, whether a group bins on the CPU or hands its values to the GPU
 * service (service/service_client.h).  A group on the GPU path holds a
 * lease: a device histogram in the service for its whole life, and the
 * batch slot it is filling.  In device = 'gpu', a group that cannot have a
 * lease sends each chunk through a transient histogram instead, read back
 * at once.  The group's state (histogram_state.h) calls these functions;
 * they never call back into it.
 */
#ifndef GH_GPU_BINNING_H
#define GH_GPU_BINNING_H

#include "device_policy.h"
#include "pg_headers.h"
#include "service/client_values.h"

namespace gpu_histogram {

struct GpuLease {
    ServiceHistogramRef hist; /* the group's device histogram, or index -1 */
    int32 slot;               /* the slot being filled (or read into), or -1 */
    bool transient;           /* hist serves one batch, and is read and closed after it */
    bool refused;             /* auto mode: this group stays on the CPU */
};

/* A group not on the GPU. */
static inline void gpu_lease_init(GpuLease *lease)
{
    lease->hist.index = -1;
    lease->hist.serial = 0;
    lease->slot = -1;
    lease->transient = false;
    lease->refused = false;
}

enum SlotAnswer {
    SLOT_ON_CPU,     /* bin the chunk on the CPU */
    SLOT_GRANTED,    /* fill *values, of *capacity words */
    SLOT_WAIT_FIRST, /* device = 'gpu' and nothing free: give back every other slot, then ask with may_wait */
};

/* A group's full CPU chunk, with `total` values so far, as the counter weighs it. */
DeviceWork gpu_lease_work(const GpuLease *lease, int64 total);

/*
 * A slot of the service for the group, under the counter's GPU choice (the
 * chunk is then copied into it by the caller), or the CPU when the service
 * has no room.  With may_wait, SLOT_WAIT_FIRST is never answered.
 */
SlotAnswer gpu_lease_next_slot(GpuLease *lease, const gh::HistogramSpec &spec, DeviceChoice choice, bool may_wait,
                               double **values, int32 *capacity);

/*
 * Hands the slot's first n values to the service.  If the histogram was
 * transient, waits for it and adds it into counts[0 .. nslots) (the caller
 * has given back every other slot first).
 */
void gpu_lease_submit(GpuLease *lease, int32 n, int64 *counts, int32 nslots);

/* Reads the group's device counters into counts (the caller has given back every other slot). */
void gpu_lease_read(GpuLease *lease, int64 *counts, int32 nslots);

/* Gives everything back to the service: the group is done or its memory is going.  Never fails. */
void gpu_lease_release(GpuLease *lease);

/* The batch size in force: gpu_histogram.batch_size, at most a service slot. */
int32 gpu_binning_batch_size(void);

} // namespace gpu_histogram

#endif /* GH_GPU_BINNING_H */
