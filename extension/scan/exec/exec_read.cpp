/*
 * exec_read.cpp: GpuHistogramScan's reading loop (scan_exec.h).
 *
 * Page after page from the heap reader: a page the row strategy takes
 * whole (to the GPU) goes there; of any other, the visible tuples go to
 * the strategy's add_tuples, filtered here by the native WHERE clause
 * (evaluated under the page's lock: it raises nothing), or with the
 * executor's WHERE clause for the strategy to evaluate row by row, in
 * line-pointer order between each row's keys and aggregates.  Also
 * the histograms' arguments, evaluated once, and the totals each process
 * records for EXPLAIN, the statistics and the planner.  Apart from
 * exec.cpp, the node's set-up and callbacks, because this is the loop
 * every row strategy shares.
 */
#include "scan_exec.h"

#include "../offload/page_gpu.h"

#include "../../device_policy.h"

extern "C" {
#include "executor/executor.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

void scan_evaluate_args(ScanExec *s)
{
    ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
    if (s->args_cxt == NULL)
        s->args_cxt = AllocSetContextCreate(s->css.ss.ps.state->es_query_cxt, "GpuHistogramScan arguments",
                                            ALLOCSET_SMALL_SIZES);
    MemoryContextReset(s->args_cxt); /* a rescan's states, which held the last values, are gone */
    for (int h = 0; h < s->naggs; h++) {
        if (s->aggs[h].kind == AggKind::histogram)
            s->args[h] = histogram_args_evaluate(s->aggs[h].call.form, &s->arg_states[3 * h], econtext, s->args_cxt);
    }
    ResetExprContext(econtext);
}

/* Reads pages until the reader has none left (true) or the strategy stops for now (false). */
static bool read_pages(ScanExec *s)
{
    HeapReader *r = &s->reader;
    TupleDesc desc = RelationGetDescr(s->css.ss.ss_currentRelation);
    const RowStrategy *rows = s->rows;
    while (heap_reader_next_page(r)) {
        /* a page's range, for the scans after this one, before the GPU or the strategy takes it */
        page_range_scan_note_current(&s->page_ranges, r);
        bool taken = rows->take_page != NULL && rows->take_page(s, r);
        if (!taken && r->probe) {
            /* a probe (heap_reader.h) the strategy does not take is pinned and read, and offered again */
            heap_reader_read_probe(r);
            taken = rows->take_page != NULL && rows->take_page(s, r);
        }
        if (taken) {
            if (rows->stop_after_page != NULL && rows->stop_after_page(s))
                return false;
            continue;
        }
        int n = r->ntuples;
        if (s->native) {
            if (!s->native_quals.prepared && n > 0) {
                /* the values may be user code (a stable function): evaluated with the page pinned, unlocked */
                heap_reader_unlock(r);
                native_quals_prepare(&s->native_quals, s->css.ss.ps.ps_ExprContext);
            }
            /* only stored values are compared: no user code runs under the lock; a detoast runs without it */
            if (s->native_detoast)
                heap_reader_unlock(r);
            n = native_quals_filter(s->native_quals, desc, r->tuples, n, &s->native_rows);
        }
        /* a WHERE clause through the executor is the strategy's, row by row with the rest (add_tuples) */
        if (rows->add_tuples(s, r, n))
            return false;
    }
    return true;
}

bool scan_read(ScanExec *s)
{
    HeapReader *r = &s->reader;
    Relation rel = s->css.ss.ss_currentRelation;
    const RowStrategy *rows = s->rows;
    if (!s->reader_active) {
        heap_reader_begin(r, rel, s->css.ss.ps.state->es_snapshot, s->pscan,
                          s->pscan != NULL ? &s->shared_hints : NULL,
                          s->qual != NULL || s->native || rows->lists_tuples);
        s->reader_active = true;
        if (OidIsValid(s->brin.index)) {
            /* the values may be user code: no page is pinned or locked yet */
            brin_ranges_prepare(&s->brin, rel, s->css.ss.ps.state->es_snapshot, s->css.ss.ps.ps_ExprContext);
            heap_reader_keep_blocks(r, s->brin.blocks, s->brin.nblocks);
        }
        if (rows->begin_read != NULL)
            rows->begin_read(s);
        page_range_scan_begin(&s->page_ranges, r, s->native ? &s->native_quals : NULL, s->css.ss.ps.ps_ExprContext,
                              s->css.ss.ps.state->es_query_cxt);
    }
    for (;;) {
        if (!read_pages(s))
            return true;
        /* pages handed to the GPU unpinned that its cache did not have come back, to be read as any other */
        if (rows->drain == NULL || !rows->drain(s))
            break;
        if (rows->stop_after_page != NULL && rows->stop_after_page(s))
            return true;
    }
    page_range_scan_end(&s->page_ranges);
    heap_reader_end(&s->reader);
    s->reader_active = false;
    if (rows->end_read != NULL)
        rows->end_read(s);
    return false;
}


void scan_record_totals(ScanExec *s, const PageGpu *pages, uint64 values_cpu, uint64 values_gpu, uint64 key_rows,
                        uint64 pages_left)
{
    s->totals.pages_left += pages_left;
    const uint64 filter_rows = s->filter_rows_now;
    s->filter_rows_now = 0;
    s->totals.executor_filter_rows += filter_rows;
    s->totals.executor_key_rows += key_rows;
    const HeapReadCounters &c = s->reader.counters;
    const uint64 pages_gpu = pages != NULL ? pages->pages_gpu : 0;
    const uint64 pages_cached = pages != NULL ? pages->pages_cached : 0;
    const uint64 pages_unpinned = pages != NULL ? pages->probes - pages->probes_missed : 0;
    s->totals.pages_gpu += pages_gpu;
    s->totals.pages_cached += pages_cached;
    s->totals.pages_unpinned += pages_unpinned;
    s->totals.read.pages += c.pages;
    s->totals.read.all_visible_pages += c.all_visible_pages;
    s->totals.read.tuples += c.tuples;
    s->totals.read.pages_skipped += c.pages_skipped;
    s->totals.read.pages_ranged += c.pages_ranged;
    s->totals.values_cpu += values_cpu;
    s->totals.values_gpu += values_gpu;
    /* for the planner's next scan of this shape (cached_cost.h); a participant that read nothing knows nothing */
    if (c.pages > 0 && device_gpu_wanted())
        gpu_service_note_cached_share(page_gpu_cache_rel(s->css.ss.ss_currentRelation), s->shape,
                                      static_cast<double>(pages_cached) / static_cast<double>(c.pages));
    if (s->shared != NULL) {
        pg_atomic_fetch_add_u64(&s->shared->pages, c.pages);
        pg_atomic_fetch_add_u64(&s->shared->all_visible_pages, c.all_visible_pages);
        pg_atomic_fetch_add_u64(&s->shared->tuples, c.tuples);
        pg_atomic_fetch_add_u64(&s->shared->pages_skipped, c.pages_skipped);
        pg_atomic_fetch_add_u64(&s->shared->pages_ranged, c.pages_ranged);
        pg_atomic_fetch_add_u64(&s->shared->pages_gpu, pages_gpu);
        pg_atomic_fetch_add_u64(&s->shared->pages_cached, pages_cached);
        pg_atomic_fetch_add_u64(&s->shared->pages_unpinned, pages_unpinned);
        pg_atomic_fetch_add_u64(&s->shared->values_cpu, values_cpu);
        pg_atomic_fetch_add_u64(&s->shared->values_gpu, values_gpu);
        pg_atomic_fetch_add_u64(&s->shared->pages_left, pages_left);
        pg_atomic_fetch_add_u64(&s->shared->executor_filter_rows, filter_rows);
        pg_atomic_fetch_add_u64(&s->shared->executor_key_rows, key_rows);
    }
}

} // namespace gpu_histogram
