/*
 * grouped_test.cpp: the CPU's grouped binning (cpu_bin_grouped, and
 * cpu_bin_rows, the same loop over rows kept anywhere, as a grouped scan
 * keeps its groups) against the naive per-value formula, and against one
 * cpu_bin per group: random and edge values, random and constant group
 * numbers, both bound orders and both rules, and its refusals (NaN, a group
 * out of range, a spec too large, a null row).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_backend.h"

namespace {

using gh::BucketRule;
using gh::BucketSpec;
using gh::GroupedSpec;
using gh::Status;

std::vector<int64_t> naive(const GroupedSpec &spec, const std::vector<double> &v, const std::vector<uint32_t> &g)
{
    std::vector<int64_t> counts(static_cast<size_t>(gh::grouped_cells(spec)), 0);
    for (size_t i = 0; i < v.size(); i++)
        counts[g[i] * size_t(gh::grouped_slots(spec)) + size_t(gh::width_bucket(v[i], spec.interval))]++;
    return counts;
}

/* Random values around the range and every kind of edge: bucket edges, their neighbours, ±0, ±inf. */
std::vector<double> values_for(const BucketSpec &s, size_t n, std::mt19937_64 &rng)
{
    std::vector<double> v = {s.lo, s.hi, std::nextafter(s.lo, -INFINITY), std::nextafter(s.hi, INFINITY), 0.0,
                             -0.0, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, DBL_TRUE_MIN};
    std::uniform_int_distribution<int32_t> edge(0, s.nbins);
    for (int i = 0; i < 500; i++) {
        double e = s.lo + (s.hi - s.lo) * edge(rng) / s.nbins;
        v.insert(v.end(), {e, std::nextafter(e, -INFINITY), std::nextafter(e, INFINITY)});
    }
    double a = std::min(s.lo, s.hi), w = std::fabs(s.hi - s.lo);
    std::uniform_real_distribution<double> wide(a - w / 8, a + w + w / 8);
    while (v.size() < n)
        v.push_back(wide(rng));
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

} // namespace

TEST(Grouped, MatchesTheNaiveFormulaAndOneHistogramPerGroup)
{
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> bound(-1e5, 1e5);
    for (uint32_t groups : {1u, 2u, 100u, 2778u, 65536u}) {
        for (int trial = 0; trial < 4; trial++) {
            BucketSpec interval{bound(rng), bound(rng), int32_t(1 + rng() % (groups > 1000 ? 64 : 3000)),
                                trial % 2 ? BucketRule::pg16 : BucketRule::pg15};
            GroupedSpec spec{interval, groups};
            std::vector<double> v = values_for(interval, 20000, rng);
            std::vector<uint32_t> g(v.size());
            for (uint32_t &x : g)
                x = static_cast<uint32_t>(rng() % groups);
            std::vector<int64_t> counts(size_t(gh::grouped_cells(spec)), 0);
            ASSERT_EQ(gh::cpu_bin_grouped(spec, v.data(), g.data(), v.size(), counts.data()), Status::ok);
            ASSERT_EQ(counts, naive(spec, v, g)) << "groups " << groups << " trial " << trial;
            if (groups > 100)
                continue;
            /* each group's cells are that group's values binned alone */
            const size_t slots = size_t(gh::grouped_slots(spec));
            for (uint32_t k = 0; k < groups; k++) {
                std::vector<double> mine;
                for (size_t i = 0; i < v.size(); i++)
                    if (g[i] == k)
                        mine.push_back(v[i]);
                std::vector<int64_t> alone(slots, 0);
                ASSERT_EQ(gh::cpu_bin(interval, mine.data(), mine.size(), alone.data()), Status::ok);
                ASSERT_TRUE(std::equal(alone.begin(), alone.end(), counts.begin() + k * slots)) << k;
            }
        }
    }
}

TEST(Grouped, RowsKeptAnywhereGetTheSameCounts)
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> bound(-1e3, 1e3);
    for (int trial = 0; trial < 8; trial++) {
        BucketSpec interval{bound(rng), bound(rng), int32_t(1 + rng() % 500),
                            trial % 2 ? BucketRule::pg16 : BucketRule::pg15};
        GroupedSpec spec{interval, 37};
        std::vector<double> v = values_for(interval, 5000, rng);
        std::vector<uint32_t> g(v.size());
        for (uint32_t &x : g)
            x = static_cast<uint32_t>(rng() % spec.groups);
        /* each group's row in a block of its own, with a guard cell on each side */
        const size_t slots = size_t(gh::grouped_slots(spec));
        std::vector<std::vector<int64_t>> blocks(spec.groups, std::vector<int64_t>(slots + 2, 0));
        std::vector<int64_t *> rows(v.size());
        for (size_t i = 0; i < v.size(); i++)
            rows[i] = blocks[g[i]].data() + 1;
        ASSERT_EQ(gh::cpu_bin_rows(interval, v.data(), rows.data(), v.size()), Status::ok);
        std::vector<int64_t> want = naive(spec, v, g);
        for (uint32_t k = 0; k < spec.groups; k++) {
            EXPECT_EQ(blocks[k].front(), 0);
            EXPECT_EQ(blocks[k].back(), 0);
            ASSERT_TRUE(std::equal(blocks[k].begin() + 1, blocks[k].end() - 1, want.begin() + k * slots)) << k;
        }
    }
    std::vector<double> nan = {0.5, NAN};
    std::vector<int64_t> row(18, 0);
    std::vector<int64_t *> rows = {row.data(), row.data()};
    EXPECT_EQ(gh::cpu_bin_rows(BucketSpec{0, 1, 16, BucketRule::pg15}, nan.data(), rows.data(), 2), Status::nan_value);
    rows[1] = nullptr;
    nan[1] = 0.25;
    EXPECT_EQ(gh::cpu_bin_rows(BucketSpec{0, 1, 16, BucketRule::pg15}, nan.data(), rows.data(), 2),
              Status::internal_error);
}

/* The time and threshold forms' rows: each group's row equals cpu_bin_words over the group's values alone. */
TEST(Grouped, RowsOfEveryKindEqualTheUngroupedLoop)
{
    std::mt19937_64 rng(11);
    static const double thresholds[] = {-5.0, -1.0, 0.0, 0.0, 2.5, 1e9};
    for (int trial = 0; trial < 6; trial++) {
        gh::HistogramSpec spec{};
        std::vector<double> words(4000);
        if (trial % 2 == 0) {
            /* microseconds over a day, some outside; pg15, pg16 and pg18 rules in turn */
            const gh::NumericRule rules[] = {gh::NumericRule::pg15, gh::NumericRule::pg16, gh::NumericRule::pg18};
            int64_t lo = int64_t(rng() % 1000000000), hi = lo + 86400000000LL;
            spec = gh::int64_histogram(gh::Int64Spec{trial == 2 ? hi : lo, trial == 2 ? lo : hi, 1155, rules[trial / 2]});
            for (double &w : words) {
                int64_t x = lo - 1000000000LL + int64_t(rng() % 88400000000ULL);
                memcpy(&w, &x, sizeof x);
            }
        } else {
            spec = gh::threshold_histogram(thresholds, trial == 5 ? 0 : 6);
            for (double &w : words)
                w = trial == 3 && rng() % 17 == 0 ? NAN : double(int64_t(rng() % 40)) / 4 - 6;
        }
        const uint32_t groups = 13;
        const size_t slots = size_t(gh::histogram_slots(spec));
        std::vector<std::vector<int64_t>> rows_of(groups, std::vector<int64_t>(slots, 0));
        std::vector<std::vector<double>> alone(groups);
        std::vector<int64_t *> rows(words.size());
        for (size_t i = 0; i < words.size(); i++) {
            uint32_t g = uint32_t(rng() % groups);
            rows[i] = rows_of[g].data();
            alone[g].push_back(words[i]);
        }
        ASSERT_EQ(gh::cpu_bin_rows_words(spec, words.data(), rows.data(), words.size()), Status::ok);
        for (uint32_t g = 0; g < groups; g++) {
            std::vector<int64_t> want(slots, 0);
            ASSERT_EQ(gh::cpu_bin_words(spec, alone[g].data(), alone[g].size(), want.data()), Status::ok);
            ASSERT_EQ(rows_of[g], want) << "trial " << trial << " group " << g;
        }
    }
    std::vector<double> w = {0.5};
    std::vector<int64_t *> none = {nullptr};
    EXPECT_EQ(gh::cpu_bin_rows_words(gh::threshold_histogram(thresholds, 6), w.data(), none.data(), 1),
              Status::internal_error);
}

TEST(Grouped, ConstantInputAndEmptyBatches)
{
    GroupedSpec spec{BucketSpec{0, 1, 16, BucketRule::pg15}, 7};
    std::vector<double> v(100003, 0.5);
    std::vector<uint32_t> g(v.size(), 6);
    std::vector<int64_t> counts(size_t(gh::grouped_cells(spec)), 0);
    ASSERT_EQ(gh::cpu_bin_grouped(spec, v.data(), g.data(), 0, counts.data()), Status::ok);
    EXPECT_EQ(counts, std::vector<int64_t>(counts.size(), 0));
    ASSERT_EQ(gh::cpu_bin_grouped(spec, v.data(), g.data(), v.size(), counts.data()), Status::ok);
    EXPECT_EQ(counts[6 * 18 + 9], 100003); /* width_bucket(0.5, 0, 1, 16) = 9 */
    EXPECT_EQ(counts, naive(spec, v, g));
}

TEST(Grouped, RefusesNaNGroupsOutOfRangeAndTooManyCells)
{
    GroupedSpec spec{BucketSpec{-1, 1, 10, BucketRule::pg16}, 3};
    std::vector<double> v = {0.1, 0.2, NAN, 0.3};
    std::vector<uint32_t> g = {0, 1, 2, 2};
    std::vector<int64_t> counts(size_t(gh::grouped_cells(spec)), 0);
    EXPECT_EQ(gh::cpu_bin_grouped(spec, v.data(), g.data(), v.size(), counts.data()), Status::nan_value);
    v[2] = 0.0;
    g[3] = 3;
    EXPECT_EQ(gh::cpu_bin_grouped(spec, v.data(), g.data(), v.size(), counts.data()), Status::internal_error);
    /* cells beyond int32, and no groups at all, are refused before anything is counted */
    counts.assign(counts.size(), 0);
    GroupedSpec huge{BucketSpec{0, 1, 1000000, BucketRule::pg15}, 3000};
    EXPECT_FALSE(gh::grouped_spec_fits(huge));
    EXPECT_EQ(gh::cpu_bin_grouped(huge, v.data(), g.data(), v.size(), counts.data()), Status::internal_error);
    GroupedSpec none{BucketSpec{0, 1, 10, BucketRule::pg15}, 0};
    EXPECT_EQ(gh::cpu_bin_grouped(none, v.data(), g.data(), v.size(), counts.data()), Status::internal_error);
    EXPECT_EQ(counts, std::vector<int64_t>(counts.size(), 0));
}
