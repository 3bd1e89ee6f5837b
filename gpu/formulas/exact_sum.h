/*
 * exact_sum.h: the exact sum of float8 values, as fixed-point integer
 * limbs that any process, thread or GPU block may add in any order.
 *
 * sum(x) and avg(x) of a float column, summed value after value as
 * float8_pl does, depend on the order of the values: split between the
 * GPU, the CPU's pages and parallel workers, the same rows gave answers
 * that differ in their last bits from run to run.  Every finite float8 is
 * an integer multiple of 2^-1074 below 2^1024, so the sum of any number of
 * them is an integer in those units: kept as limbs of 32 bits each, held
 * in int64 cells, a value adds at most three 32-bit chunks into three
 * adjacent cells, and the cells of two partial sums add cell by cell.  The
 * sum is rounded once, at the end, to the nearest float8 (or float4), ties
 * to even: the same answer however the values were split.
 *
 * An addition moves a cell by less than 2^32, so a cell takes 2^30 of them
 * and stays below 2^62 in magnitude; exact_sum_normalize() carries each
 * cell's excess into the next one, which a caller does at least that
 * often, and before adding two sums' cells (each then below 2^32 but the
 * top one).
 *
 * NaNs and infinities are counted apart, as float8_pl combines them: any
 * NaN, or both infinities, give NaN; otherwise an infinity wins.  -0 is
 * counted too: a float8_pl sum is -0 only when every value was.
 *
 * Only libc headers; compiled by g++ and nvcc.
 */
#ifndef GH_EXACT_SUM_H
#define GH_EXACT_SUM_H

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define GH_EXACT_FN __host__ __device__ __forceinline__
#else
#define GH_EXACT_FN inline
#endif

namespace gh {

/*
 * 2^-1074 to 2^1024 is 2,098 bits; a sum of up to 2^63 values needs 63
 * more: 68 limbs of 32 bits (2,176).
 */
constexpr int kExactLimbs = 68;

/* The cells of one exact sum: the counts, then the limbs. */
enum ExactCell : int {
    kExactNaN = 0,  /* NaN values */
    kExactPosInf,   /* +Infinity values */
    kExactNegInf,   /* -Infinity values */
    kExactNegZero,  /* -0 values */
    kExactValues,   /* every value added: the normalizing cadence */
    kExactFirstLimb,
};
constexpr int kExactCells = kExactFirstLimb + kExactLimbs;

/* Additions a cell takes between normalizations: each moves it by less than 2^32. */
constexpr int64_t kExactAddsPerNormalize = int64_t(1) << 30;

/*
 * A finite, nonzero x as three chunks to add into limbs first .. first + 2
 * (negative for a negative x); false for 0, NaN and the infinities, whose
 * cell *special is then set (-1: a +0, nothing to count).
 */
GH_EXACT_FN bool exact_sum_chunks(double x, int *first, int64_t chunks[3], int *special)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const bool negative = (bits >> 63) != 0;
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((uint64_t(1) << 52) - 1);
    if (biased == 0x7ff) {
        *special = m != 0 ? kExactNaN : negative ? kExactNegInf : kExactPosInf;
        return false;
    }
    if (biased == 0 && m == 0) {
        *special = negative ? kExactNegZero : -1;
        return false;
    }
    /* x = m * 2^(e - 1074): position e in units of 2^-1074 */
    int e = biased - 1;
    if (biased != 0)
        m |= uint64_t(1) << 52;
    else
        e = 0;
    *first = e / 32;
    const int r = e % 32;
    const uint64_t low = m << r; /* m < 2^53, r < 32: the shifted mantissa has 85 bits */
    const uint64_t high = r == 0 ? 0 : m >> (64 - r);
    int64_t c0 = static_cast<int64_t>(low & 0xffffffffu);
    int64_t c1 = static_cast<int64_t>(low >> 32);
    int64_t c2 = static_cast<int64_t>(high);
    if (negative) {
        c0 = -c0;
        c1 = -c1;
        c2 = -c2;
    }
    chunks[0] = c0;
    chunks[1] = c1;
    chunks[2] = c2;
    return true;
}

/*
 * Carries every limb's excess over 32 bits into the next one: each but the
 * last ends in [0, 2^32).  Limbs may hold any int64 (a GPU's, which carry
 * their own overflows).
 */
GH_EXACT_FN void exact_sum_normalize(int64_t *cells)
{
    int64_t *limb = cells + kExactFirstLimb;
    int64_t carry = 0; /* below 2^32 in magnitude */
    for (int i = 0; i < kExactLimbs - 1; i++) {
        const int64_t high = limb[i] >> 32; /* arithmetic: floor division by 2^32 */
        const int64_t low = (limb[i] & 0xffffffff) + carry;
        const int64_t over = low >> 32;
        limb[i] = low - over * (int64_t(1) << 32);
        carry = high + over;
    }
    limb[kExactLimbs - 1] += carry;
    cells[kExactValues] = 0;
}

/* Adds x into the cells, one process's sequential way (a GPU adds the chunks atomically). */
GH_EXACT_FN void exact_sum_add(int64_t *cells, double x)
{
    int first = 0, special = 0;
    int64_t chunks[3];
    if (!exact_sum_chunks(x, &first, chunks, &special)) {
        if (special >= 0)
            cells[special]++;
        return;
    }
    int64_t *limb = cells + kExactFirstLimb + first;
    limb[0] += chunks[0];
    limb[1] += chunks[1];
    limb[2] += chunks[2];
    if (++cells[kExactValues] >= kExactAddsPerNormalize)
        exact_sum_normalize(cells);
}

/*
 * Adds chunks c0, c1, c2 into limbs first .. first + 2 as the sums of
 * `adds` values' chunks (each from exact_sum_chunks with this first): a
 * run of values summed in registers, then added once.  Each value moves a
 * limb by less than 2^32, as exact_sum_add's do, so the cadence counts
 * them all; a caller keeps a run below 2^30 values.
 */
GH_EXACT_FN void exact_sum_add_run(int64_t *cells, int first, int64_t c0, int64_t c1, int64_t c2, int64_t adds)
{
    int64_t *limb = cells + kExactFirstLimb + first;
    limb[0] += c0;
    limb[1] += c1;
    limb[2] += c2;
    if ((cells[kExactValues] += adds) >= kExactAddsPerNormalize)
        exact_sum_normalize(cells);
}

/* Adds the sum in src into dst, normalized after. */
GH_EXACT_FN void exact_sum_merge(int64_t *dst, const int64_t *src)
{
    int64_t s[kExactCells];
    memcpy(s, src, sizeof s);
    exact_sum_normalize(dst);
    exact_sum_normalize(s);
    for (int c = 0; c < kExactCells; c++)
        if (c != kExactValues)
            dst[c] += s[c];
    exact_sum_normalize(dst);
}

/* What rounding the sum found. */
enum class ExactSumKind { finite, nan, pos_inf, neg_inf, overflow };

/*
 * The sum in cells, of `values` values in all (NULLs aside), rounded to
 * nearest, ties to even, to a binary float of `precision` bits whose least subnormal unit is 2^(least - 1074) and that overflows
 * at 2^max_exponent: (53, 0, 1024) for float8, (24, 925, 128) for float4.
 * kind says what it is: overflow when finite values sum past the largest
 * finite value (*out is then the infinity of the sum's sign), as float8_pl
 * and float4_pl raise.  cells are normalized.  Host only.
 */
inline double exact_sum_round(int64_t *cells, int64_t values, int precision, int least, int max_exponent,
                              ExactSumKind *kind)
{
    const double inf = __builtin_huge_val();
    if (cells[kExactNaN] > 0 || (cells[kExactPosInf] > 0 && cells[kExactNegInf] > 0)) {
        *kind = ExactSumKind::nan;
        return __builtin_nan("");
    }
    if (cells[kExactPosInf] > 0 || cells[kExactNegInf] > 0) {
        *kind = cells[kExactPosInf] > 0 ? ExactSumKind::pos_inf : ExactSumKind::neg_inf;
        return cells[kExactPosInf] > 0 ? inf : -inf;
    }
    *kind = ExactSumKind::finite;
    exact_sum_normalize(cells);
    /* the magnitude as 32-bit digits (two's complement negated where the top limb is negative) */
    uint32_t digit[kExactLimbs];
    const int64_t *limb = cells + kExactFirstLimb;
    const bool negative = limb[kExactLimbs - 1] < 0;
    uint64_t borrow = 1;
    for (int i = 0; i < kExactLimbs; i++) {
        uint32_t d = static_cast<uint32_t>(static_cast<uint64_t>(limb[i]));
        if (negative) {
            const uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(~d)) + borrow;
            d = static_cast<uint32_t>(v);
            borrow = v >> 32;
        }
        digit[i] = d;
    }
    int top = -1; /* the highest set bit's position */
    for (int i = kExactLimbs - 1; i >= 0 && top < 0; i--)
        if (digit[i] != 0)
            top = i * 32 + (31 - __builtin_clz(digit[i]));
    if (top < 0) /* an exact zero: -0 only if every value was -0, as in IEEE addition */
        return values > 0 && cells[kExactNegZero] == values ? -0.0 : 0.0;
    auto bit = [&](int p) -> uint64_t { return p < 0 ? 0 : (digit[p / 32] >> (p % 32)) & 1u; };
    auto digit_at = [&](int i) -> uint64_t { return i < kExactLimbs ? digit[i] : 0; };
    /* the lowest kept position: precision bits from the top, but never below the least unit */
    int q = top - (precision - 1);
    if (q < least)
        q = least;
    /*
     * Bits q .. top, at most 53, from the three digits that hold them, and
     * whether any bit lies below the round bit, a digit at a time: taken
     * bit by bit, a float8 near 1 scanned a thousand zero bits below it,
     * which was a quarter of a grouped scan's time where each group had
     * one value.
     */
    uint64_t mant = 0;
    if (top >= q) {
        const int i = q / 32, r = q % 32, n = top - q + 1;
        uint64_t window = (digit_at(i + 1) << 32 | digit_at(i)) >> r;
        if (r > 0)
            window |= digit_at(i + 2) << (64 - r);
        mant = window & ((uint64_t(1) << n) - 1);
    }
    bool round_bit = q > 0 && bit(q - 1) != 0;
    bool sticky = false;
    const int below = q - 1; /* bits 0 .. below - 1 */
    if (below > 0) {
        const int j = below / 32, s = below % 32;
        sticky = s > 0 && (digit[j] & ((uint32_t(1) << s) - 1)) != 0;
        for (int d = 0; d < j && !sticky; d++)
            sticky = digit[d] != 0;
    }
    if (round_bit && (sticky || (mant & 1)))
        mant++;
    /* mant * 2^(q - 1074); mant <= 2^precision */
    double v = static_cast<double>(mant);
    int scale = q - 1074;
    /* scale in steps, so that no intermediate underflows or overflows before the last */
    while (scale > 0) {
        const int s = scale > 512 ? 512 : scale;
        v *= __builtin_ldexp(1.0, s);
        scale -= s;
        if (v == inf)
            break;
    }
    while (scale < 0) {
        const int s = scale < -512 ? -512 : scale;
        v *= __builtin_ldexp(1.0, s);
        scale -= s;
    }
    if (v >= __builtin_ldexp(1.0, max_exponent)) {
        *kind = ExactSumKind::overflow;
        v = inf;
    }
    return negative ? -v : v;
}

} // namespace gh

#endif /* GH_EXACT_SUM_H */
