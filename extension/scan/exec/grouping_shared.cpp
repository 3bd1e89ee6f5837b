/*
 * grouping_shared.cpp: the grouping policy of finished rows, each group
 * merged once across the processes (grouping_policy.h).
 *
 * Under a Gather with no aggregate above it, the processes merge their
 * groups themselves (scan/group/shared_groups.h): each leaves its groups
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

#include "../group/shared_groups.h"

extern "C" {
#include "executor/nodeHash.h"
#include "storage/lwlock.h"
}

/* The merge's own state. */
struct SharedMerge {
    SharedGroups *sg;   /* in the scan's DSM, or local_sg */
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

namespace {

/* parts of a share, each an open temporary file with a block of buffer while they are written */
constexpr uint64 kMaxParts = 256;

void begin(ScanExec *s)
{
    s->grouped->merge = static_cast<SharedMerge *>(palloc0(sizeof(SharedMerge)));
}

/* The area the groups are left in: the query's, or one of this process's own, made when first needed. */
dsa_area *merge_area(SharedMerge *m)
{
    if (m->area == NULL) {
        m->local_area = dsa_create(LWTRANCHE_PARALLEL_QUERY_DSA);
        m->area = m->local_area;
    }
    return m->area;
}

/* Before the first block: false if every process that joined already finished. */
bool start(ScanExec *s)
{
    SharedMerge *m = s->grouped->merge;
    if (s->shared != NULL) {
        m->sg = &s->shared->groups;
        m->area = s->area;
    } else {
        /* no parallel context (a portal run in parts, or no shared memory): this process is alone */
        if (!m->local_files) {
            /* once: the files go with the query's memory, after an error too */
            shared_groups_init(&m->local_sg);
            shared_groups_init_local_files(&m->local_sg, s->css.ss.ps.state->es_query_cxt);
            m->local_files = true;
        } else {
            shared_groups_reset(&m->local_sg, NULL); /* its area went at end() */
        }
        m->sg = &m->local_sg;
    }
    return shared_groups_join(m->sg);
}

bool alone(const ScanExec *s)
{
    return s->shared == NULL && !s->grouped->merge->left_any;
}

/* The groups are left in the area (or files) for the merge, and the scan goes on with none. */
bool put_away(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    SharedMerge *m = g->merge;
    if (g->group_agg.laid_out)
        shared_groups_leave(m->sg, merge_area(m), &g->group_agg.table, &m->spill);
    group_agg_restart(&g->group_agg);
    m->left_any = true;
    return true;
}

/*
 * Finished rows may not repeat a key, and a key may have tuples in the
 * spill too: the groups go out before the spill's only where each key is
 * then in one pass alone, the table's or one partition's.  That is so for
 * a process alone that left no group in the area, and whose groups the
 * GPU's cells (whose keys may have spilled tuples too) hold none of.
 */
bool rows_before_spill(const ScanExec *s)
{
    return alone(s) && !grouped_pages_hold_groups(&s->grouped->pages);
}

/* Pass m->pass of this process's share into an empty table (some process counted a row: the arguments are known). */
void merge_pass(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    SharedMerge *m = g->merge;
    group_agg_restart(&g->group_agg);
    grouped_rows_prepare_arguments(s);
    group_agg_lay_out(&g->group_agg, s->args);
    if (m->passes == 1) {
        shared_groups_merge(m->sg, m->area, &g->group_agg.table, m->share);
    } else {
        shared_groups_merge_part(&g->group_agg.table, m->parts[m->pass], m->part_records[m->pass]);
        BufFileClose(m->parts[m->pass]); /* a temporary file: gone once closed */
        m->parts[m->pass] = NULL;
    }
    g->group_agg.collected = true; /* every cell is in the table: none is on the GPU */
}

/*
 * This process read its share of the table and its groups are collected:
 * it leaves them, waits for the others, and merges its share of everyone's
 * groups (the first pass of it).  false if no process counted a row.
 */
bool finish(ScanExec *s)
{
    GroupedRows *g = s->grouped;
    SharedMerge *m = g->merge;
    GroupAgg *ga = &g->group_agg;
    if (shared_groups_close_alone(m->sg)) {
        /* no other process took part and none of its groups were left: they are all here */
        m->passes = 1;
        return ga->laid_out;
    }
    if (ga->laid_out)
        shared_groups_leave(m->sg, merge_area(m), &ga->table, &m->spill);
    group_agg_restart(ga);
    m->share = shared_groups_finish(m->sg, &m->spill);
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
        grouped_rows_prepare_arguments(s);
        group_agg_lay_out(ga, s->args);
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
    merge_pass(s);
    return true;
}

/* The merged groups' rows; with several passes, this process merges its share part by part. */
bool next_row(ScanExec *s, TupleTableSlot *slot)
{
    GroupedRows *g = s->grouped;
    SharedMerge *m = g->merge;
    for (;;) {
        if (group_agg_next(&g->group_agg, slot, s->partial))
            return true;
        if (m->pass + 1 >= m->passes)
            return false;
        m->pass++;
        merge_pass(s);
    }
}

/* The groups live in the query's memory; files and an area of the scan's own go now. */
void end(ScanExec *s)
{
    SharedMerge *m = s->grouped->merge;
    shared_groups_spill_close(&m->spill);
    for (uint32 p = 0; m->parts != NULL && p < m->passes; p++)
        if (m->parts[p] != NULL)
            BufFileClose(m->parts[p]);
    m->parts = NULL;
    if (m->local_area != NULL)
        dsa_detach(m->local_area);
    m->local_area = NULL;
    m->area = NULL;
}

/* The leader's rescan resets the shared groups (reinitialize_dsm); this process's side starts again. */
void rescan(ScanExec *s)
{
    SharedMerge *m = s->grouped->merge;
    m->sg = NULL;
    m->share = GroupShare{};
    m->pass = m->passes = 0;
    m->left_any = false;
}

} // namespace

const GroupingPolicy shared_groups_grouping = {
    begin,
    start,
    alone,
    put_away,
    rows_before_spill,
    finish,
    next_row,
    end,
    rescan,
};
