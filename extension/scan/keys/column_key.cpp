/*
 * column_key.cpp: a plain column as a GROUP BY key (key_kind.h).
 *
 * int2, int4, int8, bool, date, timestamp and timestamptz are their stored
 * words; text and varchar are their bytes, only under a deterministic
 * collation, whose equality is byte equality.  On the GPU an integer-like
 * column is a window of stored values, one slot each, over the range its
 * statistics and the WHERE clause give.
 */
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"

extern "C" {
#include "access/htup_details.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
}

namespace gpu_histogram {

namespace {

bool plain_column(const Var *v, GroupKeyDef *out)
{
    if (!key_type_kept_as_is(v->vartype, v->varcollid))
        return false;
    out->attno = v->varattno;
    out->coltype = out->keytype = v->vartype;
    out->as_bytes = v->vartype == TEXTOID || v->vartype == VARCHAROID;
    return true;
}

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    const Var *v;
    if (key_table_var(expr, relid, &v))
        return plain_column(v, out);
    if (!IsA(expr, RelabelType))
        return false;
    /* text COLLATE "C", as the planner leaves it: the collation decides equality */
    const RelabelType *r = reinterpret_cast<const RelabelType *>(expr);
    if (!key_table_var(r->arg, relid, &v) || (v->vartype != TEXTOID && v->vartype != VARCHAROID) ||
        (r->resulttype != TEXTOID && r->resulttype != VARCHAROID))
        return false;
    Var with = *v;
    with.varcollid = r->resultcollid;
    if (!plain_column(&with, out))
        return false;
    out->keytype = r->resulttype;
    return true;
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *word)
{
    return heap_column_word(key->column, desc, t, word);
}

bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    const HeapColumn &col = key->column;
    int64 lo, hi;
    if (col.type == BOOLOID) {
        lo = 0; /* false and true: every value, whatever the statistics say */
        hi = 1;
    } else if (col.type != INT2OID && col.type != INT4OID && col.type != INT8OID && col.type != DATEOID) {
        return false;
    } else if (!key_rows_range(rows, col, &lo, &hi) || static_cast<__int128>(hi) - lo + 1 > kMaxKeySlots) {
        return false;
    }
    out->kind = gh::PageKeyKind::column;
    out->base = lo;
    out->slots = static_cast<uint32>(hi - lo + 1);
    int64 *words = static_cast<int64 *>(palloc(sizeof(int64) * out->slots));
    for (uint32 s = 0; s < out->slots; s++)
        words[s] = lo + s;
    t->slot_words[k] = words;
    return true;
}

/* text and varchar: the stored bytes, detoasted */
bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    bool isnull;
    Datum d = heap_getattr(t, key->def.attno, desc, &isnull);
    if (isnull)
        return false;
    struct varlena *v = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(d)));
    *data = VARDATA_ANY(v);
    *len = VARSIZE_ANY_EXHDR(v);
    return true;
}

const char *describe(const GroupKey *)
{
    return "column";
}

} // namespace

const KeyKindOps column_key_kind = {
    KeyKind::column, "column", recognise, NULL, NULL, word, bytes, gpu_table, NULL, true, NULL, describe,
};

} // namespace gpu_histogram
