/*
 * column_key.cpp: a plain column as a GROUP BY key (key_kind.h).
 *
 * int2, int4, int8, bool, date, timestamp and timestamptz are their stored
 * words; text and varchar are their bytes, only under a deterministic
 * collation, whose equality is byte equality; a uuid (an IoT table's
 * device) its 16 bytes, which uuid_eq compares.  On the GPU an
 * integer-like column is a window of stored values, one slot each, over
 * the range its statistics and the WHERE clause give; a text or uuid
 * column a dictionary of the values the host has met (text_memo.h) and
 * its statistics name, a uuid's bytes matched in place.
 */
#include "group_keys.h"
#include "key_helpers.h"
#include "key_tables.h"
#include "text_memo.h"

#include <algorithm>

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/uuid.h"
}

namespace gpu_histogram {

namespace {

/* An enum is by value (value_key.cpp): its labels' OIDs are few, but far from a window's worth apart. */
bool plain_column(const Var *v, GroupKeyDef *out)
{
    const Oid type = heap_stored_type(v->vartype); /* a domain's base type */
    if ((type != UUIDOID && !key_type_kept_as_is(v->vartype, v->varcollid)) || type_is_enum(getBaseType(v->vartype)))
        return false;
    out->attno = v->varattno;
    out->coltype = out->keytype = type;
    out->as_bytes = type == TEXTOID || type == VARCHAROID || type == UUIDOID;
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

/*
 * The values the column's statistics name, most common values and
 * histogram bounds, as varlenas: a text's detoasted, a uuid's 16 bytes
 * (uuid, true) put under a header.
 */
void statistics_values(Oid relid, AttrNumber attno, bool uuid, struct varlena ***values, int32 *n, int32 *cap)
{
    HeapTuple tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attno),
                                      BoolGetDatum(false));
    if (!HeapTupleIsValid(tuple))
        return;
    for (int kind : {STATISTIC_KIND_MCV, STATISTIC_KIND_HISTOGRAM}) {
        AttStatsSlot slot;
        if (!get_attstatsslot(&slot, tuple, kind, InvalidOid, ATTSTATSSLOT_VALUES))
            continue;
        for (int i = 0; i < slot.nvalues; i++) {
            if (*n == *cap) {
                *cap *= 2;
                *values = static_cast<struct varlena **>(repalloc(*values, sizeof(struct varlena *) * *cap));
            }
            if (uuid) {
                struct varlena *v = static_cast<struct varlena *>(palloc(VARHDRSZ + UUID_LEN));
                SET_VARSIZE(v, VARHDRSZ + UUID_LEN);
                memcpy(VARDATA(v), DatumGetPointer(slot.values[i]), UUID_LEN);
                (*values)[(*n)++] = v;
            } else {
                (*values)[(*n)++] = pg_detoast_datum_copy(reinterpret_cast<struct varlena *>(DatumGetPointer(slot.values[i])));
            }
        }
        free_attstatsslot(&slot);
    }
    ReleaseSysCache(tuple);
}

/*
 * A text column: a dictionary (grouped_page_spec.h's PageKeyKind::text) of
 * the values remembered for it and those of its statistics, each its own
 * slot.  A row with a value outside it goes to the host, which counts it
 * and, at the scan's end, remembers its value (grouped_pages.cpp).
 */
bool text_dictionary(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    struct varlena *const *remembered;
    const int32 nremembered = text_memo_values(rows.relid, key->def.attno, &remembered);
    int32 n = 0, cap = Max(nremembered + 256, 256);
    struct varlena **values = static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * cap));
    for (int32 i = 0; i < nremembered; i++)
        values[n++] = remembered[i];
    statistics_values(rows.relid, key->def.attno, key->def.coltype == UUIDOID, &values, &n, &cap);
    std::sort(values, values + n, [](const struct varlena *a, const struct varlena *b) { return text_key_order(a, b) < 0; });
    int32 kept = 0;
    for (int32 i = 0; i < n; i++) {
        const int64 len = static_cast<int64>(VARSIZE_ANY_EXHDR(values[i]));
        if (len > gh::kMaxTextKeyBytes || (kept > 0 && text_key_order(values[kept - 1], values[i]) == 0))
            continue;
        values[kept++] = values[i];
    }
    if (kept == 0 || kept > kMaxKeySlots)
        return false;
    int64 *slots = static_cast<int64 *>(palloc(sizeof(int64) * kept));
    for (int32 i = 0; i < kept; i++)
        slots[i] = i; /* each value its own group */
    if (!key_tables_add_dictionary(t, values, slots, kept, out))
        return false;
    out->slots = static_cast<uint32>(kept);
    out->null_host = 0; /* a NULL column is the NULL key */
    t->slot_values[k] = values; /* slot s is values[s] */
    return true;
}

bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    const HeapColumn &col = key->column;
    if (key->def.as_bytes)
        return text_dictionary(key, rows, out, t, k);
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

/* text and varchar: the stored bytes, detoasted; a uuid's 16, in place */
bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    if (key->def.coltype == UUIDOID) {
        const char *p = heap_column_data(key->column, t->t_data);
        if (p == NULL) {
            bool isnull;
            const Datum d = heap_getattr(t, key->def.attno, desc, &isnull);
            if (isnull)
                return false;
            p = reinterpret_cast<const char *>(DatumGetPointer(d));
        }
        *data = p;
        *len = UUID_LEN;
        return true;
    }
    /* a value stored inline and uncompressed is read in place; heap_getattr() knew no faster way to it */
    const char *p = key->column.len == -1 ? heap_column_varlena(key->column, t->t_data) : NULL;
    if (p != NULL && !VARATT_IS_EXTERNAL(p) && !VARATT_IS_COMPRESSED(p)) {
        *data = VARDATA_ANY(p);
        *len = static_cast<int32>(VARSIZE_ANY_EXHDR(p));
        return true;
    }
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
