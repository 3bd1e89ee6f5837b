/*
 * grouping_policy.h: how a grouped scan keeps its groups until they go out
 * as rows, behind one small interface (the grouped row strategy,
 * rows_grouped.cpp, and its three policies).
 *
 * Every policy counts the same way: scan/group/group_agg.h gives each
 * tuple its group's dense number and counts into that number's cells.
 * What differs is where the groups go when the memory bound fills, where
 * the rows come from, and what a process must wait for:
 *   - group_table_grouping (grouping_table.cpp): the table's groups go out
 *     as rows whenever it fills (partial states, which the Finalize
 *     Aggregate combines, or the one row of a scan without keys);
 *   - shared_groups_grouping (grouping_shared.cpp): finished rows; the
 *     groups are left in shared memory and temporary files, and each
 *     process merges and emits a share of everyone's
 *     (scan/group/shared_groups.h);
 *   - gpu_cells_grouping (grouping_gpu_cells.cpp): every group is in the
 *     GPU's cells, each once and complete, and goes out as its row
 *     straight from them, with no table.
 * A scan starts with one of the first two, chosen at begin; once it has
 * read the table, a process whose groups are all the GPU's turns to the
 * third.  rows_grouped.cpp drives the scan, the memory bound and the
 * spill, and asks the policy only what this interface says, the way
 * TimescaleDB's vector aggregation gives each grouping policy a file.
 */
#ifndef GH_SCAN_GROUPING_POLICY_H
#define GH_SCAN_GROUPING_POLICY_H

#include "scan_exec.h"

#include "../group/group_agg.h"
#include "../grouped_pages/grouped_pages.h"

struct GroupingPolicy;
struct SharedMerge;

/* The grouped row strategy's state (scan_exec.h: ScanExec.grouped). */
struct GroupedRows {
    int nkeys;
    GroupKey *keys;
    bool keys_prepared;
    bool host_tables;  /* the keys' tables for the host's rows were made (group_key_host_table) */
    GroupAgg group_agg;
    GroupedPages pages;       /* all-visible pages parsed, grouped and counted on the GPU */
    const GroupingPolicy *policy;       /* where the groups are kept now ... */
    const GroupingPolicy *first_policy; /* ... and where a scan starts keeping them (it owns what they hold) */
    SharedMerge *merge;       /* the shared merge's own state (grouping_shared.cpp), or NULL */
    bool scanned;             /* the first scan_read() started */
    bool emitting;            /* the groups are going out as rows */
    bool scan_paused;         /* scan_read() stopped with the groups full */
    bool gpu_groups_pending;  /* the GPU's groups filled the memory bound before all were taken */
    bool replaying;           /* the table is read: the groups come from the spilled tuples' partitions */
    bool totals_recorded;
    uint64 flushes;           /* times the groups went out (or were put away) before the end */
};

struct GroupingPolicy {
    /* at the strategy's begin: the policy's own state, in the query's memory (NULL: none) */
    void (*begin)(ScanExec *s);
    /* before the first block: false if this process has nothing to read or emit */
    bool (*start)(ScanExec *s);
    /* whether this process's groups are all the scan has: no other process's, none put away */
    bool (*alone)(const ScanExec *s);
    /*
     * The groups fill the memory bound before the end: true if they were
     * put away and the scan goes on with none; false if they go out as
     * rows first.
     */
    bool (*put_away)(ScanExec *s);
    /* tuples wait in the spill: whether the groups counted so far may go out as rows before the spill's */
    bool (*rows_before_spill)(const ScanExec *s);
    /* every tuple is counted and the groups are collected: make the rows ready; false if there are none */
    bool (*finish)(ScanExec *s);
    /* the next row into slot (emptied by the caller); false after the last */
    bool (*next_row)(ScanExec *s, TupleTableSlot *slot);
    /* the scan's end, and before a rescan: what the policy holds goes (NULL: nothing) */
    void (*end)(ScanExec *s);
    /* a rescan, after end: back to its state before the first block (NULL: nothing) */
    void (*rescan)(ScanExec *s);
};

extern const GroupingPolicy group_table_grouping;
extern const GroupingPolicy shared_groups_grouping;
extern const GroupingPolicy gpu_cells_grouping;

/*
 * Whether every group with rows is in the GPU's cells, once and complete,
 * so that the scan may turn to gpu_cells_grouping: the table is read, the
 * policy's process is alone, and no row was counted on the host.  A scan
 * without keys keeps the table, which gives its one row even empty.
 */
bool gpu_cells_hold_every_group(const ScanExec *s);

/* The histograms' arguments and the keys' fixed arguments, once per scan (user code: no page locked). */
void grouped_rows_prepare_arguments(ScanExec *s);

#endif /* GH_SCAN_GROUPING_POLICY_H */
