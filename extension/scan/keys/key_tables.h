/*
 * key_tables.h: how the GPU places a grouped scan's rows in their groups
 * (gpu/specs/grouped_page_spec.h), computed on the host with PostgreSQL's own
 * functions and the table's statistics.
 *
 * The GPU gets no function of PostgreSQL's: a key becomes a window of
 * stored integers, a width_bucket the host already checked, or a sorted
 * table of intervals of the stored timestamp, each with its key's group.
 * The intervals come from the scan's own time keys, which PostgreSQL's
 * date_trunc, date_bin and ::date (time_keys.h), or TimescaleDB's
 * time_bucket (tsdb_bucket.h), verify interval by interval, over the range
 * the column's statistics (min and max of its histogram and most common
 * values), narrowed by the WHERE clause's bounds on the same column, say
 * the rows lie in.  Statistics are a sample: a row
 * outside its key's window or table sends its page back to the host,
 * which places it with the same functions, so they only ever cost time.
 */
#ifndef GH_SCAN_KEY_TABLES_H
#define GH_SCAN_KEY_TABLES_H

#include "group_keys.h"
#include "../quals/native_quals.h"

extern "C" {
#include "datatype/timestamp.h"
}

#include "../../../gpu/specs/grouped_page_spec.h"

namespace gpu_histogram {

/* The tables of every key of one spec, and the key word of each key's slots. */
struct KeyTables {
    int64 *words;     /* the interval tables, as the GPU reads them */
    int32 nwords;
    int32 capacity;
    int64 *slot_words[gh::kMaxPageKeys]; /* slot s of key k has key word slot_words[k][s] ... */
    struct varlena **slot_values[gh::kMaxPageKeys]; /* ... or, for a key kept as bytes, value slot_values[k][s] */
};

/*
 * Fills spec->keys[k] for key k of the scan of relation relid, adding its
 * table to t (in the current memory context); false if the GPU cannot
 * place this key's rows: a kind it does not compute, no statistics, or a
 * window or table too large.  May call PostgreSQL's time functions: never
 * under a buffer lock.
 */
bool key_table_build(GroupKey *key, Oid relid, TupleDesc desc, const NativeQuals &quals, gh::PageKey *out,
                     KeyTables *t, int k);

/*
 * Adds a WHERE clause's list (native_quals.h), n words, to the table the
 * GPU reads beside the keys' (a float8's bits as its word); returns where
 * it starts.
 */
int32 key_tables_add_list(KeyTables *t, const int64 *words, int32 n);

/* ---- for the key kinds' gpu_table (key_kind.h) ---- */

/*
 * Adds n intervals, their starts and then their slots, as key *out's table
 * in t (out's kind, slots and end are the caller's).
 */
void key_tables_add_intervals(KeyTables *t, const int64 *starts, const int64 *slots, int32 n, gh::PageKey *out);

/*
 * Adds a text key's dictionary (grouped_page_spec.h's PageKeyKind::text)
 * as key *out's table in t: values[0 .. n), distinct, each at most
 * kMaxTextKeyBytes long, in text_key_order (text_memo.h), value i with
 * slot slots[i]; sets out's kind, table and entries (its slots are the
 * caller's).  false if the table would grow too large.
 */
bool key_tables_add_dictionary(KeyTables *t, struct varlena *const *values, const int64 *slots, int32 n,
                               gh::PageKey *out);

/*
 * The slots of a key's remembered results (value_memo.h), n of them: each
 * distinct non-NULL result one, in the key's order, its word or value
 * for slot s as key k's in t; slot[i] is result i's, the NULL group's
 * (the count returned) for a NULL result.
 */
uint32 key_tables_number_results(GroupKey *key, const struct MemoResult *const *results, int32 n, int64 *slot,
                                 KeyTables *t, int k);

/* Most slots a key may have on the GPU: its groups' cells stay in device memory a scan can take. */
constexpr int64 kMaxKeySlots = 1 << 20;
/*
 * The stored times a table may cover: well inside the timestamp range, as
 * time_keys.cpp's fast paths are, so that no PostgreSQL function called for
 * a value the table covers (which may be no row's) can raise a range
 * error.  Rows beyond it are the host's.
 */
constexpr int64 kKeyTableMargin = 400 * USECS_PER_DAY;
constexpr int64 kKeyTableMin = MIN_TIMESTAMP + kKeyTableMargin;
constexpr int64 kKeyTableMax = END_TIMESTAMP - kKeyTableMargin;
/* The same for a date column: the days whose midnight lies inside that range. */
constexpr int64 kKeyTableFirstDay = kKeyTableMin / USECS_PER_DAY + 1;
constexpr int64 kKeyTableLastDay = kKeyTableMax / USECS_PER_DAY - 1;

/*
 * Where the rows' values of col lie, as far as the statistics (their
 * histogram's bounds and most common values, widened by a sixty-fourth
 * each side) and the WHERE clause say; false if nothing is known, or
 * nothing is left.
 */
bool key_rows_range(const KeyRows &rows, const HeapColumn &col, int64 *lo, int64 *hi);

/* [lo, hi] cut to the times a table may cover; false if nothing is left. */
bool key_inside_table(int64 *lo, int64 *hi);
/* The same for a column of type coltype: a date column's days, or the times. */
bool key_inside_table(int64 *lo, int64 *hi, Oid coltype);

/*
 * The key of one stored time ts and the interval [*from, *to) around it
 * whose every value has that key, as the key's own computation verified it
 * with PostgreSQL's (or TimescaleDB's) function; false where it comes with
 * no such interval.
 */
using VerifiedKey = bool (*)(GroupKey *key, int64 ts, int64 *result, int64 *from, int64 *to);

/*
 * A time key's intervals over [lo, hi], at least step apart, as key k's
 * table in t: the key of each stored value there, with the interval around
 * it that has the same key; adjacent intervals with one key are merged.
 * false where a value's key comes with no such interval or there are too
 * many.
 */
bool key_time_intervals(GroupKey *key, VerifiedKey verified, int64 step, int64 lo, int64 hi, gh::PageKey *out,
                        KeyTables *t, int k);

} // namespace gpu_histogram

#endif /* GH_SCAN_KEY_TABLES_H */
