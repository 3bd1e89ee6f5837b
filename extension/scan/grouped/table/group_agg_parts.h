/*
 * group_agg_parts.h: what group_agg's own files share; nothing else
 * includes it.
 *
 * group_agg.h is the door.  Behind it, group_find.cpp turns a page's tuples
 * into dense group numbers through the table, group_agg.cpp counts by
 * those numbers (on the CPU, or through the GPU service's grouped
 * histograms), and group_rows.cpp makes the groups' rows.
 */
#ifndef GH_SCAN_GROUP_AGG_PARTS_H
#define GH_SCAN_GROUP_AGG_PARTS_H

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
 * the spill, under its key's hash (page_hashes[i]).
 */
void group_agg_find_groups(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n);

/* The same for one tuple t, into page_groups[i] (and page_hashes[i]): the rows' order is the caller's. */
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
 * After a histogram's slots in a group's cells, two counters of what the
 * aggregate's state would know: [0] values seen (the first value of a
 * group is checked at once: its arguments, a NaN), [1] NaN values that
 * came later.  The aggregate raises for those only when it bins its
 * batch, at the latest when the group's row is finished: the scan raises
 * when it makes the group's row (group_rows.cpp).  Counters, not flags, so
 * that the processes' groups merge by adding their cells.
 */
constexpr int32 kValueStateCells = 2;

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

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_AGG_PARTS_H */
