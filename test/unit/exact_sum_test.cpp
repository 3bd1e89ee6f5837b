/*
 * exact_sum_test.cpp: the exact float sum (formulas/exact_sum.h) against
 * integer arithmetic, whatever the order and split of its values.
 *
 * A float8 that is an integer below 2^100 times a power of two sums
 * exactly in __int128 at a common scale; libgcc converts an __int128 to
 * double and to float rounding to nearest, ties to even, which is the
 * reference for the one rounding the accumulator makes.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "formulas/exact_sum.h"

namespace {

using gh::ExactSumKind;

struct Sum {
    int64_t cells[gh::kExactCells] = {};
    int64_t values = 0;
    void add(double x)
    {
        gh::exact_sum_add(cells, x);
        values++;
    }
    void merge(Sum &o)
    {
        gh::exact_sum_merge(cells, o.cells);
        values += o.values;
    }
    double round8(ExactSumKind *kind = nullptr)
    {
        ExactSumKind k;
        const double v = gh::exact_sum_round(cells, values, 53, 0, 1024, &k);
        if (kind != nullptr)
            *kind = k;
        return v;
    }
    float round4(ExactSumKind *kind = nullptr)
    {
        ExactSumKind k;
        const double v = gh::exact_sum_round(cells, values, 24, 925, 128, &k);
        if (kind != nullptr)
            *kind = k;
        return static_cast<float>(v);
    }
};

uint64_t bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

double sum_of(const std::vector<double> &xs)
{
    Sum s;
    for (double x : xs)
        s.add(x);
    return s.round8();
}

const double inf = std::numeric_limits<double>::infinity();

} // namespace

TEST(ExactSum, CancellationThatSequentialSumsLose)
{
    EXPECT_EQ(sum_of({1e16, 1.0, -1e16}), 1.0);
    EXPECT_EQ(sum_of({1.0, 1e100, 1.0, -1e100}), 2.0);
    EXPECT_EQ(sum_of({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);
    EXPECT_EQ(sum_of({0.1, 0.2, -0.3}), std::ldexp(1.0, -55)); /* sequentially 2^-54 */
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(sum_of({tiny, tiny, tiny}), 3 * tiny);
    EXPECT_EQ(sum_of({1.0, tiny, -1.0}), tiny);
    EXPECT_EQ(sum_of({DBL_MIN, -tiny}), DBL_MIN - tiny);
}

TEST(ExactSum, TiesRoundToEven)
{
    const double u = std::ldexp(1.0, -53); /* half an ulp of 1 */
    EXPECT_EQ(sum_of({1.0, u}), 1.0);                            /* a tie: to even */
    EXPECT_EQ(sum_of({1.0, u, std::ldexp(1.0, -200)}), std::nextafter(1.0, 2.0)); /* past it */
    EXPECT_EQ(sum_of({std::nextafter(1.0, 2.0), u}), std::nextafter(std::nextafter(1.0, 2.0), 2.0));
    EXPECT_EQ(sum_of({-1.0, -u}), -1.0);
}

TEST(ExactSum, SpecialsAsFloat8PlCombinesThem)
{
    const double nan = std::nan("");
    EXPECT_TRUE(std::isnan(sum_of({1.0, nan})));
    EXPECT_TRUE(std::isnan(sum_of({inf, -inf})));
    EXPECT_EQ(sum_of({inf, 1.0, inf}), inf);
    EXPECT_EQ(sum_of({-inf, DBL_MAX, DBL_MAX}), -inf);
    EXPECT_EQ(bits(sum_of({-0.0, -0.0})), bits(-0.0));
    EXPECT_EQ(bits(sum_of({-0.0, 0.0})), bits(0.0));
    EXPECT_EQ(bits(sum_of({1.0, -1.0})), bits(0.0));
    Sum over;
    over.add(DBL_MAX);
    over.add(DBL_MAX);
    ExactSumKind kind;
    EXPECT_EQ(over.round8(&kind), inf);
    EXPECT_EQ(kind, ExactSumKind::overflow);
    Sum under;
    under.add(-DBL_MAX);
    under.add(-std::ldexp(1.0, 970)); /* exactly half an ulp of DBL_MAX: a tie, to even, which overflows */
    EXPECT_EQ(under.round8(&kind), -inf);
    EXPECT_EQ(kind, ExactSumKind::overflow);
    Sum fits;
    fits.add(DBL_MAX);
    fits.add(std::ldexp(1.0, 969)); /* below the tie */
    EXPECT_EQ(fits.round8(&kind), DBL_MAX);
    EXPECT_EQ(kind, ExactSumKind::finite);
}

TEST(ExactSum, EqualsIntegerArithmeticRoundedOnce)
{
    std::mt19937_64 rng(20261203);
    for (int round = 0; round < 200; round++) {
        const int scale = static_cast<int>(rng() % 2000) - 1040; /* a common power of two, subnormals to huge */
        std::vector<double> xs;
        __int128 total = 0;
        const int n = 1 + static_cast<int>(rng() % 400);
        for (int i = 0; i < n; i++) {
            /* an integer of up to 53 significant bits at a shift of up to 40 bits */
            int64_t k = static_cast<int64_t>(rng() >> (11 + rng() % 50));
            const int shift = static_cast<int>(rng() % 40);
            if (rng() & 1)
                k = -k;
            const __int128 v = static_cast<__int128>(k) << shift;
            total += v;
            xs.push_back(std::ldexp(static_cast<double>(k), shift + scale));
        }
        const double expect8 = std::ldexp(static_cast<double>(total), scale);
        if (std::fabs(expect8) >= DBL_MAX / 4)
            continue; /* ldexp would round a second time */
        Sum s;
        for (double x : xs)
            s.add(x);
        EXPECT_EQ(bits(s.round8()), bits(expect8)) << "round " << round << " scale " << scale;
        /* the same integers as float4 sums: rounded once to 24 bits, not through a float8 */
        Sum f;
        for (double x : xs)
            f.add(std::ldexp(x, -scale));
        EXPECT_EQ(f.round4(), static_cast<float>(total)) << "round " << round;
    }
}

/*
 * The bits below the round bit decide a tie wherever they lie: one set bit
 * at every position below half an ulp of 1 (each offset within a 32-bit
 * limb, down to the least subnormal) turns the tie 1 + 2^-53 upward, and a
 * value one bit wide at each position is itself, float8 and float4 alike.
 */
TEST(ExactSum, StickyBitAtEveryPosition)
{
    const double half_ulp = std::ldexp(1.0, -53);
    for (int e = -54; e >= -1074; e--) {
        EXPECT_EQ(sum_of({1.0, half_ulp, std::ldexp(1.0, e)}), std::nextafter(1.0, 2.0)) << "2^" << e;
        EXPECT_EQ(sum_of({1.0, half_ulp, -std::ldexp(1.0, e)}), 1.0) << "2^" << e;
        EXPECT_EQ(sum_of({std::ldexp(1.0, e)}), std::ldexp(1.0, e)) << "2^" << e;
    }
    const float half_ulp4 = std::ldexp(1.0f, -24);
    for (int e = -25; e >= -149; e--) {
        Sum f;
        f.add(1.0);
        f.add(half_ulp4);
        f.add(std::ldexp(1.0, e));
        EXPECT_EQ(f.round4(), std::nextafter(1.0f, 2.0f)) << "2^" << e;
    }
}

TEST(ExactSum, AnyOrderAndSplitGivesTheSameBits)
{
    std::mt19937_64 rng(7);
    std::vector<double> xs;
    for (int i = 0; i < 5000; i++) {
        double x;
        do {
            const uint64_t b = rng();
            memcpy(&x, &b, sizeof x);
        } while (!std::isfinite(x) || std::fabs(x) > 1e300);
        xs.push_back(x);
    }
    for (int i = 0; i < 3000; i++)
        xs.push_back(std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 12)), -40));
    const double whole = sum_of(xs);
    for (int trial = 0; trial < 20; trial++) {
        std::shuffle(xs.begin(), xs.end(), rng);
        const int parts = 1 + trial % 7;
        std::vector<Sum> sums(parts);
        for (size_t i = 0; i < xs.size(); i++) {
            sums[rng() % parts].add(xs[i]);
            if (rng() % 97 == 0)
                gh::exact_sum_normalize(sums[0].cells);
        }
        for (int p = 1; p < parts; p++)
            sums[0].merge(sums[p]);
        EXPECT_EQ(bits(sums[0].round8()), bits(whole)) << "trial " << trial;
    }
}

TEST(ExactSum, ManyLargeValuesCarryPastEveryCell)
{
    /* 2^20 values of DBL_MAX and then as many of -DBL_MAX: limbs far above 2^32 before normalizing */
    Sum s;
    for (int i = 0; i < (1 << 20); i++)
        s.add(DBL_MAX);
    for (int i = 0; i < (1 << 20); i++)
        s.add(-DBL_MAX);
    s.add(1.5);
    EXPECT_EQ(s.round8(), 1.5);
}

/*
 * Runs of values that start at the same limb, summed in registers and
 * added once (exact_sum_add_run), as the scan's value aggregates add a
 * page's rows of one group: the same bits as adding each value.
 */
TEST(ExactSum, RunsAddedOnceAsEachValue)
{
    std::mt19937_64 rng(13);
    for (int trial = 0; trial < 50; trial++) {
        std::vector<double> xs;
        for (int i = 0; i < 2000; i++) {
            const int kind = static_cast<int>(rng() % 8);
            if (kind == 0)
                xs.push_back(std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 1100)));
            else if (kind == 1)
                xs.push_back(-static_cast<double>(rng() % 1000) / 7);
            else if (kind == 2 && trial % 5 == 0)
                xs.push_back(rng() % 2 ? -0.0 : 0.0);
            else
                xs.push_back(static_cast<double>(rng() >> 11) / 9007199254740992.0); /* [0, 1) */
        }
        Sum each, runs;
        for (double x : xs)
            each.add(x);
        int first = -1;
        int64_t adds = 0, s[3] = {0, 0, 0};
        for (double x : xs) {
            int f = 0, special = 0;
            int64_t chunks[3];
            runs.values++;
            if (!gh::exact_sum_chunks(x, &f, chunks, &special)) {
                if (special >= 0)
                    runs.cells[special]++;
                continue;
            }
            if (f != first || adds == 291) {
                if (adds > 0)
                    gh::exact_sum_add_run(runs.cells, first, s[0], s[1], s[2], adds);
                first = f;
                adds = s[0] = s[1] = s[2] = 0;
            }
            adds++;
            for (int k = 0; k < 3; k++)
                s[k] += chunks[k];
        }
        if (adds > 0)
            gh::exact_sum_add_run(runs.cells, first, s[0], s[1], s[2], adds);
        ASSERT_EQ(bits(runs.round8()), bits(each.round8())) << "trial " << trial;
        ASSERT_EQ(0, memcmp(runs.cells + gh::kExactNaN, each.cells + gh::kExactNaN, sizeof(int64_t) * 4));
    }
}
