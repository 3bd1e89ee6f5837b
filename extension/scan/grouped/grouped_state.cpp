/*
 * grouped_state.cpp: the two steps that the grouped scan's driver and its
 * policies both take (grouped_state.h): the arguments, evaluated once
 * before the first row that reaches them, and the scan's totals, recorded
 * once every value is counted.  Apart from the driver, so that the
 * policies it calls never call back into it.
 */
#include "grouped_state.h"

#include "../../histogram_state.h"

namespace gpu_histogram {

void grouped_rows_prepare_arguments(GroupedRows *g)
{
    ScanExec *s = g->s;
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

void grouped_rows_counted(GroupedRows *g)
{
    if (g->totals_recorded)
        return;
    g->totals_recorded = true;
    gh_values_binned_on_cpu += g->table.values_binned;
    uint64 key_rows = 0;
    for (int k = 0; k < g->nkeys; k++) {
        key_rows += g->keys[k].executor_rows;
        g->keys[k].executor_rows = 0;
    }
    scan_record_totals(g->s, g->pages.active ? &g->pages.pages : NULL, g->table.values_binned, g->table.values_gpu,
                       key_rows, g->pages.pages_left);
    g->pages.pages_left = 0; /* in the totals now, which EXPLAIN shows */
}

} // namespace gpu_histogram
