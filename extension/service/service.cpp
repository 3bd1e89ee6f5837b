/*
 * service.cpp: the service's settings, its shared memory and the background
 * worker's registration, all done in the postmaster while the library is
 * preloaded.  Nothing here touches CUDA: the worker does, once it runs.
 */
#include "service.h"
#include "service_shared.h"

extern "C" {
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
}

ServiceShared *gh_service = NULL;
ServiceSlot *gh_service_slots = NULL;
ServiceHistogram *gh_service_histograms = NULL;
double *gh_service_batches = NULL;

namespace {

int setting_slots = 32;
int setting_slot_values = 1 << 20;
int setting_histograms = 1024;
int setting_device_memory_mb = 512;

shmem_request_hook_type prev_shmem_request_hook = NULL;
shmem_startup_hook_type prev_shmem_startup_hook = NULL;

constexpr Size kPage = 4096;

Size tables_bytes()
{
    Size size = MAXALIGN(sizeof(ServiceShared));
    size = add_size(size, mul_size(sizeof(ServiceSlot), setting_slots));
    size = add_size(size, mul_size(sizeof(ServiceHistogram), setting_histograms));
    return size;
}

Size batch_bytes_for_settings()
{
    return add_size(mul_size(mul_size(setting_slots, setting_slot_values), sizeof(double)), kPage);
}

void request_shared_memory(void)
{
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(tables_bytes());
    RequestAddinShmemSpace(batch_bytes_for_settings());
}

void attach_shared_memory(void)
{
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    bool found = false;
    char *base = static_cast<char *>(ShmemInitStruct("gpu_histogram service", tables_bytes(), &found));
    bool found_batches = false;
    char *batches = static_cast<char *>(
        ShmemInitStruct("gpu_histogram service batches", batch_bytes_for_settings(), &found_batches));
    gh_service = reinterpret_cast<ServiceShared *>(base);
    gh_service_slots = reinterpret_cast<ServiceSlot *>(base + MAXALIGN(sizeof(ServiceShared)));
    gh_service_histograms = reinterpret_cast<ServiceHistogram *>(gh_service_slots + setting_slots);
    gh_service_batches = reinterpret_cast<double *>(TYPEALIGN(kPage, batches));
    if (!found) {
        /* the batch memory itself is left untouched: pages are mapped when used */
        memset(base, 0, tables_bytes());
        SpinLockInit(&gh_service->mutex);
        ConditionVariableInit(&gh_service->slot_freed);
        gh_service->nslots = setting_slots;
        gh_service->slot_values = setting_slot_values;
        gh_service->nhistograms = setting_histograms;
        gh_service->device_memory_limit = static_cast<int64>(setting_device_memory_mb) * 1024 * 1024;
        gh_service->state = SERVICE_DOWN;
        gh_service->next_serial = 1;
        gh_service->next_seq = 1;
        snprintf(gh_service->message, sizeof gh_service->message, "the GPU service has not started yet");
        for (int i = 0; i < setting_slots; i++)
            ConditionVariableInit(&gh_service_slots[i].done);
    }
    LWLockRelease(AddinShmemInitLock);
}

void register_worker(void)
{
    BackgroundWorker worker;
    memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
    worker.bgw_start_time = BgWorkerStart_PostmasterStart;
    /*
     * After a fatal CUDA error it exits with 1 and the postmaster starts it
     * again at once.  It cannot loop: failing to start CUDA is not fatal (it
     * then runs without a GPU).
     */
    worker.bgw_restart_time = 0;
    snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpu_histogram");
    snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpu_histogram_service_main");
    snprintf(worker.bgw_name, BGW_MAXLEN, "gpu_histogram GPU service");
    snprintf(worker.bgw_type, BGW_MAXLEN, "gpu_histogram GPU service");
    RegisterBackgroundWorker(&worker);
}

} // namespace

Size service_batch_bytes(void)
{
    return static_cast<Size>(gh_service->nslots) * static_cast<Size>(gh_service->slot_values) * sizeof(double);
}

void service_wake(void)
{
    SpinLockAcquire(&gh_service->mutex);
    Latch *latch = gh_service->state == SERVICE_DOWN ? NULL : gh_service->latch;
    SpinLockRelease(&gh_service->mutex);
    if (latch != NULL)
        SetLatch(latch);
}

void service_fail_all(const char *failure)
{
    SpinLockAcquire(&gh_service->mutex);
    for (int i = 0; i < gh_service->nslots; i++) {
        ServiceSlot *slot = &gh_service_slots[i];
        if (slot->state != SLOT_QUEUED && slot->state != SLOT_RUNNING)
            continue;
        if (slot->abandoned || slot->request != REQUEST_READ) {
            slot->state = SLOT_FREE;
            slot->abandoned = false;
            gh_service->slots_in_use--;
        } else {
            slot->state = SLOT_DONE;
            slot->result = static_cast<int32>(gh::Status::cuda_error);
        }
    }
    for (int i = 0; i < gh_service->nhistograms; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        if (h->state == HIST_OPEN) {
            /* its counters died with the service: the owner's next read fails */
            h->error = static_cast<int32>(gh::Status::cuda_error);
        } else if (h->state == HIST_CLOSING) {
            h->state = HIST_FREE;
            gh_service->histograms_closing--;
            gh_service->histograms_open--;
            gh_service->device_bytes -= h->device_bytes;
            if (h->device >= 0 && h->device < gh::kMaxDevices)
                gh_service->devices[h->device].histograms--;
        }
    }
    if (failure != NULL)
        strlcpy(gh_service->last_failure, failure, sizeof gh_service->last_failure);
    SpinLockRelease(&gh_service->mutex);
    for (int i = 0; i < gh_service->nslots; i++)
        ConditionVariableBroadcast(&gh_service_slots[i].done);
    ConditionVariableBroadcast(&gh_service->slot_freed);
}

void gpu_service_init(void)
{
    if (!process_shared_preload_libraries_in_progress)
        return;
    DefineCustomIntVariable("gpu_histogram.service_slots",
                            "Batch slots in shared memory through which backends hand values to the GPU service.",
                            "Each holds gpu_histogram.service_slot_size values; the service page-locks them all.",
                            &setting_slots, 32, 2, 4096, PGC_POSTMASTER, 0, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.service_slot_size",
                            "Values per GPU service batch slot: the largest GPU batch.",
                            NULL, &setting_slot_values, 1 << 20, 16384, 64 << 20, PGC_POSTMASTER, 0, NULL,
                            NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.service_histograms",
                            "Device histograms the GPU service holds at once, for all backends together.",
                            NULL, &setting_histograms, 1024, 16, 1 << 20, PGC_POSTMASTER, 0, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.service_device_memory",
                            "Device memory the GPU service's histograms may take, per server.",
                            "Batch buffers on the device (one per slot and device) come on top.",
                            &setting_device_memory_mb, 512, 1, 1024 * 1024, PGC_POSTMASTER, GUC_UNIT_MB, NULL,
                            NULL, NULL);
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = attach_shared_memory;
    register_worker();
}
