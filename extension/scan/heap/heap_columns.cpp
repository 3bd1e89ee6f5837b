/*
 * heap_columns.cpp: one column of a heap tuple, as float8 or a word
 * (heap_columns.h).
 */
#include "heap_columns.h"
#include "numeric_values.h"

extern "C" {
#include "access/transam.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

namespace {

inline uint32 aligned(uint32 off, uint8 mask)
{
    return (off + mask) & ~static_cast<uint32>(mask);
}

/* att_align_nominal()'s alignment as a mask */
uint8 align_mask(char align)
{
    return static_cast<uint8>(att_align_nominal(1, align) - 1);
}

} // namespace

/*
 * nocachegetattr()'s walk for a tuple without NULLs, without its general
 * cases: from the first column of variable width, with the alignments as
 * masks.  The walk over a text column to the values after it was a third of
 * GROUP BY g's time on the development machine.
 */
namespace {

/* Where the earlier columns end in tuple data tp: the column's offset before its own alignment. */
inline uint32 walked_end(const HeapColumn &col, const char *tp)
{
    uint32 off = col.lead;
    for (int i = col.first_walked; i < col.nprefix; i++) {
        const AttrLayout &a = col.prefix[i];
        if (a.len > 0) {
            off = aligned(off, a.mask) + a.len;
        } else if (a.len == -1) {
            /* att_align_pointer(): a pad byte is zero, and a 1-byte header is never padded to */
            if (tp[off] == 0)
                off = aligned(off, a.mask);
            off += VARSIZE_ANY(tp + off);
        } else {
            off = aligned(off, a.mask);
            off += strlen(tp + off) + 1;
        }
    }
    return off;
}

} // namespace

const char *heap_column_walk(const HeapColumn &col, const char *tp)
{
    return tp + aligned(walked_end(col, tp), col.mask);
}

const char *heap_column_varlena(const HeapColumn &col, HeapTupleHeader h)
{
    if ((h->t_infomask & HEAP_HASNULL) || HeapTupleHeaderGetNatts(h) < col.attno)
        return NULL;
    const char *tp = reinterpret_cast<const char *>(h) + h->t_hoff;
    uint32 off = walked_end(col, tp);
    if (tp[off] == 0) /* att_align_pointer(), as for the columns walked over */
        off = aligned(off, col.mask);
    return tp + off;
}

Oid heap_stored_type(Oid type)
{
    if (type < FirstGenbkiObjectId)
        return type; /* a built-in type: neither a domain nor an enum */
    const Oid base = getBaseType(type);
    return type_is_enum(base) ? INT4OID : base;
}

const Node *heap_domain_column(const Node *e)
{
    if (e == NULL || !IsA(e, RelabelType))
        return e;
    const RelabelType *r = reinterpret_cast<const RelabelType *>(e);
    if (!IsA(r->arg, Var))
        return e;
    const Oid type = reinterpret_cast<const Var *>(r->arg)->vartype;
    if (type == r->resulttype || type < FirstGenbkiObjectId || getBaseType(type) != r->resulttype)
        return e;
    return reinterpret_cast<const Node *>(r->arg);
}

HeapColumn heap_column(TupleDesc desc, AttrNumber attno, Oid type)
{
    type = heap_stored_type(type);
    Form_pg_attribute att = TupleDescAttr(desc, attno - 1);
    HeapColumn col{attno, type, att->attlen, att->attalign, -1, attno - 1, NULL, attno - 1, 0, align_mask(att->attalign)};
    AttrLayout *prefix = static_cast<AttrLayout *>(palloc(sizeof(AttrLayout) * attno));
    bool fixed = true;
    uint32 off = 0;
    for (int i = 0; i < attno - 1; i++) {
        /* dropped columns keep their length and alignment, so they count too */
        Form_pg_attribute a = TupleDescAttr(desc, i);
        prefix[i] = AttrLayout{a->attlen, a->attalign, align_mask(a->attalign)};
        if (fixed && a->attlen <= 0) {
            fixed = false;
            col.first_walked = i;
            col.lead = off;
        }
        if (fixed)
            off = aligned(off, prefix[i].mask) + a->attlen;
    }
    col.prefix = prefix;
    if (fixed) {
        col.fixed_offset = static_cast<int32>(aligned(off, col.mask));
        col.lead = off; /* where heap_column_varlena() finds a varlena column after fixed-width ones */
    }
    return col;
}

namespace {

template <typename T> inline double stored_value(const char *p)
{
    T v;
    memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
}

/*
 * The time form's columns: the stored integer (a timestamp's microseconds,
 * a date's day number, sign-extended), carried bit for bit in the 8-byte
 * word that histogram_state.h's chunks hold.
 */
struct Microseconds {};
struct DayNumber {};

inline double as_word(int64 v)
{
    double w;
    memcpy(&w, &v, sizeof w);
    return w;
}

template <> inline double stored_value<Microseconds>(const char *p)
{
    int64 v;
    memcpy(&v, p, sizeof v);
    return as_word(v);
}

template <> inline double stored_value<DayNumber>(const char *p)
{
    int32 v;
    memcpy(&v, p, sizeof v);
    return as_word(v);
}

template <typename T> inline double datum_value(Datum d);
template <> inline double datum_value<Microseconds>(Datum d) { return as_word(DatumGetInt64(d)); }
template <> inline double datum_value<DayNumber>(Datum d) { return as_word(DatumGetDateADT(d)); }
template <> inline double datum_value<double>(Datum d) { return DatumGetFloat8(d); }
template <> inline double datum_value<float>(Datum d) { return DatumGetFloat4(d); }
template <> inline double datum_value<int16>(Datum d) { return DatumGetInt16(d); }
template <> inline double datum_value<int32>(Datum d) { return DatumGetInt32(d); }
template <> inline double datum_value<int64>(Datum d) { return static_cast<double>(DatumGetInt64(d)); }

/*
 * The column's value in tuple t as float8, false if it is NULL:
 * heap_column_data() where it can, heap_getattr() for the rest.
 */
template <typename T>
inline bool tuple_value(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, double *value)
{
    const char *data = heap_column_data(col, t->t_data);
    if (likely(data != NULL)) {
        *value = stored_value<T>(data);
        return true;
    }
    bool isnull;
    Datum d = heap_getattr(const_cast<HeapTupleData *>(t), col.attno, desc, &isnull);
    if (!isnull)
        *value = datum_value<T>(d);
    return !isnull;
}

/* A numeric column, read as numeric_float8 converts it (numeric_values.h). */
struct NumericValue {};

/* Where tuple t's numeric value lies, detoasted where it must be (*copy then names the copy to free); NULL: NULL. */
const char *numeric_in_tuple(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, struct varlena **copy)
{
    *copy = NULL;
    const char *p = heap_column_varlena(col, t->t_data);
    if (likely(p != NULL) && !VARATT_IS_EXTERNAL(p) && !VARATT_IS_COMPRESSED(p))
        return p;
    bool isnull;
    Datum d = heap_getattr(const_cast<HeapTupleData *>(t), col.attno, desc, &isnull);
    if (isnull)
        return NULL;
    struct varlena *stored = reinterpret_cast<struct varlena *>(DatumGetPointer(d));
    struct varlena *plain = pg_detoast_datum_packed(stored);
    if (plain != stored)
        *copy = plain;
    return reinterpret_cast<const char *>(plain);
}

/* A varlena's place does not follow from its column's alignment alone: heap_column_varlena() finds it. */
template <>
inline bool tuple_value<NumericValue>(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, double *value)
{
    struct varlena *copy;
    const char *p = numeric_in_tuple(col, desc, t, &copy);
    if (p == NULL)
        return false;
    *value = numeric_float8_of(p);
    if (copy != NULL)
        pfree(copy);
    return true;
}

template <typename T>
int column_values(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += tuple_value<T>(col, desc, &tuples[i], &out[k]);
    return k;
}

template <typename T>
int column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out,
                       bool *isnull)
{
    for (int i = 0; i < n; i++)
        isnull[i] = !tuple_value<T>(col, desc, &tuples[i], &out[i]);
    return n;
}

/*
 * heap_column_values() over every normal tuple of an all-visible page, in
 * one pass.  It walks the line pointers from the last to the first, so that
 * the tuples, which fill the page from its end, are read at rising
 * addresses (a quarter faster on the dev VM), and stores each value from the
 * end of buf downwards, so that they still come out in the page's order:
 * the first value of a scan is the one whose row the aggregate checks first.
 */
template <typename T>
int page_column_values(const HeapColumn &col, TupleDesc desc, Page page, OffsetNumber lines, double *buf,
                       int *ntuples)
{
    double *out = buf + MaxHeapTuplesPerPage;
    int n = 0;
    heap_page_prefetch(page);
    for (OffsetNumber off = lines; off >= FirstOffsetNumber; off--) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        n++;
        HeapTupleData t;
        t.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t.t_len = ItemIdGetLength(item);
        double v;
        if (tuple_value<T>(col, desc, &t, &v))
            *--out = v;
    }
    *ntuples = n;
    return static_cast<int>(buf + MaxHeapTuplesPerPage - out);
}

/*
 * heap_page_span_values() for a value column of C type T, or none
 * (col NULL).  From the last line pointer to the first, as above, and
 * each value stored at its tuple's place in the page's order.
 */
template <typename T>
int page_span_values(const HeapColumn &word, const HeapColumn *col, TupleDesc desc, Page page, OffsetNumber lines,
                     double *values, bool *isnull, PageWordSpan *span)
{
    heap_page_prefetch(page); /* first: asked for after the count below, the rows came 1.6x slower on the dev VM */
    int i = 0;
    for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++)
        i += ItemIdIsNormal(PageGetItemId(page, off)) ? 1 : 0;
    const int n = i;
    int64 least = PG_INT64_MAX, most = PG_INT64_MIN;
    bool nulls = false;
    for (OffsetNumber off = lines; off >= FirstOffsetNumber; off--) {
        ItemId item = PageGetItemId(page, off);
        if (!ItemIdIsNormal(item))
            continue;
        i--;
        HeapTupleData t;
        t.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, item));
        t.t_len = ItemIdGetLength(item);
        int64 w;
        if (heap_column_word(word, desc, &t, &w)) {
            least = Min(least, w);
            most = Max(most, w);
        } else {
            nulls = true;
        }
        if (col != NULL) {
            double v = 0;
            isnull[i] = !tuple_value<T>(*col, desc, &t, &v);
            values[i] = v;
        }
    }
    *span = PageWordSpan{nulls, least, most};
    return n;
}

/* Calls fn with a value of the C type the column's SQL type stores. */
template <typename Fn> int by_column_type(Oid type, Fn &&fn)
{
    switch (type) {
    case FLOAT8OID: return fn(double{});
    case FLOAT4OID: return fn(float{});
    case INT2OID: return fn(int16{});
    case INT4OID: return fn(int32{});
    case INT8OID: return fn(int64{});
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: return fn(Microseconds{});
    case DATEOID: return fn(DayNumber{});
    case NUMERICOID: return fn(NumericValue{});
    }
    elog(ERROR, "gpu_histogram scan: unexpected column type %u", type);
    return 0;
}

} // namespace

int heap_page_column_values(const HeapColumn &col, TupleDesc desc, Page page, OffsetNumber lines, double *buf,
                            int *ntuples)
{
    return by_column_type(col.type, [&](auto v) {
        return page_column_values<decltype(v)>(col, desc, page, lines, buf, ntuples);
    });
}

int heap_column_values(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n, double *out)
{
    return by_column_type(col.type, [&](auto v) { return column_values<decltype(v)>(col, desc, tuples, n, out); });
}

bool heap_column_numeric_units(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, int scale, int64 *units,
                               bool *nan)
{
    struct varlena *copy;
    const char *p = numeric_in_tuple(col, desc, t, &copy);
    if (p == NULL)
        return false;
    const bool ok = numeric_units_of(p, scale, units, nan);
    if (copy != NULL)
        pfree(copy);
    if (!ok) /* the plan takes a column whose typmod rules this out */
        elog(ERROR, "gpu_histogram scan: a numeric value outside its column's typmod");
    return true;
}

int heap_page_span_values(const HeapColumn &word, const HeapColumn *col, TupleDesc desc, Page page, OffsetNumber lines,
                          double *values, bool *isnull, PageWordSpan *span)
{
    if (col == NULL)
        return page_span_values<double>(word, NULL, desc, page, lines, values, isnull, span);
    Assert(col->type != NUMERICOID); /* its values may need detoasting: never under the page's lock */
    return by_column_type(col->type, [&](auto v) {
        return page_span_values<decltype(v)>(word, col, desc, page, lines, values, isnull, span);
    });
}

void heap_column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n,
                             double *out, bool *isnull)
{
    by_column_type(col.type, [&](auto v) { return column_values_each<decltype(v)>(col, desc, tuples, n, out, isnull); });
}

} // namespace gpu_histogram
