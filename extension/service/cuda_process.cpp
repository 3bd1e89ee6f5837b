/*
 * cuda_process.cpp: the CUDA process, the only process of the server that
 * touches CUDA.  The supervisor (supervisor.cpp) forks it; the postmaster
 * does not know it exists, so its death by any signal (a fault in the GPU
 * driver, an out-of-memory kill, an administrator's kill -9) costs only the
 * GPU requests in flight, never the server.
 *
 * It starts a context on every GPU, page-locks the shared batch slots, and
 * then loops: run the queued requests in the order they were queued (copy
 * and bin a batch, load thresholds, read counters back), give slots back as
 * soon as the GPU has copied them, and free the histograms their owners
 * closed.  A grouped batch (many groups' histograms as one array of cells)
 * carries its group numbers in the same slot, behind its values.  Device histograms live here, indexed like the shared table.
 *
 * A CUDA error other than running out of memory may leave the context
 * unusable, so it records the error and exits with status 1; the supervisor
 * fails what it held and starts a fresh one.
 *
 * Being a fork of the supervisor, it shares its PGPROC, latch and exit
 * callbacks.  It drops the callbacks and the PGPROC, and so uses nothing
 * that needs one: no condition variable and no latch of its own.  Clients
 * ring its doorbell (service_wake); it sets the latches of clients whose
 * reads are done, and asks the supervisor to broadcast to those waiting
 * for room.
 */
#include "service_shared.h"

#include "cuda_process.h"

extern "C" {
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/pg_shmem.h"
#include "storage/proc.h"
#include "storage/proclist.h"
#include "utils/ps_status.h"
}

#include <signal.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

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
gh::BatchBuffer **batches; /* [slot * kMaxDevices + device], all made by start_gpus() */
/* The group-number part of each slot (service_slot_groups) as a buffer of its own, made with it. */
gh::BatchBuffer **group_batches;
InFlight *in_flight;
int n_in_flight;
uint32 applied_fail_request;
uint32 applied_crash_request;
int ndevices;

/* SIGURG rings the doorbell, SIGTERM asks it to exit: both blocked, and taken by sigtimedwait. */
sigset_t wait_signals;
bool terminate_requested = false;

bool shutdown_requested(void)
{
    if (terminate_requested)
        return true;
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGTERM))
        terminate_requested = true;
    return terminate_requested;
}

void set_message(const char *text)
{
    service_lock();
    strlcpy(gh_service->message, text, sizeof gh_service->message);
    service_unlock();
}

/* The supervisor broadcasts slot_freed for this process, which has no PGPROC to do it with. */
void ask_for_broadcast(void)
{
    if (pg_atomic_exchange_u32(&gh_service->broadcast_wanted, 1) == 0 && gh_service->supervisor_latch != NULL)
        SetLatch(gh_service->supervisor_latch);
}

/* After freeing a slot or an entry. */
void wake_room_waiters(void)
{
    pg_memory_barrier();
    /* a waiter joins the list before it looks at the tables again: an empty list means nobody missed this */
    if (!proclist_is_empty(&gh_service->slot_freed.wakeup))
        ask_for_broadcast();
}

/* Leaves without running anything of the supervisor's: what it held is the supervisor's to repair. */
[[noreturn]] void leave(int status);
void leave(int status)
{
    _exit(status);
}

[[noreturn]] void exit_on_cuda_error(gh::Status s);
void exit_on_cuda_error(gh::Status s)
{
    char text[300];
    snprintf(text, sizeof text, "%s: %s", gh::status_text(s), gh::gpu_last_error());
    ereport(LOG, (errmsg("gpu_histogram CUDA process: fatal CUDA error, restarting: %s", text)));
    service_lock();
    strlcpy(gh_service->last_failure, text, sizeof gh_service->last_failure);
    service_unlock();
    leave(1);
}

void refresh_devices(void)
{
    gh::DeviceInfo info[gh::kMaxDevices];
    int count = 0;
    gh::Status s = gh::gpu_devices(info, gh::kMaxDevices, &count);
    if (s != gh::Status::ok)
        exit_on_cuda_error(s);
    service_lock();
    for (int i = 0; i < count; i++)
        gh_service->devices[i].info = info[i];
    gh_service->ndevices = count;
    service_unlock();
}

/*
 * Maps the shared buffer pool for every GPU, once: scans then send pinned
 * pages by buffer number, and the page kernel reads them where they lie.
 * Page-locking faults in every page of shared_buffers that no backend has
 * touched yet: 18 s for 24 GB on the H100 host after the server's start,
 * 2.3 s once the memory exists (a restarted CUDA process).  It is done
 * before the service is up, so that no request waits behind it: meanwhile
 * auto sessions bin on the CPU and gpu sessions wait for the start.  A
 * failure (a locked memory limit, say) only keeps pages on the CPU.
 */
void map_buffer_pool(void)
{
    if (!gh_service->map_buffers)
        return;
    instr_time start, elapsed;
    INSTR_TIME_SET_CURRENT(start);
    Size bytes = static_cast<Size>(NBuffers) * BLCKSZ;
    gh::Status s = gh::gpu_pool_register(BufferBlocks, bytes);
    INSTR_TIME_SET_CURRENT(elapsed);
    INSTR_TIME_SUBTRACT(elapsed, start);
    double ms = INSTR_TIME_GET_MILLISEC(elapsed);
    if (s != gh::Status::ok) {
        ereport(LOG, (errmsg("gpu_histogram CUDA process: the shared buffer pool is not mapped for the GPU, "
                             "pages are parsed on the CPU: %s: %s", gh::status_text(s), gh::gpu_last_error())));
        return;
    }
    service_lock();
    gh_service->pool_registered = true;
    service_unlock();
    ereport(LOG, (errmsg("gpu_histogram CUDA process: shared buffer pool (%zu MB) mapped for the GPU in %.1f ms",
                         bytes >> 20, ms)));
}

/*
 * The page cache on every GPU (gpu_histogram.gpu_page_cache), once the
 * pool is mapped.  Without the room, scans read every page over PCIe, as
 * with the setting at 0.
 */
void start_page_cache(void)
{
    if (!gh_service->pool_registered || gh_service->page_cache_bytes <= 0)
        return;
    uint64_t entries = 0;
    gh::Status s = gh::gpu_page_cache_start(static_cast<size_t>(gh_service->page_cache_bytes), &entries);
    if (s != gh::Status::ok) {
        ereport(LOG, (errmsg("gpu_histogram CUDA process: no page cache on the GPUs (gpu_histogram.gpu_page_cache): "
                             "%s: %s", gh::status_text(s), gh::gpu_last_error())));
        return;
    }
    service_lock();
    gh_service->page_cache_entries = static_cast<int64>(entries);
    service_unlock();
    ereport(LOG, (errmsg("gpu_histogram CUDA process: each GPU keeps up to %llu pages in its page cache",
                         static_cast<unsigned long long>(entries))));
}

/* CUDA on every device, and the batch slots page-locked; false if there is no GPU. */
bool start_gpus(void)
{
    gh::Status s = gh::gpu_start();
    if (s != gh::Status::ok) {
        char text[300];
        if (s == gh::Status::not_built)
            snprintf(text, sizeof text, "%s", gh::gpu_last_error());
        else
            snprintf(text, sizeof text, "%s: %s", gh::status_text(s), gh::gpu_last_error());
        set_message(text);
        service_lock();
        gh_service->start_status = static_cast<int32>(s);
        service_unlock();
        ereport(LOG, (errmsg("gpu_histogram CUDA process: no GPU, values are binned on the CPU: %s", text)));
        return false;
    }
    ndevices = gh::gpu_device_count();
    bool registered = gh::gpu_host_register(gh_service_batches, service_batch_bytes()) == gh::Status::ok;
    if (!registered)
        ereport(LOG, (errmsg("gpu_histogram CUDA process: batch slots not page-locked, copies are staged: %s",
                             gh::gpu_last_error())));
    /* every slot's device twin on every device now: no allocation on a query's path, a fixed footprint */
    for (int slot = 0; slot < service_all_slots(); slot++) {
        for (int device = 0; device < ndevices; device++) {
            s = gh::gpu_batch_create(device, service_slot_values(slot), static_cast<size_t>(service_slot_words(slot)),
                                     &batches[slot * gh::kMaxDevices + device]);
            /* a page slot carries page words only: no group numbers */
            if (s == gh::Status::ok && !service_is_page_slot(slot))
                s = gh::gpu_batch_create(device, reinterpret_cast<const double *>(service_slot_groups(slot)),
                                         static_cast<size_t>(gh_service->slot_values - service_grouped_values()),
                                         &group_batches[slot * gh::kMaxDevices + device]);
            if (s != gh::Status::ok) {
                /* not fatal: a service that cannot start would only be started again and again */
                char text[300];
                snprintf(text, sizeof text, "the device buffers of %d slots of %d values and %d page slots: %s: %s",
                         gh_service->nslots, gh_service->slot_values, gh_service->npage_slots, gh::status_text(s),
                         gh::gpu_last_error());
                set_message(text);
                ereport(LOG, (errmsg("gpu_histogram CUDA process: no GPU used: %s", text)));
                return false;
            }
        }
    }
    map_buffer_pool();
    start_page_cache();
    refresh_devices();
    service_lock();
    gh_service->registered = registered;
    gh_service->startup_ms = gh::gpu_counters().startup_ms;
    gh_service->message[0] = '\0';
    service_unlock();
    ereport(LOG, (errmsg("gpu_histogram CUDA process: %d GPU(s) ready in %.1f ms", ndevices,
                         gh::gpu_counters().startup_ms)));
    return true;
}

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

int compare_seq(const void *a, const void *b)
{
    uint64 x = gh_service_slots[*static_cast<const int32 *>(a)].seq;
    uint64 y = gh_service_slots[*static_cast<const int32 *>(b)].seq;
    return x < y ? -1 : x > y ? 1 : 0;
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

/*
 * Testing (gpu_histogram.debug_crash_cuda_process): dies as a faulting
 * driver would, at the worst moment, holding the lock every client needs.
 */
void apply_crash_injection(void)
{
    service_lock();
    bool wanted = gh_service->crash_request != applied_crash_request;
    if (!wanted) {
        service_unlock();
        return;
    }
    ereport(LOG, (errmsg("gpu_histogram CUDA process: crashing on purpose, holding the service's lock "
                         "(gpu_histogram.debug_crash_cuda_process)")));
    (void)raise(SIGSEGV);
    leave(1); /* not reached */
}

void apply_fail_injection(void)
{
    service_lock();
    uint32 request = gh_service->fail_request;
    int32 calls = gh_service->fail_calls;
    service_unlock();
    if (request != applied_fail_request) {
        applied_fail_request = request;
        gh::gpu_fail_after(calls);
    }
}

/*
 * Waits up to timeout_us for the doorbell or SIGTERM.  Announcing the sleep
 * and then reading the doorbell, against a client's ringing it and then
 * reading `sleeping`, with a full barrier in between on both sides: either
 * this process sees the ring, or the client sees it asleep and signals it.
 */
/* How often the process looks at batches in flight (serve() says why). */
constexpr long kInFlightLookUs = 20;

void wait_for_work(long timeout_us)
{
    pg_atomic_write_u32(&gh_service->sleeping, 1);
    pg_memory_barrier();
    if (pg_atomic_read_u32(&gh_service->doorbell) == 0 && !shutdown_requested()) {
        struct timespec timeout = {timeout_us / 1000000L, (timeout_us % 1000000L) * 1000L};
        if (sigtimedwait(&wait_signals, NULL, &timeout) == SIGTERM)
            terminate_requested = true;
    }
    pg_atomic_write_u32(&gh_service->sleeping, 0);
}

/* An administrator's SIGTERM (or the supervisor's): leave; the supervisor starts another. */
void handle_signals(void)
{
    if (shutdown_requested())
        leave(0);
}

void serve(void)
{
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * service_all_slots()));
    TimestampTz last_idle_work = GetCurrentTimestamp();
    for (;;) {
        /* cleared before looking at the queue: a request queued from now on rings again */
        (void)pg_atomic_exchange_u32(&gh_service->doorbell, 0);
        handle_signals();
        apply_crash_injection();
        apply_fail_injection();
        bool worked = run_queue(order);
        retire_batches();
        close_histograms();
        if (worked)
            continue;
        TimestampTz now = GetCurrentTimestamp();
        /* an injected failure is meant for a client's request: idle work would use it up */
        if (TimestampDifferenceExceeds(last_idle_work, now, 1000) && !gh::gpu_fail_pending()) {
            /* idle for a second: freed histograms' memory goes back, and free memory is read afresh */
            if (n_in_flight == 0) {
                gh::Status s = gh::gpu_trim_memory();
                if (s != gh::Status::ok)
                    exit_on_cuda_error(s);
            }
            refresh_devices();
            last_idle_work = now;
        }
        /*
         * Batches in flight: look again soon, their slots (and a page
         * batch's pins) are wanted back, and their scans wait.  A page
         * batch read over PCIe takes the GPU about 0.4 ms, and auto keeps
         * only a few queued, so a 1 ms look left the GPU idle between
         * them.  A batch of 8,192 probes read from the page cache takes it
         * far less, and a serial scan of 100M cached rows sends 78 such
         * batches one after another: with a look every 100 us it took 19
         * to 20 ms on the H100 host, with 20 us 12 to 16 (8 workers: 10 ms
         * either way).  The timer slack lets a sleep be that short
         * (become_cuda_process); the looks cost this process a little more
         * of a core, and only while batches are in flight.
         */
        wait_for_work(n_in_flight > 0 ? kInFlightLookUs : 1000000);
    }
}

/* Waits for SIGTERM: there is no GPU, and clients know it from the state. */
[[noreturn]] void idle(void);
void idle(void)
{
    for (;;) {
        handle_signals();
        apply_crash_injection();
        wait_for_work(10000000);
        (void)pg_atomic_exchange_u32(&gh_service->doorbell, 0);
    }
}

/*
 * What a fork of the supervisor must undo before it is a process of its
 * own: its pid, its exit callbacks and PGPROC (the supervisor's), its signal
 * handlers, and its fate (it dies with the supervisor).
 */
void become_cuda_process(pid_t supervisor)
{
    MyProcPid = getpid();
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Linux stretches a sleep by up to 50 us by default: too much for kInFlightLookUs */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL);
    if (getppid() != supervisor)
        leave(1); /* the supervisor died before the line above */
    on_exit_reset();
    /*
     * A postmaster refuses to start on a data directory whose System V
     * segment still has a process attached, and a CUDA process can take a
     * moment to die after an immediate shutdown.  With the default
     * shared_memory_type (mmap) that segment is only the interlock:
     * everything this process uses is in the anonymous mapping.
     */
    if (shared_memory_type == SHMEM_TYPE_MMAP && UsedShmemSegAddr != NULL)
        (void)shmdt(UsedShmemSegAddr);
    MyProc = NULL;
    MyLatch = NULL;
    init_ps_display("gpu_histogram CUDA process");

    sigemptyset(&wait_signals);
    sigaddset(&wait_signals, SIGURG);
    sigaddset(&wait_signals, SIGTERM);
    int ignored[] = {SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM};
    for (int sig : ignored)
        pqsignal(sig, SIG_IGN);
    int defaults[] = {SIGQUIT, SIGCHLD, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (int sig : defaults)
        pqsignal(sig, SIG_DFL);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGURG);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_SETMASK, &mask, NULL); /* CUDA's threads inherit it: the signals wait for sigtimedwait */
}

} // namespace

void cuda_process_main(pid_t supervisor)
{
    become_cuda_process(supervisor);

    /* an ERROR (out of memory, say) ends this process, never the supervisor's loop */
    sigjmp_buf on_error;
    if (sigsetjmp(on_error, 1) != 0) {
        EmitErrorReport();
        leave(1);
    }
    PG_exception_stack = &on_error;

    service_lock();
    gh_service->starts++;
    gh_service->state = SERVICE_STARTING;
    gh_service->start_status = static_cast<int32>(gh::Status::ok);
    gh_service->pid = MyProcPid;
    gh_service->pool_registered = false;
    gh_service->page_cache_entries = 0;
    applied_fail_request = gh_service->fail_request;
    applied_crash_request = gh_service->crash_request;
    service_unlock();

    locals = static_cast<LocalHistogram *>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(LocalHistogram) * gh_service->nhistograms));
    const Size all_slots = static_cast<Size>(service_all_slots());
    batches = static_cast<gh::BatchBuffer **>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(gh::BatchBuffer *) * all_slots * gh::kMaxDevices));
    group_batches = static_cast<gh::BatchBuffer **>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(gh::BatchBuffer *) * all_slots * gh::kMaxDevices));
    in_flight = static_cast<InFlight *>(MemoryContextAllocZero(TopMemoryContext, sizeof(InFlight) * all_slots));

    /*
     * Every kernel loaded now rather than at its first use: no query pays for
     * it, and the service's device memory no longer depends on which kinds of
     * histogram it has seen (an administrator's own setting wins).
     */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    bool gpus = start_gpus();
    service_lock();
    gh_service->state = gpus ? SERVICE_UP : SERVICE_NO_GPU;
    service_unlock();
    ask_for_broadcast(); /* device = 'gpu' sessions wait for the start */
    if (gpus)
        serve();
    idle();
}
