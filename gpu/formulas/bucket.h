/*
 * bucket.h: the one definition of which bucket a value falls in.
 *
 * Everything that bins (the CPU backend, the CUDA kernels, the unit tests'
 * reference) calls width_bucket() below, so the GPU and the CPU cannot drift
 * apart.  It reproduces PostgreSQL's own width_bucket(float8, float8, float8,
 * int) bit for bit, including its rounding quirks, for the server version the
 * extension is built against: PostgreSQL 15 and older multiply before they
 * divide (and can land a value just under the upper bound in the overflow
 * bucket); PostgreSQL 16 divides first and clamps.
 *
 * This header includes only libc headers and compiles under g++ and nvcc.
 * Device code uses the explicitly rounded intrinsics so that nvcc can never
 * contract the arithmetic into an FMA; host code is compiled with
 * -ffp-contract=off for the same reason.
 */
#ifndef GH_BUCKET_H
#define GH_BUCKET_H

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define GH_HOST_DEVICE __host__ __device__ __forceinline__
#else
/* always inlined, so that SIMD clones of the CPU loop get their own copy */
#define GH_HOST_DEVICE inline __attribute__((always_inline))
#endif

namespace gh {

/* Which server's width_bucket to reproduce. */
enum class BucketRule : int32_t {
    pg15 = 15, /* count * (x - lo) / (hi - lo) + 1, truncated: PG <= 15 */
    pg16 = 16, /* count * ((x - lo) / (hi - lo)), clamped to count - 1, + 1: PG >= 16 */
};

/* Largest nbins the engine accepts; the README states it. */
constexpr int32_t kMaxBins = 10000000;

/*
 * A validated histogram layout: nbins inner buckets between lo and hi (lo > hi
 * mirrors the numbering), plus bucket 0 below and bucket nbins + 1 above.
 */
struct BucketSpec {
    double lo;
    double hi;
    int32_t nbins;
    BucketRule rule;
};

namespace detail {
GH_HOST_DEVICE bool is_finite(double x)
{
#ifdef __CUDA_ARCH__
    return isfinite(x);
#else
    return std::isfinite(x);
#endif
}
GH_HOST_DEVICE double floor_of(double x)
{
#ifdef __CUDA_ARCH__
    return floor(x);
#else
    return std::floor(x);
#endif
}
GH_HOST_DEVICE double mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
GH_HOST_DEVICE double div(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
GH_HOST_DEVICE double add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
GH_HOST_DEVICE double sub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
/* The same in single precision, for float4 values (bucket_single.h). */
GH_HOST_DEVICE float mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
GH_HOST_DEVICE float add(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
GH_HOST_DEVICE float sub(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

/*
 * The inner bucket (1 .. nbins, or nbins + 1 through PG 15's rounding) of a
 * value `distance` away from the starting bound of a range `range` wide, both
 * measured in the direction of the numbering.  Only called with
 * 0 <= distance < range, where the conversion to int cannot overflow.
 */
GH_HOST_DEVICE int32_t inner_bucket(double distance, double range, int32_t nbins, BucketRule rule)
{
    if (rule == BucketRule::pg15) {
        /* PG 15: ((float8) count * (operand - bound1) / (bound2 - bound1)) + 1 */
        return static_cast<int32_t>(add(div(mul(static_cast<double>(nbins), distance), range), 1.0));
    }
    /* PG 16: count * (distance / range), clamped below count, + 1 */
    int32_t b = static_cast<int32_t>(mul(static_cast<double>(nbins), div(distance, range)));
    return (b >= nbins ? nbins - 1 : b) + 1;
}

/*
 * How far xin (from <= xin < to) lies from `from`, and how wide the range
 * is, as PostgreSQL measures them: PG 16 halves everything when the range
 * overflows.
 */
GH_HOST_DEVICE void measure(double xin, double from, double to, BucketRule rule, double &distance, double &range)
{
    if (rule == BucketRule::pg16 && !is_finite(to - from)) {
        distance = sub(xin / 2, from / 2);
        range = sub(to / 2, from / 2);
    } else {
        distance = sub(xin, from);
        range = sub(to, from);
    }
}

/* The bucket of an x outside [from, to): 0 below, nbins + 1 above, -1 for NaN. */
GH_HOST_DEVICE int32_t outer_bucket(double x, double from, double to, int32_t nbins)
{
    return x >= to ? nbins + 1 : (x < from ? 0 : -1 /* NaN */);
}

/*
 * The bucket of x, measured from `from` towards `to` (from < to for lo < hi;
 * the caller negates everything for lo > hi, which is exact).  Written with
 * selects rather than early returns so that the CPU loop vectorizes: the
 * formula is evaluated for every value, with the value replaced by `from`
 * outside the range so that the conversion to int stays defined.
 */
GH_HOST_DEVICE int32_t bucket_towards(double x, double from, double to, int32_t nbins, BucketRule rule)
{
    bool inside = (x >= from) & (x < to);
    double xin = inside ? x : from;
    double distance, range;
    measure(xin, from, to, rule, distance, range);
    int32_t inner = inner_bucket(distance, range, nbins, rule);
    int32_t outer = outer_bucket(x, from, to, nbins);
    return inside ? inner : outer;
}
} // namespace detail

/* What the bucket functions return for a NaN value, which width_bucket refuses. */
constexpr int32_t kNaNBucket = -1;

/* width_bucket for lo < hi: x < lo is 0, x >= hi is nbins + 1, NaN is kNaNBucket. */
GH_HOST_DEVICE int32_t bucket_ascending(double x, const BucketSpec &spec)
{
    return detail::bucket_towards(x, spec.lo, spec.hi, spec.nbins, spec.rule);
}

/*
 * width_bucket for lo > hi: x > lo is 0, x <= hi is nbins + 1, and inside,
 * PostgreSQL computes count * (lo - x) / (lo - hi) + 1.  Negating x, lo and
 * hi is exact and turns each of those into the ascending case: -lo - -x is
 * lo - x, bit for bit.
 */
GH_HOST_DEVICE int32_t bucket_descending(double x, const BucketSpec &spec)
{
    return detail::bucket_towards(-x, -spec.lo, -spec.hi, spec.nbins, spec.rule);
}

/*
 * width_bucket(x, spec.lo, spec.hi, spec.nbins) for a spec that
 * validate_spec() accepted: always in [0, nbins + 1], or kNaNBucket for NaN.
 */
GH_HOST_DEVICE int32_t width_bucket(double x, const BucketSpec &spec)
{
    return spec.lo < spec.hi ? bucket_ascending(x, spec) : bucket_descending(x, spec);
}

/* Why a spec was refused; the extension maps each to a PostgreSQL error. */
enum class SpecError : int32_t {
    none = 0,
    nbins_not_positive, /* count must be greater than zero */
    nbins_too_large,    /* above kMaxBins */
    bound_is_nan,       /* operand, lower bound, and upper bound cannot be NaN */
    bound_not_finite,   /* lower and upper bounds must be finite */
    bounds_equal,       /* lower bound cannot equal upper bound */
    range_overflows,    /* PG 15 only: nbins * (hi - lo) is not finite */
};

/*
 * Checks lo, hi and nbins in the order PostgreSQL's width_bucket does, so the
 * first error a user sees is the one the server would have raised.
 */
inline SpecError validate_spec(const BucketSpec &spec)
{
    if (spec.nbins <= 0)
        return SpecError::nbins_not_positive;
    if (std::isnan(spec.lo) || std::isnan(spec.hi))
        return SpecError::bound_is_nan;
    if (std::isinf(spec.lo) || std::isinf(spec.hi))
        return SpecError::bound_not_finite;
    if (spec.lo == spec.hi)
        return SpecError::bounds_equal;
    if (spec.nbins > kMaxBins)
        return SpecError::nbins_too_large;
    /*
     * PG 15 computes nbins * (x - lo) before dividing; if that product can
     * overflow, the server returns INT_MIN for some rows.  Refuse such a spec
     * instead.  Rounding is monotonic, so checking the widest distance covers
     * every x in range.
     */
    if (spec.rule == BucketRule::pg15) {
        double range = spec.lo < spec.hi ? spec.hi - spec.lo : spec.lo - spec.hi;
        if (!std::isfinite(static_cast<double>(spec.nbins) * range))
            return SpecError::range_overflows;
    }
    return SpecError::none;
}

} // namespace gh

#endif /* GH_BUCKET_H */
