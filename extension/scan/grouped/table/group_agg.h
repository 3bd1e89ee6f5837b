/*
 * group_agg.h: the aggregation of a grouped GpuHistogramScan.
 *
 * For scans with GROUP BY keys, or with count(*) / count(col) alongside the
 * histograms, the executor hands each page's visible, qualifying tuples to
 * group_agg_add(), which computes each tuple's key (group_keys.h), finds
 * its group's dense number in the table (group_table.h; group_find.cpp)
 * and counts the tuple into that number's cells (group_agg.cpp): per
 * histogram, one counter per bucket, binned by the engine's one grouped
 * loop (gh::cpu_bin_rows, bucket.h's width_bucket like every other path);
 * per count, one counter.  Then group_agg_next() emits one row per group
 * (group_rows.cpp): the finished histograms and counts, or under a Gather
 * the partial states the leader's Finalize Aggregate combines.  Which
 * groups are in the table when, and where the rows come from, is the
 * grouped scan's grouping policy's (scan/grouped/grouping_policy.h).
 *
 * When the groups reach work_mem x hash_mem_multiplier, the table closes:
 * tuples of its groups are still counted, the others wait in temporary
 * files (tuple_spill.h) until the caller has emitted or left the groups
 * and replays them, a partition at a time, into an empty table
 * (group_agg_replay).  Counts the GPU made for whole groups, which have
 * no tuples to spill, fill the table instead: the caller emits what it
 * has and starts again (group_agg_full).
 *
 * Without keys the scan still emits exactly one row, empty input included,
 * as an ungrouped aggregate does.  With device 'gpu' or 'auto', each
 * histogram's values and group numbers may go to the GPU service instead
 * (scan/grouped/table/group_gpu.h), read back into the groups' cells before they
 * are emitted; a batch the service does not take comes back to the same
 * loop here.
 */
#ifndef GH_SCAN_GROUP_AGG_H
#define GH_SCAN_GROUP_AGG_H

#include "group_gpu.h"
#include "../../keys/group_keys.h"
#include "group_table.h"
#include "tuple_spill.h"
#include "../../scan_node.h"

#include "../../../../gpu/specs/grouped_page_spec.h"

namespace gpu_histogram {

/*
 * A value's error held back past a leaf's end (leaf_errors.h): a NaN, or
 * the first value that met histogram agg's invalid arguments in ga.
 */
struct GroupAgg;
struct NativeQuals;
struct HeldError {
    bool nan;
    bool spec;
    const GroupAgg *ga;
    int agg;
    double value;
};

struct GroupAgg {
    int naggs;
    ScanAggregate *aggs;
    HeapColumn *columns;      /* each histogram's value column */
    const HistogramArgs *args; /* each histogram's arguments, once evaluated */
    gh::HistogramSpec *specs;
    bool *spec_valid;          /* histogram_args_spec() accepted it: else the first value raises the error */
    int32 *offsets;            /* each aggregate's first cell */
    int nkeys;
    GroupKey *keys;
    bool has_text_key;
    char *keybuf;
    Size keybuf_cap;
    bool laid_out;             /* the table exists (the arguments were evaluated) */
    GroupTable table;
    MemoryContext cxt;         /* the table and groups: reset on rescan */
    MemoryContext page_cxt;    /* detoasted keys of one page */
    MemoryContext row_cxt;     /* one output row */
    uint32 *page_groups;       /* each tuple's group number, for one page (kNoGroup: refused by the closed table) ... */
    uint32 *page_key_at;       /* ... and then where its key lies in refused_keys ... */
    int64 **page_cells;        /* ... or else its group's cells, found with the group (no second look-up per aggregate) */
    char *refused_keys;        /* the keys the closed table refused on one page, each run of one key once: */
    Size refused_used;         /*   at MAXALIGNed offsets, its hash, its length (uint32), its bytes */
    Size refused_cap;
    int64 refused_last;        /* the last one's offset (-1: none this page) ... */
    uint64 refused_seen;       /* ... and the table's refusals then */
    TupleSpill spill;          /* tuples whose groups found no room (tuple_spill.h) ... */
    bool spill_keys;           /* ... with their keys, where a key may be the executor's to evaluate */
    int64 **page_rows;         /* a histogram's first cell in each value's group, for the CPU's loop */
    double *page_values;       /* each histogram's values of the page (MaxHeapTuplesPerPage apiece) ... */
    bool *page_nulls;          /* ... and which are NULL ... */
    bool *values_read;         /* ... where read already for this page, in step with its tuples */
    struct WordCacheEntry *word_cache; /* one fixed-width key: its recent groups by value */
    ScanGroup *null_group;     /* ... and its NULL group */
    ScanGroup **value_groups;  /* one key by value: the group of each value's number in its memo ... */
    int32 value_groups_cap;    /* ... (in cxt, with the groups) */
    int32 *page_numbers;       /* ... and each tuple's number, for one page */
    KeySpan *page_spans;       /* each key's column's span over the page (group_agg_keys_may_raise) ... */
    bool page_one;             /* ... by which all its tuples have one group, page_cells[0] (group_agg_find_one_group) */
    int page_pass;             /* pages read whole in one pass: kNoPagePass, or the aggregate whose column is read
                                  (-1: none), group_page.cpp */
    uint32 next;               /* the next group to emit */
    bool emitted_empty;        /* no keys and no rows: the one row was emitted */
    bool can_flush;            /* partial states: emit the groups when they fill the memory bound */
    /*
     * The plan replaced sorts every row, through its WHERE clause and keys,
     * before its aggregates see a value (plan/ordinary_order.cpp): a value's
     * error waits until the input's end, where a key's or a clause's of any
     * row wins over it.  A NaN at a group's first value then waits in the
     * group's state, as a later one does; the first value that meets
     * invalid arguments is held here.
     */
    bool errors_after_keys;
    bool spec_error_held;
    int held_agg;
    double held_value;
    /*
     * A leaf of a partitioned table, under an ordinary plan that sorts
     * every leaf's rows first: its values' errors wait further, for the
     * Append's last leaf to raise (leaf_errors.h).  NULL: raised here.
     */
    HeldError *defer_to;
    GroupGpu *gpu;             /* each histogram's share of the GPU service */
    bool gpu_ready;            /* gpu[] set up for these arguments (kept across restarts) */
    MemoryContext gpu_cxt;     /* their buffers: reset on rescan, which gives the service back its share */
    bool collected;            /* the GPU's cells of the current groups are in their rows */
    uint64 groups_emitted;
    uint64 values_binned;      /* on the CPU */
    uint64 values_gpu;
};

/* GroupAgg.page_pass where the keys or aggregates need each page's tuples listed. */
constexpr int kNoPagePass = -2;

/* A tuple's group number when the closed table refused its key (it waits in the spill). */
constexpr uint32 kNoGroup = PG_UINT32_MAX;

/* The cells of group number n: its row of counters, each aggregate's from offsets[a]. */
static inline int64 *group_agg_cells(const GroupAgg *ga, uint32 n)
{
    return ga->table.groups[n]->cells;
}

/*
 * Sets up the aggregation of aggs[0 .. naggs) over keys[0 .. nkeys)
 * (initialized by the caller) in parent_cxt.
 */
void group_agg_init(GroupAgg *ga, ScanAggregate *aggs, int naggs, GroupKey *keys, int nkeys, TupleDesc desc,
                    MemoryContext parent_cxt, bool can_flush);

/* The groups reached the memory bound: emit them, then group_agg_restart(). */
static inline bool group_agg_full(const GroupAgg *ga)
{
    return ga->laid_out && ga->table.full;
}

/*
 * The scan stopped (at its end, or with the groups full): the GPU's counts
 * join the groups' rows, ready for group_agg_next().
 */
void group_agg_collect(GroupAgg *ga);

/* Every group was emitted and no more will come: gives the service back its share now. */
void group_agg_done(GroupAgg *ga);

/*
 * The input ended: every row's keys are computed, so a value's error held
 * back under errors_after_keys is raised now (a NaN waiting in a group's
 * state raises when its row is made).
 */
void group_agg_raise_held(GroupAgg *ga);

/* Raises what held records, if anything (a leaf's error, raised by the Append's last leaf). */
void group_agg_raise_error(const HeldError *held);

/* Where ga's errors are deferred (defer_to), a NaN is noted there rather than raised. */
void group_agg_nan(GroupAgg *ga);

/* Forgets the emitted groups and goes on aggregating (partial states only). */
void group_agg_restart(GroupAgg *ga);

/*
 * The WHERE clause that the executor evaluates, for group_agg_add to
 * evaluate on each row just before that row's keys and aggregates, as a
 * sequential scan under an aggregate does: which row raises first, and
 * which rows a user's key function ever sees, then follow the ordinary
 * plan's.
 */
struct RowGate {
    ExprState *qual;            /* NULL: no clause of the executor's */
    ExprContext *econtext;      /* its per-row memory, reset after each row */
    TupleTableSlot *slot;       /* a heap-tuple slot of the table */
    /* at the first row that passes, before its keys: the histograms' arguments are evaluated */
    void (*first_row)(void *arg);
    void *arg;
    uint64 *evaluated; /* counts the rows the clause is evaluated on (EXPLAIN ANALYZE) */
    /*
     * The native clauses, where they may raise on the page
     * (native_quals_filter's row_by_row): each row passes them before the
     * executor's, as the page's filter would have, but in the rows' order.
     */
    const NativeQuals *native;
    TupleDesc desc;
};

/* gate (NULL: none) with the native clauses left to a row at a time, made in *out. */
static inline const RowGate *row_gate_with_native(RowGate *out, const RowGate *gate, const NativeQuals *native,
                                                  TupleDesc desc)
{
    *out = gate != NULL ? *gate : RowGate{};
    out->native = native;
    out->desc = desc;
    return out;
}

/* Whether the gate filters rows: an executor clause, or native ones left to a row at a time. */
static inline bool row_gate_filters(const RowGate *gate)
{
    return gate != NULL && (gate->qual != NULL || gate->native != NULL);
}

/*
 * Adds tuples[0 .. n) of one page; args are the histograms' evaluated
 * arguments (with a gate, they are evaluated by its first_row, and the
 * tuples are those the WHERE clause has yet to see).  Rows are taken in
 * line-pointer order where anything of a row may raise: its clause, its
 * keys, its values; an error is the one the first such row would raise.
 */
void group_agg_add(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, const HistogramArgs *args,
                   const RowGate *gate = NULL);

/*
 * A page's rows may come in one pass over an all-visible page read whole,
 * without its tuples listed (group_page.cpp): where the scan's keys are of
 * one time column (a time, date field or interval-table key) and its
 * aggregates are histograms, count(*), and float value aggregates, of one
 * value column, and its WHERE clause, if any, is a range of the keys'
 * column (the caller's to say).  A table in time order grouped by the
 * hour has one group on most pages: those are read once, not listed, then
 * read for their keys, then for their values.
 */
static inline bool group_agg_reads_whole_pages(const GroupAgg *ga)
{
    return ga->page_pass != kNoPagePass;
}

/* The column of the keys' span that such a pass reads. */
static inline AttrNumber group_agg_page_pass_attno(const GroupAgg *ga)
{
    return ga->keys[0].column.attno;
}

/*
 * The pass over an all-visible page read whole (under its lock: it only
 * reads), lines its line pointers under that lock: the key column's span
 * and the value column of each row.  Returns the page's row count, or -1
 * where it was not read (the table is not laid out yet: its first rows
 * come listed).
 */
int group_agg_page_pass(GroupAgg *ga, TupleDesc desc, Page page, OffsetNumber lines);

/*
 * The n rows group_agg_page_pass read, of which those whose key column
 * lies in [lo, hi] pass the WHERE clause (the whole int64 range without
 * one): counted as group_agg_add would where every row passes, they are
 * all of one group and nothing of theirs may raise but what their values
 * raise in order; true if counted, or if no row passes.  false, nothing
 * counted, where the caller lists the page's tuples, filters and adds
 * them.
 */
bool group_agg_add_page_pass(GroupAgg *ga, int n, int64 lo, int64 hi);

/*
 * Lays the groups' cells out for these arguments before the first row
 * (nothing if done): for a scan whose arguments are constants, so that
 * its pages may go to the GPU from the first (grouped_pages.h).  Raises
 * nothing: a refused argument still raises its error at the first value.
 */
void group_agg_lay_out(GroupAgg *ga, const HistogramArgs *args);

/* One group's key as counted elsewhere (the GPU's grouped pages). */
struct CountedKey {
    uint64 nulls;                                   /* bit k set: key k is NULL */
    int64 words[gh::kMaxPageKeys];                  /* a word key's value ... */
    const struct varlena *values[gh::kMaxPageKeys]; /* ... or a bytes key's */
};

/*
 * Whether aggregate a is count() of another column than the first
 * histogram's: the GPU's grouped pages count its non-NULL values as a page
 * aggregate of its own (a count of the first histogram's column is that
 * histogram's values).
 */
bool group_agg_counts_other_column(const ScanAggregate *aggs, int naggs, int a);

/*
 * Counts made elsewhere (the GPU's grouped pages) for one group: its key,
 * the nbins + 2 cells of the scan's first histogram, the rows that passed
 * the WHERE clause, for count(*), then the states of the value aggregates,
 * the counts of other columns and the other histograms' buckets, in the
 * scan's order (grouped_page_spec.h's PageAgg); count(col) of the first
 * histogram's column is its values.  After the first row laid the groups
 * out.
 */
void group_agg_add_counts(GroupAgg *ga, const CountedKey &key, const int64 *cells, int64 rows);

/*
 * The values of text key k among the groups in the table now (a NULL key
 * has none), in the current memory context: *out, and their number.
 */
int32 group_agg_text_key_values(const GroupAgg *ga, int k, struct varlena ***out);

/*
 * The same counts, for a group that nothing else counted: straight into
 * slot as the group's row, with no entry in the table.  The scan's groups
 * must all be the GPU's (scan/grouped/grouping_gpu_cells.cpp), so that each
 * group comes once.
 */
void group_agg_row_from_counts(GroupAgg *ga, const CountedKey &key, const int64 *cells, int64 rows,
                               TupleTableSlot *slot, bool partial);

/*
 * Fills slot's first naggs + nkeys columns with the next group's row;
 * false when every group was emitted.  partial: serialized states.
 */
bool group_agg_next(GroupAgg *ga, TupleTableSlot *slot, bool partial);

/* Forgets every group and spilled tuple, for a rescan. */
void group_agg_reset(GroupAgg *ga);

/* Whether tuples wait in the spill for their groups. */
bool group_agg_spilled(const GroupAgg *ga);

/*
 * The groups were emitted or left, and the table restarted: counts the
 * next partition of spilled tuples into it (those whose groups still find
 * no room go a partition deeper).  false if no tuple waited.
 */
bool group_agg_replay(GroupAgg *ga, TupleDesc desc, const HistogramArgs *args);

/* The scan's end: the spill's files go. */
void group_agg_end(GroupAgg *ga);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_AGG_H */
