/*
 * grouped_state.h: the state of a grouped scan (the row strategy
 * grouped_rows, scan_exec.h), which its driver (grouped_rows.cpp) and its
 * grouping policies (grouping_policy.h) share, and the two steps both take
 * (grouped_state.cpp); nothing outside grouped/ includes it.
 */
#ifndef GH_SCAN_GROUPED_STATE_H
#define GH_SCAN_GROUPED_STATE_H

#include "../exec/scan_exec.h"

#include "merge/shared_groups.h"
#include "offload/grouped_pages.h"
#include "table/group_agg.h"

namespace gpu_histogram {

struct GroupingPolicy;

/* Where the driver is: one step of its loop each (grouped_next_row). */
enum class GroupedPhase : uint8 {
    start,        /* before the first block */
    reading,      /* pages into the groups, until the policy's groups fill the bound or the table ends */
    emitting,     /* the groups that filled the bound go out; then reading again */
    emitting_end, /* the table is read: every group left goes out */
    done,
};

struct GroupedRows {
    ScanExec *s;
    int nkeys;
    GroupKey *keys;
    bool keys_prepared;
    bool host_tables;         /* the keys' tables for the host's rows were made (group_key_host_table) */
    GroupAgg table;           /* the host's rows, counted into their groups' cells */
    GroupedPages pages;       /* all-visible pages parsed, grouped and counted on the GPU */
    RowGate gate;             /* the executor's clauses, on the rows past the native ones (gate.qual NULL: none) */
    GroupingPolicy *policy;   /* chosen when the scan first starts */
    SharedGroups *shared_groups; /* in the parallel scan's DSM (RowStrategy.shared_attach), or NULL */
    GroupedPhase phase;
    bool totals_recorded;
    uint64 flushes;           /* times the groups went out (or were put away) before the end */
    uint64 pages_one_pass;    /* all-visible pages counted in one pass (group_page.cpp), this process's */
    struct LeafState *leaf;   /* a leaf whose errors wait for the Append's last (leaf_errors.h), or NULL */
    struct LeafMergeState *merge; /* a leaf whose groups the Append's last emits (leaf_merge.h), or NULL */
};

/* The histograms' arguments and the keys' fixed arguments, once per scan (user code: no page locked). */
void grouped_rows_prepare_arguments(GroupedRows *g);

/*
 * Every value is counted: the scan's totals, for EXPLAIN, the statistics
 * and the planner (once; before the last groups go out, so that a LIMIT
 * above still has them).
 */
void grouped_rows_counted(GroupedRows *g);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUPED_STATE_H */
