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

#include "../group/group_keys.h"
#include "../quals/native_quals.h"

#include "../../../gpu/specs/grouped_page_spec.h"

/* The tables of every key of one spec, and the key word of each key's slots. */
struct KeyTables {
    int64 *words;     /* the interval tables, as the GPU reads them */
    int32 nwords;
    int32 capacity;
    int64 *slot_words[gh::kMaxPageKeys]; /* slot s of key k has key word slot_words[k][s] */
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

#endif /* GH_SCAN_KEY_TABLES_H */
