/*
 * brin_ranges.cpp: asking a BRIN index which blocks to read (brin_ranges.h).
 */
#include "brin_ranges.h"

#include "fixed_exprs.h"

extern "C" {
#include "access/brin.h"
#include "access/genam.h"
#include "access/relation.h"
#include "catalog/pg_am.h"
#include "executor/executor.h"
#include "nodes/tidbitmap.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/rel.h"
}
#include "../../pg_compat.h"

namespace gpu_histogram {

bool brin_clause_parts(Expr *clause, Index varno, bool leakproof_only, AttrNumber *attno, Oid *opno, Expr **value)
{
    if (!IsA(clause, OpExpr) || list_length(reinterpret_cast<OpExpr *>(clause)->args) != 2)
        return false;
    OpExpr *op = reinterpret_cast<OpExpr *>(clause);
    Node *left = static_cast<Node *>(linitial(op->args));
    Node *right = static_cast<Node *>(lsecond(op->args));
    Oid oper = op->opno;
    if (!IsA(left, Var)) {
        std::swap(left, right);
        oper = get_commutator(oper);
        if (!OidIsValid(oper))
            return false;
    }
    if (!IsA(left, Var))
        return false;
    Var *var = reinterpret_cast<Var *>(left);
    if (var->varno != static_cast<int>(varno) || var->varlevelsup != 0 || var->varattno <= 0 ||
        !fixed_for_scan(right))
        return false;
    if (leakproof_only && !get_func_leakproof(get_opcode(oper)))
        return false;
    *attno = var->varattno;
    *opno = oper;
    *value = reinterpret_cast<Expr *>(right);
    return true;
}

int16 brin_search_strategy(Oid opno, Oid opfamily)
{
    int s = get_op_opfamily_strategy(opno, opfamily);
    return s >= BTLessStrategyNumber && s <= BTGreaterStrategyNumber ? static_cast<int16>(s) : 0;
}

namespace {

int index_column(Relation index, Expr *clause, Index varno, bool leakproof_only, int16 *strategy)
{
    return brin_clause_column(clause, varno, leakproof_only, index->rd_index->indnkeyatts,
                              index->rd_index->indkey.values, index->rd_opfamily, strategy);
}

} // namespace

void brin_ranges_build(List *quals, Index varno, Relation rel, PlanState *parent, BrinRanges *out)
{
    *out = BrinRanges{};
    out->index = InvalidOid;
    if (quals == NIL || !rel->rd_rel->relhasindex)
        return;
    bool leakproof_only = check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED;
    List *indexes = RelationGetIndexList(rel);
    int best = 0;
    ListCell *lc;
    foreach (lc, indexes) {
        Relation index = index_open(lfirst_oid(lc), AccessShareLock);
        if (index->rd_rel->relam == BRIN_AM_OID && index->rd_index->indisvalid) {
            int usable = 0;
            ListCell *qc;
            foreach (qc, quals) {
                int16 strategy;
                usable += index_column(index, static_cast<Expr *>(lfirst(qc)), varno, leakproof_only, &strategy) > 0;
            }
            if (usable > best) {
                best = usable;
                out->index = RelationGetRelid(index);
            }
        }
        index_close(index, AccessShareLock);
    }
    if (best == 0)
        return;
    Relation index = index_open(out->index, AccessShareLock);
    out->keys = static_cast<ScanKeyData *>(palloc0(sizeof(ScanKeyData) * best));
    out->values = static_cast<ExprState **>(palloc0(sizeof(ExprState *) * best));
    foreach (lc, quals) {
        Expr *clause = static_cast<Expr *>(lfirst(lc));
        int16 strategy;
        int col = index_column(index, clause, varno, leakproof_only, &strategy);
        if (col == 0)
            continue;
        AttrNumber attno;
        Oid opno;
        Expr *value;
        brin_clause_parts(clause, varno, leakproof_only, &attno, &opno, &value);
        int op_strategy;
        Oid lefttype, righttype;
        get_op_opfamily_properties(opno, index->rd_opfamily[col - 1], false, &op_strategy, &lefttype, &righttype);
        strategy = static_cast<int16>(op_strategy);
        ScanKeyEntryInitialize(&out->keys[out->nkeys], 0, static_cast<AttrNumber>(col), strategy, righttype,
                               index->rd_indcollation[col - 1], get_opcode(opno), (Datum)0);
        out->values[out->nkeys] = ExecInitExpr(value, parent);
        out->nkeys++;
    }
    index_close(index, AccessShareLock);
}

void brin_ranges_prepare(BrinRanges *b, Relation rel, Snapshot snapshot, ExprContext *econtext)
{
    if (!OidIsValid(b->index))
        return;
    b->nblocks = RelationGetNumberOfBlocks(rel);
    Size bytes = b->nblocks / 8 + 1;
    if (b->blocks == NULL)
        b->blocks = static_cast<uint8 *>(MemoryContextAlloc(econtext->ecxt_per_query_memory, bytes));
    else
        b->blocks = static_cast<uint8 *>(repalloc(b->blocks, bytes));
    memset(b->blocks, 0, bytes);
    b->ranges_read = 0;
    b->ranges_total = 0;
    /* in the per-tuple memory, reset below: the keys are read only by the index scan here */
    bool no_row = false;
    for (int k = 0; k < b->nkeys; k++) {
        bool isnull;
        Datum d = ExecEvalExprSwitchContext(b->values[k], econtext, &isnull);
        no_row = no_row || isnull;
        b->keys[k].sk_argument = d;
    }
    if (no_row) {
        ResetExprContext(econtext);
        return;
    }
    Relation index = index_open(b->index, AccessShareLock);
    BlockNumber per_range = BrinGetPagesPerRange(index);
    b->ranges_total = (b->nblocks + per_range - 1) / per_range;
    TIDBitmap *tbm = tbm_create(work_mem * INT64CONST(1024), NULL);
    IndexScanDesc scan = GH_INDEX_BEGINSCAN_BITMAP(index, snapshot, b->nkeys);
    index_rescan(scan, b->keys, b->nkeys, NULL, 0);
    index_getbitmap(scan, tbm);
    index_endscan(scan);
    GhTbmIterator *it = GH_TBM_BEGIN(tbm);
    BlockNumber last_range = InvalidBlockNumber;
    BlockNumber block;
    while (GH_TBM_NEXT(it, &block)) {
        if (block >= b->nblocks)
            continue;
        b->blocks[block / 8] |= static_cast<uint8>(1 << (block % 8));
        if (block / per_range != last_range) {
            last_range = block / per_range;
            b->ranges_read++;
        }
    }
    GH_TBM_END(it);
    tbm_free(tbm);
    index_close(index, AccessShareLock);
    ResetExprContext(econtext);
}

} // namespace gpu_histogram
