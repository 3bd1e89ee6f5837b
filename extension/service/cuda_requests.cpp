/*
 * cuda_requests.cpp: the clients' requests, run by the CUDA process
 * (cuda_process_inner.h): copy and bin a batch of values, grouped values
 * or pages, load thresholds and tables, read counters back; give slots
 * back as soon as the GPU has copied them (a page batch's when its kernel
 * is done), commit what a page batch put into the page cache, and free
 * the histograms their owners closed.  Device histograms live here,
 * indexed like the shared table.
 */
#include "cuda_process_inner.h"

extern "C" {
#include "utils/memutils.h"
}

#include <stdlib.h>

namespace gpu_histogram {

namespace cuda_proc {

gh::BatchBuffer **batches;
gh::BatchBuffer **group_batches;

namespace {

/* This process's side of one shared histogram entry. */
struct LocalHistogram {
    uint64 serial;               /* the incarnation it belongs to */
    gh::DeviceHistogram *device; /* opened at the first batch or read */
    double *thresholds;          /* assembled from REQUEST_THRESHOLDS */
};

struct InFlight {
    int32 slot;
    gh::BatchBuffer *batch;
    gh::BatchBuffer *groups; /* a grouped batch's group numbers, or NULL */
    bool pages;              /* a page batch: done when its kernel is, not its copy (the pages stay pinned till then) */
    int32 read;              /* a read of this many counters into the slot, done when they have arrived; else -1 */
};

LocalHistogram *locals;
InFlight *in_flight;
int n_in_flight;

/* Marks a slot free (or leaves a read's answer in it) and wakes whoever waits. */
void finish_slot(int32 i, gh::Status result)
{
    ServiceSlot *slot = &gh_service_slots[i];
    bool answer = false;
    service_lock();
    if (request_answers_owner(slot->request) && !slot->abandoned) {
        slot->state = SLOT_DONE;
        slot->result = static_cast<int32>(result);
        answer = true;
    } else {
        slot->state = SLOT_FREE;
        slot->abandoned = false;
        gh_service->slots_in_use--;
    }
    service_unlock();
    if (answer)
        service_wake_owner(slot);
    else
        wake_room_waiters();
}

/* Records a failure on the histogram, for its owner's next read. */
void fail_histogram(int32 hist, uint64 serial, gh::Status s)
{
    service_lock();
    ServiceHistogram *h = &gh_service_histograms[hist];
    if (h->serial == serial && h->error == 0)
        h->error = static_cast<int32>(s);
    service_unlock();
}

void drop_local(int32 hist)
{
    LocalHistogram *local = &locals[hist];
    if (local->device != NULL)
        gh::gpu_histogram_close(local->device);
    if (local->thresholds != NULL)
        pfree(local->thresholds);
    local->device = NULL;
    local->thresholds = NULL;
    local->serial = 0;
}

/* This process's state for the entry's current incarnation. */
LocalHistogram *local_for(int32 hist, uint64 serial)
{
    LocalHistogram *local = &locals[hist];
    if (local->serial != serial) {
        drop_local(hist);
        local->serial = serial;
    }
    return local;
}

/* The words REQUEST_THRESHOLDS assembles for the entry: thresholds, or a grouped page histogram's tables. */
int32 table_words(const ServiceHistogram &h)
{
    return h.grouped_pages ? h.table_words : h.spec.kind == gh::SpecKind::thresholds ? h.spec.thresholds.count : 0;
}

gh::Status open_device_histogram(LocalHistogram *local, const ServiceHistogram &h)
{
    if (local->device != NULL)
        return gh::Status::ok;
    if (h.grouped_pages) {
        if (local->thresholds == NULL && h.table_words > 0)
            return gh::Status::internal_error;
        return gh::gpu_grouped_pages_open(h.page_spec, reinterpret_cast<const int64_t *>(local->thresholds),
                                          h.table_words, h.device, &local->device);
    }
    gh::HistogramSpec spec = h.spec;
    if (spec.kind == gh::SpecKind::thresholds) {
        if (local->thresholds == NULL && spec.thresholds.count > 0)
            return gh::Status::internal_error;
        spec.thresholds.thresholds = local->thresholds;
    }
    if (h.groups > 0)
        return gh::gpu_grouped_open(gh::GroupedSpec{spec.interval, h.groups}, h.device, &local->device);
    return gh::gpu_histogram_open(spec, h.device, &local->device);
}

void count_batch(const ServiceHistogram &h, int32 values)
{
    service_lock();
    gh_service->batches++;
    gh_service->values += values;
    gh_service->devices[h.device].batches++;
    gh_service->devices[h.device].values += values;
    service_unlock();
}

gh::Status run_bin(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    gh::BatchBuffer *batch = batches[i * gh::kMaxDevices + h.device];
    s = gh::gpu_histogram_submit(local->device, batch, static_cast<size_t>(req.count));
    if (s != gh::Status::ok)
        return s;
    in_flight[n_in_flight++] = InFlight{i, batch, NULL, false, -1};
    count_batch(h, req.count);
    return gh::Status::ok;
}

/* A page batch: the slot holds page words; the kernel reads the pages out of the mapped buffer pool. */
gh::Status run_bin_pages(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    const uint64 words = static_cast<uint64>(service_slot_words(i));
    const uint64 capacity = h.grouped_pages ? gh::grouped_page_capacity(words) : words;
    if (!h.pages || h.groups > 0 || req.count < 0 || static_cast<uint64>(req.count) > capacity ||
        req.probe_runs < 0 || req.probe_runs > kPageSlotProbeRuns)
        return gh::Status::internal_error;
    if (!gh_service->pool_registered) /* sent to an earlier incarnation that had it: the histogram fails */
        return gh::Status::no_device;
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    gh::BatchBuffer *batch = batches[i * gh::kMaxDevices + h.device];
    const gh::PageCacheKeys keys = service_page_cache_keys(req.cache_rel, req.probe_runs);
    s = h.grouped_pages ? gh::gpu_grouped_pages_submit(local->device, batch, static_cast<size_t>(req.count), &keys)
                        : gh::gpu_pages_submit(local->device, batch, static_cast<size_t>(req.count), h.column, &keys);
    if (s != gh::Status::ok)
        return s;
    in_flight[n_in_flight++] = InFlight{i, batch, NULL, true, -1};
    service_lock();
    gh_service->batches++;
    gh_service->devices[h.device].batches++;
    service_unlock();
    return gh::Status::ok;
}

/* A grouped batch: the slot's values and, further on in the same slot, their group numbers. */
gh::Status run_bin_grouped(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    if (h.groups == 0 || req.count > service_grouped_values())
        return gh::Status::internal_error;
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    gh::BatchBuffer *batch = batches[i * gh::kMaxDevices + h.device];
    gh::BatchBuffer *groups = group_batches[i * gh::kMaxDevices + h.device];
    s = gh::gpu_grouped_submit(local->device, batch, groups, static_cast<size_t>(req.count));
    if (s != gh::Status::ok)
        return s;
    in_flight[n_in_flight++] = InFlight{i, batch, groups, false, -1};
    count_batch(h, req.count);
    return gh::Status::ok;
}

/*
 * A read: queued behind the work already on the device's stream, and
 * answered by retire_batches() once the counts have arrived in the slot.
 * Waiting here instead stopped the whole service at every scan's end for
 * all the batches queued ahead (64 pgbench clients: a read every 6 ms),
 * and the GPU went idle each time while nothing new was submitted.
 */
gh::Status run_read(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    gh::BatchBuffer *batch = batches[i * gh::kMaxDevices + h.device];
    s = gh::gpu_histogram_drain_async(local->device, req.first, req.count, batch);
    if (s != gh::Status::ok)
        return s;
    in_flight[n_in_flight++] = InFlight{i, batch, NULL, false, req.count};
    return gh::Status::ok;
}

/* Runs one queued request; a BIN's slot is given back later, when its copy is done. */
void run_request(int32 i)
{
    ServiceSlot req;
    ServiceHistogram h;
    service_lock();
    req = gh_service_slots[i];
    h = gh_service_histograms[req.hist];
    service_unlock();

    gh::Status s = gh::Status::ok;
    if (h.state != HIST_OPEN || h.serial != req.hist_serial) {
        /* the owner closed it, or it was opened before the service restarted */
        finish_slot(i, gh::Status::cuda_error);
        return;
    }
    if (h.error != 0) {
        /* an earlier request failed, or the histogram outlived a service restart */
        finish_slot(i, static_cast<gh::Status>(h.error));
        return;
    }
    if (service_is_page_slot(i) != (req.request == REQUEST_BIN_PAGES)) {
        /* a client's mistake (page slots have no room for values): its histogram fails, the service goes on */
        fail_histogram(req.hist, req.hist_serial, gh::Status::internal_error);
        finish_slot(i, gh::Status::internal_error);
        return;
    }
    LocalHistogram *local = local_for(req.hist, req.hist_serial);
    switch (req.request) {
    case REQUEST_THRESHOLDS:
        if (req.first < 0 || req.count < 0 || static_cast<int64>(req.first) + req.count > table_words(h)) {
            /* a client's mistake: its histogram fails, the service goes on */
            fail_histogram(req.hist, req.hist_serial, gh::Status::internal_error);
            finish_slot(i, gh::Status::internal_error);
            return;
        }
        if (local->thresholds == NULL)
            local->thresholds = static_cast<double *>(MemoryContextAllocHuge(
                TopMemoryContext, sizeof(double) * static_cast<Size>(Max(table_words(h), 1))));
        memcpy(local->thresholds + req.first, service_slot_values(i), sizeof(double) * static_cast<Size>(req.count));
        finish_slot(i, gh::Status::ok);
        return;
    case REQUEST_BIN:
        s = run_bin(i, req, local, h);
        if (s == gh::Status::ok)
            return;
        break;
    case REQUEST_BIN_GROUPED:
        s = run_bin_grouped(i, req, local, h);
        if (s == gh::Status::ok)
            return;
        break;
    case REQUEST_BIN_PAGES:
        s = run_bin_pages(i, req, local, h);
        if (s == gh::Status::ok)
            return;
        break;
    case REQUEST_READ:
        s = run_read(i, req, local, h);
        if (s == gh::Status::ok)
            return;
        break;
    }
    if (s == gh::Status::cuda_error || s == gh::Status::internal_error)
        exit_on_cuda_error(s);
    if (s != gh::Status::ok && s != gh::Status::nan_value)
        fail_histogram(req.hist, req.hist_serial, s);
    finish_slot(i, s);
}

/* A read's counts have arrived in its slot: the answer, as run_request() gives a failed request's. */
void finish_read(const InFlight &f)
{
    gh::Status s = gh::gpu_drain_result(f.batch, f.read);
    if (s == gh::Status::internal_error)
        exit_on_cuda_error(s);
    if (s != gh::Status::ok && s != gh::Status::nan_value) {
        ServiceSlot req;
        service_lock();
        req = gh_service_slots[f.slot];
        service_unlock();
        fail_histogram(req.hist, req.hist_serial, s);
    }
    finish_slot(f.slot, s);
}

/*
 * A page batch the GPU has finished: the pages it copied into the page
 * cache become hits for later batches only if its scan still held the
 * pins when the kernel was done, i.e. has not let go of the slot (a scan
 * lets go of its slots before its pins).  A cancelled scan's batch may
 * have read buffers that already held other pages.
 */
void commit_cached_pages(const InFlight &f)
{
    service_lock();
    bool held = !gh_service_slots[f.slot].abandoned;
    service_unlock();
    if (!held)
        return;
    /* nothing for a batch that was not cached */
    gh::Status s = gh::gpu_page_cache_commit(f.batch);
    if (s != gh::Status::ok)
        exit_on_cuda_error(s);
}

int compare_seq(const void *a, const void *b)
{
    uint64 x = gh_service_slots[*static_cast<const int32 *>(a)].seq;
    uint64 y = gh_service_slots[*static_cast<const int32 *>(b)].seq;
    return x < y ? -1 : x > y ? 1 : 0;
}

} // namespace

void requests_init(void)
{
    locals = static_cast<LocalHistogram *>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(LocalHistogram) * gh_service->nhistograms));
    const Size all_slots = static_cast<Size>(service_all_slots());
    batches = static_cast<gh::BatchBuffer **>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(gh::BatchBuffer *) * all_slots * gh::kMaxDevices));
    group_batches = static_cast<gh::BatchBuffer **>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(gh::BatchBuffer *) * all_slots * gh::kMaxDevices));
    in_flight = static_cast<InFlight *>(MemoryContextAllocZero(TopMemoryContext, sizeof(InFlight) * all_slots));
}

int in_flight_count(void)
{
    return n_in_flight;
}

/* Runs every queued request, oldest first; true if there was any. */
bool run_queue(int32 *order)
{
    int n = 0;
    service_lock();
    for (int i = 0; i < service_all_slots(); i++) {
        if (gh_service_slots[i].state == SLOT_QUEUED) {
            gh_service_slots[i].state = SLOT_RUNNING;
            order[n++] = i;
        }
    }
    service_unlock();
    /* seq is written before QUEUED and not changed while RUNNING */
    qsort(order, n, sizeof(int32), compare_seq);
    for (int k = 0; k < n; k++)
        run_request(order[k]);
    return n > 0;
}

/* Gives back the slots whose batches the GPU has copied, and answers the reads that have arrived. */
void retire_batches(void)
{
    int kept = 0;
    for (int k = 0; k < n_in_flight; k++) {
        bool busy = false;
        gh::Status s;
        if (in_flight[k].pages || in_flight[k].read >= 0) {
            bool finished = false;
            s = gh::gpu_batch_finished(in_flight[k].batch, &finished);
            busy = !finished;
        } else {
            s = gh::gpu_batch_busy(in_flight[k].batch, &busy);
        }
        if (s == gh::Status::ok && !busy && in_flight[k].groups != NULL)
            s = gh::gpu_batch_busy(in_flight[k].groups, &busy);
        if (s != gh::Status::ok)
            exit_on_cuda_error(s);
        if (busy)
            in_flight[kept++] = in_flight[k];
        else if (in_flight[k].read >= 0)
            finish_read(in_flight[k]);
        else {
            if (in_flight[k].pages)
                commit_cached_pages(in_flight[k]);
            finish_slot(in_flight[k].slot, gh::Status::ok);
        }
    }
    n_in_flight = kept;
}

/* Frees the device histograms whose owners closed them. */
void close_histograms(void)
{
    service_lock();
    bool any = gh_service->histograms_closing > 0;
    service_unlock();
    if (!any)
        return;
    for (int i = 0; i < gh_service->nhistograms; i++) {
        service_lock();
        bool closing = gh_service_histograms[i].state == HIST_CLOSING;
        service_unlock();
        if (!closing)
            continue;
        drop_local(i);
        service_lock();
        ServiceHistogram *h = &gh_service_histograms[i];
        h->state = HIST_FREE;
        gh_service->histograms_closing--;
        gh_service->histograms_open--;
        gh_service->device_bytes -= h->device_bytes;
        gh_service->devices[h->device].histograms--;
        service_unlock();
        wake_room_waiters();
    }
}

} // namespace cuda_proc

} // namespace gpu_histogram
