/*
 * client_values.cpp: the GPU service's client for batches of values
 * (client_values.h): the histograms they go to, their slots, and the
 * tables (thresholds, a grouped page histogram's intervals) that travel
 * through value slots too.
 */
#include "client_inner.h"

extern "C" {
#include "miscadmin.h"
}

namespace gpu_histogram {

bool gpu_service_open(const gh::HistogramSpec &spec, bool transient, ServiceWait wait, ServiceHistogramRef *out)
{
    return client_open(spec, 0, NULL, NULL, transient, wait, out);
}

bool gpu_service_open_grouped(const gh::GroupedSpec &spec, ServiceWait wait, ServiceHistogramRef *out)
{
    if (!gh::grouped_spec_fits(spec))
        elog(ERROR, "gpu_histogram: a grouped histogram of %u groups of %d buckets is too large", spec.groups,
             spec.interval.nbins);
    return client_open(gh::float_histogram(spec.interval), spec.groups, NULL, NULL, false, wait, out);
}

int32 gpu_service_take_slot(ServiceWait wait)
{
    bool busy;
    return client_take_slot_among(0, gh_service->nslots, Max(1, gh_service->nslots / 8), INT32_MAX, wait, &busy);
}

double *gpu_service_slot(int32 slot)
{
    return service_slot_values(slot);
}

void gpu_service_bin(int32 slot, const ServiceHistogramRef *ref, int32 n)
{
    client_queue(slot, REQUEST_BIN, ref, 0, n);
    gh_values_sent_to_gpu += n;
    gh_batches_sent_to_gpu++;
}

bool gpu_service_send_grouped(const ServiceHistogramRef *ref, const double *values, const uint32 *groups, int32 n,
                              ServiceWait wait)
{
    Assert(n <= service_grouped_values());
    int32 slot = gpu_service_take_slot(wait);
    if (slot < 0)
        return false;
    /* nothing between taking the slot and queueing it can fail: no cleanup needs to know it */
    memcpy(service_slot_values(slot), values, sizeof(double) * static_cast<Size>(n));
    memcpy(service_slot_groups(slot), groups, sizeof(uint32) * static_cast<Size>(n));
    client_queue(slot, REQUEST_BIN_GROUPED, ref, 0, n);
    gh_values_sent_to_gpu += n;
    gh_batches_sent_to_gpu++;
    return true;
}

} // namespace gpu_histogram
