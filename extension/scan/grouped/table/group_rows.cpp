/*
 * group_rows.cpp: a grouped scan's rows (group_agg.h).
 *
 * A group's cells become its row: each histogram's bigint[] (or, under a
 * Finalize Aggregate, its serialized state), each count, then the keys as
 * Datums again.  The cells come from the table, or straight from counts
 * the GPU made for a group no table holds (group_agg_row_from_counts).
 * Apart from the counting (group_agg.cpp) because nothing here runs per
 * tuple.
 */
#include "group_agg_parts.h"
#include "value_aggs.h"

#include "../../../errors.h"

#include "../../../histogram_state.h"

extern "C" {
#include "utils/builtins.h"
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

/* One histogram's result from its cells, nvalues of them: the bigint[] or the serialized state. */
Datum histogram_datum(GroupAgg *ga, int a, const int64 *c, int64 nvalues, bool partial)
{
    int32 slots = group_agg_slots(ga, a);
    if (!partial)
        return PointerGetDatum(int64_array(c, slots));
    return PointerGetDatum(histogram_wire(ga->specs[a], c, nvalues));
}

void fill_row(GroupAgg *ga, const ScanGroup *g, TupleTableSlot *slot, bool partial)
{
    static const int64 no_cells[1] = {0};
    for (int a = 0; a < ga->naggs; a++) {
        const int64 *c = g != NULL ? g->cells + ga->offsets[a] : no_cells;
        slot->tts_isnull[a] = false;
        if (value_aggregate_kind(ga->aggs[a].kind)) {
            slot->tts_values[a] = value_agg_result(ga->aggs[a], g != NULL ? c : NULL, partial, &slot->tts_isnull[a]);
            continue;
        }
        if (ga->aggs[a].kind != AggKind::histogram) {
            slot->tts_values[a] = Int64GetDatum(c[0]);
            continue;
        }
        /* a NaN held back until every row's keys were computed (errors_after_keys) raises now */
        if (g != NULL && !ga->args[a].skip && ga->spec_valid[a] &&
            group_agg_value_state(ga, g->cells, a)[0] > 0)
            group_agg_nan(ga);
        int64 nvalues = g != NULL && !ga->args[a].skip && ga->spec_valid[a] ? group_agg_values(ga, a, c) : 0;
        slot->tts_isnull[a] = nvalues == 0; /* no value: NULL, as the aggregate gives */
        slot->tts_values[a] = nvalues == 0 ? 0 : histogram_datum(ga, a, c, nvalues, partial);
    }
    if (g == NULL)
        return;
    uint64 nulls;
    memcpy(&nulls, g->key, sizeof nulls);
    uint32 text_at = group_agg_key_bytes(ga);
    for (int k = 0; k < ga->nkeys; k++) {
        int col = ga->naggs + k;
        bool isnull = (nulls >> k) & 1;
        slot->tts_isnull[col] = isnull;
        slot->tts_values[col] = 0;
        if (isnull)
            continue;
        if (group_key_is_text(&ga->keys[k])) {
            int32 n;
            memcpy(&n, g->key + text_at, sizeof n);
            slot->tts_values[col] = ga->keys[k].def.keytype == UUIDOID
                                        ? PointerGetDatum(memcpy(palloc(n), g->key + text_at + sizeof n, n)) /* column_key.cpp's uuid */
                                        : PointerGetDatum(cstring_to_text_with_len(g->key + text_at + sizeof n, n));
            text_at += sizeof n + n;
        } else {
            int64 word;
            memcpy(&word, g->key + sizeof(int64) * (1 + k), sizeof word);
            slot->tts_values[col] = group_key_datum(&ga->keys[k], word);
        }
    }
}

/* A group's key as the table keeps it: the NULL bits, each key's word (0 for bytes), then each bytes key's length and bytes. */
uint32 counted_key(GroupAgg *ga, const CountedKey &key)
{
    uint32 len = group_agg_key_bytes(ga);
    memcpy(ga->keybuf, &key.nulls, sizeof key.nulls);
    for (int k = 0; k < ga->nkeys; k++) {
        const bool isnull = (key.nulls >> k) & 1;
        int64 word = isnull || group_key_is_text(&ga->keys[k]) ? 0 : key.words[k];
        memcpy(ga->keybuf + sizeof(int64) * (1 + k), &word, sizeof word);
        if (isnull || !group_key_is_text(&ga->keys[k]))
            continue;
        const int32 n = static_cast<int32>(VARSIZE_ANY_EXHDR(key.values[k]));
        group_agg_reserve_key(ga, len + sizeof(int32) + n);
        memcpy(ga->keybuf + len, &n, sizeof n);
        memcpy(ga->keybuf + len + sizeof n, VARDATA_ANY(key.values[k]), n);
        len += sizeof(int32) + n;
    }
    return len;
}

/*
 * The GPU's states of the value aggregates and the other histograms'
 * buckets (after its rows, in the order of the scan's aggregates:
 * grouped_page_spec.h's PageAgg) into a group's cells; histogram `own`
 * is the spec's, already added.
 */
void add_counted_values(GroupAgg *ga, int own, int64 *group_cells, const int64 *gpu)
{
    for (int a = 0; a < ga->naggs; a++) {
        if (a != own && ga->aggs[a].kind == AggKind::histogram) {
            if (ga->args[a].skip) /* no cells here, nor on the GPU */
                continue;
            int64 *c = group_cells + ga->offsets[a];
            for (int32 b = 0; b < group_agg_slots(ga, a); b++)
                c[b] += gpu[b];
            ga->values_gpu += static_cast<uint64>(group_agg_values(ga, a, gpu));
            gpu += group_agg_slots(ga, a);
            continue;
        }
        if (group_agg_counts_other_column(ga->aggs, ga->naggs, a)) {
            group_cells[ga->offsets[a]] += gpu[0]; /* the column's non-NULL values, its one cell */
            gpu += 1;
            continue;
        }
        if (!value_aggregate_kind(ga->aggs[a].kind))
            continue;
        value_agg_combine_gpu(ga->aggs[a], group_cells + ga->offsets[a], gpu);
        gpu += value_agg_cells(ga->aggs[a]);
    }
}

/*
 * Adds counts made elsewhere into a group's cells (group_agg_add_counts):
 * the first histogram's buckets, its rows, then the value aggregates'
 * states and the other histograms' buckets.
 */
void add_counted(GroupAgg *ga, int64 *group_cells, const int64 *cells, int64 rows)
{
    int64 values = 0;
    for (int a = 0; a < ga->naggs; a++) {
        if (ga->aggs[a].kind != AggKind::histogram)
            continue;
        int64 *c = group_cells + ga->offsets[a];
        for (int32 b = 0; b < group_agg_slots(ga, a); b++)
            c[b] += cells[b];
        values = group_agg_values(ga, a, cells);
        add_counted_values(ga, a, group_cells, cells + group_agg_slots(ga, a) + 1);
        break;
    }
    for (int a = 0; a < ga->naggs; a++) {
        if (ga->aggs[a].kind == AggKind::count_star)
            group_cells[ga->offsets[a]] += rows;
        else if (ga->aggs[a].kind == AggKind::count_column && !group_agg_counts_other_column(ga->aggs, ga->naggs, a))
            group_cells[ga->offsets[a]] += values; /* the histogram's column: its non-NULL values */
    }
    ga->values_gpu += static_cast<uint64>(values);
}

} // namespace

bool group_agg_counts_other_column(const ScanAggregate *aggs, int naggs, int a)
{
    if (aggs[a].kind != AggKind::count_column)
        return false;
    for (int h = 0; h < naggs; h++)
        if (aggs[h].kind == AggKind::histogram)
            return aggs[h].call.attno != aggs[a].count_attno;
    return false;
}

int32 group_agg_text_key_values(const GroupAgg *ga, int k, struct varlena ***out)
{
    *out = NULL;
    if (!ga->laid_out || !group_key_is_text(&ga->keys[k]) || ga->table.ngroups == 0)
        return 0;
    struct varlena **values = static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * ga->table.ngroups));
    int32 n = 0;
    for (uint32 i = 0; i < ga->table.ngroups; i++) {
        const ScanGroup *g = ga->table.groups[i];
        uint64 nulls;
        memcpy(&nulls, g->key, sizeof nulls);
        uint32 text_at = group_agg_key_bytes(ga);
        for (int j = 0; j < ga->nkeys; j++) {
            if ((nulls >> j) & 1 || !group_key_is_text(&ga->keys[j]))
                continue;
            int32 len;
            memcpy(&len, g->key + text_at, sizeof len);
            if (j == k) {
                struct varlena *v = static_cast<struct varlena *>(palloc(VARHDRSZ + len));
                SET_VARSIZE(v, VARHDRSZ + len);
                memcpy(VARDATA(v), g->key + text_at + sizeof len, len);
                values[n++] = v;
            }
            text_at += sizeof len + len;
        }
    }
    *out = values;
    return n;
}

void group_agg_add_counts(GroupAgg *ga, const CountedKey &key, const int64 *cells, int64 rows)
{
    Assert(ga->args != NULL);
    group_agg_lay_out(ga, ga->args); /* after a flush: the same arguments */
    const uint32 len = counted_key(ga, key);
    add_counted(ga, group_table_insert_always(&ga->table, ga->keybuf, len, group_key_hash(ga->keybuf, len))->cells,
                cells, rows);
}

void group_agg_row_from_counts(GroupAgg *ga, const CountedKey &key, const int64 *cells, int64 rows,
                               TupleTableSlot *slot, bool partial)
{
    Assert(ga->args != NULL);
    group_agg_lay_out(ga, ga->args);
    MemoryContextReset(ga->row_cxt);
    MemoryContext old = MemoryContextSwitchTo(ga->row_cxt);
    ScanGroup group{};
    group.keylen = counted_key(ga, key);
    group.key = ga->keybuf;
    group.cells = static_cast<int64 *>(palloc0(sizeof(int64) * Max(ga->table.ncells, 1)));
    add_counted(ga, group.cells, cells, rows);
    fill_row(ga, &group, slot, partial);
    ga->groups_emitted++;
    MemoryContextSwitchTo(old);
}

bool group_agg_next(GroupAgg *ga, TupleTableSlot *slot, bool partial)
{
    MemoryContextReset(ga->row_cxt);
    MemoryContext old = MemoryContextSwitchTo(ga->row_cxt);
    bool more = true;
    if (ga->laid_out && ga->next < ga->table.ngroups) {
        fill_row(ga, ga->table.groups[ga->next++], slot, partial);
        ga->groups_emitted++;
    } else if (ga->nkeys == 0 && (!ga->laid_out || ga->table.ngroups == 0) && !ga->emitted_empty) {
        /* no row at all (laid out before any, perhaps): an ungrouped aggregate still returns its one row */
        ga->emitted_empty = true;
        fill_row(ga, NULL, slot, partial);
    } else {
        more = false;
    }
    MemoryContextSwitchTo(old);
    return more;
}

} // namespace gpu_histogram
