/*
 * numeric_values.cpp: a stored numeric's value as float8 or as whole units
 * (numeric_values.h).
 */
#include "numeric_values.h"

#include "../../../gpu/formulas/numeric_float8.h"

extern "C" {
#include "fmgr.h"
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

} // namespace

double numeric_float8_of(const char *v)
{
    double x;
    if (likely(gh::numeric_float8_fast(reinterpret_cast<const unsigned char *>(VARDATA_ANY(v)),
                                       static_cast<uint32_t>(VARSIZE_ANY_EXHDR(v)), &x)))
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
