/*
 * plan_args.h: evaluating the fixed arguments of gpu_histogram() once per
 * query (plan_args.cpp), as the rest of the extension sees it: one call
 * that installs the planner hook.
 */
#ifndef GH_PLAN_ARGS_H
#define GH_PLAN_ARGS_H

namespace gpu_histogram {

/* _PG_init: installs the planner hook, after any hook already there. */
void gpu_histogram_plan_args_init(void);

} // namespace gpu_histogram

#endif /* GH_PLAN_ARGS_H */
