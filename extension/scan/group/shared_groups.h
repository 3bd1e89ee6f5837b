/*
 * shared_groups.h: the groups of a parallel grouped scan, merged by the
 * last of its processes instead of a Finalize Aggregate in the leader.
 *
 * Under Gather -> Finalize HashAggregate, every process of a parallel scan
 * sends its groups to the leader as serialized partial states, and the
 * leader deserializes, hashes and combines them before it can form a row.
 * Measured on the H100 host over 100M rows with 8 workers, that took the
 * hourly heatmap's 27,778 groups about 20 ms after the last process
 * finished, and the processes waited on the leader's queues while it did.
 *
 * Here each process, when it has read its share of the table, leaves its
 * groups (key bytes and counters) in the query's shared memory area; the
 * last process to finish adds everyone's groups into its own and emits the
 * finished rows itself, so the plan is Gather -> the scan, with no
 * aggregate above it.  Who is last is decided under a spinlock:
 *
 *   - a process attaches before it takes its first block, so a process
 *     that finishes while another holds blocks never thinks itself last;
 *   - a process that comes after the emitting one was chosen (a worker
 *     that started late) finds every block taken and does nothing;
 *   - each process leaves its groups before it counts itself finished.
 *
 * Memory stays within the bound a HashAggregate would have: a process whose
 * groups fill work_mem x hash_mem_multiplier leaves them and starts again,
 * and the emitting process, when the groups left add up to more than the
 * bound, merges and emits them in passes, each a share of the key hashes.
 */
#ifndef GH_SCAN_SHARED_GROUPS_H
#define GH_SCAN_SHARED_GROUPS_H

#include "group_table.h"

extern "C" {
#include "storage/spin.h"
#include "utils/dsa.h"
}

/* In the scan's DSM; every field under mutex. */
struct SharedGroups {
    slock_t mutex;
    int32 attached;     /* processes that started to read */
    int32 finished;     /* ... and left their groups */
    bool chosen;        /* the emitting process was chosen: later comers do nothing */
    dsa_pointer dumps;  /* the groups left, a list */
    uint64 dump_bytes;  /* their size, for the emitting process's passes */
};

/* Before the first execution and at each rescan (no process attached). */
void shared_groups_init(SharedGroups *sg);

/* Frees what a previous execution left, then as shared_groups_init (the leader's rescan). */
void shared_groups_reset(SharedGroups *sg, dsa_area *area);

/* Before the process's first block: false when the emitting process was already chosen. */
bool shared_groups_attach(SharedGroups *sg);

enum class FinishAnswer {
    done,           /* t's groups are in the area; another process emits */
    emit,           /* the last: emit t's groups with everyone else's */
    emit_from_area, /* the last after all, but t's groups are in the area too: emit from the area only */
};

/* The process read its share (t holds its groups since it last left any). */
FinishAnswer shared_groups_finish(SharedGroups *sg, dsa_area *area, const GroupTable *t);

/* Leaves t's groups in the area (its groups filled the memory bound); the caller starts again. */
void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t);

/* Bytes the groups left in the area take. */
uint64 shared_groups_left_bytes(SharedGroups *sg);

/*
 * Adds into t every group left in the area whose hash falls in pass `pass`
 * of `passes` (all of them for one pass); only the emitting process, once
 * every other finished.
 */
void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, uint32 pass, uint32 passes);

#endif /* GH_SCAN_SHARED_GROUPS_H */
