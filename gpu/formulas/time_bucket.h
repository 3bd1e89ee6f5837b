/*
 * time_bucket.h: the bucket of an int64 value between int64 bounds, for
 * time histograms (a timestamp's microseconds, a date's day number).
 *
 * It reproduces PostgreSQL's numeric width_bucket(operand, lo, hi, count)
 * over those integers exactly, in integer arithmetic: the quotient
 * q = count * (x - lo) / (hi - lo) (mirrored for lo > hi), plus 1, floored.
 * How the server computes q depends on its major (NumericRule): 18 divides
 * exactly and truncates.  Up to 17, numeric division does not truncate that
 * quotient: it
 * rounds it (half up) to select_div_scale()'s scale, 16 - 4 * qweight
 * decimal places, where qweight estimates the quotient's weight from the
 * leading base-10000 digits of the two operands.  So where q lies within
 * half a unit of that last place below an integer, the server puts x in the
 * next bucket (SELECT width_bucket(33335000000000001::numeric, 0,
 * 100000000000000003, 20000) is 6668, not 6667).  That needs a range wider
 * than 2 * 10^8 units, i.e. only microsecond ranges of minutes and more with
 * many buckets; int64_bucket() applies the same rounding wherever it can
 * change the result.  Where that rounding carries q up to count itself, 15
 * answers count + 1 and 16 and 17 clamp it to count
 * (width_bucket(999999999999999999::numeric, 0, 10^18, 100000) is 100001 on
 * 15 and 100000 on 17).  (The dividend's and divisor's display scales also
 * enter select_div_scale(); for integers, and for extract(epoch ...) *
 * 1000000 with its scale of 6, they are below the 12 places that at most
 * kMaxBins buckets always give, so they never decide.)
 *
 * Only libc headers; compiled by g++ and nvcc (unsigned __int128 works in
 * both).  The quotient is first guessed in double precision.  Where the
 * guess's fraction lies further from an integer than the guess can be off
 * (a few ulps of at most nbins) plus the window in which numeric's rounding
 * could carry the quotient up, the guess's floor is the answer: most
 * values, at a multiplication's cost.  The rest are corrected with exact
 * 128-bit multiplications, so no 128-bit division runs per value on either
 * device.
 */
#ifndef GH_TIME_BUCKET_H
#define GH_TIME_BUCKET_H

#include <cstdint>

#include "bucket.h"

namespace gh {

using u128 = unsigned __int128;

/* Which server's numeric width_bucket to reproduce. */
enum class NumericRule : int32_t {
    pg15 = 15, /* q rounded at select_div_scale()'s places, then floored: PG <= 15 */
    pg16 = 16, /* the same, but a q rounded up to count gives count: PG 16 and 17 */
    pg18 = 18, /* the exact q, truncated: PG >= 18 */
};

/* nbins equal spans between the int64 bounds lo and hi (lo > hi mirrors the numbering). */
struct Int64Spec {
    int64_t lo;
    int64_t hi;
    int32_t nbins;
    NumericRule rule;
};

/* What binning needs, derived once from a validated Int64Spec by prepare_int64(). */
struct Int64Binning {
    int64_t lo;
    int64_t hi;
    uint64_t range;           /* |hi - lo|: up to 2^64 - 1 */
    int32_t nbins;
    bool ascending;
    bool clamp_to_count;      /* a q rounded up to nbins stays in bucket nbins (PG 16, 17) */
    double scale;             /* nbins / range: the first guess of the quotient */
    double slack;             /* a guess whose fraction is within this of an integer is checked exactly */
    uint64_t round_window;    /* only range - remainder <= this can round up; 0: nothing can */
    int32_t range_weight;     /* base-10000 weight and leading digit of range, as numeric sees it */
    int32_t range_first_digit;
};

namespace detail {

/* 10000^k for k = 0 .. 7; count * range < 2^88 < 10000^7. */
GH_HOST_DEVICE u128 pow10000(int k)
{
    u128 p = 1;
    for (int i = 0; i < k; i++)
        p *= 10000u;
    return p;
}

/* The base-10000 weight of v > 0: the largest w with 10000^w <= v. */
GH_HOST_DEVICE int32_t weight10000(u128 v)
{
    int32_t w = 0;
    u128 p = 10000u;
    while (w < 7 && v >= p) {
        w++;
        p *= 10000u;
    }
    return w;
}

/*
 * Whether numeric division rounds the quotient N / range, whose remainder
 * r is not 0, up to the next integer: select_div_scale() gives
 * s = 16 - 4 * qweight places, with qweight = weight(N) - weight(range),
 * less 1 when N's leading digit is not above range's; rounding half up at s
 * places reaches the next integer when 2 * (range - r) * 10^s <= range.
 */
GH_HOST_DEVICE bool quotient_rounds_up(u128 n, uint64_t r, const Int64Binning &b)
{
    uint64_t gap = b.range - r;
    if (gap > b.round_window)
        return false;
    int32_t w = weight10000(n);
    /* N's leading digit <= range's leading digit: N < (first + 1) * 10000^w */
    bool lead_not_above = n < static_cast<u128>(b.range_first_digit + 1) * pow10000(w);
    int32_t qweight = w - b.range_weight - (lead_not_above ? 1 : 0);
    int32_t s = 16 - 4 * qweight;
    if (s < 0)
        s = 0;
    if (s >= 19) /* 2 * 10^s > 2^64 > range: cannot round up */
        return false;
    u128 p10 = 1;
    for (int32_t i = 0; i < s; i++)
        p10 *= 10u;
    return 2 * static_cast<u128>(gap) * p10 <= b.range;
}

/* The inner bucket (1 .. nbins, or nbins + 1 through the rounding) at distance 0 <= d < range. */
GH_HOST_DEVICE int32_t int64_inner_bucket(uint64_t d, const Int64Binning &b)
{
    double guess = mul(static_cast<double>(d), b.scale);
    const double whole = floor_of(guess);
    const double fraction = sub(guess, whole); /* exact: guess < 2^24 */
    if (fraction > b.slack && fraction < 1.0 - b.slack)
        return static_cast<int32_t>(whole) + 1; /* the exact quotient has the same floor and does not round up */
    u128 n = static_cast<u128>(d) * static_cast<uint32_t>(b.nbins);
    uint64_t q = guess < static_cast<double>(b.nbins) ? static_cast<uint64_t>(guess) : b.nbins - 1;
    u128 p = static_cast<u128>(q) * b.range;
    while (p > n) { /* the guess is off by at most one; these loops fix it exactly */
        q--;
        p -= b.range;
    }
    while (n - p >= b.range) {
        q++;
        p += b.range;
    }
    uint64_t r = static_cast<uint64_t>(n - p);
    int32_t bucket = static_cast<int32_t>(q) + 1 + (r != 0 && quotient_rounds_up(n, r, b) ? 1 : 0);
    return b.clamp_to_count && bucket > b.nbins ? b.nbins : bucket;
}

} // namespace detail

/* numeric width_bucket(x, lo, hi, nbins) over int64s, for a spec validate_int64_spec() accepted. */
GH_HOST_DEVICE int32_t int64_bucket(int64_t x, const Int64Binning &b)
{
    if (b.ascending) {
        if (x < b.lo)
            return 0;
        if (x >= b.hi)
            return b.nbins + 1;
        return detail::int64_inner_bucket(static_cast<uint64_t>(x) - static_cast<uint64_t>(b.lo), b);
    }
    if (x > b.lo)
        return 0;
    if (x <= b.hi)
        return b.nbins + 1;
    return detail::int64_inner_bucket(static_cast<uint64_t>(b.lo) - static_cast<uint64_t>(x), b);
}

/*
 * Checks a spec in numeric width_bucket's order: the count, then infinite
 * bounds (which the caller recognises: the engine knows no PostgreSQL type),
 * then equal bounds; then the engine's own limit on nbins.
 */
inline SpecError validate_int64_spec(const Int64Spec &spec, bool bound_is_infinite)
{
    if (spec.nbins <= 0)
        return SpecError::nbins_not_positive;
    if (bound_is_infinite)
        return SpecError::bound_not_finite;
    if (spec.lo == spec.hi)
        return SpecError::bounds_equal;
    if (spec.nbins > kMaxBins)
        return SpecError::nbins_too_large;
    return SpecError::none;
}

/* The binning constants of a validated spec; cheap enough to call per batch. */
inline Int64Binning prepare_int64(const Int64Spec &spec)
{
    Int64Binning b{};
    b.lo = spec.lo;
    b.hi = spec.hi;
    b.nbins = spec.nbins;
    b.ascending = spec.lo < spec.hi;
    b.clamp_to_count = spec.rule == NumericRule::pg16;
    b.range = b.ascending ? static_cast<uint64_t>(spec.hi) - static_cast<uint64_t>(spec.lo)
                          : static_cast<uint64_t>(spec.lo) - static_cast<uint64_t>(spec.hi);
    b.scale = static_cast<double>(spec.nbins) / static_cast<double>(b.range);
    b.range_weight = detail::weight10000(b.range);
    b.range_first_digit = static_cast<int32_t>(b.range / static_cast<uint64_t>(detail::pow10000(b.range_weight)));
    /*
     * The fewest places any quotient gets: qweight is at most
     * weight(nbins * range) - weight(range).  Rounding up needs
     * range - r <= range / (2 * 10^s) for that s.
     */
    int32_t max_qweight = detail::weight10000(static_cast<u128>(b.range) * static_cast<uint32_t>(spec.nbins)) -
                          b.range_weight;
    int32_t s_min = 16 - 4 * max_qweight;
    if (s_min < 0)
        s_min = 0;
    if (s_min >= 19 || spec.rule == NumericRule::pg18) { /* 18 never rounds */
        b.round_window = 0;
    } else {
        u128 p10 = 1;
        for (int32_t i = 0; i < s_min; i++)
            p10 *= 10u;
        b.round_window = static_cast<uint64_t>(static_cast<u128>(b.range) / (2 * p10));
    }
    /*
     * The guess d * scale carries three roundings (d, scale, the product;
     * four with range's own for the widest ranges): within 2^-51 of the
     * quotient relatively, so within (nbins + 1) * 2^-51 of it; four times
     * that is kept.  A quotient whose fraction is more than
     * round_window / range below 1 cannot round up.  Twice the sum, so that
     * computing it in doubles cannot make it too small.
     */
    const double error = (static_cast<double>(spec.nbins) + 1) * 0x1p-49;
    const double window = (static_cast<double>(b.round_window) + 1) / static_cast<double>(b.range);
    b.slack = 2 * (error + window);
    if (!(b.slack < 0.25))
        b.slack = 1.0; /* no fraction is further than that from an integer: always exact */
    return b;
}

/*
 * The reference the tests check int64_bucket() against: the same numeric
 * rule, written the slow obvious way (128-bit division).  Not for binning.
 */
inline int32_t int64_bucket_reference(int64_t x, const Int64Spec &spec)
{
    bool up = spec.lo < spec.hi;
    if (up ? x < spec.lo : x > spec.lo)
        return 0;
    if (up ? x >= spec.hi : x <= spec.hi)
        return spec.nbins + 1;
    u128 d = up ? static_cast<u128>(static_cast<uint64_t>(x) - static_cast<uint64_t>(spec.lo))
                : static_cast<u128>(static_cast<uint64_t>(spec.lo) - static_cast<uint64_t>(x));
    u128 range = up ? static_cast<uint64_t>(spec.hi) - static_cast<uint64_t>(spec.lo)
                    : static_cast<uint64_t>(spec.lo) - static_cast<uint64_t>(spec.hi);
    u128 n = d * static_cast<uint32_t>(spec.nbins);
    u128 q = n / range, r = n % range;
    if (r == 0 || spec.rule == NumericRule::pg18)
        return static_cast<int32_t>(q) + 1;
    /* select_div_scale(), digit by digit */
    auto lead = [](u128 v, int32_t *weight) {
        int32_t w = 0;
        while (v >= 10000) {
            v /= 10000;
            w++;
        }
        *weight = w;
        return static_cast<int32_t>(v);
    };
    int32_t w1, w2;
    int32_t f1 = lead(n, &w1), f2 = lead(range, &w2);
    int32_t qweight = w1 - w2 - (f1 <= f2 ? 1 : 0);
    int32_t s = 16 - 4 * qweight;
    if (s < 0)
        s = 0;
    /* round half up at s places: frac(q) * 10^s + 1/2 >= 10^s (never for s >= 19: range < 2 * 10^19) */
    if (s <= 18) {
        u128 p10 = 1;
        for (int32_t i = 0; i < s; i++)
            p10 *= 10u;
        if (2 * (range - r) * p10 <= range) /* rounds up to q + 1 */
            return spec.rule == NumericRule::pg16 && q + 1 >= static_cast<u128>(spec.nbins)
                       ? spec.nbins
                       : static_cast<int32_t>(q) + 2;
    }
    return static_cast<int32_t>(q) + 1;
}

} // namespace gh

#endif /* GH_TIME_BUCKET_H */
