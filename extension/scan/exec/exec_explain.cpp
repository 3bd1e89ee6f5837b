/*
 * exec_explain.cpp: what EXPLAIN shows of GpuHistogramScan (scan_exec.h).
 *
 * The plan's side (the aggregates, the keys, the WHERE clause and how it
 * is evaluated, HAVING, the BRIN index, the device setting) and, under
 * ANALYZE, where the pages and the values went.  A row strategy adds its
 * own lines through RowStrategy's explain callbacks.  Apart from exec.cpp
 * because nothing here runs the scan.
 */
#include "scan_exec.h"

#include "../../settings.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
}

namespace gpu_histogram {

namespace {

const char *device_setting()
{
    switch (gh_device_mode) {
    case DEVICE_GPU: return "gpu";
    case DEVICE_CPU: return "cpu";
    }
    return "auto";
}

} // namespace

const char *scan_evaluated_where(const ScanTotals &t, bool native, uint64 executor_rows)
{
    /* a page the GPU left to the host (a key it could not place) was parsed again there, whole */
    const uint64 gpu = t.pages_gpu > t.pages_left ? t.pages_gpu - t.pages_left : 0;
    const uint64 cpu = t.read.pages > gpu ? t.read.pages - gpu : 0;
    StringInfoData out;
    initStringInfo(&out);
    if (native)
        appendStringInfo(&out, "GPU " UINT64_FORMAT " pages, CPU " UINT64_FORMAT " pages", gpu, cpu);
    if (!native || executor_rows > 0)
        appendStringInfo(&out, "%sexecutor " UINT64_FORMAT " rows", out.len > 0 ? ", " : "", executor_rows);
    return out.data;
}

void scan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
    ScanExec *s = scan_state(node);
    CustomScan *cscan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
    List *context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
    bool prefix = GH_EXPLAIN_RTABLE_SIZE(es) > 1 || es->verbose;

    StringInfoData histograms, counts, values;
    initStringInfo(&histograms);
    initStringInfo(&counts);
    initStringInfo(&values);
    for (int h = 0; h < s->naggs; h++) {
        Node *aggref = reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(cscan->custom_scan_tlist, h))->expr);
        StringInfo list = s->aggs[h].kind == AggKind::histogram    ? &histograms
                          : value_aggregate_kind(s->aggs[h].kind) ? &values
                                                                   : &counts;
        appendStringInfo(list, "%s%s", list->len > 0 ? ", " : "", deparse_expression(aggref, context, prefix, false));
    }
    ExplainPropertyText("Histograms", histograms.data, es);
    if (counts.len > 0)
        ExplainPropertyText("Counts", counts.data, es);
    if (values.len > 0)
        ExplainPropertyText("Aggregates", values.data, es);
    if (s->rows->explain_plan != NULL)
        s->rows->explain_plan(s, context, prefix, es);
    List *where, *having;
    scan_split_exprs(cscan, &where, &having);
    if (where != NIL) {
        ExplainPropertyText(
            "Filter", deparse_expression(reinterpret_cast<Node *>(make_ands_explicit(where)), context, prefix, false),
            es);
        if (!s->native || s->executor_clauses == 0) {
            ExplainPropertyText("Filter Evaluation", s->native ? "native" : "executor", es);
        } else {
            /* the native clauses first, the executor's on the rows that pass them (native_quals_build) */
            const int n = s->native_quals.clauses, e = s->executor_clauses;
            ExplainPropertyText("Filter Evaluation",
                                psprintf("native (%d clause%s), then executor (%d clause%s)", n, n == 1 ? "" : "s", e,
                                         e == 1 ? "" : "s"),
                                es);
        }
    }
    if (having != NIL) {
        ExplainPropertyText(
            "Group Filter",
            deparse_expression(reinterpret_cast<Node *>(make_ands_explicit(having)), context, prefix, false), es);
        /* as show_instrumentation_count() prints a qual's: a mean per loop, left out of text when 0 */
        const Instrumentation *instr = node->ss.ps.instrument;
        if (es->analyze && instr != NULL && (instr->nfiltered1 > 0 || es->format != EXPLAIN_FORMAT_TEXT))
            ExplainPropertyFloat("Rows Removed by Group Filter", NULL,
                                 instr->nloops > 0 ? instr->nfiltered1 / instr->nloops : 0.0, 0, es);
    }
    if (OidIsValid(s->brin.index))
        ExplainPropertyText("Block Ranges", psprintf("from BRIN index %s", get_rel_name(s->brin.index)), es);
    ExplainPropertyText("Device", device_setting(), es);
    if (es->analyze) {
        const ScanTotals &t = s->totals;
        if (where != NIL)
            ExplainPropertyText("Filter Evaluated",
                                scan_evaluated_where(t, s->native, s->native && s->executor_clauses == 0
                                                                       ? 0 : t.executor_filter_rows),
                                es);
        if (s->rows->explain_analyze != NULL)
            s->rows->explain_analyze(s, es);
        if (OidIsValid(s->brin.index)) {
            if (s->brin.ranges_total > 0) /* this process asked the index (a worker's answer is the same) */
                ExplainPropertyText("Block Ranges Read",
                                    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, s->brin.ranges_read,
                                             s->brin.ranges_total),
                                    es);
            ExplainPropertyUInteger("Pages Skipped", NULL, t.read.pages_skipped, es);
        }
        /* only where it happened: a first scan has learned the ranges a second one uses */
        if (t.read.pages_ranged > 0)
            ExplainPropertyUInteger("Pages Skipped by Their Ranges", NULL, t.read.pages_ranged, es);
        ExplainPropertyUInteger("Pages", NULL, t.read.pages, es);
        ExplainPropertyUInteger("All-Visible Pages", NULL, t.read.all_visible_pages, es);
        ExplainPropertyUInteger("Pages Parsed on GPU", NULL, t.pages_gpu, es);
        if (t.pages_gpu > 0) { /* only with a GPU: the outputs of machines without one stay as they were */
            ExplainPropertyUInteger("Pages from GPU Page Cache", NULL, t.pages_cached, es);
            ExplainPropertyUInteger("Pages Never Pinned", NULL, t.pages_unpinned, es);
        }
        ExplainPropertyUInteger("Visible Tuples", NULL, t.read.tuples, es);
        ExplainPropertyUInteger("Values Binned on CPU", NULL, t.values_cpu, es);
        ExplainPropertyUInteger("Values Binned on GPU", NULL, t.values_gpu, es);
    }
}

} // namespace gpu_histogram
