/*
 * rows_grouped.cpp: the row strategy of a scan with GROUP BY keys, or with
 * count(*) / count(col) alongside its histograms (scan_exec.h).
 *
 * Keys and counters may run PostgreSQL's functions (date_trunc's fallback,
 * date_bin, detoasting a text key), so each page is unlocked before its
 * tuples go to scan/group/group_agg.h; its pin keeps them in place.  A row
 * per group comes out: first the scan, then its groups; when the groups
 * fill the memory bound before the end, they go out or are put away, then
 * the rest of the scan, and so on; tuples whose groups found no room wait
 * in the spill and are counted a partition at a time once the table is
 * read.  Where the groups are kept, where they go when the bound fills,
 * and where the rows come from is the grouping policy's
 * (grouping_policy.h): the table's rows, the processes' shared merge, or
 * the GPU's cells.
 */
#include "grouping_policy.h"

#include "../../histogram_state.h"

extern "C" {
#include "nodes/pg_list.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
}

namespace {

void grouped_begin(ScanExec *s, CustomScan *cscan, EState *estate)
{
    GroupedRows *g = static_cast<GroupedRows *>(palloc0(sizeof(GroupedRows)));
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    g->nkeys = intVal(lsecond(cscan->custom_private));
    g->keys = static_cast<GroupKey *>(palloc0(sizeof(GroupKey) * Max(g->nkeys, 1)));
    for (int k = 0; k < g->nkeys; k++) {
        Expr *target = static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, s->naggs + k))->expr;
        GroupKeyDef def;
        if (!group_key_parse(target, cscan->scan.scanrelid, &def))
            elog(ERROR, "gpu_histogram scan: unexpected group key %d", k + 1);
        group_key_init(&g->keys[k], def, desc, &s->css.ss.ps);
    }
    /* finished rows: the processes of a parallel scan, or a serial scan alone, merge the groups themselves */
    const bool merging = !s->partial && g->nkeys > 0;
    g->first_policy = merging ? &shared_groups_grouping : &group_table_grouping;
    g->policy = g->first_policy;
    group_agg_init(&g->group_agg, s->aggs, s->naggs, g->keys, g->nkeys, desc, estate->es_query_cxt,
                   (s->partial || merging) && g->nkeys > 0);
    grouped_pages_init(&g->pages, s->aggs, s->naggs, g->keys, g->nkeys, s->qual != NULL, estate->es_query_cxt);
    s->grouped = g;
    if (g->policy->begin != NULL)
        g->policy->begin(s);
}

/* What the GPU's grouped pages need to parse a page here instead. */
HostPages host_pages(ScanExec *s)
{
    return HostPages{s->css.ss.ss_currentRelation, s->native ? &s->native_quals : NULL, &s->grouped->group_agg,
                     s->args, &s->reader};
}

} // namespace

void grouped_rows_prepare_arguments(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    if (!s->args_evaluated) {
        scan_evaluate_args(s);
        s->args_evaluated = true;
    }
    if (!g->keys_prepared) {
        for (int k = 0; k < g->nkeys; k++)
            group_key_prepare(&g->keys[k], s->css.ss.ps.ps_ExprContext);
        g->keys_prepared = true;
    }
}

namespace {

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

void grouped_begin_read(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    if (!g->pages.wanted)
        return;
    /* all-visible pages come whole, for the GPU; the host lists those it keeps (grouped_pages_take) */
    s->reader.list_all_visible = false;
    if (g->pages.tried || !arguments_are_constants(s))
        return;
    /*
     * Nothing is locked yet: the quals' values (now(), a parameter) are
     * evaluated here, as an index scan evaluates its keys before any row;
     * the scan's own first row would evaluate them all the same.
     */
    grouped_rows_prepare_arguments(s);
    if (s->native && !s->native_quals.prepared)
        native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
    group_agg_lay_out(&g->group_agg, s->args);
    grouped_pages_prepare(&g->pages, host_pages(s), g->keys, g->nkeys, s->pscan != NULL);
}

bool grouped_take_page(ScanExec *s, HeapReader *)
{
    GroupedRows *g = s->grouped;
    return g->pages.wanted && grouped_pages_take(&g->pages, host_pages(s));
}

/*
 * Pages the GPU left, or batches it did not take, are parsed here while a
 * page is taken: their groups may fill the memory bound too.
 */
bool grouped_stop_after_page(ScanExec *s)
{
    return group_agg_full(&s->grouped->group_agg);
}

bool grouped_drain(ScanExec *s)
{
    return grouped_pages_drain(&s->grouped->pages, host_pages(s));
}

void grouped_end_read(ScanExec *s)
{
    grouped_pages_end_read(&s->grouped->pages, host_pages(s));
}

/*
 * What the first row that reaches the aggregates needs: the histograms'
 * arguments and the keys' fixed ones, and the keys' tables for the host's
 * rows (the quals have their values then, and narrow the range).
 */
void first_rows(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    grouped_rows_prepare_arguments(s);
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
    first_rows(static_cast<ScanExec *>(arg));
}

bool grouped_add_tuples(ScanExec *s, HeapReader *r, int n)
{
    GroupedRows *g = s->grouped;
    heap_reader_unlock(r);
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    if (s->qual != NULL) {
        /* the WHERE clause, row by row with each row's keys and values (group_agg.h) */
        const RowGate gate{s->qual, s->css.ss.ps.ps_ExprContext, s->heap_slot, first_rows_of, s};
        group_agg_add(&g->group_agg, desc, r->tuples, n, s->args, &gate);
    } else {
        if (n > 0)
            first_rows(s);
        group_agg_add(&g->group_agg, desc, r->tuples, n, s->args);
    }
    heap_reader_release(r);
    grouped_pages_prepare(&g->pages, host_pages(s), g->keys, g->nkeys, s->pscan != NULL);
    grouped_pages_parse_left(&g->pages, host_pages(s));
    return group_agg_full(&g->group_agg);
}

/* Every value is counted: the scan's totals, for EXPLAIN, the statistics and the planner. */
void record_totals(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    g->totals_recorded = true;
    gh_values_binned_on_cpu += g->group_agg.values_binned;
    scan_record_totals(s, g->pages.active ? &g->pages.pages : NULL, g->group_agg.values_binned,
                       g->group_agg.values_gpu);
}

/*
 * The table is read and its groups went out or were left: the next
 * partition of the tuples the memory bound refused, counted into the
 * emptied table.  false if none waited.
 */
bool replay_next(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    grouped_rows_prepare_arguments(s);
    g->replaying = true;
    if (!group_agg_replay(&g->group_agg, RelationGetDescr(s->css.ss.ss_currentRelation), s->args))
        return false;
    group_agg_collect(&g->group_agg);
    return true;
}

/* Whether the scan stopped before the table's end, or the GPU's groups before all were taken. */
bool stopped_early(const GroupedRows *g)
{
    return g->scan_paused || g->gpu_groups_pending;
}

TupleTableSlot *grouped_next_row(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    GroupAgg *ga = &g->group_agg;
    for (;;) {
        if (!g->emitting) {
            if (!g->scanned) {
                g->scanned = true;
                s->args_evaluated = false;
                if (!g->policy->start(s))
                    return NULL; /* every block was taken and every process finished */
            }
            if (!g->gpu_groups_pending && !g->replaying)
                g->scan_paused = scan_read(s);
            /*
             * The GPU's groups, once the table is read: each straight out as its row when they are all
             * there is (the totals first, so that a LIMIT above still has them), else into the table
             * as many at a time as the memory bound holds.
             */
            if (!g->replaying && !stopped_early(g) && !group_agg_spilled(ga) && gpu_cells_hold_every_group(s)) {
                g->policy = &gpu_cells_grouping;
                g->policy->finish(s);
                record_totals(s);
                g->emitting = true;
                continue;
            }
            if (!g->replaying && !g->scan_paused)
                g->gpu_groups_pending = grouped_pages_collect(&g->pages, ga, &s->reader);
            group_agg_collect(ga);
            if (stopped_early(g) && g->policy->put_away(s)) {
                /* the groups fill the memory bound: put away, and the scan goes on with none */
                g->flushes++;
                continue;
            }
            if (!stopped_early(g) && group_agg_spilled(ga) && !g->policy->rows_before_spill(s)) {
                /* tuples wait in the spill: these groups are put away, then the next partition's counted */
                g->policy->put_away(s);
                replay_next(s);
                continue;
            }
            if (!stopped_early(g) && !group_agg_spilled(ga))
                record_totals(s);
            if (!stopped_early(g) && !g->policy->finish(s)) {
                group_agg_done(ga);
                return NULL;
            }
            g->emitting = true;
        }
        TupleTableSlot *slot = scan_empty_slot(s);
        if (g->policy->next_row(s, slot))
            return ExecStoreVirtualTuple(slot);
        if (!stopped_early(g) && group_agg_spilled(ga)) {
            /* every group of the table went out: the next partition's, each key in one pass only */
            group_agg_restart(ga);
            replay_next(s);
            continue;
        }
        if (!stopped_early(g)) {
            if (!g->totals_recorded) /* the spilled tuples' values are in them too */
                record_totals(s);
            /* under an Append, the next partition's scan may want the service's room */
            group_agg_done(ga);
            return NULL;
        }
        /* the groups that filled the memory bound went out: the scan goes on */
        group_agg_restart(ga);
        g->emitting = false;
        g->flushes++;
    }
}

void grouped_end(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    group_agg_end(&g->group_agg);
    /* the policy the scan started with holds what there is to give back; the GPU's cells hold nothing here */
    if (g->first_policy->end != NULL)
        g->first_policy->end(s);
}

void grouped_rescan(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    grouped_end(s);
    if (g->first_policy->rescan != NULL)
        g->first_policy->rescan(s);
    g->policy = g->first_policy;
    g->scanned = false;
    g->emitting = false;
    g->scan_paused = false;
    g->gpu_groups_pending = false;
    g->replaying = false;
    g->totals_recorded = false;
    grouped_pages_reset(&g->pages);
    group_agg_reset(&g->group_agg);
    g->keys_prepared = false; /* new parameter values, perhaps */
}

void grouped_explain_plan(ScanExec *s, List *deparse_context, bool prefix, ExplainState *es)
{
    GroupedRows *g = s->grouped;
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
    if (g->nkeys == 0 || s->totals_from_shared)
        return;
    ExplainPropertyUInteger("Groups", NULL, g->group_agg.groups_emitted, es);
    if (g->flushes > 0) /* the GPU's groups outgrew work_mem x hash_mem_multiplier */
        ExplainPropertyUInteger("Group Flushes", NULL, g->flushes, es);
    const TupleSpill &spill = g->group_agg.spill;
    if (spill.tuples_written > 0) { /* the groups outgrew it: their tuples waited, as HashAggregate's do */
        ExplainPropertyUInteger("Spilled Tuples", NULL, spill.tuples_written, es);
        ExplainPropertyUInteger("Spill Passes", NULL, spill.passes, es);
        ExplainPropertyUInteger("Spill Disk Usage", "kB", (spill.bytes_written + 1023) / 1024, es);
    }
    if (g->pages.active && g->pages.pages_left > 0) /* a key outside the statistics' range */
        ExplainPropertyUInteger("Pages Left by the GPU", NULL, g->pages.pages_left, es);
}

} // namespace

const RowStrategy grouped_rows = {
    true, /* lists_tuples: the groups need each tuple (but begin_read may leave whole pages to take_page) */
    grouped_begin,
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
