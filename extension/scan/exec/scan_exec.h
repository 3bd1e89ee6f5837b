/*
 * scan_exec.h: what the GpuHistogramScan node (exec.cpp, exec_read.cpp,
 * exec_explain.cpp) and its two row strategies share.
 *
 * The node owns everything every scan has: the table's reader, the WHERE
 * clause, the aggregates and their arguments, the parallel scan's shared
 * state and the counters EXPLAIN ANALYZE shows.  What it does with the
 * visible, qualifying tuples of each page, and which rows come out, is a
 * RowStrategy's:
 *   - ungrouped_rows (rows_ungrouped.cpp): histograms only, no GROUP BY;
 *     each histogram's column goes into a HistogramState, or whole pinned
 *     pages go to the GPU; one row comes out.
 *   - grouped_rows (scan/grouped/grouped_rows.cpp): GROUP BY keys, or counts alongside;
 *     scan/grouped/table/group_agg.h counts each tuple into its group's cells, and
 *     a grouping policy (grouping_policy.h) keeps the groups; a row per
 *     group.
 * The node calls the strategy only through RowStrategy.
 */
#ifndef GH_SCAN_EXEC_H
#define GH_SCAN_EXEC_H

#include "../heap/heap_reader.h"
#include "../quals/brin_ranges.h"
#include "../quals/native_quals.h"
#include "../summaries/page_range_scan.h"
#include "../scan_node.h"

extern "C" {
#include "access/relscan.h"
#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "port/atomics.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

/* Where the values went, for EXPLAIN ANALYZE. */
struct ScanTotals {
    HeapReadCounters read;
    uint64 pages_gpu;
    uint64 pages_cached; /* of those, read from the GPU's page cache ... */
    uint64 pages_unpinned; /* ... and of those, pages the host never pinned (probes) */
    uint64 values_cpu;
    uint64 values_gpu;
    uint64 pages_left;           /* of pages_gpu, those the GPU left to the host (unplaced keys, executor rows) */
    uint64 executor_filter_rows; /* rows the executor's WHERE clauses were evaluated on */
    uint64 executor_key_rows;    /* rows whose GROUP BY keys the executor computed (a memo's misses) */
};

/*
 * In the parallel query's DSM: the counters, the row strategy's own part
 * (RowStrategy.shared_size), the shared block scan, then the buffer hints.
 */
struct SharedScan {
    pg_atomic_uint64 pages;
    pg_atomic_uint64 all_visible_pages;
    pg_atomic_uint64 tuples;
    pg_atomic_uint64 pages_skipped;
    pg_atomic_uint64 pages_ranged;
    pg_atomic_uint64 pages_gpu;
    pg_atomic_uint64 pages_cached;
    pg_atomic_uint64 pages_unpinned;
    pg_atomic_uint64 values_cpu;
    pg_atomic_uint64 values_gpu;
    pg_atomic_uint64 pages_left;
    pg_atomic_uint64 executor_filter_rows;
    pg_atomic_uint64 executor_key_rows;
};

struct ScanExec;
struct PageGpu;
struct UngroupedRows;
struct GroupedRows;

struct RowStrategy {
    /* whether a scan with nkeys group keys and counts (or none) is this strategy's */
    bool (*wants)(const ScanExec *s, int nkeys, bool counts);
    /* the reader lists each page's tuples even without a WHERE clause */
    bool lists_tuples;
    /* after the node's own set-up in ExecInitCustomScan */
    void (*begin)(ScanExec *s, CustomScan *cscan, EState *estate);
    /*
     * its own part of a parallel scan's DSM (NULL: none): its size; set up
     * by the leader (init), reset on a rescan (reset), and found by every
     * participant, the leader first (attach)
     */
    Size (*shared_size)(void);
    void (*shared_init)(ScanExec *s, void *space, dsm_segment *seg);
    void (*shared_reset)(ScanExec *s, void *space);
    void (*shared_attach)(ScanExec *s, void *space);
    /* the reader starts (or restarts after a rescan) */
    void (*begin_read)(ScanExec *s);
    /* the reader's page before its tuples are looked at: true if the strategy took it whole */
    bool (*take_page)(ScanExec *s, HeapReader *r);
    /* after a page taken whole: true stops reading, as add_tuples' true does (NULL: never) */
    bool (*stop_after_page)(ScanExec *s);
    /*
     * the current page's first n tuples passed the native quals, or, where
     * s->native_rows, have yet to (a clause may raise on the page); with
     * the executor's WHERE clause (s->qual) they have yet to pass it.  The
     * strategy evaluates what is left on each row in line-pointer order
     * before the row's keys and aggregates, as the ordinary plan would.
     * true stops reading (called again later)
     */
    bool (*add_tuples)(ScanExec *s, HeapReader *r, int n);
    /*
     * the reader ran out of blocks: true if pages it handed out came back
     * to be read after all (probes the GPUs' page cache missed); NULL: never
     */
    bool (*drain)(ScanExec *s);
    /* the reader reached the table's end */
    void (*end_read)(ScanExec *s);
    /* the next row, into the scan slot; NULL after the last */
    TupleTableSlot *(*next_row)(ScanExec *s);
    void (*rescan)(ScanExec *s);
    void (*end)(ScanExec *s);
    /* EXPLAIN: after the aggregates (group keys), and the ANALYZE figures of its own (NULL: none) */
    void (*explain_plan)(ScanExec *s, List *deparse_context, bool prefix, ExplainState *es);
    void (*explain_analyze)(ScanExec *s, ExplainState *es);
};

extern const RowStrategy ungrouped_rows;
extern const RowStrategy grouped_rows;

struct ScanExec {
    CustomScanState css;
    const RowStrategy *rows;
    UngroupedRows *ungrouped;  /* the strategy's own state, one of these */
    GroupedRows *grouped;
    int naggs;                 /* the Aggrefs: histograms, and counts when grouped */
    uint32 shape;              /* the planner's scan_shape(), under which its cached share is noted */
    bool partial;              /* emit serialized partial states */
    ScanAggregate *aggs;
    ExprState **arg_states;    /* lo, hi, nbins of each histogram, or its thresholds alone */
    MemoryContext args_cxt;    /* what the arguments' values hold (thresholds), until the next evaluation */
    HistogramArgs *args;
    bool args_evaluated;       /* at the first row that passes the quals, as the aggregate does */
    ExprState *having;         /* HAVING, on the finished rows (NULL: none) */
    ExprState *qual;           /* the WHERE clause, through the executor ... */
    bool native;               /* ... or evaluated natively (native_quals.h) */
    NativeQuals native_quals;
    bool native_detoast;       /* ... some of which may detoast: the page is unlocked first */
    bool native_rows;          /* the current page's tuples have yet to pass them (add_tuples) */
    int executor_clauses;      /* how many the executor evaluates, after the native ones */
    uint64 filter_rows_now;    /* rows they were evaluated on since the last scan_record_totals() */
    BrinRanges brin;           /* the blocks a BRIN index leaves for the WHERE clause (brin_ranges.h) */
    PageRangeScan page_ranges; /* the pages the native WHERE clause's range rules out (page_range_scan.h) */
    TupleTableSlot *heap_slot;
    SharedScan *shared;
    dsa_area *area;            /* the query's shared memory area, for shared_groups.h */
    ParallelBlockTableScanDesc pscan;
    BlockNumber hinted_blocks; /* the table's size when the DSM was sized */
    BufferHints shared_hints;
    bool reader_active;        /* a scan_read() stopped before the end, to be called again */
    bool totals_from_shared;
    ScanTotals totals;
    HeapReader reader;
};

/*
 * Where a part of the query was evaluated, for EXPLAIN ANALYZE: natively
 * on the pages each device parsed (a page the GPU left to the host is the
 * CPU's), and by the executor on executor_rows rows ("GPU 12 pages, CPU 3
 * pages, executor 40 rows").
 */
const char *scan_evaluated_where(const ScanTotals &t, bool native, uint64 executor_rows);

/* The node's state, from the CustomScanState it begins with. */
static inline ScanExec *scan_state(CustomScanState *node)
{
    return reinterpret_cast<ScanExec *>(node);
}

/* custom_exprs as the WHERE clause and HAVING (scan_node.h). */
void scan_split_exprs(const CustomScan *cscan, List **where, List **having);

/* The node's EXPLAIN callback (exec_explain.cpp). */
void scan_explain(CustomScanState *node, List *ancestors, ExplainState *es);

/* The histograms' arguments, once, at the first row that reaches them (as the aggregate evaluates them). */
void scan_evaluate_args(ScanExec *s);

/*
 * Reads the table to its end (false), or until the strategy's add_tuples
 * asks to stop (true: call again to go on).
 */
bool scan_read(ScanExec *s);

/*
 * This process's reading and binning, into the totals and the parallel
 * scan's shared counters: its pages, its values binned on each device,
 * the rows its executor evaluated the WHERE clause on (filter_rows_now,
 * taken), key_rows, those whose keys the executor computed, and
 * pages_left, the GPU's pages it handed back to the host.
 */
void scan_record_totals(ScanExec *s, const PageGpu *pages, uint64 values_cpu, uint64 values_gpu, uint64 key_rows = 0,
                        uint64 pages_left = 0);

/* The scan slot emptied, every column NULL. */
TupleTableSlot *scan_empty_slot(ScanExec *s);

} // namespace gpu_histogram

#endif /* GH_SCAN_EXEC_H */
