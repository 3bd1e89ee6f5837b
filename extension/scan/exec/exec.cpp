/*
 * exec.cpp: running GpuHistogramScan (scan_exec.h).
 *
 * The first call computes everything: the scan reads its share of the
 * table's pages (scan/heap/heap_reader.h), keeps the visible tuples that
 * pass the WHERE clause, and hands each page to its row strategy, which
 * aggregates them and returns the rows: the finished aggregates, or under
 * a Gather the serialized partial states that the leader's Finalize
 * Aggregate combines.  The WHERE clause is evaluated on each visible tuple
 * after the page is unlocked, as heapam's page mode returns tuples, or
 * natively while it is locked (scan/quals/native_quals.h).  This file holds
 * the node's set-up, its rows out, and its parallel-query callbacks; the
 * reading loop is exec_read.cpp's, EXPLAIN exec_explain.cpp's.
 */
#include "../keys/key_quals.h"
#include "../quals/heap_tuple_exprs.h"
#include "scan_exec.h"

extern "C" {
#include "access/parallel.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

namespace {

constexpr Size kSharedHeader = MAXALIGN(sizeof(SharedScan));


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
        return heap_tuple_vars(reinterpret_cast<Node *>(target));
    }
    return expression_tree_mutator(node, GH_MUTATOR(table_vars_mutator), scan_tlist);
}

} // namespace

void scan_split_exprs(const CustomScan *cscan, List **where, List **having)
{
    int nquals = intVal(lthird(cscan->custom_private));
    *where = list_copy_head(cscan->custom_exprs, nquals);
    *having = list_copy_tail(cscan->custom_exprs, nquals);
}

namespace {

void begin_scan(CustomScanState *node, EState *estate, int)
{
    ScanExec *s = scan_state(node);
    CustomScan *cscan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
    TupleDesc desc = RelationGetDescr(node->ss.ss_currentRelation);

    s->naggs = intVal(linitial(cscan->custom_private));
    int nkeys = intVal(lsecond(cscan->custom_private));
    s->shape = static_cast<uint32>(intVal(lfourth(cscan->custom_private)));
    s->aggs = static_cast<ScanAggregate *>(palloc0(sizeof(ScanAggregate) * s->naggs));
    s->arg_states = static_cast<ExprState **>(palloc0(sizeof(ExprState *) * 3 * s->naggs));
    s->args = static_cast<HistogramArgs *>(palloc0(sizeof(HistogramArgs) * s->naggs));
    bool counts = false;
    for (int h = 0; h < s->naggs; h++) {
        Expr *target = static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, h))->expr;
        Aggref *aggref = reinterpret_cast<Aggref *>(target);
        HistogramCall &call = s->aggs[h].call;
        if (!IsA(aggref, Aggref))
            elog(ERROR, "gpu_histogram scan: unexpected scan target %d", h + 1);
        s->partial = DO_AGGSPLIT_SKIPFINAL(aggref->aggsplit);
        if (beside_call_parse(aggref, cscan->scan.scanrelid, &s->aggs[h])) {
            counts = true;
            continue;
        }
        if (!histogram_call_parse(aggref, cscan->scan.scanrelid, &call))
            elog(ERROR, "gpu_histogram scan: unexpected scan target %d", h + 1);
        s->aggs[h].kind = AggKind::histogram;
        if (call.form == HistogramForm::thresholds) {
            s->arg_states[3 * h] = ExecInitExpr(call.thresholds, &node->ss.ps);
            continue;
        }
        s->arg_states[3 * h] = ExecInitExpr(call.lo, &node->ss.ps);
        s->arg_states[3 * h + 1] = ExecInitExpr(call.hi, &node->ss.ps);
        s->arg_states[3 * h + 2] = ExecInitExpr(call.nbins, &node->ss.ps);
    }
    List *where, *having;
    scan_split_exprs(cscan, &where, &having);
    /* HAVING reads the finished row (the scan slot), as the node's qual would */
    s->having = ExecInitQual(having, &node->ss.ps);
    List *quals = reinterpret_cast<List *>(table_vars_mutator(reinterpret_cast<Node *>(where), cscan->custom_scan_tlist));
    s->heap_slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsHeapTuple);
    brin_ranges_build(quals, INDEX_VAR, node->ss.ss_currentRelation, &node->ss.ps, &s->brin);
    List *rest;
    s->native = native_quals_build(quals, desc, &node->ss.ps, key_qual_match, &s->native_quals, &rest);
    s->native_detoast = s->native && native_quals_detoast(s->native_quals);
    s->executor_clauses = list_length(rest);
    quals = rest;
    /* the quals read heap tuples, not the node's virtual scan slot */
    s->qual = heap_tuple_qual_init(quals, desc, &node->ss.ps);
    /* GROUP BY keys, counts, or a native WHERE clause whose pages the GPU may filter: the grouped strategy */
    s->rows = grouped_rows.wants(s, nkeys, counts) ? &grouped_rows : &ungrouped_rows;
    s->rows->begin(s, cscan, estate);
}

/*
 * The next row: with HAVING (finished rows only, plan.cpp), the next that
 * passes it, counted as filtered otherwise, as ExecScan() counts its qual's.
 */
TupleTableSlot *exec_scan(CustomScanState *node)
{
    ScanExec *s = scan_state(node);
    ExprContext *econtext = node->ss.ps.ps_ExprContext;
    for (;;) {
        /* the row before has been read: what its qual and projection allocated goes */
        ResetExprContext(econtext);
        TupleTableSlot *slot = s->rows->next_row(s);
        if (TupIsNull(slot))
            return slot;
        econtext->ecxt_scantuple = slot;
        if (s->having != NULL && !ExecQual(s->having, econtext)) {
            InstrCountFiltered1(node, 1);
            continue;
        }
        if (node->ss.ps.ps_ProjInfo == NULL)
            return slot;
        return ExecProject(node->ss.ps.ps_ProjInfo);
    }
}

void end_scan(CustomScanState *node)
{
    ScanExec *s = scan_state(node);
    if (s->rows->end != NULL)
        s->rows->end(s);
    page_range_scan_end(&s->page_ranges);
    heap_reader_end(&s->reader);
}

void rescan(CustomScanState *node)
{
    ScanExec *s = scan_state(node);
    s->rows->rescan(s);
    page_range_scan_end(&s->page_ranges);
    heap_reader_end(&s->reader);
    s->reader_active = false;
    if (s->native)
        native_quals_unprepare(&s->native_quals); /* new parameter values, perhaps */
}

/* The row strategy's own part of the DSM, right after the node's header. */
Size strategy_size(const ScanExec *s)
{
    return s->rows->shared_size != NULL ? MAXALIGN(s->rows->shared_size()) : 0;
}

void *strategy_space(void *coordinate)
{
    return static_cast<char *>(coordinate) + kSharedHeader;
}

Size pscan_size(Relation rel)
{
    return MAXALIGN(table_block_parallelscan_estimate(rel));
}

Size estimate_dsm(CustomScanState *node, ParallelContext *)
{
    ScanExec *s = scan_state(node);
    Relation rel = node->ss.ss_currentRelation;
    s->hinted_blocks = RelationGetNumberOfBlocks(rel);
    return kSharedHeader + strategy_size(s) + pscan_size(rel) + buffer_hints_shared_size(rel, s->hinted_blocks);
}

void *hints_space(CustomScanState *node, void *coordinate)
{
    return static_cast<char *>(coordinate) + kSharedHeader + strategy_size(scan_state(node)) +
           pscan_size(node->ss.ss_currentRelation);
}

void attach_shared(ScanExec *s, void *coordinate)
{
    s->shared = static_cast<SharedScan *>(coordinate);
    s->pscan = reinterpret_cast<ParallelBlockTableScanDesc>(static_cast<char *>(coordinate) + kSharedHeader +
                                                            strategy_size(s));
    if (s->rows->shared_attach != NULL)
        s->rows->shared_attach(s, strategy_space(coordinate));
}

void initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
    ScanExec *s = scan_state(node);
    attach_shared(s, coordinate);
    /* the leader has the query's area only while the plan's shared state is set up: keep it */
    s->area = node->ss.ps.state->es_query_dsa;
    if (s->rows->shared_init != NULL)
        s->rows->shared_init(s, strategy_space(coordinate), pcxt->seg);
    s->shared_hints = buffer_hints_share(node->ss.ss_currentRelation, s->hinted_blocks, hints_space(node, coordinate));
    pg_atomic_init_u64(&s->shared->pages, 0);
    pg_atomic_init_u64(&s->shared->all_visible_pages, 0);
    pg_atomic_init_u64(&s->shared->tuples, 0);
    pg_atomic_init_u64(&s->shared->pages_skipped, 0);
    pg_atomic_init_u64(&s->shared->pages_ranged, 0);
    pg_atomic_init_u64(&s->shared->pages_gpu, 0);
    pg_atomic_init_u64(&s->shared->pages_cached, 0);
    pg_atomic_init_u64(&s->shared->pages_unpinned, 0);
    pg_atomic_init_u64(&s->shared->values_cpu, 0);
    pg_atomic_init_u64(&s->shared->values_gpu, 0);
    pg_atomic_init_u64(&s->shared->pages_left, 0);
    pg_atomic_init_u64(&s->shared->executor_filter_rows, 0);
    pg_atomic_init_u64(&s->shared->executor_key_rows, 0);
    table_block_parallelscan_initialize(node->ss.ss_currentRelation,
                                        reinterpret_cast<ParallelTableScanDesc>(s->pscan));
}

void reinitialize_dsm(CustomScanState *node, ParallelContext *, void *coordinate)
{
    ScanExec *s = scan_state(node);
    if (s->rows->shared_reset != NULL)
        s->rows->shared_reset(s, strategy_space(coordinate));
    table_block_parallelscan_reinitialize(node->ss.ss_currentRelation,
                                          reinterpret_cast<ParallelTableScanDesc>(s->pscan));
}

void initialize_worker(CustomScanState *node, shm_toc *, void *coordinate)
{
    ScanExec *s = scan_state(node);
    attach_shared(s, coordinate);
    s->area = node->ss.ps.state->es_query_dsa;
    s->shared_hints = buffer_hints_attach(hints_space(node, coordinate));
}

/* The leader keeps every participant's counters before the DSM goes away. */
void shutdown_scan(CustomScanState *node)
{
    ScanExec *s = scan_state(node);
    if (s->shared == NULL || IsParallelWorker())
        return;
    s->totals.read.pages = pg_atomic_read_u64(&s->shared->pages);
    s->totals.read.all_visible_pages = pg_atomic_read_u64(&s->shared->all_visible_pages);
    s->totals.read.tuples = pg_atomic_read_u64(&s->shared->tuples);
    s->totals.read.pages_skipped = pg_atomic_read_u64(&s->shared->pages_skipped);
    s->totals.read.pages_ranged = pg_atomic_read_u64(&s->shared->pages_ranged);
    s->totals.pages_gpu = pg_atomic_read_u64(&s->shared->pages_gpu);
    s->totals.pages_cached = pg_atomic_read_u64(&s->shared->pages_cached);
    s->totals.pages_unpinned = pg_atomic_read_u64(&s->shared->pages_unpinned);
    s->totals.values_cpu = pg_atomic_read_u64(&s->shared->values_cpu);
    s->totals.values_gpu = pg_atomic_read_u64(&s->shared->values_gpu);
    s->totals.pages_left = pg_atomic_read_u64(&s->shared->pages_left);
    s->totals.executor_filter_rows = pg_atomic_read_u64(&s->shared->executor_filter_rows);
    s->totals.executor_key_rows = pg_atomic_read_u64(&s->shared->executor_key_rows);
    s->totals_from_shared = true;
    buffer_hints_keep(node->ss.ss_currentRelation, s->shared_hints);
    s->shared_hints = BufferHints{};
    s->shared = NULL;
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
    scan_explain,
};

Node *create_scan_state(CustomScan *cscan)
{
    ScanExec *s = static_cast<ScanExec *>(palloc0(sizeof(ScanExec)));
    NodeSetTag(s, T_CustomScanState);
    s->css.flags = cscan->flags;
    s->css.methods = &exec_methods;
    s->reader.buffer = InvalidBuffer;
    return reinterpret_cast<Node *>(s);
}

} // namespace

TupleTableSlot *scan_empty_slot(ScanExec *s)
{
    TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
    ExecClearTuple(slot);
    for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
        slot->tts_isnull[i] = true;
    return slot;
}

const CustomScanMethods gh_scan_plan_methods = {
    GH_SCAN_NODE_NAME,
    create_scan_state,
};

} // namespace gpu_histogram
