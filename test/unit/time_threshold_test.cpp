/*
 * time_threshold_test.cpp: the formulas of time histograms (time_bucket.h)
 * and threshold bins (threshold_bucket.h), and the CPU loops over them,
 * against brute-force references and against values PostgreSQL 15 itself
 * returned (and what 16 to 18 changed) (numeric width_bucket, and width_bucket(float8, float8[])).
 * The pg_regress topics `time` and `thresholds` check the rest against a
 * live server on millions of rows.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cpu/cpu_backend.h"

namespace {

using gh::Int64Spec;
using gh::NumericRule;

int32_t tb(int64_t x, int64_t lo, int64_t hi, int32_t n, NumericRule rule = NumericRule::pg15)
{
    return gh::int64_bucket(x, gh::prepare_int64(Int64Spec{lo, hi, n, rule}));
}

/* x where count * (x - lo) leaves a remainder of range - j: the quotient is just below an integer. */
std::vector<int64_t> near_edges(const Int64Spec &s, std::mt19937_64 &rng, int how_many)
{
    std::vector<int64_t> v;
    bool up = s.lo < s.hi;
    gh::u128 range = up ? uint64_t(s.hi) - uint64_t(s.lo) : uint64_t(s.lo) - uint64_t(s.hi);
    for (int i = 0; i < how_many; i++) {
        /* d = ceil(k * range / nbins) - j for a random bucket edge k, small j */
        uint64_t k = 1 + rng() % uint64_t(s.nbins);
        gh::u128 e = (gh::u128(k) * range + s.nbins - 1) / uint64_t(s.nbins);
        for (uint64_t j : {0, 1, 2, 3, 17}) {
            if (e < j)
                continue;
            uint64_t d = uint64_t(e - j);
            v.push_back(up ? int64_t(uint64_t(s.lo) + d) : int64_t(uint64_t(s.lo) - d));
        }
    }
    return v;
}

const int64_t kMin = std::numeric_limits<int64_t>::min();
const int64_t kMax = std::numeric_limits<int64_t>::max();

} // namespace

TEST(TimeBucket, OuterBucketsAndInfinities)
{
    EXPECT_EQ(tb(-1, 0, 100, 10), 0);
    EXPECT_EQ(tb(0, 0, 100, 10), 1);
    EXPECT_EQ(tb(99, 0, 100, 10), 10);
    EXPECT_EQ(tb(100, 0, 100, 10), 11);
    EXPECT_EQ(tb(kMin, 0, 100, 10), 0);  /* -infinity */
    EXPECT_EQ(tb(kMax, 0, 100, 10), 11); /* infinity */
    /* lo > hi: x > lo is 0, x <= hi is nbins + 1 */
    EXPECT_EQ(tb(101, 100, 0, 10), 0);
    EXPECT_EQ(tb(100, 100, 0, 10), 1);
    EXPECT_EQ(tb(1, 100, 0, 10), 10);
    EXPECT_EQ(tb(0, 100, 0, 10), 11);
    EXPECT_EQ(tb(kMax, 100, 0, 10), 0);
    EXPECT_EQ(tb(kMin, 100, 0, 10), 11);
}

TEST(TimeBucket, MinutesOfADay)
{
    const int64_t day = 86400000000LL, minute = 60000000LL, lo = 1000 * day;
    for (int64_t m = 0; m < 1440; m++) {
        EXPECT_EQ(tb(lo + m * minute, lo, lo + day, 1440), m + 1);
        EXPECT_EQ(tb(lo + m * minute + minute - 1, lo, lo + day, 1440), m + 1);
    }
}

/* Values PostgreSQL 15.18 returned for width_bucket(x::numeric, lo, hi, n), where its quotient rounds. */
TEST(TimeBucket, NumericRoundingAsPostgres15)
{
    EXPECT_EQ(tb(33335000000000001LL, 0, 100000000000000003LL, 20000), 6668); /* exact: 6667 */
    EXPECT_EQ(tb(33335000000000000LL, 0, 100000000000000003LL, 20000), 6667);
    EXPECT_EQ(tb(66670000000000002LL, 0, 100000000000000003LL, 20000), 13335);
    EXPECT_EQ(tb(5000000000000LL, 0, 100000000000000003LL, 20000), 1);
    EXPECT_EQ(tb(6588122883467697004LL, -9223372036854775807LL, 9223372036854775806LL, 7), 7);
    EXPECT_EQ(tb(3952873730080618202LL, -9223372036854775807LL, 9223372036854775806LL, 7), 6);
    EXPECT_EQ(tb(1317624576693539400LL, -9223372036854775807LL, 9223372036854775806LL, 7), 5);
    EXPECT_EQ(tb(646766467670LL, 5, 2000000000006LL, 99999), 32338);
    EXPECT_EQ(tb(756014580801944109LL, 1000000000000000000LL, -999999999999999983LL, 12345), 1507);
    /* reversed bounds, the first case mirrored: 6668 too */
    EXPECT_EQ(tb(100000000000000003LL - 33335000000000001LL, 100000000000000003LL, 0, 20000), 6668);
}

/*
 * Where 15's rounding carries the quotient up to count: 15 returned 100001
 * for width_bucket(999999999999999999::numeric, 0, 10^18, 100000); 16 and
 * 17 clamp that to count; 18 divides exactly.  The rounding cases above
 * are exact on 18 and unchanged on 17, where q stays below count.
 */
TEST(TimeBucket, NumericRuleOfEachMajor)
{
    const int64_t x = 999999999999999999LL, hi = 1000000000000000000LL;
    EXPECT_EQ(tb(x, 0, hi, 100000, NumericRule::pg15), 100001);
    EXPECT_EQ(tb(x, 0, hi, 100000, NumericRule::pg16), 100000);
    EXPECT_EQ(tb(x, 0, hi, 100000, NumericRule::pg18), 100000);
    EXPECT_EQ(tb(x, 0, hi, 10000000, NumericRule::pg15), 10000000); /* q = 9999999.99999999999: not rounded */
    EXPECT_EQ(tb(33335000000000001LL, 0, 100000000000000003LL, 20000, NumericRule::pg16), 6668);
    EXPECT_EQ(tb(33335000000000001LL, 0, 100000000000000003LL, 20000, NumericRule::pg18), 6667);
    EXPECT_EQ(tb(66670000000000002LL, 0, 100000000000000003LL, 20000, NumericRule::pg18), 13334);
    EXPECT_EQ(tb(6588122883467697004LL, -9223372036854775807LL, 9223372036854775806LL, 7, NumericRule::pg16), 7);
    EXPECT_EQ(tb(hi - x, hi, 0, 100000, NumericRule::pg16), 100000); /* reversed bounds, mirrored */
}

TEST(TimeBucket, MatchesReferenceOnRandomSpecsAndEdges)
{
    std::mt19937_64 rng(9);
    /* microsecond ranges from a second to the whole timestamp range, and raw int64 extremes */
    const int64_t spans[] = {1, 7, 1000000, 86400000000LL, 31556952000000LL, 100000000000000003LL,
                             4000000000000000000LL, kMax};
    long checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        int64_t span = spans[trial % 8] / (1 + int64_t(rng() % 3));
        if (span <= 0)
            span = 1;
        int64_t lo = int64_t(rng() % 2000001) - 1000000;
        if (trial % 5 == 0)
            lo = -211813488000000000LL; /* the first timestamp */
        int64_t hi = lo + span;
        if (hi < lo)
            hi = kMax - 1;
        int32_t nbins = 1 + int32_t(rng() % (trial % 3 == 0 ? 10000000 : 3000));
        const NumericRule rules[] = {NumericRule::pg15, NumericRule::pg16, NumericRule::pg18};
        NumericRule rule = rules[(trial / 2) % 3];
        Int64Spec s = trial % 2 ? Int64Spec{lo, hi, nbins, rule} : Int64Spec{hi, lo, nbins, rule};
        ASSERT_EQ(gh::validate_int64_spec(s, false), gh::SpecError::none);
        gh::Int64Binning b = gh::prepare_int64(s);
        std::vector<int64_t> v = near_edges(s, rng, 200);
        for (int64_t x : {lo, hi, lo + 1, hi - 1, lo - 1, hi + 1, kMin, kMax, int64_t(0)})
            v.push_back(x);
        for (int i = 0; i < 500; i++)
            v.push_back(lo + int64_t(rng() % uint64_t(span < kMax ? span + 1 : kMax)));
        for (int64_t x : v) {
            ASSERT_EQ(gh::int64_bucket(x, b), gh::int64_bucket_reference(x, s))
                << "x=" << x << " lo=" << s.lo << " hi=" << s.hi << " nbins=" << s.nbins;
            checked++;
        }
    }
    EXPECT_GT(checked, 1000000 / 4);
}

TEST(TimeBucket, ValidationOrderMatchesNumericWidthBucket)
{
    EXPECT_EQ(gh::validate_int64_spec({0, 0, 0, NumericRule::pg15}, true), gh::SpecError::nbins_not_positive);
    EXPECT_EQ(gh::validate_int64_spec({0, 0, 5, NumericRule::pg15}, true), gh::SpecError::bound_not_finite);
    EXPECT_EQ(gh::validate_int64_spec({3, 3, 5, NumericRule::pg15}, false), gh::SpecError::bounds_equal);
    EXPECT_EQ(gh::validate_int64_spec({0, 1, gh::kMaxBins + 1, NumericRule::pg15}, false), gh::SpecError::nbins_too_large);
    EXPECT_EQ(gh::validate_int64_spec({0, 1, gh::kMaxBins, NumericRule::pg15}, false), gh::SpecError::none);
}

TEST(TimeBucket, CpuLoopMatchesFormula)
{
    std::mt19937_64 rng(4);
    for (Int64Spec s : {Int64Spec{0, 86400000000LL, 1440, NumericRule::pg15},
                        Int64Spec{86400000000LL, 0, 1440, NumericRule::pg16},
                        Int64Spec{0, 100000000000000003LL, 20000, NumericRule::pg15},
                        Int64Spec{0, 100000000000000003LL, 20000, NumericRule::pg18},
                        Int64Spec{0, 1000000000000000000LL, 100000, NumericRule::pg16},
                        Int64Spec{-5, 5, 3, NumericRule::pg18}}) {
        std::vector<int64_t> v = near_edges(s, rng, 3000);
        for (int i = 0; i < 20000; i++)
            v.push_back(int64_t(rng()) >> (rng() % 64));
        v.push_back(kMin);
        v.push_back(kMax);
        std::vector<int64_t> counts(s.nbins + 2, 0), expected(s.nbins + 2, 0);
        ASSERT_EQ(gh::cpu_bin_int64(s, v.data(), v.size(), counts.data()), gh::Status::ok);
        for (int64_t x : v)
            expected[gh::int64_bucket_reference(x, s)]++;
        EXPECT_EQ(counts, expected);
    }
}

namespace {

/* width_bucket(x, t) for sorted t without NaN: how many thresholds are <= x. */
int32_t count_at_or_below(double x, const std::vector<double> &t)
{
    if (std::isnan(x))
        return int32_t(t.size());
    int32_t k = 0;
    for (double e : t)
        k += e <= x;
    return k;
}

} // namespace

TEST(ThresholdBucket, SortedThresholdsCountThoseAtOrBelow)
{
    std::vector<double> t = {1, 2, 5, 10, 20, 50, 100};
    for (double x : {double(-INFINITY), -1.0, 0.0, 1.0, 1.5, 2.0, 4.999, 5.0, 99.0, 100.0, 1e300, double(INFINITY), double(NAN)})
        EXPECT_EQ(gh::threshold_bucket(x, t.data(), int32_t(t.size())), count_at_or_below(x, t)) << x;
    std::mt19937_64 rng(2);
    for (int32_t n : {1, 2, 3, 1000, 100000}) {
        std::vector<double> s(n);
        std::uniform_real_distribution<double> d(-1e3, 1e3);
        for (double &e : s)
            e = std::floor(d(rng) * 4) / 4; /* duplicates on purpose */
        std::sort(s.begin(), s.end());
        for (int i = 0; i < 2000; i++) {
            double x = i % 3 == 0 ? s[rng() % n] : std::floor(d(rng) * 8) / 8;
            ASSERT_EQ(gh::threshold_bucket(x, s.data(), n), count_at_or_below(x, s)) << x;
        }
    }
}

/* What PostgreSQL 15.18 returned for unsorted arrays, NaN thresholds and an empty array. */
TEST(ThresholdBucket, UnsortedNaNAndEmptyAsPostgres15)
{
    std::vector<double> unsorted = {5, 1, 3, 2, 4}, with_nan = {1, NAN, 3};
    const double xs[] = {-1, 0, 1, 1.5, 2, 3, 4, 5, 6, NAN, INFINITY};
    const int32_t want_unsorted[] = {0, 0, 2, 2, 2, 4, 5, 5, 5, 5, 5};
    const int32_t want_nan[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 3, 1};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        EXPECT_EQ(gh::threshold_bucket(xs[i], unsorted.data(), 5), want_unsorted[i]) << xs[i];
        EXPECT_EQ(gh::threshold_bucket(xs[i], with_nan.data(), 3), want_nan[i]) << xs[i];
        EXPECT_EQ(gh::threshold_bucket(xs[i], nullptr, 0), 0);
    }
}

/*
 * Up to 32 thresholds the CPU compares all at once where they are sorted
 * with no NaN: the server's search must come out of both the plain and the
 * grouped loop, sorted or not, with signed zeros, infinities and repeats.
 */
TEST(ThresholdBucket, FewThresholdsAsTheSearch)
{
    std::mt19937_64 rng(11);
    const double pool[] = {-INFINITY, -2.5, -1, -0.0, 0.0, 0.25, 1, 1, 3.5, 7, 1e300, INFINITY};
    for (int trial = 0; trial < 400; trial++) {
        const int32_t n = 1 + trial % 40;
        std::vector<double> t(n);
        for (double &e : t)
            e = rng() % 3 == 0 ? pool[rng() % 12] : double(int64_t(rng() % 64) - 32) / 4;
        if (trial % 5 != 4)
            std::sort(t.begin(), t.end());
        if (trial % 7 == 6)
            t[rng() % n] = NAN;
        std::vector<double> v(t.begin(), t.end());
        v.insert(v.end(), std::begin(pool), std::end(pool));
        v.push_back(NAN);
        for (int i = 0; i < 300; i++)
            v.push_back(double(int64_t(rng() % 80) - 40) / 4);
        std::vector<int64_t> counts(n + 1, 0), expected(n + 1, 0);
        for (double x : v)
            expected[gh::threshold_bucket(x, t.data(), n)]++;
        gh::ThresholdSpec s{t.data(), n};
        ASSERT_EQ(gh::cpu_bin_thresholds(s, v.data(), v.size(), counts.data()), gh::Status::ok);
        ASSERT_EQ(counts, expected) << "trial " << trial;
        /* each value alone into its own row: the grouped loop */
        std::vector<std::vector<int64_t>> own(v.size(), std::vector<int64_t>(n + 1, 0));
        std::vector<int64_t *> rows(v.size());
        for (size_t i = 0; i < v.size(); i++)
            rows[i] = own[i].data();
        ASSERT_EQ(gh::cpu_bin_rows_words(gh::threshold_histogram(t.data(), n), v.data(), rows.data(), v.size()),
                  gh::Status::ok);
        for (size_t i = 0; i < v.size(); i++)
            ASSERT_EQ(own[i][gh::threshold_bucket(v[i], t.data(), n)], 1) << "trial " << trial << " value " << v[i];
    }
}

TEST(ThresholdBucket, CpuLoopMatchesFormula)
{
    std::mt19937_64 rng(5);
    for (int32_t n : {0, 1, 7, 1500, 100000}) {
        std::vector<double> t(n);
        for (double &e : t)
            e = double(int64_t(rng() % 20000) - 10000) / 8;
        if (n % 2)
            std::sort(t.begin(), t.end()); /* the even sizes stay unsorted */
        std::vector<double> v;
        for (int i = 0; i < 50000; i++)
            v.push_back(double(int64_t(rng() % 22000) - 11000) / 8);
        v.insert(v.end(), {double(NAN), double(INFINITY), double(-INFINITY), -0.0, 0.0});
        gh::ThresholdSpec s{t.data(), n};
        std::vector<int64_t> counts(n + 1, 0), expected(n + 1, 0);
        ASSERT_EQ(gh::cpu_bin_thresholds(s, v.data(), v.size(), counts.data()), gh::Status::ok);
        for (double x : v)
            expected[gh::threshold_bucket(x, t.data(), n)]++;
        EXPECT_EQ(counts, expected) << n;
        /* and through the kind-neutral entry point */
        std::vector<int64_t> words(n + 1, 0);
        ASSERT_EQ(gh::cpu_bin_words(gh::threshold_histogram(t.data(), n), v.data(), v.size(), words.data()),
                  gh::Status::ok);
        EXPECT_EQ(words, expected);
    }
}
