/*
 * cuda_start.cpp: the CUDA process's start (cuda_process_inner.h): a
 * context on every GPU, the batch slots page-locked and their device
 * buffers made once, the shared buffer pool mapped, and the page cache.
 * After this only device histograms are allocated while queries run.
 */
#include "cuda_process_inner.h"

extern "C" {
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
}

namespace gpu_histogram {

namespace cuda_proc {

namespace {

int ndevices;

} // namespace

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

namespace {

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

} // namespace

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

} // namespace cuda_proc

} // namespace gpu_histogram
