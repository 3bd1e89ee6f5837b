/*
 * gpu_binning.cpp: moves groups onto the GPU and back.
 *
 * Memory stays bounded however many groups there are: a group holds GPU
 * resources (a device histogram and one pinned fill buffer) only under a
 * lease, and this backend grants at most one lease fewer than its pinned
 * pool holds buffers, so a buffer is always free or in flight for the next
 * submit.  In device = 'gpu', a group without a lease bins each chunk on the
 * GPU in one synchronous round trip through a short-lived device histogram.
 */
#include "gpu_binning.h"

#include "errors.h"
#include "settings.h"

int gh_active_leases = 0;

namespace {

/* auto mode: CUDA failed to start in this backend; stay on the CPU from now on */
bool cuda_unusable = false;
gh::Status cuda_start_status = gh::Status::ok;

bool interrupt_pending()
{
    return InterruptPending;
}

size_t batch_capacity()
{
    return static_cast<size_t>(gh_batch_size);
}

size_t pool_limit_bytes()
{
    size_t limit = static_cast<size_t>(gh_pinned_pool_mb) * 1024 * 1024;
    size_t two_batches = 2 * batch_capacity() * sizeof(double);
    return limit < two_batches ? two_batches : limit;
}

int max_leases()
{
    return static_cast<int>(pool_limit_bytes() / (batch_capacity() * sizeof(double))) - 1;
}

gh::Status start_cuda()
{
    if (gh::gpu_started())
        return gh::Status::ok;
    if (cuda_unusable)
        return cuda_start_status;
    gh::Status s = gh::gpu_start();
    if (s != gh::Status::ok) {
        cuda_unusable = true;
        cuda_start_status = s;
        return s;
    }
    /* a parallel worker's message reaches the client through the leader */
    ereport(DEBUG1, (errmsg("gpu_histogram: CUDA started in this backend (pid %d) in %.1f ms", MyProcPid,
                            gh::gpu_counters().startup_ms)));
    return s;
}

pg_noinline void report_no_gpu(gh::Status s)
{
    if (s == gh::Status::not_built)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("gpu_histogram.device is \"gpu\" but no GPU backend is available"),
                        errdetail("This build of gpu_histogram has no CUDA backend."),
                        errhint("Set gpu_histogram.device to 'auto' or 'cpu'.")));
    ereport(ERROR, (errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
                    errmsg("gpu_histogram.device is \"gpu\" but no GPU is usable"),
                    errdetail("%s: %s", gh::status_text(s), gh::gpu_last_error()),
                    errhint("Set gpu_histogram.device to 'auto' or 'cpu'.")));
}

/* Releases the group's GPU resources: the aggregate context is going away. */
void release_gpu_resources(void *arg)
{
    HistogramState *st = static_cast<HistogramState *>(arg);
    if (st->pinned != NULL) {
        gh::gpu_batch_release(st->pinned);
        st->pinned = NULL;
    }
    if (st->device != NULL) {
        gh::gpu_histogram_close(st->device);
        st->device = NULL;
        gh_active_leases--;
    }
}

/*
 * Opens the group's device histogram and makes sure the reset callback will
 * close it, so that no ERROR or cancel from here on can leak it.
 */
gh::Status open_device(HistogramState *st)
{
    if (st->cleanup == NULL) {
        /* registered once per state, before anything it must release exists */
        st->cleanup = static_cast<MemoryContextCallback *>(
            MemoryContextAllocZero(st->mcxt, sizeof(MemoryContextCallback)));
        st->cleanup->func = release_gpu_resources;
        st->cleanup->arg = st;
        MemoryContextRegisterResetCallback(st->mcxt, st->cleanup);
    }
    gh::DeviceHistogram *h = NULL;
    gh::Status s = gh::gpu_histogram_open(st->spec, &h);
    if (s != gh::Status::ok)
        return s;
    st->device = h;
    gh_active_leases++;
    return gh::Status::ok;
}

void close_device(HistogramState *st)
{
    gh::gpu_histogram_close(st->device);
    st->device = NULL;
    gh_active_leases--;
    /* the registered callback finds nothing left to do */
}

/* A pinned buffer, waiting (interruptibly) for one in flight if need be. */
gh::Status acquire_batch(gh::PinnedBatch **out)
{
    for (;;) {
        gh::Status s = gh::gpu_batch_acquire(batch_capacity(), pool_limit_bytes(), interrupt_pending, out);
        if (s != gh::Status::interrupted)
            return s;
        CHECK_FOR_INTERRUPTS();
    }
}

void drain_into_counts(HistogramState *st)
{
    for (;;) {
        gh::Status s = gh::gpu_histogram_drain(st->device, histogram_state_counts(st), interrupt_pending);
        if (s != gh::Status::interrupted) {
            report_engine_status(s);
            return;
        }
        CHECK_FOR_INTERRUPTS();
    }
}

/* Points the group's appends back at its palloc'd chunk, counting what left. */
void use_cpu_chunk(HistogramState *st)
{
    st->nvalues += st->chunk_len;
    st->pinned = NULL;
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    st->chunk_len = 0;
}

/* Submits `n` values of the group's pinned buffer; the engine owns it after. */
void submit_pinned(HistogramState *st, int32 n)
{
    gh::PinnedBatch *batch = st->pinned;
    use_cpu_chunk(st);
    if (n == 0) {
        gh::gpu_batch_release(batch);
        return;
    }
    report_engine_status(gh::gpu_histogram_submit(st->device, batch, static_cast<size_t>(n)));
}

/* Starts appending into a fresh pinned buffer, carrying over the CPU chunk. */
bool continue_in_pinned_memory(HistogramState *st)
{
    gh::PinnedBatch *batch = NULL;
    gh::Status s = acquire_batch(&batch);
    if (s == gh::Status::out_of_memory)
        return false;
    report_engine_status(s);
    int32 carried = st->chunk_len;
    memcpy(batch->values, st->cpu_chunk, sizeof(double) * carried);
    st->pinned = batch;
    st->chunk = batch->values;
    st->chunk_cap = static_cast<int32>(batch->capacity);
    st->chunk_len = carried;
    return true;
}

/* device = 'gpu' without a lease: one synchronous round trip for this chunk. */
void bin_chunk_round_trip(HistogramState *st)
{
    report_engine_status(open_device(st));
    if (!continue_in_pinned_memory(st))
        report_engine_status(gh::Status::out_of_memory);
    submit_pinned(st, st->chunk_len);
    drain_into_counts(st);
    close_device(st);
}

} // namespace

void gpu_binning_require_device(void)
{
    gh::Status s = start_cuda();
    if (s != gh::Status::ok)
        report_no_gpu(s);
}

bool gpu_binning_take_chunk(HistogramState *st)
{
    bool gpu_mode = gh_device_mode == DEVICE_GPU;
    if (gh_device_mode == DEVICE_CPU || (st->gpu_refused && !gpu_mode))
        return false;
    if (!gpu_mode) {
        if (st->device == NULL && histogram_state_total(st) < gh_batch_size)
            return false;
        /*
         * A parallel worker is a fresh process: it would create its own CUDA
         * context, which took 0.9 to 1.2 s on the H100 when 8 workers did so
         * at once (test/gpu/RUNS.md), longer than binning its share on the
         * CPU.  In auto mode workers stay on the CPU; device = 'gpu' forces it.
         */
        if (IsParallelWorker() && !gh::gpu_started())
            return false;
        gh::Status s = start_cuda();
        if (s != gh::Status::ok) {
            ereport(DEBUG1, (errmsg("gpu_histogram: binning on the CPU, the GPU is not usable: %s: %s",
                                    gh::status_text(s), gh::gpu_last_error())));
            st->gpu_refused = true;
            return false;
        }
    } else {
        gpu_binning_require_device();
    }

    if (st->device == NULL && !st->gpu_refused && gh_active_leases < max_leases()) {
        gh::Status s = open_device(st);
        if (s == gh::Status::out_of_memory && !gpu_mode) {
            st->gpu_refused = true;
            return false;
        }
        report_engine_status(s);
    }
    if (st->device != NULL && continue_in_pinned_memory(st))
        return true;
    if (!gpu_mode) {
        st->gpu_refused = st->device == NULL;
        return false;
    }
    if (st->device != NULL) {
        /* no buffer free for a lease holder: bin this chunk through a fresh one */
        report_engine_status(gh::Status::out_of_memory);
    }
    bin_chunk_round_trip(st);
    return true;
}

void gpu_binning_batch_full(HistogramState *st)
{
    submit_pinned(st, st->chunk_len);
    /* If no buffer is free, the group appends to its CPU chunk until one is. */
    continue_in_pinned_memory(st);
}

void gpu_binning_flush(HistogramState *st)
{
    if (st->pinned != NULL)
        submit_pinned(st, st->chunk_len);
    if (st->device != NULL)
        drain_into_counts(st);
}
