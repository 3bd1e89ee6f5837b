/*
 * bucket_fast_test.cpp: the kernels' width_bucket without a division
 * (gpu/formulas/bucket_fast.h) against bucket.h's formula, which bucket_test.cpp and
 * pg_regress hold to PostgreSQL's own answers.
 *
 * The host computes both with the same IEEE roundings as the device (the
 * engine is built with -ffp-contract=off and the device uses the explicitly
 * rounded intrinsics), so equality here is equality there.  The values are
 * the ones where a shortcut would go wrong: bucket edges computed several
 * ways and the doubles next to them, the ends of the range, PG 15's
 * rounding above the top, tiny and huge ranges, both orders, both rules.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "formulas/bucket_fast.h"

using gh::BucketRule;
using gh::BucketSpec;

namespace {

int32_t fast(double x, const BucketSpec &s, const gh::Reciprocal &rc)
{
    return s.lo < s.hi ? gh::bucket_ascending_fast(x, s, rc) : gh::bucket_descending_fast(x, s, rc);
}

/* Values worth trying for a spec: edges, their neighbours, the ends, random ones inside. */
std::vector<double> probes(const BucketSpec &s, std::mt19937_64 &rng, int randoms)
{
    std::vector<double> v;
    const double lo = s.lo, hi = s.hi, w = hi - lo;
    auto around = [&](double x) {
        v.push_back(x);
        v.push_back(std::nextafter(x, -INFINITY));
        v.push_back(std::nextafter(x, INFINITY));
        v.push_back(std::nextafter(std::nextafter(x, -INFINITY), -INFINITY));
        v.push_back(std::nextafter(std::nextafter(x, INFINITY), INFINITY));
    };
    around(lo);
    around(hi);
    around(0.0);
    const int32_t step = s.nbins <= 2000 ? 1 : s.nbins / 2000;
    for (int32_t k = 0; k <= s.nbins; k += step) {
        around(lo + w * k / s.nbins);
        around(lo + k * (w / s.nbins));
        around(lo + (hi - lo) / s.nbins * k);
    }
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < randoms; i++)
        v.push_back(lo + w * u(rng));
    const double inf = std::numeric_limits<double>::infinity();
    v.insert(v.end(), {inf, -inf, std::nan(""), 5e-324, -5e-324, 1e-310, -0.0});
    return v;
}

std::vector<BucketSpec> specs(BucketRule rule)
{
    const double bounds[][2] = {{0, 1},      {-1, 1},        {0, 100},        {1, 0},          {-5.5, 1e6},
                                {0, 3},      {0.1, 0.7},     {1e-300, 3e-300}, {-1e300, 1e300}, {-1.7e308, 1.7e308},
                                {3, -7},     {0, 5e-324},    {1200, 0},       {1e15, 1e15 + 3}, {-0.3, 0.3}};
    const int32_t counts[] = {1, 2, 3, 7, 10, 64, 100, 255, 4096, 65536, 262144, 1000000, 9999991, 10000000};
    std::vector<BucketSpec> out;
    for (auto &b : bounds)
        for (int32_t n : counts) {
            BucketSpec s{b[0], b[1], n, rule};
            if (gh::validate_spec(s) == gh::SpecError::none)
                out.push_back(s);
        }
    return out;
}

void expect_same(BucketRule rule)
{
    std::mt19937_64 rng(15);
    long checked = 0, mismatches = 0;
    for (const BucketSpec &s : specs(rule)) {
        const gh::Reciprocal rc = gh::reciprocal_for(s);
        for (double x : probes(s, rng, 2000)) {
            const int32_t want = gh::width_bucket(x, s), got = fast(x, s, rc);
            checked++;
            if (want != got && ++mismatches <= 10)
                ADD_FAILURE() << "lo " << s.lo << " hi " << s.hi << " nbins " << s.nbins << " x " << x
                              << ": width_bucket " << want << ", fast " << got;
        }
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_GT(checked, 1000000);
}

} // namespace

TEST(BucketFast, EqualsWidthBucketPg15) { expect_same(BucketRule::pg15); }

TEST(BucketFast, EqualsWidthBucketPg16) { expect_same(BucketRule::pg16); }

/*
 * The check is what makes the shortcut exact: without it, truncating the
 * reciprocal's product disagrees with width_bucket on some edges (so these
 * tests can fail), and with it the division is left to very few values of
 * random input (so the kernels gain).
 */
TEST(BucketFast, TheCheckIsNeededAndSeldomFallsBack)
{
    std::mt19937_64 rng(16);
    long unchecked_wrong = 0, random_values = 0, random_fallbacks = 0;
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &s : specs(rule)) {
            const gh::Reciprocal rc = gh::reciprocal_for(s);
            if (!(rc.slack < 1.0))
                continue;
            const bool up = s.lo < s.hi;
            const double from = up ? s.lo : -s.lo, to = up ? s.hi : -s.hi;
            if (!std::isfinite(to - from))
                continue;
            for (double x : probes(s, rng, 0)) {
                const double y = up ? x : -x;
                if (!(y >= from && y < to))
                    continue;
                const double d = y - from, n = s.nbins;
                const int32_t raw = rule == BucketRule::pg15
                                        ? static_cast<int32_t>(n * d * rc.inverse + 1.0)
                                        : std::min(static_cast<int32_t>(n * (d * rc.inverse)), s.nbins - 1) + 1;
                if (raw != gh::width_bucket(x, s))
                    unchecked_wrong++;
            }
            std::uniform_real_distribution<double> u(0.0, 1.0);
            for (int i = 0; i < 20000; i++) {
                const double d = (to - from) * u(rng);
                random_values++;
                if (gh::detail::reciprocal_bucket(d, to - from, s.nbins, rule, rc) < 0)
                    random_fallbacks++;
            }
        }
    EXPECT_GT(unchecked_wrong, 0);
    EXPECT_GT(random_values, 500000);
    EXPECT_LT(random_fallbacks * 10000, random_values); /* under 0.01 % */
}

TEST(BucketFast, UnusableRangesAlwaysDivide)
{
    /* a subnormal range has no normal reciprocal: every value takes the reference formula */
    const BucketSpec s{0, 5e-324, 10, BucketRule::pg16};
    ASSERT_EQ(gh::validate_spec(s), gh::SpecError::none);
    const gh::Reciprocal rc = gh::reciprocal_for(s);
    EXPECT_FALSE(rc.slack < 1.0);
    EXPECT_EQ(gh::detail::reciprocal_bucket(0.0, 5e-324, s.nbins, s.rule, rc), -1);
    EXPECT_EQ(fast(0.0, s, rc), gh::width_bucket(0.0, s));
    /* x == lo needs no division: nothing lies below the lowest bucket */
    const BucketSpec t{0, 3, 7, BucketRule::pg15};
    EXPECT_EQ(gh::detail::reciprocal_bucket(0.0, 3.0, t.nbins, t.rule, gh::reciprocal_for(t)), 1);
}

/*
 * Values exactly on an edge, the common case of integer data, are told by
 * the exact residual, not divided, where the quotient is exact: always for
 * PG 15's nbins * distance / range with these ranges; for PG 16's distance /
 * range only where that is a double (0.5 of [0, 1), not 3 / 100).
 */
TEST(BucketFast, EdgesOfRoundRangesNeedNoDivision)
{
    const BucketSpec hundred{0, 100, 100, BucketRule::pg15}, down{1200, 0, 1200, BucketRule::pg15};
    for (int x = 0; x < 100; x++)
        EXPECT_GE(gh::detail::reciprocal_bucket(x, 100.0, 100, hundred.rule, gh::reciprocal_for(hundred)), 1) << x;
    for (int x = 1; x <= 1200; x++)
        EXPECT_GE(gh::detail::reciprocal_bucket(1200.0 - x, 1200.0, 1200, down.rule, gh::reciprocal_for(down)), 1)
            << x;
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16}) {
        const BucketSpec half{0, 1, 1000000, rule};
        EXPECT_GE(gh::detail::reciprocal_bucket(0.5, 1.0, half.nbins, rule, gh::reciprocal_for(half)), 1);
    }
}
