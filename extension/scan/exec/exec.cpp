/*
 * exec.cpp: running GpuHistogramScan.
 *
 * The first call computes everything: the scan reads its share of the
 * table's pages (heap_reader.cpp) and aggregates their visible tuples in one
 * of two ways.
 *   - Histograms only, no GROUP BY: it copies each histogram's column out of
 *     the page while the share lock is held and appends the values to the
 *     histogram's state (the same HistogramState the aggregate uses, so the
 *     same batches, GPU policy and errors); one row comes out.
 *   - GROUP BY keys, or counts alongside: group_agg.h counts each tuple into
 *     its group's cells, after the page is unlocked; a row per group.
 * The rows are the finished aggregates, or under a Gather the serialized
 * partial states that the leader's Finalize Aggregate combines.  A WHERE
 * clause is evaluated on each visible tuple after the page is unlocked, as
 * heapam's page mode returns tuples, or natively (native_quals.h).
 */
#include "../scan_node.h"
#include "../group/group_agg.h"
#include "../heap/heap_reader.h"
#include "../quals/native_quals.h"
#include "../offload/page_gpu.h"

#include "../../errors.h"
#include "../../histogram_state.h"
#include "../../settings.h"

extern "C" {
#include "access/parallel.h"
#include "access/tableam.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "port/atomics.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
}
#include "../../pg_compat.h"

namespace {

/* Where the values went, for EXPLAIN ANALYZE. */
struct ScanTotals {
    HeapReadCounters read;
    uint64 pages_gpu;
    uint64 values_cpu;
    uint64 values_gpu;
};

/* In the parallel query's DSM: the counters, the shared block scan, then the buffer hints. */
struct SharedScan {
    pg_atomic_uint64 pages;
    pg_atomic_uint64 all_visible_pages;
    pg_atomic_uint64 tuples;
    pg_atomic_uint64 pages_gpu;
    pg_atomic_uint64 values_cpu;
    pg_atomic_uint64 values_gpu;
};
constexpr Size kSharedHeader = MAXALIGN(sizeof(SharedScan));

struct ScanExecState {
    CustomScanState css;
    int nhist;                /* aggregates: histograms, and counts when grouped */
    bool partial;             /* emit serialized partial states */
    ScanAggregate *aggs;
    HeapColumn *columns;
    ExprState **arg_states;   /* lo, hi, nbins of each histogram */
    HistogramArgs *args;
    bool *skip;               /* args[h].skip, as page_gpu.h takes it */
    bool args_evaluated;      /* at the first row that passes the quals, as the aggregate does */
    ExprState *qual;          /* the WHERE clause, through the executor ... */
    bool native;              /* ... or evaluated natively (native_quals.h) */
    NativeQuals native_quals;
    TupleTableSlot *heap_slot;
    MemoryContext states_cxt; /* the histogram states and the results */
    HistogramState **states;
    int nkeys;
    GroupKey *keys;
    bool grouped;             /* group_agg.h aggregates: keys, or counts alongside */
    bool keys_prepared;
    GroupAgg group_agg;
    bool pages;               /* ungrouped, no WHERE: pages may go to the GPU (page_gpu.h) */
    PageGpu page_gpu;
    double *page_values;      /* nhist * MaxHeapTuplesPerPage */
    const double **page_start; /* each histogram's values of the page ... */
    int *page_counts;          /* ... and how many */
    SharedScan *shared;
    ParallelBlockTableScanDesc pscan;
    BlockNumber hinted_blocks; /* the table's size when the DSM was sized */
    BufferHints shared_hints;
    bool done;
    bool scanned;
    bool reader_active;       /* scan_pages() paused: the grouped scan's groups were full */
    bool emitting;            /* the grouped scan emits its groups */
    bool scan_paused;
    uint64 flushes;           /* times the groups were emitted before the end */
    bool totals_from_shared;
    ScanTotals totals;
    HeapReader reader;
};

ScanExecState *scan_state(CustomScanState *node)
{
    return reinterpret_cast<ScanExecState *>(node);
}

/* A scan-tlist entry's expression, its table Vars read from the heap tuple in the scan slot. */
Node *heap_tuple_vars(Node *node, void *context)
{
    if (node == NULL)
        return NULL;
    if (IsA(node, Var)) {
        Var *var = static_cast<Var *>(copyObjectImpl(node));
        var->varno = INDEX_VAR;
        return reinterpret_cast<Node *>(var);
    }
    return expression_tree_mutator(node, GH_MUTATOR(heap_tuple_vars), context);
}

/*
 * setrefs.c turned every subexpression of the quals that equals an entry of
 * custom_scan_tlist into a reference to it: a column, or a GROUP BY key's
 * expression when the WHERE clause repeats it (a HAVING clause on the key,
 * or a view's qual pushed down on its key column, end up there too).  The
 * quals run on the heap tuple before any key is computed, so each reference
 * becomes the entry's own expression over the table's attributes again, as
 * the ordinary plan evaluates it.
 */
Node *table_vars_mutator(Node *node, List *scan_tlist)
{
    if (node == NULL)
        return NULL;
    if (IsA(node, Var) && reinterpret_cast<Var *>(node)->varno == INDEX_VAR) {
        Var *ref = reinterpret_cast<Var *>(node);
        Expr *target = static_cast<TargetEntry *>(list_nth(scan_tlist, ref->varattno - 1))->expr;
        return heap_tuple_vars(reinterpret_cast<Node *>(target), NULL);
    }
    return expression_tree_mutator(node, GH_MUTATOR(table_vars_mutator), scan_tlist);
}

void begin_scan(CustomScanState *node, EState *estate, int)
{
    ScanExecState *s = scan_state(node);
    CustomScan *cscan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
    TupleDesc desc = RelationGetDescr(node->ss.ss_currentRelation);

    s->nhist = intVal(linitial(cscan->custom_private));
    s->nkeys = intVal(lsecond(cscan->custom_private));
    s->aggs = static_cast<ScanAggregate *>(palloc0(sizeof(ScanAggregate) * s->nhist));
    s->columns = static_cast<HeapColumn *>(palloc0(sizeof(HeapColumn) * s->nhist));
    s->arg_states = static_cast<ExprState **>(palloc0(sizeof(ExprState *) * 3 * s->nhist));
    s->args = static_cast<HistogramArgs *>(palloc0(sizeof(HistogramArgs) * s->nhist));
    s->skip = static_cast<bool *>(palloc0(sizeof(bool) * s->nhist));
    s->states = static_cast<HistogramState **>(palloc0(sizeof(HistogramState *) * s->nhist));
    s->page_values = static_cast<double *>(palloc(sizeof(double) * MaxHeapTuplesPerPage * s->nhist));
    s->page_start = static_cast<const double **>(palloc0(sizeof(double *) * s->nhist));
    s->page_counts = static_cast<int *>(palloc0(sizeof(int) * s->nhist));
    for (int h = 0; h < s->nhist; h++) {
        Expr *target = static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, h))->expr;
        Aggref *aggref = reinterpret_cast<Aggref *>(target);
        HistogramCall &call = s->aggs[h].call;
        if (!IsA(aggref, Aggref))
            elog(ERROR, "gpu_histogram scan: unexpected scan target %d", h + 1);
        s->partial = DO_AGGSPLIT_SKIPFINAL(aggref->aggsplit);
        if (count_call_parse(aggref, cscan->scan.scanrelid, &s->aggs[h])) {
            s->grouped = true;
            continue;
        }
        if (!histogram_call_parse(aggref, cscan->scan.scanrelid, &call))
            elog(ERROR, "gpu_histogram scan: unexpected scan target %d", h + 1);
        s->aggs[h].kind = AggKind::histogram;
        s->columns[h] = heap_column(desc, call.attno, call.coltype);
        s->arg_states[3 * h] = ExecInitExpr(call.lo, &node->ss.ps);
        s->arg_states[3 * h + 1] = ExecInitExpr(call.hi, &node->ss.ps);
        s->arg_states[3 * h + 2] = ExecInitExpr(call.nbins, &node->ss.ps);
    }
    s->keys = static_cast<GroupKey *>(palloc0(sizeof(GroupKey) * Max(s->nkeys, 1)));
    for (int k = 0; k < s->nkeys; k++) {
        Expr *target = static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, s->nhist + k))->expr;
        GroupKeyDef def;
        if (!group_key_parse(target, cscan->scan.scanrelid, &def))
            elog(ERROR, "gpu_histogram scan: unexpected group key %d", k + 1);
        group_key_init(&s->keys[k], def, desc, &node->ss.ps);
        s->grouped = true;
    }
    List *quals = reinterpret_cast<List *>(
        table_vars_mutator(reinterpret_cast<Node *>(cscan->custom_exprs), cscan->custom_scan_tlist));
    s->heap_slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsHeapTuple);
    s->native = native_quals_build(quals, desc, &node->ss.ps, &s->native_quals);
    if (s->native)
        quals = NIL;
    /*
     * The quals read heap tuples, not the node's virtual scan slot: compile
     * them for that slot type, so that their Vars deform the tuple.
     */
    PlanState *ps = &node->ss.ps;
    TupleDesc scan_desc = ps->scandesc;
    const TupleTableSlotOps *scan_ops = ps->scanops;
    bool fixed = ps->scanopsfixed, set = ps->scanopsset;
    ps->scandesc = desc;
    ps->scanops = &TTSOpsHeapTuple;
    ps->scanopsfixed = ps->scanopsset = true;
    s->qual = ExecInitQual(quals, ps);
    ps->scandesc = scan_desc;
    ps->scanops = scan_ops;
    ps->scanopsfixed = fixed;
    ps->scanopsset = set;
    s->states_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuHistogramScan", ALLOCSET_DEFAULT_SIZES);
    if (s->grouped)
        group_agg_init(&s->group_agg, s->aggs, s->nhist, s->keys, s->nkeys, desc, estate->es_query_cxt,
                       s->partial && s->nkeys > 0);
    s->pages = !s->grouped && s->qual == NULL && !s->native;
}

void evaluate_args(ScanExecState *s)
{
    ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
    for (int h = 0; h < s->nhist; h++) {
        if (s->aggs[h].kind != AggKind::histogram)
            continue;
        bool lo_null, hi_null, nbins_null;
        Datum lo = ExecEvalExprSwitchContext(s->arg_states[3 * h], econtext, &lo_null);
        Datum hi = ExecEvalExprSwitchContext(s->arg_states[3 * h + 1], econtext, &hi_null);
        Datum nbins = ExecEvalExprSwitchContext(s->arg_states[3 * h + 2], econtext, &nbins_null);
        HistogramArgs &a = s->args[h];
        a.skip = lo_null || hi_null || nbins_null;
        a.lo = a.skip ? 0 : DatumGetFloat8(lo);
        a.hi = a.skip ? 0 : DatumGetFloat8(hi);
        a.nbins = a.skip ? 0 : DatumGetInt32(nbins);
        s->skip[h] = a.skip;
    }
    ResetExprContext(econtext);
}

/* Keeps the tuples of the current page that pass the WHERE clause. */
int filter_tuples(ScanExecState *s, HeapReader *r)
{
    ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
    int kept = 0;
    for (int i = 0; i < r->ntuples; i++) {
        ExecStoreHeapTuple(&r->tuples[i], s->heap_slot, false);
        econtext->ecxt_scantuple = s->heap_slot;
        bool pass = ExecQual(s->qual, econtext);
        ResetExprContext(econtext);
        if (pass)
            r->tuples[kept++] = r->tuples[i];
    }
    ExecClearTuple(s->heap_slot);
    return kept;
}

/*
 * Appends one page's values to a histogram; the first value creates the
 * state after checking the arguments as the aggregate checks its first row.
 */
void append_page(ScanExecState *s, int h)
{
    const double *values = s->page_start[h];
    int n = s->page_counts[h];
    if (n == 0 || s->args[h].skip)
        return;
    if (s->states[h] == NULL) {
        const HistogramArgs &a = s->args[h];
        s->states[h] = histogram_state_create(s->states_cxt, gh::float_histogram(checked_first_row_spec(values[0], a.lo, a.hi, a.nbins)));
        if (s->pages)
            page_gpu_keep_values_on_cpu(&s->page_gpu, s->states[h]);
    }
    histogram_state_append_many(s->states[h], values, n);
}

/* A batch of pinned pages the GPU did not take: their values, as append_page() would add them. */
void parse_batch(ScanExecState *s, PageBatch *b)
{
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    uint64 tuples = 0;
    for (int i = 0; i < b->npages; i++) {
        Page page = BufferGetPage(b->buffers[i]);
        int ntuples = -1;
        for (int h = 0; h < s->nhist; h++) {
            if (s->skip[h])
                continue;
            double *buf = s->page_values + static_cast<Size>(h) * MaxHeapTuplesPerPage;
            int k = heap_page_column_values(s->columns[h], desc, page, b->lines[i], buf, &ntuples);
            histogram_state_append_many(s->states[h], buf + MaxHeapTuplesPerPage - k, k);
        }
        tuples += ntuples >= 0 ? ntuples : heap_page_normal_tuples(page, b->lines[i]);
    }
    heap_reader_count_tuples(&s->reader, tuples);
    page_gpu_parsed_on_cpu(&s->page_gpu, b);
    page_gpu_release(b);
}

/*
 * A grouped scan's page: keys and counters may run PostgreSQL's functions
 * (date_trunc's fallback, date_bin, detoasting a text key), so the page is
 * unlocked first; its pin keeps the tuples in place.
 */
void group_page(ScanExecState *s, HeapReader *r, int n)
{
    heap_reader_unlock(r);
    if (n > 0 && !s->args_evaluated) {
        evaluate_args(s);
        s->args_evaluated = true;
    }
    if (n > 0 && !s->keys_prepared) {
        for (int k = 0; k < s->nkeys; k++)
            group_key_prepare(&s->keys[k], s->css.ss.ps.ps_ExprContext);
        s->keys_prepared = true;
    }
    group_agg_add(&s->group_agg, RelationGetDescr(s->css.ss.ss_currentRelation), r->tuples, n, s->args);
    heap_reader_release(r);
}

/*
 * Reads the table to its end (false), or until a grouped scan's groups
 * reach the memory bound (true: emit them, restart, and call again).
 */
bool scan_pages(ScanExecState *s)
{
    HeapReader *r = &s->reader;
    Relation rel = s->css.ss.ss_currentRelation;
    TupleDesc desc = RelationGetDescr(rel);
    if (!s->reader_active) {
        heap_reader_begin(r, rel, s->css.ss.ps.state->es_snapshot, s->pscan,
                          s->pscan != NULL ? &s->shared_hints : NULL, s->qual != NULL || s->native || s->grouped);
        s->reader_active = true;
        if (s->pages) {
            page_gpu_begin(&s->page_gpu, rel, s->columns, s->nhist, s->pscan != NULL, s->states_cxt);
            heap_reader_read_ahead(r);
        }
    }
    for (;;) {
        /* the next page is worth asking for now where the host will parse it */
        r->prefetch_next = s->pages && page_gpu_parses_next_on_host(&s->page_gpu);
        if (!heap_reader_next_page(r))
            break;
        if (s->pages && page_gpu_accepts(&s->page_gpu, r, s->states, s->skip)) {
            for (PageBatch *back = page_gpu_add(&s->page_gpu, r, s->states, s->skip); back != NULL;
                 back = page_gpu_resume(&s->page_gpu, s->states, s->skip))
                parse_batch(s, back);
            continue;
        }
        int n = r->ntuples;
        if (s->native) {
            if (!s->native_quals.prepared && n > 0) {
                /* the values may be user code (a stable function): evaluated with the page pinned, unlocked */
                heap_reader_unlock(r);
                native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
            }
            /* only stored values are compared: no user code runs under the lock */
            n = native_quals_filter(s->native_quals, desc, r->tuples, n);
        } else if (s->qual != NULL) {
            heap_reader_unlock(r);
            n = filter_tuples(s, r);
        }
        if (s->grouped) {
            group_page(s, r, n);
            if (group_agg_full(&s->group_agg))
                return true;
            continue;
        }
        for (int h = 0; h < s->nhist; h++) {
            double *buf = s->page_values + static_cast<Size>(h) * MaxHeapTuplesPerPage;
            int k;
            if (r->whole_page) {
                k = heap_page_column_values(s->columns[h], desc, r->page, PageGetMaxOffsetNumber(r->page), buf, &n);
                s->page_start[h] = buf + MaxHeapTuplesPerPage - k;
            } else {
                k = heap_column_values(s->columns[h], desc, r->tuples, n, buf);
                s->page_start[h] = buf;
            }
            s->page_counts[h] = k;
        }
        if (r->whole_page)
            heap_reader_count_tuples(r, n);
        heap_reader_release(r);
        if (n > 0 && !s->args_evaluated) {
            /*
             * The ordinary plan evaluates the arguments on each row that
             * reaches the aggregate: a query without one never runs them
             * (an InitPlan that would fail, say), so neither does the scan.
             */
            evaluate_args(s);
            s->args_evaluated = true;
        }
        for (int h = 0; h < s->nhist; h++)
            append_page(s, h);
    }
    heap_reader_end(r);
    s->reader_active = false;
    if (s->pages) {
        for (PageBatch *back = page_gpu_flush(&s->page_gpu, s->states, s->skip); back != NULL;
             back = page_gpu_resume(&s->page_gpu, s->states, s->skip))
            parse_batch(s, back);
        heap_reader_count_tuples(r, page_gpu_finish(&s->page_gpu, s->states));
    }
    return false;
}

/* The histograms, finished or serialized, into the scan tuple. */
TupleTableSlot *result_row(ScanExecState *s)
{
    TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
    ExecClearTuple(slot);
    for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
        slot->tts_isnull[i] = true;
    MemoryContext old = MemoryContextSwitchTo(s->states_cxt);
    for (int h = 0; h < s->nhist; h++) {
        HistogramState *st = s->states[h];
        if (st == NULL)
            continue; /* no row: NULL, as the aggregate gives */
        if (s->partial) {
            slot->tts_values[h] = PointerGetDatum(histogram_state_serialize(st));
        } else {
            histogram_state_flush(st);
            slot->tts_values[h] = PointerGetDatum(int64_array(st->counts, histogram_state_slots(st)));
        }
        slot->tts_isnull[h] = false;
    }
    MemoryContextSwitchTo(old);
    return ExecStoreVirtualTuple(slot);
}

void record_totals(ScanExecState *s, uint64 values_cpu, uint64 values_gpu)
{
    const HeapReadCounters &c = s->reader.counters;
    uint64 pages_gpu = s->pages ? s->page_gpu.pages_gpu : 0;
    s->totals.pages_gpu += pages_gpu;
    s->totals.read.pages += c.pages;
    s->totals.read.all_visible_pages += c.all_visible_pages;
    s->totals.read.tuples += c.tuples;
    s->totals.values_cpu += values_cpu;
    s->totals.values_gpu += values_gpu;
    if (s->shared != NULL) {
        pg_atomic_fetch_add_u64(&s->shared->pages, c.pages);
        pg_atomic_fetch_add_u64(&s->shared->all_visible_pages, c.all_visible_pages);
        pg_atomic_fetch_add_u64(&s->shared->tuples, c.tuples);
        pg_atomic_fetch_add_u64(&s->shared->pages_gpu, pages_gpu);
        pg_atomic_fetch_add_u64(&s->shared->values_cpu, values_cpu);
        pg_atomic_fetch_add_u64(&s->shared->values_gpu, values_gpu);
    }
}

/*
 * The next group's row: the scan first, then its groups; when the groups
 * filled the memory bound before the end, those groups, then the rest of
 * the scan, and so on.
 */
TupleTableSlot *next_group(ScanExecState *s)
{
    TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
    for (;;) {
        if (!s->emitting) {
            if (!s->scanned) {
                s->scanned = true;
                s->args_evaluated = false;
            }
            s->scan_paused = scan_pages(s);
            group_agg_collect(&s->group_agg);
            if (!s->scan_paused) {
                gh_values_binned_on_cpu += s->group_agg.values_binned;
                record_totals(s, s->group_agg.values_binned, s->group_agg.values_gpu);
            }
            s->emitting = true;
        }
        ExecClearTuple(slot);
        for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
            slot->tts_isnull[i] = true;
        if (group_agg_next(&s->group_agg, slot, s->partial))
            return ExecStoreVirtualTuple(slot);
        if (!s->scan_paused) {
            /* under an Append, the next partition's scan may want the service's room */
            group_agg_done(&s->group_agg);
            return NULL;
        }
        group_agg_restart(&s->group_agg);
        s->emitting = false;
        s->flushes++;
    }
}

TupleTableSlot *exec_scan(CustomScanState *node)
{
    ScanExecState *s = scan_state(node);
    if (s->grouped) {
        TupleTableSlot *slot = next_group(s);
        if (slot == NULL || node->ss.ps.ps_ProjInfo == NULL)
            return slot;
        node->ss.ps.ps_ExprContext->ecxt_scantuple = slot;
        return ExecProject(node->ss.ps.ps_ProjInfo);
    }
    if (s->done)
        return NULL;
    s->done = true;

    int64 cpu_before = gh_values_binned_on_cpu;
    int64 gpu_before = gh_values_sent_to_gpu;
    s->args_evaluated = false;
    scan_pages(s);
    TupleTableSlot *slot = result_row(s);
    record_totals(s, gh_values_binned_on_cpu - cpu_before, gh_values_sent_to_gpu - gpu_before);

    if (node->ss.ps.ps_ProjInfo == NULL)
        return slot;
    node->ss.ps.ps_ExprContext->ecxt_scantuple = slot;
    return ExecProject(node->ss.ps.ps_ProjInfo);
}

void end_scan(CustomScanState *node)
{
    ScanExecState *s = scan_state(node);
    if (s->pages)
        page_gpu_end(&s->page_gpu);
    heap_reader_end(&s->reader);
    /* gives the states' slots and device histograms back to the GPU service now, not at query end */
    MemoryContextDelete(s->states_cxt);
}

void rescan(CustomScanState *node)
{
    ScanExecState *s = scan_state(node);
    if (s->pages)
        page_gpu_end(&s->page_gpu);
    heap_reader_end(&s->reader);
    MemoryContextReset(s->states_cxt);
    for (int h = 0; h < s->nhist; h++)
        s->states[h] = NULL;
    s->done = false;
    s->scanned = false;
    s->reader_active = false;
    s->emitting = false;
    s->scan_paused = false;
    if (s->native)
        native_quals_unprepare(&s->native_quals); /* new parameter values, perhaps */
    if (s->grouped) {
        group_agg_reset(&s->group_agg);
        s->keys_prepared = false; /* new parameter values, perhaps */
    }
}

Size pscan_size(Relation rel)
{
    return MAXALIGN(table_block_parallelscan_estimate(rel));
}

Size estimate_dsm(CustomScanState *node, ParallelContext *)
{
    ScanExecState *s = scan_state(node);
    Relation rel = node->ss.ss_currentRelation;
    s->hinted_blocks = RelationGetNumberOfBlocks(rel);
    return kSharedHeader + pscan_size(rel) + buffer_hints_shared_size(rel, s->hinted_blocks);
}

void *hints_space(CustomScanState *node, void *coordinate)
{
    return static_cast<char *>(coordinate) + kSharedHeader + pscan_size(node->ss.ss_currentRelation);
}

void attach_shared(ScanExecState *s, void *coordinate)
{
    s->shared = static_cast<SharedScan *>(coordinate);
    s->pscan = reinterpret_cast<ParallelBlockTableScanDesc>(static_cast<char *>(coordinate) + kSharedHeader);
}

void initialize_dsm(CustomScanState *node, ParallelContext *, void *coordinate)
{
    ScanExecState *s = scan_state(node);
    attach_shared(s, coordinate);
    s->shared_hints = buffer_hints_share(node->ss.ss_currentRelation, s->hinted_blocks, hints_space(node, coordinate));
    pg_atomic_init_u64(&s->shared->pages, 0);
    pg_atomic_init_u64(&s->shared->all_visible_pages, 0);
    pg_atomic_init_u64(&s->shared->tuples, 0);
    pg_atomic_init_u64(&s->shared->pages_gpu, 0);
    pg_atomic_init_u64(&s->shared->values_cpu, 0);
    pg_atomic_init_u64(&s->shared->values_gpu, 0);
    table_block_parallelscan_initialize(node->ss.ss_currentRelation,
                                        reinterpret_cast<ParallelTableScanDesc>(s->pscan));
}

void reinitialize_dsm(CustomScanState *node, ParallelContext *, void *)
{
    ScanExecState *s = scan_state(node);
    table_block_parallelscan_reinitialize(node->ss.ss_currentRelation,
                                          reinterpret_cast<ParallelTableScanDesc>(s->pscan));
}

void initialize_worker(CustomScanState *node, shm_toc *, void *coordinate)
{
    ScanExecState *s = scan_state(node);
    attach_shared(s, coordinate);
    s->shared_hints = buffer_hints_attach(hints_space(node, coordinate));
}

/* The leader keeps every participant's counters before the DSM goes away. */
void shutdown_scan(CustomScanState *node)
{
    ScanExecState *s = scan_state(node);
    if (s->shared == NULL || IsParallelWorker())
        return;
    s->totals.read.pages = pg_atomic_read_u64(&s->shared->pages);
    s->totals.read.all_visible_pages = pg_atomic_read_u64(&s->shared->all_visible_pages);
    s->totals.read.tuples = pg_atomic_read_u64(&s->shared->tuples);
    s->totals.pages_gpu = pg_atomic_read_u64(&s->shared->pages_gpu);
    s->totals.values_cpu = pg_atomic_read_u64(&s->shared->values_cpu);
    s->totals.values_gpu = pg_atomic_read_u64(&s->shared->values_gpu);
    s->totals_from_shared = true;
    buffer_hints_keep(node->ss.ss_currentRelation, s->shared_hints);
    s->shared_hints = BufferHints{};
    s->shared = NULL;
}

const char *device_setting()
{
    switch (gh_device_mode) {
    case DEVICE_GPU: return "gpu";
    case DEVICE_CPU: return "cpu";
    }
    return "auto";
}

void explain_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
    ScanExecState *s = scan_state(node);
    CustomScan *cscan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
    List *context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
    bool prefix = GH_EXPLAIN_RTABLE_SIZE(es) > 1 || es->verbose;

    StringInfoData histograms, counts;
    initStringInfo(&histograms);
    initStringInfo(&counts);
    for (int h = 0; h < s->nhist; h++) {
        Node *aggref = reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, h))->expr);
        StringInfo list = s->aggs[h].kind == AggKind::histogram ? &histograms : &counts;
        appendStringInfo(list, "%s%s", list->len > 0 ? ", " : "", deparse_expression(aggref, context, prefix, false));
    }
    ExplainPropertyText("Histograms", histograms.data, es);
    if (counts.len > 0)
        ExplainPropertyText("Counts", counts.data, es);
    if (s->nkeys > 0) {
        List *keys = NIL, *how = NIL;
        for (int k = 0; k < s->nkeys; k++) {
            Node *key = reinterpret_cast<Node *>(
                static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, s->nhist + k))->expr);
            keys = lappend(keys, deparse_expression(key, context, prefix, false));
            how = lappend(how, pstrdup(group_key_describe(&s->keys[k])));
        }
        ExplainPropertyList("Group Key", keys, es);
        ExplainPropertyList("Key Computation", how, es);
    }
    if (cscan->custom_exprs != NIL)
        ExplainPropertyText("Filter",
                            deparse_expression(reinterpret_cast<Node *>(make_ands_explicit(cscan->custom_exprs)),
                                               context, prefix, false),
                            es);
    if (cscan->custom_exprs != NIL)
        ExplainPropertyText("Filter Evaluation", s->native ? "native" : "executor", es);
    ExplainPropertyText("Device", device_setting(), es);
    if (es->analyze) {
        const ScanTotals &t = s->totals;
        if (s->nkeys > 0 && !s->totals_from_shared) {
            ExplainPropertyUInteger("Groups", NULL, s->group_agg.groups_emitted, es);
            if (s->flushes > 0) /* the groups outgrew work_mem x hash_mem_multiplier */
                ExplainPropertyUInteger("Group Flushes", NULL, s->flushes, es);
        }
        ExplainPropertyUInteger("Pages", NULL, t.read.pages, es);
        ExplainPropertyUInteger("All-Visible Pages", NULL, t.read.all_visible_pages, es);
        ExplainPropertyUInteger("Pages Parsed on GPU", NULL, t.pages_gpu, es);
        ExplainPropertyUInteger("Visible Tuples", NULL, t.read.tuples, es);
        ExplainPropertyUInteger("Values Binned on CPU", NULL, t.values_cpu, es);
        ExplainPropertyUInteger("Values Binned on GPU", NULL, t.values_gpu, es);
    }
}

const CustomExecMethods exec_methods = {
    GH_SCAN_NODE_NAME,
    begin_scan,
    exec_scan,
    end_scan,
    rescan,
    NULL, /* MarkPosCustomScan */
    NULL, /* RestrPosCustomScan */
    estimate_dsm,
    initialize_dsm,
    reinitialize_dsm,
    initialize_worker,
    shutdown_scan,
    explain_scan,
};

Node *create_scan_state(CustomScan *cscan)
{
    ScanExecState *s = static_cast<ScanExecState *>(palloc0(sizeof(ScanExecState)));
    NodeSetTag(s, T_CustomScanState);
    s->css.flags = cscan->flags;
    s->css.methods = &exec_methods;
    s->reader.buffer = InvalidBuffer;
    return reinterpret_cast<Node *>(s);
}

} // namespace

const CustomScanMethods gh_scan_plan_methods = {
    GH_SCAN_NODE_NAME,
    create_scan_state,
};
