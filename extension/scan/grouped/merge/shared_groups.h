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
 * instead took as long.  A serial scan with no aggregate above it is the
 * case of one process: it leaves groups only when they outgrow the bound.
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
 * Memory stays within the bounds a HashAggregate would have.  A process
 * whose groups fill work_mem x hash_mem_multiplier leaves them and starts
 * again.  The area holds at most that bound once per process that joined;
 * groups left beyond it go to temporary files of the query's shared file
 * set instead (where the Finalize HashAggregate would have spilled them),
 * and are read back bucket by bucket.  A process whose share adds up to
 * more than the bound first writes it to files of its own, one per part of
 * the hashes (at most 256, as HashAggregate's spill), then merges and
 * emits one part at a time.
 */
#ifndef GH_SCAN_SHARED_GROUPS_H
#define GH_SCAN_SHARED_GROUPS_H

#include "../table/group_table.h"

extern "C" {
#include "storage/buffile.h"
#include "storage/condition_variable.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"
#include "utils/dsa.h"
}

namespace gpu_histogram {

/* In the scan's DSM; every field but cv under mutex. */
struct SharedGroups {
    slock_t mutex;
    int32 joined;       /* processes that started to read */
    int32 finished;     /* ... and left their groups */
    bool closed;        /* every process that joined finished: later comers do nothing */
    dsa_pointer dumps;  /* the groups left, a list */
    uint64 dump_bytes;  /* their size, for the passes */
    uint64 area_bytes;  /* ... of it in the area, not in files */
    int32 nfiles;       /* files made in `files` so far, one a process at most */
    bool have_files;    /* `files` is set up: groups beyond the area's bound go there */
    SharedFileSet files;
    ConditionVariable cv; /* the processes that finished wait here to be closed */
};

/* Before the first execution (no process joined); without files until shared_groups_init_files. */
void shared_groups_init(SharedGroups *sg);

/* The file set for groups beyond the area's bound, removed when seg (the query's DSM) goes. */
void shared_groups_init_files(SharedGroups *sg, dsm_segment *seg);

/*
 * The same for a process alone, with no DSM (a portal run in parts, which
 * gets no workers): sg and its files live in this process, the files go
 * with cxt (after an error too) or at shared_groups_reset.
 */
void shared_groups_init_local_files(SharedGroups *sg, MemoryContext cxt);

/* Frees what a previous execution left, files included, then as shared_groups_init keeping the file set (a rescan). */
void shared_groups_reset(SharedGroups *sg, dsa_area *area);

/* Before the process's first block: false when every process that joined already finished. */
bool shared_groups_join(SharedGroups *sg);

/* A process's own file of the groups it left beyond the area's bound. */
struct GroupSpill {
    BufFile *file;    /* open from its first use until the process finishes */
    int32 number;
    uint64 written;
};

/* Leaves t's groups in the area, or in spill's file (they filled the memory bound, or the process finished). */
void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t, GroupSpill *spill);

/* Closes spill's file, if it has one: before the process finishes, and at a rescan. */
void shared_groups_spill_close(GroupSpill *spill);

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
 * The process read its share of the table and left its groups: closes its
 * file, counts it finished and waits (interruptibly) until every process
 * that joined has.
 */
GroupShare shared_groups_finish(SharedGroups *sg, GroupSpill *spill);

/*
 * The process read its share and left its groups elsewhere (leaf_merge.h):
 * counts it finished, without waiting; true if it was the last that joined.
 */
bool shared_groups_done(SharedGroups *sg);

/* Every group left, as one share: for one process to merge (leaf_merge.h). */
GroupShare shared_groups_whole(SharedGroups *sg);

/* Adds into t every group left (in the area or the files) that is in the share. */
void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, const GroupShare &share);

/*
 * A share too large for the memory bound: writes its groups (records of
 * ncells counters) to nparts files of the caller's by their hashes,
 * counting each file's records, for shared_groups_merge_part to add one
 * file at a time.  Each group goes to one file, so each file's groups are
 * finished once that file is added.
 */
void shared_groups_partition(SharedGroups *sg, dsa_area *area, const GroupShare &share, int32 ncells,
                             BufFile **parts, uint64 *part_records, uint32 nparts);

/* Adds into t the `records` groups of a file shared_groups_partition wrote. */
void shared_groups_merge_part(GroupTable *t, BufFile *part, uint64 records);

} // namespace gpu_histogram

#endif /* GH_SCAN_SHARED_GROUPS_H */
