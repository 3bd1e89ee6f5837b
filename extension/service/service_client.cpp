/*
 * service_client.cpp: the client side of the GPU service that values and
 * pages share, run by backends and parallel workers: the histogram
 * entries, taking and queueing slots, answers, reads, errors, and giving
 * everything back (service_client.h, client_inner.h).
 *
 * Limits keep the shared tables from running dry and make waiting safe:
 * one process fills at most an eighth of the slots at once when it does not
 * wait, and holds at most a sixteenth of the histogram entries as leases;
 * leases leave an eighth of the entries and of the device memory to
 * transient histograms, which are released right after their batch, so a
 * client that waits for an entry or a slot (holding none itself) always
 * gets one in the end.
 */
#include "client_inner.h"

extern "C" {
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/wait_event.h"
}
#include "../pg_compat.h"

#include "../errors.h"

namespace gpu_histogram {

int64 gh_values_sent_to_gpu = 0;
int64 gh_batches_sent_to_gpu = 0;
int32 gh_histograms_open = 0;

namespace {

/* How long device = 'gpu' waits for a restarting service before it gives up. */
constexpr int kServiceStartWaitMs = 30000;

/*
 * Value slots this process holds in SLOT_FILLING.  Page slots are not
 * counted: a scan holds one while it opens its lease, which may itself
 * take value slots for a grouped batch's tables.
 */
int32 my_filling = 0;
bool exit_callback_registered = false;

/* Gives back everything this process still holds in the service. */
void release_all_on_exit(int, Datum)
{
    if (gh_service == NULL)
        return;
    bool any = false;
    service_lock();
    for (int i = 0; i < service_all_slots(); i++) {
        ServiceSlot *slot = &gh_service_slots[i];
        if (slot->state == SLOT_FREE || slot->owner != MyProcPid)
            continue;
        if (slot->state == SLOT_FILLING || slot->state == SLOT_DONE) {
            slot->state = SLOT_FREE;
            gh_service->slots_in_use--;
        } else {
            slot->abandoned = true;
        }
        any = true;
    }
    for (int i = 0; i < gh_service->nhistograms; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        if (h->state == HIST_OPEN && h->owner == MyProcPid) {
            h->state = HIST_CLOSING;
            gh_service->histograms_closing++;
            any = true;
        }
    }
    service_unlock();
    if (any) {
        ConditionVariableBroadcast(&gh_service->slot_freed);
        service_wake();
    }
}

} // namespace

void gpu_service_release_everything(void)
{
    release_all_on_exit(0, 0);
}

namespace {

void register_exit_callback(void)
{
    if (!exit_callback_registered) {
        before_shmem_exit(release_all_on_exit, 0);
        exit_callback_registered = true;
    }
}

Size histogram_device_bytes(const gh::HistogramSpec &spec, uint32 groups)
{
    Size cells = groups > 0 ? static_cast<Size>(gh::grouped_cells(gh::GroupedSpec{spec.interval, groups}))
                            : static_cast<Size>(gh::histogram_slots(spec));
    Size bytes = sizeof(int64) * (cells + 1);
    if (spec.kind == gh::SpecKind::thresholds)
        bytes += sizeof(double) * static_cast<Size>(spec.thresholds.count);
    return bytes;
}

/* Picks the device with the fewest open histograms (ties: in turn). */
int32 pick_device(void)
{
    int32 n = gh_service->ndevices;
    int32 best = gh_service->next_device % n;
    for (int32 k = 1; k < n; k++) {
        int32 d = (gh_service->next_device + k) % n;
        if (gh_service->devices[d].histograms < gh_service->devices[best].histograms)
            best = d;
    }
    gh_service->next_device = best + 1;
    return best;
}

enum OpenAttempt { OPEN_TAKEN, OPEN_NO_ROOM, OPEN_SERVICE_DOWN, OPEN_NEVER_FITS };

Size grouped_pages_device_bytes(const GroupedPagesOpen &gp)
{
    return sizeof(int64) * (static_cast<Size>(gh::grouped_page_cells(*gp.spec)) + 1 +
                            static_cast<Size>(gp.table_words));
}

/* One attempt under the lock. */
OpenAttempt try_open(const gh::HistogramSpec &spec, uint32 groups, const gh::PageColumn *column,
                     const GroupedPagesOpen *gp, bool transient, ServiceHistogramRef *out)
{
    int64 bytes = static_cast<int64>(gp != NULL ? grouped_pages_device_bytes(*gp) : histogram_device_bytes(spec, groups));
    OpenAttempt result = OPEN_NO_ROOM;
    service_lock();
    int32 nhist = gh_service->nhistograms;
    int64 limit = gh_service->device_memory_limit;
    int32 free_entries = nhist - gh_service->histograms_open;
    bool room;
    if (gh_service->state != SERVICE_UP) {
        room = false;
        result = OPEN_SERVICE_DOWN;
    } else if (bytes > limit) {
        room = false;
        result = OPEN_NEVER_FITS;
    } else if (transient) {
        room = free_entries > 0 && gh_service->device_bytes + bytes <= limit;
    } else {
        room = gh_histograms_open < Max(1, nhist / 16) && free_entries > Max(1, nhist / 8) &&
               gh_service->device_bytes + bytes <= limit - limit / 8;
    }
    for (int32 i = 0; room && i < nhist; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        if (h->state != HIST_FREE)
            continue;
        h->state = HIST_OPEN;
        h->owner = MyProcPid;
        h->serial = gh_service->next_serial++;
        h->device = pick_device();
        h->transient = transient;
        h->error = 0;
        h->device_bytes = bytes;
        h->spec = spec;
        h->spec.thresholds.thresholds = NULL;
        h->groups = groups;
        h->pages = column != NULL || gp != NULL;
        if (column != NULL)
            h->column = *column;
        h->grouped_pages = gp != NULL;
        if (gp != NULL) {
            h->page_spec = *gp->spec;
            h->table_words = gp->table_words;
        }
        gh_service->histograms_open++;
        gh_service->device_bytes += bytes;
        gh_service->devices[h->device].histograms++;
        out->index = i;
        out->serial = h->serial;
        result = OPEN_TAKEN;
        break;
    }
    service_unlock();
    return result;
}

} // namespace

pg_noinline void client_report_failure(gh::Status s)
{
    if (s != gh::Status::cuda_error && s != gh::Status::internal_error)
        report_engine_status(s);
    char message[256];
    service_lock();
    strlcpy(message, gh_service->last_failure, sizeof message);
    service_unlock();
    ereport(ERROR, (errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
                    errmsg("gpu_histogram: the GPU service failed: %s", gh::status_text(s)),
                    errdetail("%s", message[0] != '\0' ? message : "no detail was recorded"),
                    errhint("The service restarts by itself; the next query uses the GPU again.")));
}

void client_queue(int32 slot, SlotRequest request, const ServiceHistogramRef *ref, int32 first, int32 count)
{
    ServiceSlot *s = &gh_service_slots[slot];
    service_lock();
    Assert(s->state == SLOT_FILLING && s->owner == MyProcPid);
    s->request = request;
    s->hist = ref->index;
    s->hist_serial = ref->serial;
    s->first = first;
    s->count = count;
    s->seq = gh_service->next_seq++;
    s->result = 0;
    s->state = SLOT_QUEUED;
    service_unlock();
    if (!service_is_page_slot(slot))
        my_filling--;
    service_wake();
}

/*
 * Whether the request queued on slot (a read, a page batch) has its answer,
 * in *result; with wait, waits for it.  The CUDA process (or the
 * supervisor, if the process died) sets this process's latch when the slot
 * is DONE; a service that went down without answering answers cuda_error.
 */
bool client_await_answer(int32 slot, bool wait, gh::Status *result)
{
    ServiceSlot *s = &gh_service_slots[slot];
    /*
     * A look without the lock first: auto asks every 64 pages whether its
     * batch is back, and the answer is mostly no.  A stale read only says
     * "not yet"; DONE is then read again under the lock with the result.
     */
    if (!wait && *reinterpret_cast<volatile SlotState *>(&s->state) != SLOT_DONE &&
        *reinterpret_cast<volatile ServiceState *>(&gh_service->state) == SERVICE_UP)
        return false;
    for (;;) {
        if (wait)
            ResetLatch(MyLatch);
        service_lock();
        SlotState state = s->state;
        *result = static_cast<gh::Status>(s->result);
        ServiceState service = gh_service->state;
        service_unlock();
        if (state == SLOT_DONE)
            return true;
        if (service != SERVICE_UP && service != SERVICE_STARTING) {
            /* the CUDA process is gone and did not answer: what it held is lost */
            *result = gh::Status::cuda_error;
            return true;
        }
        if (!wait)
            return false;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000, PG_WAIT_EXTENSION);
        CHECK_FOR_INTERRUPTS();
    }
}

bool gpu_service_up(void)
{
    if (gh_service == NULL)
        return false;
    service_lock();
    bool up = gh_service->state == SERVICE_UP;
    service_unlock();
    return up;
}

void gpu_service_require(void)
{
    if (gh_service == NULL)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("gpu_histogram.device is \"gpu\" but the GPU service is not running"),
                        errdetail("gpu_histogram is not in shared_preload_libraries, so no process of this "
                                  "server uses the GPU."),
                        errhint("Add gpu_histogram to shared_preload_libraries and restart the server, or set "
                                "gpu_histogram.device to 'auto' or 'cpu'.")));
    char message[256];
    ServiceState state;
    gh::Status start_status;
    /* a service that is (re)starting gets a while to come up: the postmaster starts it at once */
    for (int waited_ms = 0;; waited_ms += 100) {
        service_lock();
        state = gh_service->state;
        start_status = static_cast<gh::Status>(gh_service->start_status);
        strlcpy(message, gh_service->message, sizeof message);
        service_unlock();
        if (state == SERVICE_UP || state == SERVICE_NO_GPU || waited_ms >= kServiceStartWaitMs)
            break;
        ConditionVariableTimedSleep(&gh_service->slot_freed, 100, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    if (state == SERVICE_UP)
        return;
    if (state == SERVICE_NO_GPU && start_status == gh::Status::not_built)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("gpu_histogram.device is \"gpu\" but no GPU backend is available"),
                        errdetail("This build of gpu_histogram has no CUDA backend."),
                        errhint("Set gpu_histogram.device to 'auto' or 'cpu'.")));
    ereport(ERROR, (errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
                    errmsg("gpu_histogram.device is \"gpu\" but no GPU is usable"),
                    errdetail("The GPU service %s: %s",
                              state == SERVICE_NO_GPU ? "found no GPU"
                              : state == SERVICE_STARTING ? "is still starting" : "is not running",
                              message),
                    errhint("Set gpu_histogram.device to 'auto' or 'cpu'.")));
}

ServiceLimits gpu_service_limits(void)
{
    static_assert(gh::grouped_page_capacity(kPageSlotWords) >= kPageSlotPages,
                  "a page slot has room for a grouped batch's answer");
    if (gh_service == NULL)
        return ServiceLimits{0, INT32_MAX, 0, kPageSlotPages, kPageSlotProbeRuns};
    return ServiceLimits{gh_service->device_memory_limit, gh_service->slot_values, service_grouped_values(),
                         kPageSlotPages, kPageSlotProbeRuns};
}

bool client_open(const gh::HistogramSpec &spec, uint32 groups, const gh::PageColumn *column,
                    const GroupedPagesOpen *gp, bool transient, ServiceWait wait, ServiceHistogramRef *out)
{
    out->index = -1;
    register_exit_callback();
    for (;;) {
        OpenAttempt got = try_open(spec, groups, column, gp, transient, out);
        if (got == OPEN_TAKEN)
            break;
        if (wait == SERVICE_NO_WAIT) {
            ConditionVariableCancelSleep();
            return false;
        }
        if (got == OPEN_SERVICE_DOWN) {
            ConditionVariableCancelSleep();
            gpu_service_require(); /* waits for a restarting service, or raises its ERROR */
            continue;
        }
        if (got == OPEN_NEVER_FITS) {
            ConditionVariableCancelSleep();
            ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
                            errmsg("gpu_histogram: the histogram needs %zu bytes of device memory, more than "
                                   "gpu_histogram.service_device_memory allows",
                                   gp != NULL ? grouped_pages_device_bytes(*gp) : histogram_device_bytes(spec, groups)),
                            errhint("Raise gpu_histogram.service_device_memory, or set "
                                    "gpu_histogram.device to 'auto'.")));
        }
        ConditionVariableTimedSleep(&gh_service->slot_freed, 1000, PG_WAIT_EXTENSION);
    }
    ConditionVariableCancelSleep();
    gh_histograms_open++;
    if (spec.kind == gh::SpecKind::thresholds &&
        !client_send_table(out, spec.thresholds.thresholds, spec.thresholds.count, wait)) {
        gpu_service_close(out);
        return false;
    }
    return true;
}

void gpu_service_close(ServiceHistogramRef *ref)
{
    if (ref->index < 0)
        return;
    service_lock();
    ServiceHistogram *h = &gh_service_histograms[ref->index];
    if (h->state == HIST_OPEN && h->serial == ref->serial && h->owner == MyProcPid) {
        h->state = HIST_CLOSING;
        gh_service->histograms_closing++;
    }
    service_unlock();
    ref->index = -1;
    gh_histograms_open--;
    service_wake();
}

int32 client_take_slot_among(int32 first, int32 end, int32 most, int32 most_busy, ServiceWait wait, bool *busy)
{
    register_exit_callback();
    int32 taken = -1;
    *busy = false;
    for (;;) {
        service_lock();
        bool allowed = gh_service->state == SERVICE_UP && (wait == SERVICE_WAIT || my_filling < most);
        int32 nbusy = 0;
        for (int32 i = first; allowed && i < end; i++) {
            SlotState state = gh_service_slots[i].state;
            if (state == SLOT_FREE && taken < 0)
                taken = i;
            else if (state == SLOT_FILLING || state == SLOT_QUEUED || state == SLOT_RUNNING)
                nbusy++;
            if (taken >= 0 && most_busy == INT32_MAX)
                break; /* nothing to count */
        }
        if (taken >= 0 && nbusy >= most_busy) {
            *busy = true;
            taken = -1;
        }
        if (taken >= 0) {
            ServiceSlot *slot = &gh_service_slots[taken];
            slot->state = SLOT_FILLING;
            slot->owner = MyProcPid;
            slot->owner_procno = GH_MY_PROCNO();
            slot->abandoned = false;
            gh_service->slots_in_use++;
        }
        ServiceState state = gh_service->state;
        service_unlock();
        if (taken >= 0 || wait == SERVICE_NO_WAIT)
            break;
        if (state != SERVICE_UP) {
            ConditionVariableCancelSleep();
            client_report_failure(gh::Status::cuda_error);
        }
        ConditionVariableTimedSleep(&gh_service->slot_freed, 1000, PG_WAIT_EXTENSION);
    }
    if (wait == SERVICE_WAIT)
        ConditionVariableCancelSleep();
    if (taken >= 0 && !service_is_page_slot(taken))
        my_filling++;
    return taken;
}

void gpu_service_release_slot(int32 slot)
{
    if (slot < 0)
        return;
    ServiceSlot *s = &gh_service_slots[slot];
    bool freed = false;
    service_lock();
    if (s->owner == MyProcPid) {
        if (s->state == SLOT_FILLING && !service_is_page_slot(slot))
            my_filling--;
        if (s->state == SLOT_FILLING || s->state == SLOT_DONE) {
            s->state = SLOT_FREE;
            gh_service->slots_in_use--;
            freed = true;
        } else if (s->state == SLOT_QUEUED || s->state == SLOT_RUNNING) {
            s->abandoned = true;
        }
    }
    service_unlock();
    if (freed)
        ConditionVariableBroadcast(&gh_service->slot_freed);
}

void gpu_service_read_range(const ServiceHistogramRef *ref, int32 start, int32 count, int64 *counts, int32 *slot)
{
    gpu_service_report(gpu_service_read_range_or_nan(ref, start, count, counts, slot));
}

gh::Status gpu_service_read_range_or_nan(const ServiceHistogramRef *ref, int32 start, int32 count, int64 *counts,
                                         int32 *slot)
{
    gh::Status nan = gh::Status::ok;
    /* the service puts the device histogram's flags after the counts */
    int32 capacity = gh_service->slot_values - 1;
    for (int32 first = 0; first < count; first += capacity) {
        int32 n = Min(capacity, count - first);
        bool busy;
        *slot = client_take_slot_among(0, gh_service->nslots, Max(1, gh_service->nslots / 8), INT32_MAX, SERVICE_WAIT,
                                       &busy);
        client_queue(*slot, REQUEST_READ, ref, start + first, n);
        gh::Status result;
        (void)client_await_answer(*slot, true, &result);
        if (result == gh::Status::ok) {
            const int64 *answer = reinterpret_cast<const int64 *>(service_slot_values(*slot));
            for (int32 i = 0; i < n; i++)
                counts[first + i] += answer[i];
        }
        gpu_service_release_slot(*slot);
        *slot = -1;
        if (result == gh::Status::nan_value)
            nan = result;
        else if (result != gh::Status::ok)
            client_report_failure(result);
    }
    return nan;
}

void gpu_service_crash_cuda_process(void)
{
    if (gh_service == NULL)
        return;
    service_lock();
    gh_service->crash_request++;
    service_unlock();
    service_wake();
}

void gpu_service_fail_after(int32 calls)
{
    if (gh_service == NULL)
        return;
    service_lock();
    gh_service->fail_calls = calls;
    gh_service->fail_request++;
    service_unlock();
    service_wake();
}

void gpu_service_report(gh::Status s)
{
    if (s != gh::Status::ok)
        client_report_failure(s);
}

/* The words go to the service through slots, a slot's worth at a time. */
bool client_send_table(const ServiceHistogramRef *ref, const void *words, int32 n, ServiceWait wait)
{
    const int32 capacity = gh_service->slot_values;
    for (int32 first = 0; first < n; first += capacity) {
        bool busy;
        int32 slot = client_take_slot_among(0, gh_service->nslots, Max(1, gh_service->nslots / 8), INT32_MAX, wait, &busy);
        if (slot < 0)
            return false;
        int32 k = Min(capacity, n - first);
        memcpy(service_slot_values(slot), static_cast<const char *>(words) + sizeof(uint64) * static_cast<Size>(first),
               sizeof(uint64) * static_cast<Size>(k));
        client_queue(slot, REQUEST_THRESHOLDS, ref, first, k);
    }
    return true;
}

} // namespace gpu_histogram
