/*
 * grouping_gpu_cells.cpp: the grouping policy of groups the GPU counted
 * whole (grouping_policy.h).
 *
 * The GPU's cells of a grouped page scan (scan/grouped_pages/) hold each
 * group once, complete, in the order of its number.  A process alone whose
 * pages all went to the GPU (no row counted on the host, no group put
 * away, none spilled) therefore has nothing to combine: each group with
 * rows goes out as its row straight from the cells read back, with no
 * table, no memory bound and no merge.  With 27,778 hourly groups of 100M
 * cached rows, filling the host's table with them took 21 to 38 ms of a
 * 42 to 69 ms scan on the H100 host.  The scan turns to this policy once
 * it has read the table (gpu_cells_hold_every_group); it never starts
 * with it, and holds nothing the GPU's pages do not.
 */
#include "grouping_policy.h"

namespace {

bool start(ScanExec *)
{
    return true;
}

bool alone(const ScanExec *)
{
    return true;
}

/* the cells are on the GPU: they never fill the host's memory bound */
bool put_away(ScanExec *)
{
    return false;
}

bool rows_before_spill(const ScanExec *)
{
    return true;
}

/* The tuples the GPU read are counted into the reader, before the scan's totals are. */
bool finish(ScanExec *s)
{
    grouped_pages_begin_rows(&s->grouped->pages, &s->reader);
    return true;
}

/* The next group with rows in the GPU's cells, as its row; its values counted as they go. */
bool next_row(ScanExec *s, TupleTableSlot *slot)
{
    GroupedRows *g = s->grouped;
    GroupAgg *ga = &g->group_agg;
    CountedKey key;
    const int64 *cells;
    int64 rows;
    if (!grouped_pages_next_group(&g->pages, &s->reader, &key, &cells, &rows))
        return false;
    const uint64 before = ga->values_gpu;
    group_agg_row_from_counts(ga, key, cells, rows, slot, s->partial);
    s->totals.values_gpu += ga->values_gpu - before; /* each row's, as it goes */
    return true;
}

} // namespace

bool gpu_cells_hold_every_group(const ScanExec *s)
{
    const GroupedRows *g = s->grouped;
    return g->nkeys > 0 && g->policy->alone(s) && grouped_pages_hold_groups(&g->pages) &&
           (!g->group_agg.laid_out || g->group_agg.table.ngroups == 0);
}

const GroupingPolicy gpu_cells_grouping = {
    NULL, /* begin */
    start,
    alone,
    put_away,
    rows_before_spill,
    finish,
    next_row,
    NULL, /* end: the cells go back with the grouped pages (grouped_pages_reset) */
    NULL, /* rescan */
};
