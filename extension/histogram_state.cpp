/*
 * histogram_state.cpp: growing, flushing and combining the per-group state
 * of gpu_histogram(), for every kind of histogram.  Its wire form, between
 * parallel workers and the leader, is histogram_wire.cpp's.
 */
#include "histogram_state.h"

#include "errors.h"
#include "../gpu/cpu/cpu_backend.h"

namespace gpu_histogram {

int64 gh_values_binned_on_cpu = 0;

namespace {

/* First chunk: small, since GROUP BY may keep 100,000 groups alive at once. */
constexpr int32 kFirstChunk = 16;
/* Largest CPU chunk: 64 kB, binned while it is still in the L2 cache. */
constexpr int32 kCpuChunk = 8192;

/* The interned copy of the thresholds most recently seen through one FmgrInfo. */
struct InternedThresholds {
    int32 count;
    double *values;
};

} // namespace

int64 *histogram_state_counts(HistogramState *st)
{
    if (st->counts == NULL) {
        Size bytes = sizeof(int64) * static_cast<Size>(histogram_state_slots(st));
        st->counts = static_cast<int64 *>(MemoryContextAllocZero(st->mcxt, bytes));
    }
    return st->counts;
}

void histogram_state_bin_on_cpu(HistogramState *st)
{
    if (st->chunk_len == 0)
        return;
    gh::Status s = gh::cpu_bin_words(st->spec, st->chunk, st->chunk_len, histogram_state_counts(st));
    gh_values_binned_on_cpu += st->chunk_len;
    st->nvalues += st->chunk_len;
    st->chunk_len = 0;
    report_engine_status(s);
}

/*
 * A state that only combines: the Finalize Aggregate's, one per group, and
 * a worker's state read from the wire.  The struct and its counts are one
 * allocation and there is no chunk, since nothing is ever appended to a
 * combined state (PostgreSQL never runs transitions on it).  Over the
 * hourly heatmap's 27,778 groups this took the Finalize Aggregate's memory
 * from 1.65 kB a group (struct, chunk and counts, each rounded up by the
 * allocator) to 1.2 kB (45.8 MB to 33.5 MB), and it decides how much it spills.
 */
HistogramState *histogram_state_combined(MemoryContext mcxt, const gh::HistogramSpec &spec, const int64 *counts,
                                         int64 nvalues)
{
    const Size slots = static_cast<Size>(gh::histogram_slots(spec));
    const Size head = MAXALIGN(sizeof(HistogramState));
    char *block = static_cast<char *>(MemoryContextAlloc(mcxt, head + sizeof(int64) * slots));
    HistogramState *st = reinterpret_cast<HistogramState *>(block);
    memset(st, 0, sizeof *st);
    st->spec = spec;
    st->mcxt = mcxt;
    st->counts = reinterpret_cast<int64 *>(block + head);
    if (counts != NULL)
        memcpy(st->counts, counts, sizeof(int64) * slots);
    st->nvalues = nvalues;
    gpu_lease_init(&st->gpu);
    return st;
}

HistogramState *histogram_state_create(MemoryContext mcxt, const gh::HistogramSpec &spec)
{
    HistogramState *st =
        static_cast<HistogramState *>(MemoryContextAllocZero(mcxt, sizeof(HistogramState)));
    st->spec = spec;
    st->mcxt = mcxt;
    st->cpu_chunk_cap = kFirstChunk;
    st->cpu_chunk = static_cast<double *>(MemoryContextAlloc(mcxt, sizeof(double) * kFirstChunk));
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    gpu_lease_init(&st->gpu);
    return st;
}

namespace {

/*
 * The states of this process that are filling a slot.  Before anything that
 * may wait for the GPU service, they hand their slots over, so that no
 * process ever waits for a slot while it holds one.
 */
HistogramState *states_on_slots = NULL;

void link_on_slot(HistogramState *st)
{
    st->on_slot = true;
    st->slot_prev = NULL;
    st->slot_next = states_on_slots;
    if (states_on_slots != NULL)
        states_on_slots->slot_prev = st;
    states_on_slots = st;
}

void unlink_from_slot(HistogramState *st)
{
    if (st->slot_prev != NULL)
        st->slot_prev->slot_next = st->slot_next;
    else
        states_on_slots = st->slot_next;
    if (st->slot_next != NULL)
        st->slot_next->slot_prev = st->slot_prev;
    st->slot_prev = st->slot_next = NULL;
    st->on_slot = false;
}

/* Points the group's appends back at its CPU chunk, counting what left. */
void leave_slot(HistogramState *st)
{
    st->nvalues += st->chunk_len;
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    st->chunk_len = 0;
    unlink_from_slot(st);
}

void give_back_other_slots(HistogramState *except);

/* Hands the slot's values to the GPU service; a transient histogram is read back at once. */
void submit_slot(HistogramState *st)
{
    int32 n = st->chunk_len;
    leave_slot(st);
    if (st->gpu.transient)
        give_back_other_slots(st);
    gpu_lease_submit(&st->gpu, n, histogram_state_counts(st), histogram_state_slots(st));
}

void give_back_other_slots(HistogramState *except)
{
    HistogramState *other = states_on_slots;
    while (other != NULL) {
        /* submitting may read a transient histogram, which gives back slots too: start over each time */
        if (other != except) {
            submit_slot(other);
            other = states_on_slots;
        } else {
            other = other->slot_next;
        }
    }
}

/* The aggregate context is going away: the lease goes back to the service. */
void release_lease(void *arg)
{
    HistogramState *st = static_cast<HistogramState *>(arg);
    if (st->on_slot)
        unlink_from_slot(st);
    gpu_lease_release(&st->gpu);
}

/*
 * The counter's send for a group's full CPU chunk: moves the group's
 * appends into a slot of the GPU service, carrying the chunk over.
 */
bool move_to_slot(void *arg, DeviceChoice choice)
{
    HistogramState *st = static_cast<HistogramState *>(arg);
    if (st->cleanup == NULL) {
        /* registered once per state, before it can hold anything in the service */
        st->cleanup = static_cast<MemoryContextCallback *>(
            MemoryContextAllocZero(st->mcxt, sizeof(MemoryContextCallback)));
        st->cleanup->func = release_lease;
        st->cleanup->arg = st;
        MemoryContextRegisterResetCallback(st->mcxt, st->cleanup);
    }
    double *values = NULL;
    int32 capacity = 0;
    SlotAnswer answer = gpu_lease_next_slot(&st->gpu, st->spec, choice, false, &values, &capacity);
    if (answer == SLOT_WAIT_FIRST) {
        give_back_other_slots(st);
        answer = gpu_lease_next_slot(&st->gpu, st->spec, choice, true, &values, &capacity);
    }
    if (answer != SLOT_GRANTED)
        return false;
    memcpy(values, st->cpu_chunk, sizeof(double) * st->chunk_len);
    st->chunk = values;
    st->chunk_cap = capacity;
    link_on_slot(st);
    return true;
}

void bin_here(void *arg, DeviceChoice)
{
    histogram_state_bin_on_cpu(static_cast<HistogramState *>(arg));
}

/* The group's CPU chunk (perhaps empty) to the counter: into a slot, or binned here. */
void count_chunk(HistogramState *st)
{
    device_count(DeviceBatch{gpu_lease_work(&st->gpu, histogram_state_total(st)), st, move_to_slot, bin_here});
}

} // namespace

void histogram_state_chunk_full(HistogramState *st)
{
    if (st->on_slot) {
        submit_slot(st);
        /* the next values go straight into a fresh slot if there is one */
        count_chunk(st);
        return;
    }
    if (st->chunk_cap < kCpuChunk) {
        st->cpu_chunk_cap *= 2;
        st->cpu_chunk = static_cast<double *>(repalloc(st->cpu_chunk, sizeof(double) * st->cpu_chunk_cap));
        st->chunk = st->cpu_chunk;
        st->chunk_cap = st->cpu_chunk_cap;
        return;
    }
    count_chunk(st);
}

void histogram_state_flush(HistogramState *st)
{
    if (!st->on_slot && st->chunk_len > 0)
        count_chunk(st);
    if (st->on_slot)
        submit_slot(st);
    if (st->gpu.hist.index >= 0) {
        give_back_other_slots(st);
        gpu_lease_read(&st->gpu, histogram_state_counts(st), histogram_state_slots(st));
    }
    histogram_state_counts(st);
}

bool histogram_spec_equal(const gh::HistogramSpec &a, const gh::HistogramSpec &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case gh::SpecKind::float_interval:
        return a.interval.lo == b.interval.lo && a.interval.hi == b.interval.hi &&
               a.interval.nbins == b.interval.nbins && a.interval.rule == b.interval.rule;
    case gh::SpecKind::int64_interval:
        return a.int64.lo == b.int64.lo && a.int64.hi == b.int64.hi && a.int64.nbins == b.int64.nbins &&
               a.int64.rule == b.int64.rule;
    case gh::SpecKind::thresholds:
        return a.thresholds.count == b.thresholds.count &&
               (a.thresholds.thresholds == b.thresholds.thresholds ||
                memcmp(a.thresholds.thresholds, b.thresholds.thresholds,
                       sizeof(double) * static_cast<Size>(a.thresholds.count)) == 0);
    }
    return false;
}

const double *intern_thresholds(FmgrInfo *flinfo, const double *thresholds, int32 count)
{
    InternedThresholds *cached = static_cast<InternedThresholds *>(flinfo->fn_extra);
    Size bytes = sizeof(double) * static_cast<Size>(count);
    if (cached != NULL && cached->count == count && memcmp(cached->values, thresholds, bytes) == 0)
        return cached->values;
    if (cached == NULL) {
        cached = static_cast<InternedThresholds *>(MemoryContextAllocZero(flinfo->fn_mcxt, sizeof *cached));
        flinfo->fn_extra = cached;
    }
    /* the previous copy stays: states of earlier groups may point at it */
    cached->values = static_cast<double *>(MemoryContextAlloc(flinfo->fn_mcxt, bytes > 0 ? bytes : 1));
    memcpy(cached->values, thresholds, bytes);
    cached->count = count;
    return cached->values;
}

/* The spec for an error's detail. */
static char *describe_spec(const gh::HistogramSpec &spec)
{
    switch (spec.kind) {
    case gh::SpecKind::float_interval:
        return psprintf("(%g, %g, %d)", spec.interval.lo, spec.interval.hi, spec.interval.nbins);
    case gh::SpecKind::int64_interval:
        return psprintf("(" INT64_FORMAT ", " INT64_FORMAT ", %d)", spec.int64.lo, spec.int64.hi, spec.int64.nbins);
    case gh::SpecKind::thresholds:
        return psprintf(spec.thresholds.count == 1 ? "%d threshold" : "%d thresholds", spec.thresholds.count);
    }
    return pstrdup("?");
}

void histogram_state_combine(HistogramState *dst, HistogramState *src)
{
    if (!histogram_spec_equal(dst->spec, src->spec))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("cannot combine gpu_histogram states with different bounds or bucket counts"),
                 errdetail("One has %s, the other %s.", describe_spec(dst->spec), describe_spec(src->spec))));
    histogram_state_flush(dst);
    histogram_state_flush(src);
    int32 n = histogram_state_slots(dst);
    for (int32 i = 0; i < n; i++)
        dst->counts[i] += src->counts[i];
    dst->nvalues += src->nvalues;
}

HistogramState *histogram_state_copy(MemoryContext mcxt, HistogramState *src)
{
    histogram_state_flush(src);
    HistogramState *st = histogram_state_combined(mcxt, src->spec, src->counts, src->nvalues);
    st->spec_is_constant = src->spec_is_constant;
    return st;
}

} // namespace gpu_histogram
