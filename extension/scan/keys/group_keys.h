/*
 * group_keys.h: the GROUP BY keys GpuHistogramScan computes itself.
 *
 * Each kind of key is a file behind key_kind.h's interface; this is the
 * one door the rest of the scan uses.  Today a key is one of
 *   - a plain column of int2, int4, int8, bool, date, timestamp,
 *     timestamptz, or text/varchar under a deterministic collation (whose
 *     equality is byte equality);
 *   - a time bucket of a timestamp or timestamptz column: date_trunc(unit,
 *     ts) with a constant unit (and date_trunc(unit, ts, zone) with a
 *     constant zone), date_bin(stride, ts, origin), ts::date, and
 *     date_trunc and ::date of ts AT TIME ZONE a constant zone (time_keys.h);
 *   - width_bucket(y, lo, hi, n) over a float8 column (or int2, int4, int8,
 *     float4 under the implicit cast): the second axis of a 2-D histogram;
 *   - TimescaleDB's time_bucket(width, ts, ...) over a timestamptz,
 *     timestamp or date column, where TimescaleDB is installed
 *     (tsdb_bucket.h);
 *   - extract or date_part of a field of the local date or time (hour,
 *     dow, year, ...) of a timestamp or timestamptz column, or of ts AT
 *     TIME ZONE a constant zone (date_field_key.cpp);
 *   - an expression that never decreases as its one timestamp or integer
 *     column grows, such as Grafana's floor(extract(epoch FROM ts)/60)*60,
 *     evaluated by the executor on the host and placed by a table of
 *     intervals on the GPU (monotone_key.cpp);
 *   - any other expression of one int2, int4, int8, bool or date column,
 *     evaluated by the executor once for each value rows hold, and placed
 *     by a table of those values on the GPU (value_key.cpp);
 *   - an expression of one of the time keys or date fields above, such as
 *     CAST(extract(hour FROM ts) AS integer), evaluated by the executor
 *     once for each value of the inner key rows hold (derived_key.cpp);
 *   - any other expression of the table's columns that is not volatile,
 *     is parallel safe and of a type whose equal values have equal bytes,
 *     evaluated by the executor (expression_key.cpp).
 * Arguments other than the column are fixed for the scan (fixed_exprs.h)
 * and evaluated once, at the first row, as the bounds of gpu_histogram are.
 * The planner checks each GROUP BY expression with group_key_parse(); the
 * executor parses the same expressions again from the plan.  Each row's key
 * comes out as a 64-bit word (the value's integer representation, a float's
 * bits, a date field) or bytes (text, numeric), or NULL: NULL keys form their own group, as in GROUP BY.
 */
#ifndef GH_SCAN_GROUP_KEYS_H
#define GH_SCAN_GROUP_KEYS_H

#include "../heap/heap_reader.h"
#include "key_kind.h"
#include "time_keys.h"
#include "tsdb_bucket.h"

#include "../../../gpu/formulas/bucket.h"

namespace gpu_histogram {

/* One GROUP BY expression, taken apart. */
struct GroupKeyDef {
    const KeyKindOps *ops; /* its kind (key_kind.h) */
    KeyKind kind;          /* ops->id */
    bool as_bytes;         /* kept as bytes (text, a numeric expression), not a word */
    AttrNumber attno;   /* the column it reads */
    Oid coltype;        /* that column's type */
    Oid keytype;        /* the key's type */
    TimeKeyKind time_kind;
    int unit;           /* date_trunc's DTK_ unit; a date field key's field */
    Const *unit_text;   /* date_trunc's unit */
    Const *zone_text;   /* date_trunc's zone in its three-argument form, or the zone of ts AT TIME ZONE zone */
    bool local_time;    /* the key is of ts AT TIME ZONE zone_text (or ts::timestamp: NULL), a local timestamp */
    Expr *args[3];      /* date_bin: stride, origin; width_bucket: lo, hi, n */
    Expr *expr;         /* the whole key, for a kind the executor evaluates (expression_key.cpp) */
    GroupKeyDef *inner; /* a derived key's inner time key (derived_key.cpp) */
    TsdbBucketDef tsdb; /* time_bucket */
};

/* Whether expr is a key of table relid the scan computes; fills *out. */
bool group_key_parse(Expr *expr, Index relid, GroupKeyDef *out);

/* A key at run time. */
struct GroupKey {
    GroupKeyDef def;
    HeapColumn column;
    ExprState *arg_states[5];
    TimeKey time;
    TsdbBucket tsdb;
    /* width_bucket: its arguments, and the fast path once PostgreSQL accepted them */
    bool wb_null;       /* a NULL bound or count: every key is NULL */
    Datum wb_lo, wb_hi, wb_n;
    bool wb_checked;    /* PostgreSQL's function ran once without error */
    bool wb_fast;       /* ... and bucket.h reproduces it for these arguments */
    gh::BucketSpec wb_spec;
    /* a key the executor evaluates: its state, the slot the tuple goes into, the context of each row */
    ExprState *expr_state;
    TupleTableSlot *slot;
    ExprContext *row_context;
    uint64 executor_rows; /* rows it was evaluated on (EXPLAIN ANALYZE) */
    struct MonotoneState *monotone; /* a monotone key: its GPU table's search (monotone_key.cpp) */
    struct ValueMemo *memo;         /* a key by value: each value's key (value_memo.h) ... */
    struct MemoPage *value_page;     /* ... and the numbers of the page it looked at last (a derived key's too); */
    struct TextIds *text_ids;        /* of a text column: the numbers its values are remembered by */
    GroupKey *inner;                 /* a derived key's inner time key, computed as its kind computes it */
    /* a date field: the zone's offset, and the last local day's date fields */
    TzOffsetCache tzc;
    bool zone_by_postgres; /* of ts AT TIME ZONE a zone only PostgreSQL's functions resolve: every row theirs */
    int64 day;
    int64 day_value;
    bool have_day;
};

/* Sets up key from def for the table's descriptor; expressions initialized under parent. */
void group_key_init(GroupKey *key, const GroupKeyDef &def, TupleDesc desc, PlanState *parent);

/*
 * Evaluates the key's fixed arguments (user code: never under a buffer
 * lock); once per scan, and again on a rescan.
 */
void group_key_prepare(GroupKey *key, ExprContext *econtext);

/* Whether the key is kept as bytes (text, or a numeric expression): read with group_key_bytes(), else group_key_word(). */
static inline bool group_key_is_text(const GroupKey *key)
{
    return key->def.as_bytes;
}

/*
 * The key of tuple t as a word; false if it is NULL.  May call PostgreSQL's
 * functions, which may raise their errors (date_bin's stride, width_bucket's
 * bounds, a NaN).
 */
bool group_key_word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word);

/*
 * Whether computing the key of any of tuples[0 .. n) may raise an error.
 * A plain column never does; a time or date field key only near the ends of
 * the timestamp range (or, for date_trunc, in a zone only PostgreSQL
 * resolves); any other kind may (an expression's division, say).  A scan
 * computes the keys of a page where one may raise in the rows' order,
 * between each row's WHERE clause and its aggregates, as the ordinary plan
 * does (group_agg.h).  Where it read every tuple's column (a time, date
 * field or interval-table key), their span comes back in *span (known only
 * where none was NULL).
 */
bool group_key_page_may_raise(GroupKey *key, TupleDesc desc, HeapTupleData *tuples, int n, KeySpan *span);

/*
 * Whether every tuple whose column lies in span has one key, not NULL;
 * *word is that key.  The key is then computed once for a page whose rows
 * lie in one hour, not once a row.
 */
bool group_key_span_word(GroupKey *key, const KeySpan &span, int64 *word);

/* group_key_span_word() for a key kept as bytes; *data stays valid for the scan's life. */
bool group_key_span_bytes(GroupKey *key, const KeySpan &span, const char **data, int32 *len);

/*
 * What group_key_page_may_raise() finds of a page whose column's values,
 * none NULL, span exactly [least, most], without its tuples: true where
 * no key of theirs may raise, and group_key_span_word() may then find
 * their one key.  False where only the tuples could tell (a key by value,
 * an expression).  For a page read whole in one pass (group_page.cpp).
 */
bool group_key_span_quiet(GroupKey *key, int64 least, int64 most);

/* Whether the key may have one value over a span (a time or date field key). */
static inline bool group_key_has_spans(const GroupKey *key)
{
    return key->def.ops->span_word != NULL;
}

/*
 * For a key by value (value_key.cpp), or a derived key (derived_key.cpp),
 * whose page_may_raise() found every value of tuples[0 .. n) remembered,
 * in this order or reversed since:
 * each tuple's value's number in the key's memo (value_memo.h), which names
 * that value, and so its key, for the scan's life.  false for any other
 * key or array.  A caller keeps each number's group, and finds a tuple's
 * group without computing or hashing its key.
 */
bool group_key_page_value_numbers(const GroupKey *key, const HeapTupleData *tuples, int n, int32 *numbers);

/* The key of tuple t as bytes (detoasted in the current context); false if NULL. */
bool group_key_bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len);

/*
 * Before the host reads the rows of table rows.relid: whatever lets the key
 * place them without evaluating it row by row (a monotone key's intervals);
 * once per scan, outside any buffer lock, in memory that lasts the scan.
 */
void group_key_host_table(GroupKey *key, const KeyRows &rows);

/* A key word back as a Datum of the key's type. */
Datum group_key_datum(const GroupKey *key, int64 word);

/* How the key is computed, for EXPLAIN: "column", "date_trunc hour, UTC", ... */
const char *group_key_describe(const GroupKey *key);

} // namespace gpu_histogram

#endif /* GH_SCAN_GROUP_KEYS_H */
