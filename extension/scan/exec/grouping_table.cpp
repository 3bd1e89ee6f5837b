/*
 * grouping_table.cpp: the grouping policy of the groups' hash table alone
 * (grouping_policy.h).
 *
 * For partial states, each process's groups go out as rows whenever the
 * table fills the memory bound, and again at the end: a key may come out
 * more than once, and the Finalize Aggregate above combines its rows.  A
 * scan without keys has its one group here too, finished or partial.
 * Nothing is shared and nothing waits, so the policy holds no state of its
 * own: the table is group_agg's.
 */
#include "grouping_policy.h"

namespace {

bool start(ScanExec *)
{
    return true;
}

/* a serial scan: no other process emits rows for the same keys */
bool alone(const ScanExec *s)
{
    return s->shared == NULL;
}

/* the groups go out as rows as they are: a key's rows may repeat */
bool put_away(ScanExec *)
{
    return false;
}

bool rows_before_spill(const ScanExec *)
{
    return true;
}

bool finish(ScanExec *)
{
    return true;
}

bool next_row(ScanExec *s, TupleTableSlot *slot)
{
    return group_agg_next(&s->grouped->group_agg, slot, s->partial);
}

} // namespace

const GroupingPolicy group_table_grouping = {
    NULL, /* begin */
    start,
    alone,
    put_away,
    rows_before_spill,
    finish,
    next_row,
    NULL, /* end */
    NULL, /* rescan */
};
