/*
 * grouped_rows.cpp: the row strategy of a scan with GROUP BY keys, or with
 * count(*) / count(col) alongside its histograms (scan_exec.h), and the
 * loop that drives it.
 *
 * Keys and counters may run PostgreSQL's functions (date_trunc's fallback,
 * date_bin, detoasting a text key), so each page is unlocked before its
 * tuples go to the grouping policy; its pin keeps them in place.  The loop
 * reads pages into the policy's groups until it says they fill the memory
 * bound, takes its rows, reads on, and at the table's end takes every row
 * it has left.  Which groups are where, a spill, the GPU's cells and the
 * processes' merge are the policy's (grouping_policy.h), chosen once when
 * the scan starts.
 */
#include "grouping_policy.h"
#include "leaf_errors.h"
#include "leaf_merge.h"

#include "table/value_aggs.h"

#include "../keys/key_params.h"

extern "C" {
#include "nodes/pg_list.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
}

namespace gpu_histogram {

namespace {

void first_rows_of(void *arg);
bool merges_partial_states(const GroupedRows *g);

bool grouped_wants(const ScanExec *s, int nkeys, bool counts)
{
    /*
     * Histograms under a WHERE clause the scan evaluates natively (a time
     * range), or several of them without one, as many as one grouped page spec holds:
     * this strategy with no key, whose pages the GPU filters and counts
     * in one pass (grouped_pages.h).  The ungrouped one sends only pages
     * without a WHERE clause, a request per histogram, and asks the GPUs'
     * page cache only for one: two histograms over 10M rows took 21.4 ms
     * there against one's 0.6 on the H200 host.  So does one histogram of
     * a numeric column: the ungrouped page kernel cannot hand a page back,
     * and a numeric the GPU does not convert (numeric_float8.h) sends its
     * page back to the host.
     */
    const bool numeric_values = s->naggs == 1 && s->aggs[0].call.coltype == NUMERICOID;
    return nkeys > 0 || counts ||
           ((s->native || ((s->naggs > 1 || numeric_values) && s->qual == NULL)) &&
            s->naggs <= 1 + gh::kMaxPageAggs && grouped_pages_may_run());
}

void grouped_begin(ScanExec *s, CustomScan *cscan, EState *estate)
{
    GroupedRows *g = static_cast<GroupedRows *>(palloc0(sizeof(GroupedRows)));
    g->s = s;
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    g->nkeys = intVal(lsecond(cscan->custom_private));
    g->keys = static_cast<GroupKey *>(palloc0(sizeof(GroupKey) * Max(g->nkeys, 1)));
    for (int k = 0; k < g->nkeys; k++) {
        Expr *target = static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, s->naggs + k))->expr;
        /* a generic plan's $1 in the key, as a custom plan would have it (key_params.h) */
        target = key_params_bound(target, estate->es_param_list_info);
        GroupKeyDef def;
        if (!group_key_parse(target, cscan->scan.scanrelid, &def))
            elog(ERROR, "gpu_histogram scan: unexpected group key %d", k + 1);
        group_key_init(&g->keys[k], def, desc, &s->css.ss.ps);
    }
    /* with keys, every policy may let the groups go (out as rows, or away for a merge) when they fill the bound */
    group_agg_init(&g->table, s->aggs, s->naggs, g->keys, g->nkeys, desc, estate->es_query_cxt, g->nkeys > 0);
    g->table.errors_after_keys = boolVal(list_nth(cscan->custom_private, 4));
    const uint32 leaf_group = static_cast<uint32>(intVal(list_nth(cscan->custom_private, 5)));
    /* with workers, each leaf's errors keep its own order (leaf_errors.h) */
    if (leaf_group != 0 && g->table.errors_after_keys && !cscan->scan.plan.parallel_aware)
        leaf_errors_join(g, estate, leaf_group);
    if (leaf_group != 0 && merges_partial_states(g))
        leaf_merge_join(g, estate, leaf_group);
    grouped_pages_init(&g->pages, s->aggs, s->naggs, g->keys, g->nkeys, s->qual != NULL && !s->native,
                       estate->es_query_cxt);
    g->pages.planned_groups = s->css.ss.ps.plan->plan_rows;
    g->gate = RowGate{s->qual, s->css.ss.ps.ps_ExprContext, s->heap_slot, first_rows_of, g, &s->filter_rows_now};
    s->grouped = g;
}

/*
 * Whether a scan emitting partial states (a leaf of a partitioned table)
 * merges its groups before they go out, as finished rows are: for a float
 * sum or mean.  Otherwise a group could go out in several parts, each
 * with its sum rounded, and the Finalize Aggregate would add them, so the
 * last bits would follow how the rows were split: serially, past the
 * memory bound (the GPU's groups join the table as far as the bound
 * allows, the tuples it refused come back a partition at a time); with
 * workers, a part from each process that read some of the leaf's blocks.
 * Merged, each group leaves the leaf once, its exact sum rounded once.
 * Where the Append has more leaves, they all leave their groups for its
 * last one (leaf_merge.h), so that each group leaves the Append once.  A
 * lone leaf's processes wait for each other at its end, as those of a
 * table do: none of them can be elsewhere, since a process leaves a leaf
 * only when the leaf's node has emitted its share of the groups.
 */
bool merges_partial_states(const GroupedRows *g)
{
    const ScanExec *s = g->s;
    if (!s->partial)
        return false;
    for (int a = 0; a < s->naggs; a++)
        if (value_aggregate_kind(s->aggs[a].kind) && value_agg_exact(s->aggs[a]))
            return true;
    return false;
}

/*
 * The policy, once, when the scan first starts (a parallel scan's shared
 * state is known by then): finished rows with keys are merged across the
 * processes, or by a serial scan alone, and so are the partial states of
 * a float sum (merges_partial_states), across all the leaves of an Append
 * that has several, with keys or without; other partial states, and the
 * one row of any other scan without keys, go out from the table.  A
 * process alone whose pages may go to the GPU may find all its groups
 * there.
 */
GroupingPolicy *choose_policy(GroupedRows *g)
{
    ScanExec *s = g->s;
    MemoryContext old = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
    GroupingPolicy *p = g->merge != NULL || (g->nkeys > 0 && (!s->partial || merges_partial_states(g)))
                            ? shared_grouping(g)
                            : hash_grouping(g);
    if (g->nkeys > 0 && s->shared == NULL && g->pages.wanted && g->merge == NULL)
        p = gpu_cells_grouping(g, p);
    MemoryContextSwitchTo(old);
    return p;
}

/* The scan's part of the DSM: its processes' groups, then, for a leaf, the Append's (leaf_merge.h). */
struct GroupedShared {
    SharedGroups groups;
    LeafMergeShared leaves;
};

Size grouped_shared_size(void)
{
    return sizeof(GroupedShared);
}

void grouped_shared_init(ScanExec *, void *space, dsm_segment *seg)
{
    GroupedShared *shared = static_cast<GroupedShared *>(space);
    shared_groups_init(&shared->groups);
    shared_groups_init_files(&shared->groups, seg);
    leaf_merge_shared_init(&shared->leaves, seg);
}

void grouped_shared_reset(ScanExec *s, void *space)
{
    GroupedShared *shared = static_cast<GroupedShared *>(space);
    shared_groups_reset(&shared->groups, s->area);
    leaf_merge_shared_reset(&shared->leaves, s->area);
}

void grouped_shared_attach(ScanExec *s, void *space)
{
    GroupedShared *shared = static_cast<GroupedShared *>(space);
    s->grouped->shared_groups = &shared->groups;
    if (s->grouped->merge != NULL)
        leaf_merge_attach(s->grouped, &shared->leaves);
}

/* What the GPU's grouped pages need to parse a page here instead. */
HostPages host_pages(GroupedRows *g)
{
    ScanExec *s = g->s;
    return HostPages{s->css.ss.ss_currentRelation, s->native ? &s->native_quals : NULL, &g->table, s->args,
                     &s->reader, s->qual != NULL ? &g->gate : NULL};
}

/*
 * Whether every argument of the histograms and keys is a constant: then
 * evaluating them before any row changes nothing (a constant cannot fail;
 * a refused one still raises its error at the first value), and the pages
 * may go to the GPU from the first.  A width_bucket key waits for the
 * first row, where PostgreSQL's function checks its arguments.
 */
bool arguments_are_constants(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    for (int h = 0; h < s->naggs; h++) {
        if (s->aggs[h].kind != AggKind::histogram)
            continue;
        for (int i = 0; i < 3; i++)
            if (s->arg_states[3 * h + i] != NULL && !IsA(s->arg_states[3 * h + i]->expr, Const))
                return false; /* (the thresholds form has one argument) */
    }
    for (int k = 0; k < g->nkeys; k++) {
        const GroupKeyDef &def = g->keys[k].def;
        if (def.kind == KeyKind::width_bucket || def.kind == KeyKind::time_bucket)
            return false;
        for (Expr *arg : def.args)
            if (arg != NULL && !IsA(arg, Const))
                return false;
    }
    return true;
}

/*
 * How much of a listed page to ask for at once: all of it where every key
 * is of time (a time-ordered table's pages are mostly of one group, and
 * their first pass only reads each row's time), else its first lines
 * (heap_page_prefetch_start, which says why).
 */
uint32 prefetch_lines(const GroupedRows *g)
{
    for (int k = 0; k < g->nkeys; k++)
        if (!group_key_has_spans(&g->keys[k]))
            return 8;
    return 0;
}

void grouped_begin_read(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    s->reader.prefetch_lines = prefetch_lines(g);
    if (!g->pages.wanted) {
        /* all-visible pages come whole, for one pass where their rows are of one group (group_page.cpp) */
        if (s->qual == NULL && group_agg_reads_whole_pages(&g->table) &&
            (!s->native || native_quals_of_column(s->native_quals, group_agg_page_pass_attno(&g->table))))
            s->reader.list_all_visible = false;
        return;
    }
    /* all-visible pages come whole, for the GPU; the host lists those it keeps (grouped_pages_take) */
    s->reader.list_all_visible = false;
    if (g->pages.tried || !arguments_are_constants(s))
        return;
    /*
     * Nothing is locked yet: the quals' values (now(), a parameter) are
     * evaluated here, as an index scan evaluates its keys before any row;
     * the scan's own first row would evaluate them all the same.
     */
    grouped_rows_prepare_arguments(g);
    if (s->native && !s->native_quals.prepared)
        native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
    group_agg_lay_out(&g->table, s->args);
    grouped_pages_prepare(&g->pages, host_pages(g), g->keys, g->nkeys, s->pscan != NULL);
}

bool grouped_take_page(ScanExec *s, HeapReader *)
{
    GroupedRows *g = s->grouped;
    return g->pages.wanted && grouped_pages_take(&g->pages, host_pages(g));
}

/*
 * Pages the GPU left, or batches it did not take, are parsed here while a
 * page is taken: their groups may fill the memory bound too.
 */
bool grouped_stop_after_page(ScanExec *s)
{
    GroupingPolicy *p = s->grouped->policy;
    return p->should_emit(p);
}

bool grouped_drain(ScanExec *s)
{
    return grouped_pages_drain(&s->grouped->pages, host_pages(s->grouped));
}

void grouped_end_read(ScanExec *s)
{
    grouped_pages_end_read(&s->grouped->pages, host_pages(s->grouped));
}

/*
 * What the first row that reaches the aggregates needs: the histograms'
 * arguments and the keys' fixed ones, and the keys' tables for the host's
 * rows (the quals have their values then, and narrow the range).
 */
void first_rows(GroupedRows *g)
{
    ScanExec *s = g->s;
    grouped_rows_prepare_arguments(g);
    if (g->host_tables)
        return;
    const NativeQuals none{};
    const KeyRows rows{RelationGetRelid(s->css.ss.ss_currentRelation),
                       s->native && s->native_quals.prepared ? &s->native_quals : &none};
    MemoryContext old = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
    for (int k = 0; k < g->nkeys; k++)
        group_key_host_table(&g->keys[k], rows);
    MemoryContextSwitchTo(old);
    g->host_tables = true;
}

void first_rows_of(void *arg)
{
    first_rows(static_cast<GroupedRows *>(arg));
}

bool grouped_add_tuples(ScanExec *s, HeapReader *r, int n)
{
    GroupedRows *g = s->grouped;
    GroupingPolicy *p = g->policy;
    if (r->whole_page && !g->pages.wanted) {
        /*
         * An all-visible page read whole (grouped_begin_read): read in one
         * pass under its lock, counted unlocked where its rows are of one
         * group; else listed, and added as any other.  Every policy counts
         * the host's rows into the table (grouping_policy.h).
         */
        TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
        const OffsetNumber lines = PageGetMaxOffsetNumber(r->page);
        int64 lo = PG_INT64_MIN, hi = PG_INT64_MAX;
        const bool ranged =
            !s->native || native_quals_exact_range(s->native_quals, group_agg_page_pass_attno(&g->table), &lo, &hi);
        const int read = ranged ? group_agg_page_pass(&g->table, desc, r->page, lines) : -1;
        heap_reader_unlock(r);
        if (read >= 0 && group_agg_add_page_pass(&g->table, read, lo, hi)) {
            heap_reader_count_tuples(r, read);
            heap_reader_release(r);
            g->pages_one_pass++;
            return p->should_emit(p);
        }
        heap_reader_list_lines(r, lines);
        n = r->ntuples;
        if (s->native) {
            /* as read_pages() filters a listed page: the values may be user code, run unlocked */
            if (!s->native_quals.prepared && n > 0)
                native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
            n = native_quals_filter(s->native_quals, desc, r->tuples, n, &s->native_rows);
        }
    }
    heap_reader_unlock(r);
    if (s->qual != NULL || s->native_rows) {
        /* the WHERE clause, row by row with each row's keys and values (group_agg.h) */
        RowGate with_native;
        p->add_rows(p, r->tuples, n,
                    s->native_rows ? row_gate_with_native(&with_native, &g->gate, &s->native_quals,
                                                          RelationGetDescr(s->css.ss.ss_currentRelation))
                                   : &g->gate);
    } else {
        if (n > 0)
            first_rows(g);
        p->add_rows(p, r->tuples, n, NULL);
    }
    heap_reader_release(r);
    grouped_pages_prepare(&g->pages, host_pages(g), g->keys, g->nkeys, s->pscan != NULL);
    grouped_pages_parse_left(&g->pages, host_pages(g));
    return p->should_emit(p);
}

namespace {

/*
 * The input's end, where the plan replaced has sorted every row (its
 * clauses and keys computed, none raising) before its aggregates: the
 * values' errors held back until now (group_agg.h, errors_after_keys).
 */
void raise_held_errors(GroupedRows *g)
{
    leaf_errors_input_ended(g); /* the last leaf raises an earlier one's first */
    if (!g->table.errors_after_keys)
        return;
    group_agg_raise_held(&g->table);
    if (g->pages.pages.nan_deferred)
        group_agg_nan(&g->table);
}

} // namespace

/* Read, add, emit when the policy says so, end. */
TupleTableSlot *grouped_next_row(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    for (;;) {
        switch (g->phase) {
        case GroupedPhase::start:
            if (g->policy == NULL)
                g->policy = choose_policy(g);
            s->args_evaluated = false;
            if (g->policy->start(g->policy)) {
                g->phase = GroupedPhase::reading;
            } else {
                leaf_errors_input_ended(g); /* nothing to read here */
                g->phase = GroupedPhase::done;
            }
            break;
        case GroupedPhase::reading:
            if (scan_read(s)) {
                g->phase = GroupedPhase::emitting;
                break;
            }
            raise_held_errors(g);
            g->phase = GroupedPhase::emitting_end;
            break;
        case GroupedPhase::emitting:
        case GroupedPhase::emitting_end: {
            const bool input_ended = g->phase == GroupedPhase::emitting_end;
            TupleTableSlot *slot = scan_empty_slot(s);
            if (g->policy->emit(g->policy, slot, input_ended))
                return ExecStoreVirtualTuple(slot);
            if (!input_ended) {
                g->flushes++; /* the groups that filled the bound went out, or away: the scan goes on */
                g->phase = GroupedPhase::reading;
                break;
            }
            grouped_rows_counted(g); /* the spilled tuples' values are in them too */
            group_agg_done(&g->table); /* under an Append, the next partition's scan may want the service's room */
            g->phase = GroupedPhase::done;
            break;
        }
        case GroupedPhase::done:
            return NULL;
        }
    }
}

/* What one execution holds: its groups' memory, an area of the scan's own. */
void end_execution(GroupedRows *g)
{
    group_agg_end(&g->table);
    if (g->policy != NULL && g->policy->end != NULL)
        g->policy->end(g->policy);
}

void grouped_end(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    end_execution(g);
    if (g->merge != NULL)
        leaf_merge_end(g);
}

void grouped_rescan(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    end_execution(g);
    if (g->merge != NULL)
        leaf_merge_rescan(g);
    if (g->policy != NULL && g->policy->reset != NULL)
        g->policy->reset(g->policy);
    g->phase = GroupedPhase::start;
    leaf_errors_rescan(g);
    g->totals_recorded = false;
    grouped_pages_reset(&g->pages);
    group_agg_reset(&g->table);
    g->keys_prepared = false; /* new parameter values, perhaps */
}

void grouped_explain_plan(ScanExec *s, List *deparse_context, bool prefix, ExplainState *es)
{
    GroupedRows *g = s->grouped;
    if (g->merge != NULL) /* the other leaves emit no row (leaf_merge.h) */
        ExplainPropertyText("Groups Merged", "every leaf's and process's, emitted once by the last to end", es);
    if (g->nkeys == 0)
        return;
    CustomScan *cscan = reinterpret_cast<CustomScan *>(s->css.ss.ps.plan);
    List *keys = NIL, *how = NIL;
    for (int k = 0; k < g->nkeys; k++) {
        Node *key = reinterpret_cast<Node *>(
            static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, s->naggs + k))->expr);
        keys = lappend(keys, deparse_expression(key, deparse_context, prefix, false));
        how = lappend(how, pstrdup(group_key_describe(&g->keys[k])));
    }
    ExplainPropertyList("Group Key", keys, es);
    ExplainPropertyList("Key Computation", how, es);
}

void grouped_explain_analyze(ScanExec *s, ExplainState *es)
{
    GroupedRows *g = s->grouped;
    if (g->pages.refused != NULL && !s->totals_from_shared)
        ExplainPropertyText("Pages Kept off the GPU by", g->pages.refused, es);
    /*
     * each key natively where its page was parsed, but for the rows (values)
     * the executor computed; a key only the executor computes, by it alone
     */
    if (g->nkeys > 0)
        ExplainPropertyText("Keys Evaluated",
                            scan_evaluated_where(s->totals, !g->pages.keys_by_rows, s->totals.executor_key_rows), es);
    if (g->nkeys == 0 || s->totals_from_shared)
        return;
    ExplainPropertyUInteger("Groups", NULL, g->table.groups_emitted, es);
    if (g->pages_one_pass > 0) /* pages of one group, read once (group_page.cpp) */
        ExplainPropertyUInteger("Pages Read in One Pass", NULL, g->pages_one_pass, es);
    if (g->flushes > 0) /* the GPU's groups outgrew work_mem x hash_mem_multiplier */
        ExplainPropertyUInteger("Group Flushes", NULL, g->flushes, es);
    const TupleSpill &spill = g->table.spill;
    if (spill.tuples_written > 0) { /* the groups outgrew it: their tuples waited, as HashAggregate's do */
        ExplainPropertyUInteger("Spilled Tuples", NULL, spill.tuples_written, es);
        ExplainPropertyUInteger("Spill Passes", NULL, spill.passes, es);
        ExplainPropertyUInteger("Spill Disk Usage", "kB", (spill.bytes_written + 1023) / 1024, es);
    }
    if (s->totals.pages_left > 0) /* a key outside the statistics' range, or rows for the executor */
        ExplainPropertyUInteger("Pages Left by the GPU", NULL, s->totals.pages_left, es);
}

} // namespace

const RowStrategy grouped_rows = {
    grouped_wants,
    true, /* lists_tuples: the groups need each tuple (but begin_read may leave whole pages to take_page) */
    grouped_begin,
    grouped_shared_size,
    grouped_shared_init,
    grouped_shared_reset,
    grouped_shared_attach,
    grouped_begin_read,
    grouped_take_page,
    grouped_stop_after_page,
    grouped_add_tuples,
    grouped_drain,
    grouped_end_read,
    grouped_next_row,
    grouped_rescan,
    grouped_end, /* the groups live in the query's memory; an area of the scan's own is detached */
    grouped_explain_plan,
    grouped_explain_analyze,
};

} // namespace gpu_histogram
