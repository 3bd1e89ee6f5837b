/*
 * ordinary_order.cpp: in what order the plan the scan replaces raises its
 * errors, where a grouped query's rows hold more than one.
 *
 * The scan must raise what the ordinary plan raises (docs/errors.md).  A
 * HashAggregate over a sequential scan takes one row at a time through
 * its WHERE clause, its keys and each aggregate's transition.  A
 * GroupAggregate over a Sort does not: the Sort reads every row, through
 * the WHERE clause and the keys (and the aggregates' argument
 * expressions, its input's projection), before the first value reaches an
 * aggregate.  A dashboard's `GROUP BY 1 ORDER BY 1` is planned so even
 * over four rows, and so are groups past work_mem: there a key that
 * raises at a late row wins over a NaN at the first, which under a
 * HashAggregate would win.  The scan then holds back the aggregates'
 * errors until every row's keys are computed (group_agg.h,
 * errors_after_keys).
 */
#include "plan_paths.h"

extern "C" {
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
}

namespace gpu_histogram {

namespace {

/* add_path's STD_FUZZ_FACTOR: costs closer than this are equal, and the startup decides */
constexpr double kCostFuzz = 1.01;

/*
 * Whether path reads its rows into an aggregate only after a Sort of all
 * of them: the lowest aggregate (a plain one, or the partial one under a
 * Finalize) is sorted, over a Sort.  A GroupAggregate over input already
 * in order (an index) takes its rows one at a time, as HashAggregate does.
 */
bool aggregates_after_sort(Path *path)
{
    for (;;) {
        switch (path->pathtype) {
        case T_Agg: {
            if (!IsA(path, AggPath))
                return false;
            AggPath *agg = reinterpret_cast<AggPath *>(path);
            if (DO_AGGSPLIT_COMBINE(agg->aggsplit)) { /* a Finalize: the rows are read below */
                path = agg->subpath;
                continue;
            }
            if (agg->aggstrategy != AGG_SORTED)
                return false;
            Path *input = agg->subpath;
            while (IsA(input, ProjectionPath))
                input = reinterpret_cast<ProjectionPath *>(input)->subpath;
            return input->pathtype == T_Sort || input->pathtype == T_IncrementalSort;
        }
        case T_Sort:
        case T_IncrementalSort:
            path = reinterpret_cast<SortPath *>(path)->subpath;
            continue;
        case T_Gather:
            path = reinterpret_cast<GatherPath *>(path)->subpath;
            continue;
        case T_GatherMerge:
            path = reinterpret_cast<GatherMergePath *>(path)->subpath;
            continue;
        case T_Result:
            if (!IsA(path, ProjectionPath))
                return false;
            path = reinterpret_cast<ProjectionPath *>(path)->subpath;
            continue;
        default:
            return false;
        }
    }
}

} // namespace

bool ordinary_plan_sorts_first(PlannerInfo *root, RelOptInfo *grouped_rel)
{
    /*
     * The path the planner would take without the scan, with a Sort added
     * where ORDER BY needs one, as grouping_planner's ordered paths are
     * made: the cheapest in total, where two are within add_path's fuzz of
     * 1% the one that starts sooner (a GroupAggregate over a Sort against a
     * HashAggregate under one, of equal cost over a few rows).
     */
    Path *best = NULL;
    Cost best_total = 0, best_startup = 0;
    ListCell *lc;
    foreach (lc, grouped_rel->pathlist) {
        Path *path = static_cast<Path *>(lfirst(lc));
        Cost total = path->total_cost, startup = path->startup_cost;
        if (root->sort_pathkeys != NIL && !pathkeys_contained_in(root->sort_pathkeys, path->pathkeys)) {
            const SortPath *sort = create_sort_path(root, grouped_rel, path, root->sort_pathkeys, -1.0);
            total = sort->path.total_cost;
            startup = sort->path.startup_cost;
        }
        const bool tied = best != NULL && total <= best_total * kCostFuzz && best_total <= total * kCostFuzz;
        if (best == NULL || (tied ? startup < best_startup : total < best_total)) {
            best = path;
            best_total = total;
            best_startup = startup;
        }
    }
    return best != NULL && aggregates_after_sort(best);
}

} // namespace gpu_histogram
