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
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
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

/* A copy in cxt of a value's bytes: a text datum's, detoasted, or a uuid's 16. */
NativeText text_copy(MemoryContext cxt, Oid type, Datum d)
{
    if (type == UUIDOID) {
        char *data = static_cast<char *>(MemoryContextAlloc(cxt, UUID_LEN));
        memcpy(data, DatumGetUUIDP(d)->data, UUID_LEN);
        return NativeText{UUID_LEN, data};
    }
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

/* The stored words a column of this type holds: [*lo, *hi]. */
void word_domain(Oid type, int64 *lo, int64 *hi)
{
    switch (type) {
    case INT2OID: *lo = PG_INT16_MIN; *hi = PG_INT16_MAX; return;
    case INT4OID:
    case DATEOID: *lo = PG_INT32_MIN; *hi = PG_INT32_MAX; return;
    default: *lo = PG_INT64_MIN; *hi = PG_INT64_MAX; return; /* int8, timestamp, timestamptz */
    }
}

Datum word_datum(Oid type, int64 w)
{
    switch (type) {
    case INT2OID: return Int16GetDatum(static_cast<int16>(w));
    case INT4OID: return Int32GetDatum(static_cast<int32>(w));
    case DATEOID: return DateADTGetDatum(static_cast<DateADT>(w));
    default: return Int64GetDatum(w);
    }
}

/*
 * The first of the column's words [lo, hi + 1) that compares with value
 * above it (above) or not below it, by the qual's own comparison: the
 * comparison is monotone in the word (native_match.cpp takes no other),
 * so a binary search of 64 steps at most finds it; hi + 1 if none.
 */
__int128 first_word(const NativeQual &q, Datum value, bool above, int64 lo, int64 hi)
{
    __int128 a = lo, b = static_cast<__int128>(hi) + 1;
    while (a < b) {
        const __int128 mid = a + (b - a) / 2;
        Datum w = word_datum(q.column.type, static_cast<int64>(mid));
        if (q.cast != NULL)
            w = FunctionCall1(q.cast, w);
        const int32 c = DatumGetInt32(FunctionCall2Coll(q.order, q.order_collation, w, value));
        if (above ? c > 0 : c >= 0)
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}

/*
 * The words of the column that compare equal to value, [*ge, *gt): one at
 * most for the conversions native_match.cpp takes, none for a value
 * between two words (`i::numeric = 2.5`).  The searches' numerics and
 * casts are made in a context of their own, freed here.
 */
void equal_words(const NativeQual &q, Datum value, __int128 *ge, __int128 *gt)
{
    int64 lo, hi;
    word_domain(q.column.type, &lo, &hi);
    MemoryContext search = AllocSetContextCreate(CurrentMemoryContext, "gpu_histogram conversion", ALLOCSET_SMALL_SIZES);
    MemoryContext old = MemoryContextSwitchTo(search);
    *ge = first_word(q, value, false, lo, hi);
    *gt = first_word(q, value, true, lo, hi);
    MemoryContextSwitchTo(old);
    MemoryContextDelete(search);
    if (*gt - *ge > 1)
        elog(ERROR, "gpu_histogram: %d words of a %s column compare equal to one value", static_cast<int>(*gt - *ge),
             format_type_be(q.column.type));
}

/* The qual passes the words below `bound` (its words' domain ends at end). */
void pass_below(NativeQual *q, __int128 bound, int64 lo, __int128 end)
{
    if (bound == lo) {
        q->never = true;
    } else if (bound == end) {
        q->cmp = Comparison::is_not_null;
    } else {
        q->cmp = Comparison::lt;
        q->int_value = static_cast<int64>(bound);
    }
}

/* The qual passes the words from `bound` on. */
void pass_from(NativeQual *q, __int128 bound, int64 lo, __int128 end)
{
    if (bound == lo) {
        q->cmp = Comparison::is_not_null;
    } else if (bound == end) {
        q->never = true;
    } else {
        q->cmp = Comparison::ge;
        q->int_value = static_cast<int64>(bound);
    }
}

/*
 * A value of another type than the column's as a comparison of the
 * column's words: `ts >= '2026-11-05'::date` is ts >= the word of that
 * midnight in the session's zone, `(i)::numeric < 2.5` is i < 3,
 * `(i)::numeric = 2.5` passes no row, and `<` every word a NULL test.
 */
void convert_value(NativeQual *q, Datum value)
{
    int64 lo, hi;
    word_domain(q->column.type, &lo, &hi);
    const __int128 end = static_cast<__int128>(hi) + 1;
    __int128 ge, gt;
    equal_words(*q, value, &ge, &gt);
    switch (q->asked) {
    case Comparison::lt: pass_below(q, ge, lo, end); break;
    case Comparison::le: pass_below(q, gt, lo, end); break;
    case Comparison::ge: pass_from(q, ge, lo, end); break;
    case Comparison::gt: pass_from(q, gt, lo, end); break;
    case Comparison::eq:
        q->never = gt == ge;
        q->int_value = static_cast<int64>(ge);
        break;
    case Comparison::ne:
        /* no word equals the value: every non-NULL row passes, and IS DISTINCT FROM passes NULLs too */
        if (gt == ge && q->null_safe)
            q->always = true;
        else if (gt == ge)
            q->cmp = Comparison::is_not_null;
        q->int_value = static_cast<int64>(ge);
        break;
    default: break; /* lists and NULL tests: not scalar values */
    }
}

} // namespace

void native_set_value(NativeQual *q, MemoryContext cxt, Datum d, bool isnull)
{
    q->never = isnull;
    q->always = false;
    q->int_value = 0;
    q->float_value = 0;
    if (q->order != NULL || q->null_safe)
        q->cmp = q->asked;
    if (q->is_text)
        free_lists(q);
    if (isnull && q->null_safe) {
        /* IS [NOT] DISTINCT FROM NULL */
        q->never = false;
        q->cmp = q->asked == Comparison::eq ? Comparison::is_null : Comparison::is_not_null;
    }
    if (isnull)
        return;
    if (q->order != NULL) {
        convert_value(q, d);
        return;
    }
    if (q->is_text) {
        /* = and <> hold their value as a list of one */
        q->text_list = static_cast<NativeText *>(MemoryContextAlloc(cxt, sizeof(NativeText)));
        q->text_list[0] = text_copy(cxt, q->value_type, d);
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
            q->text_list[k++] = text_copy(cxt, q->value_type, elems[i]);
        else if (q->is_float)
            q->float_list[k++] = float_of(q->value_type, elems[i]);
        else if (q->order != NULL) {
            /* a value of another type: the column's word equal to it, if one is */
            __int128 ge, gt;
            equal_words(*q, elems[i], &ge, &gt);
            if (gt > ge)
                q->int_list[k++] = static_cast<int64>(ge);
        } else
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
    if (q.value_type == UUIDOID)
        return native_text_listed(q, reinterpret_cast<const char *>(DatumGetUUIDP(d)->data), UUID_LEN);
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
    if (q.computed != NULL)
        return q.computed->ops->passes(q.computed, desc, const_cast<HeapTupleData *>(t));
    if (q.always)
        return true;
    if (q.never)
        return false;
    /* a tuple stored before ADD COLUMN has the column's missing value, NULL or not: heap_attisnull knows */
    if (native_qual_is_null_test(q))
        return heap_attisnull(const_cast<HeapTupleData *>(t), q.column.attno, desc) == (q.cmp == Comparison::is_null);
    /* IS DISTINCT FROM a value passes a NULL column; every other comparison fails it */
    const bool null_passes = q.null_safe && q.cmp == Comparison::ne;
    if (q.is_text) {
        bool null;
        const bool listed = text_listed(q, desc, t, &null);
        return null ? null_passes : listed == (q.cmp == Comparison::eq || q.cmp == Comparison::any_eq);
    }
    if (q.is_float) {
        /* float4 widens to float8 exactly, so float4 and cross-type operators agree */
        double v;
        if (!stored(q, desc, t, &v))
            return null_passes;
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
        return null_passes;
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
