/*
 * grouped_pages.h: a grouped or filtered scan's pages parsed on the GPU.
 *
 * Until now only an ungrouped scan without WHERE sent whole pages to the
 * GPU; a grouped one read every tuple on the host, computed every key and
 * found every group, and the GPU only binned (scan/grouped/grouped_rows.cpp).  Here the
 * grouped strategy sends its all-visible pages instead, as page batches
 * (scan/offload/page_gpu.h) to one grouped page histogram in the GPU
 * service: the GPU applies the WHERE clause, places each row in its group
 * (key_tables.h) and counts its value and the row (gpu/specs/grouped_page_spec.h).
 * When the scan stops, the groups with rows come back as key words and
 * counts, and join the host's groups (group_agg_add_counts), so a key's
 * rows counted on either side end in one row.  When the host counted none,
 * each comes out as its row directly (grouped_pages_next_group, for
 * scan/grouped/grouping_gpu_cells.cpp).
 *
 * The scan's shape must allow it: gpu_histogram calls of any forms, with
 * count(*) and counts of their columns beside them, and no more than four
 * further histograms (the first is the spec's own), counts of other
 * columns, sums, means, minimums and maximums (value_aggs.h) in all; at
 * most four keys, each a
 * plain integer or date column, a time bucket of a timestamp column, a
 * width_bucket, a key by value or a key of one of these (derived_key.cpp);
 * a WHERE clause the scan evaluates natively, of at most six comparisons,
 * and clauses over keys (key_quals.h), each one of the four keys (a
 * PageKey filter).  The spec is built at the first page after the first
 * row was counted on the host, which evaluated the arguments as the
 * aggregate does; pages before it, pages that are not all-visible, pages
 * the GPU leaves (a key it cannot place), and batches the service has no
 * room for are read on the host, as before.
 */
#ifndef GH_SCAN_GROUPED_PAGES_H
#define GH_SCAN_GROUPED_PAGES_H

#include "../../keys/key_tables.h"

#include "../table/group_agg.h"
#include "../../offload/page_gpu.h"

namespace gpu_histogram {

struct GroupedPages {
    bool wanted;            /* the scan's shape allows pages on the GPU, and the device setting does */
    bool tried;             /* the spec was built, or found impossible, for this scan */
    double planned_groups;  /* the planner's estimate of the scan's groups (its rows); 0: none */
    const char *refused;    /* what kept the pages off the GPU where it could have taken them (EXPLAIN ANALYZE) */
    int pages_waited;       /* pages the host read first, for a text key's values (grouped_pages_prepare) ... */
    bool waiting;           /* ... once a key was found unmet: a memo fills as they are read */
    bool keys_by_rows;      /* a key only the executor computes: the GPU filters pages, the host counts */
    bool active;            /* batches are taken */
    gh::GroupedPageSpec spec;
    KeyTables tables;
    PageGpu pages;
    GroupAgg *errors_of;    /* where a NaN the GPU met goes: raised, or held by a leaf (group_agg_nan) */
    HeapTupleData *tuples;  /* a page's tuples, when one is parsed on the host */
    MemoryContext cxt;      /* the spec, tables and batches: reset on rescan, which gives everything back */
    bool collecting;        /* the groups are being taken back (grouped_pages_collect or _next_group) ... */
    int64 next_group;       /* ... from this one on ... */
    int64 *chunk;           /* ... out of these cells, read for groups [chunk_first, chunk_first + chunk_n) */
    int64 chunk_first;
    int64 chunk_n;
    bool collected;         /* every group was taken back: this scan has no more */
    uint64 pages_left;      /* pages the GPU left to the host */
    /* where a scan's time on the GPU went, for DEBUG3: the service's set-up, the wait at the end, the reads */
    instr_time built_at; /* the spec's end: the pages' loop runs from here to the last batch */
    double begin_ms, pages_ms, finish_ms, read_ms;
    int reads;
};

/* What parsing a page on the host needs: the scan's table, its native quals (or none), its groups. */
struct HostPages {
    Relation rel;
    const NativeQuals *quals; /* NULL: no WHERE clause */
    GroupAgg *ga;
    const HistogramArgs *args;
    HeapReader *reader;       /* counts the tuples parsed */
    /*
     * The executor's clauses, for the rows that pass the native ones (NULL:
     * none): the GPU then hands every page with such a row to the host.
     */
    const RowGate *gate;
};

/*
 * Whether grouped pages may go to the GPU now (the device setting, the
 * service, gpu_histogram.pages_on_gpu; or the testing mode that batches
 * them for the CPU): an ungrouped scan with a WHERE clause then takes the
 * grouped strategy, with no key, so that its pages can go too.
 */
bool grouped_pages_may_run(void);

/*
 * Sets gp up for a scan (under parent_cxt); wanted if the scan's shape
 * allows it: aggs, keys, and a WHERE clause of which some clauses, or all,
 * are evaluated natively, or none (executor_only: the executor evaluates
 * all of it, so that no page could be left out).
 */
void grouped_pages_init(GroupedPages *gp, const ScanAggregate *aggs, int naggs, const GroupKey *keys, int nkeys,
                        bool executor_only, MemoryContext parent_cxt);

/*
 * Builds the spec once the first row was counted on the host (its
 * arguments, keys and quals then have their values), and starts the
 * batches; PostgreSQL's time functions may run: no page may be locked.
 */
void grouped_pages_prepare(GroupedPages *gp, const HostPages &host, GroupKey *keys, int nkeys, bool parallel);

/*
 * The reader's current page, locked: true if it went into a batch (the
 * scan goes on to the next page), false if the host reads it, its tuples
 * now listed in the reader.
 */
bool grouped_pages_take(GroupedPages *gp, const HostPages &host);

/* Parses the pages the GPU left to the host, if any; no page may be locked. */
void grouped_pages_parse_left(GroupedPages *gp, const HostPages &host);

/*
 * The reader ran out of blocks: the last batch goes, what comes back is
 * parsed, and once the batches with probes are done, true if some came
 * back to the reader to be read pinned (page_gpu_collect_probes).
 */
bool grouped_pages_drain(GroupedPages *gp, const HostPages &host);

/* At the end of the table: the last batch goes, every batch is collected, the pages left are parsed. */
void grouped_pages_end_read(GroupedPages *gp, const HostPages &host);

/*
 * After the table's end: the GPU's counts into the groups
 * (group_agg_add_counts), and the normal tuples its kernel counted into
 * the reader.  true when the groups filled the memory bound first (a scan
 * emitting partial states): the caller emits them, restarts the groups,
 * and calls again for the rest.
 */
bool grouped_pages_collect(GroupedPages *gp, GroupAgg *ga, HeapReader *reader);

/* Whether the GPU counted groups for this scan (read back by grouped_pages_collect or _next_group). */
bool grouped_pages_hold_groups(const GroupedPages *gp);

/*
 * Instead of grouped_pages_collect, when every group of the scan is the
 * GPU's (scan/grouped/grouping_gpu_cells.cpp): first grouped_pages_begin_rows,
 * which counts the tuples the GPU read into the reader, then each group
 * with rows in turn, so that the groups never fill a table.
 */
void grouped_pages_begin_rows(GroupedPages *gp, HeapReader *reader);

/*
 * The next group with rows among the GPU's cells, in the order of their
 * numbers: its key (each key's word or, for a key kept as bytes, value),
 * its cells, and its rows (the last cell).  false after the last, and from
 * then on; grouped_pages_collect takes them the same way.
 */
bool grouped_pages_next_group(GroupedPages *gp, HeapReader *reader, CountedKey *key, const int64 **cells, int64 *rows);

/* Gives everything back and forgets the spec (rescan: new parameters, perhaps). */
void grouped_pages_reset(GroupedPages *gp);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUPED_PAGES_H */
