/*
 * cpu_backend_test.cpp: the CPU binning loop against the per-value formula,
 * on random and adversarial inputs, both bound orders, both rules.
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "cpu/cpu_backend.h"

namespace {

std::vector<int64_t> reference(const gh::BucketSpec &spec, const std::vector<double> &v)
{
    std::vector<int64_t> counts(spec.nbins + 2, 0);
    for (double x : v)
        counts[gh::width_bucket(x, spec)]++;
    return counts;
}

std::vector<double> adversarial(double lo, double hi, int32_t nbins)
{
    std::vector<double> v = {lo, hi, std::nextafter(lo, -INFINITY), std::nextafter(lo, INFINITY),
                             std::nextafter(hi, -INFINITY), std::nextafter(hi, INFINITY), 0.0, -0.0,
                             DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX};
    for (int32_t k = 0; k <= nbins && k < 1000; k++) {
        double e = lo + (hi - lo) * k / nbins;
        v.push_back(e);
        v.push_back(std::nextafter(e, -INFINITY));
        v.push_back(std::nextafter(e, INFINITY));
    }
    return v;
}

} // namespace

TEST(CpuBackend, MatchesFormulaOnRandomAndEdgeValues)
{
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> bound(-1e6, 1e6);
    std::uniform_int_distribution<int32_t> bins(1, 5000);
    for (int trial = 0; trial < 200; trial++) {
        double lo = bound(rng), hi = bound(rng);
        if (lo == hi)
            continue;
        for (gh::BucketRule rule : {gh::BucketRule::pg15, gh::BucketRule::pg16}) {
            gh::BucketSpec spec{lo, hi, bins(rng), rule};
            ASSERT_EQ(gh::validate_spec(spec), gh::SpecError::none);
            std::vector<double> v = adversarial(lo, hi, spec.nbins);
            std::uniform_real_distribution<double> wide(std::min(lo, hi) * 1.1 - 1, std::max(lo, hi) * 1.1 + 1);
            for (int i = 0; i < 2000; i++)
                v.push_back(wide(rng));
            std::vector<int64_t> counts(spec.nbins + 2, 0);
            ASSERT_EQ(gh::cpu_bin(spec, v.data(), v.size(), counts.data()), gh::Status::ok);
            ASSERT_EQ(counts, reference(spec, v)) << "lo=" << lo << " hi=" << hi << " n=" << spec.nbins;
        }
    }
}

TEST(CpuBackend, AccumulatesAcrossCalls)
{
    gh::BucketSpec spec{0, 1, 4, gh::BucketRule::pg15};
    std::vector<int64_t> counts(6, 0);
    double a[] = {0.1, 0.3, 0.6}, b[] = {0.9, 1.0, -1};
    ASSERT_EQ(gh::cpu_bin(spec, a, 3, counts.data()), gh::Status::ok);
    ASSERT_EQ(gh::cpu_bin(spec, b, 3, counts.data()), gh::Status::ok);
    EXPECT_EQ(counts, (std::vector<int64_t>{1, 1, 1, 1, 1, 1}));
}

TEST(CpuBackend, EmptyInputChangesNothing)
{
    gh::BucketSpec spec{0, 1, 4, gh::BucketRule::pg15};
    std::vector<int64_t> counts(6, 7);
    ASSERT_EQ(gh::cpu_bin(spec, nullptr, 0, counts.data()), gh::Status::ok);
    EXPECT_EQ(counts, std::vector<int64_t>(6, 7));
}

TEST(CpuBackend, NaNIsReported)
{
    gh::BucketSpec spec{0, 1, 4, gh::BucketRule::pg15};
    std::vector<int64_t> counts(6, 0);
    double v[] = {0.5, std::nan(""), 0.5};
    EXPECT_EQ(gh::cpu_bin(spec, v, 3, counts.data()), gh::Status::nan_value);
}

TEST(CpuBackend, MaximumBucketCount)
{
    gh::BucketSpec spec{0, 1, gh::kMaxBins, gh::BucketRule::pg15};
    std::vector<int64_t> counts(spec.nbins + 2, 0);
    std::vector<double> v = adversarial(0, 1, spec.nbins);
    ASSERT_EQ(gh::cpu_bin(spec, v.data(), v.size(), counts.data()), gh::Status::ok);
    EXPECT_EQ(counts, reference(spec, v));
}

TEST(CpuBackend, CountOneAddsAndRemovesWhatCpuBinCounts)
{
    for (gh::BucketRule rule : {gh::BucketRule::pg15, gh::BucketRule::pg16}) {
        for (auto [lo, hi] : {std::pair<double, double>{-1, 1}, {1, -1}, {0, 1e-300}}) {
            gh::BucketSpec spec{lo, hi, 100, rule};
            std::vector<double> v = adversarial(lo, hi, spec.nbins);
            std::vector<int64_t> one(spec.nbins + 2, 0), batch(spec.nbins + 2, 0);
            for (double x : v)
                ASSERT_EQ(gh::cpu_count_one(spec, x, 1, one.data()), gh::Status::ok);
            ASSERT_EQ(gh::cpu_bin(spec, v.data(), v.size(), batch.data()), gh::Status::ok);
            EXPECT_EQ(one, batch);
            for (double x : v)
                ASSERT_EQ(gh::cpu_count_one(spec, x, -1, one.data()), gh::Status::ok);
            EXPECT_EQ(one, std::vector<int64_t>(spec.nbins + 2, 0));
        }
    }
}

TEST(CpuBackend, CountOneRefusesNaNAndChangesNothing)
{
    gh::BucketSpec spec{0, 1, 4, gh::BucketRule::pg15};
    std::vector<int64_t> counts(6, 3);
    EXPECT_EQ(gh::cpu_count_one(spec, std::nan(""), 1, counts.data()), gh::Status::nan_value);
    EXPECT_EQ(gh::cpu_count_one(spec, std::nan(""), -1, counts.data()), gh::Status::nan_value);
    EXPECT_EQ(counts, std::vector<int64_t>(6, 3));
}
