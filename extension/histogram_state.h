/*
 * histogram_state.h: the transition state of gpu_histogram().
 *
 * One state per group.  The per-row work is an append to `chunk`; a full
 * chunk goes to the engine.  On the CPU path `chunk` is a palloc'd buffer that
 * starts small and doubles, so GROUP BY with many small groups costs a few
 * hundred bytes per group, and `counts` is allocated only at the first flush.
 * Once a group takes the GPU path, `chunk` points straight into a batch slot
 * of the GPU service's shared memory (which the service DMAs to the device
 * as it is) and the group's counters live in the service until a flush
 * reads them back.  Everything palloc'd lives in the aggregate's memory
 * context; the group's lease in the service is given back by a reset
 * callback on that context, so an ERROR or a cancel leaks nothing.
 */
#ifndef GH_HISTOGRAM_STATE_H
#define GH_HISTOGRAM_STATE_H

#include "pg_headers.h"

#include "gpu_binning.h"
#include "../gpu/specs/histogram_spec.h"

namespace gpu_histogram {

/*
 * spec is the group's first row's: lo, hi and nbins of a float8 or a time
 * histogram, or the thresholds, which live in a query-long copy shared by
 * every group that has the same (intern_thresholds()).  The chunk holds
 * 8-byte words: float8 values, or int64 ones (microseconds, day numbers)
 * for a time histogram, copied in byte for byte.
 */
struct HistogramState {
    gh::HistogramSpec spec;
    bool spec_is_constant; /* thresholds from a Const or Param: later rows are not compared */
    int64 nvalues;        /* values accepted and no longer in chunk (binned or submitted) */
    int64 *counts;        /* histogram_slots(spec) host counters; NULL until the first flush */
    double *chunk;        /* where the next value goes: cpu_chunk or the GPU service slot */
    int32 chunk_len;
    int32 chunk_cap;
    double *cpu_chunk;    /* palloc'd, kept while the group appends to a slot */
    int32 cpu_chunk_cap;
    bool on_slot;         /* chunk is the lease's slot in the GPU service */
    HistogramState *slot_prev, *slot_next; /* this process's list of states on slots, while on_slot */
    GpuLease gpu;         /* the group's device histogram and slot in the GPU service */
    MemoryContextCallback *cleanup; /* gives the lease back with mcxt */
    MemoryContext mcxt;   /* the aggregate context that owns all of the above */
};

/* Allocates an empty state in mcxt for an already validated spec. */
HistogramState *histogram_state_create(MemoryContext mcxt, const gh::HistogramSpec &spec);

/* The number of counters of the group's histogram. */
static inline int32 histogram_state_slots(const HistogramState *st)
{
    return gh::histogram_slots(st->spec);
}

/* Makes room when the chunk is full: grows it, or bins it and empties it. */
void histogram_state_chunk_full(HistogramState *st);

/* The transition function's per-row work. */
static inline void histogram_state_append(HistogramState *st, double value)
{
    st->chunk[st->chunk_len++] = value;
    if (unlikely(st->chunk_len == st->chunk_cap))
        histogram_state_chunk_full(st);
}

/* The per-row work of a time histogram: the int64's bytes go into the 8-byte word. */
static inline void histogram_state_append_int64(HistogramState *st, int64 value)
{
    memcpy(&st->chunk[st->chunk_len++], &value, sizeof value);
    if (unlikely(st->chunk_len == st->chunk_cap))
        histogram_state_chunk_full(st);
}

/* Appends n values at once: the custom scan's per-page work. */
static inline void histogram_state_append_many(HistogramState *st, const double *values, int32 n)
{
    while (n > 0) {
        int32 room = st->chunk_cap - st->chunk_len;
        int32 k = n < room ? n : room;
        memcpy(st->chunk + st->chunk_len, values, sizeof(double) * k);
        st->chunk_len += k;
        values += k;
        n -= k;
        if (st->chunk_len == st->chunk_cap)
            histogram_state_chunk_full(st);
    }
}

/* Every value the group has accepted. */
static inline int64 histogram_state_total(const HistogramState *st)
{
    return st->nvalues + st->chunk_len;
}

/* Bins every pending value, so that counts holds the whole group. */
void histogram_state_flush(HistogramState *st);

/* Bins the CPU chunk on the CPU and empties it. */
void histogram_state_bin_on_cpu(HistogramState *st);

/* counts, allocated (zeroed) if it was not yet. */
int64 *histogram_state_counts(HistogramState *st);

/* Adds src's values into dst; raises an error if their specs differ. */
void histogram_state_combine(HistogramState *dst, HistogramState *src);

/*
 * A state that only combines (the Finalize Aggregate's, or one read from
 * the wire): the struct and its counts (copied from counts, or zeroed if
 * NULL) in one allocation, and no chunk.
 */
HistogramState *histogram_state_combined(MemoryContext mcxt, const gh::HistogramSpec &spec, const int64 *counts,
                                         int64 nvalues);

/* A copy of src in mcxt, flushed, for combining into: it takes no more values. */
HistogramState *histogram_state_copy(MemoryContext mcxt, HistogramState *src);

/* Whether two specs are the same histogram (thresholds compared element by element). */
bool histogram_spec_equal(const gh::HistogramSpec &a, const gh::HistogramSpec &b);

/*
 * A copy of thresholds[0 .. count) that lives as long as flinfo (the
 * query), the same copy for every call with the same values, so that the
 * groups of a GROUP BY share one.
 */
const double *intern_thresholds(FmgrInfo *flinfo, const double *thresholds, int32 count);

/* The wire format between parallel workers and the leader (histogram_wire.cpp); flinfo interns thresholds. */
bytea *histogram_state_serialize(HistogramState *st);
HistogramState *histogram_state_deserialize(MemoryContext mcxt, const bytea *wire, FmgrInfo *flinfo);

/* The wire form of a state with these counts (histogram_slots(spec) of them), made without a state. */
bytea *histogram_wire(const gh::HistogramSpec &spec, const int64 *counts, int64 nvalues);

/* A bigint[] with subscripts 1 .. n holding counts[0 .. n-1]. */
ArrayType *int64_array(const int64 *counts, int32 n);

/* Values binned on the CPU by this backend (gpu_histogram_stats()). */
extern int64 gh_values_binned_on_cpu;

} // namespace gpu_histogram

#endif /* GH_HISTOGRAM_STATE_H */
