/*
 * cuda_cluster_test.cu: the cluster path (gpu/kernels/kernel_cluster.cuh) where
 * its own arithmetic can go wrong: the cells on either side of every
 * boundary between two blocks' slices, in clusters of every size the
 * device makes, each hit so often that its 16-bit counter hands 2^15 to
 * the device counter many times and the outboxes overflow into global
 * atomics, with slices below and above 65,536 cells (an outbox's two
 * parts); one cluster alone, so each block routes the most values; the
 * grouped form across slice boundaries; every cap on the steps a round
 * and prefetch distance; a test small enough for racecheck; and the
 * engine's choice of clusters.  Against the CPU backend; skips without a
 * GPU or without clusters (devices before sm_90).
 */
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cuda_kernel_harness.cuh"

namespace {

using gh::BucketRule;
using gh::BucketSpec;
using gh::KernelPath;
using gh::Status;
using gh_test::binned;
using gh_test::clustered;
using gh_test::DeviceArray;
using gh_test::KernelTest;

/* A value whose bucket is `cell` (0: below lo, nbins + 1: at or above hi), for lo < hi. */
double value_in(const BucketSpec &s, int64_t cell)
{
    if (cell == 0)
        return s.lo - 1;
    if (cell == s.nbins + 1)
        return s.hi + 1;
    return s.lo + (s.hi - s.lo) * (static_cast<double>(cell) - 0.5) / s.nbins;
}

/* The cells next to each boundary between the plan's slices, and the first and last two cells. */
std::vector<int64_t> boundary_cells(int64_t cells, const gh::KernelPlan &p)
{
    std::vector<int64_t> out = {0, 1, cells - 2, cells - 1};
    for (int64_t r = 1; r < p.slices; r++)
        for (int64_t d : {-2, -1, 0, 1})
            if (r * p.per_block + d >= 0 && r * p.per_block + d < cells)
                out.push_back(r * p.per_block + d);
    return out;
}

/*
 * n values cycling through the hot cells, so that neighbours (one thread's
 * values) differ and each value travels alone; every tenth one anywhere.
 */
std::vector<double> hammering(const BucketSpec &s, const std::vector<int64_t> &hot, size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> any(s.lo - 1, s.hi + 1);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = i % 10 == 9 ? any(rng) : value_in(s, hot[i % hot.size()]);
    return v;
}

std::vector<int64_t> on_cpu(const BucketSpec &spec, const std::vector<double> &v)
{
    std::vector<int64_t> counts(size_t(spec.nbins) + 2, 0);
    EXPECT_EQ(gh::cpu_bin(spec, v.data(), v.size(), counts.data()), Status::ok);
    return counts;
}

std::string plan_name(int32_t slots, const gh::KernelLimits &l)
{
    char buf[64];
    return gh::describe_plan(gh::kernel_plan(slots, 8, l), buf, sizeof buf);
}

class ClusterTest : public KernelTest {
  protected:
    void SetUp() override
    {
        KernelTest::SetUp();
        if (!IsSkipped() && limits.max_cluster == 0)
            GTEST_SKIP() << "the device launches no thread block clusters";
    }
};

} // namespace

TEST_F(ClusterTest, SliceBoundariesInEveryClusterSize)
{
    for (int blocks = 2; blocks <= limits.max_cluster; blocks *= 2) {
        /*
         * slices that do not divide the cells evenly (the last block owns
         * fewer); blocks that own more than 65,536 cells (outboxes in two parts)
         */
        for (int32_t nbins : {blocks * 1000 + 5, blocks * 45000 - 7, blocks * 70000 - 7}) {
            BucketSpec spec{-100, 900, nbins, BucketRule::pg15};
            const int32_t cells = nbins + 2;
            gh::KernelPlan p = gh::kernel_plan(cells, 8, clustered(limits, blocks));
            if (p.path != KernelPath::cluster)
                continue; /* too many cells for this size */
            ASSERT_EQ(p.slices, blocks);
            /* every boundary; then only the first, so that two owners take all and outboxes overflow */
            for (const std::vector<int64_t> &hot :
                 {boundary_cells(cells, p), std::vector<int64_t>{p.per_block - 1, p.per_block}}) {
                /* 21M values: each hot cell is hit more than 2^16 times */
                std::vector<double> v = hammering(spec, hot, 21000017, uint64_t(nbins));
                DeviceArray<double> d(v);
                const std::vector<int64_t> want = on_cpu(spec, v);
                for (int max_blocks : {0, blocks}) { /* every cluster the device holds, then one */
                    gh::KernelLimits l = clustered(limits, blocks, max_blocks);
                    gh_test::Binned b = binned(size_t(cells), [&](unsigned long long *c, int *f) {
                        return gh::bin_on_device(d.get(), v.size(), spec, c, f, l, nullptr);
                    });
                    ASSERT_EQ(b.flags, 0);
                    for (int64_t cell : hot)
                        ASSERT_EQ(b.counts[size_t(cell)], want[size_t(cell)])
                            << "cell " << cell << ", " << plan_name(cells, l) << ", max_blocks " << max_blocks;
                    ASSERT_EQ(b.counts, want) << plan_name(cells, l) << ", max_blocks " << max_blocks;
                }
            }
        }
    }
}

TEST_F(ClusterTest, GroupedAcrossSliceBoundaries)
{
    /* 40,000 groups of 18 cells in clusters of 16: groups straddle the slices */
    gh::GroupedSpec spec{BucketSpec{0, 16, 16, BucketRule::pg16}, 40000};
    const int32_t cells = int32_t(gh::grouped_cells(spec));
    for (int blocks : {0, 16}) {
        gh::KernelLimits l = clustered(limits, blocks);
        gh::KernelPlan p = gh::kernel_plan(cells, 8, l);
        if (p.path != KernelPath::cluster)
            continue;
        std::mt19937_64 rng(blocks);
        std::vector<double> values(6000011);
        std::vector<uint32_t> groups(values.size());
        const int32_t slots = gh::grouped_slots(spec);
        for (size_t i = 0; i < values.size(); i++) {
            /* half on the cells next to a slice boundary, half anywhere */
            int64_t cell = int64_t(rng() % uint64_t(cells));
            if (i % 2 == 0 && p.slices > 1)
                cell = int64_t(1 + rng() % uint64_t(p.slices - 1)) * p.per_block - 1 + int64_t(rng() % 2);
            groups[i] = uint32_t(cell / slots);
            int64_t bucket = cell % slots;
            values[i] = bucket == 0 ? -1.0 : bucket == slots - 1 ? 17.0 : double(bucket) - 0.5;
        }
        std::vector<int64_t> want(size_t(cells), 0);
        ASSERT_EQ(gh::cpu_bin_grouped(spec, values.data(), groups.data(), values.size(), want.data()), Status::ok);
        DeviceArray<double> dv(values);
        DeviceArray<uint32_t> dg(groups);
        gh_test::Binned b = binned(size_t(cells), [&](unsigned long long *c, int *f) {
            return gh::bin_grouped_on_device(dv.get(), dg.get(), values.size(), spec, c, f, l, nullptr);
        });
        ASSERT_EQ(b.flags, 0);
        ASSERT_EQ(b.counts, want) << plan_name(cells, l);
    }
}

TEST_F(ClusterTest, EveryStepsCapAndPrefetchCountExactly)
{
    /*
     * 262,144 buckets in one cluster of each size (each block routes the
     * most), every cap on the steps a round, prefetch off and three steps
     * ahead: misaligned values, an odd count, and fewer values than one
     * step (prefetches past the end are skipped); grouped, with the group
     * numbers misaligned too.  Small enough for compute-sanitizer.
     */
    BucketSpec spec{0, 1000, 262144, BucketRule::pg15};
    const int32_t cells = spec.nbins + 2;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> any(spec.lo - 5, spec.hi + 5);
    std::vector<double> v(200003);
    for (size_t i = 0; i < v.size(); i++)
        v[i] = i % 3 == 0 ? value_in(spec, int64_t(i % 7) * 37449) : any(rng); /* some equal neighbours */
    DeviceArray<double> d(v);
    std::vector<double> gv(v.size()); /* the same values over the grouped histogram's [0, 16) */
    for (size_t i = 0; i < v.size(); i++)
        gv[i] = v[i] / 62.5;
    DeviceArray<double> dgv(gv);
    gh::GroupedSpec gspec{BucketSpec{0, 16, 16, BucketRule::pg16}, 14563}; /* 262,134 cells */
    const int32_t gcells = int32_t(gh::grouped_cells(gspec));
    std::vector<uint32_t> groups(v.size());
    for (size_t i = 0; i < groups.size(); i++)
        groups[i] = uint32_t(rng() % gspec.groups);
    DeviceArray<uint32_t> dg(groups);
    for (size_t n : {v.size() - 1, size_t(999)}) {
        const std::vector<double> part(v.begin() + 1, v.begin() + 1 + long(n));
        const std::vector<int64_t> want = on_cpu(spec, part);
        std::vector<int64_t> gwant(size_t(gcells), 0);
        ASSERT_EQ(gh::cpu_bin_grouped(gspec, gv.data() + 1, groups.data() + 1, n, gwant.data()), Status::ok);
        for (int blocks = 2; blocks <= limits.max_cluster; blocks *= 2)
            for (int steps = 1; steps <= 4; steps++)
                for (int prefetch : {-1, 3}) {
                    gh::KernelLimits l = clustered(limits, blocks, blocks);
                    l.max_cluster_steps = steps;
                    l.cluster_prefetch = prefetch;
                    const std::string what = plan_name(cells, l) + ", prefetch " + std::to_string(prefetch) +
                                             ", " + std::to_string(n) + " values";
                    const gh::KernelPlan p = gh::kernel_plan(cells, 8, l), gp = gh::kernel_plan(gcells, 8, l);
                    if (p.path == KernelPath::cluster && p.slices == blocks) {
                        gh_test::Binned b = binned(size_t(cells), [&](unsigned long long *c, int *f) {
                            return gh::bin_on_device(d.get() + 1, n, spec, c, f, l, nullptr);
                        });
                        ASSERT_EQ(b.flags, 0) << what;
                        ASSERT_EQ(b.counts, want) << what;
                    }
                    if (gp.path == KernelPath::cluster && gp.slices == blocks) {
                        gh_test::Binned b = binned(size_t(gcells), [&](unsigned long long *c, int *f) {
                            return gh::bin_grouped_on_device(dgv.get() + 1, dg.get() + 1, n, gspec, c, f, l,
                                                             nullptr);
                        });
                        ASSERT_EQ(b.flags, 0) << what;
                        ASSERT_EQ(b.counts, gwant) << "grouped, " << what;
                    }
                }
    }
}

TEST_F(ClusterTest, SeveralRoundsInEveryClusterSizeSmallEnoughForRacecheck)
{
    /*
     * What compute-sanitizer's racecheck can finish: it ran about 150,000
     * values a second on the H100 and did not finish the tests above in
     * minutes.  One cluster of each size, one step a
     * round, so that both outboxes are written and pulled at least twice
     * each, the hot cells at every slice boundary; the engine's prefetch.
     */
    const BucketSpec spec{0, 1000, 262144, BucketRule::pg15};
    const int32_t cells = spec.nbins + 2;
    constexpr size_t kStep = 1024 * 8; /* values a block bins in a step (kernel_cluster.cuh) */
    for (int blocks = 2; blocks <= limits.max_cluster; blocks *= 2) {
        gh::KernelLimits l = clustered(limits, blocks, blocks);
        l.max_cluster_steps = 1;
        const gh::KernelPlan p = gh::kernel_plan(cells, 8, l);
        if (p.path != KernelPath::cluster || p.slices != blocks)
            continue;
        const size_t n = 5 * kStep * size_t(blocks) + 13; /* five rounds and a ragged end */
        const std::vector<double> v = hammering(spec, boundary_cells(cells, p), n, uint64_t(blocks));
        DeviceArray<double> d(v);
        gh_test::Binned b = binned(size_t(cells), [&](unsigned long long *c, int *f) {
            return gh::bin_on_device(d.get(), n, spec, c, f, l, nullptr);
        });
        ASSERT_EQ(b.flags, 0) << plan_name(cells, l);
        EXPECT_EQ(b.counts, on_cpu(spec, v)) << plan_name(cells, l);
    }
}

TEST_F(ClusterTest, SidecarOnIdleSMsCountsExactly)
{
    /*
     * Clusters of 16 leave SMs idle, where a sidecar kernel bins the
     * input's last part with global atomics (cuda_kernels.cu).  Weighted
     * heavily, so that its part is large, and not at all: float8, grouped,
     * time and threshold histograms over a million cells, from a
     * misaligned start, equal to the CPU's counts either way.
     */
    if (gh::kernel_plan(1000002, 8, limits).path != KernelPath::cluster)
        GTEST_SKIP() << "no clusters of 16 here";
    const size_t n = 16000003;
    std::mt19937_64 rng(23);
    const BucketSpec spec{-5, 5, 1000000, BucketRule::pg16};
    std::uniform_real_distribution<double> any(-6, 6);
    std::vector<double> v(n + 1);
    for (size_t i = 0; i < v.size(); i++)
        v[i] = i % 4 == 0 ? 1.25 : any(rng); /* runs of equal buckets too */
    const std::vector<double> part(v.begin() + 1, v.end());
    const std::vector<int64_t> want = on_cpu(spec, part);
    DeviceArray<double> d(v);

    const gh::GroupedSpec gspec{BucketSpec{0, 1, 16, BucketRule::pg15}, 60000};
    std::vector<uint32_t> groups(v.size());
    std::vector<double> gv(v.size());
    for (size_t i = 0; i < v.size(); i++) {
        groups[i] = uint32_t(rng() % gspec.groups);
        gv[i] = v[i] / 5;
    }
    std::vector<int64_t> gwant(size_t(gh::grouped_cells(gspec)), 0);
    ASSERT_EQ(gh::cpu_bin_grouped(gspec, gv.data() + 1, groups.data() + 1, n, gwant.data()), Status::ok);
    DeviceArray<double> dgv(gv);
    DeviceArray<uint32_t> dg(groups);

    const gh::Int64Spec tspec{0, 365LL * 86400000000LL, 1000000, gh::NumericRule::pg15};
    std::vector<int64_t> t(v.size());
    for (size_t i = 0; i < t.size(); i++)
        t[i] = int64_t(rng() % uint64_t(tspec.hi + 1000)) - 500;
    std::vector<int64_t> twant(size_t(tspec.nbins) + 2, 0);
    ASSERT_EQ(gh::cpu_bin_int64(tspec, t.data() + 1, n, twant.data()), Status::ok);
    DeviceArray<int64_t> dt(t);

    /* a million evenly spaced thresholds: segments' lines for most values, cells beside each threshold */
    std::vector<double> th(1000000);
    for (size_t i = 0; i < th.size(); i++)
        th[i] = -4.5 + 9.0 * double(i) / double(th.size());
    std::vector<double> tv(v);
    for (size_t i = 0; i < tv.size(); i += 3)
        tv[i] = th[rng() % th.size()]; /* on a threshold */
    std::vector<int64_t> thwant(th.size() + 1, 0);
    ASSERT_EQ(gh::cpu_bin_thresholds(gh::ThresholdSpec{th.data(), int32_t(th.size())}, tv.data() + 1, n,
                                     thwant.data()),
              Status::ok);
    gh_test::StagedThresholds dth(th);
    ASSERT_TRUE(dth.indexed());
    DeviceArray<double> dtv(tv);

    for (int weight : {400, 0, -1}) {
        gh::KernelLimits l = limits;
        l.cluster_sidecar = weight;
        const std::string what = "sidecar weight " + std::to_string(weight);
        gh_test::Binned b = binned(want.size(), [&](unsigned long long *c, int *f) {
            return gh::bin_on_device(d.get() + 1, n, spec, c, f, l, nullptr);
        });
        ASSERT_EQ(b.flags, 0) << what;
        ASSERT_EQ(b.counts, want) << what;
        b = binned(gwant.size(), [&](unsigned long long *c, int *f) {
            return gh::bin_grouped_on_device(dgv.get() + 1, dg.get() + 1, n, gspec, c, f, l, nullptr);
        });
        ASSERT_EQ(b.flags, 0) << what;
        ASSERT_EQ(b.counts, gwant) << "grouped, " << what;
        b = binned(twant.size(), [&](unsigned long long *c, int *f) {
            return gh::bin_int64_on_device(dt.get() + 1, n, tspec, c, f, l, nullptr);
        });
        ASSERT_EQ(b.flags, 0) << what;
        ASSERT_EQ(b.counts, twant) << "time, " << what;
        EXPECT_EQ(gh::threshold_plan(dth.get(), l).path, KernelPath::cluster);
        b = binned(thwant.size(), [&](unsigned long long *c, int *f) {
            return gh::bin_thresholds_on_device(dtv.get() + 1, n, dth.get(), c, f, l, nullptr);
        });
        ASSERT_EQ(b.counts, thwant) << "thresholds, " << what;
    }
}

TEST_F(ClusterTest, TheEnginesChoiceOfClusters)
{
    /* one block holds up to about 116,000 16-bit counters; more go to a cluster */
    EXPECT_EQ(gh::kernel_plan(65538, 8, limits).path, KernelPath::narrow);
    gh::KernelPlan p = gh::kernel_plan(262146, 8, limits);
    EXPECT_EQ(p.path, KernelPath::cluster);
    EXPECT_GE(p.slices, 4);
    /* the time form and indexed thresholds take the float8 intervals' paths; the thresholds' search keeps its own */
    p = gh::kernel_plan(1000002, 8, limits);
    EXPECT_EQ(p.path, limits.max_cluster >= 16 ? KernelPath::cluster : KernelPath::global);
    EXPECT_EQ(gh::time_plan(1000000, limits).path, p.path);
    EXPECT_NE(gh::threshold_plan(gh::DeviceThresholds{nullptr, 1000000, {}, nullptr}, limits).path,
              KernelPath::cluster);
    gh::DeviceThresholds indexed{nullptr, 1000000, gh::ThresholdIndex{0, 1, 1 << 21}, nullptr,
                                 gh::ThresholdIndex{0, 1, gh::kThresholdSegments}, nullptr};
    EXPECT_EQ(gh::threshold_plan(indexed, limits).path, p.path);
    /* too many for 16 blocks: global atomics */
    EXPECT_EQ(gh::kernel_plan(4000002, 8, limits).path, KernelPath::global);
    /* without clusters, slices as before */
    gh::KernelLimits none = limits;
    none.max_cluster = 0;
    EXPECT_EQ(gh::kernel_plan(262146, 8, none).path, KernelPath::narrow);
    EXPECT_EQ(gh::kernel_plan(262146, 8, none).slices, 3);
}
