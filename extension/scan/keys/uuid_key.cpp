/*
 * uuid_key.cpp: a uuid column as a GROUP BY key (key_kind.h), an IoT
 * table's `GROUP BY device_id`.
 *
 * uuid_eq compares the 16 bytes, so equal keys are equal bytes: the group
 * table keeps the key as bytes, as it keeps a text column's, and the row
 * it emits carries a uuid made of them (group_rows.cpp).  The bytes are
 * read in place where the tuple stores them at a known place.  The GPU
 * does not place these rows (its dictionaries match varlena values): the
 * host groups them, on its own rows and pages, where the ordinary plan
 * sorted or hashed every row.
 */
#include "group_keys.h"
#include "key_helpers.h"

extern "C" {
#include "access/htup_details.h"
#include "utils/lsyscache.h"
#include "utils/uuid.h"
}

namespace gpu_histogram {

namespace {

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    const Var *v;
    if (!key_table_var(expr, relid, &v) || heap_stored_type(v->vartype) != UUIDOID)
        return false;
    out->attno = v->varattno;
    out->coltype = out->keytype = UUIDOID;
    out->as_bytes = true;
    return true;
}

bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
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

/* Reading 16 bytes raises nothing. */
bool page_may_raise(GroupKey *, TupleDesc, HeapTupleData *, int, KeySpan *)
{
    return false;
}

const char *describe(const GroupKey *)
{
    return "column, as its 16 bytes";
}

} // namespace

const KeyKindOps uuid_key_kind = {
    KeyKind::column, "uuid column", recognise, NULL, NULL, NULL, bytes, NULL, NULL, false, NULL, describe,
    NULL,            page_may_raise,
};

} // namespace gpu_histogram
