/*
 * native_values.cpp: a native qual's values (native_quals.h), set from a
 * constant, a parameter or an array once per scan, and a row's stored
 * value compared with them, with the operators' own answers for NULL,
 * NaN, infinities and text's bytes.
 */
#include "native_qual.h"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
#include "utils/array.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

namespace gpu_histogram {

namespace {

/* A value of an integer or time type as the int64 the comparisons use. */
int64 int_of(Oid type, Datum d)
{
    switch (type) {
    case INT2OID: return DatumGetInt16(d);
    case INT4OID: return DatumGetInt32(d);
    case DATEOID: return DatumGetDateADT(d);
    default: return DatumGetInt64(d); /* int8, timestamp, timestamptz */
    }
}

/* A float4 or float8 value as float8: float4 widens exactly, so its operators and the cross-type ones agree. */
double float_of(Oid type, Datum d)
{
    return type == FLOAT4OID ? DatumGetFloat4(d) : DatumGetFloat8(d);
}

/* Orders text values by length, then bytes: equal exactly where texteq says so under a deterministic collation. */
int order_text(const void *a, const void *b)
{
    const NativeText *x = static_cast<const NativeText *>(a), *y = static_cast<const NativeText *>(b);
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->data, y->data, static_cast<size_t>(x->len));
}

/* A copy in cxt of a text datum's bytes, detoasted. */
NativeText text_copy(MemoryContext cxt, Datum d)
{
    text *t = DatumGetTextPP(d);
    NativeText out;
    out.len = static_cast<int32>(VARSIZE_ANY_EXHDR(t));
    char *data = static_cast<char *>(MemoryContextAlloc(cxt, Max(out.len, 1)));
    memcpy(data, VARDATA_ANY(t), static_cast<size_t>(out.len));
    out.data = data;
    if (reinterpret_cast<Pointer>(t) != DatumGetPointer(d))
        pfree(t);
    return out;
}

void free_lists(NativeQual *q)
{
    if (q->int_list != NULL)
        pfree(q->int_list);
    if (q->float_list != NULL)
        pfree(q->float_list);
    if (q->text_list != NULL) {
        for (int i = 0; i < q->nlist; i++)
            pfree(const_cast<char *>(q->text_list[i].data));
        pfree(q->text_list);
    }
    q->int_list = NULL;
    q->float_list = NULL;
    q->text_list = NULL;
    q->nlist = 0;
}

/* A value of the qual's type as the comparison needs it. */
} // namespace

void native_set_value(NativeQual *q, MemoryContext cxt, Datum d, bool isnull)
{
    q->never = isnull;
    q->int_value = 0;
    q->float_value = 0;
    if (q->is_text)
        free_lists(q);
    if (isnull)
        return;
    if (q->is_text) {
        /* = and <> hold their value as a list of one */
        q->text_list = static_cast<NativeText *>(MemoryContextAlloc(cxt, sizeof(NativeText)));
        q->text_list[0] = text_copy(cxt, d);
        q->nlist = 1;
    } else if (q->is_float)
        q->float_value = float_of(q->value_type, d);
    else
        q->int_value = int_of(q->value_type, d);
}

namespace {

int order_int64(const void *a, const void *b)
{
    const int64 x = *static_cast<const int64 *>(a), y = *static_cast<const int64 *>(b);
    return x < y ? -1 : x > y ? 1 : 0;
}

/* float8's btree order: NaN equal to NaN and above everything, -0 equal to 0, as float8_eq and float8_lt say. */
int order_float8(const void *a, const void *b)
{
    return float8_cmp_internal(*static_cast<const double *>(a), *static_cast<const double *>(b));
}

/* Sorts n values of `size` bytes and drops repeats; returns how many are left. */
int sort_unique(void *values, int n, Size size, int (*order)(const void *, const void *))
{
    if (n == 0)
        return 0;
    qsort(values, static_cast<size_t>(n), size, order);
    char *v = static_cast<char *>(values);
    int kept = 1;
    for (int i = 1; i < n; i++)
        if (order(v + (kept - 1) * size, v + i * size) != 0)
            memmove(v + kept++ * size, v + i * size, size);
    return kept;
}

/*
 * A list qual's array (isnull: the array itself is NULL), with
 * ScalarArrayOpExpr's answers: no element (the operator runs zero times)
 * gives false for = ANY and true for <> ALL whatever the column holds; a
 * NULL element matches nothing, and where nothing matches the answer is
 * NULL, so = ANY of NULLs only and <> ALL with a NULL pass no row.
 */
} // namespace

void native_set_list(NativeQual *q, MemoryContext cxt, Datum d, bool isnull)
{
    free_lists(q);
    q->always = false;
    q->never = isnull;
    if (isnull)
        return;
    ArrayType *array = DatumGetArrayTypeP(d);
    int16 typlen;
    bool typbyval;
    char typalign;
    get_typlenbyvalalign(q->value_type, &typlen, &typbyval, &typalign);
    Datum *elems;
    bool *nulls;
    int n;
    deconstruct_array(array, q->value_type, typlen, typbyval, typalign, &elems, &nulls, &n);
    if (n == 0) {
        q->always = q->cmp == Comparison::all_ne;
        q->never = q->cmp == Comparison::any_eq;
        return;
    }
    bool has_null = false;
    int k = 0;
    if (q->is_text)
        q->text_list = static_cast<NativeText *>(MemoryContextAlloc(cxt, sizeof(NativeText) * n));
    else if (q->is_float)
        q->float_list = static_cast<double *>(MemoryContextAlloc(cxt, sizeof(double) * n));
    else
        q->int_list = static_cast<int64 *>(MemoryContextAlloc(cxt, sizeof(int64) * n));
    for (int i = 0; i < n; i++) {
        if (nulls[i])
            has_null = true;
        else if (q->is_text)
            q->text_list[k++] = text_copy(cxt, elems[i]);
        else if (q->is_float)
            q->float_list[k++] = float_of(q->value_type, elems[i]);
        else
            q->int_list[k++] = int_of(q->value_type, elems[i]);
    }
    if (q->is_text) {
        /* repeats stay (a search finds either), so that free_lists frees every copy */
        if (k > 0)
            qsort(q->text_list, static_cast<size_t>(k), sizeof(NativeText), order_text);
        q->nlist = k;
    } else {
        q->nlist = q->is_float ? sort_unique(q->float_list, k, sizeof(double), order_float8)
                               : sort_unique(q->int_list, k, sizeof(int64), order_int64);
    }
    q->never = (q->cmp == Comparison::any_eq && q->nlist == 0) || (q->cmp == Comparison::all_ne && has_null);
    pfree(elems);
    pfree(nulls);
}

namespace {

/* The column's value in t, false if it is NULL. */
template <typename T> bool stored(const NativeQual &q, TupleDesc desc, const HeapTupleData *t, T *value)
{
    const HeapColumn &col = q.column;
    Datum d;
    const char *p = heap_column_data(col, t->t_data);
    if (p != NULL) {
        switch (col.type) {
        case BOOLOID: *value = *p != 0 ? 1 : 0; return true;
        case INT2OID: { int16 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case INT4OID: { int32 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case INT8OID:
        case TIMESTAMPOID:
        case TIMESTAMPTZOID: { int64 v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        case DATEOID: { int32 v; memcpy(&v, p, sizeof v); *value = v; return true; }
        case FLOAT4OID: { float v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        default: { double v; memcpy(&v, p, sizeof v); *value = static_cast<T>(v); return true; }
        }
    }
    bool isnull;
    d = heap_getattr(const_cast<HeapTupleData *>(t), col.attno, desc, &isnull);
    if (isnull)
        return false;
    switch (col.type) {
    case BOOLOID: *value = DatumGetBool(d) ? 1 : 0; break;
    case INT2OID: *value = DatumGetInt16(d); break;
    case INT4OID: *value = DatumGetInt32(d); break;
    case INT8OID: *value = static_cast<T>(DatumGetInt64(d)); break;
    case DATEOID: *value = DatumGetDateADT(d); break;
    case TIMESTAMPOID: *value = static_cast<T>(DatumGetTimestamp(d)); break;
    case TIMESTAMPTZOID: *value = static_cast<T>(DatumGetTimestampTz(d)); break;
    case FLOAT4OID: *value = static_cast<T>(DatumGetFloat4(d)); break;
    default: *value = static_cast<T>(DatumGetFloat8(d)); break;
    }
    return true;
}

/* Whether v is in the qual's sorted list. */
bool listed(const NativeQual &q, double v)
{
    return bsearch(&v, q.float_list, static_cast<size_t>(q.nlist), sizeof(double), order_float8) != NULL;
}

bool listed(const NativeQual &q, int64 v)
{
    return bsearch(&v, q.int_list, static_cast<size_t>(q.nlist), sizeof(int64), order_int64) != NULL;
}

/*
 * Whether the text column's value in t is listed (false for NULL, which
 * *null says).  A compressed or out-of-line value is detoasted only where
 * its length matches a listed one: the page is unlocked then.
 */
bool text_listed(const NativeQual &q, TupleDesc desc, const HeapTupleData *t, bool *null)
{
    Datum d = heap_getattr(const_cast<HeapTupleData *>(t), q.column.attno, desc, null);
    if (*null)
        return false;
    struct varlena *v = reinterpret_cast<struct varlena *>(DatumGetPointer(d));
    if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
        return native_text_listed(q, VARDATA_ANY(v), static_cast<int32>(VARSIZE_ANY_EXHDR(v)));
    const int32 len = static_cast<int32>(toast_raw_datum_size(d) - VARHDRSZ);
    bool any = false;
    for (int i = 0; i < q.nlist && !any; i++)
        any = q.text_list[i].len == len;
    if (!any)
        return false;
    text *full = reinterpret_cast<text *>(pg_detoast_datum_packed(v));
    const bool listed = native_text_listed(q, VARDATA_ANY(full), static_cast<int32>(VARSIZE_ANY_EXHDR(full)));
    if (full != reinterpret_cast<text *>(v))
        pfree(full);
    return listed;
}

} // namespace

bool native_passes(const NativeQual &q, TupleDesc desc, const HeapTupleData *t)
{
    if (q.always)
        return true;
    if (q.never)
        return false;
    /* a tuple stored before ADD COLUMN has the column's missing value, NULL or not: heap_attisnull knows */
    if (native_qual_is_null_test(q))
        return heap_attisnull(const_cast<HeapTupleData *>(t), q.column.attno, desc) == (q.cmp == Comparison::is_null);
    if (q.is_text) {
        bool null;
        const bool listed = text_listed(q, desc, t, &null);
        return !null && listed == (q.cmp == Comparison::eq || q.cmp == Comparison::any_eq);
    }
    if (q.is_float) {
        /* float4 widens to float8 exactly, so float4 and cross-type operators agree */
        double v;
        if (!stored(q, desc, t, &v))
            return false;
        double c = q.float_value;
        switch (q.cmp) {
        case Comparison::lt: return float8_lt(v, c);
        case Comparison::le: return float8_le(v, c);
        case Comparison::eq: return float8_eq(v, c);
        case Comparison::ge: return float8_ge(v, c);
        case Comparison::gt: return float8_gt(v, c);
        case Comparison::ne: return float8_ne(v, c);
        case Comparison::any_eq: return listed(q, v);
        case Comparison::all_ne: return !listed(q, v);
        case Comparison::is_null:
        case Comparison::is_not_null: break; /* answered above */
        }
        return false;
    }
    int64 v;
    if (!stored(q, desc, t, &v))
        return false;
    int64 c = q.int_value;
    switch (q.cmp) {
    case Comparison::lt: return v < c;
    case Comparison::le: return v <= c;
    case Comparison::eq: return v == c;
    case Comparison::ge: return v >= c;
    case Comparison::gt: return v > c;
    case Comparison::ne: return v != c;
    case Comparison::any_eq: return listed(q, v);
    case Comparison::all_ne: return !listed(q, v);
    case Comparison::is_null:
    case Comparison::is_not_null: break; /* answered above */
    }
    return false;
}

bool native_text_listed(const NativeQual &q, const char *data, int32 len)
{
    const NativeText key{len, data};
    return q.nlist > 0 && bsearch(&key, q.text_list, static_cast<size_t>(q.nlist), sizeof(NativeText), order_text) != NULL;
}

} // namespace gpu_histogram
