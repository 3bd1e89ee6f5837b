/*
 * grouping_policy.h: where a grouped scan keeps its groups until they go
 * out as rows: one small interface, and a file per policy, as
 * TimescaleDB's vector aggregation has them
 * (tsl/src/nodes/vector_agg/grouping_policy.h).
 *
 * Every policy counts the host's rows the same way, into the groups' hash
 * table (table/group_agg.h).  What a policy owns is what differs: when the
 * groups go out, where they go when the memory bound fills, and where the
 * rows come from.
 *   - hash_grouping (grouping_hash.cpp): the table's groups go out as rows
 *     whenever it fills (partial states, which the Finalize Aggregate
 *     combines, or the one row of a scan without keys), then the GPU's
 *     groups and the spilled tuples' partitions, a table at a time;
 *   - shared_grouping (grouping_shared.cpp): finished rows, and the
 *     partial states of a float sum (a partitioned table's leaf), each
 *     group once; the groups are left in shared memory and temporary
 *     files, and each process merges and emits a share of everyone's
 *     (merge/shared_groups.h);
 *   - gpu_cells_grouping (grouping_gpu_cells.cpp): a process alone whose
 *     pages go to the GPU; when every group is in the GPU's cells, each
 *     goes out as its row straight from them, with no table; otherwise it
 *     hands everything to the policy it wraps.
 * The driver (grouped_rows.cpp) picks one when the scan starts, and never
 * changes it: a spill, the GPU's cells filling the bound, or the merge
 * are the policy's own business behind these calls.
 */
#ifndef GH_SCAN_GROUPING_POLICY_H
#define GH_SCAN_GROUPING_POLICY_H

#include "grouped_state.h"

namespace gpu_histogram {

struct GroupingPolicy {
    GroupedRows *g; /* the scan whose groups it keeps */
    /* before the first block: false if this process has nothing to read or emit */
    bool (*start)(GroupingPolicy *p);
    /* a page's tuples, which passed the native quals (with gate: yet to pass the executor's WHERE clause) */
    void (*add_rows)(GroupingPolicy *p, HeapTupleData *tuples, int n, const RowGate *gate);
    /* the groups fill the memory bound: reading stops until emit() has taken them */
    bool (*should_emit)(const GroupingPolicy *p);
    /*
     * The next row into slot (emptied by the caller): of the groups that
     * filled the bound, or once input_ended, of every group left.  false
     * when there is none for now: reading goes on, or, at the input's end,
     * the scan is done.
     */
    bool (*emit)(GroupingPolicy *p, TupleTableSlot *slot, bool input_ended);
    /*
     * Whether this process holds no group but the GPU's cells: none in the
     * table, the spill, or left for a merge, and no other process's to
     * combine with (gpu_cells_grouping asks its inner policy).
     */
    bool (*holds_nothing)(const GroupingPolicy *p);
    /* a rescan, after end(): back to the state before the first block (NULL: nothing) */
    void (*reset)(GroupingPolicy *p);
    /* the scan's end, and before a rescan: what the policy holds goes (NULL: nothing) */
    void (*end)(GroupingPolicy *p);
};

/* The policies, made in the query's memory; gpu_cells_grouping wraps another. */
GroupingPolicy *hash_grouping(GroupedRows *g);
GroupingPolicy *shared_grouping(GroupedRows *g);
GroupingPolicy *gpu_cells_grouping(GroupedRows *g, GroupingPolicy *inner);

/*
 * The table's rounds at the input's end, which hash_grouping and
 * shared_grouping both go through: first the table as read, with the
 * GPU's groups (grouped_pages_collect; more rounds while they fill the
 * bound), then each partition of the spilled tuples.  The caller takes
 * each round's groups (as rows, or leaves them for the merge) and
 * restarts the table before the next.
 */
struct TableRounds {
    enum class Stage : uint8 { table, gpu_groups, spill } stage;
};

/* Fills the table with the next round (the last records the scan's totals first): false when none is left. */
bool table_rounds_next(GroupedRows *g, TableRounds *r);

/* Whether the round in the table is the last: no GPU group and no spilled tuple waits. */
bool table_rounds_last(GroupedRows *g, const TableRounds *r);

/*
 * The host's rows into the table, and whether it fills the bound: add_rows
 * and should_emit of every policy that keeps the table (gpu_cells_grouping
 * asks the policy it wraps).
 */
void table_add_rows(GroupingPolicy *p, HeapTupleData *tuples, int n, const RowGate *gate);
bool table_full(const GroupingPolicy *p);

/* Whether the GPU's groups filled the bound before they were all taken (a flush, for EXPLAIN). */
static inline bool table_rounds_gpu_pending(const TableRounds *r)
{
    return r->stage == TableRounds::Stage::gpu_groups;
}

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUPING_POLICY_H */
