/*
 * client_inner.h: what the GPU service client's own files share
 * (service_client.cpp, client_values.cpp, client_pages.cpp), the steps
 * under the shared memory's lock that values and pages both take.  No
 * file outside extension/service/ includes it: the client's interface is
 * service_client.h, client_values.h and client_pages.h.
 */
#ifndef GH_CLIENT_INNER_H
#define GH_CLIENT_INNER_H

#include "client_pages.h"
#include "client_values.h"
#include "service_shared.h"

namespace gpu_histogram {

/* A grouped page histogram's spec and the length of its tables, for client_open. */
struct GroupedPagesOpen {
    const gh::GroupedPageSpec *spec;
    int32 table_words;
};

/*
 * Opens a histogram entry: a column histogram of spec, `groups` of them
 * side by side (0: not grouped), one fed by pages that read `column`, or
 * a grouped page histogram (gp), as gpu_service_open says; a thresholds
 * spec's thresholds are loaded too.
 */
bool client_open(const gh::HistogramSpec &spec, uint32 groups, const gh::PageColumn *column,
                 const GroupedPagesOpen *gp, bool transient, ServiceWait wait, ServiceHistogramRef *out);

/*
 * Loads words[0 .. n) of 8 bytes each into the entry (REQUEST_THRESHOLDS:
 * thresholds, or a grouped page histogram's tables), a value slot's worth
 * at a time; false if no slot was free (only with SERVICE_NO_WAIT).
 */
bool client_send_table(const ServiceHistogramRef *ref, const void *words, int32 n, ServiceWait wait);

/*
 * Takes a free slot among [first, end) for filling, waiting for one with
 * SERVICE_WAIT; -1 if none (SERVICE_NO_WAIT), if this process already
 * fills `most` without waiting, or if `most_busy` of the range's slots are
 * being filled, queued or run (*busy then says so).
 */
int32 client_take_slot_among(int32 first, int32 end, int32 most, int32 most_busy, ServiceWait wait, bool *busy);

/* Queues the request on the slot this process fills; the slot is the service's from then on. */
void client_queue(int32 slot, SlotRequest request, const ServiceHistogramRef *ref, int32 first, int32 count);

/*
 * Whether the request queued on slot (a read, a page batch) has its answer,
 * in *result; with wait, waits for it.
 */
bool client_await_answer(int32 slot, bool wait, gh::Status *result);

/* Raises the ERROR for a failed request, with what the service recorded of it. */
void client_report_failure(gh::Status s);

} // namespace gpu_histogram

#endif /* GH_CLIENT_INNER_H */
