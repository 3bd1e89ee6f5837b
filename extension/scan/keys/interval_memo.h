/*
 * interval_memo.h: the intervals a monotone key's table verified
 * (monotone_key.cpp), kept for the backend's next scans of the same key.
 *
 * Such a table costs two evaluations of the key a group: Grafana's five
 * minutes over 30 days, 8,640 groups, took 11 ms of a 14 ms wait for the
 * first row on the H100 host, the GPU's pass of 2.6M rows 1.6 ms; the
 * remainder form of the same buckets took 13.8.  A dashboard asks the same
 * key again at every refresh, over nearly the same range.
 *
 * What is kept is a fact about PostgreSQL's own functions, not about any
 * row: over [from, to) of the stored column the key is one value.  A
 * monotone key is built only of built-in steps recognised by OID, the
 * column and constants (monotone_steps.h): its value at a stored value
 * depends on nothing else but the session's TimeZone, through
 * date_trunc, date_part and the casts and shifts of timestamptz.  So a
 * memo is named by the expression and the zone, and lasts the backend.
 * Redefining any function drops every memo, as value_memo.h's, should a
 * superuser replace a built-in in pg_catalog.
 */
#ifndef GH_SCAN_INTERVAL_MEMO_H
#define GH_SCAN_INTERVAL_MEMO_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

struct IntervalMemo;

/*
 * Most intervals one memo keeps: 262,144 of 32 bytes and a numeric's
 * bytes each are about 12 MB, half a year of minutes.  A table past it
 * still works; the memo starts again from that table's intervals.
 */
constexpr int32 kIntervalMemoMax = 1 << 18;

/*
 * The backend's memo of a key under the session's zone, expression being
 * the key's memo_expression_name() (value_memo.h), made empty if new.  Intervals added but not yet committed by an earlier table,
 * which an error cut short, are dropped.
 */
IntervalMemo *interval_memo_open(const char *name);

/*
 * Whether a remembered interval holds stored value ts: then the key is one
 * value from ts to *to (exclusive), a word or bytes (*bytes NULL for a word
 * key; valid until the memo is next committed or opened).
 */
bool interval_memo_find(IntervalMemo *m, int64 ts, int64 *to, int64 *word, const struct varlena **bytes);

/* Adds a verified interval [from, to) whose key is word, or bytes (copied), to the memo's pending ones. */
void interval_memo_add(IntervalMemo *m, int64 from, int64 to, int64 word, const struct varlena *bytes);

/*
 * The pending intervals join the remembered ones, joined where they meet
 * with one key.  Two that overlap with different keys would mean the
 * expression is not what the memo's name says: the memo is emptied.
 */
void interval_memo_commit(IntervalMemo *m);

/* How many intervals the memo holds, for tests and DEBUG lines. */
int32 interval_memo_count(const IntervalMemo *m);

} // namespace gpu_histogram

#endif /* GH_SCAN_INTERVAL_MEMO_H */
