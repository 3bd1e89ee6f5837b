/*
 * key_params.h: a GROUP BY key of a prepared statement's generic plan, with
 * the values of its parameters.
 *
 * A generic plan (plan_cache_mode = force_generic_plan, or auto once
 * PostgreSQL finds it no dearer than the custom ones) keeps $1 in a key
 * such as floor(extract(epoch FROM ts) / $1) * $1, where a custom plan's
 * planner would have put the value, and the recognisers of group_keys.h
 * take a step only by a constant: that key was the executor's, row by
 * row, while the custom plan's runs on the GPU's pages.  When the scan
 * starts, the values are known and fixed for the run, so each extern
 * parameter becomes a constant, and a cast of a constant that cannot
 * raise (an integer to a wider number) is folded, as the custom plan's
 * planner would have done.  Nothing that can raise is evaluated here: the
 * run raises what the ordinary plan raises, and only at a row.
 */
#ifndef GH_SCAN_KEY_PARAMS_H
#define GH_SCAN_KEY_PARAMS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/params.h"
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

/* A copy of key with its extern parameters' values from params (NULL: key itself). */
Expr *key_params_bound(Expr *key, ParamListInfo params);

} // namespace gpu_histogram

#endif /* GH_SCAN_KEY_PARAMS_H */
