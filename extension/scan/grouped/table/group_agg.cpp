/*
 * group_agg.cpp: a grouped scan's counters, by dense group number
 * (group_agg.h).
 *
 * What a tuple's group is, and where the groups' rows live, is another
 * file's: group_find.cpp gives each tuple of a page its group's number,
 * and the cells of number n are group_agg_cells(n).  Here each histogram's
 * values are counted into them, on the CPU through the engine's one
 * grouped loop or in batches by the GPU service (scan/grouped/table/group_gpu.h),
 * and the counts are read back before the rows go out (group_rows.cpp).
 * In which order a page's rows reach the counters, and what is checked of
 * them on the way, is group_checks.cpp's.
 */
#include "group_agg_parts.h"
#include "value_aggs.h"

#include "../../../errors.h"
#include "../../heap/heap_columns.h"
#include "../../../../gpu/cpu/cpu_backend.h"

extern "C" {
#include "executor/nodeHash.h"
#include "utils/memutils.h"
}

namespace gpu_histogram {

/*
 * Reads aggregate a's column for the page into its values, unless read
 * already.  A float column after a text column is walked tuple by tuple,
 * which was a quarter of a mean line's time on the development machine:
 * a value aggregate's read of the same column (never compacted, as a
 * histogram's is) is copied instead.
 */
void group_agg_read_page_values(GroupAgg *ga, int a, TupleDesc desc, HeapTupleData *tuples, int n)
{
    if (ga->values_read[a])
        return;
    double *values = group_agg_page_values(ga, a);
    bool *nulls = group_agg_page_nulls(ga, a);
    for (int b = 0; b < ga->naggs; b++) {
        if (b == a || !ga->values_read[b] || !value_aggregate_kind(ga->aggs[b].kind) ||
            ga->columns[b].attno != ga->columns[a].attno)
            continue;
        memcpy(values, group_agg_page_values(ga, b), sizeof(double) * n);
        memcpy(nulls, group_agg_page_nulls(ga, b), sizeof(bool) * n);
        ga->values_read[a] = true;
        return;
    }
    heap_column_values_each(ga->columns[a], desc, tuples, n, values, nulls);
    ga->values_read[a] = true;
}

namespace {

/* The one grouped loop (gh::cpu_bin_rows_words) over values[0 .. n) into rows[0 .. n). */
void bin_rows(GroupAgg *ga, int a, const double *values, int64 *const *rows, int n)
{
    report_engine_status(gh::cpu_bin_rows_words(ga->specs[a], values, rows, static_cast<size_t>(n)));
    ga->values_binned += static_cast<uint64>(n);
}

/* A value aggregate over the page's tuples, into the groups' cells. */
void count_value_agg(GroupAgg *ga, int a, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed)
{
    const int32 off = ga->offsets[a];
    const bool floats = ga->aggs[a].coltype == FLOAT8OID || ga->aggs[a].coltype == FLOAT4OID;
    if (floats)
        group_agg_read_page_values(ga, a, desc, tuples, n);
    const double *values = floats ? group_agg_page_values(ga, a) : NULL;
    const bool *nulls = floats ? group_agg_page_nulls(ga, a) : NULL;
    if (ga->page_one) {
        value_agg_add_one(ga->aggs[a], ga->columns[a], desc, tuples, values, nulls, ga->page_cells[0] + off, n,
                          reversed);
        return;
    }
    for (int i = 0; i < n; i++)
        ga->page_rows[i] = ga->page_cells[i] + off;
    /* in the rows' order, for the float sums: the tuples are reversed where the keys went fast */
    value_agg_add(ga->aggs[a], ga->columns[a], desc, tuples, values, nulls, ga->page_rows, n, reversed);
}

/*
 * One histogram over the page's tuples: values whose group the GPU holds
 * go into its buffer, the others into their groups' rows on the CPU.
 */
void count_histogram(GroupAgg *ga, int a, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed)
{
    const HistogramArgs &arg = ga->args[a];
    if (arg.skip)
        return;
    double *values = group_agg_page_values(ga, a);
    bool *nulls = group_agg_page_nulls(ga, a);
    group_agg_read_page_values(ga, a, desc, tuples, n);
    const int32 off = ga->offsets[a];
    if (unlikely(!ga->spec_valid[a])) {
        /* the first value in the page's order gets width_bucket's error */
        for (int j = 0; j < n; j++) {
            const int i = reversed ? n - 1 - j : j;
            if (!nulls[i])
                group_agg_spec_error(ga, a, values[i]);
        }
        return;
    }
    if (ga->specs[a].kind == gh::SpecKind::float_interval)
        group_agg_check_values(ga, a, values, nulls, n, reversed);
    GroupGpu *gg = &ga->gpu[a];
    int kept = 0;
    if (ga->page_one && !group_gpu_takes(gg, ga->page_groups[0])) {
        /* one group: the ungrouped loop into its row, without a row per value */
        for (int i = 0; i < n; i++) {
            values[kept] = values[i];
            kept += nulls[i] ? 0 : 1;
        }
        report_engine_status(gh::cpu_bin_words(ga->specs[a], values, static_cast<size_t>(kept), ga->page_cells[0] + off));
        ga->values_binned += static_cast<uint64>(kept);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (nulls[i])
            continue;
        double x = values[i];
        const uint32 g = ga->page_groups[i];
        int64 *cells = ga->page_cells[i];
        if (group_gpu_takes(gg, g)) {
            /* only the float8 form's batches go to the GPU (lay_out()), never a NaN (check_values) */
            group_gpu_add(gg, x, g, cells + off);
            continue;
        }
        values[kept] = x;
        ga->page_rows[kept++] = cells + off;
    }
    bin_rows(ga, a, values, ga->page_rows, kept);
}

/* Another process's cells of a group into a group's (GroupTable.combine): value aggregates by their state. */
void combine_cells(void *arg, int64 *cells, const int64 *other)
{
    const GroupAgg *ga = static_cast<const GroupAgg *>(arg);
    for (int a = 0; a < ga->naggs; a++) {
        const int32 from = ga->offsets[a];
        const int32 to = a + 1 < ga->naggs ? ga->offsets[a + 1] : ga->table.ncells;
        if (value_aggregate_kind(ga->aggs[a].kind))
            value_agg_combine(ga->aggs[a], cells + from, other + from);
        else
            for (int32 k = from; k < to; k++)
                cells[k] += other[k];
    }
}

/* Each aggregate's cells, once the histograms' arguments are known. */
void lay_out(GroupAgg *ga, const HistogramArgs *args)
{
    int32 ncells = 0;
    for (int a = 0; a < ga->naggs; a++) {
        ga->offsets[a] = ncells;
        if (value_aggregate_kind(ga->aggs[a].kind)) {
            ncells += value_agg_cells(ga->aggs[a]);
            continue;
        }
        if (ga->aggs[a].kind != AggKind::histogram) {
            ncells += 1; /* the rows counted */
            continue;
        }
        if (args[a].skip)
            continue;
        ga->spec_valid[a] = histogram_args_spec(ga->aggs[a].call, args[a], &ga->specs[a]);
        if (ga->spec_valid[a])
            ncells += group_agg_slots(ga, a) + kValueStateCells;
    }
    ga->args = args;
    /* one group is what the ordinary aggregate takes too: bounded only by the keys' groups */
    Size limit = ga->nkeys > 0 ? get_hash_memory_limit() : SIZE_MAX;
    group_table_init(&ga->table, ga->cxt, ncells, limit, ga->can_flush, ga->can_flush);
    for (int a = 0; a < ga->naggs; a++)
        if (value_aggregate_kind(ga->aggs[a].kind)) {
            ga->table.combine = combine_cells;
            ga->table.combine_arg = ga;
        }
    ga->laid_out = true;
    if (!ga->gpu_ready) {
        /* no more groups than the table can hold before it is full */
        Size per_group = group_table_bytes_per_group(ncells, static_cast<int32>(group_agg_key_bytes(ga)));
        uint32 max_groups = ga->nkeys == 0 ? 1 : static_cast<uint32>(Min(limit / per_group + 1, Size(PG_UINT32_MAX)));
        for (int a = 0; a < ga->naggs; a++)
            /* the GPU's grouped batches bin the float8 form; the time and threshold forms count here */
            if (ga->aggs[a].kind == AggKind::histogram && !args[a].skip && ga->spec_valid[a] &&
                ga->specs[a].kind == gh::SpecKind::float_interval)
                group_gpu_init(&ga->gpu[a], ga->specs[a], max_groups, ga->gpu_cxt);
        ga->gpu_ready = true;
    }
}

} // namespace

void group_agg_init(GroupAgg *ga, ScanAggregate *aggs, int naggs, GroupKey *keys, int nkeys, TupleDesc desc,
                    MemoryContext parent_cxt, bool can_flush)
{
    memset(ga, 0, sizeof *ga);
    ga->can_flush = can_flush;
    ga->naggs = naggs;
    ga->aggs = aggs;
    ga->nkeys = nkeys;
    ga->keys = keys;
    ga->columns = static_cast<HeapColumn *>(palloc0(sizeof(HeapColumn) * naggs));
    ga->specs = static_cast<gh::HistogramSpec *>(palloc0(sizeof(gh::HistogramSpec) * naggs));
    ga->spec_valid = static_cast<bool *>(palloc0(sizeof(bool) * naggs));
    ga->offsets = static_cast<int32 *>(palloc0(sizeof(int32) * naggs));
    for (int a = 0; a < naggs; a++) {
        if (aggs[a].kind == AggKind::histogram)
            ga->columns[a] = heap_column(desc, aggs[a].call.attno, aggs[a].call.coltype);
        else if (value_aggregate_kind(aggs[a].kind))
            ga->columns[a] = heap_column(desc, aggs[a].attno, aggs[a].coltype);
    }
    for (int k = 0; k < nkeys; k++) {
        ga->has_text_key = ga->has_text_key || group_key_is_text(&keys[k]);
        /*
         * A key PostgreSQL's executor may evaluate at each row is spilled
         * with its tuple, and not evaluated again: Grafana's epoch minute
         * over 200,000 rows, 169,664 of them spilled, took the scan 168-293
         * ms when evaluated again, 124-217 when kept (dev VM, alternating
         * runs).  Keys the scan computes itself, or remembers by value,
         * are cheaper to compute again than to write: kept, GROUP BY g, s
         * over 100,000 rows of 12,000 buckets wrote 14.2 MB instead of 7.5
         * and took 60-82 ms against 48-53.
         */
        ga->spill_keys = ga->spill_keys || keys[k].def.kind == KeyKind::expression ||
                         keys[k].def.kind == KeyKind::monotone;
    }
    ga->keybuf_cap = 256 + group_agg_key_bytes(ga);
    ga->keybuf = static_cast<char *>(palloc(ga->keybuf_cap));
    ga->page_groups = static_cast<uint32 *>(palloc(sizeof(uint32) * MaxHeapTuplesPerPage));
    ga->page_cells = static_cast<int64 **>(palloc(sizeof(int64 *) * MaxHeapTuplesPerPage));
    ga->page_rows = static_cast<int64 **>(palloc(sizeof(int64 *) * MaxHeapTuplesPerPage));
    ga->page_values = static_cast<double *>(palloc(sizeof(double) * MaxHeapTuplesPerPage * Max(naggs, 1)));
    ga->page_nulls = static_cast<bool *>(palloc(sizeof(bool) * MaxHeapTuplesPerPage * Max(naggs, 1)));
    ga->values_read = static_cast<bool *>(palloc0(sizeof(bool) * Max(naggs, 1)));
    group_agg_find_init(ga);
    ga->page_pass = group_agg_page_pass_shape(ga);
    ga->gpu = static_cast<GroupGpu *>(palloc(sizeof(GroupGpu) * naggs));
    for (int a = 0; a < naggs; a++)
        group_gpu_none(&ga->gpu[a]);
    ga->cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan groups", ALLOCSET_DEFAULT_SIZES);
    ga->gpu_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan GPU batches", ALLOCSET_DEFAULT_SIZES);
    ga->page_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan page keys", ALLOCSET_DEFAULT_SIZES);
    ga->row_cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan output row", ALLOCSET_DEFAULT_SIZES);
    tuple_spill_init(&ga->spill,
                     AllocSetContextCreate(parent_cxt, "GpuHistogramScan spilled tuples", ALLOCSET_DEFAULT_SIZES));
}

namespace {

/*
 * The tuples the closed table gave no group go to the spill; the others
 * move up, in order, with their groups.  How many stay.
 */
int spill_refused(GroupAgg *ga, HeapTupleData *tuples, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (ga->page_groups[i] == kNoGroup) {
            tuple_spill_write(&ga->spill, group_agg_refused_key(ga, i), &tuples[i]);
            continue;
        }
        tuples[kept] = tuples[i];
        group_agg_move_values(ga, i, kept);
        ga->page_cells[kept] = ga->page_cells[i];
        ga->page_groups[kept++] = ga->page_groups[i];
    }
    ga->page_one = ga->page_one && kept > 0; /* one group, refused whole or not at all */
    return kept;
}

/*
 * Where more than one histogram's values on the page may raise, which
 * raises first is found row by row, in line-pointer order; a page where
 * one at most may keeps each histogram's check in the page's order (two
 * float8 histograms, one of them of a column after a text column, took 7x
 * one histogram's time on the development machine when every such page
 * went row by row).
 */
void check_raising_rows(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed)
{
    int raising;
    if (group_agg_values_may_raise(ga, &raising) && raising > 1 &&
        group_agg_page_values_raising(ga, desc, tuples, n) > 1)
        for (int j = 0; j < n; j++) {
            const int i = reversed ? n - 1 - j : j;
            group_agg_check_row_values(ga, desc, &tuples[i], ga->page_groups[i]);
        }
}

/*
 * The page's tuples, their groups found: those the closed table refused
 * go to the spill, the others are counted; then the page's memory goes
 * (detoasted keys, PostgreSQL's functions' garbage), back in old.
 */
void count_found(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed, MemoryContext old)
{
    if (unlikely(ga->table.closed))
        n = spill_refused(ga, tuples, n);
    group_agg_count_page(ga, desc, tuples, n, reversed);
    memset(ga->values_read, 0, sizeof(bool) * ga->naggs);
    MemoryContextSwitchTo(old);
    MemoryContextReset(ga->page_cxt);
}

} // namespace

void group_agg_count_page(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, bool reversed)
{
    /* the value aggregates first: a histogram of the same column then copies their read of it */
    for (int a = 0; a < ga->naggs; a++)
        if (value_aggregate_kind(ga->aggs[a].kind))
            count_value_agg(ga, a, desc, tuples, n, reversed);
    for (int a = 0; a < ga->naggs; a++) {
        const ScanAggregate &agg = ga->aggs[a];
        const int32 off = ga->offsets[a];
        switch (agg.kind) {
        case AggKind::histogram: count_histogram(ga, a, desc, tuples, n, reversed); break;
        case AggKind::count_star:
            if (ga->page_one) {
                ga->page_cells[0][off] += n;
                break;
            }
            for (int i = 0; i < n; i++)
                ga->page_cells[i][off]++;
            break;
        case AggKind::count_column:
            for (int i = 0; i < n; i++)
                if (!heap_attisnull(&tuples[i], agg.count_attno, desc))
                    ga->page_cells[i][off]++;
            break;
        case AggKind::sum:
        case AggKind::avg:
        case AggKind::min:
        case AggKind::max: break; /* above */
        }
    }
}

void group_agg_add(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, int n, const HistogramArgs *args,
                   const RowGate *gate)
{
    ga->page_one = false;
    if (n == 0)
        return;
    group_agg_forget_refused(ga);
    MemoryContext old = MemoryContextSwitchTo(ga->page_cxt);
    /*
     * Where a key may raise, or the WHERE clause and a value, the rows go
     * one at a time, each through its clause, its keys and its values'
     * checks.  Where only the clause may, it runs first, in the rows'
     * order; where nothing may but the values, the keys go as fast as
     * they can, and the values' checks keep the page's order.
     */
    const bool quals = row_gate_filters(gate);
    bool in_order = group_agg_keys_may_raise(ga, desc, tuples, n);
    if (quals && !in_order) {
        if (ga->laid_out && group_agg_page_values_raising(ga, desc, tuples, n) == 0)
            n = group_agg_filter_in_order(ga, tuples, n, args, gate, old);
        else
            in_order = true;
    }
    if (in_order) {
        memset(ga->values_read, 0, sizeof(bool) * ga->naggs); /* read again, for the rows that pass */
        n = group_agg_find_groups_in_order(ga, desc, tuples, n, args, gate, old);
    }
    if (n == 0) { /* no row passed: perhaps nothing is laid out yet */
        memset(ga->values_read, 0, sizeof(bool) * ga->naggs);
        MemoryContextSwitchTo(old);
        MemoryContextReset(ga->page_cxt);
        return;
    }
    bool reversed = false; /* tuples[] runs from the page's last row to its first */
    if (!in_order) {
        group_agg_first_row(ga, args, gate, old);
        /*
         * Tuples fill a page from its end: in reverse line-pointer order
         * they lie at rising addresses, which the prefetcher follows (a
         * third faster on the dev VM).  A page of one group stays as it
         * is: the pass that read its span brought it in, and reversing it
         * cost the mean line 4% there.  No key here raises: only values
         * do, and each histogram checks its values in the page's order
         * (count_histogram).
         */
        if (!group_agg_find_one_group(ga, n)) {
            group_agg_reverse(ga, tuples, n);
            reversed = true;
            group_agg_find_groups(ga, desc, tuples, n);
        }
        check_raising_rows(ga, desc, tuples, n, reversed);
    }
    count_found(ga, desc, tuples, n, reversed, old);
}

void group_agg_lay_out(GroupAgg *ga, const HistogramArgs *args)
{
    if (!ga->laid_out)
        lay_out(ga, args);
}


/* Cells read back per request round: a bounded buffer, whatever the number of groups. */
constexpr int32 kReadCells = 1 << 18;

void group_agg_collect(GroupAgg *ga)
{
    if (!ga->laid_out || ga->collected)
        return;
    for (int a = 0; a < ga->naggs; a++) {
        GroupGpu *gg = &ga->gpu[a];
        if (gg->filled > 0)
            group_gpu_count(gg); /* the partial batch: the GPU or the CPU, as the policy says */
        const int32 slots = group_agg_slots(ga, a);
        const uint32 held = group_gpu_groups_held(gg, ga->table.ngroups);
        const uint32 per_read = static_cast<uint32>(Max(1, kReadCells / slots));
        int64 *cells = held > 0 ? static_cast<int64 *>(palloc(sizeof(int64) * per_read * slots)) : NULL;
        for (uint32 first = 0; first < held; first += per_read) {
            uint32 n = Min(per_read, held - first);
            group_gpu_read(gg, first, n, cells);
            for (uint32 j = 0; j < n; j++) {
                int64 *c = group_agg_cells(ga, first + j) + ga->offsets[a];
                const int64 *d = cells + static_cast<Size>(j) * slots;
                for (int32 b = 0; b < slots; b++)
                    c[b] += d[b];
            }
        }
        if (cells != NULL)
            pfree(cells);
        ga->values_gpu += gg->sent;
        ga->values_binned += gg->binned;
        gg->sent = gg->binned = 0;
    }
    ga->collected = true;
}

void group_agg_done(GroupAgg *ga)
{
    for (int a = 0; a < ga->naggs; a++)
        group_gpu_close(&ga->gpu[a]);
}

namespace {

/* Every group gone; the GPU's share stays for the groups to come. */
void forget_groups(GroupAgg *ga)
{
    MemoryContextReset(ga->cxt);
    MemoryContextReset(ga->page_cxt);
    MemoryContextReset(ga->row_cxt);
    memset(&ga->table, 0, sizeof ga->table);
    ga->laid_out = false;
    group_agg_find_forget(ga);
    ga->next = 0;
    ga->emitted_empty = false;
    ga->collected = false;
}

} // namespace

void group_agg_reset(GroupAgg *ga)
{
    forget_groups(ga);
    tuple_spill_discard(&ga->spill);
    /* new arguments perhaps: the device histograms go back (the callbacks close them) */
    MemoryContextReset(ga->gpu_cxt);
    for (int a = 0; a < ga->naggs; a++)
        group_gpu_none(&ga->gpu[a]);
    ga->gpu_ready = false;
    ga->values_binned = 0;
    ga->values_gpu = 0;
    ga->groups_emitted = 0;
    ga->spec_error_held = false;
}

void group_agg_restart(GroupAgg *ga)
{
    forget_groups(ga);
}

bool group_agg_spilled(const GroupAgg *ga)
{
    return tuple_spill_pending(&ga->spill);
}

namespace {

/*
 * Spilled tuples with their keys: counted as group_agg_add() counts a
 * page whose keys cannot raise, each tuple in the group of the key it had
 * (those that still find no room go a partition deeper).  Their keys
 * raised nothing when they were computed, so only values may raise here,
 * in the tuples' order as group_agg_add() checks them.
 */
void add_spilled(GroupAgg *ga, TupleDesc desc, HeapTupleData *tuples, const SpillKey *keys, int n)
{
    ga->page_one = false;
    group_agg_forget_refused(ga);
    MemoryContext old = MemoryContextSwitchTo(ga->page_cxt);
    group_agg_find_keyed(ga, keys, n);
    check_raising_rows(ga, desc, tuples, n, false);
    count_found(ga, desc, tuples, n, false, old);
}

} // namespace

bool group_agg_replay(GroupAgg *ga, TupleDesc desc, const HistogramArgs *args)
{
    Assert(!ga->laid_out || ga->table.ngroups == 0);
    if (!tuple_spill_begin_pass(&ga->spill))
        return false;
    group_agg_lay_out(ga, args);
    HeapTupleData tuples[MaxHeapTuplesPerPage];
    SpillKey keys[MaxHeapTuplesPerPage];
    for (int n; (n = tuple_spill_read(&ga->spill, tuples, keys, MaxHeapTuplesPerPage)) > 0;) {
        CHECK_FOR_INTERRUPTS();
        if (ga->spill_keys)
            add_spilled(ga, desc, tuples, keys, n);
        else
            group_agg_add(ga, desc, tuples, n, args); /* the keys computed again, as the scan computed them */
    }
    return true;
}

void group_agg_end(GroupAgg *ga)
{
    tuple_spill_discard(&ga->spill);
}

} // namespace gpu_histogram
