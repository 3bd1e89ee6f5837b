/*
 * bucket_single_test.cpp: the kernels' single-precision width_bucket for
 * float4 values (gpu/formulas/bucket_single.h) against bucket.h's formula on the
 * value cast to float8, which is what PostgreSQL computes for a float4
 * column and what bucket_test.cpp and pg_regress hold to the server.
 *
 * The host rounds floats as the device's explicitly rounded intrinsics do
 * (SSE arithmetic, -ffp-contract=off), so equality here is equality there.
 * An answer of kSingleInDoubt is never wrong (the float8 form decides
 * those); any other answer must be width_bucket's, and with the table of
 * edges the kernels build, every answer must be.  The values are the
 * floats next to every bucket edge, the ends, a stride through every float,
 * and the specs those would break: ranges far from zero, tiny and huge
 * ranges, non-representable bounds, both orders, both rules.
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "formulas/bucket_single.h"

using gh::BucketRule;
using gh::BucketSpec;

namespace {

int32_t single(float x, const BucketSpec &s, const gh::SingleBinning &sb, const float *edges = nullptr)
{
    return s.lo < s.hi ? gh::bucket_single<true>(x, sb, edges) : gh::bucket_single<false>(x, sb, edges);
}

/* The kernels' table of edges (kernel_binners.cuh's SingleBinner): [j] for j = 1 .. nbins + 1. */
std::vector<float> edge_table(const BucketSpec &s)
{
    std::vector<float> e(size_t(s.nbins) + 2, -INFINITY);
    for (int32_t j = 1; j <= s.nbins + 1; j++)
        e[size_t(j)] = s.lo < s.hi ? gh::single_edge<true>(j, s) : gh::single_edge<false>(j, s);
    return e;
}

float float_of_bits(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/* Floats worth trying for a spec: those next to every edge (up to 2,000 edges), the ends, random ones. */
std::vector<float> probes(const BucketSpec &s, std::mt19937_64 &rng, int randoms)
{
    std::vector<float> v;
    auto around = [&](double x) {
        float f = static_cast<float>(x);
        if (!std::isfinite(f))
            return;
        float down = f, up = f;
        v.push_back(f);
        for (int i = 0; i < 4; i++) {
            down = std::nextafter(down, -INFINITY);
            up = std::nextafter(up, INFINITY);
            v.push_back(down);
            v.push_back(up);
        }
    };
    const double lo = s.lo, hi = s.hi, w = hi - lo;
    around(lo);
    around(hi);
    around(0.0);
    const int32_t step = s.nbins <= 2000 ? 1 : s.nbins / 2000;
    for (int32_t k = 0; k <= s.nbins; k += step) {
        around(lo + w * k / s.nbins);
        around(lo + k * (w / s.nbins));
    }
    std::uniform_real_distribution<double> u(-0.125, 1.125);
    for (int i = 0; i < randoms; i++)
        v.push_back(static_cast<float>(lo + w * u(rng)));
    v.insert(v.end(), {INFINITY, -INFINITY, std::nanf(""), FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
                       float_of_bits(1), float_of_bits(0x80000001u), 0.0f, -0.0f});
    return v;
}

std::vector<BucketSpec> specs(BucketRule rule)
{
    const double bounds[][2] = {{0, 1},          {-1, 1},          {0, 100},        {1, 0},
                                {-1.5, 1.5},     {0.1, 0.7},       {-0.3, 0.3},     {3, -7},
                                {1200, 0},       {1e6, 1e6 + 1},   {16777216, 16777300}, {-5.5, 1e6},
                                {1e-30, 3e-30},  {0, 1e-40},       {-3.4e38, 3.4e38}, {1e15, 1e15 + 3},
                                {-1e300, 1e300}, {0, 5e-324},      {1.0000001, 1.0000002}};
    const int32_t counts[] = {1, 2, 3, 7, 10, 16, 64, 100, 255, 256, 4096, 65536, 262144, 2097152, 2097153};
    std::vector<BucketSpec> out;
    for (auto &b : bounds)
        for (int32_t n : counts) {
            BucketSpec s{b[0], b[1], n, rule};
            if (gh::validate_spec(s) == gh::SpecError::none)
                out.push_back(s);
        }
    return out;
}

struct Tally {
    long checked = 0, doubts = 0, mismatches = 0;
};

void check(float x, const BucketSpec &s, const gh::SingleBinning &sb, Tally &t, const float *edges = nullptr)
{
    const int32_t got = single(x, s, sb, edges);
    t.checked++;
    if (got == gh::kSingleInDoubt) {
        t.doubts++;
        return;
    }
    const int32_t want = gh::width_bucket(static_cast<double>(x), s);
    if (want != got && ++t.mismatches <= 10)
        ADD_FAILURE() << "lo " << s.lo << " hi " << s.hi << " nbins " << s.nbins << " rule "
                      << static_cast<int>(s.rule) << " x " << x << ": width_bucket " << want << ", single " << got;
}

void expect_same(BucketRule rule)
{
    std::mt19937_64 rng(24);
    Tally t;
    for (const BucketSpec &s : specs(rule)) {
        const gh::SingleBinning sb = gh::single_binning_for(s);
        for (float x : probes(s, rng, 2000))
            check(x, s, sb, t);
    }
    EXPECT_EQ(t.mismatches, 0);
    EXPECT_GT(t.checked, 1000000);
}

} // namespace

TEST(BucketSingle, EqualsWidthBucketPg15) { expect_same(BucketRule::pg15); }

TEST(BucketSingle, EqualsWidthBucketPg16) { expect_same(BucketRule::pg16); }

/* With the kernels' table of edges nothing is left in doubt, and every answer is width_bucket's. */
TEST(BucketSingle, TheEdgeTableSettlesEveryDoubt)
{
    std::mt19937_64 rng(26);
    Tally t;
    long tables = 0;
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &s : specs(rule)) {
            const gh::SingleBinning sb = gh::single_binning_for(s);
            if (!(sb.slack < 1.0f) || s.nbins > 8192)
                continue;
            const std::vector<float> edges = edge_table(s);
            tables++;
            for (float x : probes(s, rng, 2000))
                check(x, s, sb, t, edges.data());
        }
    EXPECT_EQ(t.mismatches, 0);
    EXPECT_EQ(t.doubts, 0);
    EXPECT_GT(tables, 50);
    /* the edges themselves: the least floats of their buckets */
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &s : {BucketSpec{0, 1, 16, rule}, BucketSpec{100, -100, 256, rule},
                                    BucketSpec{0.1, 0.7, 1000, rule}, BucketSpec{1e6, 1e6 + 4096, 4096, rule}}) {
            const std::vector<float> edges = edge_table(s);
            for (int32_t j = 1; j <= s.nbins + 1; j++) {
                const float e = edges[size_t(j)];
                const float y_below = std::nextafter(e, -INFINITY);
                const double x = s.lo < s.hi ? e : -e, x_below = s.lo < s.hi ? y_below : -y_below;
                ASSERT_GE(gh::width_bucket(x, s), j) << j;
                ASSERT_LT(gh::width_bucket(x_below, s), j) << j;
            }
        }
}

/* Every 997th float, NaNs and infinities included, for the shapes the benchmark and users bin. */
TEST(BucketSingle, StrideThroughEveryFloat)
{
    Tally t;
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &s : {BucketSpec{0, 1, 16, rule}, BucketSpec{0, 1, 4096, rule},
                                    BucketSpec{-1.5, 1.5, 97, rule}, BucketSpec{100, -100, 256, rule}}) {
            const gh::SingleBinning sb = gh::single_binning_for(s);
            for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 997)
                check(float_of_bits(static_cast<uint32_t>(bits)), s, sb, t);
        }
    EXPECT_EQ(t.mismatches, 0);
}

/*
 * The doubt is what makes the single-precision product exact: without it
 * (a slack of 0) truncating the product disagrees with width_bucket next
 * to some edges, so these tests can fail; with it, few random values go to
 * the float8 form (2 slack of them, 0.2 % at 4,096 buckets).
 */
TEST(BucketSingle, TheDoubtIsNeededAndRare)
{
    std::mt19937_64 rng(25);
    Tally unchecked, random;
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &s : specs(rule)) {
            gh::SingleBinning sb = gh::single_binning_for(s);
            if (!(sb.slack < 1.0f) || s.nbins > 4096)
                continue;
            std::uniform_real_distribution<double> u(0.0, 1.0);
            for (int i = 0; i < 20000; i++) {
                const float x = static_cast<float>(s.lo + (s.hi - s.lo) * u(rng));
                random.checked++;
                if (single(x, s, sb) == gh::kSingleInDoubt)
                    random.doubts++;
            }
            sb.slack = 0.0f;
            for (float x : probes(s, rng, 0)) {
                const int32_t got = single(x, s, sb);
                unchecked.checked++;
                if (got != gh::width_bucket(static_cast<double>(x), s))
                    unchecked.mismatches++;
            }
        }
    EXPECT_GT(unchecked.mismatches, 0);
    EXPECT_GT(random.checked, 500000);
    EXPECT_LT(random.doubts * 100, random.checked); /* under 1 % */
}

/* Specs where single precision cannot bound its error send every value inside to the float8 form. */
TEST(BucketSingle, UselessSpecsAlwaysDoubt)
{
    for (const BucketSpec &s : {BucketSpec{1e15, 1e15 + 3, 10, BucketRule::pg16},
                                BucketSpec{-1e300, 1e300, 10, BucketRule::pg15},
                                BucketSpec{0, 5e-324, 10, BucketRule::pg16},
                                BucketSpec{0, 1, 10000000, BucketRule::pg16}}) {
        ASSERT_EQ(gh::validate_spec(s), gh::SpecError::none);
        const gh::SingleBinning sb = gh::single_binning_for(s);
        EXPECT_FALSE(sb.slack < 1.0f) << s.lo << " " << s.hi << " " << s.nbins;
        const float inside = static_cast<float>(s.lo / 2 + s.hi / 2);
        EXPECT_EQ(single(inside, s, sb), gh::kSingleInDoubt);
        EXPECT_EQ(single(std::nanf(""), s, sb), gh::kNaNBucket);
        EXPECT_EQ(single(INFINITY, s, sb), gh::kSingleInDoubt);
        EXPECT_EQ(single(-INFINITY, s, sb), gh::kSingleInDoubt);
    }
    /* far outside the range, no doubt: the product is clamped half a bucket beyond either end */
    const BucketSpec t{0, 3, 7, BucketRule::pg15};
    for (float x : {-1e30f, -INFINITY, -1.0f})
        EXPECT_EQ(single(x, t, gh::single_binning_for(t)), 0) << x;
    for (float x : {1e30f, INFINITY, 4.0f})
        EXPECT_EQ(single(x, t, gh::single_binning_for(t)), 8) << x;
}
