/*
 * group_checks.cpp: what the aggregates and the WHERE clause check of a
 * page's rows, in the order the ordinary plan checks them (group_agg_parts.h).
 *
 * An error must come from the row that raises it under the ordinary plan:
 * the first of a group's values (its arguments, a NaN), a key that raises,
 * a WHERE clause.  group_agg.cpp counts; this file decides the order in
 * which a page's rows reach it, and checks the values the aggregate's
 * transition function would.
 */
#include "group_agg_parts.h"

#include <cmath>

#include "../../../errors.h"
#include "../../heap/heap_columns.h"
#include "../../quals/heap_tuple_exprs.h"
#include "../../quals/native_quals.h"

extern "C" {
#include "executor/executor.h"
}

namespace gpu_histogram {

namespace {


/*
 * What the aggregate's transition function does with value x of group g:
 * a NaN raises at its row, the group's first value or a later one.  Where
 * the plan replaced sorts the rows first (errors_after_keys), it waits in
 * the group's value state (group_agg_parts.h) until the group's row is
 * made, after every row's keys.
 */
void check_value(GroupAgg *ga, int a, uint32 g, double x)
{
    if (likely(!std::isnan(x)))
        return;
    if (!ga->errors_after_keys)
        report_engine_status(gh::Status::nan_value);
    group_agg_value_state(ga, group_agg_cells(ga, g), a)[0]++;
}


/* Whether aggregate a's values may raise: a histogram's first value under invalid arguments, a NaN of the float8 form. */
bool histogram_may_raise(const GroupAgg *ga, int a)
{
    return ga->aggs[a].kind == AggKind::histogram && !ga->args[a].skip &&
           (!ga->spec_valid[a] || ga->specs[a].kind == gh::SpecKind::float_interval);
}


/* Whether t passes the native clauses left to its row, then the executor's. */
bool row_passes(const RowGate *gate, HeapTupleData *t)
{
    if (gate->native != NULL && !native_quals_pass(*gate->native, gate->desc, t))
        return false;
    if (gate->qual == NULL)
        return true;
    (*gate->evaluated)++;
    return heap_tuple_qual_passes(gate->qual, gate->slot, gate->econtext, t);
}

/* After a page's rows: the slot the executor's clause used lets its tuple go. */
void gate_done(const RowGate *gate)
{
    if (gate->qual != NULL)
        ExecClearTuple(gate->slot);
}


} // namespace

/*
 * check_value() for a page's float8 values, in the page's order (rows last
 * to first when reversed).  NaN values are taken out of the page's (as
 * NULLs): no loop bins them.  A page without a NaN costs one pass over its
 * values.
 */
void group_agg_check_values(GroupAgg *ga, int a, double *values, bool *nulls, int n, bool reversed)
{
    bool any = false;
    for (int i = 0; i < n; i++)
        any |= std::isnan(values[i]) && !nulls[i];
    if (likely(!any))
        return;
    for (int j = 0; j < n; j++) {
        const int i = reversed ? n - 1 - j : j;
        if (nulls[i])
            continue;
        check_value(ga, a, ga->page_groups[i], values[i]);
        nulls[i] = nulls[i] || std::isnan(values[i]);
    }
}

void group_agg_spec_error(GroupAgg *ga, int a, double x)
{
    if (!ga->errors_after_keys)
        histogram_first_spec(ga->aggs[a].call, ga->args[a], x); /* raises */
    if (!ga->spec_error_held) {
        ga->spec_error_held = true;
        ga->held_agg = a;
        ga->held_value = x;
    }
}

namespace {

/* A leaf's error into the Append's entry, unless an earlier one is there: the first is raised. */
void hold_first(HeldError *held, const HeldError &error)
{
    if (!held->nan && !held->spec)
        *held = error;
}

} // namespace

void group_agg_raise_held(GroupAgg *ga)
{
    if (!ga->spec_error_held)
        return;
    if (ga->defer_to == NULL)
        histogram_first_spec(ga->aggs[ga->held_agg].call, ga->args[ga->held_agg], ga->held_value); /* raises */
    else
        hold_first(ga->defer_to, HeldError{false, true, ga, ga->held_agg, ga->held_value});
}

void group_agg_raise_error(const HeldError *held)
{
    if (held->nan)
        report_engine_status(gh::Status::nan_value);
    if (held->spec)
        histogram_first_spec(held->ga->aggs[held->agg].call, held->ga->args[held->agg], held->value); /* raises */
}

void group_agg_nan(GroupAgg *ga)
{
    if (ga->defer_to == NULL)
        report_engine_status(gh::Status::nan_value); /* raises */
    else
        hold_first(ga->defer_to, HeldError{true, false, NULL, 0, 0});
}

/* Whether any histogram's values may raise; how many. */
bool group_agg_values_may_raise(const GroupAgg *ga, int *how_many)
{
    int n = 0;
    for (int a = 0; a < ga->naggs; a++)
        n += histogram_may_raise(ga, a) ? 1 : 0;
    *how_many = n;
    return n > 0;
}


/*
 * What the aggregates' transition functions check of row t, in their
 * order, the row's group being number g: a histogram's first value
 * checks its arguments (each group's first value, as the aggregate
 * creates a state per group), and any value raises for a NaN
 * (check_value).
 */
void group_agg_check_row_values(GroupAgg *ga, TupleDesc desc, HeapTupleData *t, uint32 g)
{
    for (int a = 0; a < ga->naggs; a++) {
        if (!histogram_may_raise(ga, a))
            continue;
        double x;
        bool isnull;
        heap_column_values_each(ga->columns[a], desc, t, 1, &x, &isnull);
        if (isnull)
            continue;
        if (!ga->spec_valid[a]) {
            group_agg_spec_error(ga, a, x);
            continue;
        }
        if (g != kNoGroup) /* else its group waits in the spill, and so do its checks */
            check_value(ga, a, g, x);
    }
}


/*
 * Lays the cells out at the first row that reaches the aggregates, its
 * arguments evaluated first, in the caller's memory context (not a page's).
 */
void group_agg_first_row(GroupAgg *ga, const HistogramArgs *args, const RowGate *gate, MemoryContext caller)
{
    MemoryContext page = MemoryContextSwitchTo(caller);
    if (gate != NULL && gate->first_row != NULL)
        gate->first_row(gate->arg);
    group_agg_lay_out(ga, args);
    MemoryContextSwitchTo(page);
}


/*
 * The rows in line-pointer order, each through the WHERE clause, its keys,
 * then its values' checks: what the ordinary plan does to one row before
 * the next.  Those that pass move up, with their groups; how many.
 */
int group_agg_find_groups_in_order(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, const HistogramArgs *args,
                         const RowGate *gate, MemoryContext caller)
{
    int kept = 0, raising = 0;
    bool check = false;
    for (int i = 0; i < n; i++) {
        if (row_gate_filters(gate) && !row_passes(gate, &tuples[i]))
            continue;
        if (unlikely(kept == 0)) { /* the page's first row that passes (its callback is cheap once done) */
            group_agg_first_row(ga, args, gate, caller);
            check = group_agg_values_may_raise(ga, &raising);
        }
        group_agg_find_group(ga, desc, &tuples[i], kept);
        if (check)
            group_agg_check_row_values(ga, desc, &tuples[i], ga->page_groups[kept]);
        tuples[kept++] = tuples[i];
    }
    if (gate != NULL)
        gate_done(gate);
    return kept;
}


/* Whether a key of any of the page's rows may raise. */
bool group_agg_keys_may_raise(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    for (int k = 0; k < ga->nkeys; k++)
        ga->page_spans[k].known = false;
    for (int k = 0; k < ga->nkeys; k++)
        if (group_key_page_may_raise(&ga->keys[k], desc, tuples, n, &ga->page_spans[k]))
            return true;
    return false;
}


/*
 * How many histograms have a value among the page's rows that may raise:
 * any value of one whose arguments are invalid, a NaN of the float8 form.
 * Rows the WHERE clause will refuse count too: this only chooses the path.
 * The values read stay, in step with the tuples, for count_histogram.
 */
int group_agg_page_values_raising(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n)
{
    int raising = 0;
    for (int a = 0; a < ga->naggs; a++) {
        if (!histogram_may_raise(ga, a))
            continue;
        group_agg_read_page_values(ga, a, desc, tuples, n);
        const double *values = group_agg_page_values(ga, a);
        const bool *nulls = group_agg_page_nulls(ga, a);
        for (int i = 0; i < n; i++)
            if (!nulls[i] && (!ga->spec_valid[a] || std::isnan(values[i]))) {
                raising++;
                break;
            }
    }
    return raising;
}


/* The rows that pass the WHERE clause, in their order (nothing else of theirs may raise); how many. */
int group_agg_filter_in_order(GroupAgg *ga, HeapTupleData *tuples, int n, const HistogramArgs *args, const RowGate *gate,
                    MemoryContext caller)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (!row_passes(gate, &tuples[i]))
            continue;
        if (kept == 0)
            group_agg_first_row(ga, args, gate, caller);
        group_agg_move_values(ga, i, kept);
        tuples[kept++] = tuples[i];
    }
    gate_done(gate);
    return kept;
}

} // namespace gpu_histogram
