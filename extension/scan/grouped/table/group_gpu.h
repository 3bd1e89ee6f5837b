/*
 * group_gpu.h: a grouped scan's histogram binned by the GPU service.
 *
 * The scan finds each row's group on the host (scan/grouped/table/group_agg.cpp);
 * what the GPU takes over is the binning: the values and their groups'
 * numbers go to the service in batches, and one grouped device histogram
 * (group x bucket cells, gpu/specs/grouped_spec.h) counts them.  When the scan
 * emits its groups, it reads the cells back into its groups' rows.  A batch
 * that does not go (the device setting, no room) is binned here, on the
 * CPU, into the rows its values came with: the caller only adds values
 * and, at the end, reads back.
 *
 * Values gather in a buffer of this process first and are copied into a
 * service slot only when a batch is full, so the scan never holds a slot
 * while it reads pages: waiting for one (device = 'gpu') can never wait on
 * itself.  The device histogram holds a fixed number of groups, as many as
 * the memory bound lets the host table have (less if the service's device
 * memory is short); a group numbered beyond it, and in device = 'auto' any
 * batch the service has no room for, is counted on the CPU instead.  Host
 * and device counts add up to the same cells, so where a value was binned
 * never changes the answer.
 *
 * Device = 'auto' only turns to the GPU once a batch is full: a scan that
 * ends before that bins its few values on the CPU.  Everything held in the
 * service is given back when the scan is done, on rescan, and, through a
 * memory context callback, after an ERROR or a cancel.
 */
#ifndef GH_SCAN_GROUP_GPU_H
#define GH_SCAN_GROUP_GPU_H

#include "../../../service/client_values.h"

namespace gpu_histogram {

struct GroupGpu {
    bool active;               /* values of groups below `groups` gather in the buffer */
    uint32 groups;             /* group numbers the device histogram holds */
    gh::HistogramSpec spec;    /* the float8 form's (its interval is the device histogram's) */
    ServiceHistogramRef hist;  /* opened at the first full batch */
    int32 capacity;            /* values a batch holds */
    int32 filled;
    double *values;
    uint32 *numbers;           /* each value's group on the device ... */
    int64 **rows;              /* ... and its group's first cell of this histogram on the host */
    int32 slot;                /* a slot held while reading: released after an ERROR */
    uint64 sent;               /* values handed to the GPU ... */
    uint64 binned;             /* ... and binned on the CPU instead */
    MemoryContextCallback cleanup;
};

/* A histogram that does not use the GPU (nothing held, nothing to give back). */
static inline void group_gpu_none(GroupGpu *gg)
{
    memset(gg, 0, sizeof *gg);
    gg->hist.index = -1;
    gg->slot = -1;
}

/*
 * Whether this histogram (the float8 form) can use the GPU (device
 * setting, service up), and if so prepares it, in cxt, for groups numbered
 * below max_groups.  device = 'gpu' raises the service's ERROR when it has
 * no GPU.
 */
void group_gpu_init(GroupGpu *gg, const gh::HistogramSpec &spec, uint32 max_groups, MemoryContext cxt);

/* Whether the GPU takes the value of group number g: else the caller bins it. */
static inline bool group_gpu_takes(const GroupGpu *gg, uint32 g)
{
    return gg->active && g < gg->groups;
}

/*
 * Counts the buffer (full, or what is left when the scan stops) through the
 * counter (device_policy.h): on the GPU where the setting and the service
 * say so, else here on the CPU.  A full batch that found no device histogram without waiting
 * keeps the rest of the scan on the CPU.
 */
void group_gpu_count(GroupGpu *gg);

/*
 * Adds one value of group number g, whose cells of this histogram start at
 * row (group_gpu_takes() said yes); a full buffer is counted at once.
 */
static inline void group_gpu_add(GroupGpu *gg, double x, uint32 g, int64 *row)
{
    gg->values[gg->filled] = x;
    gg->numbers[gg->filled] = g;
    gg->rows[gg->filled] = row;
    if (++gg->filled == gg->capacity)
        group_gpu_count(gg);
}

/* How many of ngroups groups have cells on the device (0 when nothing went there). */
static inline uint32 group_gpu_groups_held(const GroupGpu *gg, uint32 ngroups)
{
    return gg->hist.index >= 0 ? Min(ngroups, gg->groups) : 0;
}

/*
 * The device cells of groups first .. first + n - 1 (of those held), nbins
 * + 2 each, into cells[0 .. n * (nbins + 2)), zeroed in the service.
 */
void group_gpu_read(GroupGpu *gg, uint32 first, uint32 n, int64 *cells);

/* Gives the device histogram and any slot back; the histogram may be used again (it reopens). */
void group_gpu_close(GroupGpu *gg);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_GPU_H */
