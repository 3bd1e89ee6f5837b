/*
 * value_key.cpp: a GROUP BY key that is an expression of one int2, int4,
 * int8, bool, date or enum column, such as g % 10, g / 10, g::text or
 * CASE WHEN g < 50 THEN 'low' ELSE 'high' END, or of one text or varchar
 * column, such as lower(host) or split_part(device_id, '-', 1), or an
 * enum column itself (GROUP BY status), whose labels are stored as OIDs
 * too far apart for column_key.cpp's window (key_kind.h).
 *
 * Such a key has one result per value of its column, and the column holds
 * few values under many rows.  So PostgreSQL's executor evaluates the key
 * at the first row that holds each value, in the rows' order, and the
 * result is remembered (value_memo.h) for every later row with that value.
 * Every other row's key is then a lookup: on the development machine,
 * GROUP BY g % 10 over 10M rows went from 0.9x count(x) to the speed of
 * GROUP BY g.  The key never sees a value that no row holds, and a row
 * whose key raises an error raises it where the ordinary plan would: the
 * first row with that value.
 *
 * The GPU gets the memo as a table of intervals of the column: each value
 * remembered is an interval of its own with its key's group, and the
 * values between are the host's.  A row whose value the memo does not
 * hold sends its page back, the host evaluates it, and the memo grows.
 * An immutable key's memo outlives the query, so a dashboard's next
 * refresh finds the table full from its first page.
 *
 * A text column's values are remembered by the numbers the memo gives
 * them (text_ids.h): GROUP BY lower(host) over 10M rows took 3.8 s
 * evaluating the key at every row, 8 times GROUP BY host.  Its GPU table
 * is a text column's dictionary (column_key.cpp) of the values remembered,
 * each with its key's group.
 */
#include "expression_bound.h"
#include "expression_key.h"
#include "key_tables.h"
#include "text_ids.h"
#include "text_memo.h"
#include "value_memo.h"

extern "C" {
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/bitmapset.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

#include <algorithm>

namespace gpu_histogram {

namespace {

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    /* a bare column is column_key.cpp's, but an enum's (GROUP BY status), whose labels' OIDs are few but apart */
    if ((IsA(expr, Var) && !type_is_enum(getBaseType(reinterpret_cast<Var *>(expr)->vartype))) ||
        !expression_key_recognise(expr, relid, out, false))
        return false;
    Bitmapset *columns = NULL;
    pull_varattnos(reinterpret_cast<Node *>(expr), relid, &columns);
    const bool one = bms_num_members(columns) == 1;
    bms_free(columns);
    if (!one)
        return false;
    switch (out->coltype) {
    case INT2OID:
    case INT4OID:
    case INT8OID:
    case BOOLOID:
    case DATEOID:
    case TEXTOID:
    case VARCHAROID: return true;
    }
    return false;
}

void init(GroupKey *key, TupleDesc desc, PlanState *parent)
{
    expression_key_init(key, desc, parent);
    const bool text = key->column.len == -1;
    key->memo = value_memo_open(key->def.expr);
    key->text_ids = text ? value_memo_text_ids(key->memo) : NULL;
    key->value_page = static_cast<MemoPage *>(palloc0(sizeof(MemoPage)));
}

/*
 * The word tuple t's value of the key's column is remembered by: the value
 * itself for an integer-like column, its number (text_ids.h) for a text
 * one; false for NULL.  *unnamed: a text value with no number, past the
 * table's bound or, where in_place, stored compressed or out of line
 * (which a page's first pass does not detoast).
 */
bool column_value(GroupKey *key, TupleDesc desc, HeapTupleData *t, bool in_place, int64 *value, bool *unnamed)
{
    *unnamed = false;
    if (key->text_ids == NULL)
        return heap_column_word(key->column, desc, t, value);
    struct varlena *v = reinterpret_cast<struct varlena *>(const_cast<char *>(heap_column_varlena(key->column, t->t_data)));
    if (v == NULL) { /* a tuple with NULLs, or stored before the column was added */
        bool isnull;
        const Datum d = heap_getattr(t, key->def.attno, desc, &isnull);
        if (isnull)
            return false;
        v = reinterpret_cast<struct varlena *>(DatumGetPointer(d));
    }
    struct varlena *plain = v;
    if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) {
        if (in_place) {
            *unnamed = true;
            return true;
        }
        plain = pg_detoast_datum_packed(v);
    }
    *value = text_ids_number(key->text_ids, VARDATA_ANY(plain), static_cast<int32>(VARSIZE_ANY_EXHDR(plain)));
    *unnamed = *value < 0;
    if (plain != v)
        pfree(plain); /* the numbers keep their own copy: a copy a row would pile up over the scan */
    return true;
}

/*
 * The remembered key of tuple t's value, or NULL: *colnull and *value say
 * which value that is, and *unnamed that it has no word to be remembered
 * by (text_ids.h's bound).
 */
const MemoResult *remembered(GroupKey *key, TupleDesc desc, HeapTupleData *t, bool *colnull, int64 *value,
                             bool *unnamed)
{
    *unnamed = false;
    const int32 number = memo_page_number(key->value_page, t);
    if (number != kNotRemembered)
        return value_memo_result(key->memo, number); /* (a remembered key needs no value) */
    *value = 0;
    *colnull = !column_value(key, desc, t, false, value, unnamed);
    return *unnamed ? NULL : value_memo_find(key->memo, *colnull, *value);
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *out)
{
    bool colnull = false, unnamed = false;
    int64 value = 0;
    const MemoResult *r = remembered(key, desc, t, &colnull, &value, &unnamed);
    MemoResult fresh{};
    if (r == NULL)
        r = expression_key_remember(key, desc, t, colnull, value, !unnamed, &fresh);
    if (r->isnull)
        return false;
    *out = r->word;
    return true;
}

bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    bool colnull = false, unnamed = false;
    int64 value = 0;
    const MemoResult *r = remembered(key, desc, t, &colnull, &value, &unnamed);
    MemoResult fresh{};
    if (r == NULL)
        r = expression_key_remember(key, desc, t, colnull, value, !unnamed, &fresh);
    if (r->isnull)
        return false;
    *data = VARDATA_ANY(r->bytes);
    *len = static_cast<int32>(VARSIZE_ANY_EXHDR(r->bytes));
    return true;
}

/*
 * A page's keys can raise only where a row holds a value the memo does
 * not.  Where every row's is remembered, the keys found are kept for the
 * pass that groups the rows.
 */
bool page_may_raise(GroupKey *key, TupleDesc desc, HeapTupleData *tuples, int n, KeySpan *)
{
    MemoPage *p = key->value_page;
    p->n = 0;
    /*
     * From the last tuple to the first: this is the page's first touch of
     * them, and tuples fill a page from its end, so this reads at rising
     * addresses, which the prefetcher follows.
     */
    const ValueMemoDense dense = value_memo_dense(key->memo); /* nothing is added here */
    const bool text = key->text_ids != NULL;
    for (int i = n - 1; i >= 0; i--) {
        int64 value = 0;
        bool colnull;
        if (likely(!text)) {
            /* read here, not through column_value(): GROUP BY g % 10 over 10M rows took 214 ms that way, 195 so */
            colnull = !heap_column_word(key->column, desc, &tuples[i], &value);
        } else {
            bool unnamed = false;
            colnull = !column_value(key, desc, &tuples[i], true, &value, &unnamed);
            if (unnamed)
                return true;
        }
        const uint64 d = static_cast<uint64>(value) - static_cast<uint64>(dense.base);
        int32 number = !colnull && dense.numbers != NULL && d < kValueMemoDense ? dense.numbers[d] : 0;
        if (number == 0)
            number = value_memo_number(key->memo, colnull, value);
        if (number == kNotRemembered)
            return true;
        p->tids[i] = tuples[i].t_self;
        p->numbers[i] = number;
    }
    p->tuples = tuples;
    p->n = n;
    return false;
}

/*
 * A text column's key: the values remembered, as a text column's
 * dictionary, each with the group of its key's result.  A value longer
 * than the dictionary takes stays the host's.
 */
bool text_dictionary(GroupKey *key, const int64 *numbers, const int64 *slot, int32 n, gh::PageKey *out,
                     KeyTables *t)
{
    struct varlena **values = static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * n));
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * n));
    int32 m = 0;
    for (int32 i = 0; i < n; i++) {
        const char *data;
        int32 len;
        text_ids_value(key->text_ids, numbers[i], &data, &len);
        if (len > gh::kMaxTextKeyBytes)
            continue;
        values[i] = static_cast<struct varlena *>(palloc(VARHDRSZ + len));
        SET_VARSIZE(values[i], VARHDRSZ + len);
        memcpy(VARDATA(values[i]), data, len);
        order[m++] = i;
    }
    if (m == 0)
        return false;
    /* numbered by distinct bytes, so no two are equal */
    std::sort(order, order + m, [values](int32 a, int32 b) { return text_key_order(values[a], values[b]) < 0; });
    struct varlena **sorted = static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * m));
    int64 *slots = static_cast<int64 *>(palloc(sizeof(int64) * m));
    for (int32 j = 0; j < m; j++) {
        sorted[j] = values[order[j]];
        slots[j] = slot[order[j]];
    }
    return key_tables_add_dictionary(t, sorted, slots, m, out);
}

bool gpu_table(GroupKey *key, const KeyRows &, gh::PageKey *out, KeyTables *t, int k)
{
    int64 *values;
    const MemoResult **results;
    const int32 n = value_memo_sorted(key->memo, &values, &results);
    if (n == 0)
        return false; /* nothing met yet: every page would come back */
    int64 *slot = static_cast<int64 *>(palloc(sizeof(int64) * n));
    const uint32 slots = key_tables_number_results(key, results, n, slot, t, k);
    if (slots == 0)
        return false; /* every key NULL so far: no group for the GPU to count in */
    const MemoResult *null_result = value_memo_null(key->memo);
    out->null_host = null_result == NULL || !null_result->isnull;
    if (key->text_ids != NULL) {
        out->slots = slots;
        return text_dictionary(key, values, slot, n, out, t);
    }
    /* each value its own interval, merged with the next where that is the next value with the same key */
    int64 *starts = static_cast<int64 *>(palloc(sizeof(int64) * 2 * n));
    int64 *groups = static_cast<int64 *>(palloc(sizeof(int64) * 2 * n));
    int32 m = 0;
    int64 end = 0;
    for (int32 i = 0; i < n; i++) {
        const int64 v = values[i];
        if (v == PG_INT64_MAX)
            break; /* its interval would end past the words: the host's */
        if (m > 0 && end == v && groups[m - 1] == slot[i]) {
            end = v + 1;
            continue;
        }
        if (m > 0 && end != v) {
            starts[m] = end;
            groups[m++] = gh::kHostSlot;
        }
        starts[m] = v;
        groups[m++] = slot[i];
        end = v + 1;
    }
    if (m == 0)
        return false;
    out->kind = gh::PageKeyKind::intervals;
    out->slots = slots;
    out->end = end;
    key_tables_add_intervals(t, starts, groups, m, out);
    return true;
}

double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    return expression_group_bound(root, relid, def.expr);
}

const char *describe(const GroupKey *)
{
    return "host expression, by value";
}

} // namespace

bool group_key_page_value_numbers(const GroupKey *key, const HeapTupleData *tuples, int n, int32 *numbers)
{
    if ((key->def.kind != KeyKind::by_value && key->def.kind != KeyKind::derived) || key->value_page == NULL)
        return false;
    return memo_page_numbers(key->value_page, tuples, n, numbers);
}

const KeyKindOps value_key_kind = {
    KeyKind::by_value, "by value", recognise, init, NULL, word, bytes, gpu_table, group_bound, false, NULL,
    describe,       NULL,      page_may_raise,
};

} // namespace gpu_histogram
