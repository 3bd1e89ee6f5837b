/*
 * numeric_float8.h: the float8 of a numeric as stored in a heap tuple, as
 * PostgreSQL's numeric_float8 gives it, wherever one IEEE operation gives
 * it exactly: for the page kernels (a numeric column binned on the GPU's
 * pages) and for the extension's heap reader, so that both convert alike.
 *
 * numeric_float8 prints the numeric in decimal and reads it back with
 * strtod, which rounds the decimal's exact value to the nearest double.
 * A value m x 10^e whose digits m are at most 2^53 and whose |e| is at
 * most 22 is the product or quotient of two doubles that are themselves
 * exact, and one IEEE multiplication or division rounds that exact value
 * to nearest as well (Clinger's fast path): the same double.  A column
 * declared numeric(p, s) with p at most 15 has every value there.  Other
 * values answer false and are converted by numeric_float8 itself, on the
 * host.
 *
 * The layout read is numeric.c's, which is on disk and so the same in
 * every release: after the varlena's header, a 16-bit word (the short
 * form's sign, display scale and weight; the long form's sign and display
 * scale, then a 16-bit weight), then base-10000 digits, the first of
 * weight `weight`, without leading or trailing zero digits.  The word's two
 * top bits both set mark NaN and the infinities.  Plain C++ (no PostgreSQL
 * header), so that the unit tests check it against strtod on the host.
 */
#ifndef GH_NUMERIC_FLOAT8_H
#define GH_NUMERIC_FLOAT8_H

#include <cstdint>
#include <cstring>

#include "bucket.h" /* GH_HOST_DEVICE */

namespace gh {

namespace numeric_layout {
constexpr uint16_t kSpecialMask = 0xC000; /* NUMERIC_SIGN_MASK: both set, a special value */
constexpr uint16_t kSpecialKind = 0xF000; /* NUMERIC_EXT_SIGN_MASK */
constexpr uint16_t kNaN = 0xC000;
constexpr uint16_t kPosInf = 0xD000;
constexpr uint16_t kNegInf = 0xF000;
constexpr uint16_t kShort = 0x8000;          /* NUMERIC_SHORT */
constexpr uint16_t kShortNegative = 0x2000;  /* NUMERIC_SHORT_SIGN_MASK */
constexpr uint16_t kShortWeightSign = 0x0040;
constexpr uint16_t kShortWeight = 0x003F;
constexpr uint16_t kLongNegative = 0x4000;   /* NUMERIC_NEG */
} // namespace numeric_layout

/* The double with these bits (a NaN or an infinity, built without <cmath>'s host-only constants). */
GH_HOST_DEVICE double numeric_float8_bits(uint64_t bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/*
 * A stored numeric taken apart (numeric.c's layout, above): a number's
 * sign, weight and digits, or which special value it is; bad for bytes
 * that are not a numeric.  The host's reader takes its whole units from
 * this too (numeric_values.cpp).
 */
struct StoredNumeric {
    enum Kind : int32_t { number, nan, pos_inf, neg_inf, bad } kind;
    bool negative;
    int32_t weight;                /* of the first digit, in powers of 10000 */
    const unsigned char *digits;   /* uint16 each, maybe unaligned */
    uint32_t ndigits;

    GH_HOST_DEVICE uint16_t digit(uint32_t i) const
    {
        uint16_t d;
        memcpy(&d, digits + 2 * i, sizeof d);
        return d;
    }
};

/* The numeric whose n bytes (after its varlena header) are at p, taken apart. */
GH_HOST_DEVICE StoredNumeric stored_numeric(const unsigned char *p, uint32_t n)
{
    namespace nl = numeric_layout;
    StoredNumeric out{StoredNumeric::bad, false, 0, nullptr, 0};
    uint16_t header;
    if (n < sizeof header)
        return out;
    memcpy(&header, p, sizeof header);
    if ((header & nl::kSpecialMask) == nl::kSpecialMask) {
        switch (header & nl::kSpecialKind) {
        case nl::kNaN: out.kind = StoredNumeric::nan; break;
        case nl::kPosInf: out.kind = StoredNumeric::pos_inf; break;
        case nl::kNegInf: out.kind = StoredNumeric::neg_inf; break;
        default: break;
        }
        return out;
    }
    uint32_t at = sizeof header;
    if (header & nl::kShort) {
        out.negative = (header & nl::kShortNegative) != 0;
        out.weight = (header & nl::kShortWeightSign) ? static_cast<int32_t>(header & nl::kShortWeight) - 64
                                                     : static_cast<int32_t>(header & nl::kShortWeight);
    } else {
        int16_t w;
        if (n < at + sizeof w)
            return out;
        memcpy(&w, p + at, sizeof w);
        out.negative = (header & nl::kLongNegative) != 0;
        out.weight = w;
        at += sizeof w;
    }
    out.kind = StoredNumeric::number;
    out.digits = p + at;
    out.ndigits = (n - at) / 2;
    return out;
}

/*
 * The float8 of the numeric whose n bytes (after its varlena header) are at
 * p: true and *out where the fast path gives it (NaN and the infinities
 * too, as numeric_float8 gives them); false for a value it does not reach
 * or bytes that are not a numeric.
 */
GH_HOST_DEVICE bool numeric_float8_fast(const unsigned char *p, uint32_t n, double *out)
{
    const StoredNumeric v = stored_numeric(p, n);
    switch (v.kind) {
    case StoredNumeric::nan: *out = numeric_float8_bits(0x7FF8000000000000ULL); return true;
    case StoredNumeric::pos_inf: *out = numeric_float8_bits(0x7FF0000000000000ULL); return true;
    case StoredNumeric::neg_inf: *out = numeric_float8_bits(0xFFF0000000000000ULL); return true;
    case StoredNumeric::bad: return false;
    case StoredNumeric::number: break;
    }
    if (v.ndigits == 0) {
        *out = 0.0; /* numeric has no -0 */
        return true;
    }
    /*
     * m: the digits as one integer, the last digit's trailing decimal
     * zeros dropped (it is not 0, so m then ends in a non-zero digit); the
     * value is m x 10^exponent.  m past 2^53 answers false before it could
     * overflow.
     */
    constexpr uint64_t kExact = uint64_t(1) << 53;
    uint64_t m = 0;
    int32_t exponent = 4 * (v.weight - static_cast<int32_t>(v.ndigits) + 1);
    for (uint32_t i = 0; i < v.ndigits; i++) {
        uint16_t d = v.digit(i);
        if (d > 9999)
            return false;
        uint64_t scale = 10000;
        if (i + 1 == v.ndigits) {
            if (d == 0)
                return false; /* numeric.c strips zero digits: not a numeric it wrote */
            while (d % 10 == 0) {
                d /= 10;
                scale /= 10;
                exponent++;
            }
        }
        if (m > (kExact - d) / scale)
            return false;
        m = m * scale + d;
    }
    if (exponent > 22 || exponent < -22)
        return false;
    double tens = 1.0; /* 10^|exponent|: exact, and computed exactly, up to 10^22 */
    for (int32_t k = exponent < 0 ? -exponent : exponent; k > 0; k--)
        tens *= 10.0;
    const double x = static_cast<double>(m);
    const double r = exponent >= 0 ? x * tens : x / tens;
    *out = v.negative ? -r : r;
    return true;
}

} // namespace gh

#endif /* GH_NUMERIC_FLOAT8_H */
