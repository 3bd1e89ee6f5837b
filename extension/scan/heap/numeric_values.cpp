/*
 * numeric_values.cpp: a stored numeric's value as float8 or as whole units
 * (numeric_values.h).
 */
#include "numeric_values.h"

extern "C" {
#include "fmgr.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
}

namespace gpu_histogram {

namespace {

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

} // namespace

double numeric_float8_of(const char *v)
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

bool numeric_units_of(const char *v, int scale, int64 *units, bool *nan)
{
    const StoredNumeric n = stored_numeric(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
    bool ok = n.kind == StoredNumeric::number || n.kind == StoredNumeric::nan;
    __int128 u = 0;
    for (int i = 0; n.kind == StoredNumeric::number && ok && i < n.ndigits; i++) {
        /* digit i is worth 10^(4 (weight - i)): in units of 10^-scale, 10^e */
        const int e = 4 * (n.weight - i) + scale;
        const int d = digit(n, i);
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
    u = n.negative ? -u : u;
    *nan = n.kind == StoredNumeric::nan;
    *units = static_cast<int64>(u);
    return ok && u <= PG_INT64_MAX && u >= PG_INT64_MIN;
}

} // namespace gpu_histogram
