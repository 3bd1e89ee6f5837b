/*
 * bucket_fast.h: width_bucket (bucket.h) without a division for nearly
 * every value, for the CUDA kernels.
 *
 * A GPU divides doubles in software: a reciprocal estimate, Newton steps
 * and a correction, a dozen dependent instructions and a branch to a slow
 * path.  With many buckets the kernels are bound by the instructions they
 * issue, not by memory (ncu on 1,000,000 buckets,
 * docs/performance.md#what-the-kernel-choices-rest-on), and the division is the largest part of binning a value.
 *
 * Multiplying by the range's reciprocal, rounded once on the host, gives
 * what the reference computes within a few units in the last place.  The
 * integer the reference truncates to can differ from ours only where our
 * product lies that close to an integer; there the exact quotient is looked
 * for (below) and, failing that, the reference formula itself is
 * evaluated.  So every answer is width_bucket's, bit for bit, and only
 * values within about 1e-9 (relative to nbins) of a bucket's edge pay for
 * the division.  The bound, for u = 2^-53 and n = nbins: the reference's
 * own roundings are within 2u(n + 2) of the exact quotient, ours within
 * 3.1u(n + 2), so the two differ by less than 5.1u(n + 3) < 2^-50 (n + 3);
 * the slack is 2^-48 (n + 3), four times that.
 * Above the lowest bucket, a product that far below an integer may stand
 * for a reference value on its other side; at the lowest (1 for PG 15's
 * formula, which adds one to a quotient that is never negative; 0 for PG
 * 16's product before its + 1) nothing lies below, so x == lo never
 * needs the division.
 *
 * The CPU loop keeps bucket.h's formula: it vectorizes, and a division
 * there costs little next to reading the tuples.
 */
#ifndef GH_BUCKET_FAST_H
#define GH_BUCKET_FAST_H

#include <cstring>

#include "bucket.h"

/* for the rare path: a call there keeps the common path short */
#ifdef __CUDACC__
#define GH_OUT_OF_LINE static __host__ __device__ __noinline__
#else
#define GH_OUT_OF_LINE inline
#endif

namespace gh {

/* What the fast form needs of a spec, computed once on the host by reciprocal_for(). */
struct Reciprocal {
    double inverse; /* RN(1 / range), range as bucket_towards measures it */
    double slack;   /* 2^-48 (nbins + 3); 2 where the reciprocal is not usable: always the reference */
};

namespace detail {

/* fma(a, b, c) with one rounding, on either side: its sign and zero are exact. */
GH_HOST_DEVICE double fused(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

/*
 * 1.5 * 2^52: for 0 <= p < 2^51, p + this rounds p to its nearest integer
 * and holds it in the low word, with no conversion instruction (those
 * issue at a quarter of the rate of additions; the two forms measured
 * within 1 % of each other, and this one is kept: docs/performance.md#what-the-kernel-choices-rest-on).
 */
constexpr double kRoundingShift = 6755399441055744.0;

GH_HOST_DEVICE int32_t low_word(double d)
{
#ifdef __CUDA_ARCH__
    return __double2loint(d);
#else
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return static_cast<int32_t>(static_cast<uint32_t>(bits));
#endif
}

GH_HOST_DEVICE double magnitude(double d)
{
#ifdef __CUDA_ARCH__
    return fabs(d);
#else
    return std::fabs(d);
#endif
}
GH_HOST_DEVICE float magnitude(float f)
{
#ifdef __CUDA_ARCH__
    return fabsf(f);
#else
    return std::fabs(f);
#endif
}

/* What the reciprocal gives for a distance, and whether that leaves the bucket in doubt. */
struct Product {
    double dividend; /* what PG divides by the range: nbins * distance (15), distance (16) */
    double t;        /* dividend * inverse, within a few ulps of the quotient */
    int32_t k;       /* the integer PG would truncate, if t were its quotient */
    bool doubt;      /* the product lies within slack of an integer (or no usable reciprocal) */
};

GH_HOST_DEVICE Product reciprocal_product(double distance, int32_t nbins, BucketRule rule, const Reciprocal &rc)
{
    const double n = static_cast<double>(nbins);
    const double dividend = rule == BucketRule::pg15 ? mul(n, distance) : distance;
    if (!(rc.slack < 1.0))
        return Product{dividend, NAN, 0, true};
    const double t = mul(dividend, rc.inverse);
    /* 0 <= distance < range: 0 <= p < n + 2 */
    const double p = rule == BucketRule::pg15 ? add(t, 1.0) : mul(n, t);
    /* p's nearest integer, and p's distance from it, both exact (Sterbenz), with no conversion */
    const double shifted = add(p, kRoundingShift);
    const double off = sub(p, sub(shifted, kRoundingShift));
    const int32_t k = low_word(shifted) - (off < 0.0 ? 1 : 0);
    const int32_t least = rule == BucketRule::pg15 ? 1 : 0;
    /* within slack of an integer; but just above the lowest, nothing lies below */
    return Product{dividend, t, k, !(magnitude(off) >= rc.slack) && !(off >= 0.0 && k == least)};
}

/* The inner bucket from the integer PG truncates. */
GH_HOST_DEVICE int32_t bucket_of_truncated(int32_t k, int32_t nbins, BucketRule rule)
{
    return rule == BucketRule::pg15 ? k : (k >= nbins ? nbins - 1 : k) + 1;
}

/*
 * A product in doubt, told without dividing where the quotient is known:
 * when range times a candidate is exactly the dividend (its fused residual
 * is 0), the candidate is the exact quotient, so the reference's rounded
 * quotient is that candidate and its next steps are ours.  Candidates: t,
 * and the integer nearest it, which is PG 15's quotient for a value exactly
 * on a bucket's edge (integers in integer buckets).  PG 16's quotient there
 * is distance / range, known only where it is a double (0.5 of [0, 1), not
 * 3 / 100).  -1: neither; the division decides.
 */
GH_HOST_DEVICE int32_t bucket_by_residual(const Product &pr, double range, int32_t nbins, BucketRule rule)
{
    double q = pr.t;
    if (!(fused(-q, range, pr.dividend) == 0.0)) {
        q = rint(pr.t);
        if (!(fused(-q, range, pr.dividend) == 0.0))
            return -1;
    }
    const double p = rule == BucketRule::pg15 ? add(q, 1.0) : mul(static_cast<double>(nbins), q);
    return bucket_of_truncated(static_cast<int32_t>(p), nbins, rule);
}

/*
 * The inner bucket of inner_bucket(distance, range, nbins, rule) from the
 * reciprocal, or -1 where only the division can tell (the tests ask this).
 */
GH_HOST_DEVICE int32_t reciprocal_bucket(double distance, double range, int32_t nbins, BucketRule rule,
                                         const Reciprocal &rc)
{
    const Product pr = reciprocal_product(distance, nbins, rule, rc);
    return pr.doubt ? bucket_by_residual(pr, range, nbins, rule) : bucket_of_truncated(pr.k, nbins, rule);
}

/*
 * A product in doubt whose t is not the quotient: the integer nearest t,
 * else the division.  Out of line on the device, so that the common path
 * stays short: inlined, this code took the gain on random input away
 * (docs/performance.md#what-the-kernel-choices-rest-on).
 */
GH_OUT_OF_LINE int32_t bucket_in_doubt(double distance, double range, int32_t nbins, BucketRule rule,
                                       double dividend, double t)
{
    const int32_t b = bucket_by_residual(Product{dividend, t, 0, true}, range, nbins, rule);
    return b >= 0 ? b : inner_bucket(distance, range, nbins, rule);
}

/*
 * inner_bucket(), by the reciprocal where it can tell.  A product in doubt
 * whose t is the exact quotient (constant 0.5 of [0, 1), integers of [0,
 * 100)) is settled here, by one fused multiply-add: a call for every such
 * value made constant input a third slower (docs/performance.md#what-the-kernel-choices-rest-on).
 */
GH_HOST_DEVICE int32_t inner_bucket_fast(double distance, double range, int32_t nbins, BucketRule rule,
                                         const Reciprocal &rc)
{
    const Product pr = reciprocal_product(distance, nbins, rule, rc);
    if (__builtin_expect(pr.doubt, 0) && fused(-pr.t, range, pr.dividend) != 0.0)
        return bucket_in_doubt(distance, range, nbins, rule, pr.dividend, pr.t);
    return bucket_of_truncated(pr.k, nbins, rule);
}

/* bucket_towards with inner_bucket_fast: the same selects, the same distance and range. */
GH_HOST_DEVICE int32_t bucket_towards_fast(double x, double from, double to, int32_t nbins, BucketRule rule,
                                           const Reciprocal &rc)
{
    bool inside = (x >= from) & (x < to);
    double xin = inside ? x : from;
    double distance, range;
    measure(xin, from, to, rule, distance, range);
    int32_t inner = inner_bucket_fast(distance, range, nbins, rule, rc);
    int32_t outer = outer_bucket(x, from, to, nbins);
    return inside ? inner : outer;
}

} // namespace detail

/* The reciprocal of a validated spec's range, measured as bucket_towards measures it. */
inline Reciprocal reciprocal_for(const BucketSpec &spec)
{
    const bool up = spec.lo < spec.hi;
    const double from = up ? spec.lo : -spec.lo, to = up ? spec.hi : -spec.hi;
    double distance, range;
    detail::measure(from, from, to, spec.rule, distance, range);
    const double inverse = 1.0 / range;
    const bool usable = std::isnormal(range) && std::isnormal(inverse) && spec.nbins > 0;
    return Reciprocal{inverse, usable ? std::ldexp(static_cast<double>(spec.nbins) + 3.0, -48) : 2.0};
}

/* bucket_ascending and bucket_descending of bucket.h, with rc = reciprocal_for(spec). */
GH_HOST_DEVICE int32_t bucket_ascending_fast(double x, const BucketSpec &spec, const Reciprocal &rc)
{
    return detail::bucket_towards_fast(x, spec.lo, spec.hi, spec.nbins, spec.rule, rc);
}
GH_HOST_DEVICE int32_t bucket_descending_fast(double x, const BucketSpec &spec, const Reciprocal &rc)
{
    return detail::bucket_towards_fast(-x, -spec.lo, -spec.hi, spec.nbins, spec.rule, rc);
}

} // namespace gh

#endif /* GH_BUCKET_FAST_H */
