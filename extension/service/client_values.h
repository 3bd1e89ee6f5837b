/*
 * client_values.h: the GPU service's client for batches of values, the
 * path of a histogram state (gpu_binning.cpp) and of a grouped scan's
 * values with their group numbers (scan/grouped/table/group_gpu.cpp).  Pages
 * have their own client (client_pages.h); what both share is in
 * service_client.h.
 */
#ifndef GH_CLIENT_VALUES_H
#define GH_CLIENT_VALUES_H

#include "service_client.h"

#include "../../gpu/specs/grouped_spec.h"
#include "../../gpu/specs/histogram_spec.h"

namespace gpu_histogram {

/*
 * Opens a device histogram for spec (and, for thresholds, loads them into
 * the service).  A lease (transient = false) is kept for a group's whole
 * life and only granted while this backend and the whole server are under
 * their limits; a transient one serves one batch.  Returns false if there
 * is no room (only with SERVICE_NO_WAIT), and raises an ERROR if the
 * histogram could never fit in the service's device memory and the caller
 * waits.
 */
bool gpu_service_open(const gh::HistogramSpec &spec, bool transient, ServiceWait wait, ServiceHistogramRef *out);

/*
 * Opens a grouped histogram (gpu/specs/grouped_spec.h): spec.groups histograms of
 * spec.interval as one array of cells, always a lease, as gpu_service_open.
 */
bool gpu_service_open_grouped(const gh::GroupedSpec &spec, ServiceWait wait, ServiceHistogramRef *out);

/*
 * Takes a free slot for filling (-1 if none, with SERVICE_NO_WAIT).  A
 * histogram state writes its values straight into it (gpu_service_slot),
 * and so never copies them.
 */
int32 gpu_service_take_slot(ServiceWait wait);

/* Where a taken slot's values go. */
double *gpu_service_slot(int32 slot);

/* Queues the slot's first n values for binning into the histogram; the slot is the service's from then on. */
void gpu_service_bin(int32 slot, const ServiceHistogramRef *ref, int32 n);

/*
 * Copies n values, each in the group its number names, into a slot of its
 * own and queues them for the grouped histogram (n at most the limits'
 * grouped_values); false if no slot is free (only with SERVICE_NO_WAIT).
 */
bool gpu_service_send_grouped(const ServiceHistogramRef *ref, const double *values, const uint32 *groups, int32 n,
                              ServiceWait wait);

} // namespace gpu_histogram

#endif /* GH_CLIENT_VALUES_H */
