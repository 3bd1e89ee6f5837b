/*
 * group_gpu.cpp: a grouped scan's histogram on the GPU service (group_gpu.h).
 */
#include "group_gpu.h"

#include "../../../errors.h"
#include "../../../../gpu/cpu/cpu_backend.h"
#include "../../../device_policy.h"
#include "../../../gpu_binning.h"

namespace gpu_histogram {

namespace {

void release(void *arg)
{
    group_gpu_close(static_cast<GroupGpu *>(arg));
}

/*
 * The device histogram, opened at the first batch that goes: at once if
 * the service has room; under gpu_wait, waiting for room unless this
 * process already holds others (which it could be waiting for).
 */
bool open_histogram(GroupGpu *gg, DeviceChoice choice)
{
    if (gg->hist.index >= 0)
        return true;
    gh::GroupedSpec spec{gg->spec.interval, gg->groups};
    if (gpu_service_open_grouped(spec, SERVICE_NO_WAIT, &gg->hist))
        return true;
    return choice == DeviceChoice::gpu_wait && gh_histograms_open == 0 &&
           gpu_service_open_grouped(spec, SERVICE_WAIT, &gg->hist);
}

/* The counter's send: the buffer to the service; false: it has no room. */
bool send(void *arg, DeviceChoice choice)
{
    GroupGpu *gg = static_cast<GroupGpu *>(arg);
    if (!open_histogram(gg, choice))
        return false;
    if (!gpu_service_send_grouped(&gg->hist, gg->values, gg->numbers, gg->filled,
                                  choice == DeviceChoice::gpu_wait ? SERVICE_WAIT : SERVICE_NO_WAIT))
        return false;
    gg->sent += static_cast<uint64>(gg->filled);
    gg->filled = 0;
    return true;
}

/*
 * The counter's CPU count: the engine's one grouped loop, into the rows the
 * values came with.  A full batch that found no device histogram without
 * waiting keeps the rest of the scan here.
 */
void count_here(void *arg, DeviceChoice choice)
{
    GroupGpu *gg = static_cast<GroupGpu *>(arg);
    if (gg->filled == gg->capacity && gg->hist.index < 0 && choice != DeviceChoice::gpu_wait)
        gg->active = false;
    report_engine_status(gh::cpu_bin_rows_words(gg->spec, gg->values, gg->rows, static_cast<size_t>(gg->filled)));
    gg->binned += static_cast<uint64>(gg->filled);
    gg->filled = 0;
}

} // namespace

void group_gpu_init(GroupGpu *gg, const gh::HistogramSpec &spec, uint32 max_groups, MemoryContext cxt)
{
    group_gpu_none(gg);
    gg->spec = spec;
    if (!device_gpu_possible())
        return;
    gg->capacity = Min(gpu_binning_batch_size(), gpu_service_limits().grouped_values);
    int64 slots = static_cast<int64>(spec.interval.nbins) + 2;
    /* a sixteenth of the service's device memory at most: the other histograms of the server need room too */
    int64 groups = Min(static_cast<int64>(max_groups), gh::kMaxGroupedCells / slots);
    groups = Min(groups, gpu_service_limits().device_memory / 16 / (slots * static_cast<int64>(sizeof(int64))));
    if (gg->capacity <= 0 || groups <= 0)
        return;
    gg->groups = static_cast<uint32>(groups);
    gg->values = static_cast<double *>(MemoryContextAlloc(cxt, sizeof(double) * static_cast<Size>(gg->capacity)));
    gg->numbers = static_cast<uint32 *>(MemoryContextAlloc(cxt, sizeof(uint32) * static_cast<Size>(gg->capacity)));
    gg->rows = static_cast<int64 **>(MemoryContextAlloc(cxt, sizeof(int64 *) * static_cast<Size>(gg->capacity)));
    gg->cleanup.func = release;
    gg->cleanup.arg = gg;
    MemoryContextRegisterResetCallback(cxt, &gg->cleanup);
    gg->active = true;
}

void group_gpu_count(GroupGpu *gg)
{
    device_count(
        DeviceBatch{DeviceWork{gg->filled, gg->filled == gg->capacity, gg->hist.index >= 0, false}, gg, send, count_here});
}

void group_gpu_read(GroupGpu *gg, uint32 first, uint32 n, int64 *cells)
{
    const int64 slots = static_cast<int64>(gg->spec.interval.nbins) + 2;
    memset(cells, 0, sizeof(int64) * static_cast<Size>(n * slots));
    gpu_service_read_range(&gg->hist, static_cast<int32>(first * slots), static_cast<int32>(n * slots), cells,
                           &gg->slot);
}

void group_gpu_close(GroupGpu *gg)
{
    if (gg->slot >= 0) {
        gpu_service_release_slot(gg->slot);
        gg->slot = -1;
    }
    if (gg->hist.index >= 0)
        gpu_service_close(&gg->hist);
    gg->filled = 0;
}

} // namespace gpu_histogram
