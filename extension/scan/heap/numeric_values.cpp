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
    const gh::StoredNumeric n = gh::stored_numeric(reinterpret_cast<const unsigned char *>(VARDATA_ANY(v)),
                                                   static_cast<uint32_t>(VARSIZE_ANY_EXHDR(v)));
    bool ok = n.kind == gh::StoredNumeric::number || n.kind == gh::StoredNumeric::nan;
    __int128 u = 0;
    for (uint32_t i = 0; n.kind == gh::StoredNumeric::number && ok && i < n.ndigits; i++) {
        /* digit i is worth 10^(4 (weight - i)): in units of 10^-scale, 10^e */
        const int e = 4 * (n.weight - static_cast<int>(i)) + scale;
        const int d = n.digit(i);
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
    *nan = n.kind == gh::StoredNumeric::nan;
    *units = static_cast<int64>(u);
    return ok && u <= PG_INT64_MAX && u >= PG_INT64_MIN;
}

} // namespace gpu_histogram
