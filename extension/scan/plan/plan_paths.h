/*
 * plan_paths.h: what the scan's planner files share: the checks of a query
 * and of one table (plan_fit.cpp), and the paths built from them
 * (scan_path.cpp).
 *
 * plan.cpp offers the scan over one table; partitions.cpp offers it over
 * the leaf tables of a partitioned table or an inheritance tree, each leaf
 * a partial aggregation under one Append, with the Vars of the query
 * translated to each leaf's own.
 */
#ifndef GH_SCAN_PLAN_PATHS_H
#define GH_SCAN_PLAN_PATHS_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace gpu_histogram {

/* The query, whatever table it reads: its GROUP BY keys and its aggregates. */
struct QueryShape {
    List *keys;    /* the GROUP BY expressions, in groupClause order */
    List *aggrefs; /* the distinct Aggrefs, gpu_histogram() or count() */
};

/* What the planner found out about one table the scan can read. */
struct Candidate {
    Index relid;
    List *quals;    /* the WHERE clause, lowest security level first */
    int nhist;      /* distinct aggregates: gpu_histogram() calls and counts */
    int ncells;     /* estimated counters per group */
    List *keys;     /* the GROUP BY expressions, in this table's Vars */
    double groups;  /* estimated groups */
    /*
     * Groups past the memory bound: the share of the rows whose tuples the
     * scan writes to its spill files (tuple_spill.h), and how many times
     * (the depths of its partitions); 0 where the groups fit or come in the
     * table's order.
     */
    double spill_share;
    double spill_depth;
    double read_fraction; /* of the table's pages, after a BRIN index or the pages' ranges (brin_cost.cpp, ranges_cost.cpp) */
    bool parallel_safe_args;
    bool no_partial_states; /* an aggregate whose partial state the scan does not emit: sum and avg of int8 */
    bool exact_sums;        /* a float sum or mean: groups merge only in the scan, never by float8_combine (value_aggs.h) */
    bool errors_after_keys; /* the ordinary plan sorts every row before its aggregates (ordinary_order.cpp) */
    uint32 leaf_group;      /* an Append's leaves, whose errors or float sums wait for its last (leaf_errors.h, leaf_merge.h); 0: none */
};

/* Whether node reads a column of the table outside the GROUP BY keys and the aggregates (plan_fit.cpp). */
bool column_outside(Node *node, List *keys);

/* The share of rel's pages a BRIN index on quals' columns leaves to read: 1 without one. */
double brin_read_fraction(PlannerInfo *root, RelOptInfo *rel, List *quals);

/*
 * The share of rel's pages the pages' recorded ranges (page_ranges.h) of
 * the range column of quals leave to read: 1 where none are recorded.
 */
double ranges_read_fraction(PlannerInfo *root, RelOptInfo *rel, List *quals);

/* |correlation| of a table's column with its physical order (its statistics), 0 when unknown. */
double column_correlation(Oid relid, AttrNumber attno, bool inh);

/*
 * The query's shape the scan computes: a SELECT whose aggregates are
 * gpu_histogram() calls and count(*) or count(col), with hashable GROUP BY
 * expressions or none, no grouping sets, window functions,
 * set-returning functions or DISTINCT, nothing in the SELECT list outside
 * the keys and aggregates, over one table or one inheritance tree.
 */
bool query_shape_fits(PlannerInfo *root, RelOptInfo *input_rel, QueryShape *shape);

/*
 * Says at DEBUG1 why the scan is not offered, when the query calls
 * gpu_histogram (SET client_min_messages = debug1 shows it); false, for
 * `return scan_declined(...)`.
 */
bool scan_declined(PlannerInfo *root, const char *fmt, ...) pg_attribute_printf(2, 3);

/*
 * Whether the scan reads heap table rel with these keys and aggregates (in
 * rel's Vars): every key one group_keys.h computes, every aggregate over a
 * plain column, the groups within HashAggregate's memory.  Fills *c.
 */
bool rel_fits(PlannerInfo *root, RelOptInfo *rel, List *keys, List *aggrefs, Candidate *c);

/* The scan of rel as a path of output_rel, emitting target; workers > 0: parallel-aware. */
CustomPath *make_scan_path(PlannerInfo *root, RelOptInfo *rel, RelOptInfo *output_rel, PathTarget *target,
                           const Candidate &c, int workers);

/* The keys and the partial (serialized) aggregates of target, as each partial scan emits them. */
PathTarget *partial_target(PlannerInfo *root, PathTarget *target);

/*
 * Finalize Aggregate over subpath's partial rows into grouped_rel; grouped:
 * by the query's keys; c sizes the states.
 */
Path *finalize_path(PlannerInfo *root, RelOptInfo *grouped_rel, Path *subpath, bool grouped, double groups,
                    const Candidate &c);

/*
 * Whether the plan the scan replaces in grouped_rel (its paths so far)
 * computes every row's WHERE clause and keys before any aggregate's
 * transition: a GroupAggregate over a Sort (ordinary_order.cpp).
 */
bool ordinary_plan_sorts_first(PlannerInfo *root, RelOptInfo *grouped_rel);

/* The scan over the leaves of inheritance tree parent (partitions.cpp). */
void add_partition_paths(PlannerInfo *root, RelOptInfo *parent, RelOptInfo *grouped_rel, const QueryShape &shape);

} // namespace gpu_histogram

#endif /* GH_SCAN_PLAN_PATHS_H */
