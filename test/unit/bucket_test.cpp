/*
 * bucket_test.cpp: the shared bucket formula against values PostgreSQL
 * itself returned.
 *
 * The expected numbers below were read off PostgreSQL 15.18's
 * width_bucket(float8, float8, float8, int) (and PostgreSQL 16's where
 * marked); the pg_regress suite checks the rest against a live server.
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "formulas/bucket.h"

using gh::BucketRule;
using gh::BucketSpec;
using gh::SpecError;

namespace {
int32_t wb15(double x, double lo, double hi, int32_t n)
{
    return gh::width_bucket(x, BucketSpec{lo, hi, n, BucketRule::pg15});
}
int32_t wb16(double x, double lo, double hi, int32_t n)
{
    return gh::width_bucket(x, BucketSpec{lo, hi, n, BucketRule::pg16});
}
const double inf = std::numeric_limits<double>::infinity();
} // namespace

TEST(Bucket, EndBuckets)
{
    EXPECT_EQ(wb15(-0.5, 0, 1, 10), 0);
    EXPECT_EQ(wb15(1.0, 0, 1, 10), 11);
    EXPECT_EQ(wb15(0.0, 0, 1, 10), 1);
    EXPECT_EQ(wb15(-inf, 0, 1, 10), 0);
    EXPECT_EQ(wb15(inf, 0, 1, 10), 11);
    EXPECT_EQ(wb15(std::nextafter(0.0, -1.0), 0, 1, 10), 0);
    EXPECT_EQ(wb15(std::nextafter(1.0, 0.0), 0, 1, 10), 10);
}

TEST(Bucket, MirroredWhenLoAboveHi)
{
    EXPECT_EQ(wb15(1.5, 1, 0, 10), 0);
    EXPECT_EQ(wb15(1.0, 1, 0, 10), 1);
    EXPECT_EQ(wb15(0.0, 1, 0, 10), 11);
    EXPECT_EQ(wb15(0.05, 1, 0, 10), 10);
    EXPECT_EQ(wb15(inf, 1, 0, 10), 0);
    EXPECT_EQ(wb15(-inf, 1, 0, 10), 11);
}

TEST(Bucket, Pg15RoundingQuirk)
{
    /* SELECT width_bucket(0.99999999999999989::float8, -1, 1, 10) is 11 on PG 15 */
    EXPECT_EQ(wb15(0.99999999999999989, -1, 1, 10), 11);
    /* PG 16 divides first and clamps: 10 */
    EXPECT_EQ(wb16(0.99999999999999989, -1, 1, 10), 10);
}

TEST(Bucket, SignedZeroAndDenormals)
{
    EXPECT_EQ(wb15(-0.0, 0, 1, 10), 1);
    EXPECT_EQ(wb15(0.0, -0.0, 1, 10), 1);
    EXPECT_EQ(wb15(DBL_TRUE_MIN, 0, 1, 10), 1);
    EXPECT_EQ(wb15(-DBL_TRUE_MIN, 0, 1, 10), 0);
    EXPECT_EQ(wb15(DBL_TRUE_MIN, 0, DBL_MIN, 4), 1);
}

TEST(Bucket, ResultAlwaysInRange)
{
    /* width_bucket never leaves [0, nbins + 1] for an accepted spec */
    const double los[] = {-1e300, -1, 0, 1e-300, 3};
    const double his[] = {1e300, 1, 7.5, 1e-299, -2};
    for (double lo : los)
        for (double hi : his) {
            if (lo == hi)
                continue;
            for (int32_t n : {1, 3, 256, 1000000}) {
                BucketSpec spec{lo, hi, n, BucketRule::pg15};
                if (gh::validate_spec(spec) != SpecError::none)
                    continue;
                for (double x : {lo, hi, std::nextafter(hi, lo), std::nextafter(lo, hi), (lo + hi) / 2}) {
                    int32_t b = gh::width_bucket(x, spec);
                    EXPECT_GE(b, 0);
                    EXPECT_LE(b, n + 1);
                }
            }
        }
}

TEST(Bucket, ValidationOrderMatchesWidthBucket)
{
    const double nan = std::nan("");
    EXPECT_EQ(gh::validate_spec({0, 1, 0, BucketRule::pg15}), SpecError::nbins_not_positive);
    EXPECT_EQ(gh::validate_spec({nan, inf, 0, BucketRule::pg15}), SpecError::nbins_not_positive);
    EXPECT_EQ(gh::validate_spec({nan, inf, 5, BucketRule::pg15}), SpecError::bound_is_nan);
    EXPECT_EQ(gh::validate_spec({1, inf, 5, BucketRule::pg15}), SpecError::bound_not_finite);
    EXPECT_EQ(gh::validate_spec({1, 1, 5, BucketRule::pg15}), SpecError::bounds_equal);
    EXPECT_EQ(gh::validate_spec({0, 1, gh::kMaxBins, BucketRule::pg15}), SpecError::none);
    EXPECT_EQ(gh::validate_spec({0, 1, gh::kMaxBins + 1, BucketRule::pg15}), SpecError::nbins_too_large);
}

TEST(Bucket, Pg15RefusesRangesThatOverflow)
{
    EXPECT_EQ(gh::validate_spec({-DBL_MAX, DBL_MAX, 10, BucketRule::pg15}), SpecError::range_overflows);
    EXPECT_EQ(gh::validate_spec({0, DBL_MAX, 10, BucketRule::pg15}), SpecError::range_overflows);
    EXPECT_EQ(gh::validate_spec({0, DBL_MAX, 1, BucketRule::pg15}), SpecError::none);
    /* PG 16 halves the operands instead, so it accepts such ranges */
    EXPECT_EQ(gh::validate_spec({-DBL_MAX, DBL_MAX, 10, BucketRule::pg16}), SpecError::none);
    EXPECT_EQ(wb16(0.0, -DBL_MAX, DBL_MAX, 10), 6);
    EXPECT_EQ(wb16(DBL_MAX / 2, -DBL_MAX, DBL_MAX, 10), 8);
}
