/*
 * cuda_paths_test.cu: every way the kernels count, each forced in turn,
 * against the CPU backend: copies in shared memory, one copy per large
 * block in 32-bit or 16-bit counters, in slices when a block is too small,
 * and global atomics.  Bucket counts from 1 to 1,000,000 over random values and
 * every bucket edge, constant input (one counter takes every value), few
 * blocks and odd sizes, NaN on every path, the time and threshold kinds on
 * every path; the engine's own choice where it matters; and more than 2^32
 * values into one block's 32-bit counters.  Skips without a GPU.
 */
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
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
using gh_test::DeviceArray;
using gh_test::forced;
using gh_test::every_path;
using gh_test::KernelTest;
using gh_test::StagedThresholds;

/* Random values around the range, and bucket edges drawn from all of it with their neighbours. */
std::vector<double> float_values(const BucketSpec &s, size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<double> v = {s.lo, s.hi, std::nextafter(s.lo, -INFINITY), std::nextafter(s.hi, INFINITY),
                             std::nextafter(s.hi, -INFINITY), 0.0, -0.0, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX,
                             DBL_TRUE_MIN};
    std::uniform_int_distribution<int32_t> edge(0, s.nbins);
    for (int i = 0; i < 20000; i++) {
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

std::vector<int64_t> on_cpu(const BucketSpec &spec, const std::vector<double> &v, size_t skip = 0)
{
    std::vector<int64_t> counts(size_t(spec.nbins) + 2, 0);
    EXPECT_EQ(gh::cpu_bin(spec, v.data() + skip, v.size() - skip, counts.data()), Status::ok);
    return counts;
}

gh_test::Binned on_gpu(const BucketSpec &spec, const DeviceArray<double> &d, size_t n, const gh::KernelLimits &l)
{
    return binned(size_t(spec.nbins) + 2, [&](unsigned long long *c, int *f) {
        return gh::bin_on_device(d.get(), n, spec, c, f, l, nullptr);
    });
}

std::string plan_name(int32_t slots, const gh::KernelLimits &l)
{
    char buf[64];
    return gh::describe_plan(gh::kernel_plan(slots, 8, l), buf, sizeof buf);
}

} // namespace

TEST_F(KernelTest, EveryPathMatchesTheCpu)
{
    int trial = 0;
    for (int32_t nbins : {1, 250, 5000, 40000, 65536, 250000, 1000000}) {
        trial++;
        BucketSpec spec = trial % 2 ? BucketSpec{-3.5, 1e4, nbins, BucketRule::pg15}
                                    : BucketSpec{7.25, -2e3, nbins, BucketRule::pg16};
        std::vector<double> v = float_values(spec, 1500000, nbins);
        DeviceArray<double> d(v);
        const std::vector<int64_t> expected = on_cpu(spec, v);
        for (const gh::KernelLimits &l : every_path(limits, nbins + 2)) {
            gh_test::Binned b = on_gpu(spec, d, v.size(), l);
            ASSERT_EQ(b.flags, 0);
            ASSERT_EQ(b.counts, expected) << "nbins " << nbins << ", " << plan_name(nbins + 2, l);
        }
    }
}

TEST_F(KernelTest, ConstantAndTwoValuedInputOnEveryPath)
{
    for (int32_t nbins : {256, 65536, 1000000}) {
        BucketSpec spec{0, 1, nbins, BucketRule::pg15};
        /* 20M values: over 2^15 per block and counter, so 16-bit counters hand over to the device's */
        std::vector<double> constant(20000017, 0.5);
        std::vector<double> two(20000017);
        for (size_t i = 0; i < two.size(); i++)
            two[i] = (i * 2654435761u) % 7 < 3 ? 0.25 : 0.75; /* two hot buckets, irregularly mixed */
        DeviceArray<double> dc(constant), dt(two);
        const std::vector<int64_t> want_c = on_cpu(spec, constant), want_t = on_cpu(spec, two);
        for (const gh::KernelLimits &l : every_path(limits, nbins + 2)) {
            ASSERT_EQ(on_gpu(spec, dc, constant.size(), l).counts, want_c) << plan_name(nbins + 2, l);
            ASSERT_EQ(on_gpu(spec, dt, two.size(), l).counts, want_t) << plan_name(nbins + 2, l);
        }
    }
}

TEST_F(KernelTest, FewBlocksOddSizesAndMisalignedStarts)
{
    BucketSpec spec{-1, 1, 70000, BucketRule::pg16};
    for (size_t n : {0ul, 1ul, 3ul, 31ul, 4097ul, 1000003ul}) {
        std::vector<double> v = float_values(spec, n + 3, n);
        v.resize(n + 3);
        DeviceArray<double> d(v);
        for (const gh::KernelLimits &every : every_path(limits, spec.nbins + 2)) {
            gh::KernelPlan p = gh::kernel_plan(spec.nbins + 2, 8, every);
            /* one block, or one per slice: each thread strides over the most values */
            gh::KernelLimits l = every;
            l.max_blocks = p.path == KernelPath::block || p.path == KernelPath::narrow ? p.slices : 1;
            for (size_t skip = 0; skip < 3; skip++) {
                gh_test::Binned b = binned(size_t(spec.nbins) + 2, [&](unsigned long long *c, int *f) {
                    return gh::bin_on_device(d.get() + skip, n + 3 - skip, spec, c, f, l, nullptr);
                });
                ASSERT_EQ(b.counts, on_cpu(spec, v, skip)) << "n " << n << " skip " << skip << ", "
                                                           << plan_name(spec.nbins + 2, l);
            }
        }
    }
}

TEST_F(KernelTest, NaNSetsTheFlagOnEveryPath)
{
    for (int32_t nbins : {8, 65536, 1000000}) {
        BucketSpec spec{0, 1, nbins, BucketRule::pg15};
        std::vector<double> v(200003, 0.25);
        v[123457] = std::nan("");
        DeviceArray<double> d(v);
        for (const gh::KernelLimits &l : every_path(limits, nbins + 2))
            EXPECT_EQ(on_gpu(spec, d, v.size(), l).flags, 1) << plan_name(nbins + 2, l);
    }
}

TEST_F(KernelTest, FloatSamplesOnEveryPath)
{
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-0.2f, 1.2f);
    std::vector<float> f(1000001);
    for (float &x : f)
        x = u(rng);
    std::vector<double> fd(f.begin(), f.end());
    BucketSpec spec{0, 1, 300000, BucketRule::pg15};
    DeviceArray<float> d(f);
    for (const gh::KernelLimits &l : every_path(limits, spec.nbins + 2, 4)) {
        gh_test::Binned b = binned(size_t(spec.nbins) + 2, [&](unsigned long long *c, int *fl) {
            return gh::bin_on_device(d.get(), f.size(), spec, c, fl, l, nullptr);
        });
        ASSERT_EQ(b.counts, on_cpu(spec, fd)) << plan_name(spec.nbins + 2, l);
    }
}

/*
 * float4 values next to every bucket edge, binned in single precision
 * (bucket_single.h) with the float8 form where that is in doubt, on every
 * path: equal to the server's width_bucket of the value cast to float8.
 */
TEST_F(KernelTest, FloatEdgesInSinglePrecisionOnEveryPath)
{
    std::mt19937 rng(29);
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (const BucketSpec &spec : {BucketSpec{0, 1, 16, rule}, BucketSpec{0, 1, 4096, rule},
                                       BucketSpec{100, -100, 256, rule}, BucketSpec{0.1, 0.7, 1000, rule}}) {
            std::vector<float> f;
            for (int32_t k = 0; k <= spec.nbins; k++) {
                float e = static_cast<float>(spec.lo + (spec.hi - spec.lo) * k / spec.nbins);
                f.push_back(e);
                float down = e, up = e;
                for (int i = 0; i < 3; i++) {
                    down = std::nextafter(down, -INFINITY);
                    up = std::nextafter(up, INFINITY);
                    f.push_back(down);
                    f.push_back(up);
                }
            }
            std::uniform_real_distribution<float> u(-0.2f, 1.2f);
            while (f.size() < 300001)
                f.push_back(static_cast<float>(spec.lo + (spec.hi - spec.lo) * u(rng)));
            f.insert(f.end(), {INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f});
            std::shuffle(f.begin(), f.end(), rng);
            std::vector<double> fd(f.begin(), f.end());
            DeviceArray<float> d(f);
            for (const gh::KernelLimits &l : every_path(limits, spec.nbins + 2, 4)) {
                gh_test::Binned b = binned(size_t(spec.nbins) + 2, [&](unsigned long long *c, int *fl) {
                    return gh::bin_on_device(d.get(), f.size(), spec, c, fl, l, nullptr);
                });
                ASSERT_EQ(b.counts, on_cpu(spec, fd))
                    << plan_name(spec.nbins + 2, l) << " lo " << spec.lo << " nbins " << spec.nbins;
            }
        }
}

TEST_F(KernelTest, TimeAndThresholdKindsOnEveryPath)
{
    std::mt19937_64 rng(31);
    const int64_t day = 86400000000LL;
    for (gh::Int64Spec s : {gh::Int64Spec{0, 365 * day, 100000, gh::NumericRule::pg15}, gh::Int64Spec{0, 100000000000000003LL, 20000, gh::NumericRule::pg15},
                            gh::Int64Spec{day, 0, 1000000, gh::NumericRule::pg15}}) {
        std::vector<int64_t> v(1000000);
        uint64_t lo = uint64_t(std::min(s.lo, s.hi)), width = uint64_t(std::max(s.lo, s.hi)) - lo;
        for (int64_t &x : v)
            x = int64_t(lo - width / 8 + rng() % (width / 4 * 5));
        std::vector<int64_t> expected(size_t(s.nbins) + 2, 0);
        ASSERT_EQ(gh::cpu_bin_int64(s, v.data(), v.size(), expected.data()), Status::ok);
        DeviceArray<int64_t> d(v);
        for (const gh::KernelLimits &l : every_path(limits, s.nbins + 2))
            ASSERT_EQ(binned(size_t(s.nbins) + 2,
                             [&](unsigned long long *c, int *f) {
                                 return gh::bin_int64_on_device(d.get(), v.size(), s, c, f, l, nullptr);
                             })
                          .counts,
                      expected)
                << "nbins " << s.nbins << ", " << plan_name(s.nbins + 2, l);
    }
    /* thresholds: all in shared memory, the top of the search tree, sorted, unsorted with NaN */
    for (int32_t count : {100, 5000, 100000, 300000}) {
        for (bool sorted : {true, false}) {
            std::vector<double> t(static_cast<size_t>(count));
            std::uniform_real_distribution<double> d(-1000, 1000);
            for (double &e : t)
                e = !sorted && rng() % 61 == 0 ? NAN : std::floor(d(rng) * 64) / 64;
            if (sorted)
                std::sort(t.begin(), t.end());
            std::vector<double> x(800000);
            for (size_t i = 0; i < x.size(); i++)
                x[i] = i % 3 == 0 ? t[rng() % t.size()] : d(rng) * 1.1;
            x[17] = NAN;
            std::vector<int64_t> expected(size_t(count) + 1, 0);
            ASSERT_EQ(gh::cpu_bin_thresholds(gh::ThresholdSpec{t.data(), count}, x.data(), x.size(), expected.data()),
                      Status::ok);
            StagedThresholds dt(t);
            DeviceArray<double> dx(x);
            /* sorted arrays are indexed (in shared memory up to 4,096); unsorted ones never */
            EXPECT_EQ(dt.indexed(), sorted) << count;
            for (const gh::KernelLimits &l : every_path(limits, count + 1)) {
                char buf[64];
                ASSERT_EQ(binned(size_t(count) + 1,
                                 [&](unsigned long long *c, int *f) {
                                     return gh::bin_thresholds_on_device(dx.get(), x.size(), dt.get(), c, f, l,
                                                                         nullptr);
                                 })
                              .counts,
                          expected)
                    << count << " thresholds, sorted " << sorted << ", "
                    << gh::describe_plan(gh::threshold_plan(dt.get(), l), buf, sizeof buf);
            }
        }
    }
}

TEST_F(KernelTest, TheEnginesChoice)
{
    EXPECT_EQ(gh::kernel_plan(258, 8, limits).path, KernelPath::shared);
    EXPECT_EQ(gh::kernel_plan(4098, 8, limits).path, KernelPath::shared);
    EXPECT_EQ(gh::kernel_plan(16386, 8, limits).path, KernelPath::block);
    gh::KernelPlan p = gh::kernel_plan(65538, 8, limits);
    EXPECT_EQ(p.path, KernelPath::narrow); /* one slice of 16-bit counters on an H100 */
    EXPECT_EQ(gh::kernel_plan(gh::kMaxBins + 2, 8, limits).path, KernelPath::global);
    EXPECT_EQ(gh::kernel_plan(gh::kMaxBins + 2, 1, limits).path, KernelPath::shared); /* bytes: always */
    EXPECT_TRUE(gh::uses_shared_memory(256, limits));
    EXPECT_FALSE(gh::uses_shared_memory(65536, limits));
    EXPECT_EQ(gh::time_plan(100000, limits).path, KernelPath::narrow);
    EXPECT_EQ(gh::threshold_plan(gh::DeviceThresholds{nullptr, 100000, {}, nullptr}, limits).path,
              KernelPath::narrow);
    /* a forced path the histogram cannot take falls back to the engine's choice */
    EXPECT_EQ(gh::kernel_plan(1000002, 8, forced(limits, KernelPath::shared)).path,
              gh::kernel_plan(1000002, 8, limits).path);
}

/*
 * One block's 32-bit counters see more than 2^32 values: launches of fewer
 * than 2^31 values each keep them from overflowing.  4 GiB of bytes in one
 * block; then, where the device has room, 32 GiB of float8 into one block's
 * one 16-bit counter (65,536 buckets), which hands 2^15 to the device
 * counter 2^17 times.
 */
TEST_F(KernelTest, MoreThanTwoToThe32ValuesInOneBlock)
{
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    const size_t n = (size_t(1) << 32) + 3;
    if (free_bytes < n + (size_t(1) << 30))
        GTEST_SKIP() << "needs 5 GiB of free device memory";
    {
        DeviceArray<uint8_t> bytes(n);
        ASSERT_TRUE(bytes.ok());
        ASSERT_EQ(cudaMemset(bytes.get(), 7, n), cudaSuccess);
        BucketSpec spec{0, 256, 256, BucketRule::pg15};
        gh_test::Binned b = binned(258, [&](unsigned long long *c, int *f) {
            return gh::bin_on_device(bytes.get(), n, spec, c, f, forced(limits, KernelPath::shared, 1), nullptr);
        });
        EXPECT_EQ(b.counts[8], int64_t(n)); /* width_bucket(7, 0, 256, 256) = 8 */
    }
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    if (free_bytes < 8 * n + (size_t(1) << 30))
        GTEST_SKIP() << "the float8 part needs 33 GiB of free device memory";
    DeviceArray<double> x(n);
    ASSERT_TRUE(x.ok());
    ASSERT_EQ(cudaMemset(x.get(), 0x3F, 8 * n), cudaSuccess); /* every value 0x3F3F3F3F3F3F3F3F, about 0.00048 */
    double value;
    std::memset(&value, 0x3F, sizeof value);
    BucketSpec spec{0, 1, 65536, BucketRule::pg15};
    gh::KernelPlan p = gh::kernel_plan(spec.nbins + 2, 8, limits);
    gh::KernelLimits one = limits;
    one.max_blocks = p.path == KernelPath::block || p.path == KernelPath::narrow ? p.slices : 1;
    gh_test::Binned b = on_gpu(spec, x, n, one);
    EXPECT_EQ(b.counts[size_t(gh::width_bucket(value, spec))], int64_t(n)) << plan_name(spec.nbins + 2, one);
}
