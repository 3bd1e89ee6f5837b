/*
 * grouped_page_spec.h: what the GPU needs to run a grouped, filtered scan
 * over heap pages by itself: read each tuple's WHERE columns, its GROUP BY
 * keys and its value straight out of the page, and count the value into
 * its group's histogram, with a count of the group's rows beside it.
 *
 * Only what can be computed exactly from stored values comes here; the
 * host (extension/scan/grouped/offload/grouped_pages.cpp) decides that, and computes
 * with PostgreSQL's own functions whatever tables the GPU looks values up
 * in:
 *   - a WHERE clause `column op constant` compares the stored value, as an
 *     int64 (integers, date, timestamp) or as a float8 with PostgreSQL's
 *     NaN order (float4, float8);
 *   - a key that is a plain integer-like column numbers its groups by
 *     arithmetic over a window of values [base, base + slots);
 *   - a key computed from a timestamp (date_trunc in the session's zone,
 *     date_bin, ::date) is a table of intervals of the stored value, each
 *     with the number of its key's group, which the host filled from
 *     PostgreSQL's results over the range the table's statistics give;
 *   - a second width_bucket over a float column numbers its groups by the
 *     bucket (bucket.h);
 *   - a key the host evaluated once for each value rows held
 *     (value_key.cpp) is a table of intervals too: each such value an
 *     interval with its key's group, and between them intervals whose slot
 *     is kHostSlot, values no row has shown the host yet;
 *   - a text column is a dictionary of the values rows have shown the
 *     host (column_key.cpp), matched as bytes, which is equality under a
 *     deterministic collation; a value not in it is the host's.  A uuid
 *     column is one too, its 16 bytes matched in place.  A key of
 *     a text column that the host evaluated once per value (lower(host),
 *     value_key.cpp) is the same dictionary, each value with its key's
 *     group.
 * A NULL key has a group of its own (slot `slots`), where a NULL column
 * has a NULL key; where it may not, null_host sends the row to the host.  A key value outside
 * the window or the table, or a NaN under width_bucket, is a row the GPU
 * cannot place: its whole page is then left uncounted and flagged, and the
 * host reads that page itself, so every row is counted exactly once.
 *
 * Groups are numbered key by key (the first key's slot is the most
 * significant), and each group has grouped_page_slots() cells:
 * width_bucket's nbins + 2 buckets of its non-NULL values, the rows that
 * passed the WHERE clause (count(*)), then each value aggregate's cells
 * (sum, avg, min, max, or another histogram's buckets, beside the
 * histogram; PageAgg).  Only libc headers; compiled by g++ and nvcc.
 */
#ifndef GH_GROUPED_PAGE_SPEC_H
#define GH_GROUPED_PAGE_SPEC_H

#include <cstdint>

#include "../formulas/bucket.h"
#include "../formulas/exact_sum.h"
#include "../formulas/time_bucket.h"
#include "page_spec.h"

namespace gh {

/*
 * The GROUP BY keys and the WHERE clause's atoms the GPU evaluates.  The
 * spec is a kernel parameter, by value: four keys and six atoms keep it
 * within the 4 KB that CUDA toolkits before 12.1 take (a PageKey is 336
 * bytes, a PageQual 280: each holds a PageColumn of 232).  A WHERE clause
 * over a key is a PageKey too (filter), among the four.
 */
constexpr int kMaxPageKeys = 4;
constexpr int kMaxPageQuals = 6;

enum class PageKeyKind : int32_t {
    column = 0,   /* slot = stored integer - base */
    intervals,    /* slot looked up among sorted intervals of the stored integer */
    width_bucket, /* slot = width_bucket(stored value as float8, wb) */
    text,         /* slot = the slot the host gave the text value in a dictionary of values rows hold */
    local_period, /* slot = a periodic field of the local time: the UTC offset looked up among intervals */
};

struct PageKey {
    PageKeyKind kind;
    PageColumn column;     /* for column and intervals: int2, int4 or int8 storage (date, timestamps); text: a varlena */
    uint32_t slots;        /* key values with a group; NULL is slot `slots` */
    uint32_t entries;      /* text: the dictionary's values */
    int64_t base;          /* column: the window's first value */
    /*
     * intervals: where in the table its starts, then their slots, lie;
     * text: where `entries` words lie that say where each of the
     * dictionary's values lies in the table (a word with its length in
     * bytes, then its bytes padded to a word), in the order of (length,
     * bytes), and after them `entries` words with each value's slot: its
     * own for a text column; for a key of one (lower(host)) the group of
     * the key's result, which several values may share; or kHostSlot
     */
    uint32_t table_first;
    uint32_t intervals;    /* intervals: how many; interval i is [start[i], start[i + 1]) ... */
    int64_t end;           /* ... and the last one ends before `end` */
    BucketSpec wb;         /* width_bucket: validated; slots = wb.nbins + 2 */
    int32_t null_host;     /* a NULL column is the host's, not the NULL group */
    /*
     * local_period: the intervals' words are UTC offsets, not slots; a
     * stored time w of interval i is local time w + offset[i], and its slot
     * is (floor(local / unit) + shift) mod period, with slots == period
     * (the local hour of the day: unit an hour, period 24)
     */
    int64_t unit;
    int32_t period;
    int32_t shift;
    /*
     * A key of the key (remap_count > 0): the slot found as above, among
     * remap_count - 1 inner slots (the last entry for a NULL column),
     * looked up in remap_count words from remap_first, each the key's
     * slot, its NULL group's (`slots`) or kHostSlot.  Metabase's hour of
     * the day, `CAST(extract(hour FROM ts) AS integer)`, is the local hour
     * renumbered by the host's results for each hour rows held
     * (extension/scan/keys/derived_key.cpp).
     */
    uint32_t remap_first;
    uint32_t remap_count;
    /*
     * 1: not a GROUP BY key but a WHERE clause over one (`extract(hour
     * FROM ts) BETWEEN 9 AND 17`, `host LIKE 'web%'` by value): its slot
     * 0 passes, any other fails, and it numbers no group.  The host
     * answered the clause for each slot (keys/key_quals.cpp); kHostSlot
     * sends the page to the host.  Evaluated after the quals, before the
     * keys.
     */
    int32_t filter;
};

/* The slots a key's kind finds (its NULL column's is this number): its own, or those its remap renumbers. */
GH_HOST_DEVICE uint32_t page_key_found_slots(const PageKey &key)
{
    return key.remap_count != 0 ? key.remap_count - 1 : key.slots;
}

/* A local_period key's offsets: a zone's UTC offset is within a day (PostgreSQL allows 18 hours). */
constexpr int64_t kMaxLocalOffset = 86400LL * 1000000;

/* The longest value a text key's dictionary holds: longer ones are the host's. */
constexpr int64_t kMaxTextKeyBytes = 1024;

/* An interval's slot for values whose key only the host knows: their rows are the host's. */
constexpr int64_t kHostSlot = -1;

/* Comparisons with a value; then in (= ANY) and not_in (<> ALL) of a list; then the NULL tests. */
enum class PageCmp : int32_t { lt = 0, le, eq, ge, gt, ne, in, not_in, is_null, is_not_null };

/*
 * A WHERE clause on a column: a NULL column fails, as strict operators
 * give, but for is_null, which only it passes (a tuple stored before the
 * column was added is NULL there unless the column has a missing value).  A list's values lie in the spec's table, from list_first,
 * list_count of them (at least one), sorted and without repeats: int64
 * words, or float8 bits ordered as float8's btree orders them (NaN last,
 * -0 equal to 0).  What else a list means (NULL elements, an empty array)
 * the host has already turned into no qual, or a scan that counts nothing.
 * A text column's qual is in or not_in (= and <> hold one value) and its
 * list is list_count values of list_words words in all, each a word with
 * its length in bytes, then its bytes padded to a word, compared bytewise;
 * a tuple stored before the column was added passes where missing_word is
 * 1, the host's answer for the column's missing value.
 */
struct PageQual {
    /*
     * The WHERE list's clause it is an atom of: a row passes a clause when
     * it passes one of its atoms (an OR), and must pass every clause.  The
     * atoms of a clause lie next to each other, in clause order.
     */
    int32_t clause;
    PageColumn column;
    PageCmp cmp;
    int32_t is_float; /* compare as float8 (float_ops), else as int64 */
    int64_t word;
    double value;
    uint32_t list_first;
    uint32_t list_count;
    uint32_t list_words; /* a text column's list: its words in the table */
};

/*
 * A value aggregate beside the histogram: sum, avg, min or max of a
 * column, in three cells a group (an exact sum in 1 + kExactCells, a count
 * of another column than the histogram's in one): the non-NULL values,
 * then the state, laid out as the host's grouped cells
 * lay it out (extension/scan/grouped/table/value_aggs.h), but for min and
 * max, which keep an order key (page_agg_key) the host turns back into the
 * value.  Another gpu_histogram of the query is one too (PageAggKind::
 * histogram): its buckets, binned as the spec's own histogram is, of any
 * form, in nbins + 2 cells (a PageHist says how).
 */
constexpr int kMaxPageAggs = 4;

enum class PageAggKind : int32_t {
    exact_sum = 0, /* float4, float8: exact_sum.h's cells */
    int_sum,       /* int2, int4: the sum in one cell */
    int8_sum,      /* int8: the sum in 128 bits, low word then high */
    max_key,       /* the largest page_agg_key */
    min_key,       /* the largest complement of page_agg_key: the smallest key */
    count,         /* the non-NULL values alone: count() of a column, of any type (its value is never read) */
    histogram,     /* another histogram: a bucket cell for each non-NULL value (PageHist) */
};

struct PageAgg {
    PageAggKind kind;
    int32_t is_float;      /* the column read as a float8 (float4, float8), else as its stored integer */
    uint32_t column_first; /* its PageColumn's words in the spec's table (the spec is a kernel parameter, and full) */
    int32_t cells;         /* page_agg_cells(kind); a histogram's, its nbins + 2 */
};

/* Cells of an aggregate but a histogram, whose cells are its buckets'. */
GH_HOST_DEVICE int32_t page_agg_cells(PageAggKind kind)
{
    return kind == PageAggKind::exact_sum ? 1 + kExactCells : kind == PageAggKind::count ? 1 : 3;
}

/* Table words a PageColumn takes there. */
constexpr uint32_t kPageColumnWords = (sizeof(PageColumn) + 7) / 8;

/* Which of gpu_histogram's forms a grouped page spec bins. */
enum class PageForm : int32_t {
    width_bucket = 0, /* the value as the float8 it casts to, by interval */
    time,             /* a date's or timestamp's stored integer (value.as_word), by numeric width_bucket over time */
    thresholds,       /* the float8 value among thresholds_count sorted float8s in the table, from thresholds_first */
};

/*
 * How a PageAggKind::histogram bins, in the table right after its column
 * (kPageHistWords words from column_first + kPageColumnWords): the form
 * and its spec, as the spec's own histogram has them.  The time form's
 * binning constants come prepared (prepare_int64), so that no row
 * prepares them; opening the spec checks them against `time`.
 */
struct PageHist {
    PageForm form;
    int32_t thresholds_count; /* thresholds: at least 1 ... */
    uint32_t thresholds_first; /* ... sorted float8s in the table, from here */
    int32_t pad;
    BucketSpec interval;      /* width_bucket: validated */
    Int64Spec time;           /* time: validated ... */
    Int64Binning binning;     /* ... and prepare_int64(time) */
};

constexpr uint32_t kPageHistWords = (sizeof(PageHist) + 7) / 8;

/*
 * An order key of a value: unsigned, in the order of the column's type's
 * btree.  Integers by their sign bit flipped; floats by their bits, as
 * float8's order sorts them but for -0, which sorts below 0 here (float8's
 * min and max keep the later of two equal values in the rows' order, which
 * no atomic can), and NaN, every NaN one key above +Infinity.
 */
GH_HOST_DEVICE uint64_t page_agg_key(int64_t word, bool is_float)
{
    uint64_t u = static_cast<uint64_t>(word);
    if (!is_float)
        return u ^ (uint64_t(1) << 63);
    if ((u & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL)
        u = 0x7ff8000000000000ULL; /* one NaN */
    return (u >> 63) != 0 ? ~u : u | (uint64_t(1) << 63);
}

/* The word (a float's bits) whose key is k. */
GH_HOST_DEVICE int64_t page_agg_word(uint64_t k, bool is_float)
{
    if (!is_float)
        return static_cast<int64_t>(k ^ (uint64_t(1) << 63));
    const uint64_t u = (k >> 63) != 0 ? k & 0x7fffffffffffffffULL : ~k;
    return static_cast<int64_t>(u);
}

struct GroupedPageSpec {
    PageColumn value;    /* the histogram's column */
    PageForm form;
    BucketSpec interval; /* width_bucket: validated by validate_spec() */
    Int64Spec time;      /* time: validated by validate_int64_spec() */
    uint32_t thresholds_first;
    int32_t thresholds_count; /* at least 1 */
    int32_t nkeys;
    PageKey keys[kMaxPageKeys];
    int32_t nquals;
    PageQual quals[kMaxPageQuals];
    int32_t naggs;
    PageAgg aggs[kMaxPageAggs];
    /*
     * 1: the WHERE clause has clauses only the host's executor evaluates,
     * on the rows that pass these quals: such a row sends its page to the
     * host, and a page none of whose rows pass is done on the GPU.
     */
    int32_t rows_to_host;
};

static_assert(sizeof(GroupedPageSpec) <= 3584, "the spec and the kernel's other parameters fit in 4 KB");

/* The histogram's buckets besides the two outer ones (a thresholds histogram has count + 1 in all). */
GH_HOST_DEVICE int32_t grouped_page_nbins(const GroupedPageSpec &s)
{
    return s.form == PageForm::time ? s.time.nbins
           : s.form == PageForm::thresholds ? s.thresholds_count - 1
                                            : s.interval.nbins;
}

/* The cell of a group's rows, after the histogram's buckets (width_bucket's nbins + 2). */
GH_HOST_DEVICE int64_t grouped_page_rows_cell(const GroupedPageSpec &s)
{
    return static_cast<int64_t>(grouped_page_nbins(s)) + 2;
}

/* Cells of one group: the buckets, the rows, then each value aggregate's. */
GH_HOST_DEVICE int64_t grouped_page_slots(const GroupedPageSpec &s)
{
    int64_t n = grouped_page_rows_cell(s) + 1;
    for (int32_t a = 0; a < s.naggs && a < kMaxPageAggs; a++)
        n += s.aggs[a].cells;
    return n;
}

/*
 * The cells of the grouped page kernel's accumulator of one group's value
 * aggregates, in shared memory: every aggregate's but another histogram's,
 * whose buckets are counted with the first's.
 */
GH_HOST_DEVICE int64_t grouped_page_accumulated_cells(const GroupedPageSpec &s)
{
    int64_t n = 0;
    for (int32_t a = 0; a < s.naggs && a < kMaxPageAggs; a++)
        if (s.aggs[a].kind != PageAggKind::histogram)
            n += s.aggs[a].cells;
    return n;
}

inline size_t grouped_page_agg_bytes(const GroupedPageSpec &s)
{
    return sizeof(int64_t) * static_cast<size_t>(grouped_page_accumulated_cells(s));
}

/*
 * The number of groups: each key's slots plus its NULL, multiplied; once
 * past INT32_MAX, which no spec may have, the product so far (a key has at
 * most 2^30 slots, so four of them cannot overflow it).
 */
inline int64_t grouped_page_groups(const GroupedPageSpec &s)
{
    int64_t g = 1;
    for (int k = 0; k < s.nkeys && k < kMaxPageKeys && g <= INT32_MAX; k++)
        if (s.keys[k].filter == 0)
            g *= static_cast<int64_t>(s.keys[k].slots) + 1;
    return g;
}

inline int64_t grouped_page_cells(const GroupedPageSpec &s) { return grouped_page_groups(s) * grouped_page_slots(s); }

/*
 * A page batch of a grouped page histogram (gpu_grouped_pages_submit) also
 * answers, for each of its n pages, whether the GPU left it to the host:
 * n bytes, 1 for such a page, after the n page words in the batch's host
 * area.  So a batch holds at most this many pages of a slot of `words`.
 */
constexpr uint64_t grouped_page_capacity(uint64_t words) { return words * 8 / 9; }

} // namespace gh

#endif /* GH_GROUPED_PAGE_SPEC_H */
