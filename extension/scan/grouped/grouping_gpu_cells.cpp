/*
 * grouping_gpu_cells.cpp: the grouping policy of groups the GPU counted
 * whole (grouping_policy.h).
 *
 * The GPU's cells of a grouped page scan (offload/grouped_pages.h) hold
 * each group once, complete, in the order of its number.  A process alone
 * whose pages all went to the GPU (no row counted on the host, no group
 * put away, none spilled) therefore has nothing to combine: each group
 * with rows goes out as its row straight from the cells read back, with no
 * table, no memory bound and no merge.  With 27,778 hourly groups of 100M
 * cached rows, filling the host's table with them took 21 to 38 ms of a
 * 42 to 69 ms scan on the H100 host.
 *
 * Which it is, is known only at the table's end: until then, and after
 * it where the host holds groups too, everything is the wrapped policy's
 * (the hash table's or the shared merge's), which then takes the GPU's
 * groups into its table.
 */
#include "grouping_policy.h"

namespace gpu_histogram {

namespace {

struct GpuCells {
    GroupingPolicy policy;
    GroupingPolicy *inner;
    enum class Rows : uint8 { undecided, from_cells, from_inner } rows;
};

GpuCells *cells_of(GroupingPolicy *p)
{
    return reinterpret_cast<GpuCells *>(p);
}

GroupingPolicy *inner_of(const GroupingPolicy *p)
{
    return reinterpret_cast<const GpuCells *>(p)->inner;
}

bool cells_start(GroupingPolicy *p)
{
    return inner_of(p)->start(inner_of(p));
}

void cells_add_rows(GroupingPolicy *p, HeapTupleData *tuples, int n, const RowGate *gate)
{
    inner_of(p)->add_rows(inner_of(p), tuples, n, gate);
}

bool cells_should_emit(const GroupingPolicy *p)
{
    return inner_of(p)->should_emit(inner_of(p));
}

/* The next group with rows in the GPU's cells, as its row; its values counted as they go. */
bool next_cells_row(GpuCells *c, TupleTableSlot *slot)
{
    GroupedRows *g = c->policy.g;
    GroupAgg *ga = &g->table;
    CountedKey key;
    const int64 *cells;
    int64 rows;
    if (!grouped_pages_next_group(&g->pages, &g->s->reader, &key, &cells, &rows))
        return false;
    const uint64 before = ga->values_gpu;
    group_agg_row_from_counts(ga, key, cells, rows, slot, g->s->partial);
    g->s->totals.values_gpu += ga->values_gpu - before; /* each row's, as it goes */
    return true;
}

bool cells_emit(GroupingPolicy *p, TupleTableSlot *slot, bool input_ended)
{
    GpuCells *c = cells_of(p);
    GroupedRows *g = c->policy.g;
    if (input_ended && c->rows == GpuCells::Rows::undecided) {
        const bool from_cells = c->inner->holds_nothing(c->inner) && grouped_pages_hold_groups(&g->pages);
        c->rows = from_cells ? GpuCells::Rows::from_cells : GpuCells::Rows::from_inner;
        if (from_cells) {
            /* the tuples the GPU read are counted into the reader, and the totals go first, for a LIMIT above */
            grouped_pages_begin_rows(&g->pages, &g->s->reader);
            grouped_rows_counted(g);
        }
    }
    if (c->rows == GpuCells::Rows::from_cells)
        return next_cells_row(c, slot);
    return c->inner->emit(c->inner, slot, input_ended);
}

bool cells_holds_nothing(const GroupingPolicy *p)
{
    return inner_of(p)->holds_nothing(inner_of(p));
}

void cells_reset(GroupingPolicy *p)
{
    cells_of(p)->rows = GpuCells::Rows::undecided;
    if (inner_of(p)->reset != NULL)
        inner_of(p)->reset(inner_of(p));
}

/* The cells go back with the grouped pages (grouped_pages_reset); the inner policy's state goes here. */
void cells_end(GroupingPolicy *p)
{
    if (inner_of(p)->end != NULL)
        inner_of(p)->end(inner_of(p));
}

} // namespace

GroupingPolicy *gpu_cells_grouping(GroupedRows *g, GroupingPolicy *inner)
{
    GpuCells *c = static_cast<GpuCells *>(palloc0(sizeof(GpuCells)));
    c->policy = GroupingPolicy{g,          cells_start,         cells_add_rows, cells_should_emit,
                               cells_emit, cells_holds_nothing, cells_reset,    cells_end};
    c->inner = inner;
    return &c->policy;
}

} // namespace gpu_histogram
