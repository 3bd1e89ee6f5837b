/*
 * grouped_pages.cpp: a grouped or filtered scan's pages parsed on the GPU
 * (grouped_pages.h).
 */
#include "grouped_pages.h"
#include "page_sink_grouped.h"

#include <algorithm>

#include "../../heap/page_layout.h"
#include "../../keys/key_kind.h"
#include "../../keys/key_quals.h"
#include "../../keys/text_memo.h"
#include "../../keys/value_memo.h"

#include "../../../device_policy.h"
#include "../../../errors.h"
#include "../../../settings.h"

extern "C" {
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/uuid.h"
}

namespace gpu_histogram {

namespace {

/* Cells read back per request: a bounded buffer, whatever the number of groups. */
constexpr int32 kReadCells = 1 << 18;

/*
 * Most groups the GPU may hold for a scan that emits partial states: its
 * groups come back as many at a time as the memory bound holds, so only
 * device memory bounds them (1M groups of 64 buckets: 536 MB).
 */
constexpr int64 kMaxFlushedGroups = 1 << 20;

/*
 * Pages the host reads before a first scan of a text key builds its
 * dictionary: 128 pages of the metrics table hold 17,400 rows, in which
 * each of a thousand equally common devices is missing with a chance of
 * 3 in 100 million (after 32 pages, 13 of them would be, and 83% of the
 * pages would hold one).  A key by value (g % 10) whose memo is empty,
 * a new session's first scan, waits as long: its GPU table is made of
 * the values met, and without one the whole scan stayed on the host (a
 * fourth key g % 2 = 0 over 10M rows on the H200 host).
 */
constexpr int kFirstScanPages = 128;

/* Milliseconds since start, for the DEBUG3 lines that say where a scan's time went. */
double ms_since(instr_time start)
{
    instr_time now;
    INSTR_TIME_SET_CURRENT(now);
    INSTR_TIME_SUBTRACT(now, start);
    return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * The first histogram of a shape grouped_pages_init() accepted: the
 * spec's own; any other is a PageAgg (page_hist).
 */
int histogram_of(const ScanAggregate *aggs, int naggs)
{
    for (int a = 0; a < naggs; a++)
        if (aggs[a].kind == AggKind::histogram)
            return a;
    return -1;
}

gh::PageCmp page_cmp(Comparison c)
{
    switch (c) {
    case Comparison::lt: return gh::PageCmp::lt;
    case Comparison::le: return gh::PageCmp::le;
    case Comparison::eq: return gh::PageCmp::eq;
    case Comparison::ge: return gh::PageCmp::ge;
    case Comparison::gt: return gh::PageCmp::gt;
    case Comparison::ne: return gh::PageCmp::ne;
    case Comparison::any_eq: return gh::PageCmp::in;
    case Comparison::all_ne: return gh::PageCmp::not_in;
    case Comparison::is_null: return gh::PageCmp::is_null;
    case Comparison::is_not_null: return gh::PageCmp::is_not_null;
    }
    return gh::PageCmp::eq;
}

/*
 * A text or uuid column's qual (= or <> one value, IN or NOT IN a list,
 * IS [NOT] NULL): its values into the table as the kernel reads them, and
 * the answer for a tuple stored before the column was added.
 */
bool text_qual(GroupedPages *gp, TupleDesc desc, const NativeQual &q, gh::PageQual *out)
{
    Datum missing;
    const bool uuid = q.column.type == UUIDOID;
    if (uuid ? !page_uuid_column_for(desc, q.column, &out->column, &missing)
             : !page_text_column_for(desc, q.column, &out->column, &missing))
        return false;
    if (native_qual_is_null_test(q)) {
        out->cmp = page_cmp(q.cmp);
        return true;
    }
    const bool in = q.cmp == Comparison::eq || q.cmp == Comparison::any_eq;
    out->cmp = in ? gh::PageCmp::in : gh::PageCmp::not_in;
    if (out->column.has_missing && uuid) {
        out->column.missing_word =
            native_text_listed(q, reinterpret_cast<const char *>(DatumGetUUIDP(missing)->data), UUID_LEN) == in;
    } else if (out->column.has_missing) {
        text *t = reinterpret_cast<text *>(pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(missing))));
        out->column.missing_word = native_text_listed(q, VARDATA_ANY(t), static_cast<int32>(VARSIZE_ANY_EXHDR(t))) == in;
    }
    int64 words = 0;
    for (int i = 0; i < q.nlist; i++)
        words += 1 + (q.text_list[i].len + 7) / 8;
    if (words == 0 || words > INT32_MAX / 2)
        return false;
    int64 *list = static_cast<int64 *>(palloc0(sizeof(int64) * words));
    int64 at = 0;
    for (int i = 0; i < q.nlist; i++) {
        list[at] = q.text_list[i].len;
        memcpy(&list[at + 1], q.text_list[i].data, static_cast<size_t>(q.text_list[i].len));
        at += 1 + (q.text_list[i].len + 7) / 8;
    }
    out->list_first = static_cast<uint32>(key_tables_add_list(&gp->tables, list, static_cast<int32>(words)));
    out->list_count = static_cast<uint32>(q.nlist);
    out->list_words = static_cast<uint32>(words);
    pfree(list);
    return true;
}

/* One atom of the WHERE clause as the kernel reads it; false if it is beyond the GPU. */
bool page_qual(GroupedPages *gp, TupleDesc desc, const NativeQual &q, gh::PageQual *out)
{
    if (q.column.len == -1 || q.column.type == UUIDOID)
        return text_qual(gp, desc, q, out);
    if (!page_column_for(desc, q.column, &out->column))
        return false;
    out->cmp = page_cmp(q.cmp);
    out->is_float = q.is_float;
    out->word = q.int_value;
    out->value = q.float_value;
    if (native_qual_is_list(q)) {
        /* a float8's bits keep its place in the sorted list: the GPU compares them as float8 again */
        const int64 *words = q.is_float ? reinterpret_cast<const int64 *>(q.float_list) : q.int_list;
        out->list_first = static_cast<uint32>(key_tables_add_list(&gp->tables, words, q.nlist));
        out->list_count = static_cast<uint32>(q.nlist);
    }
    return true;
}

/*
 * The spec of this scan, once its arguments, keys and quals have their
 * values: false if some part of it is beyond the GPU (the scan then stays
 * on the host, as before).
 */
/*
 * A value aggregate (value_aggs.h) as the spec's next PageAgg, its column
 * in the table; in the order of the scan's aggregates, which is the order
 * of their cells after the GPU's rows (group_agg_add_counts).
 */
bool page_agg(GroupedPages *gp, TupleDesc desc, const ScanAggregate &agg, const HeapColumn &column)
{
    gh::GroupedPageSpec &spec = gp->spec;
    if (spec.naggs == gh::kMaxPageAggs)
        return false;
    gh::PageAgg &out = spec.aggs[spec.naggs];
    out.is_float = agg.coltype == FLOAT4OID || agg.coltype == FLOAT8OID;
    switch (agg.kind) {
    case AggKind::sum:
    case AggKind::avg:
        out.kind = out.is_float ? gh::PageAggKind::exact_sum
                   : agg.coltype == INT8OID ? gh::PageAggKind::int8_sum
                                             : gh::PageAggKind::int_sum;
        break;
    case AggKind::min: out.kind = gh::PageAggKind::min_key; break;
    case AggKind::max: out.kind = gh::PageAggKind::max_key; break;
    default: return false;
    }
    out.cells = gh::page_agg_cells(out.kind);
    int64 words[gh::kPageColumnWords] = {};
    gh::PageColumn col;
    if (!page_column_for(desc, column, &col))
        return false;
    memcpy(words, &col, sizeof col);
    out.column_first = static_cast<uint32>(key_tables_add_list(&gp->tables, words, gh::kPageColumnWords));
    spec.naggs++;
    return true;
}

/*
 * count() of another column than the histogram's as the spec's next
 * PageAgg: only its non-NULL values, so a column of any type the GPU can
 * walk to (a text or numeric column too, whose bytes it never reads), in
 * the same order as page_agg's.
 */
bool page_count(GroupedPages *gp, TupleDesc desc, AttrNumber attno)
{
    gh::GroupedPageSpec &spec = gp->spec;
    if (spec.naggs == gh::kMaxPageAggs)
        return false;
    const HeapColumn column = heap_column(desc, attno, TupleDescAttr(desc, attno - 1)->atttypid);
    gh::PageColumn col;
    Datum missing;
    if (!page_column_for(desc, column, &col) && !page_text_column_for(desc, column, &col, &missing) &&
        !page_numeric_column_for(desc, column, &col))
        return false;
    gh::PageAgg &out = spec.aggs[spec.naggs];
    out.kind = gh::PageAggKind::count;
    out.is_float = 0;
    out.cells = gh::page_agg_cells(out.kind);
    int64 words[gh::kPageColumnWords] = {};
    memcpy(words, &col, sizeof col);
    out.column_first = static_cast<uint32>(key_tables_add_list(&gp->tables, words, gh::kPageColumnWords));
    spec.naggs++;
    return true;
}

/*
 * How histogram a bins, as the kernel reads it: its column (*col) and its
 * form (*out), thresholds put in the table; false if it is beyond the GPU.
 */
bool histogram_binning(GroupedPages *gp, TupleDesc desc, const GroupAgg *ga, int a, gh::PageColumn *col,
                       gh::PageHist *out)
{
    const gh::HistogramSpec &hs = ga->specs[a];
    *out = gh::PageHist{};
    if (!page_column_for(desc, ga->columns[a], col) && !page_numeric_column_for(desc, ga->columns[a], col))
        return false;
    switch (hs.kind) {
    case gh::SpecKind::float_interval:
        out->form = gh::PageForm::width_bucket;
        out->interval = hs.interval;
        return true;
    case gh::SpecKind::int64_interval: {
        /* the time form: a date's or timestamp's stored integer */
        const Oid type = ga->columns[a].type;
        if (type != DATEOID && type != TIMESTAMPOID && type != TIMESTAMPTZOID)
            return false;
        out->form = gh::PageForm::time;
        out->time = hs.int64;
        out->binning = gh::prepare_int64(hs.int64);
        col->as_word = true;
        return true;
    }
    case gh::SpecKind::thresholds:
        if (hs.thresholds.count < 1 || hs.thresholds.thresholds == NULL)
            return false;
        out->form = gh::PageForm::thresholds;
        out->thresholds_count = hs.thresholds.count;
        out->thresholds_first = static_cast<uint32>(key_tables_add_list(
            &gp->tables, reinterpret_cast<const int64 *>(hs.thresholds.thresholds), hs.thresholds.count));
        return true;
    }
    return false;
}

/*
 * Another histogram than the spec's own as its next PageAgg: its column
 * and its binning in the table, its buckets' cells in the group's, in the
 * order of page_agg's.
 */
bool page_hist(GroupedPages *gp, TupleDesc desc, const GroupAgg *ga, int a)
{
    gh::GroupedPageSpec &spec = gp->spec;
    gh::PageColumn col;
    gh::PageHist hist;
    if (spec.naggs == gh::kMaxPageAggs || !histogram_binning(gp, desc, ga, a, &col, &hist))
        return false;
    int64 words[gh::kPageColumnWords + gh::kPageHistWords] = {};
    memcpy(words, &col, sizeof col);
    memcpy(words + gh::kPageColumnWords, &hist, sizeof hist);
    gh::PageAgg &out = spec.aggs[spec.naggs];
    out.kind = gh::PageAggKind::histogram;
    out.is_float = 0;
    out.cells = gh::histogram_slots(ga->specs[a]);
    out.column_first = static_cast<uint32>(key_tables_add_list(&gp->tables, words, lengthof(words)));
    spec.naggs++;
    return true;
}

/* The first thing that keeps the scan's pages off the GPU, for EXPLAIN and the DEBUG line: false. */
bool refuse(GroupedPages *gp, const char *why)
{
    if (gp->refused == NULL)
        gp->refused = why;
    return false;
}

bool build_spec(GroupedPages *gp, const HostPages &host, GroupKey *keys, int nkeys)
{
    GroupAgg *ga = host.ga;
    TupleDesc desc = RelationGetDescr(host.rel);
    const int h = histogram_of(ga->aggs, ga->naggs);
    /*
     * every form: the float8 one; the time form over a date's or
     * timestamp's stored integer; thresholds, which travel in the table
     */
    if (h < 0 || host.args[h].skip || !ga->spec_valid[h])
        return refuse(gp, "the histogram's arguments (one is NULL or invalid)");
    gh::GroupedPageSpec &spec = gp->spec;
    spec = gh::GroupedPageSpec{};
    spec.rows_to_host = host.gate != NULL;
    gh::PageHist own;
    if (!histogram_binning(gp, desc, ga, h, &spec.value, &own))
        return refuse(gp, "the histogram's column, of a type or a place the GPU does not read");
    spec.form = own.form;
    spec.interval = own.interval;
    spec.time = own.time;
    spec.thresholds_first = own.thresholds_first;
    spec.thresholds_count = own.thresholds_count;
    /*
     * A clause the GPU cannot hold is the host's: over an expression only
     * the host computes (computed_atom.h), past the spec's six atoms (a
     * long OR, or an AND inside one put in conjunctive form), or of a
     * column the GPU does not read.  The GPU then leaves pages by the
     * clauses it holds and hands the host each page with a row that passes
     * them, where every clause is applied again; before, such a clause sent
     * every page to the host.
     */
    bool host_clauses = false;
    /* clauses of one atom over a key (computed_atom.h), which may become filter keys after the GROUP BY keys */
    ComputedAtom *over_keys[gh::kMaxPageKeys];
    int nover = 0;
    if (host.quals != NULL) {
        const NativeQuals &quals = *host.quals;
        for (int i = 0; i < quals.count;) {
            /* clause by clause: an OR's atoms are quals[i .. end) */
            const int clause = quals.quals[i].clause;
            int end = i;
            bool always = false; /* an atom no row fails (<> ALL of an empty array): the clause is no test */
            bool fits = true;
            for (; end < quals.count && quals.quals[end].clause == clause; end++) {
                always = always || quals.quals[end].always;
                fits = fits && quals.quals[end].computed == NULL;
            }
            const int first = spec.nquals;
            for (int j = i; j < end && !always && fits; j++) {
                const NativeQual &q = quals.quals[j];
                if (q.never) /* no row passes this atom: the clause's others decide */
                    continue;
                /* IS DISTINCT FROM a value: <> or IS NULL, one more atom of the clause */
                const bool or_null = q.null_safe && q.cmp == Comparison::ne;
                if (spec.nquals + (or_null ? 2 : 1) > gh::kMaxPageQuals || !page_qual(gp, desc, q, &spec.quals[spec.nquals])) {
                    fits = false;
                    break;
                }
                spec.quals[spec.nquals++].clause = clause;
                if (or_null) {
                    NativeQual null_test = q;
                    null_test.cmp = Comparison::is_null;
                    if (!page_qual(gp, desc, null_test, &spec.quals[spec.nquals])) {
                        fits = false;
                        break;
                    }
                    spec.quals[spec.nquals++].clause = clause;
                }
            }
            if (!always && end == i + 1 && quals.quals[i].computed != NULL && nover < gh::kMaxPageKeys) {
                over_keys[nover++] = quals.quals[i].computed;
                i = end;
                continue;
            }
            i = end;
            if (!fits) {
                spec.nquals = first;
                host_clauses = true;
                continue;
            }
            if (!always && spec.nquals == first) /* no row passes: the host counts nothing, quickly */
                return refuse(gp, "no row can pass the WHERE clause");
        }
    }
    for (int a = 0; a < ga->naggs; a++) {
        if (a != h && ga->aggs[a].kind == AggKind::histogram) {
            /* a NULL argument: no cells, a NULL result; invalid ones raise at the first value, on the host */
            if (host.args[a].skip)
                continue;
            if (!ga->spec_valid[a])
                return refuse(gp, "a histogram's arguments (invalid)");
            if (!page_hist(gp, desc, ga, a))
                return refuse(gp, "a histogram's column, of a type or a place the GPU does not read");
        }
        if (group_agg_counts_other_column(ga->aggs, ga->naggs, a) && !page_count(gp, desc, ga->aggs[a].count_attno))
            return refuse(gp, "count() of a column of a type or place the GPU does not read");
        if (value_aggregate_kind(ga->aggs[a].kind) && !page_agg(gp, desc, ga->aggs[a], ga->columns[a]))
            return refuse(gp, "an aggregate's column, of a place the GPU does not read");
    }
    if (gp->keys_by_rows) {
        /*
         * A key only the executor computes (to_char): the GPU applies the
         * native clauses, and hands the host each page with a row that
         * passes them, whole, for its keys and its counts; a page none of
         * whose rows pass is done there.  A time range's pages are then the
         * host's work, not the table's.  Without a native clause every page
         * would come back.
         */
        spec.rows_to_host = 1;
    } else {
        for (int k = 0; k < nkeys; k++) {
            if (keys[k].def.ops->gpu_table == NULL)
                return refuse(gp, psprintf("GROUP BY key %d (%s), which only the host computes", k + 1,
                                           keys[k].def.ops->describe(&keys[k])));
            if (!key_table_build(&keys[k], RelationGetRelid(host.rel), desc,
                                 host.quals != NULL ? *host.quals : NativeQuals{}, &spec.keys[k], &gp->tables, k))
                return refuse(gp, psprintf("GROUP BY key %d (%s), which the GPU has no table for: no statistics, "
                                           "no value met yet, or too many values",
                                           k + 1, keys[k].def.ops->describe(&keys[k])));
            spec.nkeys++;
        }
    }
    /*
     * A clause over a key (the local hour, a date, `host LIKE ...` by
     * value) as a filter key after the GROUP BY keys, where the four
     * leave room and its key has a table; else it is the host's, as
     * above.
     */
    int filters = 0;
    for (int i = 0; i < nover; i++) {
        if (spec.nkeys == gh::kMaxPageKeys ||
            !key_qual_gpu_filter(over_keys[i], KeyRows{RelationGetRelid(host.rel), host.quals}, desc,
                                 &spec.keys[spec.nkeys], &gp->tables, spec.nkeys)) {
            spec.keys[spec.nkeys] = gh::PageKey{};
            host_clauses = true;
            continue;
        }
        spec.nkeys++;
        filters++;
    }
    if (gp->keys_by_rows && spec.nquals == 0 && filters == 0)
        return refuse(gp, "a GROUP BY key only the host computes, row by row, and no native WHERE clause for "
                          "the GPU to leave pages by");
    if (host_clauses) {
        if (spec.nquals == 0 && filters == 0)
            return refuse(gp, "WHERE clauses the GPU does not hold (over an expression only the host computes, past "
                              "six comparisons, or of a column it does not read), and no other for it to leave "
                              "pages by");
        spec.rows_to_host = 1;
    }
    /*
     * The GPU's groups join the host's table: where it cannot flush (the
     * final states, serially), no more than it may hold.
     */
    const Size per_group = group_table_bytes_per_group(ga->table.ncells, static_cast<int32>(8 * (1 + ga->nkeys)));
    const int64 groups = gh::grouped_page_groups(spec);
    if (gh::grouped_page_cells(spec) >= INT32_MAX ||
        (ga->can_flush ? groups > kMaxFlushedGroups : static_cast<Size>(groups) > ga->table.limit / per_group))
        return refuse(gp, psprintf("%lld groups, past what the GPU's cells or work_mem hold",
                                   static_cast<long long>(groups)));
    /*
     * Groups of the GPU's cells past the bound are written to temporary
     * files, each once and again by part (grouping_shared.cpp), where the
     * host would spill only the rows of the groups it has no room for.
     * Where that writes more than the whole table holds, the host takes
     * the pages: 501 text groups of 5,000 buckets over 191 pages wrote
     * 35 MB on the H200 host, the host's spill 1.8 MB.
     */
    if (ga->can_flush) {
        /* the groups with rows: the key tables' bound, or fewer as the planner and the table's rows say */
        double held = static_cast<double>(groups);
        if (gp->planned_groups > 0)
            held = Min(held, gp->planned_groups);
        if (host.rel->rd_rel->reltuples > 0)
            held = Min(held, static_cast<double>(host.rel->rd_rel->reltuples));
        const double cells = held * static_cast<double>(per_group);
        const double table = static_cast<double>(RelationGetNumberOfBlocks(host.rel)) * BLCKSZ;
        if (group_cells_outgrow_table(cells, ga->table.limit, table))
            return refuse(gp, psprintf("%lld groups, whose cells past work_mem would write more to temporary "
                                       "files than the table holds",
                                       static_cast<long long>(groups)));
    }
    return true;
}

/* Parses pinned all-visible pages on the host: their tuples, the quals, the groups. */
void parse_pages(GroupedPages *gp, const HostPages &host, const PageBatch *b)
{
    TupleDesc desc = RelationGetDescr(host.rel);
    for (int i = 0; i < b->npages; i++) {
        if (!BufferIsValid(b->buffers[i]))
            continue;
        int n = heap_page_tuples(host.rel, b->buffers[i], b->lines[i], gp->tuples);
        heap_reader_count_tuples(host.reader, n);
        bool row_by_row = false;
        if (host.quals != NULL)
            n = native_quals_filter(*host.quals, desc, gp->tuples, n, &row_by_row);
        RowGate with_native;
        group_agg_add(host.ga, desc, gp->tuples, n, host.args,
                      row_by_row ? row_gate_with_native(&with_native, host.gate, host.quals, desc) : host.gate);
    }
}

/* A batch returned by page_gpu_: parsed here, then unpinned. */
void parse_returned(GroupedPages *gp, const HostPages &host, PageBatch *b)
{
    parse_pages(gp, host, b);
    page_gpu_parsed_on_cpu(&gp->pages, b);
    page_gpu_release(b);
}

/* The filling batch goes to the GPU, or is parsed here. */
void flush_last_batch(GroupedPages *gp, const HostPages &host)
{
    for (PageBatch *back = page_gpu_flush(&gp->pages, NULL, NULL); back != NULL;
         back = page_gpu_resume(&gp->pages, NULL, NULL))
        parse_returned(gp, host, back);
}

} // namespace

bool grouped_pages_may_run(void)
{
    return gh_debug_pages_on_cpu || (device_gpu_wanted() && gh_pages_on_gpu && gpu_service_pages().ready);
}

void grouped_pages_init(GroupedPages *gp, const ScanAggregate *aggs, int naggs, const GroupKey *keys, int nkeys,
                        bool executor_only, MemoryContext parent_cxt)
{
    memset(gp, 0, sizeof *gp);
    gp->cxt = AllocSetContextCreate(parent_cxt, "GpuHistogramScan grouped pages", ALLOCSET_DEFAULT_SIZES);
    gp->tuples = static_cast<HeapTupleData *>(MemoryContextAlloc(parent_cxt, sizeof(HeapTupleData) *
                                                                               MaxHeapTuplesPerPage));
    if (!grouped_pages_may_run())
        return;
    if (executor_only) {
        refuse(gp, "a WHERE clause the executor evaluates before the native ones");
        return;
    }
    if (nkeys > gh::kMaxPageKeys) {
        refuse(gp, "more than four GROUP BY keys");
        return;
    }
    int histograms = 0;
    for (int a = 0; a < naggs; a++)
        if (aggs[a].kind == AggKind::histogram)
            histograms++;
    if (histograms == 0) {
        refuse(gp, "no gpu_histogram");
        return;
    }
    /* the first histogram is the spec's own; the others are page aggregates beside it */
    int value_aggs = histograms - 1;
    for (int a = 0; a < naggs; a++)
        if (value_aggregate_kind(aggs[a].kind) || group_agg_counts_other_column(aggs, naggs, a))
            value_aggs++;
    if (value_aggs > gh::kMaxPageAggs) {
        refuse(gp, "more than four further histograms, sums, means, minimums, maximums and counts of other columns");
        return;
    }
    /*
     * a key kept as bytes needs its kind's table, which names each slot's
     * value; key_table_build() places or refuses each key once its
     * arguments are known
     */
    for (int k = 0; k < nkeys; k++)
        if (group_key_is_text(&keys[k]) && keys[k].def.ops->gpu_table == NULL)
            gp->keys_by_rows = true;
    gp->wanted = true;
}

namespace {

/*
 * The values of the plain text columns among the keys that the host's
 * groups hold at the table's end, remembered for the next scan's
 * dictionaries (text_memo.h): every row whose value the GPU lacked was
 * the host's, so they are all there, unless the groups were emitted in
 * rounds.
 */
void remember_text_keys(const GroupedPages *gp, const HostPages &host)
{
    const GroupAgg *ga = host.ga;
    for (int k = 0; k < ga->nkeys; k++) {
        if (ga->keys[k].def.ops != &column_key_kind || !ga->keys[k].def.as_bytes)
            continue;
        MemoryContext old = MemoryContextSwitchTo(gp->cxt);
        struct varlena **values;
        const int32 n = group_agg_text_key_values(ga, k, &values);
        text_memo_add(RelationGetRelid(host.rel), ga->keys[k].def.attno, values, n);
        MemoryContextSwitchTo(old);
    }
}

/*
 * A plain text column among the keys that this backend has never met
 * (text_memo.h), or a key by value or derived key whose memo holds no
 * value yet (value_memo.h).
 */
bool key_unmet(const HostPages &host)
{
    const GroupAgg *ga = host.ga;
    for (int k = 0; k < ga->nkeys; k++) {
        const GroupKey &key = ga->keys[k];
        struct varlena *const *values;
        if (key.def.ops == &column_key_kind && key.def.as_bytes &&
            text_memo_values(RelationGetRelid(host.rel), key.def.attno, &values) == 0)
            return true;
        if ((key.def.ops == &value_key_kind || key.def.ops == &derived_key_kind) && key.memo != NULL &&
            value_memo_count(key.memo) == 0)
            return true;
    }
    return false;
}

} // namespace

void grouped_pages_prepare(GroupedPages *gp, const HostPages &host, GroupKey *keys, int nkeys, bool parallel)
{
    if (!gp->wanted || gp->tried || !host.ga->laid_out)
        return;
    /*
     * A text key's dictionary holds the values the statistics name and
     * those earlier scans met.  A first scan of the column waits for the
     * host to read its first pages, whose values join the dictionary: the
     * statistics of a thousand devices name a hundred or two, and rows of
     * the others on every page would send every page back.  So does a
     * key by value with nothing in its memo: its table is the memo's.
     */
    if (gp->waiting || key_unmet(host)) {
        gp->waiting = true;
        if (++gp->pages_waited < kFirstScanPages)
            return;
        remember_text_keys(gp, host);
    }
    gp->tried = true;
    MemoryContext old = MemoryContextSwitchTo(gp->cxt);
    instr_time start;
    INSTR_TIME_SET_CURRENT(start);
    bool built = build_spec(gp, host, keys, nkeys);
    const double took = ms_since(start);
    MemoryContextSwitchTo(old);
    if (built) {
        instr_time begun;
        INSTR_TIME_SET_CURRENT(begun);
        page_gpu_begin_grouped(&gp->pages, host.reader, &gp->spec, gp->tables.words, gp->tables.nwords, parallel,
                               gp->cxt);
        gp->pages.defer_nan = host.ga->errors_after_keys;
        gp->errors_of = host.ga;
        gp->active = gp->pages.possible;
        gp->begin_ms = ms_since(begun);
        INSTR_TIME_SET_CURRENT(gp->built_at);
    }
    if (built)
        elog(DEBUG1, "gpu_histogram scan: grouped pages %s (%lld groups, %d table words)",
             gp->active ? "on the GPU" : "on the CPU", static_cast<long long>(gh::grouped_page_groups(gp->spec)),
             gp->tables.nwords);
    else
        elog(DEBUG1, "gpu_histogram scan: grouped pages on the CPU: %s", gp->refused);
    elog(DEBUG3, "gpu_histogram scan: the grouped pages' spec and key tables took %.3f ms",
         took);
}

bool grouped_pages_take(GroupedPages *gp, const HostPages &host)
{
    HeapReader *r = host.reader;
    if (gp->active && page_gpu_accepts(&gp->pages, r, NULL, NULL)) {
        for (PageBatch *back = page_gpu_add(&gp->pages, r, NULL, NULL); back != NULL;
             back = page_gpu_resume(&gp->pages, NULL, NULL))
            parse_returned(gp, host, back);
        grouped_pages_parse_left(gp, host);
        return true;
    }
    heap_reader_list_page(r);
    return false;
}

void grouped_pages_parse_left(GroupedPages *gp, const HostPages &host)
{
    if (!gp->active)
        return;
    PageBatch *left = page_gpu_left(&gp->pages);
    if (left == NULL)
        return;
    gp->pages_left += left->npages;
    parse_pages(gp, host, left);
    page_gpu_release(left);
}

bool grouped_pages_drain(GroupedPages *gp, const HostPages &host)
{
    if (!gp->active || !gp->pages.probing)
        return false;
    flush_last_batch(gp, host);
    grouped_pages_parse_left(gp, host);
    bool more = page_gpu_collect_probes(&gp->pages);
    grouped_pages_parse_left(gp, host);
    return more;
}

void grouped_pages_end_read(GroupedPages *gp, const HostPages &host)
{
    if (gp->active) {
        gp->pages_ms = ms_since(gp->built_at);
        instr_time start;
        INSTR_TIME_SET_CURRENT(start);
        flush_last_batch(gp, host);
        heap_reader_count_tuples(host.reader, page_gpu_finish(&gp->pages, NULL));
        gp->finish_ms = ms_since(start);
        grouped_pages_parse_left(gp, host);
    }
    if (gp->wanted)
        remember_text_keys(gp, host);
}

namespace {

/*
 * Cells [first, first + n) of the GPU's groups into out, timed for DEBUG3.
 * The device's histogram answers with the NaN it met, if any: raised now,
 * or by a partitioned table's last leaf where this one holds its errors
 * (the cells then stay zero, and the query ends in the error).
 */
void read_cells(GroupedPages *gp, int32 first, int32 n, int64 *out)
{
    instr_time start;
    INSTR_TIME_SET_CURRENT(start);
    const gh::Status read = gpu_service_read_range_or_nan(&gp->pages.hist[0], first, n, out, &gp->pages.read_slot);
    gp->read_ms += ms_since(start);
    gp->reads++;
    if (read == gh::Status::nan_value)
        group_agg_nan(gp->errors_of);
}

/*
 * Once a scan: the tuples the GPU's kernel counted go into the reader, and
 * the groups are read from the first.  The tuple counter follows the
 * cells, so where they all fit one read they come with it: one request to
 * the service fewer for each scan of a hypertable's chunk or a partition,
 * about 0.1 ms of the 1.0 to 1.5 ms a chunk's grouped scan took on the
 * H100 host.
 */
void begin_collect(GroupedPages *gp, HeapReader *reader)
{
    if (gp->collecting || gp->collected)
        return;
    const int64 slots = gh::grouped_page_slots(gp->spec);
    const int64 groups = gh::grouped_page_groups(gp->spec);
    const int64 per_read = Max(1, kReadCells / slots);
    if (gp->chunk == NULL) /* a read's cells, and the counter after them */
        gp->chunk = static_cast<int64 *>(MemoryContextAlloc(gp->cxt, sizeof(int64) * (per_read * slots + 1)));
    gp->collecting = true;
    gp->next_group = 0;
    gp->chunk_first = gp->chunk_n = 0;
    int64 tuples = 0;
    if (groups <= per_read) {
        const int64 cells = groups * slots;
        memset(gp->chunk, 0, sizeof(int64) * (cells + 1));
        read_cells(gp, 0, static_cast<int32>(cells + 1), gp->chunk);
        gp->chunk_n = groups;
        tuples = gp->chunk[cells];
    } else {
        read_cells(gp, static_cast<int32>(groups * slots), 1, &tuples);
    }
    heap_reader_count_tuples(reader, static_cast<uint64>(tuples));
}

/*
 * The next group with rows among the GPU's cells, in the order of their
 * numbers: its key words, NULL bits and cells (the last one its rows).
 * false after the last, which ends the collection for this scan.
 */
bool next_counted_group(GroupedPages *gp, HeapReader *reader, CountedKey *key, const int64 **cells)
{
    const gh::GroupedPageSpec &spec = gp->spec;
    const int64 slots = gh::grouped_page_slots(spec);
    const int64 groups = gh::grouped_page_groups(spec);
    begin_collect(gp, reader);
    if (gp->collected)
        return false;
    const int64 per_read = Max(1, kReadCells / slots);
    while (gp->next_group < groups) {
        if (gp->next_group >= gp->chunk_first + gp->chunk_n) {
            /* the next groups' cells, zeroed on the device as they are read */
            gp->chunk_first = gp->next_group;
            gp->chunk_n = Min(per_read, groups - gp->chunk_first);
            memset(gp->chunk, 0, sizeof(int64) * gp->chunk_n * slots);
            read_cells(gp, static_cast<int32>(gp->chunk_first * slots), static_cast<int32>(gp->chunk_n * slots),
                       gp->chunk);
        }
        const int64 *c = gp->chunk + (gp->next_group - gp->chunk_first) * slots;
        int64 g = gp->next_group++;
        if (c[gh::grouped_page_rows_cell(spec)] == 0)
            continue;
        /* the group's number back into each key's slot: the last key varies fastest */
        *key = CountedKey{};
        for (int k = spec.nkeys - 1; k >= 0; k--) {
            if (spec.keys[k].filter != 0) /* a WHERE clause's key, after the GROUP BY keys: no group */
                continue;
            const int64 radix = static_cast<int64>(spec.keys[k].slots) + 1;
            const int64 slot = g % radix;
            g /= radix;
            if (slot == spec.keys[k].slots)
                key->nulls |= UINT64CONST(1) << k;
            else if (gp->tables.slot_values[k] != NULL)
                key->values[k] = gp->tables.slot_values[k][slot];
            else
                key->words[k] = gp->tables.slot_words[k] != NULL ? gp->tables.slot_words[k][slot] : slot;
        }
        *cells = c;
        return true;
    }
    gp->collecting = false;
    gp->collected = true;
    elog(DEBUG3,
         "gpu_histogram scan: the GPU's groups: service set-up %.3f ms, pages sent %.3f ms, last batch and pass "
         "%.3f ms, %d reads of cells %.3f ms",
         gp->begin_ms, gp->pages_ms, gp->finish_ms, gp->reads, gp->read_ms);
    return false;
}

} // namespace

bool grouped_pages_hold_groups(const GroupedPages *gp)
{
    return gp->active && gp->pages.hist[0].index >= 0;
}

bool grouped_pages_collect(GroupedPages *gp, GroupAgg *ga, HeapReader *reader)
{
    CountedKey key;
    const int64 *c;
    int64 rows;
    while (grouped_pages_next_group(gp, reader, &key, &c, &rows)) {
        group_agg_add_counts(ga, key, c, rows);
        if (group_agg_full(ga))
            return true; /* emitted first, the rest after (partial states only) */
    }
    return false;
}

void grouped_pages_begin_rows(GroupedPages *gp, HeapReader *reader)
{
    if (grouped_pages_hold_groups(gp))
        begin_collect(gp, reader);
}

bool grouped_pages_next_group(GroupedPages *gp, HeapReader *reader, CountedKey *key, const int64 **cells, int64 *rows)
{
    if (!grouped_pages_hold_groups(gp) || !next_counted_group(gp, reader, key, cells))
        return false;
    *rows = (*cells)[gh::grouped_page_rows_cell(gp->spec)];
    return true;
}

void grouped_pages_reset(GroupedPages *gp)
{
    if (gp->active)
        page_gpu_end(&gp->pages);
    MemoryContextReset(gp->cxt); /* its callback gives back what page_gpu_end did not */
    gp->tried = false;
    gp->pages_waited = 0;
    gp->waiting = false;
    if (gp->wanted) /* the shape's reasons stay; a spec's are the next scan's to find again */
        gp->refused = NULL;
    gp->active = false;
    gp->collecting = false;
    gp->collected = false;
    gp->chunk = NULL;
    gp->tables = KeyTables{};
    gp->spec = gh::GroupedPageSpec{};
    gp->begin_ms = gp->pages_ms = gp->finish_ms = gp->read_ms = 0;
    gp->reads = 0;
}

} // namespace gpu_histogram
