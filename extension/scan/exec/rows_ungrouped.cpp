/*
 * rows_ungrouped.cpp: the row strategy of a scan with histograms only and
 * no GROUP BY (scan_exec.h).
 *
 * Each histogram's column is copied out of the page while the share lock
 * is held (a float8, or a time column's stored integer as its word) and
 * appended to the histogram's state: the same HistogramState
 * the aggregate uses, so the same batches, device policy and errors.  With
 * no WHERE clause, whole all-visible pages may go to the GPU instead
 * (scan/offload/page_gpu.h); a batch the GPU does not take is parsed here.
 * One row comes out: the finished histograms, or under a Gather their
 * serialized partial states.
 */
#include "scan_exec.h"

#include "../offload/page_gpu.h"
#include "../quals/heap_tuple_exprs.h"

#include "../../errors.h"
#include "../../histogram_state.h"

#include <cmath>

extern "C" {
#include "executor/executor.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

struct UngroupedRows {
    HeapColumn *columns;
    bool *skip;                /* args[h].skip, as page_gpu.h takes it */
    MemoryContext states_cxt;  /* the histogram states and the results */
    HistogramState **states;
    bool pages;                /* no WHERE: pages may go to the GPU */
    PageGpu page_gpu;
    double *page_values;       /* naggs * MaxHeapTuplesPerPage */
    const double **page_start; /* each histogram's values of the page ... */
    int *page_counts;          /* ... and how many */
    bool done;                 /* the one row was returned */
};

namespace {

void begin(ScanExec *s, CustomScan *, EState *estate)
{
    UngroupedRows *u = static_cast<UngroupedRows *>(palloc0(sizeof(UngroupedRows)));
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    u->columns = static_cast<HeapColumn *>(palloc0(sizeof(HeapColumn) * s->naggs));
    u->skip = static_cast<bool *>(palloc0(sizeof(bool) * s->naggs));
    u->states = static_cast<HistogramState **>(palloc0(sizeof(HistogramState *) * s->naggs));
    u->page_values = static_cast<double *>(palloc(sizeof(double) * MaxHeapTuplesPerPage * s->naggs));
    u->page_start = static_cast<const double **>(palloc0(sizeof(double *) * s->naggs));
    u->page_counts = static_cast<int *>(palloc0(sizeof(int) * s->naggs));
    for (int h = 0; h < s->naggs; h++)
        u->columns[h] = heap_column(desc, s->aggs[h].call.attno, s->aggs[h].call.coltype);
    u->states_cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuHistogramScan", ALLOCSET_DEFAULT_SIZES);
    u->pages = s->qual == NULL && !s->native;
    s->ungrouped = u;
}

void evaluate_args(ScanExec *s)
{
    scan_evaluate_args(s);
    for (int h = 0; h < s->naggs; h++)
        s->ungrouped->skip[h] = s->args[h].skip;
}

/*
 * Appends one page's values to a histogram; the first value creates the
 * state after checking the arguments as the aggregate checks its first row.
 */
void append_page(ScanExec *s, int h)
{
    UngroupedRows *u = s->ungrouped;
    const double *values = u->page_start[h];
    int n = u->page_counts[h];
    if (n == 0 || s->args[h].skip)
        return;
    if (u->states[h] == NULL) {
        u->states[h] = histogram_state_create(u->states_cxt, histogram_first_spec(s->aggs[h].call, s->args[h], values[0]));
        if (u->pages)
            page_gpu_keep_values_on_cpu(&u->page_gpu, u->states[h]);
    }
    histogram_state_append_many(u->states[h], values, n);
}

/* A batch of pinned pages the GPU did not take: their values, as append_page() would add them. */
void parse_batch(ScanExec *s, PageBatch *b)
{
    UngroupedRows *u = s->ungrouped;
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    uint64 tuples = 0;
    for (int i = 0; i < b->npages; i++) {
        Page page = BufferGetPage(b->buffers[i]);
        int ntuples = -1;
        for (int h = 0; h < s->naggs; h++) {
            if (u->skip[h])
                continue;
            double *buf = u->page_values + static_cast<Size>(h) * MaxHeapTuplesPerPage;
            int k = heap_page_column_values(u->columns[h], desc, page, b->lines[i], buf, &ntuples);
            histogram_state_append_many(u->states[h], buf + MaxHeapTuplesPerPage - k, k);
        }
        tuples += ntuples >= 0 ? ntuples : heap_page_normal_tuples(page, b->lines[i]);
    }
    heap_reader_count_tuples(&s->reader, tuples);
    page_gpu_parsed_on_cpu(&u->page_gpu, b);
    page_gpu_release(b);
}

/* The next page is worth asking for now where the host will parse it. */
void prefetch_next(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    s->reader.prefetch_next = u->pages && page_gpu_parses_next_on_host(&u->page_gpu);
}

void begin_read(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (u->pages) {
        page_gpu_begin(&u->page_gpu, &s->reader, u->columns, s->naggs, s->pscan != NULL, u->states_cxt);
        heap_reader_read_ahead(&s->reader);
    }
    prefetch_next(s);
}

bool take_page(ScanExec *s, HeapReader *r)
{
    UngroupedRows *u = s->ungrouped;
    if (!u->pages || !page_gpu_accepts(&u->page_gpu, r, u->states, u->skip))
        return false;
    for (PageBatch *back = page_gpu_add(&u->page_gpu, r, u->states, u->skip); back != NULL;
         back = page_gpu_resume(&u->page_gpu, u->states, u->skip))
        parse_batch(s, back);
    prefetch_next(s);
    return true;
}

/*
 * What the histograms' transition functions check of row t, in their
 * order: a histogram's first value creates its state, checking the
 * arguments, and any value of the float8 form raises for a NaN, at its
 * row, as the transition function does.  The values themselves are
 * appended a page at a time.
 */
void check_row(ScanExec *s, TupleDesc desc, HeapTupleData *t)
{
    UngroupedRows *u = s->ungrouped;
    for (int h = 0; h < s->naggs; h++) {
        if (s->args[h].skip || (u->states[h] != NULL && u->states[h]->spec.kind != gh::SpecKind::float_interval))
            continue;
        double x;
        bool isnull;
        heap_column_values_each(u->columns[h], desc, t, 1, &x, &isnull);
        if (isnull)
            continue;
        if (u->states[h] == NULL)
            u->states[h] = histogram_state_create(u->states_cxt, histogram_first_spec(s->aggs[h].call, s->args[h], x));
        else if (unlikely(std::isnan(x)))
            report_engine_status(gh::Status::nan_value);
    }
}

/*
 * The page's tuples in line-pointer order, each through the native WHERE
 * clauses where they may raise on the page (s->native_rows), the
 * executor's, then the histograms' checks: what the ordinary plan does to
 * one row before the next, so that the first row's error is the one
 * raised.  Those that pass move up; how many.
 */
int filter_in_order(ScanExec *s, HeapReader *r, int n)
{
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (s->native_rows && !native_quals_pass(s->native_quals, desc, &r->tuples[i]))
            continue;
        if (s->qual != NULL) {
            s->filter_rows_now++;
            if (!heap_tuple_qual_passes(s->qual, s->heap_slot, econtext, &r->tuples[i]))
                continue;
        }
        if (!s->args_evaluated) {
            /*
             * The ordinary plan evaluates the arguments on each row that
             * reaches the aggregate: a query without one never runs them
             * (an InitPlan that would fail, say), so neither does the scan.
             */
            evaluate_args(s);
            s->args_evaluated = true;
        }
        check_row(s, desc, &r->tuples[i]);
        r->tuples[kept++] = r->tuples[i];
    }
    if (s->qual != NULL)
        ExecClearTuple(s->heap_slot);
    return kept;
}

bool add_tuples(ScanExec *s, HeapReader *r, int n)
{
    UngroupedRows *u = s->ungrouped;
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    /*
     * Where the WHERE clause may raise (the executor's, or a native one on
     * this page), or histograms' values may raise different errors (one's
     * first value under invalid arguments, another's NaN), which row
     * raises first decides the error: the rows go one at a time.
     * Otherwise every error a page's values can raise is the same from any
     * row, and they go a page at a time.
     */
    bool first_values = false;
    for (int h = 0; s->naggs > 1 && h < s->naggs; h++)
        first_values |= u->states[h] == NULL && !(s->args_evaluated && s->args[h].skip);
    /*
     * A numeric value may lie in the TOAST table: it is read with the page
     * unlocked (pinned, its visible tuples listed first), as a detoasting
     * WHERE clause is (exec_read.cpp).
     */
    bool varlena_values = false;
    for (int h = 0; h < s->naggs; h++)
        varlena_values |= u->columns[h].len == -1;
    if (s->qual != NULL || s->native_rows || first_values || varlena_values) {
        if (r->whole_page) { /* an all-visible page that came whole (no WHERE clause): its tuples after all */
            heap_reader_list_page(r);
            n = r->ntuples;
        }
        heap_reader_unlock(r); /* the WHERE clause is user code; the pin keeps the tuples */
        n = filter_in_order(s, r, n);
    }
    for (int h = 0; h < s->naggs; h++) {
        double *buf = u->page_values + static_cast<Size>(h) * MaxHeapTuplesPerPage;
        int k;
        if (r->whole_page) {
            k = heap_page_column_values(u->columns[h], desc, r->page, PageGetMaxOffsetNumber(r->page), buf, &n);
            u->page_start[h] = buf + MaxHeapTuplesPerPage - k;
        } else {
            k = heap_column_values(u->columns[h], desc, r->tuples, n, buf);
            u->page_start[h] = buf;
        }
        u->page_counts[h] = k;
    }
    if (r->whole_page)
        heap_reader_count_tuples(r, n);
    heap_reader_release(r);
    if (n > 0 && !s->args_evaluated) {
        /* (as filter_in_order: at the first row that reaches the aggregates) */
        evaluate_args(s);
        s->args_evaluated = true;
    }
    for (int h = 0; h < s->naggs; h++)
        append_page(s, h);
    prefetch_next(s);
    return false;
}

/* The filling batch goes to the GPU, or is parsed here. */
void flush_last_batch(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    for (PageBatch *back = page_gpu_flush(&u->page_gpu, u->states, u->skip); back != NULL;
         back = page_gpu_resume(&u->page_gpu, u->states, u->skip))
        parse_batch(s, back);
}

bool drain(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (!u->pages || !u->page_gpu.probing)
        return false;
    flush_last_batch(s);
    return page_gpu_collect_probes(&u->page_gpu);
}

void end_read(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (!u->pages)
        return;
    flush_last_batch(s);
    heap_reader_count_tuples(&s->reader, page_gpu_finish(&u->page_gpu, u->states));
}

/* The histograms, finished or serialized, into the scan tuple. */
TupleTableSlot *result_row(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    TupleTableSlot *slot = scan_empty_slot(s);
    MemoryContext old = MemoryContextSwitchTo(u->states_cxt);
    for (int h = 0; h < s->naggs; h++) {
        HistogramState *st = u->states[h];
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

TupleTableSlot *next_row(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (u->done)
        return NULL;
    u->done = true;
    int64 cpu_before = gh_values_binned_on_cpu;
    int64 gpu_before = gh_values_sent_to_gpu;
    s->args_evaluated = false;
    scan_read(s);
    TupleTableSlot *slot = result_row(s);
    scan_record_totals(s, u->pages ? &u->page_gpu : NULL, gh_values_binned_on_cpu - cpu_before,
                       gh_values_sent_to_gpu - gpu_before);
    return slot;
}

void rescan(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (u->pages)
        page_gpu_end(&u->page_gpu);
    MemoryContextReset(u->states_cxt);
    for (int h = 0; h < s->naggs; h++)
        u->states[h] = NULL;
    u->done = false;
}

void end(ScanExec *s)
{
    UngroupedRows *u = s->ungrouped;
    if (u->pages)
        page_gpu_end(&u->page_gpu);
    /* gives the states' slots and device histograms back to the GPU service now, not at query end */
    MemoryContextDelete(u->states_cxt);
}

} // namespace

const RowStrategy ungrouped_rows = {
    NULL, /* wants: the scans the grouped strategy leaves */
    false, /* lists_tuples: whole pages are read where there is no WHERE clause */
    begin,
    NULL, /* shared_size: the totals are the node's */
    NULL,
    NULL,
    NULL,
    begin_read,
    take_page,
    NULL, /* stop_after_page: one row, nothing to flush */
    add_tuples,
    drain,
    end_read,
    next_row,
    rescan,
    end,
    NULL, /* explain_plan */
    NULL, /* explain_analyze */
};

} // namespace gpu_histogram
