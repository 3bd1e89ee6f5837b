/*
 * service_client.cpp: the client side of the GPU service, run by backends
 * and parallel workers.
 *
 * Limits keep the shared tables from running dry and make waiting safe:
 * one process fills at most an eighth of the slots at once when it does not
 * wait, and holds at most a sixteenth of the histogram entries as leases;
 * leases leave an eighth of the entries and of the device memory to
 * transient histograms, which are released right after their batch, so a
 * client that waits for an entry or a slot (holding none itself) always
 * gets one in the end.
 */
#include "service_client.h"

extern "C" {
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/wait_event.h"
}
#include "../pg_compat.h"

#include "../errors.h"
#include "service_shared.h"

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

pg_noinline void report_service_error(gh::Status s)
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

/* One attempt under the lock. */
/* A grouped page histogram's spec and the length of its tables, for try_open. */
struct GroupedPagesOpen {
    const gh::GroupedPageSpec *spec;
    int32 table_words;
};

Size grouped_pages_device_bytes(const GroupedPagesOpen &gp)
{
    return sizeof(int64) * (static_cast<Size>(gh::grouped_page_cells(*gp.spec)) + 1 +
                            static_cast<Size>(gp.table_words));
}

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

void queue_request(int32 slot, SlotRequest request, const ServiceHistogramRef *ref, int32 first, int32 count)
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

/* The thresholds go to the service through slots, a slot's worth at a time. */
bool load_thresholds(const gh::HistogramSpec &spec, const ServiceHistogramRef *ref, ServiceWait wait)
{
    int32 capacity = gpu_service_slot_capacity();
    for (int32 first = 0; first < spec.thresholds.count; first += capacity) {
        int32 slot = gpu_service_take_slot(wait);
        if (slot < 0)
            return false;
        int32 n = Min(capacity, spec.thresholds.count - first);
        memcpy(gpu_service_slot(slot), spec.thresholds.thresholds + first, sizeof(double) * static_cast<Size>(n));
        queue_request(slot, REQUEST_THRESHOLDS, ref, first, n);
    }
    return true;
}

/*
 * Whether the request queued on slot (a read, a page batch) has its answer,
 * in *result; with wait, waits for it.  The CUDA process (or the
 * supervisor, if the process died) sets this process's latch when the slot
 * is DONE; a service that went down without answering answers cuda_error.
 */
bool await_answer(int32 slot, bool wait, gh::Status *result)
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

} // namespace

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

int64 gpu_service_device_memory(void)
{
    return gh_service != NULL ? gh_service->device_memory_limit : 0;
}

int32 gpu_service_slot_capacity(void)
{
    return gh_service != NULL ? gh_service->slot_values : INT32_MAX;
}

namespace {

bool open_histogram(const gh::HistogramSpec &spec, uint32 groups, const gh::PageColumn *column,
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
    if (spec.kind == gh::SpecKind::thresholds && !load_thresholds(spec, out, wait)) {
        gpu_service_close(out);
        return false;
    }
    return true;
}

} // namespace

bool gpu_service_open(const gh::HistogramSpec &spec, bool transient, ServiceWait wait, ServiceHistogramRef *out)
{
    return open_histogram(spec, 0, NULL, NULL, transient, wait, out);
}

bool gpu_service_open_grouped(const gh::GroupedSpec &spec, ServiceWait wait, ServiceHistogramRef *out)
{
    if (!gh::grouped_spec_fits(spec))
        elog(ERROR, "gpu_histogram: a grouped histogram of %u groups of %d buckets is too large", spec.groups,
             spec.interval.nbins);
    return open_histogram(gh::float_histogram(spec.interval), spec.groups, NULL, NULL, false, wait, out);
}

int32 gpu_service_grouped_capacity(void)
{
    return gh_service != NULL ? service_grouped_values() : 0;
}

uint32 *gpu_service_slot_groups(int32 slot)
{
    return service_slot_groups(slot);
}

void gpu_service_bin_grouped(int32 slot, const ServiceHistogramRef *ref, int32 n)
{
    Assert(n <= service_grouped_values());
    queue_request(slot, REQUEST_BIN_GROUPED, ref, 0, n);
    gh_values_sent_to_gpu += n;
    gh_batches_sent_to_gpu++;
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

namespace {

/*
 * Takes a free slot among [first, end) for filling, waiting for one with
 * SERVICE_WAIT; -1 if none (SERVICE_NO_WAIT), if this process already
 * fills `most` without waiting, or if `most_busy` of the range's slots are
 * being filled, queued or run (*busy then says so).
 */
int32 take_slot_among(int32 first, int32 end, int32 most, int32 most_busy, ServiceWait wait, bool *busy)
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
            report_service_error(gh::Status::cuda_error);
        }
        ConditionVariableTimedSleep(&gh_service->slot_freed, 1000, PG_WAIT_EXTENSION);
    }
    if (wait == SERVICE_WAIT)
        ConditionVariableCancelSleep();
    if (taken >= 0 && !service_is_page_slot(taken))
        my_filling++;
    return taken;
}

} // namespace

int32 gpu_service_take_slot(ServiceWait wait)
{
    bool busy;
    return take_slot_among(0, gh_service->nslots, Max(1, gh_service->nslots / 8), INT32_MAX, wait, &busy);
}

int32 gpu_service_take_page_slot(int32 most_on_gpus, bool *gpus_busy)
{
    /* a scan fills at most two batches a histogram, and queues each at once: no bound of its own */
    int32 most = most_on_gpus;
    if (most != INT32_MAX)
        most *= Max(gh_service->ndevices, 1); /* ndevices is one aligned word: a stale read misjudges one batch */
    return take_slot_among(gh_service->nslots, service_all_slots(), INT32_MAX, most, SERVICE_NO_WAIT, gpus_busy);
}

double *gpu_service_slot(int32 slot)
{
    return service_slot_values(slot);
}

void gpu_service_bin(int32 slot, const ServiceHistogramRef *ref, int32 n)
{
    queue_request(slot, REQUEST_BIN, ref, 0, n);
    gh_values_sent_to_gpu += n;
    gh_batches_sent_to_gpu++;
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

void gpu_service_read(const ServiceHistogramRef *ref, int32 nslots, int64 *counts, int32 *slot)
{
    gpu_service_read_range(ref, 0, nslots, counts, slot);
}

void gpu_service_read_range(const ServiceHistogramRef *ref, int32 start, int32 count, int64 *counts, int32 *slot)
{
    /* the service puts the device histogram's flags after the counts */
    int32 capacity = gpu_service_slot_capacity() - 1;
    for (int32 first = 0; first < count; first += capacity) {
        int32 n = Min(capacity, count - first);
        *slot = gpu_service_take_slot(SERVICE_WAIT);
        queue_request(*slot, REQUEST_READ, ref, start + first, n);
        gh::Status result;
        (void)await_answer(*slot, true, &result);
        if (result == gh::Status::ok) {
            const int64 *answer = reinterpret_cast<const int64 *>(service_slot_values(*slot));
            for (int32 i = 0; i < n; i++)
                counts[first + i] += answer[i];
        }
        gpu_service_release_slot(*slot);
        *slot = -1;
        if (result != gh::Status::ok)
            report_service_error(result);
    }
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

bool gpu_service_pages_ready(void)
{
    if (gh_service == NULL)
        return false;
    service_lock();
    bool ready = gh_service->state == SERVICE_UP && gh_service->pool_registered;
    service_unlock();
    return ready;
}

bool gpu_service_open_pages(const gh::HistogramSpec &spec, const gh::PageColumn &column, ServiceWait wait,
                            ServiceHistogramRef *out)
{
    return open_histogram(spec, 0, &column, NULL, false, wait, out);
}

int32 gpu_service_page_capacity(void)
{
    static_assert(gh::grouped_page_capacity(kPageSlotWords) >= kPageSlotPages,
                  "a page slot has room for a grouped batch's answer");
    return kPageSlotPages;
}

uint64 *gpu_service_slot_pages(int32 slot)
{
    return reinterpret_cast<uint64 *>(service_slot_values(slot));
}

uint64 *gpu_service_slot_page_lsns(int32 slot)
{
    return reinterpret_cast<uint64 *>(service_slot_values(slot) + kPageSlotLsnWord);
}

uint32 *gpu_service_slot_page_blocks(int32 slot)
{
    return reinterpret_cast<uint32 *>(service_slot_values(slot) + kPageSlotBlockWord);
}

uint64 *gpu_service_slot_page_vms(int32 slot)
{
    return reinterpret_cast<uint64 *>(service_slot_values(slot) + kPageSlotVmWord);
}

uint8 *gpu_service_slot_page_misses(int32 slot)
{
    return reinterpret_cast<uint8 *>(service_slot_values(slot) + kPageSlotMissWord);
}

gh::ProbeRun *gpu_service_slot_probe_runs(int32 slot)
{
    return reinterpret_cast<gh::ProbeRun *>(service_slot_values(slot) + kPageSlotRunWord);
}

int32 gpu_service_probe_run_capacity(void)
{
    return kPageSlotProbeRuns;
}

bool gpu_service_page_cache_running(void)
{
    if (gh_service == NULL)
        return false;
    service_lock();
    bool running = gh_service->state == SERVICE_UP && gh_service->page_cache_entries > 0;
    service_unlock();
    return running;
}

/* Whether c holds the share of this shape of scan over rel. */
static bool share_of(const CachedShare &c, const gh::PageCacheRel &rel, uint32 shape)
{
    return c.rel.rel != 0 && c.shape == shape && c.rel.spc == rel.spc && c.rel.db == rel.db && c.rel.rel == rel.rel;
}

void gpu_service_note_cached_share(const gh::PageCacheRel &rel, uint32 shape, double share)
{
    if (gh_service == NULL || rel.rel == 0)
        return;
    service_lock();
    /* this shape's entry, else the one noted longest ago */
    CachedShare *into = &gh_service->shares[0];
    for (CachedShare &c : gh_service->shares) {
        if (share_of(c, rel, shape)) {
            into = &c;
            break;
        }
        if (c.noted < into->noted)
            into = &c;
    }
    into->rel = rel;
    into->shape = shape;
    into->share = static_cast<float>(share);
    into->noted = ++gh_service->shares_noted;
    service_unlock();
}

double gpu_service_cached_share(const gh::PageCacheRel &rel, uint32 shape)
{
    if (gh_service == NULL || rel.rel == 0)
        return 0;
    double share = 0;
    service_lock();
    if (gh_service->state == SERVICE_UP && gh_service->page_cache_entries > 0)
        for (const CachedShare &c : gh_service->shares)
            if (share_of(c, rel, shape))
                share = c.share;
    service_unlock();
    return share;
}

uint32 gpu_service_cache_base(const gh::PageCacheRel &rel, uint32 nblocks)
{
    if (gh_service == NULL || rel.rel == 0)
        return 0;
    uint32 base = 0;
    service_lock();
    if (gh_service->page_cache_entries > 0) {
        gh::CachePlaces places{gh_service->places, kCachePlaces, gh_service->places_made, gh_service->next_place};
        base = gh::place_in_cache(&places, gh_service->page_cache_entries, rel, nblocks);
        gh_service->places_made = places.made;
        gh_service->next_place = places.next_base;
    }
    service_unlock();
    return base;
}

/* The number of a finished batch's pages read from the GPUs' page cache (0 if it was not cached). */
static uint64 page_cache_hits(int32 slot)
{
    return reinterpret_cast<const uint64 *>(service_slot_values(slot))[kPageSlotHitsWord];
}

void gpu_service_bin_pages(int32 slot, const ServiceHistogramRef *ref, int32 npages, const gh::PageCacheRel &rel,
                           int32 probe_runs)
{
    Assert(service_is_page_slot(slot) && npages <= kPageSlotPages && probe_runs <= kPageSlotProbeRuns);
    /* the slot is this process's alone until queued: the queueing's lock publishes all three */
    gh_service_slots[slot].cache_rel = rel;
    gh_service_slots[slot].probe_runs = probe_runs;
    reinterpret_cast<uint64 *>(service_slot_values(slot))[kPageSlotHitsWord] = 0;
    queue_request(slot, REQUEST_BIN_PAGES, ref, 0, npages);
    gh_batches_sent_to_gpu++;
}

bool gpu_service_open_grouped_pages(const gh::GroupedPageSpec &spec, const int64 *table, int32 table_words,
                                    ServiceWait wait, ServiceHistogramRef *out)
{
    GroupedPagesOpen gp{&spec, table_words};
    if (!open_histogram(gh::float_histogram(spec.interval), 0, NULL, &gp, false, wait, out))
        return false;
    /* the tables travel through slots, a slot's worth at a time, as thresholds do */
    const int32 capacity = gpu_service_slot_capacity();
    for (int32 first = 0; first < table_words; first += capacity) {
        int32 slot = gpu_service_take_slot(wait);
        if (slot < 0) {
            gpu_service_close(out);
            return false;
        }
        int32 n = Min(capacity, table_words - first);
        memcpy(gpu_service_slot(slot), table + first, sizeof(int64) * static_cast<Size>(n));
        queue_request(slot, REQUEST_THRESHOLDS, out, first, n);
    }
    return true;
}


/*
 * The probes of a finished batch the cache did not answer: every probe,
 * unless the GPU read the batch (the scan flagged them all before sending;
 * the GPU overwrites the flags only where it resolved the batch).
 */
static void copy_misses(int32 slot, int32 npages, gh::Status result, uint8 *missed)
{
    if (missed == NULL)
        return;
    const uint8 *flags = gpu_service_slot_page_misses(slot);
    if (result == gh::Status::ok || result == gh::Status::nan_value)
        memcpy(missed, flags, npages);
    else /* the query fails; whatever it reads of the batch must not count as read */
        memset(missed, 1, npages);
}

bool gpu_service_grouped_pages_done(int32 slot, int32 npages, bool wait, gh::Status *result, uint64 *cached,
                                    uint8 *left_to_host, uint8 *missed)
{
    if (!await_answer(slot, wait, result))
        return false;
    *cached = page_cache_hits(slot);
    /* the GPU's answer for each page lies after the page words (gpu_backend.h: gpu_grouped_pages_submit) */
    if (*result == gh::Status::ok || *result == gh::Status::nan_value)
        memcpy(left_to_host, reinterpret_cast<const char *>(service_slot_values(slot) + npages), npages);
    copy_misses(slot, npages, *result, missed);
    gpu_service_release_slot(slot);
    return true;
}

bool gpu_service_pages_done(int32 slot, int32 npages, bool wait, gh::Status *result, uint64 *cached,
                            uint8 *missed)
{
    if (!await_answer(slot, wait, result))
        return false;
    *cached = page_cache_hits(slot);
    copy_misses(slot, npages, *result, missed);
    gpu_service_release_slot(slot);
    return true;
}

void gpu_service_report(gh::Status s)
{
    if (s != gh::Status::ok)
        report_service_error(s);
}
