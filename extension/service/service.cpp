/*
 * service.cpp: the service's settings, its shared memory and the background
 * worker's registration, all done in the postmaster while the library is
 * preloaded, and the few operations on the shared tables that every kind of
 * process uses (the lock, waking, failing everything).  Nothing here touches
 * CUDA: the CUDA process the worker forks does, once it runs.
 */
#include "service.h"
#include "service_shared.h"

extern "C" {
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/s_lock.h"
#include "storage/shmem.h"
}

#include <signal.h>

namespace gpu_histogram {

ServiceShared *gh_service = NULL;
ServiceSlot *gh_service_slots = NULL;
ServiceHistogram *gh_service_histograms = NULL;
double *gh_service_batches = NULL;

namespace {

int setting_slots = 32;
int setting_slot_values = 1 << 20;
int setting_page_slots = 128;
int setting_histograms = 1024;
int setting_device_memory_mb = 512;
bool setting_map_buffers = true;
int setting_page_cache_mb = 4096;

shmem_request_hook_type prev_shmem_request_hook = NULL;
shmem_startup_hook_type prev_shmem_startup_hook = NULL;

constexpr Size kPage = 4096;

Size tables_bytes()
{
    Size size = MAXALIGN(sizeof(ServiceShared));
    size = add_size(size, mul_size(sizeof(ServiceSlot), add_size(setting_slots, setting_page_slots)));
    size = add_size(size, mul_size(sizeof(ServiceHistogram), setting_histograms));
    return size;
}

Size batch_bytes_for_settings()
{
    Size values = mul_size(mul_size(setting_slots, setting_slot_values), sizeof(double));
    Size pages = mul_size(mul_size(setting_page_slots, kPageSlotWords), sizeof(double));
    return add_size(add_size(values, pages), kPage);
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
    gh_service_histograms = reinterpret_cast<ServiceHistogram *>(gh_service_slots + setting_slots + setting_page_slots);
    gh_service_batches = reinterpret_cast<double *>(TYPEALIGN(kPage, batches));
    if (!found) {
        /* the batch memory itself is left untouched: pages are mapped when used */
        memset(base, 0, tables_bytes());
        pg_atomic_init_u32(&gh_service->lock, 0);
        pg_atomic_init_u32(&gh_service->broadcast_wanted, 0);
        pg_atomic_init_u32(&gh_service->doorbell, 0);
        pg_atomic_init_u32(&gh_service->sleeping, 0);
        ConditionVariableInit(&gh_service->slot_freed);
        gh_service->nslots = setting_slots;
        gh_service->slot_values = setting_slot_values;
        gh_service->npage_slots = setting_page_slots;
        gh_service->nhistograms = setting_histograms;
        gh_service->device_memory_limit = static_cast<int64>(setting_device_memory_mb) * 1024 * 1024;
        gh_service->map_buffers = setting_map_buffers;
        gh_service->page_cache_bytes = static_cast<int64>(setting_page_cache_mb) * 1024 * 1024;
        gh_service->state = SERVICE_DOWN;
        gh_service->next_serial = 1;
        gh_service->next_seq = 1;
        snprintf(gh_service->message, sizeof gh_service->message, "the GPU service has not started yet");
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
     * The supervisor never touches CUDA, so it only exits when told to (an
     * administrator's SIGTERM: the postmaster starts it again at once).  The
     * CUDA process it forks is restarted by the supervisor itself.
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
    Size values = static_cast<Size>(gh_service->nslots) * static_cast<Size>(gh_service->slot_values);
    return (values + static_cast<Size>(gh_service->npage_slots) * kPageSlotWords) * sizeof(double);
}

void service_lock(void)
{
    uint32 mine = static_cast<uint32>(MyProcPid);
    SpinDelayStatus delay;
    init_local_spin_delay(&delay);
    for (;;) {
        uint32 expected = 0;
        if (pg_atomic_read_u32(&gh_service->lock) == 0 &&
            pg_atomic_compare_exchange_u32(&gh_service->lock, &expected, mine))
            break;
        perform_spin_delay(&delay);
    }
    finish_spin_delay(&delay);
}

void service_unlock(void)
{
    /* a full barrier: what was written under the lock is seen before it is free */
    (void)pg_atomic_exchange_u32(&gh_service->lock, 0);
}

void service_wake(void)
{
    pg_atomic_write_u32(&gh_service->doorbell, 1);
    pg_memory_barrier();
    /* pairs with the CUDA process's barrier between announcing its sleep and reading the doorbell */
    if (pg_atomic_read_u32(&gh_service->sleeping) != 0) {
        pid_t pid = *static_cast<volatile pid_t *>(&gh_service->pid);
        if (pid > 0)
            (void)kill(pid, SIGURG);
    }
}

void service_wake_owner(const ServiceSlot *slot)
{
    int procno = slot->owner_procno;
    if (procno >= 0 && static_cast<uint32>(procno) < ProcGlobal->allProcCount)
        SetLatch(&GetPGProcByNumber(procno)->procLatch);
}

void service_fail_all_locked(const char *failure)
{
    int32 slots_in_use = 0;
    for (int i = 0; i < service_all_slots(); i++) {
        ServiceSlot *slot = &gh_service_slots[i];
        if (slot->state == SLOT_QUEUED || slot->state == SLOT_RUNNING) {
            if (slot->abandoned || !request_answers_owner(slot->request)) {
                slot->state = SLOT_FREE;
                slot->abandoned = false;
            } else {
                slot->state = SLOT_DONE;
                slot->result = static_cast<int32>(gh::Status::cuda_error);
            }
        }
        if (slot->state != SLOT_FREE)
            slots_in_use++;
    }
    int32 open = 0;
    int64 bytes = 0;
    for (int d = 0; d < gh::kMaxDevices; d++)
        gh_service->devices[d].histograms = 0;
    for (int i = 0; i < gh_service->nhistograms; i++) {
        ServiceHistogram *h = &gh_service_histograms[i];
        if (h->state == HIST_OPEN) {
            /* its counters died with the CUDA process: the owner's next read fails */
            h->error = static_cast<int32>(gh::Status::cuda_error);
        } else if (h->state == HIST_CLOSING) {
            h->state = HIST_FREE;
        }
        if (h->state == HIST_FREE)
            continue;
        open++;
        bytes += h->device_bytes;
        if (h->device >= 0 && h->device < gh::kMaxDevices)
            gh_service->devices[h->device].histograms++;
    }
    gh_service->slots_in_use = slots_in_use;
    gh_service->histograms_open = open;
    gh_service->histograms_closing = 0;
    gh_service->device_bytes = bytes;
    if (failure != NULL)
        strlcpy(gh_service->last_failure, failure, sizeof gh_service->last_failure);
}

void service_wake_clients(void)
{
    for (int i = 0; i < service_all_slots(); i++) {
        const ServiceSlot *slot = &gh_service_slots[i];
        if (slot->state == SLOT_DONE) /* a racy read is fine: a spurious wake-up costs nothing */
            service_wake_owner(slot);
    }
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
    DefineCustomIntVariable("gpu_histogram.service_page_slots",
                            "Slots in shared memory through which scans hand batches of pinned pages to the "
                            "GPU service.",
                            MemoryContextStrdup(TopMemoryContext,
                                                psprintf("Each names up to %d pages (%d kB with their cache keys); a "
                                                         "batch holds its slot until its scan collects it, so under "
                                                         "many sessions these bound the pages queued on the GPUs.",
                                                         kPageSlotPages,
                                                         static_cast<int>(kPageSlotWords * sizeof(uint64) / 1024))),
                            &setting_page_slots, 128, 2, 4096, PGC_POSTMASTER, 0, NULL, NULL, NULL);
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
    DefineCustomBoolVariable("gpu_histogram.service_map_buffers",
                             "Whether the GPU service maps the shared buffer pool for the GPUs.",
                             "Then the custom scan hands pinned all-visible pages to the GPU, which reads "
                             "them from host memory and extracts the values itself.",
                             &setting_map_buffers, true, PGC_POSTMASTER, 0, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.gpu_page_cache",
                            "Device memory each GPU keeps heap pages in between scans.",
                            "Scans that read the same all-visible pages again find them there, keyed by the "
                            "page's LSN, instead of reading them over PCIe; 0 turns the cache off.",
                            &setting_page_cache_mb, 4096, 0, 1024 * 1024, PGC_POSTMASTER, GUC_UNIT_MB, NULL, NULL,
                            NULL);
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = attach_shared_memory;
    register_worker();
}

} // namespace gpu_histogram
