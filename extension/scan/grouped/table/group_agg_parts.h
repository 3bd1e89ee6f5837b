/*
 * group_agg_parts.h: what group_agg's own files share; nothing else
 * includes it.
 *
 * group_agg.h is the door.  Behind it, group_find.cpp turns a page's tuples
 * into dense group numbers through the table, group_agg.cpp counts by
 * those numbers (on the CPU, or through the GPU service's grouped
 * histograms), group_checks.cpp orders a page's rows and checks their
 * values as the ordinary plan would, and group_rows.cpp makes the groups'
 * rows.
 */
#ifndef GH_SCAN_GROUP_AGG_PARTS_H
#define GH_SCAN_GROUP_AGG_PARTS_H

#include <algorithm>
#include <utility>

#include "group_agg.h"

namespace gpu_histogram {

/*
 * A group's key in the table is word 0, the NULL keys' bits, then one word
 * per key (0 for a NULL or text key), then each non-NULL text key as its
 * length and bytes, in key order: equal keys make equal bytes.  The bytes
 * before the text keys:
 */
static inline uint32 group_agg_key_bytes(const GroupAgg *ga)
{
    return static_cast<uint32>(sizeof(int64) * (1 + ga->nkeys));
}

/* keybuf, made at least bytes long. */
void group_agg_reserve_key(GroupAgg *ga, Size bytes);

/*
 * Each of tuples[0 .. n)'s group number into page_groups[i]; kNoGroup if
 * the table is closed and the key is not in it: the tuple then waits in
 * the spill, with its key (group_agg_refused_key()).
 */
void group_agg_find_groups(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n);

/* The same for tuples whose keys were computed before (a spill's): no key is computed again. */
void group_agg_find_keyed(GroupAgg *ga, const SpillKey *keys, int n);

/* A new page: the keys refused on the last one are forgotten. */
static inline void group_agg_forget_refused(GroupAgg *ga)
{
    ga->refused_used = 0;
    ga->refused_last = -1;
}

/* The key of tuple i, whose group is kNoGroup, valid until the page's groups are found again. */
static inline SpillKey group_agg_refused_key(const GroupAgg *ga, int i)
{
    const char *at = ga->refused_keys + ga->page_key_at[i];
    SpillKey key;
    memcpy(&key.hash, at, sizeof key.hash);
    memcpy(&key.len, at + sizeof key.hash, sizeof key.len);
    key.data = at + MAXALIGN(sizeof key.hash + sizeof key.len);
    return key;
}

/*
 * Where every key's span over the page (group_agg_keys_may_raise) has
 * one key, the same group for each of its n tuples, found once: sets
 * page_one.  A table in time order grouped by hour has one hour on most
 * pages.  False, and nothing set, where some key's rows may differ.
 */
bool group_agg_find_one_group(GroupAgg *ga, int n);

/* The same for one tuple t, into page_groups[i]: the rows' order is the caller's. */
void group_agg_find_group(GroupAgg *ga, TupleDesc desc, HeapTupleData *t, int i);

/* The caches of recent groups: made at init, emptied whenever the groups are forgotten. */
void group_agg_find_init(GroupAgg *ga);
void group_agg_find_forget(GroupAgg *ga);

/* A histogram's slots in a row (nbins + 2, or the thresholds' count + 1), from its first cell. */
static inline int32 group_agg_slots(const GroupAgg *ga, int a)
{
    return gh::histogram_slots(ga->specs[a]);
}

/*
 * After a histogram's slots in a group's cells, a counter of the NaN
 * values held back.  A NaN raises at its row, as the aggregate's
 * transition function raises it, except where the plan the scan replaces
 * sorts every row before its aggregates (errors_after_keys): there the
 * scan raises when it makes the group's row (group_rows.cpp), after every
 * row's keys.  A counter, not a flag, so that the processes' groups merge
 * by adding their cells.
 */
constexpr int32 kValueStateCells = 1;

static inline int64 *group_agg_value_state(const GroupAgg *ga, int64 *cells, int a)
{
    return cells + ga->offsets[a] + gh::histogram_slots(ga->specs[a]);
}

static inline const int64 *group_agg_value_state(const GroupAgg *ga, const int64 *cells, int a)
{
    return cells + ga->offsets[a] + gh::histogram_slots(ga->specs[a]);
}

/* Histogram a's values of the current page, and which are NULL (group_agg.h's page_values). */
static inline double *group_agg_page_values(const GroupAgg *ga, int a)
{
    return ga->page_values + static_cast<Size>(a) * MaxHeapTuplesPerPage;
}

static inline bool *group_agg_page_nulls(const GroupAgg *ga, int a)
{
    return ga->page_nulls + static_cast<Size>(a) * MaxHeapTuplesPerPage;
}

/* The values a histogram's slots counted: every value falls in exactly one. */
static inline int64 group_agg_values(const GroupAgg *ga, int a, const int64 *c)
{
    int64 total = 0;
    for (int32 b = 0; b < group_agg_slots(ga, a); b++)
        total += c[b];
    return total;
}


/* Row i's values read ahead (values_read) move to row j, with its tuple. */
static inline void group_agg_move_values(GroupAgg *ga, int i, int j)
{
    for (int a = 0; a < ga->naggs; a++)
        if (ga->values_read[a]) {
            group_agg_page_values(ga, a)[j] = group_agg_page_values(ga, a)[i];
            group_agg_page_nulls(ga, a)[j] = group_agg_page_nulls(ga, a)[i];
        }
}

/* The page's tuples[0 .. n) in reverse order, with their values read ahead. */
static inline void group_agg_reverse(GroupAgg *ga, HeapTupleData *tuples, int n)
{
    std::reverse(tuples, tuples + n);
    for (int a = 0; a < ga->naggs; a++)
        if (ga->values_read[a]) {
            std::reverse(group_agg_page_values(ga, a), group_agg_page_values(ga, a) + n);
            std::reverse(group_agg_page_nulls(ga, a), group_agg_page_nulls(ga, a) + n);
        }
}


/* ---- group_agg.cpp ---- */

/*
 * Aggregate a's column for the page, into its values and nulls, unless
 * read already; a float column another aggregate read is copied from it.
 */
void group_agg_read_page_values(GroupAgg *ga, int a, TupleDesc desc, HeapTupleData *tuples, int n);
/*
 * Each aggregate over the page's n rows, their groups found and their
 * values checked as their order requires (reversed: tuples[] and the
 * values read run from the page's last row to its first).  tuples may be
 * NULL where every aggregate's values were read (group_page.cpp): none of
 * count(col), a numeric or an integer value aggregate.
 */
void group_agg_count_page(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed);

/* ---- group_page.cpp ---- */
/* What group_agg_init records of the keys and aggregates for group_agg_page_pass (GroupAgg.page_pass). */
int group_agg_page_pass_shape(const GroupAgg *ga);


/* ---- group_checks.cpp: the rows' order, and the checks of the aggregates' values ---- */

/*
 * What the aggregate's transition function checks of a page's float8
 * values of histogram a, in the page's order (rows last to first when
 * reversed): the first NaN raises, or under errors_after_keys waits in its
 * group's value state.  NaN values become NULLs, which no loop bins.
 */
void group_agg_check_values(GroupAgg *ga, int a, double *values, bool *nulls, int n, bool reversed);

/*
 * Value x of histogram a, whose arguments are invalid: raises the
 * aggregate's error, or under errors_after_keys holds the first such value
 * back for group_agg_raise_held.
 */
void group_agg_spec_error(GroupAgg *ga, int a, double x);

/* Whether any histogram's values may raise; how many. */
bool group_agg_values_may_raise(const GroupAgg *ga, int *how_many);

/* The checks of row t's values, in the aggregates' order, its group being number g (kNoGroup: spilled). */
void group_agg_check_row_values(GroupAgg *ga, TupleDesc desc, HeapTupleData *t, uint32 g);

/* At the first row that reaches the aggregates: the gate's callback, then the cells laid out, in caller. */
void group_agg_first_row(GroupAgg *ga, const HistogramArgs *args, const RowGate *gate, MemoryContext caller);

/*
 * The rows in line-pointer order, each through the WHERE clause, its keys,
 * then its values' checks, as the ordinary plan takes one row before the
 * next; those that pass move up with their groups.  How many.
 */
int group_agg_find_groups_in_order(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n,
                                   const HistogramArgs *args, const RowGate *gate, MemoryContext caller);

/*
 * Whether a key of any of the page's rows may raise: that sends the page
 * through in order.  Each key's span over the page into page_spans.
 */
bool group_agg_keys_may_raise(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n);

/*
 * How many histograms have a value among the page's rows that may raise
 * (read into the page's values, in step with the tuples): with the WHERE
 * clause, any sends the page through in order; of several histograms, two
 * or more are checked row by row, for which raises first.
 */
int group_agg_page_values_raising(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n);

/* The rows that pass the WHERE clause, in their order (nothing else of theirs may raise); how many. */
int group_agg_filter_in_order(GroupAgg *ga, HeapTupleData *tuples, int n, const HistogramArgs *args,
                              const RowGate *gate, MemoryContext caller);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_AGG_PARTS_H */
