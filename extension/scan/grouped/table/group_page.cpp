/*
 * group_page.cpp: a grouped scan's all-visible page read whole, in one
 * pass, and counted as one group (group_agg.h's group_agg_page_pass).
 *
 * The general way (group_agg_add) takes a page as the reader's list of its
 * tuples, reads each one's key column for the page's span, then each one's
 * values: three walks over its rows where a table in time order, grouped
 * by the hour or a field of it, has one group on most pages and needs the
 * span and the values only.  Here one walk over the line pointers reads
 * both, as the ungrouped scan reads its values; a page of more than one
 * group, or with a row whose key may raise, is listed after all and goes
 * the general way, which then decides what it would have decided for it.
 * A WHERE clause that is a range of the keys' column (a dashboard's time
 * range) lets a page inside it pass whole, and one outside it pass no row;
 * a page across its end is listed and filtered.
 */
#include "group_agg_parts.h"

#include "../../heap/heap_columns.h"

namespace gpu_histogram {

namespace {

/* Whether value aggregate or histogram a's column is read by the pass: never a numeric (it may need detoasting). */
bool column_readable(const GroupAgg *ga, int a)
{
    const ScanAggregate &agg = ga->aggs[a];
    if (agg.kind == AggKind::histogram)
        return agg.call.coltype != NUMERICOID;
    /* only float value aggregates count from the values read alone (value_aggs.cpp's add_values) */
    return agg.coltype == FLOAT8OID || agg.coltype == FLOAT4OID;
}

/* The pass's one word column: every key's, where they share one fixed-width column. */
const HeapColumn *word_column(const GroupAgg *ga)
{
    return &ga->keys[0].column;
}

} // namespace

int group_agg_page_pass_shape(const GroupAgg *ga)
{
    if (ga->nkeys == 0 || (ga->has_text_key && (ga->nkeys != 1 || ga->keys[0].def.ops->span_bytes == NULL)))
        return kNoPagePass; /* a key kept as bytes: only one whose span may name it (group_key_span_bytes) */
    for (int k = 0; k < ga->nkeys; k++) {
        const GroupKey &key = ga->keys[k];
        /* keys whose span over the page says whether they raise (group_key_span_quiet), of one column */
        if (key.def.ops->span_word == NULL || key.def.ops->page_may_raise != NULL ||
            key.column.attno != ga->keys[0].column.attno || key.column.len <= 0 || key.column.len > 8)
            return kNoPagePass;
    }
    int read = -1;
    for (int a = 0; a < ga->naggs; a++) {
        const AggKind kind = ga->aggs[a].kind;
        if (kind == AggKind::count_star)
            continue;
        if ((kind != AggKind::histogram && !value_aggregate_kind(kind)) || !column_readable(ga, a))
            return kNoPagePass; /* count(col), an integer or numeric value aggregate: they read the tuples */
        if (read >= 0 && ga->columns[a].attno != ga->columns[read].attno)
            return kNoPagePass; /* one value column a pass */
        if (read < 0)
            read = a;
    }
    return read;
}

int group_agg_page_pass(GroupAgg *ga, TupleDesc desc, Page page, OffsetNumber lines)
{
    if (!ga->laid_out || ga->page_pass == kNoPagePass)
        return -1;
    const int a = ga->page_pass;
    double *values = a >= 0 ? group_agg_page_values(ga, a) : NULL;
    bool *nulls = a >= 0 ? group_agg_page_nulls(ga, a) : NULL;
    PageWordSpan span;
    const int n = heap_page_span_values(*word_column(ga), a >= 0 ? &ga->columns[a] : NULL, desc, page, lines,
                                        values, nulls, &span);
    for (int k = 0; k < ga->nkeys; k++)
        ga->page_spans[k] = KeySpan{n > 0 && !span.nulls, span.least, span.most};
    if (a < 0)
        return n;
    /* every aggregate of the column has the values: a histogram's checks change its copy */
    for (int b = 0; b < ga->naggs; b++) {
        if (ga->aggs[b].kind == AggKind::count_star)
            continue;
        if (b != a) {
            memcpy(group_agg_page_values(ga, b), values, sizeof(double) * n);
            memcpy(group_agg_page_nulls(ga, b), nulls, sizeof(bool) * n);
        }
        ga->values_read[b] = true;
    }
    return n;
}

bool group_agg_add_page_pass(GroupAgg *ga, int n, int64 lo, int64 hi)
{
    ga->page_one = false;
    group_agg_forget_refused(ga);
    MemoryContext old = MemoryContextSwitchTo(ga->page_cxt);
    const KeySpan &span = ga->page_spans[0];
    /* every row outside the WHERE clause's range (none NULL): nothing of theirs is computed, as none passes */
    bool counted = n > 0 && span.known && (span.hi < lo || span.lo > hi);
    bool quiet = !counted && n > 0 && span.known && span.lo >= lo && span.hi <= hi;
    for (int k = 0; quiet && k < ga->nkeys; k++)
        quiet = group_key_span_quiet(&ga->keys[k], span.lo, span.hi);
    /*
     * No key may raise and they have one group: group_agg_add's way for
     * such a page, the rows in the page's order.  Where more than one
     * histogram's values may raise, which raises first is the tuples'.
     */
    int raising;
    if (quiet && group_agg_find_one_group(ga, n) &&
        !(group_agg_values_may_raise(ga, &raising) && raising > 1 &&
          group_agg_page_values_raising(ga, NULL, NULL, n) > 1) &&
        !(ga->table.closed && ga->page_groups[0] == kNoGroup)) {
        group_agg_count_page(ga, NULL, NULL, n, false);
        counted = true;
    }
    memset(ga->values_read, 0, sizeof(bool) * ga->naggs);
    MemoryContextSwitchTo(old);
    MemoryContextReset(ga->page_cxt);
    return counted;
}

} // namespace gpu_histogram
