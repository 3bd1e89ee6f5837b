/*
 * threshold_index_test.cpp: the CUDA kernels' direct-mapped lookup among
 * sorted thresholds (gpu/formulas/threshold_index.h) against threshold_bucket.h,
 * the server's binary search step for step, on arrays shaped to break it:
 * crowded and empty cells, runs of equal thresholds, both zeros, spans at
 * the doubles' edges, cells finer than the doubles' spacing; and which
 * arrays get no index at all.  Host code, so CI runs it without a GPU; the
 * kernels call the same lookup (cuda_backend_test.cu checks them on a GPU).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "formulas/threshold_index.h"

namespace {

/* The values worth asking about: every threshold, its neighbouring doubles, the ends, random ones. */
std::vector<double> probes(const std::vector<double> &t, std::mt19937_64 &rng)
{
    std::vector<double> v = {INFINITY, -INFINITY, 0.0, -0.0, DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN};
    for (double e : t) {
        v.push_back(e);
        v.push_back(std::nextafter(e, -INFINITY));
        v.push_back(std::nextafter(e, INFINITY));
    }
    const double lo = t.front(), hi = t.back();
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 20000; i++) {
        const double w = u(rng);
        v.push_back(lo * (1 - w) + hi * w);
        v.push_back(t[rng() % t.size()] * (1 + (u(rng) - 0.5) * 1e-12));
    }
    return v;
}

/*
 * How many probes the index answers differently from the server's search
 * (the array must be indexed), with as many cells as the kernels use in
 * device memory, in shared memory, and far fewer (crowded cells).
 */
long wrong(const std::vector<double> &t, std::mt19937_64 &rng)
{
    const int32_t count = static_cast<int32_t>(t.size());
    const std::vector<double> v = probes(t, rng);
    long bad = 0;
    for (int32_t max_cells : {gh::kMaxThresholdCells, gh::kSharedThresholdCells, 7}) {
        const gh::ThresholdIndex ix = gh::plan_threshold_index(t.data(), count, max_cells);
        EXPECT_GT(ix.cells, 0) << "not indexed: " << count << " thresholds from " << t.front();
        if (ix.cells == 0)
            return -1;
        EXPECT_LE(ix.cells, max_cells);
        std::vector<gh::ThresholdCell> cells(static_cast<size_t>(ix.cells));
        gh::fill_threshold_index(t.data(), count, ix, cells.data());
        EXPECT_EQ(cells.back().base + cells.back().n, count);
        for (double x : v)
            if (gh::indexed_threshold_bucket(x, t.data(), count, ix, cells.data()) !=
                gh::threshold_bucket(x, t.data(), count))
                bad++;
        /* the segments' lines, where they answer, answer the same; as many segments as cells at most */
        const int32_t segments = std::min(max_cells, gh::kThresholdSegments);
        gh::ThresholdIndex lines{};
        std::vector<gh::ThresholdSegment> seg(static_cast<size_t>(segments));
        gh::fill_threshold_segments(t.data(), count, segments, &lines, seg.data());
        EXPECT_EQ(lines.cells, segments);
        for (double x : v) {
            if (x != x)
                continue;
            const int32_t b = gh::segment_bucket(x, seg[static_cast<size_t>(gh::threshold_cell(x, lines))]);
            if (b >= 0 && b != gh::threshold_bucket(x, t.data(), count))
                bad++;
        }
        if (gh::indexed_threshold_bucket(NAN, t.data(), count, ix, cells.data()) != count)
            bad++;
    }
    return bad;
}

std::vector<double> sorted(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    return t;
}

} // namespace

TEST(ThresholdIndex, AgreesWithTheServersSearchOnSortedArrays)
{
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::vector<double>> arrays;
    std::vector<double> t;
    for (int i = 0; i < 50000; i++)
        t.push_back(1200.0 * i / 50000); /* evenly spaced, as the benchmark's */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 20000; i++)
        t.push_back(std::pow(10.0, -12 + 24.0 * i / 20000)); /* log-spaced: one cell holds most */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 9000; i++)
        t.push_back(double(i / 9) - 500); /* runs of nine equal thresholds */
    t.push_back(-0.0);
    t.push_back(0.0);
    arrays.push_back(sorted(t));
    t.clear();
    for (int i = 0; i < 10000; i++)
        t.push_back(u(rng) * DBL_MAX / 2); /* a span near the largest double */
    arrays.push_back(sorted(t));
    t.clear();
    for (int i = 0; i < 10000; i++)
        t.push_back(1e15 + 0.125 * i); /* cells finer than the doubles there */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 5000; i++)
        t.push_back(u(rng) * 1e-300); /* subnormal neighbourhood */
    arrays.push_back(sorted(t));
    arrays.push_back({-1, 1});
    arrays.push_back({0, 0, 0, 1e-300});
    for (const std::vector<double> &a : arrays)
        EXPECT_EQ(wrong(a, rng), 0) << a.size() << " thresholds from " << a.front() << " to " << a.back();
}

/*
 * The segments' lines answer most values of evenly spaced thresholds (the
 * kernels then read no cell), and fall back to the cells near every
 * threshold, on crowded or uneven segments, and where two thresholds are
 * equal.
 */
TEST(ThresholdIndex, SegmentsAnswerEvenThresholdsAndStepAsideElsewhere)
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0, 1);
    auto answered = [&](const std::vector<double> &t, long *wrong_answers) {
        const int32_t count = static_cast<int32_t>(t.size());
        gh::ThresholdIndex lines{};
        std::vector<gh::ThresholdSegment> seg(gh::kThresholdSegments);
        gh::fill_threshold_segments(t.data(), count, gh::kThresholdSegments, &lines, seg.data());
        long yes = 0, all = 0;
        for (int i = 0; i < 200000; i++) {
            const double x = t.front() + (t.back() - t.front()) * (u(rng) * 1.2 - 0.1);
            const int32_t b = gh::segment_bucket(x, seg[static_cast<size_t>(gh::threshold_cell(x, lines))]);
            all++;
            if (b >= 0) {
                yes++;
                if (b != gh::threshold_bucket(x, t.data(), count))
                    ++*wrong_answers;
            }
        }
        for (size_t j = 0; j < t.size(); j++) /* on and beside each threshold */
            for (double x : {t[j], std::nextafter(t[j], -INFINITY), std::nextafter(t[j], INFINITY)}) {
                const int32_t b = gh::segment_bucket(x, seg[static_cast<size_t>(gh::threshold_cell(x, lines))]);
                if (b >= 0 && b != gh::threshold_bucket(x, t.data(), count))
                    ++*wrong_answers;
            }
        return double(yes) / double(all);
    };
    long wrong_answers = 0;
    std::vector<double> t;
    for (int i = 0; i < 100000; i++)
        t.push_back(1200.0 * i / 100000); /* the benchmark's */
    EXPECT_GT(answered(t, &wrong_answers), 0.99);
    t.clear();
    for (int i = 0; i < 100000; i++)
        t.push_back(std::exp(10.0 * i / 100000)); /* geometric, 1 .. e^10 */
    EXPECT_GT(answered(t, &wrong_answers), 0.5);
    t.clear();
    for (int i = 0; i < 20000; i++)
        t.push_back(std::pow(10.0, -12 + 24.0 * i / 20000)); /* log-spaced over 24 decades: crowded */
    answered(t, &wrong_answers);
    t.clear();
    for (int i = 0; i < 30000; i++)
        t.push_back(double(i / 3)); /* runs of equal thresholds: no line */
    EXPECT_EQ(answered(t, &wrong_answers), 0.0);
    t.clear();
    for (int i = 0; i < 50000; i++)
        t.push_back(u(rng) * 1000);
    std::sort(t.begin(), t.end()); /* random gaps */
    answered(t, &wrong_answers);
    EXPECT_EQ(wrong_answers, 0);
}

TEST(ThresholdIndex, CellsAreBoundedAndSkipEmptyOnes)
{
    std::vector<double> t(3000000);
    for (size_t i = 0; i < t.size(); i++)
        t[i] = double(i);
    const gh::ThresholdIndex ix = gh::plan_threshold_index(t.data(), int32_t(t.size()));
    EXPECT_EQ(ix.cells, gh::kMaxThresholdCells);
    std::vector<double> few = {0, 1, 2, 3};
    EXPECT_EQ(gh::plan_threshold_index(few.data(), 4).cells, 4 * gh::kThresholdCellsPerThreshold);
    /* the bound the kernels' shared memory copy asks for, and arrays indexed under it agree too */
    const gh::ThresholdIndex small = gh::plan_threshold_index(t.data(), 4096, gh::kSharedThresholdCells);
    EXPECT_EQ(small.cells, gh::kSharedThresholdCells);
    std::vector<gh::ThresholdCell> cells(static_cast<size_t>(small.cells));
    gh::fill_threshold_index(t.data(), 4096, small, cells.data());
    for (double x = -2; x < 4100; x += 0.25)
        ASSERT_EQ(gh::indexed_threshold_bucket(x, t.data(), 4096, small, cells.data()),
                  gh::threshold_bucket(x, t.data(), 4096))
            << x;
}

TEST(ThresholdIndex, ArraysTheServerSearchesDifferentlyGetNone)
{
    std::vector<std::vector<double>> none = {
        {},
        {5},
        {1, 3, 2},                   /* unsorted: the server's search is not a count */
        {1, NAN, 3},                 /* NaN sorts above all, but the search does not know */
        {-INFINITY, 0, 1},           /* no finite span */
        {0, 1, INFINITY},
        {2, 2, 2},                   /* no span at all */
        {-DBL_MAX, DBL_MAX},         /* the span overflows */
        {-DBL_MAX, 0, 1, DBL_MAX},
        {0, 0, 1e-320},              /* cells / span overflows */
    };
    for (const std::vector<double> &a : none)
        EXPECT_EQ(gh::plan_threshold_index(a.data(), int32_t(a.size())).cells, 0) << a.size();
}
