/*
 * service_worker.cpp: the GPU service, a background worker that is the only
 * process of the server to touch CUDA.
 *
 * It starts a context on every GPU, page-locks the shared batch slots, and
 * then loops: run the queued requests in the order they were queued (copy
 * and bin a batch, load thresholds, read counters back), give slots back as
 * soon as the GPU has copied them, and free the histograms their owners
 * closed.  Device histograms live here, indexed like the shared table.
 *
 * A CUDA error other than running out of memory may leave the context
 * unusable, so the service fails every request it holds (the clients get an
 * ERROR with the CUDA text), exits with status 1, and the postmaster starts
 * a fresh one at once.  Its state is plain data and PostgreSQL
 * memory, so nothing needs unwinding on the way out.
 */
#include "service_shared.h"

extern "C" {
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/wait_event.h"
}

extern "C" {
PGDLLEXPORT void gpu_histogram_service_main(Datum arg);
}

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
};

LocalHistogram *locals;
gh::BatchBuffer **batches; /* [slot * kMaxDevices + device], created on first use */
InFlight *in_flight;
int n_in_flight;
uint32 applied_fail_request;
int ndevices;

bool shutdown_requested(void)
{
    return ShutdownRequestPending;
}

void set_message(const char *text)
{
    SpinLockAcquire(&gh_service->mutex);
    strlcpy(gh_service->message, text, sizeof gh_service->message);
    SpinLockRelease(&gh_service->mutex);
}

void on_exit_fail_all(int, Datum)
{
    service_fail_all(NULL);
    SpinLockAcquire(&gh_service->mutex);
    gh_service->state = SERVICE_DOWN;
    gh_service->pid = 0;
    gh_service->latch = NULL;
    SpinLockRelease(&gh_service->mutex);
}

pg_attribute_noreturn() void exit_on_cuda_error(gh::Status s);
void exit_on_cuda_error(gh::Status s)
{
    char text[300];
    snprintf(text, sizeof text, "%s: %s", gh::status_text(s), gh::gpu_last_error());
    ereport(LOG, (errmsg("gpu_histogram GPU service: fatal CUDA error, restarting: %s", text)));
    service_fail_all(text);
    proc_exit(1);
}

void refresh_devices(void)
{
    gh::DeviceInfo info[gh::kMaxDevices];
    int count = 0;
    gh::Status s = gh::gpu_devices(info, gh::kMaxDevices, &count);
    if (s != gh::Status::ok)
        exit_on_cuda_error(s);
    SpinLockAcquire(&gh_service->mutex);
    for (int i = 0; i < count; i++)
        gh_service->devices[i].info = info[i];
    gh_service->ndevices = count;
    SpinLockRelease(&gh_service->mutex);
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
        SpinLockAcquire(&gh_service->mutex);
        gh_service->start_status = static_cast<int32>(s);
        SpinLockRelease(&gh_service->mutex);
        ereport(LOG, (errmsg("gpu_histogram GPU service: no GPU, values are binned on the CPU: %s", text)));
        return false;
    }
    ndevices = gh::gpu_device_count();
    bool registered = gh::gpu_host_register(gh_service_batches, service_batch_bytes()) == gh::Status::ok;
    if (!registered)
        ereport(LOG, (errmsg("gpu_histogram GPU service: batch slots not page-locked, copies are staged: %s",
                             gh::gpu_last_error())));
    /* every slot's device twin on every device now: no allocation on a query's path, a fixed footprint */
    for (int slot = 0; slot < gh_service->nslots; slot++) {
        for (int device = 0; device < ndevices; device++) {
            s = gh::gpu_batch_create(device, service_slot_values(slot), static_cast<size_t>(gh_service->slot_values),
                                     &batches[slot * gh::kMaxDevices + device]);
            if (s != gh::Status::ok) {
                /* not fatal: a service that cannot start would only be started again and again */
                char text[300];
                snprintf(text, sizeof text, "the device buffers of %d slots of %d values: %s: %s", gh_service->nslots,
                         gh_service->slot_values, gh::status_text(s), gh::gpu_last_error());
                set_message(text);
                ereport(LOG, (errmsg("gpu_histogram GPU service: no GPU used: %s", text)));
                return false;
            }
        }
    }
    refresh_devices();
    SpinLockAcquire(&gh_service->mutex);
    gh_service->registered = registered;
    gh_service->startup_ms = gh::gpu_counters().startup_ms;
    gh_service->message[0] = '\0';
    SpinLockRelease(&gh_service->mutex);
    ereport(LOG, (errmsg("gpu_histogram GPU service: %d GPU(s) ready in %.1f ms", ndevices,
                         gh::gpu_counters().startup_ms)));
    return true;
}

/* Marks a slot free (or leaves a read's answer in it) and wakes whoever waits. */
void finish_slot(int32 i, gh::Status result)
{
    ServiceSlot *slot = &gh_service_slots[i];
    bool answer = false;
    SpinLockAcquire(&gh_service->mutex);
    if (slot->request == REQUEST_READ && !slot->abandoned) {
        slot->state = SLOT_DONE;
        slot->result = static_cast<int32>(result);
        answer = true;
    } else {
        slot->state = SLOT_FREE;
        slot->abandoned = false;
        gh_service->slots_in_use--;
    }
    SpinLockRelease(&gh_service->mutex);
    if (answer)
        ConditionVariableBroadcast(&slot->done);
    else
        ConditionVariableBroadcast(&gh_service->slot_freed);
}

/* Records a failure on the histogram, for its owner's next read. */
void fail_histogram(int32 hist, uint64 serial, gh::Status s)
{
    SpinLockAcquire(&gh_service->mutex);
    ServiceHistogram *h = &gh_service_histograms[hist];
    if (h->serial == serial && h->error == 0)
        h->error = static_cast<int32>(s);
    SpinLockRelease(&gh_service->mutex);
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

gh::Status open_device_histogram(LocalHistogram *local, const ServiceHistogram &h)
{
    if (local->device != NULL)
        return gh::Status::ok;
    gh::HistogramSpec spec = h.spec;
    if (spec.kind == gh::SpecKind::thresholds) {
        if (local->thresholds == NULL && spec.thresholds.count > 0)
            return gh::Status::internal_error;
        spec.thresholds.thresholds = local->thresholds;
    }
    return gh::gpu_histogram_open(spec, h.device, &local->device);
}

gh::Status run_bin(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    gh::BatchBuffer **batch = &batches[i * gh::kMaxDevices + h.device];
    if (*batch == NULL) {
        s = gh::gpu_batch_create(h.device, service_slot_values(i), static_cast<size_t>(gh_service->slot_values), batch);
        if (s != gh::Status::ok)
            return s;
    }
    s = gh::gpu_histogram_submit(local->device, *batch, static_cast<size_t>(req.count));
    if (s != gh::Status::ok)
        return s;
    in_flight[n_in_flight++] = InFlight{i, *batch};
    SpinLockAcquire(&gh_service->mutex);
    gh_service->batches++;
    gh_service->values += req.count;
    gh_service->devices[h.device].batches++;
    gh_service->devices[h.device].values += req.count;
    SpinLockRelease(&gh_service->mutex);
    return gh::Status::ok;
}

gh::Status run_read(int32 i, const ServiceSlot &req, LocalHistogram *local, const ServiceHistogram &h)
{
    gh::Status s = open_device_histogram(local, h);
    if (s != gh::Status::ok)
        return s;
    int64 *counts = reinterpret_cast<int64 *>(service_slot_values(i));
    memset(counts, 0, sizeof(int64) * static_cast<Size>(req.count));
    return gh::gpu_histogram_drain(local->device, req.first, req.count, counts, shutdown_requested);
}

/* Runs one queued request; a BIN's slot is given back later, when its copy is done. */
void run_request(int32 i)
{
    ServiceSlot req;
    ServiceHistogram h;
    SpinLockAcquire(&gh_service->mutex);
    req = gh_service_slots[i];
    h = gh_service_histograms[req.hist];
    SpinLockRelease(&gh_service->mutex);

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
    LocalHistogram *local = local_for(req.hist, req.hist_serial);
    switch (req.request) {
    case REQUEST_THRESHOLDS:
        if (local->thresholds == NULL)
            local->thresholds = static_cast<double *>(MemoryContextAllocHuge(
                TopMemoryContext, sizeof(double) * static_cast<Size>(h.spec.thresholds.count)));
        memcpy(local->thresholds + req.first, service_slot_values(i), sizeof(double) * static_cast<Size>(req.count));
        finish_slot(i, gh::Status::ok);
        return;
    case REQUEST_BIN:
        s = run_bin(i, req, local, h);
        if (s == gh::Status::ok)
            return;
        break;
    case REQUEST_READ:
        s = run_read(i, req, local, h);
        if (s == gh::Status::interrupted)
            s = gh::Status::cuda_error;
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
    SpinLockAcquire(&gh_service->mutex);
    for (int i = 0; i < gh_service->nslots; i++) {
        if (gh_service_slots[i].state == SLOT_QUEUED) {
            gh_service_slots[i].state = SLOT_RUNNING;
            order[n++] = i;
        }
    }
    SpinLockRelease(&gh_service->mutex);
    /* seq is written before QUEUED and not changed while RUNNING */
    qsort(order, n, sizeof(int32), compare_seq);
    for (int k = 0; k < n; k++)
        run_request(order[k]);
    return n > 0;
}

/* Gives back the slots whose batches the GPU has copied. */
void retire_batches(void)
{
    int kept = 0;
    for (int k = 0; k < n_in_flight; k++) {
        bool busy = false;
        gh::Status s = gh::gpu_batch_busy(in_flight[k].batch, &busy);
        if (s != gh::Status::ok)
            exit_on_cuda_error(s);
        if (busy)
            in_flight[kept++] = in_flight[k];
        else
            finish_slot(in_flight[k].slot, gh::Status::ok);
    }
    n_in_flight = kept;
}

/* Frees the device histograms whose owners closed them. */
void close_histograms(void)
{
    SpinLockAcquire(&gh_service->mutex);
    bool any = gh_service->histograms_closing > 0;
    SpinLockRelease(&gh_service->mutex);
    if (!any)
        return;
    for (int i = 0; i < gh_service->nhistograms; i++) {
        SpinLockAcquire(&gh_service->mutex);
        bool closing = gh_service_histograms[i].state == HIST_CLOSING;
        SpinLockRelease(&gh_service->mutex);
        if (!closing)
            continue;
        drop_local(i);
        SpinLockAcquire(&gh_service->mutex);
        ServiceHistogram *h = &gh_service_histograms[i];
        h->state = HIST_FREE;
        gh_service->histograms_closing--;
        gh_service->histograms_open--;
        gh_service->device_bytes -= h->device_bytes;
        gh_service->devices[h->device].histograms--;
        SpinLockRelease(&gh_service->mutex);
        ConditionVariableBroadcast(&gh_service->slot_freed);
    }
}

bool process_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/*
 * Takes back what clients that vanished without cleaning up left (they
 * always clean up on exit; this covers what cannot be foreseen).  The pids
 * are checked outside the lock, and an entry is taken back only if the same
 * owner still holds it.
 */
void reclaim_orphans(void)
{
    bool freed = false;
    for (int i = 0; i < gh_service->nslots; i++) {
        ServiceSlot *slot = &gh_service_slots[i];
        SpinLockAcquire(&gh_service->mutex);
        bool held = slot->state == SLOT_FILLING || slot->state == SLOT_DONE;
        pid_t owner = slot->owner;
        SpinLockRelease(&gh_service->mutex);
        if (!held || !process_gone(owner))
            continue;
        SpinLockAcquire(&gh_service->mutex);
        if ((slot->state == SLOT_FILLING || slot->state == SLOT_DONE) && slot->owner == owner) {
            slot->state = SLOT_FREE;
            gh_service->slots_in_use--;
            freed = true;
        }
        SpinLockRelease(&gh_service->mutex);
    }
    for (int i = 0; i < gh_service->nhistograms; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        SpinLockAcquire(&gh_service->mutex);
        bool open = h->state == HIST_OPEN;
        pid_t owner = h->owner;
        uint64 serial = h->serial;
        SpinLockRelease(&gh_service->mutex);
        if (!open || !process_gone(owner))
            continue;
        SpinLockAcquire(&gh_service->mutex);
        if (h->state == HIST_OPEN && h->serial == serial) {
            h->state = HIST_CLOSING;
            gh_service->histograms_closing++;
        }
        SpinLockRelease(&gh_service->mutex);
    }
    if (freed)
        ConditionVariableBroadcast(&gh_service->slot_freed);
}

void apply_fail_injection(void)
{
    SpinLockAcquire(&gh_service->mutex);
    uint32 request = gh_service->fail_request;
    int32 calls = gh_service->fail_calls;
    SpinLockRelease(&gh_service->mutex);
    if (request != applied_fail_request) {
        applied_fail_request = request;
        gh::gpu_fail_after(calls);
    }
}

/* What the postmaster and administrators ask of the loop: exit, or reload the configuration. */
void handle_signals(void)
{
    CHECK_FOR_INTERRUPTS();
    if (ShutdownRequestPending)
        proc_exit(1); /* 1, not 0: a SIGTERM outside a server shutdown makes the postmaster start it again */
    if (ConfigReloadPending) {
        ConfigReloadPending = false;
        ProcessConfigFile(PGC_SIGHUP);
    }
}

void serve(void)
{
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * gh_service->nslots));
    TimestampTz last_idle_work = GetCurrentTimestamp();
    for (;;) {
        ResetLatch(MyLatch);
        handle_signals();
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
            reclaim_orphans();
            last_idle_work = now;
        }
        /* batches in flight: look again soon, their slots are wanted back */
        long timeout = n_in_flight > 0 ? 1 : 1000;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, timeout, PG_WAIT_EXTENSION);
    }
}

/* Waits for shutdown: there is no GPU, and clients know it from the state. */
void idle(void)
{
    for (;;) {
        ResetLatch(MyLatch);
        handle_signals();
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10000, PG_WAIT_EXTENSION);
    }
}

} // namespace

void gpu_histogram_service_main(Datum)
{
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();

    /* what a previous incarnation left (it failed everything on its way out, unless killed) */
    service_fail_all(NULL);
    SpinLockAcquire(&gh_service->mutex);
    gh_service->starts++;
    gh_service->state = SERVICE_STARTING;
    gh_service->start_status = static_cast<int32>(gh::Status::ok);
    gh_service->pid = MyProcPid;
    gh_service->latch = MyLatch;
    applied_fail_request = gh_service->fail_request;
    SpinLockRelease(&gh_service->mutex);
    before_shmem_exit(on_exit_fail_all, 0);

    locals = static_cast<LocalHistogram *>(
        MemoryContextAllocZero(TopMemoryContext, sizeof(LocalHistogram) * gh_service->nhistograms));
    batches = static_cast<gh::BatchBuffer **>(MemoryContextAllocZero(
        TopMemoryContext, sizeof(gh::BatchBuffer *) * gh_service->nslots * gh::kMaxDevices));
    in_flight = static_cast<InFlight *>(MemoryContextAllocZero(TopMemoryContext, sizeof(InFlight) * gh_service->nslots));

    /*
     * Every kernel loaded now rather than at its first use: no query pays for
     * it, and the service's device memory no longer depends on which kinds of
     * histogram it has seen (an administrator's own setting wins).
     */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    bool gpus = start_gpus();
    SpinLockAcquire(&gh_service->mutex);
    gh_service->state = gpus ? SERVICE_UP : SERVICE_NO_GPU;
    SpinLockRelease(&gh_service->mutex);
    ConditionVariableBroadcast(&gh_service->slot_freed);
    if (gpus)
        serve();
    idle();
}
