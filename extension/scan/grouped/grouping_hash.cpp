/*
 * grouping_hash.cpp: the grouping policy of the groups' hash table alone
 * (grouping_policy.h), and the table's rounds at the input's end, which
 * the shared merge's policy goes through too.
 *
 * For partial states, each process's groups go out as rows whenever the
 * table fills the memory bound, and again at the end: a key may come out
 * more than once, and the Finalize Aggregate above combines its rows.  A
 * scan without keys has its one group here too, finished or partial.
 * Nothing is shared and nothing waits: the policy's state is the round it
 * is in.
 */
#include "grouping_policy.h"

namespace gpu_histogram {

bool table_rounds_next(GroupedRows *g, TableRounds *r)
{
    GroupAgg *ga = &g->table;
    switch (r->stage) {
    case TableRounds::Stage::table:
    case TableRounds::Stage::gpu_groups:
        /* the GPU's groups join the host's, as many as the bound holds (grouped_pages.h) */
        r->stage = grouped_pages_collect(&g->pages, ga, &g->s->reader) ? TableRounds::Stage::gpu_groups
                                                                       : TableRounds::Stage::spill;
        break;
    case TableRounds::Stage::spill:
        /* the next partition of the tuples the bound refused, into the emptied table */
        grouped_rows_prepare_arguments(g);
        if (!group_agg_replay(ga, RelationGetDescr(g->s->css.ss.ss_currentRelation), g->s->args))
            return false;
        break;
    }
    group_agg_collect(ga);
    if (table_rounds_last(g, r))
        grouped_rows_counted(g); /* every value is counted: the totals before the last groups go out */
    return true;
}

bool table_rounds_last(GroupedRows *g, const TableRounds *r)
{
    return r->stage == TableRounds::Stage::spill && !group_agg_spilled(&g->table);
}

void table_add_rows(GroupingPolicy *p, HeapTupleData *tuples, int n, const RowGate *gate)
{
    GroupedRows *g = p->g;
    group_agg_add(&g->table, RelationGetDescr(g->s->css.ss.ss_currentRelation), tuples, n, g->s->args, gate);
}

bool table_full(const GroupingPolicy *p)
{
    return group_agg_full(&p->g->table);
}

namespace {

struct HashGrouping {
    GroupingPolicy policy;
    TableRounds rounds;
    bool emitting; /* the table's groups are going out */
    bool done;     /* the input ended and every round went out */
};

HashGrouping *hash_of(GroupingPolicy *p)
{
    return reinterpret_cast<HashGrouping *>(p);
}

bool hash_start(GroupingPolicy *)
{
    return true;
}

/*
 * The next round's groups into the table: those that filled the bound, or
 * at the input's end the next of the table's rounds.  false if none.
 */
bool hash_next_round(HashGrouping *h, bool input_ended)
{
    GroupedRows *g = h->policy.g;
    if (!input_ended) {
        group_agg_collect(&g->table);
        return true;
    }
    if (h->done || !table_rounds_next(g, &h->rounds)) {
        h->done = true;
        return false;
    }
    return true;
}

/* Each round's groups as rows: the table emptied after each, but the last. */
bool hash_emit(GroupingPolicy *p, TupleTableSlot *slot, bool input_ended)
{
    HashGrouping *h = hash_of(p);
    GroupedRows *g = h->policy.g;
    for (;;) {
        if (!h->emitting) {
            if (!hash_next_round(h, input_ended))
                return false;
            h->emitting = true;
        }
        if (group_agg_next(&g->table, slot, g->s->partial))
            return true;
        h->emitting = false;
        if (input_ended && table_rounds_last(g, &h->rounds)) {
            h->done = true;
            return false;
        }
        group_agg_restart(&g->table);
        if (!input_ended)
            return false;
        if (table_rounds_gpu_pending(&h->rounds))
            g->flushes++; /* the GPU's groups outgrew the bound */
    }
}

bool hash_holds_nothing(const GroupingPolicy *p)
{
    const GroupedRows *g = p->g;
    return g->s->shared == NULL && !group_agg_spilled(&g->table) &&
           (!g->table.laid_out || g->table.table.ngroups == 0);
}

void hash_reset(GroupingPolicy *p)
{
    HashGrouping *h = hash_of(p);
    h->rounds = TableRounds{};
    h->emitting = false;
    h->done = false;
}

} // namespace

GroupingPolicy *hash_grouping(GroupedRows *g)
{
    HashGrouping *h = static_cast<HashGrouping *>(palloc0(sizeof(HashGrouping)));
    h->policy = GroupingPolicy{g, hash_start, table_add_rows, table_full, hash_emit, hash_holds_nothing, hash_reset, NULL};
    return &h->policy;
}

} // namespace gpu_histogram
