/*
 * bucket_single.h: width_bucket of a float4 value in single precision, for
 * the CUDA kernels.
 *
 * PostgreSQL bins a float4 column by casting each value to float8, so the
 * answer must be bucket.h's for (double) x.  bucket_fast.h computes that
 * with about a dozen double-precision instructions a value.  Over float4,
 * half the bytes a value, those instructions are what bound the kernel: on
 * the H100 it read at 67 % of the read ceiling at 16 and 256 buckets,
 * uniform or constant, where float8 input reads at 98 %.  An H100 issues
 * single-precision arithmetic at twice the double rate and needs no
 * conversion for it: this form reads at 92 to 97 % there up to 4,096
 * buckets.
 *
 * So the product (y - from) * (nbins / range) is computed in single
 * precision, with from and nbins / range rounded to floats once on the
 * host.  For v = 2^-24 and s = nbins / range, and values up to a bucket
 * outside the range, it lies within
 *     3.01 v (nbins + 3) + 1.01 v |from| s
 * of the exact quotient nbins (y - from) / range, and PostgreSQL's double
 * result within 2^-52 (nbins + 2) of it.  Where the product lies at least
 *     slack = 2^-22 (nbins + 3 + |from| s) + 2^-40
 * (above that bound) from every integer, both truncate alike, and a
 * product below 0 (at or above nbins) means a value below the range (at or
 * above its end).  Nearer than that (2 slack of all values: 1e-5 at 16
 * buckets, 0.2 % at 4,096), a table of the buckets' edges decides exactly
 * (single_edge), or without one the float8 form.  Where the slack would
 * pass 1/32 (over 6 % of the values in doubt: a range narrow next to its
 * distance from zero, or more than about 130,000 buckets) or the bound does
 * not hold (bounds beyond 2^100), every value is in doubt.
 *
 * Descending specs are negated first, as in bucket.h: -x is exact.
 */
#ifndef GH_BUCKET_SINGLE_H
#define GH_BUCKET_SINGLE_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "bucket.h"
#include "bucket_fast.h" /* detail::magnitude */

namespace gh {

/* What the single-precision form needs of a spec, computed by single_binning_for(). */
struct SingleBinning {
    float from;  /* from, rounded */
    float scale; /* nbins / range, rounded */
    float top;   /* nbins + 0.5: products are clamped to [-0.5, top] */
    float slack; /* see above; +inf where the form is useless, so that every value is in doubt */
};

/* What bucket_single() returns for a value only the float8 form can place. */
constexpr int32_t kSingleInDoubt = -100;

namespace detail {

/* 1.5 * 2^23: for -0.5 <= t < 2^22, t + this rounds t to its nearest integer, held in the low bits. */
constexpr float kSingleRoundingShift = 12582912.0f;

GH_HOST_DEVICE int32_t float_bits(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_int(f);
#else
    int32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
#endif
}
/* max and min against a finite bound; a NaN product (an infinity times a useless spec's 0) becomes the bound */
GH_HOST_DEVICE float fmax_of(float a, float b)
{
#ifdef __CUDA_ARCH__
    return fmaxf(a, b);
#else
    return a > b ? a : b;
#endif
}
GH_HOST_DEVICE float fmin_of(float a, float b)
{
#ifdef __CUDA_ARCH__
    return fminf(a, b);
#else
    return a < b ? a : b;
#endif
}

} // namespace detail

/* The single-precision constants of a validated spec; see the header comment for the bound. */
inline SingleBinning single_binning_for(const BucketSpec &spec)
{
    const SingleBinning useless{0.0f, 0.0f, 0.0f, INFINITY};
    const bool up = spec.lo < spec.hi;
    const double from = up ? spec.lo : -spec.lo, to = up ? spec.hi : -spec.hi;
    const double limit = std::ldexp(1.0, 100);
    if (!(std::fabs(from) < limit && std::fabs(to) < limit) || spec.nbins <= 0 || spec.nbins > (1 << 21))
        return useless;
    double distance, range;
    detail::measure(from, from, to, spec.rule, distance, range);
    const double s = static_cast<double>(spec.nbins) / range;
    if (!(s >= 1.0 / limit && s <= limit))
        return useless;
    const double slack =
        std::ldexp(static_cast<double>(spec.nbins) + 3.0 + std::fabs(from) * s, -22) + std::ldexp(1.0, -40);
    /* past 1/32, over 6 % of the values would take both forms: then only the float8 one */
    if (!(slack < 1.0 / 32))
        return useless;
    return SingleBinning{static_cast<float>(from), static_cast<float>(s), static_cast<float>(spec.nbins) + 0.5f,
                         /* rounded up, so that the float is never below the bound */
                         std::nextafter(static_cast<float>(slack), INFINITY)};
}

namespace detail {

/* Floats in their numeric order as unsigned integers (-0 just below +0), for the search below. */
GH_HOST_DEVICE uint32_t float_key(float f)
{
    const uint32_t u = static_cast<uint32_t>(float_bits(f));
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
GH_HOST_DEVICE float float_of_key(uint32_t k)
{
    const uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
#ifdef __CUDA_ARCH__
    return __int_as_float(static_cast<int32_t>(u));
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

} // namespace detail

/*
 * The least float y whose bucket is at least j (1 <= j <= nbins + 1), y
 * being the value itself, or its negation for a descending spec: an edge of
 * the table that settles a value in doubt.  A bucket never decreases as y
 * grows (every rounding step of both rules is monotonic), so the edge is
 * found by a search from its float8 estimate, outwards by doubling steps
 * and then by halving: two or three buckets for any spec whose single form
 * is usable, since floats there lie well within a bucket of each other.
 * bucket.h's division, not bucket_fast.h: next to an edge the reciprocal's
 * product is always in doubt and ends in the division anyway.
 */
template <bool Ascending>
GH_HOST_DEVICE float single_edge(int32_t j, const BucketSpec &spec)
{
    auto at_least_j = [&](uint32_t key) {
        const float y = detail::float_of_key(key);
        const double x = static_cast<double>(Ascending ? y : -y);
        return (Ascending ? bucket_ascending(x, spec) : bucket_descending(x, spec)) >= j;
    };
    const double from = Ascending ? spec.lo : -spec.lo, to = Ascending ? spec.hi : -spec.hi;
    const double guess = from + (to - from) * (static_cast<double>(j - 1) / spec.nbins);
    /* below: bucket < j (-inf's is 0); above: bucket >= j (+inf's is nbins + 1) */
    uint32_t below = detail::float_key(-INFINITY), above = detail::float_key(INFINITY);
    const uint32_t g = detail::float_key(static_cast<float>(guess));
    if (at_least_j(g)) {
        above = g;
        for (uint32_t step = 1; above - below > 1; step *= 2) {
            const uint32_t probe = above - below > step ? above - step : below;
            if (probe == below || !at_least_j(probe)) {
                below = probe;
                break;
            }
            above = probe;
        }
    } else {
        below = g;
        for (uint32_t step = 1; above - below > 1; step *= 2) {
            const uint32_t probe = above - below > step ? below + step : above;
            if (probe == above || at_least_j(probe)) {
                above = probe;
                break;
            }
            below = probe;
        }
    }
    while (above - below > 1) {
        const uint32_t mid = below + (above - below) / 2;
        if (at_least_j(mid))
            above = mid;
        else
            below = mid;
    }
    return detail::float_of_key(above);
}

/*
 * width_bucket((double) x, spec) for the spec sb was made from.  The
 * product is clamped to [-0.5, nbins + 0.5], which keeps values far outside
 * the range (and infinities) in the rounding trick's reach and puts them in
 * bucket 0 or nbins + 1 with no comparison of their own: a product at least
 * slack below 0 (above nbins) means a value below from (at or above to).
 * A value in doubt lies within slack of an integer m, 0 <= m <= nbins, so
 * its bucket is m or m + 1: edges[m + 1] (single_edge(m + 1), for every m)
 * tells which; without edges it returns kSingleInDoubt, for the float8
 * form.  Ascending: lo < hi.
 */
template <bool Ascending>
GH_HOST_DEVICE int32_t bucket_single(float x, const SingleBinning &sb, const float *edges)
{
    const float y = Ascending ? x : -x;
    if (y != y)
        return kNaNBucket;
    const float t =
        detail::fmin_of(detail::fmax_of(detail::mul(detail::sub(y, sb.from), sb.scale), -0.5f), sb.top);
    const float shifted = detail::add(t, detail::kSingleRoundingShift);
    const float off = detail::sub(t, detail::sub(shifted, detail::kSingleRoundingShift));
    /* t's nearest integer (a tie at -0.5 or top goes either way: off is then +-0.5, no doubt) */
    const int32_t nearest = detail::float_bits(shifted) - detail::float_bits(detail::kSingleRoundingShift);
    if (!(detail::magnitude(off) >= sb.slack)) {
        if (edges == nullptr)
            return kSingleInDoubt;
        return nearest + (y >= edges[nearest + 1] ? 1 : 0);
    }
    /* floor(t) + 1: 0 below the range, nbins + 1 above it */
    return nearest + (off < 0.0f ? 0 : 1);
}

} // namespace gh

#endif /* GH_BUCKET_SINGLE_H */
