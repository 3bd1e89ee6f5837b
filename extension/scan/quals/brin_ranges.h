/*
 * brin_ranges.h: the block ranges a BRIN index leaves for the scan's WHERE
 * clause.
 *
 * A dashboard's time range (`ts >= $1 AND ts < $2`) over a table in time
 * order touches a small share of its blocks.  When the table has a BRIN
 * index on such a column, the scan asks the index, once per scan, which
 * block ranges may hold matching rows (index_getbitmap, as a Bitmap Heap
 * Scan does) and reads only those blocks, serially and in each participant
 * of a parallel scan.  Every tuple of a block it reads still goes through
 * the whole WHERE clause, so the index only ever removes blocks that have
 * no matching row: its ranges are lossy, never wrong.
 *
 * The clauses used are `column op value` (either way round) on one of the
 * index's columns, op a member of the column's operator family with a
 * btree strategy (<, <=, =, >=, >), the value fixed for the scan
 * (fixed_exprs.h).  Planning and execution use the same test.  Under
 * row-level security only clauses whose operator is leakproof are used,
 * as the planner allows for index conditions: the index tests them on
 * summaries of rows the policies may hide, before the policies' quals.
 */
#ifndef GH_SCAN_BRIN_RANGES_H
#define GH_SCAN_BRIN_RANGES_H

#include "../../pg_headers.h"

extern "C" {
#include "access/skey.h"
#include "nodes/execnodes.h"
#include "utils/snapshot.h"
}

namespace gpu_histogram {

/*
 * clause as `column op value` on table varno: *attno, *opno (commuted when
 * the column is on the right) and *value.  false for anything else, and
 * with leakproof_only for an operator that is not leakproof.
 */
bool brin_clause_parts(Expr *clause, Index varno, bool leakproof_only, AttrNumber *attno, Oid *opno, Expr **value);

/* op's btree strategy (<, <=, =, >=, >) in opfamily, or 0. */
int16 brin_search_strategy(Oid opno, Oid opfamily);

/*
 * The column of an index (ncolumns key columns, each a table attribute in
 * keys[] and an operator family in opfamilies[]) that clause can search:
 * its 1-based number, or 0; *strategy is the operator's.  Keys come as the
 * relcache's AttrNumbers or the planner's ints.
 */
template <typename Key>
int brin_clause_column(Expr *clause, Index varno, bool leakproof_only, int ncolumns, const Key *keys,
                       const Oid *opfamilies, int16 *strategy)
{
    AttrNumber attno;
    Oid opno;
    Expr *value;
    if (!brin_clause_parts(clause, varno, leakproof_only, &attno, &opno, &value))
        return 0;
    for (int col = 0; col < ncolumns; col++) {
        if (keys[col] != attno)
            continue;
        *strategy = brin_search_strategy(opno, opfamilies[col]);
        if (*strategy != 0)
            return col + 1;
    }
    return 0;
}

struct BrinRanges {
    Oid index;             /* the BRIN index, or InvalidOid: every block is read */
    int nkeys;
    ScanKeyData *keys;     /* their arguments set by brin_ranges_prepare() */
    ExprState **values;    /* each key's value */
    uint8 *blocks;         /* the blocks to read, a bit each, or NULL before prepare */
    BlockNumber nblocks;   /* blocks the bitmap covers; later ones are read */
    uint64 ranges_read;    /* EXPLAIN: the block ranges the index left ... */
    uint64 ranges_total;   /* ... of all */
};

/*
 * Picks the table's BRIN index with the most clauses of quals (an
 * implicit-AND list whose Vars of varno are rel's attributes) it can
 * search, and prepares its scan keys; out->index is InvalidOid when none
 * qualifies.
 */
void brin_ranges_build(List *quals, Index varno, Relation rel, PlanState *parent, BrinRanges *out);

/*
 * For one scan of rel under snapshot: evaluates the values (user code: no
 * buffer lock is held) and asks the index which blocks to read.  A NULL
 * value leaves no block (the operators are strict).
 */
void brin_ranges_prepare(BrinRanges *b, Relation rel, Snapshot snapshot, ExprContext *econtext);

} // namespace gpu_histogram

#endif /* GH_SCAN_BRIN_RANGES_H */
