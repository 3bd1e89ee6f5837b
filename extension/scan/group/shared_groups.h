/*
 * shared_groups.h: the groups of a parallel grouped scan, merged by its
 * processes, each a share of them, instead of a Finalize Aggregate in the
 * leader.
 *
 * Under Gather -> Finalize HashAggregate, every process sends its groups to
 * the leader as serialized partial states, and the leader alone
 * deserializes, hashes and combines them before it can form a row.
 * Measured on the H100 host over 100M rows with 8 workers, the hourly
 * heatmap's 27,778 groups kept the leader busy about 12 ms after the last
 * process had read its share; one process merging everyone's groups
 * instead took as long.
 *
 * Here each process, when it has read its share of the table, leaves its
 * groups (key bytes and counters, in buckets of their key hashes) in the
 * query's shared memory area and waits for the others.  When the last has
 * left its groups, process i of the n that took part merges the buckets
 * b with b % n == i and emits their finished rows, so the plan is Gather
 * -> the scan, with no aggregate above it, and the merge is divided.
 *
 *   - a process joins before it takes its first block, so the processes
 *     that still hold blocks are always among those waited for;
 *   - a process that comes after the last one finished (a worker that
 *     started late) finds every block taken and emits nothing;
 *   - each process gets its share's number when it finishes: the n that
 *     joined finish as numbers 0 to n - 1.
 *
 * While they wait, no process has sent a row, so none waits on the leader's
 * tuple queues; an error in one reaches the leader, which ends the others.
 *
 * Memory stays within the bound a HashAggregate would have: a process whose
 * groups fill work_mem x hash_mem_multiplier leaves them and starts again,
 * and a process whose share adds up to more than the bound merges and
 * emits it in passes, each a part of the share's hashes.
 */
#ifndef GH_SCAN_SHARED_GROUPS_H
#define GH_SCAN_SHARED_GROUPS_H

#include "group_table.h"

extern "C" {
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/dsa.h"
}

/* In the scan's DSM; every field but cv under mutex. */
struct SharedGroups {
    slock_t mutex;
    int32 joined;       /* processes that started to read */
    int32 finished;     /* ... and left their groups */
    bool closed;        /* every process that joined finished: later comers do nothing */
    dsa_pointer dumps;  /* the groups left, a list */
    uint64 dump_bytes;  /* their size, for the passes */
    ConditionVariable cv; /* the processes that finished wait here to be closed */
};

/* Before the first execution and at each rescan (no process joined). */
void shared_groups_init(SharedGroups *sg);

/* Frees what a previous execution left, then as shared_groups_init (the leader's rescan). */
void shared_groups_reset(SharedGroups *sg, dsa_area *area);

/* Before the process's first block: false when every process that joined already finished. */
bool shared_groups_join(SharedGroups *sg);

/* Leaves t's groups in the area (they filled the memory bound, or the process finished). */
void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t);

/* The share of the groups one process merges and emits. */
struct GroupShare {
    int32 index;      /* share index of shares, each a set of hash buckets */
    int32 shares;
    uint64 bytes;     /* the groups left by every process, all shares */
};

/*
 * The process read its share of the table and left no groups in the area,
 * and no other process joined: closes the processes, for it to emit its
 * groups as they are; false otherwise.
 */
bool shared_groups_close_alone(SharedGroups *sg);

/*
 * The process read its share of the table and left its groups: counts it
 * finished and waits (interruptibly) until every process that joined has.
 */
GroupShare shared_groups_finish(SharedGroups *sg);

/*
 * Adds into t every group left in the area that is in the share and, of
 * it, in pass `pass` of `passes` (all of it for one pass); once the
 * processes are closed.
 */
void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, const GroupShare &share, uint32 pass,
                         uint32 passes);

#endif /* GH_SCAN_SHARED_GROUPS_H */
