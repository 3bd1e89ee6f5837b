/*
 * grouping_shared.cpp: the grouping policy of finished rows, each group
 * merged once across the processes (grouping_policy.h).
 *
 * Under a Gather with no aggregate above it, the processes merge their
 * groups themselves (merge/shared_groups.h): each leaves its groups
 * in the query's shared memory area when it has read its share (or when
 * they fill the memory bound), waits until every process has, and then
 * merges and emits the finished rows of its share of the groups, in one
 * pass or, for a share larger than the bound, part by part.  A process
 * that ran alone and never outgrew the bound emits its groups as they are.
 * A serial plan with no aggregate above the scan, or a parallel one run
 * without a parallel context (a portal run in parts gets no workers), is
 * such a process: it makes an area and files of its own only if its
 * groups fill the memory bound.
 */
#include "grouping_policy.h"
#include "leaf_merge.h"

extern "C" {
#include "executor/nodeHash.h"
#include "storage/lwlock.h"
}

namespace gpu_histogram {

namespace {

/* parts of a share, each an open temporary file with a block of buffer while they are written */
constexpr uint64 kMaxParts = 256;

struct SharedMerge {
    GroupingPolicy policy;
    TableRounds rounds;  /* at the input's end, the table's rounds before the merge */
    enum class State : uint8 {
        collecting,      /* rounds into the table, left for the merge */
        rows,            /* a round's or a merged pass's groups go out */
        done,
    } state;
    bool last;          /* the rows going out are the last */
    SharedGroups *sg;   /* in the scan's DSM, or local_sg, or the Append's (leaves) */
    bool leaves;        /* a leaf whose groups the Append's last leaf emits (leaf_merge.h) */
    SharedGroups *leaf_sg; /* ... then, with workers, the leaf's own processes (in the scan's DSM) */
    dsa_area *area;     /* the query's area, or local_area once one is needed */
    SharedGroups local_sg;
    dsa_area *local_area;
    bool local_files;   /* local_sg's file set is set up */
    bool left_any;      /* groups were left in the area this scan (shared_groups_leave) */
    GroupSpill spill;   /* this process's groups beyond the area's bound */
    GroupShare share;   /* the groups this process merges and emits */
    uint32 pass;        /* ... one part of its hashes at a time */
    uint32 passes;
    BufFile **parts;    /* with several passes, each part's groups in a temporary file */
    uint64 *part_records;
};

SharedMerge *merge_of(GroupingPolicy *p)
{
    return reinterpret_cast<SharedMerge *>(p);
}

const SharedMerge *merge_of(const GroupingPolicy *p)
{
    return reinterpret_cast<const SharedMerge *>(p);
}

/* The area the groups are left in: the query's, or one of this process's own, made when first needed. */
dsa_area *merge_area(SharedMerge *m)
{
    if (m->leaves) {
        m->area = leaf_merge_area(m->policy.g); /* the Append's: the query's, or one every leaf shares */
        return m->area;
    }
    if (m->area == NULL) {
        m->local_area = dsa_create(LWTRANCHE_PARALLEL_QUERY_DSA);
        m->area = m->local_area;
    }
    return m->area;
}

/* Before the first block: false if every process that joined already finished. */
bool shared_start(GroupingPolicy *p)
{
    SharedMerge *m = merge_of(p);
    ScanExec *s = m->policy.g->s;
    if (m->policy.g->merge != NULL) {
        /* a leaf: its groups go to the Append's; with workers, its own processes are counted */
        m->leaves = true;
        m->sg = leaf_merge_start(m->policy.g);
        m->leaf_sg = s->shared != NULL ? m->policy.g->shared_groups : NULL;
        return m->leaf_sg == NULL || shared_groups_join(m->leaf_sg);
    }
    if (s->shared != NULL) {
        m->sg = m->policy.g->shared_groups;
        m->area = s->area;
    } else {
        /* no parallel context (a portal run in parts, or no shared memory): this process is alone */
        if (!m->local_files) {
            /* once: the files go with the query's memory, after an error too */
            shared_groups_init(&m->local_sg);
            shared_groups_init_local_files(&m->local_sg, s->css.ss.ps.state->es_query_cxt);
            m->local_files = true;
        } else {
            shared_groups_reset(&m->local_sg, NULL); /* its area went at shared_end() */
        }
        m->sg = &m->local_sg;
    }
    return shared_groups_join(m->sg);
}

bool shared_alone(const SharedMerge *m)
{
    return !m->leaves && m->policy.g->s->shared == NULL && !m->left_any;
}

/* The table's groups are left in the area (or files) for the merge, and the table starts again. */
void shared_put_away(SharedMerge *m)
{
    GroupAgg *ga = &m->policy.g->table;
    if (ga->laid_out)
        shared_groups_leave(m->sg, merge_area(m), &ga->table, &m->spill);
    group_agg_restart(ga);
    m->left_any = true;
}

/*
 * Finished rows may not repeat a key, and a key may have tuples in the
 * spill too: the groups go out before the spill's only where each key is
 * then in one pass alone, the table's or one partition's.  That is so for
 * a process alone that left no group in the area, and whose groups the
 * GPU's cells (whose keys may have spilled tuples too) hold none of.
 */
bool shared_rows_before_spill(const SharedMerge *m)
{
    return shared_alone(m) && !grouped_pages_hold_groups(&m->policy.g->pages);
}

/* Pass m->pass of this process's share into an empty table (some process counted a row: the arguments are known). */
void merge_pass(SharedMerge *m)
{
    GroupedRows *g = m->policy.g;
    group_agg_restart(&g->table);
    grouped_rows_prepare_arguments(g);
    group_agg_lay_out(&g->table, g->s->args);
    if (m->passes == 1) {
        shared_groups_merge(m->sg, m->area, &g->table.table, m->share);
    } else {
        shared_groups_merge_part(&g->table.table, m->parts[m->pass], m->part_records[m->pass]);
        BufFileClose(m->parts[m->pass]); /* a temporary file: gone once closed */
        m->parts[m->pass] = NULL;
    }
    g->table.collected = true; /* every cell is in the table: none is on the GPU */
}

/*
 * This process's groups are collected: a process alone emits them as they
 * are; any other leaves them, waits for the others, and merges its share
 * of everyone's groups (the first pass of it).  A leaf's process leaves
 * them for the Append's and goes on, unless it finished the last leaf:
 * then it merges every leaf's.  false if there is no row.
 */
bool shared_finish(SharedMerge *m)
{
    GroupAgg *ga = &m->policy.g->table;
    if (!m->leaves && shared_groups_close_alone(m->sg)) {
        /* no other process took part and none of its groups were left: they are all here */
        m->passes = 1;
        m->pass = 0;
        return ga->laid_out;
    }
    if (ga->laid_out)
        shared_groups_leave(m->sg, merge_area(m), &ga->table, &m->spill);
    group_agg_restart(ga);
    if (m->leaves) {
        shared_groups_spill_close(&m->spill); /* the last leaf's process reads it */
        if (!leaf_merge_leaf_done(m->policy.g, m->leaf_sg))
            return false;
        /* every leaf is done: this process merges all their groups, in the Append's area */
        m->share = shared_groups_whole(m->sg);
        merge_area(m);
    } else {
        m->share = shared_groups_finish(m->sg, &m->spill);
    }
    if (m->share.bytes == 0)
        return false;
    const uint64 mine = m->share.bytes / static_cast<uint64>(Max(m->share.shares, 1));
    const uint64 limit = Max(static_cast<uint64>(get_hash_memory_limit()), 1);
    /* as HashAggregate's spill: each part of the share fits the memory bound (up to kMaxParts) */
    m->passes = static_cast<uint32>(Min(mine / limit + 1, static_cast<uint64>(kMaxParts)));
    m->pass = 0;
    if (m->passes > 1) {
        /* laid out for the counters' number, which a process that counted no row does not know yet */
        group_agg_restart(ga);
        grouped_rows_prepare_arguments(m->policy.g);
        group_agg_lay_out(ga, m->policy.g->s->args);
        m->parts = static_cast<BufFile **>(palloc0(sizeof(BufFile *) * m->passes));
        m->part_records = static_cast<uint64 *>(palloc0(sizeof(uint64) * m->passes));
        for (uint32 p = 0; p < m->passes; p++)
            m->parts[p] = BufFileCreateTemp(false);
        shared_groups_partition(m->sg, m->area, m->share, ga->table.ncells, m->parts, m->part_records,
                                m->passes);
    }
    elog(DEBUG1, "gpu_histogram scan: this process merges share %d of %d of %llu bytes of groups in %u pass%s",
         m->share.index + 1, m->share.shares, static_cast<unsigned long long>(m->share.bytes), m->passes,
         m->passes == 1 ? "" : "es");
    merge_pass(m);
    return true;
}

/*
 * At the input's end, the table's next round (grouping_policy.h): left
 * for the merge, or, where nothing else can hold its keys, finished and
 * taken as rows.  false when every round went and there are no rows.
 */
bool shared_next_rows(SharedMerge *m)
{
    GroupedRows *g = m->policy.g;
    while (table_rounds_next(g, &m->rounds)) {
        m->last = table_rounds_last(g, &m->rounds);
        if (m->last || (!table_rounds_gpu_pending(&m->rounds) && shared_rows_before_spill(m)))
            return shared_finish(m);
        if (table_rounds_gpu_pending(&m->rounds))
            g->flushes++; /* the GPU's groups outgrew the bound */
        shared_put_away(m);
    }
    return false;
}

/* The merged groups' rows; with several passes, this process merges its share part by part. */
bool next_merged_row(SharedMerge *m, TupleTableSlot *slot)
{
    GroupedRows *g = m->policy.g;
    for (;;) {
        if (group_agg_next(&g->table, slot, g->s->partial))
            return true;
        if (m->pass + 1 >= m->passes)
            return false;
        m->pass++;
        merge_pass(m);
    }
}

/* Groups that fill the bound are put away; at the input's end, the rounds, then the merged rows. */
bool shared_emit(GroupingPolicy *p, TupleTableSlot *slot, bool input_ended)
{
    SharedMerge *m = merge_of(p);
    if (!input_ended) {
        group_agg_collect(&m->policy.g->table);
        shared_put_away(m);
        return false;
    }
    for (;;) {
        switch (m->state) {
        case SharedMerge::State::collecting:
            m->state = shared_next_rows(m) ? SharedMerge::State::rows : SharedMerge::State::done;
            break;
        case SharedMerge::State::rows:
            if (next_merged_row(m, slot))
                return true;
            if (m->last) {
                m->state = SharedMerge::State::done;
                break;
            }
            /*
             * The table's rows went out before the spill's (rows_before_spill):
             * so does each partition's, each key in one pass only.
             */
            group_agg_restart(&m->policy.g->table);
            if (!table_rounds_next(m->policy.g, &m->rounds)) {
                m->state = SharedMerge::State::done;
                break;
            }
            m->last = table_rounds_last(m->policy.g, &m->rounds);
            break;
        case SharedMerge::State::done:
            return false;
        }
    }
}

bool shared_holds_nothing(const GroupingPolicy *p)
{
    const SharedMerge *m = merge_of(p);
    const GroupAgg *ga = &m->policy.g->table;
    return shared_alone(m) && !group_agg_spilled(ga) && (!ga->laid_out || ga->table.ngroups == 0);
}

/* The leader's rescan resets the shared groups (reinitialize_dsm); this process's side starts again. */
void shared_reset(GroupingPolicy *p)
{
    SharedMerge *m = merge_of(p);
    m->rounds = TableRounds{};
    m->state = SharedMerge::State::collecting;
    m->last = false;
    m->sg = NULL;
    m->leaf_sg = NULL;
    m->share = GroupShare{};
    m->pass = m->passes = 0;
    m->left_any = false;
}

/* The groups live in the query's memory; files and an area of the scan's own go now. */
void shared_end(GroupingPolicy *p)
{
    SharedMerge *m = merge_of(p);
    shared_groups_spill_close(&m->spill);
    for (uint32 i = 0; m->parts != NULL && i < m->passes; i++)
        if (m->parts[i] != NULL)
            BufFileClose(m->parts[i]);
    m->parts = NULL;
    if (m->local_area != NULL)
        dsa_detach(m->local_area);
    m->local_area = NULL;
    m->area = NULL;
}

} // namespace

GroupingPolicy *shared_grouping(GroupedRows *g)
{
    SharedMerge *m = static_cast<SharedMerge *>(palloc0(sizeof(SharedMerge)));
    m->policy = GroupingPolicy{g,           shared_start,         table_add_rows, table_full,
                               shared_emit, shared_holds_nothing, shared_reset,   shared_end};
    return &m->policy;
}

} // namespace gpu_histogram
