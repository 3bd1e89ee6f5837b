/*
 * rows_grouped.cpp: the row strategy of a scan with GROUP BY keys, or with
 * count(*) / count(col) alongside its histograms (scan_exec.h).
 *
 * Keys and counters may run PostgreSQL's functions (date_trunc's fallback,
 * date_bin, detoasting a text key), so each page is unlocked before its
 * tuples go to scan/group/group_agg.h; its pin keeps them in place.  A row
 * per group comes out: first the scan, then its groups; when the groups
 * fill the memory bound before the end (partial states only), those groups,
 * then the rest of the scan, and so on.
 *
 * Under a Gather with no aggregate above it, the processes merge their
 * groups themselves (scan/group/shared_groups.h): each leaves its groups in
 * the query's shared memory area when it has read its share (or when they
 * fill the memory bound), waits until every process has, and then merges
 * and emits the finished rows of its share of the groups.  A process that
 * ran alone and never outgrew the bound emits its groups as they are.  A
 * serial plan with no aggregate above the scan, or a parallel one run
 * without a parallel context (a portal run in parts gets no workers), is
 * such a process: it makes an area and files of its own only if its groups
 * fill the memory bound.  Unless every group is the GPU's: the GPU's cells
 * hold each group once, complete, so a process alone whose pages all went
 * to the GPU emits each as its row, straight from the cells read back
 * (grouped_pages_next_row), with no table, no memory bound and no merge.
 */
#include "scan_exec.h"

#include "../group/group_agg.h"
#include "../group/shared_groups.h"
#include "../grouped_pages/grouped_pages.h"

#include "../../histogram_state.h"

extern "C" {
#include "nodes/pg_list.h"
#include "storage/lwlock.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
}

struct GroupedRows {
    int nkeys;
    GroupKey *keys;
    bool keys_prepared;
    GroupAgg group_agg;
    bool scanned;     /* the first scan_read() started */
    bool emitting;    /* the groups are being emitted */
    bool scan_paused; /* scan_read() stopped with the groups full */
    bool gpu_groups_pending; /* the GPU's groups filled the memory bound before all were taken */
    bool gpu_rows_direct;    /* every group is the GPU's: each goes out as its row, straight from its cells */
    bool left_any;           /* groups were left in the area this scan (shared_groups_leave) */
    bool replaying;          /* the table is read: the groups come from the spilled tuples' partitions */
    bool totals_recorded;
    uint64 flushes;   /* times the groups were emitted (or left in the area) before the end */
    GroupedPages pages; /* all-visible pages parsed, grouped and counted on the GPU */
    /* the processes merge their groups (shared_groups.h) */
    bool merging;
    SharedGroups *sg;   /* in the scan's DSM, or local_sg */
    dsa_area *area;     /* the query's area, or local_area once one is needed */
    SharedGroups local_sg;
    dsa_area *local_area;
    bool local_files;   /* local_sg's file set is set up */
    GroupSpill spill;   /* this process's groups beyond the area's bound */
    GroupShare share;   /* the groups this process merges and emits */
    uint32 pass;        /* ... one part of its hashes at a time */
    uint32 passes;
    BufFile **parts;    /* with several passes, each part's groups in a temporary file */
    uint64 *part_records;
};

namespace {

/* parts of a share, each an open temporary file with a block of buffer while they are written */
constexpr uint64 kMaxParts = 256;

void begin(ScanExec *s, CustomScan *cscan, EState *estate)
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
    g->merging = !s->partial && g->nkeys > 0;
    group_agg_init(&g->group_agg, s->aggs, s->naggs, g->keys, g->nkeys, desc, estate->es_query_cxt,
                   (s->partial || g->merging) && g->nkeys > 0);
    grouped_pages_init(&g->pages, s->aggs, s->naggs, g->keys, g->nkeys, s->qual != NULL, estate->es_query_cxt);
    s->grouped = g;
}

/* What the GPU's grouped pages need to parse a page here instead. */
HostPages host_pages(ScanExec *s)
{
    return HostPages{s->css.ss.ss_currentRelation, s->native ? &s->native_quals : NULL, &s->grouped->group_agg,
                     s->args, &s->reader};
}

/* The histograms' arguments and the keys' fixed arguments, once per scan (user code: no page locked). */
void prepare_arguments(ScanExec *s)
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
            if (!IsA(s->arg_states[3 * h + i]->expr, Const))
                return false;
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

void begin_read(ScanExec *s)
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
    prepare_arguments(s);
    if (s->native && !s->native_quals.prepared)
        native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
    group_agg_lay_out(&g->group_agg, s->args);
    grouped_pages_prepare(&g->pages, host_pages(s), g->keys, g->nkeys, s->pscan != NULL);
}

bool take_page(ScanExec *s, HeapReader *)
{
    GroupedRows *g = s->grouped;
    return g->pages.wanted && grouped_pages_take(&g->pages, host_pages(s));
}

/*
 * Pages the GPU left, or batches it did not take, are parsed here while a
 * page is taken: their groups may fill the memory bound too.
 */
bool stop_after_page(ScanExec *s)
{
    return group_agg_full(&s->grouped->group_agg);
}

bool drain(ScanExec *s)
{
    return grouped_pages_drain(&s->grouped->pages, host_pages(s));
}

void end_read(ScanExec *s)
{
    grouped_pages_end_read(&s->grouped->pages, host_pages(s));
}

bool add_tuples(ScanExec *s, HeapReader *r, int n)
{
    GroupedRows *g = s->grouped;
    heap_reader_unlock(r);
    if (n > 0)
        prepare_arguments(s);
    group_agg_add(&g->group_agg, RelationGetDescr(s->css.ss.ss_currentRelation), r->tuples, n, s->args);
    heap_reader_release(r);
    grouped_pages_prepare(&g->pages, host_pages(s), g->keys, g->nkeys, s->pscan != NULL);
    grouped_pages_parse_left(&g->pages, host_pages(s));
    return group_agg_full(&g->group_agg);
}

/* The area the groups are left in: the query's, or one of this process's own, made when first needed. */
dsa_area *merge_area(GroupedRows *g)
{
    if (g->area == NULL) {
        g->local_area = dsa_create(LWTRANCHE_PARALLEL_QUERY_DSA);
        g->area = g->local_area;
    }
    return g->area;
}

/*
 * The table is read, and every group with rows is in the GPU's cells, each
 * once and complete: this process ran alone (no other process's groups to
 * merge), left nothing in the area, and counted no row on the host.  A
 * scan without keys keeps the table, which gives its one row even empty.
 */
bool gpu_groups_alone(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    return g->nkeys > 0 && s->shared == NULL && !g->left_any && grouped_pages_hold_groups(&g->pages) &&
           (!g->group_agg.laid_out || g->group_agg.table.ngroups == 0);
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

/* Before the first block: false if every process that joined already finished. */
bool join_merge(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    if (s->shared != NULL) {
        g->sg = &s->shared->groups;
        g->area = s->area;
    } else {
        /* no parallel context (a portal run in parts, or no shared memory): this process is alone */
        if (!g->local_files) {
            /* once: the files go with the query's memory, after an error too */
            shared_groups_init(&g->local_sg);
            shared_groups_init_local_files(&g->local_sg, s->css.ss.ps.state->es_query_cxt);
            g->local_files = true;
        } else {
            shared_groups_reset(&g->local_sg, NULL); /* its area went at end() */
        }
        g->sg = &g->local_sg;
    }
    return shared_groups_join(g->sg);
}

/* Pass g->pass of this process's share into an empty table (some process counted a row: the arguments are known). */
void merge_pass(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    group_agg_restart(&g->group_agg);
    prepare_arguments(s);
    group_agg_lay_out(&g->group_agg, s->args);
    if (g->passes == 1) {
        shared_groups_merge(g->sg, g->area, &g->group_agg.table, g->share);
    } else {
        shared_groups_merge_part(&g->group_agg.table, g->parts[g->pass], g->part_records[g->pass]);
        BufFileClose(g->parts[g->pass]); /* a temporary file: gone once closed */
        g->parts[g->pass] = NULL;
    }
    g->group_agg.collected = true; /* every cell is in the table: none is on the GPU */
}

/*
 * This process read its share of the table and its groups are collected:
 * it leaves them, waits for the others, and merges its share of everyone's
 * groups (the first pass of it).  false if no process counted a row.
 */
bool finish_merge(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    GroupAgg *ga = &g->group_agg;
    if (shared_groups_close_alone(g->sg)) {
        /* no other process took part and none of its groups were left: they are all here */
        g->passes = 1;
        return ga->laid_out;
    }
    if (ga->laid_out)
        shared_groups_leave(g->sg, merge_area(g), &ga->table, &g->spill);
    group_agg_restart(ga);
    g->share = shared_groups_finish(g->sg, &g->spill);
    if (g->share.bytes == 0)
        return false;
    const uint64 mine = g->share.bytes / static_cast<uint64>(Max(g->share.shares, 1));
    const uint64 limit = Max(static_cast<uint64>(get_hash_memory_limit()), 1);
    /* as HashAggregate's spill: each part of the share fits the memory bound (up to kMaxParts) */
    g->passes = static_cast<uint32>(Min(mine / limit + 1, static_cast<uint64>(kMaxParts)));
    g->pass = 0;
    if (g->passes > 1) {
        /* laid out for the counters' number, which a process that counted no row does not know yet */
        group_agg_restart(ga);
        prepare_arguments(s);
        group_agg_lay_out(ga, s->args);
        g->parts = static_cast<BufFile **>(palloc0(sizeof(BufFile *) * g->passes));
        g->part_records = static_cast<uint64 *>(palloc0(sizeof(uint64) * g->passes));
        for (uint32 p = 0; p < g->passes; p++)
            g->parts[p] = BufFileCreateTemp(false);
        shared_groups_partition(g->sg, g->area, g->share, g->group_agg.table.ncells, g->parts, g->part_records,
                                g->passes);
    }
    elog(DEBUG1, "gpu_histogram scan: this process merges share %d of %d of %llu bytes of groups in %u pass%s",
         g->share.index + 1, g->share.shares, static_cast<unsigned long long>(g->share.bytes), g->passes,
         g->passes == 1 ? "" : "es");
    merge_pass(s);
    return true;
}

/*
 * The table is read and its groups went out or were left: the next
 * partition of the tuples the memory bound refused, counted into the
 * emptied table.  false if none waited.
 */
bool replay_next(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    prepare_arguments(s);
    g->replaying = true;
    if (!group_agg_replay(&g->group_agg, RelationGetDescr(s->css.ss.ss_currentRelation), s->args))
        return false;
    group_agg_collect(&g->group_agg);
    return true;
}

/*
 * Whether the groups of the spill's passes may go out as rows as they
 * are: a key is then in one pass only, the table's or one partition's.
 * Partial states may repeat a key (the Finalize Aggregate combines them);
 * finished rows may not, so a process alone emits them only if it left no
 * group in the area and the GPU's cells (whose keys may have spilled
 * tuples too) hold none; otherwise each pass's groups are left for the
 * merge like any others.
 */
bool passes_emit_directly(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    return !g->merging || (s->shared == NULL && !g->left_any && !grouped_pages_hold_groups(&g->pages));
}

TupleTableSlot *next_row(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    for (;;) {
        if (!g->emitting) {
            if (!g->scanned) {
                g->scanned = true;
                s->args_evaluated = false;
                if (g->merging && !join_merge(s))
                    return NULL; /* every block was taken and every process finished */
            }
            if (!g->gpu_groups_pending && !g->replaying)
                g->scan_paused = scan_read(s);
            /*
             * The GPU's groups, once the table is read: each straight out as its row when they are all
             * there is (the totals first, so that a LIMIT above still has them), else into the table
             * as many at a time as the memory bound holds.
             */
            if (!g->replaying && !g->scan_paused && !g->gpu_groups_pending && !group_agg_spilled(&g->group_agg) &&
                gpu_groups_alone(s)) {
                grouped_pages_begin_rows(&g->pages, &s->reader);
                record_totals(s);
                g->gpu_rows_direct = true;
                g->emitting = true;
                continue;
            }
            if (!g->replaying && !g->scan_paused)
                g->gpu_groups_pending = grouped_pages_collect(&g->pages, &g->group_agg, &s->reader);
            group_agg_collect(&g->group_agg);
            if (g->merging && (g->scan_paused || g->gpu_groups_pending)) {
                /* the groups fill the memory bound: leave them in the area, and go on with none */
                shared_groups_leave(g->sg, merge_area(g), &g->group_agg.table, &g->spill);
                group_agg_restart(&g->group_agg);
                g->flushes++;
                g->left_any = true;
                continue;
            }
            if (!g->scan_paused && !g->gpu_groups_pending && group_agg_spilled(&g->group_agg) &&
                !passes_emit_directly(s)) {
                /* tuples wait in the spill: these groups are left for the merge, then the next partition's */
                if (g->group_agg.laid_out)
                    shared_groups_leave(g->sg, merge_area(g), &g->group_agg.table, &g->spill);
                group_agg_restart(&g->group_agg);
                g->left_any = true;
                replay_next(s);
                continue;
            }
            if (!g->scan_paused && !g->gpu_groups_pending && !group_agg_spilled(&g->group_agg))
                record_totals(s);
            if (g->merging && !g->gpu_groups_pending && !finish_merge(s)) {
                group_agg_done(&g->group_agg);
                return NULL;
            }
            g->emitting = true;
        }
        TupleTableSlot *slot = scan_empty_slot(s);
        if (g->gpu_rows_direct) {
            const uint64 before = g->group_agg.values_gpu;
            if (grouped_pages_next_row(&g->pages, &g->group_agg, &s->reader, slot, s->partial)) {
                s->totals.values_gpu += g->group_agg.values_gpu - before; /* each row's, as it goes */
                return ExecStoreVirtualTuple(slot);
            }
            group_agg_done(&g->group_agg);
            return NULL;
        }
        if (group_agg_next(&g->group_agg, slot, s->partial))
            return ExecStoreVirtualTuple(slot);
        if (g->pass + 1 < g->passes) { /* several passes: this process merges its share part by part */
            g->pass++;
            merge_pass(s);
            continue;
        }
        if (!g->scan_paused && !g->gpu_groups_pending && group_agg_spilled(&g->group_agg)) {
            /* every group of the table went out: the next partition's, each key in one pass only */
            group_agg_restart(&g->group_agg);
            replay_next(s);
            continue;
        }
        if (!g->scan_paused && !g->gpu_groups_pending) {
            if (!g->totals_recorded) /* the spilled tuples' values are in them too */
                record_totals(s);
            /* under an Append, the next partition's scan may want the service's room */
            group_agg_done(&g->group_agg);
            return NULL;
        }
        group_agg_restart(&g->group_agg);
        g->emitting = false;
        g->flushes++;
    }
}

void end(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    group_agg_end(&g->group_agg);
    shared_groups_spill_close(&g->spill);
    for (uint32 p = 0; g->parts != NULL && p < g->passes; p++)
        if (g->parts[p] != NULL)
            BufFileClose(g->parts[p]);
    g->parts = NULL;
    if (g->local_area != NULL)
        dsa_detach(g->local_area);
    g->local_area = NULL;
    g->area = NULL;
}

void rescan(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    end(s); /* the leader's rescan resets the shared groups (reinitialize_dsm) */
    g->sg = NULL;
    g->share = GroupShare{};
    g->pass = g->passes = 0;
    g->scanned = false;
    g->emitting = false;
    g->scan_paused = false;
    g->gpu_groups_pending = false;
    g->gpu_rows_direct = false;
    g->left_any = false;
    g->replaying = false;
    g->totals_recorded = false;
    grouped_pages_reset(&g->pages);
    group_agg_reset(&g->group_agg);
    g->keys_prepared = false; /* new parameter values, perhaps */
}

void explain_plan(ScanExec *s, List *deparse_context, bool prefix, ExplainState *es)
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

void explain_analyze(ScanExec *s, ExplainState *es)
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
    begin,
    begin_read,
    take_page,
    stop_after_page,
    add_tuples,
    drain,
    end_read,
    next_row,
    rescan,
    end, /* the groups live in the query's memory; an area of the scan's own is detached */
    explain_plan,
    explain_analyze,
};
