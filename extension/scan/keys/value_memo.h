/*
 * value_memo.h: what a GROUP BY key of one integer-like column was, for
 * each value of the column that a row has held (value_key.cpp).
 *
 * A key such as g % 10 or g::text over an int column has one result per
 * value of g.  A dashboard's table holds few distinct values under many
 * rows, so PostgreSQL's executor needs to evaluate the key only at the
 * first row that holds each value.  The memo remembers each result, and
 * the GPU's table of the key is made from it.  Only rows fill it, in the
 * order the scan reads them: no value that no visible row holds ever
 * reaches the key's functions, and an error is raised at the row where
 * the ordinary plan raises it.
 *
 * A key built only from immutable functions, with no parameter, keeps its
 * memo for the backend's life (a text column's with the numbers that name
 * its values), shared by the scans that compute the same
 * expression under the same output settings.
 * The next query's GPU then starts with every value the last one met.
 * Redefining any function drops these memos: an immutable SQL function's
 * results may change with its body.  Any other key's memo lasts one scan.
 */
#ifndef GH_SCAN_VALUE_MEMO_H
#define GH_SCAN_VALUE_MEMO_H

#include "../../pg_headers.h"

extern "C" {
#include "access/htup_details.h"
#include "nodes/primnodes.h"
}

namespace gpu_histogram {

/* One value's key: NULL, a word (key_kind.h's word), or bytes (a varlena in the memo's memory). */
struct MemoResult {
    bool isnull;
    int64 word;
    struct varlena *bytes;
};

struct ValueMemo;

/*
 * The expression as the backend's memos name it: its nodes without the
 * query's range table positions and text locations, with the settings
 * under which immutable output functions still answer differently
 * (palloc'd).  Also interval_memo.h's.
 */
char *memo_expression_name(Expr *expr);

/*
 * The memo of key expression expr (of one column): the backend's, where
 * expr is immutable, else a new one in the current memory context.  Once
 * per scan, outside any buffer lock.
 */
ValueMemo *value_memo_open(Expr *expr);

/*
 * The same for a key remembered by the value of a subexpression, inner
 * (derived_key.cpp's inner key): its results are the backend's where the
 * rest of expr is immutable, since the inner key's word names the same
 * inner value under any setting (an hour of the day, a bucket's instant).
 */
ValueMemo *value_memo_open_over(Expr *expr, Node *inner);

/*
 * The numbers of a text column's values (text_ids.h), which are the
 * values this memo remembers results by: made on the first call, they
 * last as long as the memo.
 */
struct TextIds *value_memo_text_ids(ValueMemo *m);

/*
 * Most values one memo remembers: 65,536 values cost 2.5 MB with their
 * index.  Past it, a row's key is evaluated as before, and its page is
 * the host's on the GPU.
 */
constexpr int32 kValueMemoMax = 1 << 16;
/* The most bytes of results one memo keeps (a key of long texts): past them, as past kValueMemoMax. */
constexpr Size kValueMemoBytes = 64 * 1024 * 1024;

/* The result remembered for a row whose column holds value (or is NULL); NULL if none. */
const MemoResult *value_memo_find(ValueMemo *m, bool colnull, int64 value);

/*
 * The same, as the value's number in the memo: 0 for a NULL column, else
 * 1 + its place among the values in the order rows met them, or
 * kNotRemembered.  A number names its value for the memo's life, so a scan
 * can keep what it derives from a value (its group) in an array by number.
 */
constexpr int32 kNotRemembered = -1;
int32 value_memo_number(ValueMemo *m, bool colnull, int64 value);

/*
 * The values near the first one met, by offset: numbers[v - base] is v's
 * number, 0 where v was not met, for kValueMemoDense values from base
 * (numbers is NULL before the first value).  Valid until the next
 * value_memo_add(): a page's loop reads it once and looks each row's
 * value up inline, the others through value_memo_number().
 */
constexpr uint64 kValueMemoDense = 1 << 16;
struct ValueMemoDense {
    int64 base;
    const int32 *numbers;
};
ValueMemoDense value_memo_dense(const ValueMemo *m);

/* The result of a value by its number (not kNotRemembered). */
const MemoResult *value_memo_result(const ValueMemo *m, int32 number);

/*
 * Remembers r for value (bytes copied into the memo's memory); returns
 * the memo's copy.  A full memo remembers nothing more and returns r.
 */
const MemoResult *value_memo_add(ValueMemo *m, bool colnull, int64 value, const MemoResult &r);

/*
 * A key's bytes as a fresh result to remember (value_memo_add copies
 * them): a varlena in cxt, the row's context.
 */
MemoResult memo_bytes_result(MemoryContext cxt, bool isnull, const char *data, int32 len);

/* The values remembered, in increasing order, with their results (n of them, palloc'd). */
int32 value_memo_sorted(ValueMemo *m, int64 **values, const MemoResult ***results);

/* How many values (and NULL) have a result remembered. */
int32 value_memo_count(const ValueMemo *m);

/* The result remembered for a NULL column; NULL if none. */
const MemoResult *value_memo_null(const ValueMemo *m);

/*
 * The numbers a key's page_may_raise() found for a page's tuples, each
 * naming the remembered value (a column's, value_key.cpp; an inner key's,
 * derived_key.cpp) of the tuple at its place, for the pass that groups the
 * same tuples: a value is then looked up once a row, and a caller may keep
 * each number's group (group_key_page_value_numbers).  A visible tuple's
 * TID names its contents for the scan.  A column after a text column is
 * found by walking the tuple: looking each row's value up twice cost a
 * fifth of GROUP BY g % 10 on the development machine.
 */
struct MemoPage {
    const HeapTupleData *tuples; /* the caller's array, which it may have reversed since */
    int n;
    ItemPointerData tids[MaxHeapTuplesPerPage];
    int32 numbers[MaxHeapTuplesPerPage];
};

/* Tuple t's number as page_may_raise() found it (t at its place in that array, or at the reversed one), or kNotRemembered. */
int32 memo_page_number(const MemoPage *p, const HeapTupleData *t);

/* The numbers of tuples[0 .. n), the page found in this order or reversed since; false if they are not that page's. */
bool memo_page_numbers(const MemoPage *p, const HeapTupleData *tuples, int n, int32 *numbers);

} // namespace gpu_histogram

#endif /* GH_SCAN_VALUE_MEMO_H */
