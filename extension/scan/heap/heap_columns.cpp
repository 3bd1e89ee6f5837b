/*
 * heap_columns.cpp: one column of a heap tuple, as float8 or a word
 * (heap_columns.h).
 */
#include "heap_columns.h"

extern "C" {
#include "access/tupdesc.h"
#include "fmgr.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
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

HeapColumn heap_column(TupleDesc desc, AttrNumber attno, Oid type)
{
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

/*
 * A numeric column, read as numeric_float8 converts it (the plan takes
 * only columns whose typmod keeps that conversion from raising,
 * histogram_calls.cpp).  numeric_float8 prints the value and reads the
 * digits back with strtod, the correctly rounded float8 nearest the
 * decimal; a value of at most 2^53 units and a power of ten of at most 22
 * comes to the same float8 by one multiplication or division of two exact
 * float8s (Clinger's fast path), without a string: most prices and
 * measurements.  The rest go through numeric_float8 itself.
 */
struct NumericValue {};

/*
 * A stored numeric, as numeric.c lays it out: after the varlena's header, a
 * 16-bit header (sign, display scale and, in the short form, the weight), a
 * 16-bit weight in the long form, then base-10000 digits, the first of
 * weight `weight`; the header's two top bits set mark NaN and the
 * infinities.  The layout is on disk, so it is the same in every release.
 */
struct StoredNumeric {
    enum { number, nan, pos_inf, neg_inf, bad } kind;
    bool negative;
    int weight;
    const char *digits; /* int16 each, maybe unaligned */
    int ndigits;
};

StoredNumeric stored_numeric(const char *bytes, Size n)
{
    StoredNumeric out{StoredNumeric::bad, false, 0, NULL, 0};
    uint16 header;
    if (n < sizeof header)
        return out;
    memcpy(&header, bytes, sizeof header);
    Size at;
    if ((header & 0xC000) == 0xC000) {
        switch (header & 0xF000) {
        case 0xC000: out.kind = StoredNumeric::nan; break;
        case 0xD000: out.kind = StoredNumeric::pos_inf; break;
        case 0xF000: out.kind = StoredNumeric::neg_inf; break;
        }
        return out;
    }
    if (header & 0x8000) { /* the short form: sign, display scale, weight in one word */
        out.negative = (header & 0x2000) != 0;
        out.weight = (header & 0x0040) ? static_cast<int>(header | ~0x003F) : static_cast<int>(header & 0x003F);
        at = sizeof header;
    } else {
        int16 w;
        if (n < sizeof header + sizeof w)
            return out;
        memcpy(&w, bytes + sizeof header, sizeof w);
        out.negative = (header & 0x4000) != 0;
        out.weight = w;
        at = sizeof header + sizeof w;
    }
    out.kind = StoredNumeric::number;
    out.digits = bytes + at;
    out.ndigits = static_cast<int>((n - at) / sizeof(int16));
    return out;
}

inline int digit(const StoredNumeric &v, int i)
{
    int16 d;
    memcpy(&d, v.digits + i * sizeof d, sizeof d);
    return static_cast<uint16>(d);
}

/* The stored numeric's float8 by the fast path; false where it does not apply. */
bool numeric_fast_value(const char *bytes, Size n, double *out)
{
    static const double kTens[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const StoredNumeric v = stored_numeric(bytes, n);
    switch (v.kind) {
    case StoredNumeric::nan: *out = get_float8_nan(); return true;
    case StoredNumeric::pos_inf: *out = get_float8_infinity(); return true;
    case StoredNumeric::neg_inf: *out = -get_float8_infinity(); return true;
    case StoredNumeric::bad: return false;
    case StoredNumeric::number: break;
    }
    if (v.ndigits == 0) {
        *out = 0.0; /* numeric has no -0 */
        return true;
    }
    if (v.ndigits > 5)
        return false;
    unsigned __int128 m = 0;
    for (int i = 0; i < v.ndigits; i++)
        m = m * 10000 + digit(v, i);
    int exponent = 4 * (v.weight - v.ndigits + 1); /* the value is m * 10^exponent */
    while (m != 0 && m % 10 == 0) {
        m /= 10;
        exponent++;
    }
    if (m > (static_cast<unsigned __int128>(1) << 53) || exponent > 22 || exponent < -22)
        return false;
    const double x = static_cast<double>(static_cast<uint64>(m));
    const double r = exponent >= 0 ? x * kTens[exponent] : x / kTens[-exponent];
    *out = v.negative ? -r : r;
    return true;
}

/* The float8 of numeric v (any header, neither compressed nor out of line), as numeric_float8 gives it. */
double numeric_value(const char *v)
{
    double x;
    if (likely(numeric_fast_value(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), &x)))
        return x;
    /* numeric_float8 with a 4-byte header, which it reads in place (a 1-byte one it would copy, and keep) */
    const Size n = VARSIZE_ANY_EXHDR(v);
    struct varlena *full = static_cast<struct varlena *>(palloc(VARHDRSZ + n));
    SET_VARSIZE(full, VARHDRSZ + n);
    memcpy(VARDATA(full), VARDATA_ANY(v), n);
    x = DatumGetFloat8(DirectFunctionCall1(numeric_float8, PointerGetDatum(full)));
    pfree(full);
    return x;
}

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
    *value = numeric_value(p);
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
    const StoredNumeric v = stored_numeric(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
    bool ok = v.kind == StoredNumeric::number || v.kind == StoredNumeric::nan;
    __int128 u = 0;
    for (int i = 0; v.kind == StoredNumeric::number && ok && i < v.ndigits; i++) {
        /* digit i is worth 10^(4 (weight - i)): in units of 10^-scale, 10^e */
        const int e = 4 * (v.weight - i) + scale;
        const int d = digit(v, i);
        if (e >= 0 && e <= 22) {
            static constexpr struct Tens {
                __int128 of[23];
                constexpr Tens() : of{1}
                {
                    for (int k = 1; k < 23; k++)
                        of[k] = of[k - 1] * 10;
                }
            } kPowers;
            u += d * kPowers.of[e];
        } else if (e < 0 && e >= -4) {
            static const int kTens[] = {1, 10, 100, 1000, 10000};
            ok = d % kTens[-e] == 0; /* the zeros past the scale that fill the last digit */
            u += d / kTens[-e];
        } else {
            ok = d == 0;
        }
    }
    u = v.negative ? -u : u;
    ok = ok && u <= PG_INT64_MAX && u >= PG_INT64_MIN;
    *nan = v.kind == StoredNumeric::nan;
    *units = static_cast<int64>(u);
    if (copy != NULL)
        pfree(copy);
    if (!ok) /* the plan takes a column whose typmod rules this out */
        elog(ERROR, "gpu_histogram scan: a numeric value outside its column's typmod");
    return true;
}

void heap_column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n,
                             double *out, bool *isnull)
{
    by_column_type(col.type, [&](auto v) { return column_values_each<decltype(v)>(col, desc, tuples, n, out, isnull); });
}

} // namespace gpu_histogram
