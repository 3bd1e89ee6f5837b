/*
 * key_kind.h: one kind of GROUP BY key, behind one interface.
 *
 * Each kind the scan computes (a column, a time bucket, width_bucket,
 * TimescaleDB's time_bucket, ...) is one file that says, for its kind,
 *   - whether an expression is such a key (planner and executor alike);
 *   - how to compute it on the host, row by row, exactly as PostgreSQL does;
 *   - how the GPU places its rows, when it can (a window of stored values or
 *     a table of intervals of the column, key_tables.h);
 *   - how many groups it can make, for the planner's estimate;
 *   - what EXPLAIN calls it.
 * group_keys.cpp holds the list of kinds and asks each in turn; nothing
 * else in the scan needs to know which kinds exist, so a new kind is one
 * more file and one more line in that list.
 */
#ifndef GH_SCAN_KEY_KIND_H
#define GH_SCAN_KEY_KIND_H

#include "../../pg_headers.h"

extern "C" {
#include "access/htup.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
}

namespace gh {
struct PageKey;
}

namespace gpu_histogram {

struct GroupKeyDef;
struct GroupKey;
struct KeyTables;
struct NativeQuals;

/* Which kind a key is: for the few loops that specialize on it (group_agg.cpp's per-row loop). */
enum class KeyKind { column, time, width_bucket, time_bucket, date_field, monotone, by_value, derived, expression };

/* What the GPU's table for a key may know of the rows: the table, its WHERE clause. */
struct KeyRows {
    Oid relid;
    const NativeQuals *quals;
};

/* The smallest and largest value of a key's column over a page's tuples, where none is NULL. */
struct KeySpan {
    bool known;
    int64 lo;
    int64 hi;
};

struct KeyKindOps {
    KeyKind id;
    const char *name;
    /* Whether expr is a key of this kind over table relid; fills out (zeroed by the caller). */
    bool (*recognise)(Expr *expr, Index relid, GroupKeyDef *out);
    /* Run-time set-up after key->def and key->column are set; NULL: none. */
    void (*init)(GroupKey *key, TupleDesc desc, PlanState *parent);
    /* Evaluates the fixed arguments, once per scan (user code: never under a buffer lock); NULL: none. */
    void (*prepare)(GroupKey *key, ExprContext *econtext);
    /* The key of tuple t as a word; false where it is NULL.  May raise PostgreSQL's errors. */
    bool (*word)(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word);
    /*
     * For a key kept as bytes (group_key_is_text): the bytes of tuple t's
     * key, valid until the next call; false where it is NULL.  NULL: a word key.
     */
    bool (*bytes)(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len);
    /*
     * Fills out for the grouped page kernel and adds the key's table to t
     * as key k; false where the GPU cannot place this key's rows.  NULL: the
     * key is always the host's.
     */
    bool (*gpu_table)(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k);
    /* An upper bound on the key's distinct values in the rows the query reads; 0: unknown.  NULL: none. */
    double (*group_bound)(PlannerInfo *root, Index relid, const GroupKeyDef &def);
    /* Whether the key's groups come in its column's order (a table in that order meets each group once). */
    bool follows_column;
    /* A word key's value as a Datum of the key's type; NULL: the word is the Datum's integer or bits. */
    Datum (*datum)(const GroupKey *key, int64 word);
    /* How the key is computed, for EXPLAIN's Key Computation. */
    const char *(*describe)(const GroupKey *key);
    /*
     * Before the host reads rows: a table of the key's intervals by which
     * word() and bytes() place the rows they can instead of evaluating the
     * key (once per scan, in memory that lasts it).  NULL: none.
     */
    void (*host_table)(GroupKey *key, const KeyRows &rows);
    /*
     * Whether computing the key of any of tuples[0 .. n) may raise an
     * error; where it read every tuple's column, their span into *span
     * (else span->known stays false).  NULL: group_keys.cpp decides.
     */
    bool (*page_may_raise)(GroupKey *key, TupleDesc desc, HeapTupleData *tuples, int n, KeySpan *span);
    /*
     * Whether every value of the key's column in [lo, hi] has one key, not
     * NULL, computed without raising; *word is that key.  For a page whose
     * rows all lie in one hour of a time-ordered table.  NULL: never known.
     */
    bool (*span_word)(GroupKey *key, int64 lo, int64 hi, int64 *word);
    /*
     * Where page_may_raise is NULL: the words of the key's column in
     * [*lo, *hi) whose keys are computed without raising, and whether a
     * NULL column's is too (*null_quiet); false where no such range is
     * known yet.  NULL: group_keys.cpp knows the kind's (a time or date
     * field key), or every row may raise.
     */
    bool (*quiet_range)(GroupKey *key, int64 *lo, int64 *hi, bool *null_quiet);
    /*
     * span_word for a key kept as bytes (Grafana's numeric
     * floor(extract(epoch FROM ts)/300)*300): *data and *len are the one
     * key, valid for the scan's life.  NULL: never known.
     */
    bool (*span_bytes)(GroupKey *key, int64 lo, int64 hi, const char **data, int32 *len);
};

/* The kinds, one file each. */
extern const KeyKindOps column_key_kind;       /* column_key.cpp */
extern const KeyKindOps time_key_kind;         /* time_key.cpp: date_trunc, date_bin, ::date */
extern const KeyKindOps width_bucket_key_kind; /* width_bucket_key.cpp */
extern const KeyKindOps tsdb_key_kind;         /* tsdb_key.cpp: TimescaleDB's time_bucket */
extern const KeyKindOps date_field_key_kind;     /* date_field_key.cpp: extract(hour FROM ts), extract(year FROM ts) and the like */
extern const KeyKindOps monotone_key_kind;     /* monotone_key.cpp: floor(extract(epoch FROM ts)/60)*60 and the like */
extern const KeyKindOps value_key_kind;        /* value_key.cpp: g % 10, g::text and the like, once per value */
extern const KeyKindOps derived_key_kind;      /* derived_key.cpp: CAST(extract(hour FROM ts) AS integer), once per hour */
extern const KeyKindOps expression_key_kind;   /* expression_key.cpp: any other, by the executor */

} // namespace gpu_histogram

#endif /* GH_SCAN_KEY_KIND_H */
