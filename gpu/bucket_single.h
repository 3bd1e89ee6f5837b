/*
 * bucket_single.h: width_bucket of a float4 value in single precision, for
 * the CUDA kernels.
 *
 * PostgreSQL bins a float4 column by casting each value to float8, so the
 * answer must be bucket.h's for (double) x.  bucket_fast.h computes that
 * with about a dozen double-precision instructions a value.  Over float4,
 * half the bytes a value, those instructions are what bound the kernel: on
 * the H100, 67 % of the read ceiling at 16 and 256 buckets, uniform or
 * constant, where float8 input reads at 98 % (test/gpu/RUNS.md, run 83).
 * An H100 issues single-precision arithmetic at twice the double rate and
 * needs no conversion for it.
 *
 * So the product (y - from) * (nbins / range) is computed in single
 * precision, with from and nbins / range rounded to floats once on the
 * host.  For v = 2^-24 and s = nbins / range, it lies within
 *     3.01 v (nbins + 2) + 1.01 v |from| s
 * of the exact quotient nbins (y - from) / range, and PostgreSQL's double
 * result within 2^-52 (nbins + 2) of it.  Where the product lies at least
 *     slack = 2^-21 (nbins + 2 + |from| s) + 2^-40
 * (over twice that bound) from every integer, both truncate alike.  Nearer
 * than that (2 slack of all values: 4e-5 at 16 buckets, 0.4 % at 4,096)
 * the float8 form decides, exactly.  Whether y lies inside [from, to) is
 * decided by comparing it with the least floats at or above the bounds,
 * which is exact.  Where the slack would pass 1/32 (over 6 % of the values
 * in doubt: a range narrow next to its distance from zero, or more than
 * about 65,000 buckets) or the bound does not hold (bounds beyond 2^100),
 * every value goes to the float8 form.
 *
 * Descending specs are negated first, as in bucket.h: -x is exact.
 */
#ifndef GH_BUCKET_SINGLE_H
#define GH_BUCKET_SINGLE_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "bucket.h"
#include "bucket_fast.h"

namespace gh {

/* What the single-precision form needs of a spec, computed by single_binning_for(). */
struct SingleBinning {
    float first; /* the least float >= from: a float y >= from exactly when y >= first */
    float past;  /* the least float >= to */
    float from;  /* from, rounded */
    float scale; /* nbins / range, rounded */
    float slack; /* see above; +inf where the form is useless */
    int32_t least; /* the lowest integer whose nearness is a doubt: 1, or INT32_MIN where useless */
};

/* What bucket_single() returns for a value only the float8 form can place. */
constexpr int32_t kSingleInDoubt = -100;

namespace detail {

/* 1.5 * 2^23: for 0 <= t < 2^22, t + this rounds t to its nearest integer, held in the low bits. */
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
GH_HOST_DEVICE float fsub(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
GH_HOST_DEVICE float fadd(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
GH_HOST_DEVICE float fmul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
GH_HOST_DEVICE float fmagnitude(float f)
{
#ifdef __CUDA_ARCH__
    return fabsf(f);
#else
    return std::fabs(f);
#endif
}

/* The least float at or above d (+inf above the largest float). */
inline float least_float_at_or_above(double d)
{
    float f = static_cast<float>(d);
    if (static_cast<double>(f) < d)
        f = std::nextafter(f, INFINITY);
    return f;
}

} // namespace detail

/* The single-precision constants of a validated spec; see the header comment for the bound. */
inline SingleBinning single_binning_for(const BucketSpec &spec)
{
    const SingleBinning useless{-INFINITY, INFINITY, 0.0f, 0.0f, INFINITY, INT32_MIN};
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
        std::ldexp(static_cast<double>(spec.nbins) + 2.0 + std::fabs(from) * s, -21) + std::ldexp(1.0, -40);
    /* past 1/32, over 6 % of the values would take both forms: then only the float8 one */
    if (!(slack < 1.0 / 32))
        return useless;
    return SingleBinning{detail::least_float_at_or_above(from), detail::least_float_at_or_above(to),
                         static_cast<float>(from), static_cast<float>(s),
                         /* rounded up, so that the float is never below the bound */
                         std::nextafter(static_cast<float>(slack), INFINITY), 1};
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
 * and then by halving: two or three exact buckets (bucket_fast.h) for any
 * spec whose single form is usable, since floats there lie well within a
 * bucket of each other.
 */
template <bool Ascending>
GH_HOST_DEVICE float single_edge(int32_t j, const BucketSpec &spec, const Reciprocal &rc)
{
    auto at_least_j = [&](uint32_t key) {
        const float y = detail::float_of_key(key);
        const double x = static_cast<double>(Ascending ? y : -y);
        return (Ascending ? bucket_ascending_fast(x, spec, rc) : bucket_descending_fast(x, spec, rc)) >= j;
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
 * width_bucket((double) x, spec) for the spec sb was made from.  A value in
 * doubt lies within slack of an integer m >= 1, so its bucket is m or m + 1:
 * edges[m + 1] (single_edge(m + 1), for every m) tells which; without edges
 * it returns kSingleInDoubt, for the float8 form.  Ascending: lo < hi.
 */
template <bool Ascending>
GH_HOST_DEVICE int32_t bucket_single(float x, const SingleBinning &sb, int32_t nbins, const float *edges)
{
    const float y = Ascending ? x : -x;
    if (!(y >= sb.first))
        return y != y ? kNaNBucket : 0;
    if (y >= sb.past)
        return nbins + 1;
    /* 0 <= t < nbins + slack: at the lowest bound y - from is never negative */
    const float t = detail::fmul(detail::fsub(y, sb.from), sb.scale);
    const float shifted = detail::fadd(t, detail::kSingleRoundingShift);
    const float off = detail::fsub(t, detail::fsub(shifted, detail::kSingleRoundingShift));
    const int32_t nearest = detail::float_bits(shifted) - detail::float_bits(detail::kSingleRoundingShift);
    /* near 0 the quotient is at least 0 on both sides: truncated, 0, so no doubt there */
    if (!(detail::fmagnitude(off) >= sb.slack) && nearest >= sb.least) {
        if (edges == nullptr)
            return kSingleInDoubt;
        return nearest + (y >= edges[nearest + 1] ? 1 : 0);
    }
    const int32_t below = nearest - (off < 0.0f ? 1 : 0);
    return (below > 0 ? below : 0) + 1;
}

} // namespace gh

#endif /* GH_BUCKET_SINGLE_H */
