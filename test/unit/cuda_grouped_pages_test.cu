/*
 * cuda_grouped_pages_test.cu: the grouped page kernel
 * (kernel_grouped_pages.cuh) and its entry points (gpu_grouped_pages_open,
 * gpu_grouped_pages_submit) against a reference written here.
 *
 * Why a file of its own: the grouped kernel decides much more per tuple
 * than the page kernel does (the WHERE clause, each key's group, whether
 * the GPU may place the row at all), and a wrong decision is silent: a
 * miscounted group, or worse a page counted on the GPU and read again by
 * the host, or left to the host and never flagged.  So the reference is
 * computed from the Datums each tuple was made of (heap_pages.h), with
 * PostgreSQL's rules spelled out again here (strict operators fail on
 * NULL, float8's NaN equals NaN and sorts above everything, a key outside
 * its window or table and a NaN under width_bucket are the host's), never
 * through the kernel's own helpers: only width_bucket itself (bucket.h,
 * tested against the server's in bucket_test.cpp) is shared.
 *
 * The GroupedPagesHost tests need no GPU: they run evaluate_row, the
 * kernel's decision for one line pointer, on the host over random tables
 * and over hand-made edge cases whose answers are written out literally
 * (the reference is checked against those too), and grouped_page_spec_fits
 * over specs it must refuse.  The GroupedPages tests skip without a GPU:
 * random multi-page batches through gpu_grouped_pages_submit and through
 * the launcher on forced paths, comparing every cell, the tuple counter
 * and each page's flag; counters in shared memory and in global memory;
 * two keys; NaN values; refused specs and arguments.  The pool, the page
 * writer and the word buffers come from cuda_pages_harness.cuh.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda_pages_harness.cuh"
#include "specs/grouped_page_spec.h"
#include "kernels/kernel_grouped_pages.cuh"

namespace {

using namespace gh_pages_test;
using gh::GroupedPageSpec;
using gh::PageCmp;
using gh::PageKey;
using gh::PageKeyKind;
using gh::PageQual;
using gh::kernels::RowFate;
using heap_pages::Line;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
const double kNaN = std::nan("");
const double kInf = INFINITY;

/*
 * The random tables' columns.  The int2 first is often NULL, so that most
 * tuples walk a NULL bitmap before every other column; the key's width
 * varies, which moves every later column's offset.
 */
constexpr int kTag = 1;   /* int2 */
constexpr int kKey = 2;   /* int4 or int8: the column key */
constexpr int kValue = 3; /* float8 with NULLs: the histogram's value */
constexpr int kStamp = 4; /* int8, timestamp-like: the intervals key, integer quals */
constexpr int kFloat = 5; /* float8 with NaN, infinities, NULLs: float quals, the width_bucket key */
constexpr int kColumns = 5;

/* 2023-01-01 in PostgreSQL's microseconds since 2000: where timestamps lie. */
constexpr int64_t kT0 = 725846400000000;

Layout table_layout(PageValueType key_type)
{
    return {attr_of(PageValueType::int2), attr_of(key_type), {8, 8}, {8, 8}, {8, 8}};
}

/* The column as the host describes it, with the missing value (if any) older tuples take, in both forms. */
gh::PageColumn column(const Layout &layout, int attno, PageValueType type, std::optional<Datum> missing = std::nullopt)
{
    gh::PageColumn col = heap_pages::page_column(layout, attno, type, missing.has_value(),
                                                 missing ? heap_pages::as_float8(*missing, type) : 0.0);
    if (missing && type != PageValueType::float8 && type != PageValueType::float4)
        col.missing_word = type == PageValueType::int2      ? static_cast<int16_t>(missing->bits)
                           : type == PageValueType::int4    ? static_cast<int32_t>(missing->bits)
                           : type == PageValueType::boolean ? int64_t{(missing->bits & 0xFF) != 0}
                                                            : static_cast<int64_t>(missing->bits);
    return col;
}

PageQual qual(const gh::PageColumn &col, PageCmp cmp, int64_t word)
{
    PageQual q{};
    q.column = col;
    q.cmp = cmp;
    q.is_float = 0;
    q.word = word;
    return q;
}

PageQual float_qual(const gh::PageColumn &col, PageCmp cmp, double value)
{
    PageQual q{};
    q.column = col;
    q.cmp = cmp;
    q.is_float = 1;
    q.value = value;
    return q;
}

/*
 * An IN (cmp in) or NOT IN (not_in) list qual: its values sorted as
 * float8's btree orders them (is_float, NaN last) or as integers, without
 * repeats, appended to table as the host does (native_quals.cpp).
 */
PageQual list_qual(const gh::PageColumn &col, PageCmp cmp, bool is_float, std::vector<double> floats,
                   std::vector<int64_t> words, std::vector<int64_t> *table)
{
    PageQual q{};
    q.column = col;
    q.cmp = cmp;
    q.is_float = is_float;
    q.list_first = static_cast<uint32_t>(table->size());
    if (is_float) {
        std::sort(floats.begin(), floats.end(), [](double a, double b) {
            return std::isnan(b) ? !std::isnan(a) : !std::isnan(a) && a < b;
        });
        for (size_t i = 0; i < floats.size(); i++) {
            if (i > 0 && (floats[i] == floats[i - 1] || (std::isnan(floats[i]) && std::isnan(floats[i - 1]))))
                continue;
            int64_t bits;
            std::memcpy(&bits, &floats[i], sizeof bits);
            table->push_back(bits);
            q.list_count++;
        }
    } else {
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        table->insert(table->end(), words.begin(), words.end());
        q.list_count = static_cast<uint32_t>(words.size());
    }
    return q;
}

PageKey column_key(const gh::PageColumn &col, int64_t base, uint32_t slots)
{
    PageKey k{};
    k.kind = PageKeyKind::column;
    k.column = col;
    k.base = base;
    k.slots = slots;
    return k;
}

/* An intervals key whose table goes at the end of *table: the starts, then each one's slot. */
PageKey intervals_key(const gh::PageColumn &col, const std::vector<int64_t> &starts, const std::vector<int64_t> &slots_of,
                      int64_t end, uint32_t slots, std::vector<int64_t> *table)
{
    PageKey k{};
    k.kind = PageKeyKind::intervals;
    k.column = col;
    k.slots = slots;
    k.table_first = static_cast<uint32_t>(table->size());
    k.intervals = static_cast<uint32_t>(starts.size());
    k.end = end;
    table->insert(table->end(), starts.begin(), starts.end());
    table->insert(table->end(), slots_of.begin(), slots_of.end());
    return k;
}

/* A local_period key: the intervals' words are UTC offsets, the slot a period of the local time's units. */
PageKey local_period_key(const gh::PageColumn &col, const std::vector<int64_t> &starts,
                         const std::vector<int64_t> &offsets, int64_t end, int64_t unit, int32_t period, int32_t shift,
                         std::vector<int64_t> *table)
{
    PageKey k = intervals_key(col, starts, offsets, end, static_cast<uint32_t>(period), table);
    k.kind = PageKeyKind::local_period;
    k.unit = unit;
    k.period = period;
    k.shift = shift;
    return k;
}

PageKey width_bucket_key(const gh::PageColumn &col, const BucketSpec &wb)
{
    PageKey k{};
    k.kind = PageKeyKind::width_bucket;
    k.column = col;
    k.wb = wb;
    k.slots = static_cast<uint32_t>(wb.nbins) + 2;
    return k;
}

/* ---- the reference: from the written Datums, with PostgreSQL's rules ---- */

/* What a scan finds of a column in a line's tuple: NULL, or the stored value as an integer word and as a float8. */
struct Seen {
    bool null = true;
    int64_t word = 0;
    double value = 0;
};

Seen seen(const Line &line, const gh::PageColumn &col)
{
    if (line.values.size() < static_cast<size_t>(col.attno)) /* stored before ADD COLUMN */
        return col.has_missing ? Seen{false, col.missing_word, col.missing_value} : Seen{};
    const Datum &d = line.values[static_cast<size_t>(col.attno - 1)];
    if (d.null)
        return Seen{};
    Seen s{false, 0, heap_pages::as_float8(d, col.type)};
    switch (col.type) { /* the stored bytes sign-extended, as DatumGetInt16/32/64 read them */
    case PageValueType::int2: s.word = static_cast<int16_t>(d.bits); break;
    case PageValueType::int4: s.word = static_cast<int32_t>(d.bits); break;
    case PageValueType::int8: s.word = static_cast<int64_t>(d.bits); break;
    case PageValueType::boolean: s.word = (d.bits & 0xFF) != 0; break; /* DatumGetBool: any byte but 0 */
    default: break;
    }
    return s;
}

/* float8_cmp_internal (float.c): NaN equals NaN and is above every other value, -0 equals 0. */
int pg_float8_cmp(double a, double b)
{
    if (std::isnan(a))
        return std::isnan(b) ? 0 : 1;
    if (std::isnan(b))
        return -1;
    return a > b ? 1 : a < b ? -1 : 0;
}

bool holds(int order, PageCmp cmp)
{
    switch (cmp) {
    case PageCmp::lt: return order < 0;
    case PageCmp::le: return order <= 0;
    case PageCmp::eq: return order == 0;
    case PageCmp::ge: return order >= 0;
    case PageCmp::gt: return order > 0;
    case PageCmp::ne: return order != 0;
    case PageCmp::in:
    case PageCmp::not_in:                            /* lists: reference_row walks them */
    case PageCmp::is_null:
    case PageCmp::is_not_null: break; /* reference_row answers */
    }
    ADD_FAILURE() << "no such comparison";
    return false;
}

/* The key's slot for the line (key.slots for NULL); nothing where only the host can place it. */
/* The slot the key's kind finds among nslots (nslots for NULL), before any remap. */
std::optional<uint32_t> reference_found(const Line &line, const PageKey &key, const std::vector<int64_t> &table,
                                        uint32_t nslots)
{
    const Seen s = seen(line, key.column);
    if (s.null)
        return key.null_host ? std::nullopt : std::optional<uint32_t>(nslots);
    switch (key.kind) {
    case PageKeyKind::column: {
        /* [base, base + slots): where base + slots passes INT64_MAX the window runs to the top */
        int64_t end = 0;
        const bool open_above = __builtin_add_overflow(key.base, static_cast<int64_t>(nslots), &end);
        if (s.word < key.base || (!open_above && s.word >= end))
            return std::nullopt;
        return static_cast<uint32_t>(s.word - key.base);
    }
    case PageKeyKind::intervals: /* a plain walk over the intervals: the kernel bisects */
        for (uint32_t i = 0; i < key.intervals; i++) {
            const int64_t from = table[key.table_first + i];
            const int64_t to = i + 1 < key.intervals ? table[key.table_first + i + 1] : key.end;
            const int64_t slot = table[key.table_first + key.intervals + i];
            if (from <= s.word && s.word < to)
                return slot == gh::kHostSlot ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(slot));
        }
        return std::nullopt;
    case PageKeyKind::local_period: /* the interval's offset, then the unit's number counted up from the period's start */
        for (uint32_t i = 0; i < key.intervals; i++) {
            const int64_t from = table[key.table_first + i];
            const int64_t to = i + 1 < key.intervals ? table[key.table_first + i + 1] : key.end;
            if (!(from <= s.word && s.word < to))
                continue;
            const int64_t local = s.word + table[key.table_first + key.intervals + i];
            int64_t units = local / key.unit;
            if (local % key.unit != 0 && local < 0)
                units--; /* C++ division rounds toward zero: the unit's number rounds down */
            int64_t slot = (units % key.period + key.period + key.shift) % key.period;
            return static_cast<uint32_t>(slot);
        }
        return std::nullopt;
    case PageKeyKind::width_bucket:
        if (std::isnan(s.value)) /* width_bucket raises an error: the host's to raise */
            return std::nullopt;
        return static_cast<uint32_t>(gh::width_bucket(s.value, key.wb));
    }
    ADD_FAILURE() << "no such key kind";
    return std::nullopt;
}

/* The key's slot: the one found, renumbered by the remap where the key has one. */
std::optional<uint32_t> reference_slot(const Line &line, const PageKey &key, const std::vector<int64_t> &table)
{
    if (key.remap_count == 0)
        return reference_found(line, key, table, key.slots);
    const std::optional<uint32_t> inner = reference_found(line, key, table, key.remap_count - 1);
    if (!inner)
        return std::nullopt;
    const int64_t w = table[key.remap_first + *inner];
    return w == gh::kHostSlot ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(w));
}

/* What one line comes to: its fate and, when counted, its cells (value_cell -1 for a NULL or NaN value). */
struct RowResult {
    RowFate fate = RowFate::skip;
    int64_t value_cell = -1;
    int64_t row_cell = -1;
    int errors = 0; /* 1: a NaN value */
};

RowResult reference_row(const Line &line, const GroupedPageSpec &spec, const std::vector<int64_t> &table)
{
    RowResult r;
    if (line.flags != heap_pages::lp_normal)
        return r;
    /* whether the line passes atom q of the WHERE clause */
    auto passes = [&](const PageQual &qual) {
        const Seen s = seen(line, qual.column);
        if (qual.cmp == PageCmp::is_null || qual.cmp == PageCmp::is_not_null)
            return s.null == (qual.cmp == PageCmp::is_null);
        if (s.null) /* strict operators: NULL is not true */
            return false;
        if (qual.cmp == PageCmp::in || qual.cmp == PageCmp::not_in) {
            /* a plain walk over the list: the kernel bisects */
            bool found = false;
            for (uint32_t j = 0; j < qual.list_count; j++) {
                const int64_t entry = table[qual.list_first + j];
                double e;
                std::memcpy(&e, &entry, sizeof e);
                found = found || (qual.is_float ? pg_float8_cmp(s.value, e) == 0 : s.word == entry);
            }
            return found == (qual.cmp == PageCmp::in);
        }
        const int order = qual.is_float ? pg_float8_cmp(s.value, qual.value)
                                        : (s.word < qual.word ? -1 : s.word > qual.word ? 1 : 0);
        return holds(order, qual.cmp);
    };
    /* every clause, each an OR of the atoms that share its number */
    for (int32_t q = 0; q < spec.nquals;) {
        bool any = false;
        const int32_t clause = spec.quals[q].clause;
        for (; q < spec.nquals && spec.quals[q].clause == clause; q++)
            any = passes(spec.quals[q]) || any;
        if (!any)
            return r;
    }
    /* the clauses over keys: slot 0 passes, another fails, none the host's */
    for (int32_t k = 0; k < spec.nkeys; k++) {
        if (spec.keys[k].filter == 0)
            continue;
        const std::optional<uint32_t> slot = reference_slot(line, spec.keys[k], table);
        if (!slot) {
            r.fate = RowFate::host;
            return r;
        }
        if (*slot != 0)
            return r;
    }
    int64_t group = 0; /* the first key's slot the most significant */
    for (int32_t k = 0; k < spec.nkeys; k++) {
        if (spec.keys[k].filter != 0)
            continue;
        const std::optional<uint32_t> slot = reference_slot(line, spec.keys[k], table);
        if (!slot) {
            r.fate = RowFate::host;
            return r;
        }
        group = group * (static_cast<int64_t>(spec.keys[k].slots) + 1) + *slot;
    }
    const int64_t cells = static_cast<int64_t>(gh::grouped_page_nbins(spec)) + 3; /* buckets 0 .. nbins + 1, then the rows */
    r.fate = RowFate::count;
    r.row_cell = group * cells + cells - 1;
    const Seen v = seen(line, spec.value);
    if (!v.null && spec.form == gh::PageForm::time) /* numeric width_bucket over the stored integer */
        r.value_cell = group * cells + gh::int64_bucket_reference(v.word, spec.time);
    else if (!v.null && spec.form == gh::PageForm::thresholds) {
        /* width_bucket(x, thresholds): how many thresholds lie at or below x, NaN above them all */
        int32_t b = 0;
        for (int32_t k = 0; k < spec.thresholds_count; k++) {
            double t;
            std::memcpy(&t, &table[spec.thresholds_first + k], sizeof t);
            b += std::isnan(v.value) || pg_float8_cmp(v.value, t) >= 0;
        }
        r.value_cell = group * cells + b;
    } else if (!v.null) {
        if (std::isnan(v.value))
            r.errors = 1;
        else
            r.value_cell = group * cells + gh::width_bucket(v.value, spec.interval);
    }
    return r;
}

/* The histogram's width_bucket as evaluate_row calls it: __host__ __device__, as a kernel's binner is. */
struct Bucketer {
    BucketSpec spec;
    __host__ __device__ int32_t operator()(double x) const { return gh::width_bucket(x, spec); }
};

/* The time form's, as the kernel's binner: the stored integer arrives as a double's bits. */
struct TimeBucketer {
    gh::Int64Binning binning;
    __host__ __device__ int32_t operator()(double x) const
    {
        int64_t v;
        std::memcpy(&v, &x, sizeof v);
        return gh::int64_bucket(v, binning);
    }
};

/* The thresholds form's, as the kernel's binner searches them. */
struct ThresholdBucketer {
    const double *thresholds;
    int32_t count;
    __host__ __device__ int32_t operator()(double x) const { return gh::threshold_bucket(x, thresholds, count); }
};

/* evaluate_row, the kernel's own decision, run on the host for line i of a page. */
RowResult evaluated(const unsigned char *page, uint32_t i, const GroupedPageSpec &spec,
                    const std::vector<int64_t> &table)
{
    uint32_t item;
    std::memcpy(&item, page + heap_pages::kPageHeaderSize + 4 * i, sizeof item);
    RowResult r;
    r.value_cell = r.row_cell = -7; /* left as they were unless counted */
    const int64_t *t = table.empty() ? nullptr : table.data();
    if (spec.form == gh::PageForm::time)
        r.fate = gh::kernels::evaluate_row(page, item, spec, t, TimeBucketer{gh::prepare_int64(spec.time)},
                                           &r.value_cell, &r.row_cell, &r.errors);
    else if (spec.form == gh::PageForm::thresholds)
        r.fate = gh::kernels::evaluate_row(
            page, item, spec, t,
            ThresholdBucketer{reinterpret_cast<const double *>(t + spec.thresholds_first), spec.thresholds_count},
            &r.value_cell, &r.row_cell, &r.errors);
    else
        r.fate = gh::kernels::evaluate_row(page, item, spec, t, Bucketer{spec.interval}, &r.value_cell,
                                           &r.row_cell, &r.errors);
    return r;
}

const char *fate_name(RowFate f) { return f == RowFate::skip ? "skip" : f == RowFate::count ? "count" : "host"; }

/* Asserts that the kernel's decision for line i of buffer b is the reference's. */
void expect_row(const Written &written, size_t b, uint32_t i, const GroupedPageSpec &spec,
                const std::vector<int64_t> &table, const std::string &what)
{
    const RowResult want = reference_row(written[b][i], spec, table);
    const RowResult got = evaluated(pool_page(b), i, spec, table);
    ASSERT_EQ(got.fate, want.fate) << what << ", page " << b << " line " << i << ": " << fate_name(got.fate)
                                   << " for " << fate_name(want.fate);
    if (want.fate != RowFate::count)
        return;
    EXPECT_EQ(got.row_cell, want.row_cell) << what << ", page " << b << " line " << i;
    EXPECT_EQ(got.value_cell, want.value_cell) << what << ", page " << b << " line " << i;
    EXPECT_EQ(got.errors, want.errors) << what << ", page " << b << " line " << i;
}

/*
 * What the GPU must make of a set of batches: the cells of the pages it
 * counts, the normal tuples of those pages only, and for each page word
 * whether the page is the host's (some row it must count has a key the
 * GPU cannot place).
 */
struct Outcome {
    std::vector<int64_t> counts;
    int64_t tuples = 0;
    std::vector<std::vector<uint8_t>> bounced; /* by batch, by page word */
    int errors = 0;
};

Outcome reference(const Written &written, const std::vector<std::vector<uint64_t>> &batches,
                  const GroupedPageSpec &spec, const std::vector<int64_t> &table)
{
    Outcome out;
    out.counts.assign(static_cast<size_t>(gh::grouped_page_cells(spec)), 0);
    for (const auto &words : batches) {
        out.bounced.emplace_back(words.size(), 0);
        for (size_t p = 0; p < words.size(); p++) {
            const size_t b = gh::page_word_buffer(words[p]);
            if (b >= kPoolPages) /* not the pool's: nothing read, nothing for the host either */
                continue;
            EXPECT_LT(b, written.size()) << "a test lists a page it did not write";
            if (b >= written.size())
                continue;
            const size_t lines = std::min<size_t>(gh::page_word_lines(words[p]), written[b].size());
            std::vector<RowResult> rows;
            bool host = false;
            for (size_t i = 0; i < lines; i++) {
                rows.push_back(reference_row(written[b][i], spec, table));
                host = host || rows.back().fate == RowFate::host;
            }
            if (host) { /* the whole page, or the host would count its other rows twice */
                out.bounced.back()[p] = 1;
                continue;
            }
            for (size_t i = 0; i < lines; i++) {
                out.tuples += written[b][i].flags == heap_pages::lp_normal;
                if (rows[i].fate != RowFate::count)
                    continue;
                out.counts[static_cast<size_t>(rows[i].row_cell)]++;
                if (rows[i].value_cell >= 0)
                    out.counts[static_cast<size_t>(rows[i].value_cell)]++;
                out.errors |= rows[i].errors;
            }
        }
    }
    return out;
}

/* Pages the reference leaves to the host, and all page words of the pool. */
std::pair<size_t, size_t> bounced_of(const Outcome &o, const std::vector<std::vector<uint64_t>> &batches)
{
    size_t host = 0, pages = 0;
    for (size_t k = 0; k < batches.size(); k++)
        for (size_t p = 0; p < batches[k].size(); p++) {
            pages += gh::page_word_buffer(batches[k][p]) < kPoolPages;
            host += o.bounced[k][p];
        }
    return {host, pages};
}

/* Equal cells (reporting the first few that differ rather than thousands), tuples and flags. */
void expect_outcome(const Outcome &got, const Outcome &want, const std::string &what)
{
    ASSERT_EQ(got.counts.size(), want.counts.size()) << what;
    size_t wrong = 0;
    for (size_t c = 0; c < want.counts.size(); c++)
        if (got.counts[c] != want.counts[c] && ++wrong <= 5)
            ADD_FAILURE() << what << ": cell " << c << " is " << got.counts[c] << ", not " << want.counts[c];
    EXPECT_EQ(wrong, 0u) << what << ": cells that differ";
    EXPECT_EQ(got.tuples, want.tuples) << what << ": normal tuples of the counted pages";
    ASSERT_EQ(got.bounced.size(), want.bounced.size()) << what;
    for (size_t k = 0; k < want.bounced.size(); k++)
        for (size_t p = 0; p < want.bounced[k].size(); p++)
            EXPECT_EQ(int(got.bounced[k][p]), int(want.bounced[k][p])) << what << ": batch " << k << ", page word " << p;
}

/* ---- random tables ---- */

/* How a table's rows are drawn. */
struct Draw {
    PageValueType key_type = PageValueType::int4;
    int64_t key_lo = -5, key_hi = 4;  /* keys in [key_lo, key_hi] */
    int64_t stamp_lo = kT0, stamp_hi = kT0 + 100000; /* timestamps in [stamp_lo, stamp_hi) */
    BucketSpec values{0, 100, 8, BucketRule::pg16};  /* values around it */
    BucketSpec floats{-1, 1, 10, BucketRule::pg16};  /* the float column's around it */
    int value_nan_in = 0; /* one value in value_nan_in is NaN (0: none) */
    int float_nan_in = 0; /* the same for the float column */
    int outside_in = 0;   /* one key and one timestamp in outside_in is an extreme or just outside */
    int older_in = 0;     /* one row in older_in stores only its first 1 .. 4 columns */
};

int64_t pick(std::mt19937_64 &rng, int64_t lo, int64_t hi) /* in [lo, hi] */
{
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

std::vector<Datum> draw_row(std::mt19937_64 &rng, const Draw &d)
{
    std::vector<Datum> row(kColumns);
    row[kTag - 1] = rng() % 4 == 0 ? heap_pages::null_datum() : heap_pages::int_datum(static_cast<int16_t>(rng()));
    const bool wide = d.key_type == PageValueType::int8;
    int64_t key = pick(rng, d.key_lo, d.key_hi);
    int64_t stamp = pick(rng, d.stamp_lo, d.stamp_hi - 1);
    if (d.outside_in > 0 && rng() % d.outside_in == 0) {
        const int64_t keys[] = {d.key_lo - 1, d.key_hi + 1, wide ? kInt64Min : INT32_MIN, wide ? kInt64Max : INT32_MAX};
        key = keys[rng() % 4];
        const int64_t stamps[] = {d.stamp_lo - 1, d.stamp_hi, kInt64Min, kInt64Max};
        stamp = stamps[rng() % 4];
    }
    row[kKey - 1] = rng() % 12 == 0 ? heap_pages::null_datum() : heap_pages::int_datum(key);
    double value = around(rng, d.values);
    if (d.value_nan_in > 0 && rng() % d.value_nan_in == 0)
        value = kNaN;
    row[kValue - 1] = rng() % 6 == 0 ? heap_pages::null_datum() : heap_pages::float8_datum(value);
    row[kStamp - 1] = rng() % 10 == 0 ? heap_pages::null_datum() : heap_pages::int_datum(stamp);
    double f = around(rng, d.floats);
    if (rng() % 20 == 0)
        f = rng() % 2 ? kInf : -kInf;
    else if (rng() % 20 == 0)
        f = 0.5; /* a value quals compare equal to */
    if (d.float_nan_in > 0 && rng() % d.float_nan_in == 0)
        f = kNaN;
    row[kFloat - 1] = rng() % 8 == 0 ? heap_pages::null_datum() : heap_pages::float8_datum(f);
    if (d.older_in > 0 && rng() % d.older_in == 0)
        row.resize(1 + rng() % 4);
    return row;
}

/*
 * Fills buffers [first, first + count) with drawn rows, as many as each
 * page takes.  On one page in plant_in (0: none) one of the first 40 rows
 * goes through plant() (a key the GPU cannot place); one line pointer in
 * 25 is then marked dead, unused or a redirect: their tuples must not count.
 */
template <typename DrawRow, typename Plant>
Written write_pages(const Layout &layout, size_t first, size_t count, std::mt19937_64 &rng, DrawRow draw, Plant plant,
                    int plant_in)
{
    Written out(first + count);
    for (size_t b = first; b < first + count; b++) {
        PageWriter w(pool_page(b));
        const size_t planted = plant_in > 0 && rng() % static_cast<uint64_t>(plant_in) == 0 ? rng() % 40 : SIZE_MAX;
        for (size_t i = 0;; i++) {
            std::vector<Datum> row = draw();
            if (i == planted)
                plant(row);
            if (!w.add_tuple(layout, row))
                break;
        }
        for (uint32_t i = 0; i < w.lines().size(); i++)
            if (rng() % 25 == 0)
                w.set_flags(i, rng() % 3 == 0 ? heap_pages::lp_dead
                               : rng() % 2 == 0 ? heap_pages::lp_unused
                                                : heap_pages::lp_redirect);
        out[b] = w.lines();
    }
    return out;
}

/*
 * The pages in shuffled batches as a scan lists them: some with fewer
 * line pointers than they have (added after the share lock), a batch that
 * repeats pages (the same page twice in one batch), an empty one, and a
 * buffer past the pool, which the kernel skips and must not flag.
 */
std::vector<std::vector<uint64_t>> random_batches(std::mt19937_64 &rng, const Written &written, size_t first,
                                                  size_t count)
{
    std::vector<uint64_t> all = words_for(written, first, count);
    for (uint64_t &w : all)
        if (rng() % 8 == 0)
            w = gh::page_word(gh::page_word_buffer(w), static_cast<uint32_t>(rng() % (gh::page_word_lines(w) + 1)));
    std::shuffle(all.begin(), all.end(), rng);
    const size_t a = all.size() / 5, b = all.size() / 2;
    std::vector<std::vector<uint64_t>> out{{all.begin(), all.begin() + a}, {all.begin() + a, all.begin() + b},
                                           {all.begin() + b, all.end()}, {}};
    std::vector<uint64_t> repeats;
    for (int i = 0; i < 40; i++)
        repeats.push_back(all[rng() % all.size()]);
    repeats.push_back(repeats.front());
    repeats.push_back(gh::page_word(kPoolPages + 3, 10));
    out.push_back(repeats);
    return out;
}

/* ---- the kernel's decisions on the host: no GPU needed ---- */

/* A spec over the random table: 0 to 4 keys of any kind, 0 to 6 quals of any column, windows that cut the data. */
GroupedPageSpec random_spec(std::mt19937_64 &rng, const Layout &layout, const Draw &d,
                            const std::optional<Datum> (&missing)[kColumns + 1], std::vector<int64_t> *table)
{
    const PageValueType types[kColumns + 1] = {PageValueType::float8, PageValueType::int2, d.key_type,
                                               PageValueType::float8, PageValueType::int8, PageValueType::float8};
    auto col = [&](int attno) { return column(layout, attno, types[attno], missing[attno]); };
    auto random_bucket = [&rng](double lo, double hi) {
        BucketSpec s{lo, hi, 1 + static_cast<int32_t>(rng() % 12), rng() % 2 ? BucketRule::pg15 : BucketRule::pg16};
        if (rng() % 4 == 0)
            std::swap(s.lo, s.hi); /* descending bounds number the buckets the other way */
        return s;
    };
    GroupedPageSpec s{};
    s.value = col(kValue);
    s.interval = random_bucket(-30 + double(rng() % 40), 60 + double(rng() % 80));
    s.nkeys = static_cast<int32_t>(rng() % (gh::kMaxPageKeys + 1));
    table->clear();
    for (int32_t k = 0; k < s.nkeys; k++) {
        for (uint64_t junk = rng() % 3; junk > 0; junk--) /* a key's table need not start at 0 */
            table->push_back(static_cast<int64_t>(rng()));
        switch (rng() % 4) {
        case 3: {
            /* over the timestamp: offsets that change within the data, units that cut it into several periods */
            const uint64_t n = 1 + rng() % 5;
            const int64_t step = std::max<int64_t>(1, (d.stamp_hi - d.stamp_lo) / static_cast<int64_t>(n));
            std::vector<int64_t> starts, offsets;
            int64_t at = d.stamp_lo - step / 4 + pick(rng, 0, step / 2);
            for (uint64_t i = 0; i < n; i++) {
                starts.push_back(at);
                offsets.push_back(pick(rng, -3000, 3000));
                at += pick(rng, 1, 2 * step);
            }
            const int32_t period = 1 + static_cast<int32_t>(rng() % 7);
            s.keys[k] = local_period_key(col(kStamp), starts, offsets, at, pick(rng, 1, 700), period,
                                         static_cast<int32_t>(rng() % static_cast<uint64_t>(period)), table);
            break;
        }
        case 0:
            s.keys[k] = column_key(col(kKey), pick(rng, d.key_lo - 3, d.key_lo + 3),
                                   static_cast<uint32_t>(1 + rng() % static_cast<uint64_t>(d.key_hi - d.key_lo + 4)));
            break;
        case 1: {
            /* over the timestamp mostly, sometimes over the key column; not quite covering the data either way */
            const int attno = rng() % 4 == 0 ? kKey : kStamp;
            const int64_t lo = attno == kKey ? d.key_lo : d.stamp_lo, hi = attno == kKey ? d.key_hi : d.stamp_hi;
            const uint32_t slots = 1 + static_cast<uint32_t>(rng() % 10);
            const uint64_t n = 1 + rng() % 30;
            const int64_t step = std::max<int64_t>(1, (hi - lo) / static_cast<int64_t>(n));
            std::vector<int64_t> starts, slot_of;
            int64_t at = lo - step / 4 + pick(rng, 0, step / 2);
            for (uint64_t i = 0; i < n; i++) {
                starts.push_back(at);
                slot_of.push_back(static_cast<int64_t>(rng() % slots)); /* several intervals may share a group */
                at += pick(rng, 1, 2 * step);
            }
            s.keys[k] = intervals_key(col(attno), starts, slot_of, at, slots, table);
            break;
        }
        default: {
            const int attno = rng() % 3 == 0 ? kValue : rng() % 4 == 0 ? kKey : kFloat;
            s.keys[k] = width_bucket_key(col(attno), attno == kKey ? random_bucket(double(d.key_lo), double(d.key_hi + 1))
                                                                     : random_bucket(-1, 1));
            break;
        }
        }
        /* a key of the key (derived_key.cpp), or a WHERE clause over one (key_quals.cpp): a remap of every slot */
        const uint64_t role = rng() % 6;
        if (role >= 2 && s.keys[k].slots <= 64) {
            const bool filter = role == 5;
            const uint32_t slots = filter ? 1 : 1 + static_cast<uint32_t>(rng() % 5);
            s.keys[k].remap_first = static_cast<uint32_t>(table->size());
            s.keys[k].remap_count = s.keys[k].slots + 1;
            for (uint32_t i = 0; i <= s.keys[k].slots; i++)
                table->push_back(rng() % 7 == 0 ? gh::kHostSlot : static_cast<int64_t>(rng() % (slots + 1)));
            s.keys[k].slots = slots;
            s.keys[k].filter = filter;
        }
    }
    s.nquals = static_cast<int32_t>(rng() % (gh::kMaxPageQuals + 1));
    const double constants[] = {kNaN, kInf, -kInf, 0.0, -0.0, 0.5, 1.0, -0.25};
    for (int32_t q = 0; q < s.nquals; q++) {
        const int attno = 1 + static_cast<int>(rng() % kColumns);
        if (rng() % 8 == 0) { /* IS NULL, IS NOT NULL */
            s.quals[q] = qual(col(attno), rng() % 2 ? PageCmp::is_null : PageCmp::is_not_null, 0);
            s.quals[q].is_float = types[attno] == PageValueType::float8;
            continue;
        }
        if (rng() % 4 == 0) { /* an IN or NOT IN list of one to six values, some repeated */
            const PageCmp cmp = rng() % 2 ? PageCmp::in : PageCmp::not_in;
            std::vector<double> floats;
            std::vector<int64_t> words;
            for (uint64_t n = 1 + rng() % 6; n > 0; n--) {
                floats.push_back(rng() % 2 ? constants[rng() % 8] : around(rng, d.floats));
                words.push_back(attno == kStamp ? pick(rng, d.stamp_lo, d.stamp_hi) : pick(rng, d.key_lo - 1, d.key_hi + 1));
            }
            const bool is_float = types[attno] == PageValueType::float8;
            s.quals[q] = list_qual(col(attno), cmp, is_float, floats, words, table);
            continue;
        }
        const PageCmp cmp = static_cast<PageCmp>(rng() % 6);
        if (types[attno] == PageValueType::float8) {
            s.quals[q] = float_qual(col(attno), cmp, rng() % 2 ? constants[rng() % 8] : around(rng, d.floats));
        } else if (rng() % 5 == 0) { /* an integer column compared as a float8 */
            s.quals[q] = float_qual(col(attno), cmp, rng() % 4 == 0 ? kNaN : double(pick(rng, d.key_lo, d.key_hi)) + 0.5);
        } else {
            const int64_t c = attno == kStamp ? pick(rng, d.stamp_lo, d.stamp_hi)
                              : attno == kKey ? pick(rng, d.key_lo - 1, d.key_hi + 1)
                                              : static_cast<int16_t>(rng()) / 4;
            s.quals[q] = qual(col(attno), cmp, c);
        }
    }
    /* the atoms into clauses: each the next one's, or an OR with the one before */
    for (int32_t q = 1; q < s.nquals; q++)
        s.quals[q].clause = s.quals[q - 1].clause + static_cast<int32_t>(rng() % 2);
    return s;
}

TEST(GroupedPagesHost, RowsAgreeWithTheReferenceOnRandomTables)
{
    ASSERT_NE(pool(), nullptr);
    std::mt19937_64 rng(31);
    size_t fates[3] = {};
    for (int trial = 0; trial < 400; trial++) {
        Draw d;
        d.key_type = rng() % 2 ? PageValueType::int4 : PageValueType::int8;
        d.key_lo = pick(rng, -20, 5);
        d.key_hi = d.key_lo + pick(rng, 0, 30);
        d.stamp_lo = kT0 + pick(rng, -1000, 1000);
        d.stamp_hi = d.stamp_lo + pick(rng, 1, 5000);
        d.value_nan_in = rng() % 2 ? 0 : 50;
        d.float_nan_in = rng() % 4 == 0 ? 0 : 10;
        d.outside_in = rng() % 3 == 0 ? 0 : 60;
        d.older_in = rng() % 2 ? 0 : 10;
        const Layout layout = table_layout(d.key_type);
        std::optional<Datum> missing[kColumns + 1];
        for (int a = 1; a <= kColumns; a++)
            if (rng() % 2)
                missing[a] = a == kValue || a == kFloat
                                 ? heap_pages::float8_datum(rng() % 4 == 0 ? kNaN : around(rng, d.floats))
                                 : heap_pages::int_datum(pick(rng, d.key_lo - 1, d.key_hi));
        Written written = write_pages(layout, 0, 3, rng, [&] { return draw_row(rng, d); }, [](auto &) {}, 0);
        std::vector<int64_t> table;
        const GroupedPageSpec spec = random_spec(rng, layout, d, missing, &table);
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << "trial " << trial;
        for (size_t b = 0; b < 3; b++)
            for (uint32_t i = 0; i < written[b].size(); i++) {
                ASSERT_NO_FATAL_FAILURE(expect_row(written, b, i, spec, table, "trial " + std::to_string(trial)));
                fates[static_cast<int>(reference_row(written[b][i], spec, table).fate)]++;
            }
    }
    /* the trials must reach every fate, and count most rows that pass */
    EXPECT_GT(fates[int(RowFate::count)], 30000u);
    EXPECT_GT(fates[int(RowFate::skip)], 30000u);
    EXPECT_GT(fates[int(RowFate::host)], 3000u);
    std::cout << "[   NOTE   ] rows counted " << fates[int(RowFate::count)] << ", skipped " << fates[int(RowFate::skip)]
              << ", for the host " << fates[int(RowFate::host)] << "\n";
}

/* Rows of a table (f float8, v float8) with f in each class of float8, then NULL; v is a plain 0.5. */
TEST(GroupedPagesHost, FloatQualsTakePostgresNaNOrder)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{8, 8}, {8, 8}};
    const double fs[] = {kNaN, kInf, 1.0, 0.0, -0.0, -kInf};
    PageWriter w(pool_page(0));
    for (double f : fs)
        ASSERT_TRUE(w.add_tuple(layout, {heap_pages::float8_datum(f), heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::null_datum(), heap_pages::float8_datum(0.5)}));
    const Written written{w.lines()};
    const gh::PageColumn f = column(layout, 1, PageValueType::float8);
    /* which rows pass, written out: rows 0 NaN, 1 Infinity, 2 one, 3 zero, 4 minus zero, 5 -Infinity, 6 NULL */
    const struct {
        PageCmp cmp;
        double constant;
        const char *passing;
    } cases[] = {
        {PageCmp::eq, kNaN, "0"},       {PageCmp::ne, kNaN, "12345"},  {PageCmp::lt, kNaN, "12345"},
        {PageCmp::le, kNaN, "012345"},  {PageCmp::gt, kNaN, ""},       {PageCmp::ge, kNaN, "0"},
        {PageCmp::gt, kInf, "0"},       {PageCmp::ge, kInf, "01"},     {PageCmp::lt, -kInf, ""},
        {PageCmp::le, -kInf, "5"},      {PageCmp::eq, 0.0, "34"},      {PageCmp::eq, -0.0, "34"},
        {PageCmp::ne, 0.0, "0125"},     {PageCmp::gt, 0.0, "012"},     {PageCmp::lt, 1.0, "345"},
        {PageCmp::ge, 1.0, "012"},      {PageCmp::ne, -kInf, "01234"}, {PageCmp::le, 0.0, "345"},
    };
    for (const auto &c : cases) {
        GroupedPageSpec spec{};
        spec.value = column(layout, 2, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
        spec.nquals = 1;
        spec.quals[0] = float_qual(f, c.cmp, c.constant);
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
        for (uint32_t i = 0; i < written[0].size(); i++) {
            const bool pass = std::strchr(c.passing, '0' + int(i)) != nullptr;
            const std::string what = "f " + std::to_string(int(c.cmp)) + " " + std::to_string(c.constant) +
                                     ", row " + std::to_string(i);
            EXPECT_EQ(reference_row(written[0][i], spec, {}).fate, pass ? RowFate::count : RowFate::skip)
                << what << ": the reference";
            const RowResult got = evaluated(pool_page(0), i, spec, {});
            EXPECT_EQ(got.fate, pass ? RowFate::count : RowFate::skip) << what;
            if (pass)
                EXPECT_EQ(got.value_cell, 3) << what << ": 0.5 in bucket 3 of the only group";
        }
    }
}

/* IN and NOT IN lists: NaN matches NaN, -0 matches 0, NULL matches nothing either way; integers sign-extended. */
TEST(GroupedPagesHost, ListQualsMatchAsPostgresEquals)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{8, 8}, {4, 4}, {8, 8}};
    const double fs[] = {kNaN, kInf, 1.0, 0.0, -0.0, -kInf};
    const int64_t is[] = {-1, INT32_MAX, 7, 0, INT32_MIN, 7};
    PageWriter w(pool_page(0));
    for (int r = 0; r < 6; r++)
        ASSERT_TRUE(w.add_tuple(layout, {heap_pages::float8_datum(fs[r]), heap_pages::int_datum(is[r]),
                                         heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::null_datum(), heap_pages::null_datum(), heap_pages::float8_datum(0.5)}));
    const Written written{w.lines()};
    const gh::PageColumn f = column(layout, 1, PageValueType::float8), i4 = column(layout, 2, PageValueType::int4);
    /* rows: 0 NaN / -1, 1 Infinity / INT32_MAX, 2 one / 7, 3 zero / 0, 4 minus zero / INT32_MIN, 5 -Infinity / 7, 6 NULL */
    std::vector<int64_t> table{42}; /* a list need not start the table */
    const struct {
        PageQual q;
        const char *passing;
    } cases[] = {
        {list_qual(f, PageCmp::in, true, {kNaN, -0.0}, {}, &table), "034"},
        {list_qual(f, PageCmp::not_in, true, {kNaN, -0.0}, {}, &table), "125"},
        {list_qual(f, PageCmp::in, true, {-kInf, 1.0, kInf, 1.0}, {}, &table), "125"},
        {list_qual(f, PageCmp::not_in, true, {0.25}, {}, &table), "012345"},
        {list_qual(i4, PageCmp::in, false, {}, {7, -1, INT32_MIN}, &table), "0245"},
        {list_qual(i4, PageCmp::not_in, false, {}, {7, -1, INT32_MIN}, &table), "13"},
        {list_qual(i4, PageCmp::in, false, {}, {static_cast<int64_t>(UINT32_MAX), INT32_MAX}, &table), "1"},
        {list_qual(i4, PageCmp::not_in, false, {}, {int64_t{1} << 40}, &table), "012345"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        GroupedPageSpec spec{};
        spec.value = column(layout, 3, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
        spec.nquals = 1;
        spec.quals[0] = cases[k].q;
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << "case " << k;
        for (uint32_t i = 0; i < written[0].size(); i++) {
            const RowFate want = std::strchr(cases[k].passing, '0' + int(i)) ? RowFate::count : RowFate::skip;
            EXPECT_EQ(reference_row(written[0][i], spec, table).fate, want) << "case " << k << ", row " << i
                                                                           << ": the reference";
            EXPECT_EQ(evaluated(pool_page(0), i, spec, table).fate, want) << "case " << k << ", row " << i;
        }
    }
    /* a list must have values, inside the table */
    GroupedPageSpec spec{};
    spec.value = column(layout, 3, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
    spec.nquals = 1;
    spec.quals[0] = cases[0].q;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, spec.quals[0].list_first + 1));
    spec.quals[0].list_count = 0;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
}

/* A text value as heap_fill_tuple stores it: a 1-byte header up to 126 bytes in all, else a 4-byte one. */
Datum text_datum(const std::string &bytes)
{
    Datum d = heap_pages::varlena_datum(static_cast<uint32_t>(bytes.size()));
    std::copy(bytes.begin(), bytes.end(), d.varlena.end() - static_cast<std::ptrdiff_t>(bytes.size()));
    return d;
}

/* A text qual's list as the host lays it out (grouped_pages.cpp): each value a length word, then its bytes. */
PageQual text_qual(const gh::PageColumn &col, PageCmp cmp, const std::vector<std::string> &values,
                   std::vector<int64_t> *table)
{
    PageQual q{};
    q.column = col;
    q.cmp = cmp;
    q.list_first = static_cast<uint32_t>(table->size());
    for (const std::string &v : values) {
        table->push_back(static_cast<int64_t>(v.size()));
        std::vector<int64_t> words((v.size() + 7) / 8, 0);
        std::memcpy(words.data(), v.data(), v.size());
        table->insert(table->end(), words.begin(), words.end());
        q.list_count++;
    }
    q.list_words = static_cast<uint32_t>(table->size() - q.list_first);
    return q;
}

/* An ungrouped spec of one WHERE atom q, binning the float8 column value_attno of layout into 4 buckets. */
GroupedPageSpec one_qual_spec(const Layout &layout, int value_attno, const PageQual &q)
{
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, value_attno, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
    spec.nquals = 1;
    spec.quals[0] = q;
    return spec;
}

/*
 * Text quals compare lengths and bytes, as texteq does under a
 * deterministic collation, after a varlena of each header kind: 1-byte,
 * 4-byte (padded where its writer aligned it), a prefix of another value,
 * the empty string; NULL passes neither way; a compressed or out-of-line
 * value is the host's; a tuple stored before the column was added takes
 * the host's answer for the missing value.
 */
TEST(GroupedPagesHost, TextQualsCompareBytes)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {1, 1}, {gh::kVarlenaLen, 4}, {8, 8}};
    const std::string long_a(300, 'a');
    const std::vector<Datum> texts{text_datum("host3"),   text_datum("host30"), text_datum(""),
                                   text_datum(long_a),    text_datum("host"),   heap_pages::null_datum(),
                                   heap_pages::varlena_datum(5000, true, 'h'), heap_pages::toast_pointer_datum(7)};
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < texts.size(); r++)
        ASSERT_TRUE(w.add_tuple(layout, {text_datum(std::string(r * 37 % 200, 'p')), heap_pages::int_datum(1),
                                         texts[r], heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple({{gh::kVarlenaLen, 4}, {1, 1}}, {text_datum("p"), heap_pages::int_datum(0)}));
    const Written written{w.lines()};
    gh::PageColumn t = heap_pages::page_column(layout, 3, PageValueType::text);
    t.fixed_offset = -1;
    gh::PageColumn with_missing = t;
    with_missing.has_missing = true;
    with_missing.missing_word = 1; /* the host found the missing value listed */
    std::vector<int64_t> table{42};
    /* rows: 0 host3, 1 host30, 2 '', 3 300 a's, 4 host, 5 NULL, 6 compressed, 7 out of line, 8 before ADD COLUMN */
    const struct {
        PageQual q;
        const char *passing;
        const char *host;
    } cases[] = {
        {text_qual(t, PageCmp::in, {"host3"}, &table), "0", "67"},
        {text_qual(t, PageCmp::not_in, {"host3"}, &table), "1234", "67"},
        {text_qual(t, PageCmp::in, {"host", "", long_a, "host30"}, &table), "1234", "67"},
        {text_qual(t, PageCmp::not_in, {"host", ""}, &table), "013", "67"},
        {text_qual(t, PageCmp::in, {"HOST3", "host3 "}, &table), "", "67"},
        {text_qual(with_missing, PageCmp::in, {"host3"}, &table), "08", "67"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const GroupedPageSpec spec = one_qual_spec(layout, 4, cases[k].q);
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << "case " << k;
        for (uint32_t i = 0; i < written[0].size(); i++) {
            const RowFate want = std::strchr(cases[k].host, '0' + int(i))      ? RowFate::host
                                 : std::strchr(cases[k].passing, '0' + int(i)) ? RowFate::count
                                                                               : RowFate::skip;
            EXPECT_EQ(evaluated(pool_page(0), i, spec, table).fate, want) << "case " << k << ", row " << i;
        }
    }
    /* with clauses only the host's executor evaluates, a row that passes is the host's; one that fails stays skipped */
    {
        GroupedPageSpec spec{};
        spec.value = heap_pages::page_column(layout, 4, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
        spec.nquals = 1;
        spec.quals[0] = cases[3].q; /* NOT IN ('host', ''): rows 0, 1, 3 pass */
        spec.rows_to_host = 1;
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
        for (uint32_t i = 0; i < written[0].size(); i++)
            EXPECT_EQ(evaluated(pool_page(0), i, spec, table).fate,
                      std::strchr("01367", '0' + int(i)) ? RowFate::host : RowFate::skip)
                << "rows to the host, row " << i;
        spec.rows_to_host = 2;
        EXPECT_FALSE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
    }
    /* what the kernel cannot read is refused: a list past the table, a comparison other than a list's, a fixed offset */
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, 4, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
    spec.nquals = 1;
    spec.quals[0] = cases[2].q;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, spec.quals[0].list_first + 1));
    spec.quals[0].cmp = PageCmp::eq;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
    spec.quals[0] = cases[2].q;
    spec.quals[0].column.fixed_offset = 8;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
    spec.quals[0] = cases[2].q;
    spec.quals[0].cmp = PageCmp::is_null;
    EXPECT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
}

/*
 * A numeric column's values are binned as numeric_float8 gives them
 * (strtod of their decimal text) wherever numeric_float8.h's fast path
 * reaches: after a text column, with a 1-byte header or a 4-byte one
 * (padded where its writer aligned it), zero, a negative value, a NaN
 * (width_bucket's error), NULL, a tuple stored before ADD COLUMN (its
 * missing value).  A compressed or out-of-line value, and one past the
 * fast path, make the row the host's, so that its page goes back.
 */
TEST(GroupedPagesHost, NumericValuesConvertOrGoBack)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 4}, {8, 8}};
    const struct {
        Datum value;
        const char *text; /* the decimal numeric_float8 reads back: the bucket's value; NULL, the host's or NULL */
    } rows[] = {
        {heap_pages::numeric_datum("12.50"), "12.50"},
        {heap_pages::numeric_datum("-0.01"), "-0.01"},
        {heap_pages::numeric_datum("3.1400", true), "3.1400"},
        {heap_pages::numeric_datum("0.00"), "0.00"},
        {heap_pages::numeric_datum("19.99"), "19.99"},
        {heap_pages::numeric_datum("999999999999.99"), "999999999999.99"},
        {heap_pages::numeric_datum("NaN"), "NaN"},
        {heap_pages::null_datum(), nullptr},
        {heap_pages::varlena_datum(5000, true, 'n'), nullptr},
        {heap_pages::toast_pointer_datum(9), nullptr},
        {heap_pages::numeric_datum("12345678901234567.8"), nullptr},
    };
    const char *host_rows = "89A"; /* compressed, out of line, past the fast path */
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        ASSERT_TRUE(w.add_tuple(layout, {text_datum(std::string(r * 41 % 150, 'd')), rows[r].value,
                                         heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple({{gh::kVarlenaLen, 4}}, {text_datum("d")})); /* B: before ADD COLUMN */
    const uint32_t lines = static_cast<uint32_t>(sizeof rows / sizeof rows[0]) + 1;
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, 2, PageValueType::numeric);
    spec.value.fixed_offset = -1;
    spec.interval = BucketSpec{0, 20, 4, BucketRule::pg16};
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
    for (const bool missing : {false, true}) {
        spec.value.has_missing = missing;
        spec.value.missing_value = 7.25; /* the host's numeric_float8 of the default */
        for (uint32_t i = 0; i < lines; i++) {
            const RowResult got = evaluated(pool_page(0), i, spec, {});
            const bool host = i < lines - 1 && std::strchr(host_rows, "0123456789AB"[i]) != nullptr;
            ASSERT_EQ(got.fate, host ? RowFate::host : RowFate::count) << "row " << i;
            if (host)
                continue;
            const char *text = i < lines - 1 ? rows[i].text : missing ? "7.25" : nullptr;
            if (text == nullptr) {
                EXPECT_EQ(got.value_cell, -1) << "row " << i << ": no value";
                continue;
            }
            const int32_t b = gh::width_bucket(std::strtod(text, nullptr), spec.interval);
            if (b < 0) {
                EXPECT_EQ(got.errors, -b) << "row " << i << ": NaN";
                EXPECT_EQ(got.value_cell, -1) << "row " << i;
            } else {
                EXPECT_EQ(got.value_cell, b) << "row " << i << ", " << text;
                EXPECT_EQ(got.errors, 0) << "row " << i;
            }
        }
    }
    /* the ungrouped page kernel has no way to hand a page back: a numeric column is not its */
    EXPECT_FALSE(gh::page_column_fits(spec.value));
    /* a numeric read at a fixed offset, or as the time form's word, is refused */
    spec.value.fixed_offset = 0;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, 0));
    spec.value.fixed_offset = -1;
    spec.value.as_word = true;
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, 0));
}

/* Integer quals compare the stored word sign-extended from its width, and older tuples take the missing value. */
TEST(GroupedPagesHost, IntegerQualsCompareSignExtendedWords)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{2, 2}, {4, 4}, {8, 8}, {8, 8}};
    auto row = [](int64_t a, int64_t b, int64_t c) {
        return std::vector<Datum>{heap_pages::int_datum(a), heap_pages::int_datum(b), heap_pages::int_datum(c),
                                  heap_pages::float8_datum(0.5)};
    };
    PageWriter w(pool_page(0));
    ASSERT_TRUE(w.add_tuple(layout, row(-1, -5, kInt64Min)));                 /* row 0 */
    ASSERT_TRUE(w.add_tuple(layout, row(INT16_MAX, INT32_MAX, kInt64Max)));  /* row 1 */
    ASSERT_TRUE(w.add_tuple(layout, row(INT16_MIN, INT32_MIN, -1)));         /* row 2 */
    ASSERT_TRUE(w.add_tuple(layout, row(0, 0, 0)));                          /* row 3 */
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::null_datum(), heap_pages::null_datum(), heap_pages::null_datum(),
                                     heap_pages::float8_datum(0.5)}));       /* row 4 */
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(3)}));            /* row 5: before columns 2 .. 4 */
    const Written written{w.lines()};
    const gh::PageColumn i2 = column(layout, 1, PageValueType::int2), i4 = column(layout, 2, PageValueType::int4),
                         i8 = column(layout, 3, PageValueType::int8),
                         i8_missing = column(layout, 3, PageValueType::int8, heap_pages::int_datum(7));
    const struct {
        PageQual q;
        const char *passing;
    } cases[] = {
        {qual(i2, PageCmp::lt, 0), "02"},
        {qual(i2, PageCmp::ge, -1), "0135"},
        {qual(i4, PageCmp::eq, -5), "0"},
        {qual(i4, PageCmp::gt, 0), "1"},
        {qual(i4, PageCmp::le, INT32_MIN), "2"},
        {qual(i8, PageCmp::lt, -1), "0"},
        {qual(i8, PageCmp::ge, kInt64Max), "1"},
        {qual(i8, PageCmp::ne, 0), "012"}, /* NULL, and a tuple older than the column, fail even <> */
        {qual(i8_missing, PageCmp::eq, 7), "5"},
        {qual(i8_missing, PageCmp::ne, 0), "0125"},
        {float_qual(i4, PageCmp::lt, -4.5), "02"}, /* an int4 compared as the float8 it casts to */
        {float_qual(i8, PageCmp::gt, 9.2e18), "1"},
        {float_qual(i8, PageCmp::lt, kNaN), "0123"},
        {qual(i8, PageCmp::is_null, 0), "45"},         /* NULL, and older than the column without a default */
        {qual(i8_missing, PageCmp::is_null, 0), "4"},  /* older than the column: its default, not NULL */
        {qual(i8_missing, PageCmp::is_not_null, 0), "01235"},
        {qual(i2, PageCmp::is_not_null, 0), "01235"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        GroupedPageSpec spec{};
        spec.value = column(layout, 4, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 4, BucketRule::pg15};
        spec.nquals = 1;
        spec.quals[0] = cases[k].q;
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0)) << "case " << k;
        for (uint32_t i = 0; i < written[0].size(); i++) {
            const RowFate want = std::strchr(cases[k].passing, '0' + int(i)) ? RowFate::count : RowFate::skip;
            EXPECT_EQ(reference_row(written[0][i], spec, {}).fate, want) << "case " << k << ", row " << i
                                                                        << ": the reference";
            EXPECT_EQ(evaluated(pool_page(0), i, spec, {}).fate, want) << "case " << k << ", row " << i;
        }
    }
}

/*
 * Each kind of key at the edges of what the GPU may place, with the slot
 * written out: the rows are counted in group `slot` of a one-key spec
 * (nbins 1: 4 cells a group, the row counter at 3), or left to the host.
 */
TEST(GroupedPagesHost, KeySlotsAtTheWindowsEdges)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{8, 8}, {8, 8}}; /* the key's column, the value */
    constexpr int64_t kHost = -1;
    auto check = [&](const PageKey &key, const std::vector<int64_t> &table,
                     const std::vector<std::pair<Datum, int64_t>> &rows, const std::string &what) {
        PageWriter w(pool_page(0));
        for (const auto &r : rows)
            ASSERT_TRUE(w.add_tuple(layout, {r.first, heap_pages::float8_datum(0.5)}));
        ASSERT_TRUE(w.add_tuple(layout, {heap_pages::null_datum(), heap_pages::float8_datum(0.5)}));
        const Written written{w.lines()};
        GroupedPageSpec spec{};
        spec.value = column(layout, 2, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 1, BucketRule::pg16};
        spec.nkeys = 1;
        spec.keys[0] = key;
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << what;
        for (uint32_t i = 0; i < written[0].size(); i++) {
            /* the last row: a NULL column */
            const int64_t slot = i < rows.size() ? rows[i].second : key.null_host ? kHost : int64_t(key.slots);
            const RowFate fate = slot == kHost ? RowFate::host : RowFate::count;
            const std::string at = what + ", row " + std::to_string(i);
            const RowResult want = reference_row(written[0][i], spec, table);
            EXPECT_EQ(want.fate, fate) << at << ": the reference";
            if (fate == RowFate::count)
                EXPECT_EQ(want.row_cell, slot * 4 + 3) << at << ": the reference";
            const RowResult got = evaluated(pool_page(0), i, spec, table);
            EXPECT_EQ(got.fate, fate) << at;
            if (fate == RowFate::count) {
                EXPECT_EQ(got.row_cell, slot * 4 + 3) << at;
                EXPECT_EQ(got.value_cell, slot * 4 + 1) << at << ": 0.5 in bucket 1";
            }
        }
    };
    auto i8 = [](int64_t v) { return heap_pages::int_datum(v); };
    auto f8 = [](double v) { return heap_pages::float8_datum(v); };
    const gh::PageColumn key8 = column(layout, 1, PageValueType::int8), flt = column(layout, 1, PageValueType::float8);

    check(column_key(key8, -3, 5), {},
          {{i8(-4), kHost}, {i8(-3), 0}, {i8(0), 3}, {i8(1), 4}, {i8(2), kHost}, {i8(kInt64Min), kHost},
           {i8(kInt64Max), kHost}},
          "column [-3, 2)");
    /* a window that would end past INT64_MAX: differences must not wrap into it */
    check(column_key(key8, kInt64Max - 2, 5), {},
          {{i8(kInt64Max), 2}, {i8(kInt64Max - 2), 0}, {i8(kInt64Max - 3), kHost}, {i8(kInt64Min), kHost},
           {i8(-1), kHost}},
          "column at the top of int8");
    check(column_key(key8, kInt64Min, 3), {},
          {{i8(kInt64Min), 0}, {i8(kInt64Min + 2), 2}, {i8(kInt64Min + 3), kHost}, {i8(kInt64Max), kHost}},
          "column at the bottom of int8");

    std::vector<int64_t> table{-99, 42}; /* junk before the key's table */
    const PageKey days = intervals_key(key8, {100, 110, 130}, {2, 0, 2}, 200, 3, &table);
    check(days, table,
          {{i8(99), kHost}, {i8(100), 2}, {i8(109), 2}, {i8(110), 0}, {i8(129), 0}, {i8(130), 2}, {i8(199), 2},
           {i8(200), kHost}, {i8(kInt64Min), kHost}, {i8(kInt64Max), kHost}},
          "intervals [100, 110, 130, 200)");
    std::vector<int64_t> one;
    check(intervals_key(key8, {kInt64Min}, {0}, kInt64Max, 1, &one), one,
          {{i8(kInt64Min), 0}, {i8(kInt64Max - 1), 0}, {i8(kInt64Max), kHost}}, "one interval over all of int8");

    /*
     * A key by value (value_key.cpp): 3 and 4 are in group 1, 7 in group 0,
     * 5's key is NULL (the NULL group, slot 2); 6 and what lies outside are
     * values the host has not met.
     */
    std::vector<int64_t> memo{7}; /* a list before the key's table */
    PageKey by_value = intervals_key(key8, {3, 5, 6, 7}, {1, 2, gh::kHostSlot, 0}, 8, 2, &memo);
    const std::vector<std::pair<Datum, int64_t>> met{{i8(2), kHost}, {i8(3), 1},     {i8(4), 1},     {i8(5), 2},
                                                     {i8(6), kHost}, {i8(7), 0},     {i8(8), kHost}, {i8(kInt64Min), kHost}};
    check(by_value, memo, met, "by value, a NULL column in the NULL group");
    by_value.null_host = 1;
    check(by_value, memo, met, "by value, a NULL column the host's");

    /*
     * A period of 4 units of 10 starting one unit late, over [-50, 100)
     * at offset 0, [100, 150) at +5 and [150, 200) at -7: units below 0
     * round down, and each interval's offset moves its units.
     */
    std::vector<int64_t> zone{5};
    check(local_period_key(key8, {-50, 100, 150}, {0, 5, -7}, 200, 10, 4, 1, &zone), zone,
          {{i8(-51), kHost}, {i8(-50), 0}, {i8(-41), 0}, {i8(-40), 1}, {i8(-1), 0}, {i8(0), 1}, {i8(99), 2},
           {i8(100), 3}, {i8(149), 0}, {i8(150), 3}, {i8(199), 0}, {i8(200), kHost}, {i8(kInt64Min), kHost},
           {i8(kInt64Max), kHost}},
          "local period of 4 tens, offsets 0, +5, -7");
    check(width_bucket_key(flt, BucketSpec{0, 1, 4, BucketRule::pg16}), {},
          {{f8(kNaN), kHost}, {f8(kInf), 5}, {f8(-kInf), 0}, {f8(0), 1}, {f8(-0.0), 1}, {f8(0.999), 4}, {f8(1), 5}},
          "width_bucket(f, 0, 1, 4)");
    check(width_bucket_key(flt, BucketSpec{1, 0, 4, BucketRule::pg15}), {},
          {{f8(kNaN), kHost}, {f8(kInf), 0}, {f8(1), 1}, {f8(0), 5}, {f8(0.1), 4}}, "width_bucket(f, 1, 0, 4)");
    /* an int8 column under width_bucket: binned as the float8 it casts to */
    check(width_bucket_key(key8, BucketSpec{0, 10, 10, BucketRule::pg16}), {},
          {{i8(3), 4}, {i8(-1), 0}, {i8(kInt64Max), 11}}, "width_bucket(int8, 0, 10, 10)");
}

/* A row's group and value bucket (-1: a NULL value), with 5 cells a group (nbins 2). */
struct CountedRow {
    int64_t group;
    int64_t bucket;
};

/* Each line of page 0 counted, by the kernel's decision and by the reference alike, into its group and bucket. */
void expect_counted_rows(const Written &written, const GroupedPageSpec &spec, const std::vector<CountedRow> &want)
{
    ASSERT_EQ(written[0].size(), want.size());
    for (uint32_t r = 0; r < written[0].size(); r++) {
        for (const RowResult &got : {evaluated(pool_page(0), r, spec, {}), reference_row(written[0][r], spec, {})}) {
            ASSERT_EQ(got.fate, RowFate::count) << "row " << r;
            EXPECT_EQ(got.row_cell, want[r].group * 5 + 4) << "row " << r;
            EXPECT_EQ(got.value_cell, want[r].bucket < 0 ? -1 : want[r].group * 5 + want[r].bucket) << "row " << r;
        }
    }
}

/* Older tuples take the key's missing value, or its NULL slot; two keys number groups first key first. */
TEST(GroupedPagesHost, MissingKeysAndTwoKeyGroups)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{8, 8}, {4, 4}, {8, 8}, {8, 8}}; /* value, key (int4), f, stamp */
    PageWriter w(pool_page(0));
    const auto f8 = heap_pages::float8_datum;
    const auto i = heap_pages::int_datum;
    ASSERT_TRUE(w.add_tuple(layout, {f8(0.3), i(2), f8(0.7), i(5)}));                           /* 0 */
    ASSERT_TRUE(w.add_tuple(layout, {f8(0.9), heap_pages::null_datum(), heap_pages::null_datum(), i(5)})); /* 1 */
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::null_datum(), i(0), f8(-3), i(5)}));           /* 2 */
    ASSERT_TRUE(w.add_tuple(layout, {f8(0.1)}));                                                /* 3: older */
    ASSERT_TRUE(w.add_tuple(layout, {f8(0.1), i(1)}));                                          /* 4: older */
    const Written written{w.lines()};
    GroupedPageSpec spec{};
    spec.value = column(layout, 1, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 2, BucketRule::pg16}; /* 5 cells a group */
    spec.nkeys = 2;
    spec.keys[0] = column_key(column(layout, 2, PageValueType::int4, i(1)), 0, 3);           /* 4 values */
    spec.keys[1] = width_bucket_key(column(layout, 3, PageValueType::float8), BucketSpec{0, 1, 2, BucketRule::pg16});
    ASSERT_EQ(gh::grouped_page_groups(spec), 4 * 5);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
    /* group = key slot * 5 + f's slot; row cell group * 5 + 4, value cell group * 5 + bucket */
    expect_counted_rows(written, spec,
                        {{2 * 5 + 2, 1}, {3 * 5 + 4, 2}, {0 * 5 + 0, -1}, {1 * 5 + 4, 1}, {1 * 5 + 4, 1}});
    /* without a missing value the older tuple's key is NULL: slot 3 */
    spec.keys[0] = column_key(column(layout, 2, PageValueType::int4), 0, 3);
    EXPECT_EQ(evaluated(pool_page(0), 3, spec, {}).row_cell, (3 * 5 + 4) * 5 + 4);
    /* a missing value outside the window: the older tuple is the host's */
    spec.keys[0] = column_key(column(layout, 2, PageValueType::int4, i(3)), 0, 3);
    EXPECT_EQ(evaluated(pool_page(0), 3, spec, {}).fate, RowFate::host);
    EXPECT_EQ(evaluated(pool_page(0), 4, spec, {}).fate, RowFate::count) << "it has its own key";
}

/*
 * boolean keys: one byte, aligned to nothing, so that the columns after it
 * move; false, true and NULL are slots 0, 1 and 2.  A stored byte other
 * than 0 or 1 is true, as DatumGetBool reads it.
 */
TEST(GroupedPagesHost, BooleanKeysAreTheirByte)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{1, 1}, {2, 2}, {1, 1}, {8, 8}}; /* flag, tag (int2), other flag, value */
    PageWriter w(pool_page(0));
    const auto f8 = heap_pages::float8_datum;
    const auto i = heap_pages::int_datum;
    const Datum null = heap_pages::null_datum();
    ASSERT_TRUE(w.add_tuple(layout, {i(1), i(5), i(0), f8(0.3)}));     /* 0: (true, false) */
    ASSERT_TRUE(w.add_tuple(layout, {i(0), null, i(1), f8(0.7)}));     /* 1: (false, true) */
    ASSERT_TRUE(w.add_tuple(layout, {null, i(-2), null, f8(0.7)}));    /* 2: (NULL, NULL) */
    ASSERT_TRUE(w.add_tuple(layout, {i(2), i(1), i(1), null}));        /* 3: (true, true), NULL value */
    ASSERT_TRUE(w.add_tuple(layout, {i(0), i(1)}));                    /* 4: older, (false, missing) */
    const Written written{w.lines()};
    GroupedPageSpec spec{};
    spec.value = column(layout, 4, PageValueType::float8, f8(0.1));
    spec.interval = BucketSpec{0, 1, 2, BucketRule::pg16}; /* 5 cells a group */
    spec.nkeys = 2;
    spec.keys[0] = column_key(column(layout, 1, PageValueType::boolean), 0, 2);
    spec.keys[1] = column_key(column(layout, 3, PageValueType::boolean, i(1)), 0, 2);
    ASSERT_EQ(gh::grouped_page_groups(spec), 3 * 3);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
    expect_counted_rows(written, spec,
                        {{1 * 3 + 0, 1}, {0 * 3 + 1, 2}, {2 * 3 + 2, 2}, {1 * 3 + 1, -1}, {0 * 3 + 1, 1}});
    /* a window of true alone, as a WHERE flag >= true would leave: false is the host's */
    spec.keys[0] = column_key(column(layout, 1, PageValueType::boolean), 1, 1);
    EXPECT_EQ(evaluated(pool_page(0), 1, spec, {}).fate, RowFate::host);
    EXPECT_EQ(evaluated(pool_page(0), 3, spec, {}).row_cell, (0 * 3 + 1) * 5 + 4);
}

/*
 * The time form: the value is a timestamp's stored integer, binned by
 * numeric width_bucket's rules over microseconds (time_bucket.h), in both
 * directions, infinities in the outer buckets, an older tuple's missing
 * value as it was stored.
 */
TEST(GroupedPagesHost, TimeFormBinsTheStoredInteger)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{4, 4}, {8, 8}}; /* key (int4), ts (int8 microseconds) */
    PageWriter w(pool_page(0));
    const auto i = heap_pages::int_datum;
    const Datum null = heap_pages::null_datum();
    const int64_t day = INT64_C(86400000000), t0 = INT64_C(757382400000000); /* 2024-01-01 */
    const std::vector<int64_t> stamps = {t0 - 1, t0, t0 + day / 3, t0 + day - 1, t0 + day, INT64_MIN, INT64_MAX,
                                         t0 + day / 24 * 7 + 1};
    for (size_t k = 0; k < stamps.size(); k++)
        ASSERT_TRUE(w.add_tuple(layout, {i(static_cast<int64_t>(k % 2)), i(stamps[k])}));
    ASSERT_TRUE(w.add_tuple(layout, {i(1), null}));
    ASSERT_TRUE(w.add_tuple(layout, {i(0)})); /* older: the missing value */
    const Written written{w.lines()};
    for (const bool up : {true, false}) {
        GroupedPageSpec spec{};
        spec.value = column(layout, 2, PageValueType::int8, i(t0 + day / 2));
        spec.value.as_word = true;
        spec.form = gh::PageForm::time;
        spec.time = up ? gh::Int64Spec{t0, t0 + day, 24, gh::NumericRule::pg16}
                       : gh::Int64Spec{t0 + day, t0, 24, gh::NumericRule::pg16};
        spec.nkeys = 1;
        spec.keys[0] = column_key(column(layout, 1, PageValueType::int4), 0, 2);
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
        ASSERT_EQ(gh::grouped_page_slots(spec), 27);
        for (uint32_t r = 0; r < written[0].size(); r++) {
            const RowResult got = evaluated(pool_page(0), r, spec, {});
            const RowResult want = reference_row(written[0][r], spec, {});
            ASSERT_EQ(got.fate, RowFate::count) << "row " << r;
            EXPECT_EQ(got.row_cell, want.row_cell) << "row " << r;
            EXPECT_EQ(got.value_cell, want.value_cell) << "row " << r << (up ? " ascending" : " descending");
        }
        /* spot checks against the numbering itself */
        EXPECT_EQ(evaluated(pool_page(0), 0, spec, {}).value_cell, up ? 0 : 25);
        EXPECT_EQ(evaluated(pool_page(0), 5, spec, {}).value_cell, 27 + (up ? 0 : 25));
        EXPECT_EQ(evaluated(pool_page(0), 8, spec, {}).value_cell, -1);
        /* the float8 form's spec check refuses the time form's column, and the reverse */
        GroupedPageSpec bad = spec;
        bad.form = gh::PageForm::width_bucket;
        bad.interval = BucketSpec{0, 1, 24, BucketRule::pg16};
        EXPECT_FALSE(gh::grouped_page_spec_fits(bad, 0));
        bad = spec;
        bad.value.as_word = false;
        EXPECT_FALSE(gh::grouped_page_spec_fits(bad, 0));
        bad = spec;
        bad.time.hi = bad.time.lo;
        EXPECT_FALSE(gh::grouped_page_spec_fits(bad, 0));
    }
}

/*
 * The thresholds form: the float8 value searched among sorted thresholds
 * that travel in the spec's table (repeats, NaN and infinities among the
 * values), as width_bucket(x, thresholds) counts them.
 */
TEST(GroupedPagesHost, ThresholdsFormSearchesTheTable)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{4, 4}, {8, 8}}; /* key (int4), value (float8) */
    PageWriter w(pool_page(0));
    const auto i = heap_pages::int_datum;
    const auto f8 = heap_pages::float8_datum;
    const double values[] = {-1, 0.1, 0.3, 0.5, 0.7, 0.9, 2, kNaN, kInf, -kInf, -0.0};
    int k = 0;
    for (const double v : values)
        ASSERT_TRUE(w.add_tuple(layout, {i(k++ % 3), f8(v)}));
    ASSERT_TRUE(w.add_tuple(layout, {i(1), heap_pages::null_datum()}));
    const Written written{w.lines()};
    std::vector<int64_t> table = {42}; /* the thresholds after another list's word */
    for (const double t : {0.1, 0.5, 0.5, 0.9}) {
        int64_t bits;
        std::memcpy(&bits, &t, sizeof bits);
        table.push_back(bits);
    }
    GroupedPageSpec spec{};
    spec.value = column(layout, 2, PageValueType::float8);
    spec.form = gh::PageForm::thresholds;
    spec.thresholds_first = 1;
    spec.thresholds_count = 4;
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, 1, PageValueType::int4), 0, 3);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
    ASSERT_EQ(gh::grouped_page_slots(spec), 6); /* five buckets, then the rows */
    for (uint32_t r = 0; r < written[0].size(); r++) {
        const RowResult got = evaluated(pool_page(0), r, spec, table);
        const RowResult want = reference_row(written[0][r], spec, table);
        ASSERT_EQ(got.fate, RowFate::count) << "row " << r;
        EXPECT_EQ(got.row_cell, want.row_cell) << "row " << r;
        EXPECT_EQ(got.value_cell, want.value_cell) << "row " << r;
        EXPECT_EQ(got.errors, 0) << "row " << r;
    }
    EXPECT_EQ(evaluated(pool_page(0), 3, spec, table).value_cell, 0 * 6 + 3); /* 0.5: both 0.5s at or below it */
    EXPECT_EQ(evaluated(pool_page(0), 7, spec, table).value_cell, 1 * 6 + 4); /* NaN: above every threshold */
    EXPECT_EQ(evaluated(pool_page(0), 9, spec, table).value_cell, 0 * 6 + 0); /* -Infinity */
    GroupedPageSpec bad = spec;
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, static_cast<int64_t>(table.size()) - 1)); /* past the table */
    bad.thresholds_count = 0;
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, static_cast<int64_t>(table.size())));
    bad = spec;
    bad.value.as_word = true;
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, static_cast<int64_t>(table.size())));
}

/*
 * Only a row the page must count sends the page to the host: not one the
 * WHERE clause drops, not a dead line pointer, not a line past the scan's
 * count.  The kernel decides per page on what evaluate_row says per row.
 */
TEST(GroupedPagesHost, OnlyARowThatCountsSendsItsPageToTheHost)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout = table_layout(PageValueType::int4);
    auto row = [](int64_t key, int64_t stamp) {
        return std::vector<Datum>{heap_pages::int_datum(1), heap_pages::int_datum(key), heap_pages::float8_datum(7),
                                  heap_pages::int_datum(stamp), heap_pages::float8_datum(0)};
    };
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = BucketSpec{0, 10, 10, BucketRule::pg16};
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int4), 0, 10);
    spec.nquals = 1;
    spec.quals[0] = qual(column(layout, kStamp, PageValueType::int8), PageCmp::ge, kT0);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, 0));
    PageWriter w(pool_page(0));
    ASSERT_TRUE(w.add_tuple(layout, row(3, kT0)));       /* 0: counted */
    ASSERT_TRUE(w.add_tuple(layout, row(99, kT0 - 1)));  /* 1: outside, but before kT0 */
    ASSERT_TRUE(w.add_tuple(layout, row(-1, kT0 + 5)));  /* 2: outside, and dead */
    w.set_flags(2, heap_pages::lp_dead);
    ASSERT_TRUE(w.add_tuple(layout, row(9, kT0 + 5)));   /* 3: counted */
    ASSERT_TRUE(w.add_tuple(layout, row(10, kT0 + 5)));  /* 4: outside, counted: the host's */
    const Written written{w.lines()};
    const RowFate want[] = {RowFate::count, RowFate::skip, RowFate::skip, RowFate::count, RowFate::host};
    for (uint32_t i = 0; i < 5; i++) {
        EXPECT_EQ(reference_row(written[0][i], spec, {}).fate, want[i]) << "row " << i << ": the reference";
        EXPECT_EQ(evaluated(pool_page(0), i, spec, {}).fate, want[i]) << "row " << i;
    }
    Outcome o = reference(written, {{gh::page_word(0, 4), gh::page_word(0, 5)}}, spec, {});
    EXPECT_EQ(o.bounced[0], (std::vector<uint8_t>{0, 1})) << "only where the scan saw line 4";
    EXPECT_EQ(o.tuples, 3) << "the first word's normal tuples: lines 0, 1 and 3";
}

/* A good spec, and what grouped_page_spec_fits must refuse of it: each would make the kernel read or count wrong. */
struct SpecCase {
    std::string what;
    GroupedPageSpec spec;
    int64_t table_words;
};

std::vector<SpecCase> refused_specs(GroupedPageSpec *good_out, std::vector<int64_t> *table)
{
    const Layout layout = table_layout(PageValueType::int4);
    GroupedPageSpec good{};
    good.value = column(layout, kValue, PageValueType::float8);
    good.interval = BucketSpec{0, 100, 10, BucketRule::pg16};
    good.nkeys = 2;
    good.keys[0] = column_key(column(layout, kKey, PageValueType::int4), -5, 10);
    table->assign({7});
    good.keys[1] = intervals_key(column(layout, kStamp, PageValueType::int8), {kT0, kT0 + 10, kT0 + 20}, {0, 1, 1},
                                 kT0 + 30, 2, table);
    good.nquals = 2;
    good.quals[0] = qual(column(layout, kStamp, PageValueType::int8), PageCmp::ge, kT0);
    good.quals[1] = float_qual(column(layout, kFloat, PageValueType::float8), PageCmp::ne, kNaN);
    *good_out = good;
    const int64_t words = static_cast<int64_t>(table->size());
    std::vector<SpecCase> out;
    auto bad = [&](const std::string &what, auto change, int64_t table_words) {
        GroupedPageSpec s = good;
        change(s);
        out.push_back(SpecCase{what, s, table_words});
    };
    bad("the table one word short", [](GroupedPageSpec &) {}, words - 1);
    bad("three keys", [](GroupedPageSpec &s) { s.nkeys = 3; }, words);
    bad("keys -1", [](GroupedPageSpec &s) { s.nkeys = -1; }, words);
    bad("one qual past the limit", [](GroupedPageSpec &s) { s.nquals = gh::kMaxPageQuals + 1; }, words);
    bad("an OR's atoms apart", [](GroupedPageSpec &s) { s.quals[0].clause = 1; }, words);
    bad("quals -1", [](GroupedPageSpec &s) { s.nquals = -1; }, words);
    bad("nbins 0", [](GroupedPageSpec &s) { s.interval.nbins = 0; }, words);
    bad("equal bounds", [](GroupedPageSpec &s) { s.interval.hi = s.interval.lo; }, words);
    bad("the value at attno 0", [](GroupedPageSpec &s) { s.value.attno = 0; }, words);
    bad("the value's offset wrong", [](GroupedPageSpec &s) { s.value.fixed_offset += 8; }, words);
    bad("an integer qual on a float8", [&](GroupedPageSpec &s) { s.quals[1].is_float = 0; }, words);
    bad("a qual of comparison 6", [](GroupedPageSpec &s) { s.quals[0].cmp = static_cast<PageCmp>(6); }, words);
    bad("a qual column of 3 bytes", [](GroupedPageSpec &s) { s.quals[0].column.attr.len = 3; }, words);
    bad("a key of no slots", [](GroupedPageSpec &s) { s.keys[0].slots = 0; }, words);
    bad("a key of 2^30 + 1 slots", [](GroupedPageSpec &s) { s.keys[0].slots = (1u << 30) + 1; }, words);
    bad("a column key over a float8",
        [&](GroupedPageSpec &s) { s.keys[0].column = column(layout, kFloat, PageValueType::float8); }, words);
    bad("an intervals key over a float8",
        [&](GroupedPageSpec &s) { s.keys[1].column = column(layout, kValue, PageValueType::float8); }, words);
    bad("an intervals key of no intervals", [](GroupedPageSpec &s) { s.keys[1].intervals = 0; }, words);
    bad("an intervals table past the end", [](GroupedPageSpec &s) { s.keys[1].table_first = 2; }, words);
    auto period = [](GroupedPageSpec &s, int64_t unit, int32_t period, int32_t shift) {
        s.keys[1].kind = PageKeyKind::local_period;
        s.keys[1].unit = unit;
        s.keys[1].period = period;
        s.keys[1].shift = shift;
        s.keys[1].slots = static_cast<uint32_t>(period);
    };
    bad("a local period of no unit", [&](GroupedPageSpec &s) { period(s, 0, 24, 0); }, words);
    bad("a local period of no values", [&](GroupedPageSpec &s) { period(s, 10, 0, 0); }, words);
    bad("a local period shifted by its length", [&](GroupedPageSpec &s) { period(s, 10, 24, 24); }, words);
    bad("a local period shifted back", [&](GroupedPageSpec &s) { period(s, 10, 24, -1); }, words);
    bad("a local period with a slot more than its values",
        [&](GroupedPageSpec &s) {
            period(s, 10, 24, 0);
            s.keys[1].slots = 25;
        },
        words);
    bad("a local period of an int4",
        [&](GroupedPageSpec &s) {
            period(s, 10, 24, 0);
            s.keys[1].column = column(layout, kKey, PageValueType::int4);
        },
        words);
    bad("a width_bucket key of the wrong slots",
        [&](GroupedPageSpec &s) {
            s.keys[1] = width_bucket_key(column(layout, kFloat, PageValueType::float8), BucketSpec{0, 1, 5, BucketRule::pg16});
            s.keys[1].slots = 5;
        },
        words);
    bad("a width_bucket key of NaN bounds",
        [&](GroupedPageSpec &s) {
            s.keys[1] = width_bucket_key(column(layout, kFloat, PageValueType::float8),
                                         BucketSpec{kNaN, 1, 5, BucketRule::pg16});
        },
        words);
    bad("a boolean value", [&](GroupedPageSpec &s) { s.value.type = PageValueType::boolean; s.value.attr = {1, 1}; },
        words);
    bad("a float qual on a boolean",
        [&](GroupedPageSpec &s) {
            s.quals[0].column.type = PageValueType::boolean;
            s.quals[0].column.attr = {1, 1};
            s.quals[0].is_float = 1;
        },
        words);
    bad("a width_bucket key over a boolean",
        [&](GroupedPageSpec &s) {
            s.keys[1] = width_bucket_key(column(layout, kFloat, PageValueType::float8), BucketSpec{0, 1, 5, BucketRule::pg16});
            s.keys[1].column.type = PageValueType::boolean;
            s.keys[1].column.attr = {1, 1};
        },
        words);
    bad("a boolean key of 8 bytes", [&](GroupedPageSpec &s) { s.keys[0].column.type = PageValueType::boolean; }, words);
    bad("a key of kind 3", [](GroupedPageSpec &s) { s.keys[0].kind = static_cast<PageKeyKind>(3); }, words);
    /* cells counted with int32: (2^30 + 1) groups of 13 cells, and (2^30 + 1)^2 groups, are too many */
    bad("2^34 cells", [](GroupedPageSpec &s) { s.nkeys = 1; s.keys[0].slots = 1u << 30; }, words);
    bad("2^60 groups",
        [](GroupedPageSpec &s) {
            s.keys[1] = s.keys[0];
            s.keys[0].slots = s.keys[1].slots = 1u << 30;
        },
        words);
    /* 2^120 groups: the product stops once past INT32_MAX, before it can wrap */
    bad("four keys of 2^30 slots",
        [](GroupedPageSpec &s) {
            s.nkeys = 4;
            s.keys[1] = s.keys[2] = s.keys[3] = s.keys[0];
            for (int k = 0; k < 4; k++)
                s.keys[k].slots = 1u << 30;
        },
        words);
    bad("five keys", [](GroupedPageSpec &s) { s.nkeys = gh::kMaxPageKeys + 1; }, words);
    /* a remap (derived_key.cpp) must hold an inner slot and the NULL entry, inside the table */
    bad("a remap of one entry", [](GroupedPageSpec &s) { s.keys[0].remap_count = 1; }, words);
    bad("a remap past the table",
        [&](GroupedPageSpec &s) {
            s.keys[0].remap_first = static_cast<uint32_t>(words) - 1;
            s.keys[0].remap_count = 2;
        },
        words);
    /* a clause over a key passes at slot 0 only, and numbers no group */
    bad("a filter of two slots", [](GroupedPageSpec &s) { s.keys[1].filter = 1; }, words);
    bad("filter 2",
        [](GroupedPageSpec &s) {
            s.keys[1].filter = 2;
            s.keys[1].slots = 1;
        },
        words);
    /* 2^32 * 2^32 groups: only the cap on slots keeps the product from wrapping to 0 */
    bad("two keys of 2^32 - 1 slots",
        [](GroupedPageSpec &s) {
            s.keys[1] = s.keys[0];
            s.keys[0].slots = s.keys[1].slots = UINT32_MAX;
        },
        words);
    return out;
}

TEST(GroupedPagesHost, SpecFitsRefusesWhatTheKernelCannotRun)
{
    GroupedPageSpec good{};
    std::vector<int64_t> table;
    const std::vector<SpecCase> cases = refused_specs(&good, &table);
    ASSERT_TRUE(gh::grouped_page_spec_fits(good, static_cast<int64_t>(table.size())));
    for (const SpecCase &c : cases)
        EXPECT_FALSE(gh::grouped_page_spec_fits(c.spec, c.table_words)) << c.what;
    /* near the limit is fine: (2^28 + 1) groups of 4 cells */
    GroupedPageSpec big = good;
    big.nkeys = 1;
    big.keys[0].slots = 1u << 28;
    big.interval.nbins = 1;
    EXPECT_TRUE(gh::grouped_page_spec_fits(big, 0));
}

/* ---- on the GPU ---- */

class GroupedPages : public gh_test::KernelTest {
  protected:
    void SetUp() override
    {
        gh_test::KernelTest::SetUp();
        if (IsSkipped() || HasFatalFailure())
            return;
        ASSERT_NE(pool(), nullptr);
        if (!gh::gpu_pool_registered())
            ASSERT_EQ(gh::gpu_pool_register(pool(), kPoolPages * kPage), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    }
};

Status wait_until_finished(gh::BatchBuffer *b)
{
    for (;;) {
        bool finished = false;
        Status s = gh::gpu_batch_finished(b, &finished);
        if (s != Status::ok || finished)
            return s;
        std::this_thread::yield();
    }
}

/*
 * One grouped page histogram through the entry points, as the GPU service
 * runs it: open with the table, each batch submitted in turn over two
 * buffers, each batch's flags read once it is finished (and before its
 * buffer takes the next one: the flags lie in the buffer), then the drain
 * of every cell and the tuple counter after them.
 */
Status grouped_on_gpu(const GroupedPageSpec &spec, const std::vector<int64_t> &table,
                      const std::vector<std::vector<uint64_t>> &batches, Outcome *out)
{
    const int64_t cells = gh::grouped_page_cells(spec);
    out->counts.assign(static_cast<size_t>(cells) + 1, 0);
    out->bounced.assign(batches.size(), {});
    size_t most = 1;
    for (const auto &b : batches)
        most = std::max(most, b.size());
    size_t capacity = most;
    while (gh::grouped_page_capacity(capacity) < most)
        capacity++;
    WordBuffers buffers(capacity, 2);
    if (buffers.status() != Status::ok)
        return buffers.status();
    gh::DeviceHistogram *h = nullptr;
    Status s = gh::gpu_grouped_pages_open(spec, table.empty() ? nullptr : table.data(),
                                          static_cast<int32_t>(table.size()), 0, &h);
    if (s != Status::ok)
        return s;
    long pending[2] = {-1, -1};
    auto collect = [&](int k) {
        if (pending[k] < 0)
            return Status::ok;
        const Status f = wait_until_finished(buffers.buffer(k));
        if (f != Status::ok)
            return f;
        const size_t n = batches[static_cast<size_t>(pending[k])].size();
        const unsigned char *flags = reinterpret_cast<const unsigned char *>(buffers.area(k) + n);
        out->bounced[static_cast<size_t>(pending[k])].assign(flags, flags + n);
        pending[k] = -1;
        return Status::ok;
    };
    for (size_t i = 0; i < batches.size() && s == Status::ok; i++) {
        const int k = static_cast<int>(i % 2);
        if ((s = collect(k)) != Status::ok)
            break;
        const size_t n = batches[i].size();
        std::copy(batches[i].begin(), batches[i].end(), buffers.area(k));
        std::memset(buffers.area(k) + n, 0x5A, n); /* neither 0 nor 1: a flag never written shows */
        s = gh::gpu_grouped_pages_submit(h, buffers.buffer(k), n);
        if (s == Status::ok)
            pending[k] = static_cast<long>(i);
    }
    for (int k = 0; k < 2 && s == Status::ok; k++)
        s = collect(k);
    if (s == Status::ok)
        s = gh::gpu_histogram_drain(h, 0, static_cast<int32_t>(cells + 1), out->counts.data(), nullptr);
    gh::gpu_histogram_close(h);
    out->tuples = out->counts.back();
    out->counts.pop_back();
    return s;
}

/* The launcher alone over one batch, on limits that may force its path or cap its grid. */
Outcome grouped_on_kernel(const GroupedPageSpec &spec, const std::vector<int64_t> &table,
                          const std::vector<uint64_t> &words, const gh::KernelLimits &limits)
{
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess); /* the engine's calls move the current device */
    void *mapped = nullptr;
    EXPECT_EQ(cudaHostGetDevicePointer(&mapped, pool(), 0), cudaSuccess);
    gh_test::DeviceArray<uint64_t> d_words(words);
    gh_test::DeviceArray<int64_t> d_table(table);
    gh_test::DeviceArray<unsigned char> d_bounced(std::vector<unsigned char>(words.size(), 0x5A));
    const size_t cells = static_cast<size_t>(gh::grouped_page_cells(spec));
    gh_test::Binned b = gh_test::binned(cells + 1, [&](unsigned long long *counts, int *flags) {
        return gh::bin_grouped_pages_on_device(d_words.get(), words.size(), static_cast<const unsigned char *>(mapped),
                                               kPoolPages, spec, d_table.get(), static_cast<int32_t>(table.size()),
                                               counts, flags, counts + cells, d_bounced.get(), limits, nullptr);
    });
    Outcome out;
    out.tuples = b.counts.back();
    b.counts.pop_back();
    out.counts = std::move(b.counts);
    out.errors = b.flags;
    out.bounced.emplace_back(words.size());
    if (!words.empty())
        EXPECT_EQ(cudaMemcpy(out.bounced[0].data(), d_bounced.get(), words.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

/*
 * The whole comparison for one spec over random batches: through the
 * entry points, then the launcher alone on the shared path (where the
 * cells fit the block's shared memory), the global path, and a grid of 3
 * blocks so that each block reads many pages.  The reference must leave
 * some pages to the host and count most, or the test proves little.
 */
void expect_grouped(const GroupedPageSpec &spec, const std::vector<int64_t> &table, const Written &written,
                    const std::vector<std::vector<uint64_t>> &batches, const gh::KernelLimits &limits,
                    const std::string &what)
{
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << what;
    const Outcome want = reference(written, batches, spec, table);
    ASSERT_EQ(want.errors, 0) << what << ": the test's values must not be NaN";
    const auto [host, pages] = bounced_of(want, batches);
    EXPECT_GT(host, 0u) << what << ": no page for the host";
    EXPECT_LT(host * 4, pages) << what << ": too many pages for the host";
    Outcome got;
    ASSERT_EQ(grouped_on_gpu(spec, table, batches, &got), Status::ok) << what << ": " << gh::gpu_last_error();
    expect_outcome(got, want, what + ", gpu_grouped_pages_submit");

    std::vector<uint64_t> words;
    for (const auto &b : batches)
        words.insert(words.end(), b.begin(), b.end());
    const Outcome one = reference(written, {words}, spec, table);
    const int64_t cells = gh::grouped_page_cells(spec);
    for (gh::KernelPath path : {gh::KernelPath::shared, gh::KernelPath::global, gh::KernelPath::automatic}) {
        if (path == gh::KernelPath::shared &&
            gh::heap_layout::kPageBytes + 4 * cells > static_cast<int64_t>(limits.max_shared_per_block))
            continue; /* the cells do not fit beside the page */
        const int blocks = path == gh::KernelPath::automatic ? 3 : 0;
        const Outcome k = grouped_on_kernel(spec, table, words, gh_test::forced(limits, path, blocks));
        EXPECT_EQ(k.errors, 0) << what;
        expect_outcome(k, one,
                       what + (path == gh::KernelPath::shared   ? ", forced shared"
                               : path == gh::KernelPath::global ? ", forced global"
                                                                : ", 3 blocks"));
    }
}

/* One column key over an int4: 11 groups of 11 cells, in shared memory; quals on an int8 and a float8. */
TEST_F(GroupedPages, ColumnKeyInSharedCounters)
{
    std::mt19937_64 rng(41);
    Draw d;
    d.key_type = PageValueType::int4;
    d.older_in = 30;
    const Layout layout = table_layout(d.key_type);
    const int64_t outside[] = {-6, 5, INT32_MIN, INT32_MAX};
    Written written = write_pages(
        layout, 0, 300, rng, [&] { return draw_row(rng, d); },
        [&](std::vector<Datum> &row) {
            row.resize(kColumns);
            row[kKey - 1] = heap_pages::int_datum(outside[rng() % 4]);
            row[kStamp - 1] = heap_pages::int_datum(kT0 + 50000); /* passes the quals */
            row[kFloat - 1] = heap_pages::float8_datum(0.25);
        },
        10);
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8, heap_pages::float8_datum(42.5));
    spec.interval = d.values;
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int4, heap_pages::int_datum(-5)), -5, 10);
    /* older tuples pass both: the stamp's and the float's missing values */
    spec.nquals = 2;
    spec.quals[0] = qual(column(layout, kStamp, PageValueType::int8, heap_pages::int_datum(kT0 + 30000)), PageCmp::ge,
                         kT0 + 20000);
    spec.quals[1] = float_qual(column(layout, kFloat, PageValueType::float8, heap_pages::float8_datum(0)), PageCmp::lt, 0.9);
    ASSERT_EQ(gh::grouped_page_cells(spec), 11 * 11);
    expect_grouped(spec, {}, written, random_batches(rng, written, 0, 300), limits, "column key");
}

/* The column key's table again, filtered by an IN list of the key and a NOT IN list of floats, from the spec's table. */
TEST_F(GroupedPages, ListQualsFromTheTable)
{
    std::mt19937_64 rng(47);
    Draw d;
    d.key_type = PageValueType::int4;
    d.older_in = 30;
    const Layout layout = table_layout(d.key_type);
    const int64_t outside[] = {-6, 5, INT32_MIN, INT32_MAX};
    Written written = write_pages(
        layout, 0, 300, rng, [&] { return draw_row(rng, d); },
        [&](std::vector<Datum> &row) {
            row.resize(kColumns);
            row[kKey - 1] = heap_pages::int_datum(outside[rng() % 4]);
            row[kFloat - 1] = heap_pages::float8_datum(0.25);
        },
        10);
    std::vector<int64_t> table{7, 7}; /* lists need not start the table */
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8, heap_pages::float8_datum(42.5));
    spec.interval = d.values;
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int4, heap_pages::int_datum(-5)), -5, 10);
    spec.nquals = 2;
    /* the key's outside values among the list, so that their rows' pages go to the host */
    spec.quals[0] = list_qual(column(layout, kKey, PageValueType::int4, heap_pages::int_datum(-5)), PageCmp::in, false,
                              {}, {-5, -4, -1, 0, 2, 3, 4, 5, -6, INT32_MAX}, &table);
    spec.quals[1] = list_qual(column(layout, kFloat, PageValueType::float8, heap_pages::float8_datum(0)),
                              PageCmp::not_in, true, {kNaN, 0.5, -0.0}, {}, &table);
    expect_grouped(spec, table, written, random_batches(rng, written, 0, 300), limits, "list quals");
}

/*
 * A boolean key before an int4 key, as GROUP BY flag, g gives: the flag's
 * byte moves the int4 to offset 4 (or 0 after a NULL bitmap), and a stored
 * byte of 3 is true.
 */
TEST_F(GroupedPages, BooleanKeyBeforeAColumnKey)
{
    std::mt19937_64 rng(43);
    const Layout layout{{1, 1}, {4, 4}, {8, 8}}; /* flag, key, value */
    const BucketSpec values{0, 100, 16, BucketRule::pg16};
    auto maybe_null = [&](Datum d, int in) { return rng() % in == 0 ? heap_pages::null_datum() : d; };
    Written written = write_pages(
        layout, 0, 200, rng,
        [&] {
            const uint64_t flag = rng() % 50 == 0 ? 3 : rng() % 2;
            return std::vector<Datum>{maybe_null(heap_pages::int_datum(static_cast<int64_t>(flag)), 9),
                                      maybe_null(heap_pages::int_datum(pick(rng, -3, 3)), 11),
                                      maybe_null(heap_pages::float8_datum(around(rng, values)), 7)};
        },
        [&](std::vector<Datum> &row) { row[1] = heap_pages::int_datum(rng() % 2 ? 4 : INT32_MIN); }, 8);
    GroupedPageSpec spec{};
    spec.value = column(layout, 3, PageValueType::float8);
    spec.interval = values;
    spec.nkeys = 2;
    spec.keys[0] = column_key(column(layout, 1, PageValueType::boolean), 0, 2);
    spec.keys[1] = column_key(column(layout, 2, PageValueType::int4), -3, 7);
    ASSERT_EQ(gh::grouped_page_groups(spec), 3 * 8);
    expect_grouped(spec, {}, written, random_batches(rng, written, 0, 200), limits, "boolean key");
}

/*
 * 300 groups of 67 cells (20,100: past kPageSharedMaxSlots, so global
 * atomics) from an intervals key over time-ordered timestamps, as
 * date_trunc over a timestamp gives: runs of one group, which the global
 * path adds once a run.
 */
TEST_F(GroupedPages, IntervalsKeyInGlobalCounters)
{
    std::mt19937_64 rng(42);
    Draw d;
    d.key_type = PageValueType::int8;
    d.values = BucketSpec{-5, 5, 64, BucketRule::pg15};
    const Layout layout = table_layout(d.key_type);
    /* 600 intervals of 200 µs, about two to a group: slots 0 .. 298, then NULL */
    std::vector<int64_t> starts, slot_of, table{0, 0, 0};
    for (int64_t i = 0; i < 600; i++) {
        starts.push_back(kT0 + 200 * i);
        slot_of.push_back(i * 299 / 600);
    }
    const int64_t end = kT0 + 200 * 600;
    size_t r = 0;
    Written written = write_pages(
        layout, 0, 200, rng,
        [&] {
            std::vector<Datum> row = draw_row(rng, d);
            if (!row[kStamp - 1].null) /* time order, with jitter */
                row[kStamp - 1] = heap_pages::int_datum(kT0 + static_cast<int64_t>(r * 4 + rng() % 8));
            r++;
            return row;
        },
        [&](std::vector<Datum> &row) {
            const int64_t outside[] = {kT0 - 1, end, kInt64Min, kInt64Max};
            row.resize(kColumns);
            row[kStamp - 1] = heap_pages::int_datum(outside[rng() % 4]);
            row[kKey - 1] = heap_pages::int_datum(1);
        },
        8);
    ASSERT_LT(kT0 + int64_t(r) * 4 + 8, end) << "the timestamps must stay in the table";
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = d.values;
    spec.nkeys = 1;
    spec.keys[0] = intervals_key(column(layout, kStamp, PageValueType::int8), starts, slot_of, end, 299, &table);
    spec.nquals = 1;
    spec.quals[0] = qual(column(layout, kKey, PageValueType::int8), PageCmp::ne, 0);
    ASSERT_EQ(gh::grouped_page_cells(spec), 300 * 67);
    static_assert(300 * 67 > gh::kernels::kPageSharedMaxSlots, "the global path by default");
    expect_grouped(spec, table, written, random_batches(rng, written, 0, 200), limits, "intervals key");
}

/*
 * 120 pages of rows in time order, with jitter, from before kT0, and eight
 * planted rows a page; *end is where a key's table of their times ends:
 * the last rows lie past it, so their pages are the host's.
 */
Written time_ordered_pages(std::mt19937_64 &rng, const Draw &d, const Layout &layout, int64_t *end)
{
    size_t r = 0;
    Written written = write_pages(
        layout, 0, 120, rng,
        [&] {
            std::vector<Datum> row = draw_row(rng, d);
            if (!row[kStamp - 1].null)
                row[kStamp - 1] = heap_pages::int_datum(kT0 - 500 + static_cast<int64_t>(r * 3 + rng() % 8));
            r++;
            return row;
        },
        [&](std::vector<Datum> &row) { row.resize(kColumns); },
        8);
    *end = kT0 - 500 + static_cast<int64_t>(r * 3) - 700;
    return written;
}

/*
 * A periodic field of the local time (date_field_key.cpp's hour of the
 * day): 24 slots of units of 40 µs, over three intervals of different
 * offsets, one of them negative and one not a whole unit, with rows before,
 * between and after them, and as a second key beside a column's.
 */
TEST_F(GroupedPages, LocalPeriodKeyAcrossOffsets)
{
    std::mt19937_64 rng(44);
    Draw d;
    d.key_type = PageValueType::int4;
    d.values = BucketSpec{-5, 5, 16, BucketRule::pg16};
    const Layout layout = table_layout(d.key_type);
    int64_t end = 0;
    const Written written = time_ordered_pages(rng, d, layout, &end);
    const int64_t third = (end - kT0) / 3;
    ASSERT_GT(third, 2000) << "rows in every interval";
    std::vector<int64_t> table{1, 2};
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = d.values;
    spec.nkeys = 2;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int4), d.key_lo,
                              static_cast<uint32_t>(d.key_hi - d.key_lo + 1));
    spec.keys[1] = local_period_key(column(layout, kStamp, PageValueType::int8), {kT0, kT0 + third, kT0 + 2 * third},
                                    {3600, -25, 120}, end, 40, 24, 5, &table);
    expect_grouped(spec, table, written, random_batches(rng, written, 0, 120), limits, "local period");
}

/*
 * Metabase's hour of the day as a key of the local hour (a remap of its 24
 * slots to 6 groups), and a WHERE
 * clause over the key column (its slots remapped to pass or fail, NULL
 * failing), on the GPU against the reference.
 */
TEST_F(GroupedPages, RemappedKeysAndClausesOverKeys)
{
    std::mt19937_64 rng(45);
    Draw d;
    d.key_type = PageValueType::int4;
    d.values = BucketSpec{-5, 5, 16, BucketRule::pg16};
    const Layout layout = table_layout(d.key_type);
    int64_t end = 0;
    const Written written = time_ordered_pages(rng, d, layout, &end);
    const int64_t half = (end - kT0) / 2;
    std::vector<int64_t> table{1, 2};
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = d.values;
    spec.nkeys = 2;
    spec.keys[0] = local_period_key(column(layout, kStamp, PageValueType::int8), {kT0 - 1000, kT0 + half},
                                    {3600, -25}, end, 40, 24, 5, &table);
    spec.keys[0].remap_first = static_cast<uint32_t>(table.size());
    spec.keys[0].remap_count = 25;
    for (int64_t h = 0; h < 24; h++)
        table.push_back(h / 4);
    table.push_back(6); /* a NULL hour: the NULL group */
    spec.keys[0].slots = 6;
    const uint32_t window = static_cast<uint32_t>(d.key_hi - d.key_lo + 1);
    spec.keys[1] = column_key(column(layout, kKey, PageValueType::int4), d.key_lo, window);
    spec.keys[1].remap_first = static_cast<uint32_t>(table.size());
    spec.keys[1].remap_count = window + 1;
    for (uint32_t i = 0; i < window; i++)
        table.push_back(i % 3 == 0 ? 1 : 0);
    table.push_back(1); /* a NULL key fails, as a strict operator's clause */
    spec.keys[1].slots = 1;
    spec.keys[1].filter = 1;
    expect_grouped(spec, table, written, random_batches(rng, written, 0, 120), limits, "remapped and filter keys");
}

/* Two keys, an int8 column by width_bucket over a float8: a NaN under width_bucket is the host's too. */
TEST_F(GroupedPages, ColumnByWidthBucketKeys)
{
    std::mt19937_64 rng(43);
    Draw d;
    d.key_type = PageValueType::int8;
    d.key_lo = 0;
    d.key_hi = 19;
    d.values = BucketSpec{100, 0, 30, BucketRule::pg16}; /* descending */
    const Layout layout = table_layout(d.key_type);
    Written written = write_pages(
        layout, 0, 250, rng, [&] { return draw_row(rng, d); },
        [&](std::vector<Datum> &row) {
            row.resize(kColumns);
            row[kValue - 1] = heap_pages::float8_datum(50); /* passes the quals */
            row[kTag - 1] = heap_pages::int_datum(1);
            if (rng() % 2)
                row[kFloat - 1] = heap_pages::float8_datum(kNaN);
            else
                row[kKey - 1] = heap_pages::int_datum(rng() % 2 ? 20 : -1);
        },
        9);
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = d.values;
    spec.nkeys = 2;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int8), 0, 20);
    spec.keys[1] = width_bucket_key(column(layout, kFloat, PageValueType::float8), BucketSpec{-1, 1, 10, BucketRule::pg16});
    spec.nquals = 2;
    spec.quals[0] = float_qual(column(layout, kValue, PageValueType::float8), PageCmp::ge, 10);
    spec.quals[1] = qual(column(layout, kTag, PageValueType::int2), PageCmp::ne, 7);
    ASSERT_EQ(gh::grouped_page_cells(spec), 21 * 13 * 33);
    expect_grouped(spec, {}, written, random_batches(rng, written, 0, 250), limits, "two keys");
}

/*
 * Four keys, each of another kind: day-of-week-like intervals of the
 * stamp, the int8 column, the tag's window and a width_bucket of a float8
 * with NaN; groups numbered first key first, some rows the host's.
 */
TEST_F(GroupedPages, FourKeys)
{
    std::mt19937_64 rng(47);
    Draw d;
    d.key_type = PageValueType::int8;
    d.key_lo = -3;
    d.key_hi = 4;
    const Layout layout = table_layout(d.key_type);
    /* the tag in [-2, 3]; on one page in 8 a key outside its window or a NaN under width_bucket */
    Written written = write_pages(
        layout, 0, 200, rng,
        [&] {
            std::vector<Datum> row = draw_row(rng, d);
            row[kTag - 1] = heap_pages::int_datum(pick(rng, -2, 3));
            return row;
        },
        [&](std::vector<Datum> &row) {
            if (rng() % 2)
                row[kFloat - 1] = heap_pages::float8_datum(kNaN);
            else
                row[kKey - 1] = heap_pages::int_datum(5);
        },
        8);
    std::vector<int64_t> table{5}; /* a word before the intervals */
    std::vector<int64_t> starts, slot_of;
    const int64_t step = std::max<int64_t>(1, (d.stamp_hi - d.stamp_lo) / 20);
    for (int i = 0; i < 20; i++) {
        starts.push_back(d.stamp_lo + i * step);
        slot_of.push_back(i % 7);
    }
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = BucketSpec{-10, 90, 16, BucketRule::pg16};
    spec.nkeys = 4;
    spec.keys[0] = intervals_key(column(layout, kStamp, PageValueType::int8), starts, slot_of,
                                 d.stamp_lo + 20 * step, 7, &table);
    spec.keys[1] = column_key(column(layout, kKey, PageValueType::int8), d.key_lo, 8); /* 5 is the host's */
    spec.keys[2] = column_key(column(layout, kTag, PageValueType::int2), -2, 6);
    spec.keys[3] = width_bucket_key(column(layout, kFloat, PageValueType::float8), BucketSpec{-1, 1, 4, BucketRule::pg15});
    spec.nquals = 1;
    spec.quals[0] = float_qual(column(layout, kValue, PageValueType::float8), PageCmp::le, 80);
    ASSERT_EQ(gh::grouped_page_groups(spec), 8 * 9 * 7 * 7);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
    expect_grouped(spec, table, written, random_batches(rng, written, 0, 200), limits, "four keys");
}

/* No key at all: one group, the WHERE clause only; nothing is ever the host's. */
TEST_F(GroupedPages, NoKeysOneGroup)
{
    std::mt19937_64 rng(44);
    Draw d;
    const Layout layout = table_layout(d.key_type);
    Written written = write_pages(layout, 0, 100, rng, [&] { return draw_row(rng, d); }, [](auto &) {}, 0);
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = BucketSpec{0, 100, 100, BucketRule::pg15};
    spec.nquals = 1;
    spec.quals[0] = qual(column(layout, kKey, PageValueType::int4), PageCmp::le, 0);
    const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 100)};
    const Outcome want = reference(written, batches, spec, {});
    Outcome got;
    ASSERT_EQ(grouped_on_gpu(spec, {}, batches, &got), Status::ok) << gh::gpu_last_error();
    expect_outcome(got, want, "no keys");
    EXPECT_GT(want.counts.back(), 3000) << "rows with key <= 0";
}

/*
 * A numeric(12, 2) column after a text one, binned on the GPU: every value
 * in the bucket of strtod of its decimal text (what numeric_float8 gives);
 * a page with one compressed value goes back to the host whole, and none
 * of its rows is counted.
 */
TEST_F(GroupedPages, NumericValuesOnTheGpu)
{
    std::mt19937_64 rng(57);
    const Layout layout{{gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 4}};
    const size_t npages = 60, planted = 17;
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, 2, PageValueType::numeric);
    spec.value.fixed_offset = -1;
    spec.interval = BucketSpec{-500, 500, 40, BucketRule::pg16};
    Outcome want;
    want.counts.assign(static_cast<size_t>(gh::grouped_page_cells(spec)), 0);
    want.bounced.assign(1, std::vector<uint8_t>(npages, 0));
    Written written(npages);
    for (size_t b = 0; b < npages; b++) {
        PageWriter w(pool_page(b));
        std::vector<std::string> texts;
        for (size_t i = 0;; i++) {
            const long cents = static_cast<long>(rng() % 140000) - 70000;
            std::string text = (cents < 0 ? "-" : "") + std::to_string(std::labs(cents) / 100) + "." +
                               std::to_string(std::labs(cents) % 100 / 10) + std::to_string(std::labs(cents) % 10);
            const bool compressed = b == planted && i == 30;
            const Datum value = rng() % 50 == 0 ? heap_pages::null_datum()
                                : compressed    ? heap_pages::varlena_datum(400, true, 'z')
                                                : heap_pages::numeric_datum(text, rng() % 7 == 0);
            if (!w.add_tuple(layout, {text_datum(std::string(rng() % 30, 'h')), value}))
                break;
            texts.push_back(value.null ? "" : text);
        }
        written[b] = w.lines();
        if (b == planted) {
            want.bounced[0][b] = 1;
            continue;
        }
        for (const std::string &t : texts) {
            want.tuples++;
            want.counts.back()++; /* the group's rows */
            if (!t.empty())
                want.counts[static_cast<size_t>(gh::width_bucket(std::strtod(t.c_str(), nullptr), spec.interval))]++;
        }
    }
    const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, npages)};
    Outcome got;
    ASSERT_EQ(grouped_on_gpu(spec, {}, batches, &got), Status::ok) << gh::gpu_last_error();
    expect_outcome(got, want, "numeric values");
}

/* A NaN value is the drain's error, but only on a page the GPU counted, and only for a row that passed. */
TEST_F(GroupedPages, NaNValuesOnlyWhereCounted)
{
    const Layout layout = table_layout(PageValueType::int4);
    auto row = [](int64_t key, double value, int64_t stamp) {
        return std::vector<Datum>{heap_pages::int_datum(0), heap_pages::int_datum(key), heap_pages::float8_datum(value),
                                  heap_pages::int_datum(stamp), heap_pages::float8_datum(0)};
    };
    Written written(4);
    for (size_t b = 0; b < 4; b++) {
        PageWriter w(pool_page(b));
        for (int i = 0; i < 50; i++)
            ASSERT_TRUE(w.add_tuple(layout, row(i % 10, i * 2.0, kT0)));
        written[b] = w.lines();
    }
    PageWriter nan_page(pool_page(4));
    ASSERT_TRUE(nan_page.add_tuple(layout, row(3, 50, kT0)));
    ASSERT_TRUE(nan_page.add_tuple(layout, row(100, kNaN, kT0 + 1))); /* its key outside [0, 10) */
    written.push_back(nan_page.lines());
    const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 5)};
    GroupedPageSpec spec{};
    spec.value = column(layout, kValue, PageValueType::float8);
    spec.interval = BucketSpec{0, 100, 10, BucketRule::pg16};
    Outcome got;
    EXPECT_EQ(grouped_on_gpu(spec, {}, batches, &got), Status::nan_value) << "no key: the NaN row is counted";
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, kKey, PageValueType::int4), 0, 10);
    Outcome want = reference(written, batches, spec, {});
    ASSERT_EQ(want.bounced[0], (std::vector<uint8_t>{0, 0, 0, 0, 1}));
    ASSERT_EQ(grouped_on_gpu(spec, {}, batches, &got), Status::ok) << "the NaN row's page is the host's";
    expect_outcome(got, want, "NaN on the host's page");
    spec.nkeys = 0;
    spec.nquals = 1;
    spec.quals[0] = qual(column(layout, kStamp, PageValueType::int8), PageCmp::eq, kT0);
    want = reference(written, batches, spec, {});
    ASSERT_EQ(grouped_on_gpu(spec, {}, batches, &got), Status::ok) << "the NaN row fails the WHERE clause";
    expect_outcome(got, want, "NaN on a row that fails");
}

TEST_F(GroupedPages, RefusedSpecsAndArguments)
{
    GroupedPageSpec good{};
    std::vector<int64_t> table;
    for (const SpecCase &c : refused_specs(&good, &table)) {
        gh::DeviceHistogram *h = reinterpret_cast<gh::DeviceHistogram *>(&good); /* must be cleared */
        std::vector<int64_t> words(static_cast<size_t>(std::max<int64_t>(c.table_words, 1)), 0);
        EXPECT_EQ(gh::gpu_grouped_pages_open(c.spec, words.data(), static_cast<int32_t>(c.table_words), 0, &h),
                  Status::internal_error)
            << c.what;
        EXPECT_EQ(h, nullptr) << c.what;
    }
    gh::DeviceHistogram *h = nullptr;
    EXPECT_EQ(gh::gpu_grouped_pages_open(good, nullptr, static_cast<int32_t>(table.size()), 0, &h),
              Status::internal_error)
        << "a table of words at no address";
    EXPECT_EQ(gh::gpu_grouped_pages_open(good, table.data(), -1, 0, &h), Status::internal_error);
    /* an interval's slot is one of its key's, the key's NULL group or the host's (kHostSlot): nothing else */
    const PageKey &iv = good.keys[1];
    for (int64_t slot : {gh::kHostSlot - 1, static_cast<int64_t>(iv.slots) + 1, gh::kHostSlot,
                         static_cast<int64_t>(iv.slots)}) {
        std::vector<int64_t> t = table;
        t[iv.table_first + iv.intervals] = slot;
        const Status want = slot == gh::kHostSlot - 1 || slot > iv.slots ? Status::internal_error : Status::ok;
        EXPECT_EQ(gh::gpu_grouped_pages_open(good, t.data(), static_cast<int32_t>(t.size()), 0, &h), want)
            << "an interval of slot " << slot;
        if (h != nullptr)
            gh::gpu_histogram_close(h);
        h = nullptr;
    }
    ASSERT_EQ(gh::gpu_grouped_pages_open(good, table.data(), static_cast<int32_t>(table.size()), 0, &h), Status::ok)
        << gh::gpu_last_error();

    /* 9 words hold 8 page words and their 8 flags, not 9 */
    WordBuffers buffers(9, 1);
    ASSERT_EQ(buffers.status(), Status::ok);
    const Layout layout = table_layout(PageValueType::int4);
    PageWriter w(pool_page(0));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(0), heap_pages::int_datum(-5), heap_pages::float8_datum(5),
                                     heap_pages::int_datum(kT0 + 15), heap_pages::float8_datum(0)}));
    for (int i = 0; i < 9; i++)
        buffers.area(0)[i] = gh::page_word(0, 1);
    ASSERT_EQ(gh::grouped_page_capacity(9), 8u);
    EXPECT_EQ(gh::gpu_grouped_pages_submit(h, buffers.buffer(0), 9), Status::internal_error);
    EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, good.value), Status::internal_error)
        << "the ungrouped page kernel on a grouped histogram";
    ASSERT_EQ(gh::gpu_grouped_pages_submit(h, buffers.buffer(0), 8), Status::ok) << gh::gpu_last_error();
    ASSERT_EQ(wait_until_finished(buffers.buffer(0)), Status::ok);
    const unsigned char *flags = reinterpret_cast<const unsigned char *>(buffers.area(0) + 8);
    EXPECT_EQ(std::vector<unsigned char>(flags, flags + 8), std::vector<unsigned char>(8, 0));
    const int64_t cells = gh::grouped_page_cells(good);
    std::vector<int64_t> counts(static_cast<size_t>(cells) + 1, 0);
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, static_cast<int32_t>(cells + 1), counts.data(), nullptr), Status::ok);
    /* key -5: slot 0; kT0 + 15: interval 1, slot 1; group 0 * 3 + 1; 5 in bucket 1 of 10 over [0, 100) */
    const int64_t group = 1, per = 13;
    EXPECT_EQ(counts[static_cast<size_t>(group * per + 1)], 8);
    EXPECT_EQ(counts[static_cast<size_t>(group * per + 12)], 8);
    EXPECT_EQ(counts.back(), 8) << "the tuple counter";
    gh::gpu_histogram_close(h);

    /* the grouped page kernel on a histogram opened without a spec */
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(good.interval), 0, &h), Status::ok);
    EXPECT_EQ(gh::gpu_grouped_pages_submit(h, buffers.buffer(0), 1), Status::internal_error);
    gh::gpu_histogram_close(h);
}

} // namespace

namespace {

/* A group's value aggregates as the kernel must leave them, summed on the host in the pages' order. */
struct AggReference {
    int64_t n[4] = {};
    int64_t exact[gh::kExactCells] = {};
    __int128 big = 0;
    uint64_t max_key = 0, min_key = 0;
};

} // namespace

/*
 * sum, avg, min and max beside the histogram (kernel_page_aggs.cuh): an
 * exact float sum whose values span 1e-300 to 1e300 with NaN, infinities
 * and -0; a bigint sum that carries into its high word; the float max and
 * an int4 column's min.  Pages hold runs of one group with rows of others
 * among them, so that the block's accumulator moves and rows also go
 * straight to the global cells; on the shared, the global and a 3-block
 * grid, each group's cells equal the host's: the exact sum rounded the
 * same, to the bit, with the same counts of NaN and infinities.
 */
TEST_F(GroupedPages, ValueAggregatesBesideTheHistogram)
{
    const Layout layout{{8, 8}, {4, 4}, {8, 8}}; /* value (float8), key (int4), big (int8) */
    std::mt19937_64 rng(2026);
    constexpr int kGroups = 6;
    const double specials[] = {kNaN, kInf, -kInf, -0.0, 1e300, -1e300, 1e-300, 5e-324};
    std::vector<AggReference> want(kGroups + 1);
    Written written;
    const size_t npages = 60;
    for (size_t p = 0; p < npages; p++) {
        PageWriter w(pool_page(p));
        const int run = static_cast<int>(p / 10); /* ten pages a group */
        for (int r = 0; r < 150; r++) {
            const int g = rng() % 5 == 0 ? static_cast<int>(rng() % kGroups) : run;
            double x = std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 11)) - 4e15, -static_cast<int>(rng() % 60));
            if (rng() % 50 == 0)
                x = specials[rng() % 8];
            const int64_t big = static_cast<int64_t>(rng()) | (int64_t(1) << 62);
            const bool null_x = rng() % 17 == 0;
            ASSERT_TRUE(w.add_tuple(layout, {null_x ? heap_pages::null_datum() : heap_pages::float8_datum(x),
                                             heap_pages::int_datum(g), heap_pages::int_datum(big)}));
            AggReference &a = want[static_cast<size_t>(g)];
            if (!null_x) {
                a.n[0]++;
                gh::exact_sum_add(a.exact, x);
                a.n[1]++;
                int64_t bits;
                std::memcpy(&bits, &x, sizeof bits);
                a.max_key = std::max<uint64_t>(a.max_key, gh::page_agg_key(bits, true));
            }
            a.n[2]++;
            a.min_key = std::max<uint64_t>(a.min_key, ~gh::page_agg_key(g, false));
            a.n[3]++;
            a.big += big;
        }
        written.push_back(w.lines());
    }
    std::vector<int64_t> table;
    GroupedPageSpec spec{};
    /* the histogram over the key: the float column's NaNs would flag width_bucket's error */
    spec.value = column(layout, 2, PageValueType::int4);
    spec.interval = BucketSpec{0, kGroups, 2, BucketRule::pg16};
    spec.nkeys = 1;
    spec.keys[0] = column_key(column(layout, 2, PageValueType::int4), 0, kGroups);
    const std::pair<gh::PageAggKind, int> aggs[] = {{gh::PageAggKind::exact_sum, 1},
                                                    {gh::PageAggKind::max_key, 1},
                                                    {gh::PageAggKind::min_key, 2},
                                                    {gh::PageAggKind::int8_sum, 3}};
    for (const auto &[kind, attno] : aggs) {
        const PageValueType type = attno == 1 ? PageValueType::float8 : attno == 2 ? PageValueType::int4 : PageValueType::int8;
        const gh::PageColumn col = column(layout, attno, type);
        gh::PageAgg &agg = spec.aggs[spec.naggs++];
        agg.kind = kind;
        agg.is_float = attno == 1;
        agg.cells = gh::page_agg_cells(kind);
        agg.column_first = static_cast<uint32_t>(table.size());
        std::vector<int64_t> words(gh::kPageColumnWords, 0);
        std::memcpy(words.data(), &col, sizeof col);
        table.insert(table.end(), words.begin(), words.end());
    }
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    const int64_t slots = gh::grouped_page_slots(spec);
    ASSERT_EQ(slots, 2 + 3 + (1 + gh::kExactCells) + 3 + 3 + 3);
    std::vector<uint64_t> words = words_for(written, 0, npages);
    for (gh::KernelPath path : {gh::KernelPath::shared, gh::KernelPath::global, gh::KernelPath::automatic}) {
        const Outcome got = grouped_on_kernel(spec, table, words, gh_test::forced(limits, path, path == gh::KernelPath::automatic ? 3 : 0));
        const std::string what = path == gh::KernelPath::shared ? "shared" : path == gh::KernelPath::global ? "global" : "3 blocks";
        ASSERT_EQ(got.errors, 0) << what;
        for (int g = 0; g < kGroups; g++) {
            const int64_t *c = got.counts.data() + g * slots + gh::grouped_page_rows_cell(spec) + 1;
            AggReference &a = want[static_cast<size_t>(g)];
            EXPECT_EQ(c[0], a.n[0]) << what << " group " << g;
            int64_t gpu_exact[gh::kExactCells];
            std::memcpy(gpu_exact, c + 1, sizeof gpu_exact);
            for (int s = gh::kExactNaN; s <= gh::kExactNegZero; s++)
                EXPECT_EQ(gpu_exact[s], a.exact[s]) << what << " group " << g << " special " << s;
            gh::ExactSumKind k1, k2;
            const double v1 = gh::exact_sum_round(gpu_exact, a.n[0], 53, 0, 1024, &k1);
            int64_t host_exact[gh::kExactCells];
            std::memcpy(host_exact, a.exact, sizeof host_exact);
            const double v2 = gh::exact_sum_round(host_exact, a.n[0], 53, 0, 1024, &k2);
            EXPECT_EQ(std::memcmp(&v1, &v2, sizeof v1), 0) << what << " group " << g << ": " << v1 << " for " << v2;
            EXPECT_EQ(k1, k2) << what << " group " << g;
            c += 1 + gh::kExactCells;
            EXPECT_EQ(c[0], a.n[1]) << what << " group " << g;
            EXPECT_EQ(static_cast<uint64_t>(c[1]), a.max_key) << what << " group " << g;
            c += 3;
            EXPECT_EQ(c[0], a.n[2]) << what << " group " << g;
            EXPECT_EQ(static_cast<uint64_t>(c[1]), a.min_key) << what << " group " << g;
            EXPECT_EQ(gh::page_agg_word(~static_cast<uint64_t>(c[1]), false), g) << what << " group " << g;
            c += 3;
            EXPECT_EQ(c[0], a.n[3]) << what << " group " << g;
            const __int128 big = (static_cast<__int128>(c[2]) << 64) | static_cast<uint64_t>(c[1]);
            EXPECT_TRUE(big == a.big) << what << " group " << g;
        }
    }
}

namespace {

/*
 * A text key's dictionary as the host lays it out (key_tables.cpp): where
 * each value starts, then each value's slot (slots[value], else its own
 * place), then the values.
 */
PageKey text_key(const gh::PageColumn &col, std::vector<std::string> values, std::vector<int64_t> *table,
                 const std::map<std::string, int64_t> &slots = {}, uint32_t groups = 0)
{
    std::sort(values.begin(), values.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    PageKey key{};
    key.kind = PageKeyKind::text;
    key.column = col;
    key.entries = static_cast<uint32_t>(values.size());
    key.slots = groups != 0 ? groups : key.entries;
    key.table_first = static_cast<uint32_t>(table->size());
    int64_t at = static_cast<int64_t>(table->size() + 2 * values.size());
    std::vector<int64_t> entries;
    for (const std::string &v : values) {
        table->push_back(at + static_cast<int64_t>(entries.size()));
        entries.push_back(static_cast<int64_t>(v.size()));
        std::vector<int64_t> words((v.size() + 7) / 8, 0);
        std::memcpy(words.data(), v.data(), v.size());
        entries.insert(entries.end(), words.begin(), words.end());
    }
    for (size_t i = 0; i < values.size(); i++) {
        const auto given = slots.find(values[i]);
        table->push_back(given != slots.end() ? given->second : static_cast<int64_t>(i));
    }
    table->insert(table->end(), entries.begin(), entries.end());
    return key;
}

} // namespace

/*
 * A text key places a row by its bytes among the dictionary's values,
 * ordered by (length, bytes): slot i for the i-th; NULL is the NULL slot;
 * a value the dictionary lacks (a prefix, another case, a longer one), a
 * compressed or out-of-line one, and a tuple stored before the column was
 * added with a missing value are the host's.  A dictionary out of order,
 * or one pointing past the table, is refused.
 */
TEST(GroupedPagesHost, TextKeysByDictionary)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 4}, {8, 8}};
    const std::string long_a(300, 'a');
    const std::vector<Datum> texts{text_datum("host3"),  text_datum("host30"), text_datum(""),
                                   text_datum(long_a),   text_datum("host"),   heap_pages::null_datum(),
                                   heap_pages::varlena_datum(5000, true, 'h'), heap_pages::toast_pointer_datum(7),
                                   text_datum("HOST3")};
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < texts.size(); r++)
        ASSERT_TRUE(w.add_tuple(layout, {text_datum(std::string(r * 37 % 200, 'p')), texts[r],
                                         heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple({{gh::kVarlenaLen, 4}}, {text_datum("p")})); /* 9: before ADD COLUMN */
    gh::PageColumn t = heap_pages::page_column(layout, 2, PageValueType::text);
    t.fixed_offset = -1;
    std::vector<int64_t> table{42};
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, 3, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16}; /* 7 cells a group */
    spec.nkeys = 1;
    /* in order: "" 0, "host" 1, "host3" 2, "host30" 3, long_a 4; NULL 5 */
    spec.keys[0] = text_key(t, {"host30", "host3", "", long_a, "host"}, &table);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    const int64_t want_slot[] = {2, 3, 0, 4, 1, 5, -1, -1, -1, 5};
    for (uint32_t i = 0; i < 10; i++) {
        const RowResult got = evaluated(pool_page(0), i, spec, table);
        if (want_slot[i] < 0) {
            EXPECT_EQ(got.fate, RowFate::host) << "row " << i;
            continue;
        }
        ASSERT_EQ(got.fate, RowFate::count) << "row " << i;
        EXPECT_EQ(got.row_cell, want_slot[i] * 7 + 6) << "row " << i;
    }
    /* the column's missing value: the host's, whatever it is */
    spec.keys[0].column.has_missing = true;
    EXPECT_EQ(evaluated(pool_page(0), 9, spec, table).fate, RowFate::host);
    spec.keys[0].column.has_missing = false;
    /* a dictionary the kernel's search could not trust */
    GroupedPageSpec bad = spec;
    std::vector<int64_t> swapped = table;
    std::swap(swapped[bad.keys[0].table_first + 1], swapped[bad.keys[0].table_first + 2]);
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, swapped.data(), static_cast<int64_t>(swapped.size())));
    std::vector<int64_t> repeated = table;
    repeated[bad.keys[0].table_first + 2] = repeated[bad.keys[0].table_first + 1];
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, repeated.data(), static_cast<int64_t>(repeated.size())));
    std::vector<int64_t> past = table;
    past[bad.keys[0].table_first + 4] = static_cast<int64_t>(past.size());
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, past.data(), static_cast<int64_t>(past.size())));
    bad.keys[0].entries = static_cast<uint32_t>(table.size());
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, static_cast<int64_t>(table.size())));
}

/* A uuid's 16 bytes: the byte b, then 15 more that count up from it. */
heap_pages::Datum uuid_datum(unsigned char b)
{
    std::vector<unsigned char> bytes(16);
    for (int i = 0; i < 16; i++)
        bytes[static_cast<size_t>(i)] = static_cast<unsigned char>(b + i);
    return heap_pages::fixed_bytes_datum(bytes);
}

std::string uuid_bytes(unsigned char b)
{
    const heap_pages::Datum d = uuid_datum(b);
    return std::string(d.varlena.begin(), d.varlena.end());
}

/*
 * The two layouts a uuid column is read in: after a text (its offset
 * walked to, l 0) or at a fixed offset after an int4 (l 1), then a float8.
 */
const Layout &uuid_layout(int l)
{
    static const Layout walked{{gh::kVarlenaLen, 4}, {16, 1}, {8, 8}};
    static const Layout fixed{{4, 4}, {16, 1}, {8, 8}};
    return l == 0 ? walked : fixed;
}

/*
 * Writes pool page 0: a row of uuid_layout(l) for each of uuids, then one
 * stored before the uuid column was added; false if a row did not fit.
 */
bool write_uuid_page(int l, const std::vector<heap_pages::Datum> &uuids)
{
    const Layout &layout = uuid_layout(l);
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < uuids.size(); r++)
        if (!w.add_tuple(layout, {l == 0 ? text_datum(std::string(r * 37 % 200, 'p')) : heap_pages::int_datum(7),
                                  uuids[r], heap_pages::float8_datum(0.5)}))
            return false;
    return w.add_tuple({layout[0]}, {l == 0 ? text_datum("p") : heap_pages::int_datum(7)});
}

/*
 * A uuid column is compared as its 16 stored bytes, as uuid_eq does, read
 * in place at its fixed offset or after a varlena: = and <> one value, IN
 * and NOT IN a list, NULL passing neither way, a tuple stored before the
 * column was added taking the host's answer for the missing value; no
 * uuid row is ever the host's.  A uuid column of another width is refused.
 */
TEST(GroupedPagesHost, UuidQualsCompareBytes)
{
    ASSERT_NE(pool(), nullptr);
    for (int l = 0; l < 2; l++) {
        const Layout &layout = uuid_layout(l);
        /* rows 0-5, and 6 stored before ADD COLUMN */
        ASSERT_TRUE(write_uuid_page(l, {uuid_datum(1), uuid_datum(2), heap_pages::null_datum(), uuid_datum(3),
                                        uuid_datum(1), uuid_datum(0x81)}));
        gh::PageColumn u = heap_pages::page_column(layout, 2, PageValueType::uuid);
        ASSERT_EQ(u.fixed_offset, l == 0 ? -1 : 4);
        gh::PageColumn with_missing = u;
        with_missing.has_missing = true;
        with_missing.missing_word = 1; /* the host found the missing value listed */
        std::vector<int64_t> table{42};
        /* rows: 0 A, 1 B, 2 NULL, 3 C, 4 A, 5 a uuid whose bytes have the high bit set, 6 before ADD COLUMN */
        const struct {
            PageQual q;
            const char *passing;
        } cases[] = {
            {text_qual(u, PageCmp::in, {uuid_bytes(1)}, &table), "04"},
            {text_qual(u, PageCmp::not_in, {uuid_bytes(1)}, &table), "135"},
            {text_qual(u, PageCmp::in, {uuid_bytes(3), uuid_bytes(0x81), uuid_bytes(9)}, &table), "35"},
            {text_qual(u, PageCmp::not_in, {uuid_bytes(2), uuid_bytes(3)}, &table), "045"},
            {text_qual(u, PageCmp::in, {uuid_bytes(1).substr(0, 15)}, &table), ""},
            {text_qual(with_missing, PageCmp::in, {uuid_bytes(2)}, &table), "16"},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const GroupedPageSpec spec = one_qual_spec(layout, 3, cases[k].q);
            ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size()))) << "case " << k;
            for (uint32_t i = 0; i < 7; i++) {
                const RowFate want = std::strchr(cases[k].passing, '0' + int(i)) ? RowFate::count : RowFate::skip;
                EXPECT_EQ(evaluated(pool_page(0), i, spec, table).fate, want)
                    << "layout " << l << ", case " << k << ", row " << i;
            }
        }
        /* IS NULL and IS NOT NULL */
        for (PageCmp cmp : {PageCmp::is_null, PageCmp::is_not_null}) {
            PageQual test{};
            test.column = u;
            test.cmp = cmp;
            const GroupedPageSpec spec = one_qual_spec(layout, 3, test);
            ASSERT_TRUE(gh::grouped_page_spec_fits(spec, static_cast<int64_t>(table.size())));
            for (uint32_t i = 0; i < 6; i++)
                EXPECT_EQ(evaluated(pool_page(0), i, spec, table).fate,
                          (i == 2) == (cmp == PageCmp::is_null) ? RowFate::count : RowFate::skip)
                    << "layout " << l << ", row " << i;
        }
        /* a uuid column laid out as anything but 16 bytes is refused */
        GroupedPageSpec bad = one_qual_spec(layout, 3, cases[0].q);
        bad.quals[0].column.attr.len = 8;
        EXPECT_FALSE(gh::grouped_page_spec_fits(bad, static_cast<int64_t>(table.size())));
    }
}

/*
 * A uuid key places a row by its 16 bytes, read in place at its fixed
 * offset or after a varlena, among the dictionary's values ordered by
 * their bytes: NULL is the NULL slot; a uuid the dictionary lacks, and a
 * tuple stored before the column was added with a missing value, are the
 * host's.  A uuid key laid out as anything but 16 bytes is refused.
 */
TEST(GroupedPagesHost, UuidKeysByDictionary)
{
    ASSERT_NE(pool(), nullptr);
    for (int l = 0; l < 2; l++) {
        const Layout &layout = uuid_layout(l);
        /* rows 0-5, and 6 stored before ADD COLUMN */
        ASSERT_TRUE(write_uuid_page(l, {uuid_datum(1), uuid_datum(0x81), heap_pages::null_datum(), uuid_datum(3),
                                        uuid_datum(1), uuid_datum(9)}));
        gh::PageColumn u = heap_pages::page_column(layout, 2, PageValueType::uuid);
        std::vector<int64_t> table{42};
        GroupedPageSpec spec{};
        spec.value = heap_pages::page_column(layout, 3, PageValueType::float8);
        spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16}; /* 7 cells a group */
        spec.nkeys = 1;
        /* by their bytes: uuid 1 slot 0, 3 slot 1, 0x81 (the high bit set) slot 2; NULL 3 */
        spec.keys[0] = text_key(u, {uuid_bytes(3), uuid_bytes(0x81), uuid_bytes(1)}, &table);
        ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
        const int64_t want_slot[] = {0, 2, 3, 1, 0, -1, 3};
        for (uint32_t i = 0; i < 7; i++) {
            const RowResult got = evaluated(pool_page(0), i, spec, table);
            if (want_slot[i] < 0) {
                EXPECT_EQ(got.fate, RowFate::host) << "layout " << l << ", row " << i;
                continue;
            }
            ASSERT_EQ(got.fate, RowFate::count) << "layout " << l << ", row " << i;
            EXPECT_EQ(got.row_cell, want_slot[i] * 7 + 6) << "layout " << l << ", row " << i;
        }
        spec.keys[0].column.has_missing = true;
        EXPECT_EQ(evaluated(pool_page(0), 6, spec, table).fate, RowFate::host) << "layout " << l;
        spec.keys[0].column.has_missing = false;
        GroupedPageSpec bad = spec;
        bad.keys[0].column.attr.len = 8;
        EXPECT_FALSE(gh::grouped_page_spec_fits(bad, table.data(), static_cast<int64_t>(table.size())));
    }
}

/*
 * A key of a text column that the host evaluated per value (lower(host))
 * is the same dictionary with each value's slot the key's group: values
 * share a slot, one may be the NULL group (a key NULL for a value that is
 * not), one the host's; a NULL column whose key the host has not seen is
 * the host's.  A slot outside the key's and its NULL group's, or below
 * the host's, or an empty dictionary, is refused.
 */
TEST(GroupedPagesHost, TextKeysByValueShareSlots)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 4}, {8, 8}};
    const std::vector<Datum> texts{text_datum("host3"),  text_datum("host30"), text_datum(""),
                                   text_datum(std::string(300, 'a')), text_datum("host"), heap_pages::null_datum(),
                                   heap_pages::varlena_datum(5000, true, 'h'), heap_pages::toast_pointer_datum(7),
                                   text_datum("HOST3")};
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < texts.size(); r++)
        ASSERT_TRUE(w.add_tuple(layout, {text_datum(std::string(r * 29 % 200, 'p')), texts[r],
                                         heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple({{gh::kVarlenaLen, 4}}, {text_datum("p")})); /* 9: before ADD COLUMN */
    gh::PageColumn t = heap_pages::page_column(layout, 2, PageValueType::text);
    t.fixed_offset = -1;
    std::vector<int64_t> table{7, 7, 7};
    GroupedPageSpec spec{};
    spec.value = heap_pages::page_column(layout, 3, PageValueType::float8);
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16}; /* 7 cells a group */
    spec.nkeys = 1;
    /* lower(): "host3" and "HOST3" one group, "host30" another; "" the NULL group (nullif), "host" the host's */
    spec.keys[0] = text_key(t, {"host3", "HOST3", "host30", "", "host"}, &table,
                            {{"host3", 0}, {"HOST3", 0}, {"host30", 1}, {"", 2}, {"host", gh::kHostSlot}}, 2);
    spec.keys[0].null_host = 1;
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    const int64_t want_slot[] = {0, 1, 2, -1, -1, -1, -1, -1, 0, -1};
    for (uint32_t i = 0; i < 10; i++) {
        const RowResult got = evaluated(pool_page(0), i, spec, table);
        if (want_slot[i] < 0) {
            EXPECT_EQ(got.fate, RowFate::host) << "row " << i;
            continue;
        }
        ASSERT_EQ(got.fate, RowFate::count) << "row " << i;
        EXPECT_EQ(got.row_cell, want_slot[i] * 7 + 6) << "row " << i;
    }
    /* the NULL column's key seen to be NULL: its group */
    spec.keys[0].null_host = 0;
    EXPECT_EQ(evaluated(pool_page(0), 5, spec, table).row_cell, 2 * 7 + 6);
    const int64_t slots_at = spec.keys[0].table_first + spec.keys[0].entries;
    for (int64_t bad_slot : {int64_t{3}, int64_t{-2}}) {
        std::vector<int64_t> bad = table;
        bad[slots_at + 1] = bad_slot;
        EXPECT_FALSE(gh::grouped_page_spec_fits(spec, bad.data(), static_cast<int64_t>(bad.size()))) << bad_slot;
    }
    GroupedPageSpec empty = spec;
    empty.keys[0].entries = 0;
    EXPECT_FALSE(gh::grouped_page_spec_fits(empty, table.data(), static_cast<int64_t>(table.size())));
}

/*
 * count() of another column than the histogram's (PageAggKind::count): a
 * text column's row counts wherever it is not NULL, inline, compressed or
 * out of line alike, since only its place is found and never its bytes; a
 * tuple stored before the column was added counts only where the column
 * has a missing value.  The spec takes it over a text or a numeric column,
 * and refuses it read as a float or as the time form's word.
 */
TEST(GroupedPagesHost, CountOfAnotherColumn)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 4}, {8, 8}};
    const std::vector<Datum> texts{text_datum("host3"), heap_pages::null_datum(), text_datum(""),
                                   heap_pages::varlena_datum(5000, true, 'h'), heap_pages::toast_pointer_datum(7),
                                   text_datum(std::string(300, 'a'))};
    PageWriter w(pool_page(0));
    for (size_t r = 0; r < texts.size(); r++)
        ASSERT_TRUE(w.add_tuple(layout, {text_datum(std::string(r * 41 % 200, 'p')), texts[r],
                                         r == 2 ? heap_pages::null_datum() : heap_pages::float8_datum(0.25)}));
    ASSERT_TRUE(w.add_tuple({{gh::kVarlenaLen, 4}}, {text_datum("p")})); /* 6: before ADD COLUMN */
    gh::PageColumn t = heap_pages::page_column(layout, 2, PageValueType::text);
    t.fixed_offset = -1;
    const gh::PageColumn x = heap_pages::page_column(layout, 3, PageValueType::float8);
    std::vector<int64_t> table{42};
    GroupedPageSpec spec{};
    spec.value = x;
    spec.interval = BucketSpec{0, 1, 4, BucketRule::pg16};
    for (const gh::PageColumn &col : {t, x}) {
        gh::PageAgg &agg = spec.aggs[spec.naggs++];
        agg.kind = gh::PageAggKind::count;
        agg.cells = gh::page_agg_cells(agg.kind);
        agg.column_first = static_cast<uint32_t>(table.size());
        std::vector<int64_t> words(gh::kPageColumnWords, 0);
        std::memcpy(words.data(), &col, sizeof col);
        table.insert(table.end(), words.begin(), words.end());
    }
    ASSERT_EQ(gh::page_agg_cells(gh::PageAggKind::count), 1);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    /* bit 0: the text column is NULL; bit 1: the float8 column is */
    const uint32_t want_nulls[] = {0, 1, 2, 0, 0, 0, 3};
    for (uint32_t i = 0; i < 7; i++) {
        uint32_t item;
        std::memcpy(&item, pool_page(0) + heap_pages::kPageHeaderSize + 4 * i, sizeof item);
        gh::kernels::AggRow row;
        int errors = 0;
        ASSERT_TRUE(gh::kernels::read_agg_row(pool_page(0), item, spec, table.data(), &row, &errors)) << "row " << i;
        EXPECT_EQ(errors, 0) << "row " << i;
        EXPECT_EQ(row.nulls, want_nulls[i]) << "row " << i;
    }
    /* the added column's missing value counts */
    gh::PageColumn with_missing = t;
    with_missing.has_missing = true;
    std::memcpy(table.data() + spec.aggs[0].column_first, &with_missing, sizeof with_missing);
    uint32_t item;
    std::memcpy(&item, pool_page(0) + heap_pages::kPageHeaderSize + 4 * 6, sizeof item);
    gh::kernels::AggRow row;
    int errors = 0;
    ASSERT_TRUE(gh::kernels::read_agg_row(pool_page(0), item, spec, table.data(), &row, &errors));
    EXPECT_EQ(row.nulls, 2u);
    /* never read as a float, nor as a time's word */
    GroupedPageSpec bad = spec;
    bad.aggs[1].is_float = 1;
    EXPECT_FALSE(gh::grouped_page_spec_fits(bad, table.data(), static_cast<int64_t>(table.size())));
    gh::PageColumn word = x;
    word.as_word = true;
    std::memcpy(table.data() + spec.aggs[1].column_first, &word, sizeof word);
    EXPECT_FALSE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
}

namespace {

/* Another histogram of a spec as the host lays it out (grouped_pages.cpp's page_hist): its column, then its PageHist. */
gh::PageAgg histogram_agg(const gh::PageColumn &col, const gh::PageHist &hist, std::vector<int64_t> *table)
{
    gh::PageAgg agg{};
    agg.kind = gh::PageAggKind::histogram;
    agg.column_first = static_cast<uint32_t>(table->size());
    const int32_t nbins = hist.form == gh::PageForm::time         ? hist.time.nbins
                          : hist.form == gh::PageForm::thresholds ? hist.thresholds_count - 1
                                                                  : hist.interval.nbins;
    agg.cells = nbins + 2;
    std::vector<int64_t> words(gh::kPageColumnWords + gh::kPageHistWords, 0);
    std::memcpy(words.data(), &col, sizeof col);
    std::memcpy(words.data() + gh::kPageColumnWords, &hist, sizeof hist);
    table->insert(table->end(), words.begin(), words.end());
    return agg;
}

gh::PageHist interval_hist(const BucketSpec &spec)
{
    gh::PageHist h{};
    h.form = gh::PageForm::width_bucket;
    h.interval = spec;
    return h;
}

gh::PageHist time_hist(const gh::Int64Spec &spec)
{
    gh::PageHist h{};
    h.form = gh::PageForm::time;
    h.time = spec;
    h.binning = gh::prepare_int64(spec);
    return h;
}

gh::PageHist threshold_hist(const std::vector<double> &thresholds, std::vector<int64_t> *table)
{
    gh::PageHist h{};
    h.form = gh::PageForm::thresholds;
    h.thresholds_first = static_cast<uint32_t>(table->size());
    h.thresholds_count = static_cast<int32_t>(thresholds.size());
    for (double t : thresholds) {
        int64_t bits;
        std::memcpy(&bits, &t, sizeof bits);
        table->push_back(bits);
    }
    return h;
}

/*
 * A histogram aggregate's bucket for a value, by PostgreSQL's rules:
 * numeric width_bucket over the stored integer (the slow reference), the
 * thresholds at or below x (NaN above them all), width_bucket; -1 for a
 * NaN under width_bucket, which raises.
 */
int32_t reference_hist_bucket(const gh::PageHist &h, const std::vector<int64_t> &table, const Seen &v)
{
    switch (h.form) {
    case gh::PageForm::time: return gh::int64_bucket_reference(v.word, h.time);
    case gh::PageForm::thresholds: {
        int32_t b = 0;
        for (int32_t k = 0; k < h.thresholds_count; k++) {
            double t;
            std::memcpy(&t, &table[h.thresholds_first + k], sizeof t);
            b += std::isnan(v.value) || pg_float8_cmp(v.value, t) >= 0;
        }
        return b;
    }
    case gh::PageForm::width_bucket: break;
    }
    return std::isnan(v.value) ? -1 : gh::width_bucket(v.value, h.interval);
}

} // namespace

/*
 * Opening a spec checks each other histogram against what the host builds:
 * its column and PageHist inside the table, a column read for its form
 * (the time form's stored integer, the others' float8), a valid spec, the
 * time form's binning as prepare_int64 makes it, and exactly its buckets'
 * cells.
 */
TEST(GroupedPagesHost, OtherHistogramsFitOnlyAsBuilt)
{
    const Layout layout{{4, 4}, {8, 8}, {8, 8}};
    const gh::PageColumn key = column(layout, 1, PageValueType::int4);
    const gh::PageColumn x = column(layout, 2, PageValueType::float8);
    gh::PageColumn stamp = column(layout, 3, PageValueType::int8);
    stamp.as_word = true;
    std::vector<int64_t> table;
    GroupedPageSpec spec{};
    spec.value = key;
    spec.interval = BucketSpec{0, 6, 3, BucketRule::pg16};
    spec.aggs[spec.naggs++] = histogram_agg(x, interval_hist(BucketSpec{1, 0, 7, BucketRule::pg15}), &table);
    spec.aggs[spec.naggs++] = histogram_agg(stamp, time_hist(gh::Int64Spec{kT0, kT0 + 86400000000LL, 24, gh::NumericRule::pg18}), &table);
    const std::vector<double> thresholds{-1, 0.5, 0.5, 2};
    gh::PageHist th = threshold_hist(thresholds, &table);
    spec.aggs[spec.naggs++] = histogram_agg(x, th, &table);
    const int64_t words = static_cast<int64_t>(table.size());
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), words));
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, words)); /* as the device checks it, without the table */
    ASSERT_EQ(gh::grouped_page_slots(spec), 5 + 1 + 9 + 26 + 5);
    {
        /* a single threshold: two cells, on the host and on the device */
        GroupedPageSpec one = spec;
        std::vector<int64_t> t = table;
        one.aggs[one.naggs++] = histogram_agg(x, threshold_hist({0.5}, &t), &t);
        EXPECT_EQ(one.aggs[3].cells, 2);
        EXPECT_TRUE(gh::grouped_page_spec_fits(one, t.data(), static_cast<int64_t>(t.size())));
        EXPECT_TRUE(gh::grouped_page_spec_fits(one, static_cast<int64_t>(t.size())));
    }

    auto refused = [&](const std::string &what, auto change) {
        GroupedPageSpec s = spec;
        std::vector<int64_t> t = table;
        change(s, t);
        EXPECT_FALSE(gh::grouped_page_spec_fits(s, t.data(), static_cast<int64_t>(t.size()))) << what;
    };
    auto hist_of = [](const GroupedPageSpec &s, std::vector<int64_t> &t, int a) {
        return reinterpret_cast<gh::PageHist *>(t.data() + s.aggs[a].column_first + gh::kPageColumnWords);
    };
    auto col_of = [](const GroupedPageSpec &s, std::vector<int64_t> &t, int a) {
        return reinterpret_cast<gh::PageColumn *>(t.data() + s.aggs[a].column_first);
    };
    refused("one cell fewer", [](GroupedPageSpec &s, std::vector<int64_t> &) { s.aggs[0].cells--; });
    refused("one cell more", [](GroupedPageSpec &s, std::vector<int64_t> &) { s.aggs[1].cells++; });
    refused("read as a float", [](GroupedPageSpec &s, std::vector<int64_t> &) { s.aggs[0].is_float = 1; });
    refused("past the table", [](GroupedPageSpec &s, std::vector<int64_t> &t) {
        s.aggs[2].column_first = static_cast<uint32_t>(t.size() - gh::kPageColumnWords);
    });
    refused("an interval of NaN", [&](GroupedPageSpec &s, std::vector<int64_t> &t) { hist_of(s, t, 0)->interval.lo = kNaN; });
    refused("the float8 form over a word", [&](GroupedPageSpec &s, std::vector<int64_t> &t) { col_of(s, t, 0)->as_word = true; });
    refused("the time form over a float8", [&](GroupedPageSpec &s, std::vector<int64_t> &t) { col_of(s, t, 1)->as_word = false; });
    refused("another time's binning", [&](GroupedPageSpec &s, std::vector<int64_t> &t) { hist_of(s, t, 1)->binning.nbins = 23; });
    refused("a time spec of equal bounds", [&](GroupedPageSpec &s, std::vector<int64_t> &t) {
        hist_of(s, t, 1)->time.hi = kT0;
        hist_of(s, t, 1)->binning = gh::prepare_int64(hist_of(s, t, 1)->time);
    });
    refused("thresholds past the table", [&](GroupedPageSpec &s, std::vector<int64_t> &t) {
        hist_of(s, t, 2)->thresholds_first = static_cast<uint32_t>(t.size() - 1);
    });
    refused("no threshold", [&](GroupedPageSpec &s, std::vector<int64_t> &t) {
        hist_of(s, t, 2)->thresholds_count = 0;
        s.aggs[2].cells = 1;
    });
    refused("a form it does not know", [&](GroupedPageSpec &s, std::vector<int64_t> &t) {
        hist_of(s, t, 2)->form = static_cast<gh::PageForm>(7);
    });
}

/*
 * read_agg_row's bucket of each other histogram, for every row of a page
 * (NULLs, NaN, infinities, a tuple stored before a column was added, whose
 * missing value counts), equals PostgreSQL's: a NaN under width_bucket is
 * counted nowhere and flagged, as the spec's own histogram's.
 */
TEST(GroupedPagesHost, OtherHistogramsBucketAsPostgres)
{
    const Layout layout{{4, 4}, {8, 8}, {8, 8}};
    std::mt19937_64 rng(57);
    const double specials[] = {kNaN, kInf, -kInf, -0.0, 0.5, 2, -1};
    PageWriter w(pool_page(0));
    std::vector<Line> lines;
    for (int r = 0; r < 120; r++) {
        const double x = rng() % 5 == 0 ? specials[rng() % 7] : static_cast<double>(rng() % 4000) / 1000.0 - 1.5;
        const int64_t ts = kT0 + static_cast<int64_t>(rng() % 100000000000ULL) - 5000000000LL;
        const bool null_x = rng() % 11 == 0, null_ts = rng() % 13 == 0;
        ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(r % 6), null_x ? heap_pages::null_datum() : heap_pages::float8_datum(x),
                                         null_ts ? heap_pages::null_datum() : heap_pages::int_datum(ts)}));
    }
    ASSERT_TRUE(w.add_tuple({{4, 4}}, {heap_pages::int_datum(1)})); /* stored before the two columns were added */
    const Written written{w.lines()};
    const gh::PageColumn key = column(layout, 1, PageValueType::int4);
    const gh::PageColumn x = column(layout, 2, PageValueType::float8, heap_pages::float8_datum(0.75));
    gh::PageColumn stamp = column(layout, 3, PageValueType::int8, heap_pages::int_datum(kT0 + 3600000000LL));
    stamp.as_word = true;
    std::vector<int64_t> table;
    GroupedPageSpec spec{};
    spec.value = key;
    spec.interval = BucketSpec{0, 6, 3, BucketRule::pg16};
    const gh::PageHist hists[] = {interval_hist(BucketSpec{1, -1, 7, BucketRule::pg15}),
                                  time_hist(gh::Int64Spec{kT0 + 86400000000LL, kT0 - 3600000000LL, 25, gh::NumericRule::pg16}),
                                  threshold_hist({-1, 0.5, 0.5, 2, kInf}, &table)};
    const gh::PageColumn cols[] = {x, stamp, x};
    for (int a = 0; a < 3; a++)
        spec.aggs[spec.naggs++] = histogram_agg(cols[a], hists[a], &table);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    int nan = 0;
    for (uint32_t i = 0; i < written[0].size(); i++) {
        uint32_t item;
        std::memcpy(&item, pool_page(0) + heap_pages::kPageHeaderSize + 4 * i, sizeof item);
        gh::kernels::AggRow row;
        int errors = 0;
        ASSERT_TRUE(gh::kernels::read_agg_row(pool_page(0), item, spec, table.data(), &row, &errors)) << "row " << i;
        int want_errors = 0;
        for (int a = 0; a < 3; a++) {
            const Seen v = seen(written[0][i], cols[a]);
            if (v.null) {
                EXPECT_TRUE(row.nulls >> a & 1) << "row " << i << " histogram " << a;
                continue;
            }
            const int32_t want = reference_hist_bucket(hists[a], table, v);
            if (want < 0) {
                want_errors = 1;
                nan++;
                EXPECT_TRUE(row.nulls >> a & 1) << "row " << i << " histogram " << a << ": a NaN is counted nowhere";
                continue;
            }
            EXPECT_FALSE(row.nulls >> a & 1) << "row " << i << " histogram " << a;
            EXPECT_EQ(row.words[a], want) << "row " << i << " histogram " << a;
        }
        EXPECT_EQ(errors, want_errors) << "row " << i;
    }
    EXPECT_GT(nan, 0) << "the test's page must hold a NaN";
}

/*
 * Three histograms beside the spec's own, one of each form, with a
 * maximum among them: rows in runs of one group with rows of others among
 * them, and enough groups on one path that a window of them moves, so
 * that their buckets go to the block's counters and straight to the
 * global cells.  On the shared, the global and a 3-block grid, every
 * group's cells equal the reference's.
 */
TEST_F(GroupedPages, OtherHistogramsBesideTheFirst)
{
    const Layout layout{{4, 4}, {8, 8}, {8, 8}, {8, 8}}; /* key (int4), x (float8), stamp (int8), y (float8) */
    std::mt19937_64 rng(5757);
    constexpr int kGroups = 40;
    const double specials[] = {kNaN, kInf, -kInf, -0.0, 0.5, 2};
    Written written;
    const size_t npages = 80;
    for (size_t p = 0; p < npages; p++) {
        PageWriter w(pool_page(p));
        const int run = static_cast<int>(p / 2);
        for (int r = 0; r < 110; r++) { /* 60 bytes a tuple with its line pointer */
            const int g = rng() % 6 == 0 ? static_cast<int>(rng() % kGroups) : run;
            const double x = static_cast<double>(rng() % 10000) / 5000.0 - 0.5;
            const int64_t ts = kT0 + static_cast<int64_t>(rng() % 172800000000ULL) - 3600000000LL;
            const double y = rng() % 7 == 0 ? specials[rng() % 6] : static_cast<double>(rng() % 500) / 100.0 - 1.5;
            ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(g),
                                             rng() % 19 == 0 ? heap_pages::null_datum() : heap_pages::float8_datum(x),
                                             rng() % 23 == 0 ? heap_pages::null_datum() : heap_pages::int_datum(ts),
                                             rng() % 29 == 0 ? heap_pages::null_datum() : heap_pages::float8_datum(y)}));
        }
        written.push_back(w.lines());
    }
    std::vector<int64_t> table;
    GroupedPageSpec spec{};
    const gh::PageColumn key = column(layout, 1, PageValueType::int4);
    const gh::PageColumn x = column(layout, 2, PageValueType::float8);
    gh::PageColumn stamp = column(layout, 3, PageValueType::int8);
    stamp.as_word = true;
    const gh::PageColumn y = column(layout, 4, PageValueType::float8);
    spec.value = key;
    spec.interval = BucketSpec{0, kGroups, 4, BucketRule::pg16};
    spec.nkeys = 1;
    spec.keys[0] = column_key(key, 0, kGroups);
    const gh::PageHist hists[] = {interval_hist(BucketSpec{1.5, -0.5, 9, BucketRule::pg15}),
                                  time_hist(gh::Int64Spec{kT0, kT0 + 172800000000LL, 48, gh::NumericRule::pg18}),
                                  threshold_hist({-1, 0.5, 0.5, 2, kInf}, &table)};
    const gh::PageColumn cols[] = {x, stamp, y};
    spec.aggs[spec.naggs++] = histogram_agg(x, hists[0], &table);
    {
        gh::PageAgg &agg = spec.aggs[spec.naggs++];
        agg.kind = gh::PageAggKind::max_key;
        agg.is_float = 1;
        agg.cells = gh::page_agg_cells(agg.kind);
        agg.column_first = static_cast<uint32_t>(table.size());
        std::vector<int64_t> words(gh::kPageColumnWords, 0);
        std::memcpy(words.data(), &y, sizeof y);
        table.insert(table.end(), words.begin(), words.end());
    }
    spec.aggs[spec.naggs++] = histogram_agg(stamp, hists[1], &table);
    spec.aggs[spec.naggs++] = histogram_agg(y, hists[2], &table);
    ASSERT_TRUE(gh::grouped_page_spec_fits(spec, table.data(), static_cast<int64_t>(table.size())));
    const int64_t slots = gh::grouped_page_slots(spec);
    /* the reference: each group's cells as the kernel lays them out, every row counted */
    std::vector<int64_t> want(static_cast<size_t>(gh::grouped_page_cells(spec)), 0);
    const int agg_of[] = {0, 2, 3};
    for (const auto &page : written)
        for (const Line &line : page) {
            const Seen k = seen(line, key);
            const int64_t base = k.word * slots;
            want[static_cast<size_t>(base + gh::width_bucket(static_cast<double>(k.word), spec.interval))]++;
            want[static_cast<size_t>(base + gh::grouped_page_rows_cell(spec))]++;
            int64_t off = gh::grouped_page_rows_cell(spec) + 1;
            int h = 0;
            for (int a = 0; a < spec.naggs; a++) {
                if (h < 3 && agg_of[h] == a) {
                    const Seen v = seen(line, cols[h]);
                    if (!v.null)
                        want[static_cast<size_t>(base + off + reference_hist_bucket(hists[h], table, v))]++;
                    h++;
                } else {
                    const Seen v = seen(line, y);
                    if (!v.null) {
                        want[static_cast<size_t>(base + off)]++;
                        int64_t bits;
                        std::memcpy(&bits, &v.value, sizeof bits);
                        int64_t &top = want[static_cast<size_t>(base + off + 1)];
                        top = static_cast<int64_t>(std::max<uint64_t>(static_cast<uint64_t>(top), gh::page_agg_key(bits, true)));
                    }
                }
                off += spec.aggs[a].cells;
            }
        }
    const std::vector<uint64_t> words = words_for(written, 0, npages);
    for (gh::KernelPath path : {gh::KernelPath::shared, gh::KernelPath::global, gh::KernelPath::automatic}) {
        const Outcome got = grouped_on_kernel(spec, table, words, gh_test::forced(limits, path, path == gh::KernelPath::automatic ? 3 : 0));
        const std::string what = path == gh::KernelPath::shared ? "shared" : path == gh::KernelPath::global ? "global" : "3 blocks";
        EXPECT_EQ(got.errors, 0) << what;
        ASSERT_EQ(got.counts.size(), want.size()) << what;
        for (size_t c = 0; c < want.size(); c++)
            ASSERT_EQ(got.counts[c], want[c]) << what << ": group " << c / slots << " cell " << c % slots;
    }
    /* a single threshold's histogram beside the first, through the kernel and through the entry points */
    {
        GroupedPageSpec one = spec;
        std::vector<int64_t> t = table;
        one.aggs[3] = histogram_agg(y, threshold_hist({0.5}, &t), &t);
        ASSERT_TRUE(gh::grouped_page_spec_fits(one, t.data(), static_cast<int64_t>(t.size())));
        const int64_t one_slots = gh::grouped_page_slots(one);
        std::vector<int64_t> want_one(static_cast<size_t>(gh::grouped_page_cells(one)), 0);
        for (int64_t grp = 0; grp <= kGroups; grp++)
            for (int64_t c = 0; c < one_slots - 2; c++)
                want_one[static_cast<size_t>(grp * one_slots + c)] = want[static_cast<size_t>(grp * slots + c)];
        for (const auto &page : written)
            for (const Line &line : page) {
                const Seen k = seen(line, key), v = seen(line, y);
                if (!v.null)
                    want_one[static_cast<size_t>(k.word * one_slots + one_slots - 2 + (std::isnan(v.value) || v.value >= 0.5))]++;
            }
        const Outcome got = grouped_on_kernel(one, t, words, limits);
        EXPECT_EQ(got.errors, 0);
        ASSERT_EQ(got.counts.size(), want_one.size());
        for (size_t c = 0; c < want_one.size(); c++)
            ASSERT_EQ(got.counts[c], want_one[c]) << "single threshold: group " << c / one_slots << " cell " << c % one_slots;
        Outcome entry;
        ASSERT_EQ(grouped_on_gpu(one, t, {words}, &entry), Status::ok) << gh::gpu_last_error();
        for (size_t c = 0; c < want_one.size(); c++)
            ASSERT_EQ(entry.counts[c], want_one[c]) << "single threshold, entry points: group " << c / one_slots << " cell " << c % one_slots;
    }
    /* a NaN under another histogram's width_bucket: flagged, counted nowhere */
    GroupedPageSpec nan_spec = spec;
    std::vector<int64_t> nan_table = table;
    std::memcpy(nan_table.data() + nan_spec.aggs[0].column_first, &y, sizeof y);
    ASSERT_TRUE(gh::grouped_page_spec_fits(nan_spec, nan_table.data(), static_cast<int64_t>(nan_table.size())));
    const Outcome flagged = grouped_on_kernel(nan_spec, nan_table, words, limits);
    EXPECT_EQ(flagged.errors, 1);
}
