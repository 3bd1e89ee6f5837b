/*
 * cuda_backend_test.cu: the CUDA backend against the CPU backend.
 *
 * Random and adversarial data (every edge value, ±0, denormals, ±inf),
 * sizes 0, 1 and odd tails, misaligned starts, constant input, 1 and
 * 10,000,000 buckets, both bound orders and both PostgreSQL rules; the
 * pinned-batch pipeline through the public interface; NaN, pool exhaustion
 * and injected CUDA failures.  Time histograms (int64 values, PostgreSQL's
 * numeric rounding at the edges) and thresholds (in shared and in global
 * memory, sorted and unsorted, up to 100,000) against the CPU loops too.
 * Skips, with a message, where there is no GPU.
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_backend.h"
#include "cuda_kernels.cuh"
#include "gpu_backend.h"

namespace {

using gh::BucketRule;
using gh::BucketSpec;
using gh::Status;

class Cuda : public ::testing::Test {
  protected:
    void SetUp() override
    {
        Status s = gh::gpu_start();
        if (s != Status::ok)
            GTEST_SKIP() << "no usable GPU, CUDA tests skipped: " << gh::status_text(s) << ": "
                         << gh::gpu_last_error();
        ASSERT_EQ(gh::describe_device(0, &limits), cudaSuccess);
    }
    gh::KernelLimits limits{};
};

std::vector<double> adversarial(double lo, double hi, int32_t nbins, size_t random_count, uint64_t seed)
{
    std::vector<double> v = {lo, hi, std::nextafter(lo, -INFINITY), std::nextafter(lo, INFINITY),
                             std::nextafter(hi, -INFINITY), std::nextafter(hi, INFINITY), 0.0, -0.0,
                             DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX,
                             0.99999999999999989, -1.0, 1.0};
    for (int32_t k = 0; k <= nbins && k < 2000; k++) {
        double e = lo + (hi - lo) * k / nbins;
        v.push_back(e);
        v.push_back(std::nextafter(e, -INFINITY));
        v.push_back(std::nextafter(e, INFINITY));
    }
    std::mt19937_64 rng(seed);
    double a = std::min(lo, hi), b = std::max(lo, hi), w = b - a;
    std::uniform_real_distribution<double> wide(a - w / 8, b + w / 8);
    for (size_t i = 0; i < random_count; i++)
        v.push_back(wide(rng));
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

std::vector<int64_t> on_cpu(const BucketSpec &spec, const double *v, size_t n)
{
    std::vector<int64_t> counts(spec.nbins + 2, 0);
    EXPECT_EQ(gh::cpu_bin(spec, v, n, counts.data()), Status::ok);
    return counts;
}

/* The kernel straight on device memory, at an offset of `skip` values into the buffer. */
template <typename T>
std::vector<int64_t> on_gpu_kernel(const BucketSpec &spec, const std::vector<T> &v, size_t skip,
                                   const gh::KernelLimits &limits, int *nan_out = nullptr)
{
    size_t nb = spec.nbins + 2;
    T *d_values = nullptr;
    unsigned long long *d_counts = nullptr;
    int *d_nan = nullptr;
    EXPECT_EQ(cudaMalloc(&d_values, sizeof(T) * (v.size() + 1)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_counts, sizeof(unsigned long long) * nb), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_nan, sizeof(int)), cudaSuccess);
    if (!v.empty())
        EXPECT_EQ(cudaMemcpy(d_values, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice), cudaSuccess);
    /* poison, then zero only what the kernel must accumulate into */
    EXPECT_EQ(cudaMemset(d_counts, 0, sizeof(unsigned long long) * nb), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_nan, 0, sizeof(int)), cudaSuccess);
    EXPECT_EQ(gh::bin_on_device(d_values + skip, v.size() - skip, spec, d_counts, d_nan, limits, nullptr),
              cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned long long> host(nb);
    EXPECT_EQ(cudaMemcpy(host.data(), d_counts, sizeof(unsigned long long) * nb, cudaMemcpyDeviceToHost),
              cudaSuccess);
    int nan = 0;
    EXPECT_EQ(cudaMemcpy(&nan, d_nan, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    if (nan_out)
        *nan_out = nan;
    cudaFree(d_values);
    cudaFree(d_counts);
    cudaFree(d_nan);
    return std::vector<int64_t>(host.begin(), host.end());
}

/* The pipeline through gpu_backend.h for any kind: 8-byte words in pinned batches. */
template <typename T>
Status words_on_gpu_pipeline(const gh::HistogramSpec &spec, const std::vector<T> &v, size_t batch,
                             std::vector<int64_t> *counts)
{
    counts->assign(gh::histogram_slots(spec), 0);
    gh::DeviceHistogram *h = nullptr;
    Status s = gh::gpu_histogram_open(spec, &h);
    if (s != Status::ok)
        return s;
    for (size_t start = 0; start < v.size() && s == Status::ok; start += batch) {
        size_t n = std::min(batch, v.size() - start);
        gh::PinnedBatch *b = nullptr;
        s = gh::gpu_batch_acquire(batch, 4 * batch * sizeof(double), nullptr, &b);
        if (s != Status::ok)
            break;
        std::memcpy(b->values, v.data() + start, n * sizeof(T));
        s = gh::gpu_histogram_submit(h, b, n);
    }
    if (s == Status::ok)
        s = gh::gpu_histogram_drain(h, counts->data(), nullptr);
    gh::gpu_histogram_close(h);
    return s;
}

/* The float8 form through the same pipeline. */
Status on_gpu_pipeline(const BucketSpec &spec, const std::vector<double> &v, size_t batch,
                       std::vector<int64_t> *counts)
{
    return words_on_gpu_pipeline(gh::float_histogram(spec), v, batch, counts);
}

} // namespace

TEST_F(Cuda, KernelMatchesCpuOnRandomSpecs)
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> bound(-1e4, 1e4);
    std::uniform_int_distribution<int32_t> bins(1, 70000); /* both the shared and the global path */
    for (int trial = 0; trial < 60; trial++) {
        double lo = bound(rng), hi = bound(rng);
        BucketSpec spec{lo, hi, bins(rng), trial % 2 ? BucketRule::pg16 : BucketRule::pg15};
        std::vector<double> v = adversarial(lo, hi, spec.nbins, 100000 + trial, trial);
        ASSERT_EQ(on_gpu_kernel(spec, v, 0, limits), on_cpu(spec, v.data(), v.size()))
            << "lo=" << lo << " hi=" << hi << " nbins=" << spec.nbins;
    }
}

TEST_F(Cuda, EveryKernelVariantAtLargeSharedMemory)
{
    /* each of the kernel instantiations must get its own shared-memory limit and grid */
    for (int32_t nbins : {30000, 200, 50000, 1000})
        for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
            for (bool ascending : {true, false}) {
                BucketSpec spec{ascending ? -3.0 : 7.0, ascending ? 7.0 : -3.0, nbins, rule};
                std::vector<double> v = adversarial(spec.lo, spec.hi, nbins, 20000, nbins);
                ASSERT_EQ(on_gpu_kernel(spec, v, 0, limits), on_cpu(spec, v.data(), v.size()))
                    << "nbins=" << nbins << " ascending=" << ascending;
            }
}

TEST_F(Cuda, SizesAndMisalignedStarts)
{
    BucketSpec spec{-1, 1, 10, BucketRule::pg15};
    for (size_t n : {0ul, 1ul, 2ul, 3ul, 7ul, 31ul, 257ul, 4097ul, 1000003ul}) {
        std::vector<double> v = adversarial(-1, 1, 10, n, n);
        v.resize(n + 3);
        for (size_t skip = 0; skip < 3; skip++) {
            std::vector<double> rest(v.begin() + skip, v.end());
            ASSERT_EQ(on_gpu_kernel(spec, v, skip, limits), on_cpu(spec, rest.data(), rest.size()))
                << "n=" << n << " skip=" << skip;
        }
    }
}

TEST_F(Cuda, ConstantInputAndExtremeBucketCounts)
{
    for (int32_t nbins : {1, 256, 65536, gh::kMaxBins}) {
        BucketSpec spec{0, 1, nbins, BucketRule::pg15};
        std::vector<double> constant(3000001, 0.5);
        ASSERT_EQ(on_gpu_kernel(spec, constant, 0, limits), on_cpu(spec, constant.data(), constant.size()));
        std::vector<double> v = adversarial(0, 1, nbins, 2000000, nbins);
        ASSERT_EQ(on_gpu_kernel(spec, v, 0, limits), on_cpu(spec, v.data(), v.size())) << nbins;
    }
    EXPECT_TRUE(gh::uses_shared_memory(256, limits));
    EXPECT_FALSE(gh::uses_shared_memory(gh::kMaxBins, limits));
}

TEST_F(Cuda, Pg15RoundingQuirkOnDevice)
{
    BucketSpec spec{-1, 1, 10, BucketRule::pg15};
    std::vector<double> v(1000, 0.99999999999999989);
    std::vector<int64_t> counts = on_gpu_kernel(spec, v, 0, limits);
    EXPECT_EQ(counts[11], 1000); /* width_bucket(0.99999999999999989, -1, 1, 10) = 11 on PG 15 */
    spec.rule = BucketRule::pg16;
    counts = on_gpu_kernel(spec, v, 0, limits);
    EXPECT_EQ(counts[10], 1000);
}

TEST_F(Cuda, FourAndOneByteSamples)
{
    std::mt19937 rng(3);
    std::vector<float> f(1000003);
    std::uniform_real_distribution<float> d(-2.f, 2.f);
    for (float &x : f)
        x = d(rng);
    std::vector<double> fd(f.begin(), f.end());
    BucketSpec spec{-1.5, 1.5, 97, BucketRule::pg15};
    EXPECT_EQ(on_gpu_kernel(spec, f, 1, limits), on_cpu(spec, fd.data() + 1, fd.size() - 1));
    std::vector<uint8_t> u(1000005);
    for (uint8_t &x : u)
        x = static_cast<uint8_t>(rng());
    std::vector<double> ud(u.begin(), u.end());
    BucketSpec bytes{0, 256, 256, BucketRule::pg15};
    for (size_t skip : {0ul, 1ul, 5ul})
        EXPECT_EQ(on_gpu_kernel(bytes, u, skip, limits), on_cpu(bytes, ud.data() + skip, ud.size() - skip));
    /* byte values are counted raw and mapped to buckets at the end: any spec, any order */
    for (BucketSpec odd : {BucketSpec{300, -10, 7, BucketRule::pg16}, BucketSpec{17.5, 200.25, 1000, BucketRule::pg15},
                           BucketSpec{255, 0, 3, BucketRule::pg15}})
        EXPECT_EQ(on_gpu_kernel(odd, u, 3, limits), on_cpu(odd, ud.data() + 3, ud.size() - 3));
}

TEST_F(Cuda, NaNSetsTheFlag)
{
    BucketSpec spec{0, 1, 8, BucketRule::pg15};
    std::vector<double> v(100000, 0.25);
    v[77777] = std::nan("");
    int nan = 0;
    on_gpu_kernel(spec, v, 0, limits, &nan);
    EXPECT_EQ(nan, 1);
    std::vector<int64_t> counts;
    EXPECT_EQ(on_gpu_pipeline(spec, v, 16384, &counts), Status::nan_value);
}

TEST_F(Cuda, PinnedPipelineMatchesCpu)
{
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (auto [lo, hi] : {std::pair{0.0, 1.0}, std::pair{5.0, -3.0}}) {
            BucketSpec spec{lo, hi, 256, rule};
            std::vector<double> v = adversarial(lo, hi, 256, 3000017, 11);
            std::vector<int64_t> counts;
            ASSERT_EQ(on_gpu_pipeline(spec, v, 1 << 18, &counts), Status::ok);
            ASSERT_EQ(counts, on_cpu(spec, v.data(), v.size()));
        }
}

TEST_F(Cuda, PoolIsBoundedAndReused)
{
    size_t cap = 1 << 16, limit = 2 * cap * sizeof(double);
    gh::PinnedBatch *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(gh::gpu_batch_acquire(cap, limit, nullptr, &a), Status::ok);
    ASSERT_EQ(gh::gpu_batch_acquire(cap, limit, nullptr, &b), Status::ok);
    /* both held, none in flight: nothing to wait for */
    EXPECT_EQ(gh::gpu_batch_acquire(cap, limit, nullptr, &c), Status::out_of_memory);
    int64_t bytes = gh::gpu_counters().pinned_bytes;
    gh::gpu_batch_release(a);
    ASSERT_EQ(gh::gpu_batch_acquire(cap, limit, nullptr, &c), Status::ok);
    EXPECT_EQ(c, a);
    EXPECT_EQ(gh::gpu_counters().pinned_bytes, bytes);
    gh::gpu_batch_release(b);
    gh::gpu_batch_release(c);
}

TEST_F(Cuda, InjectedFailureIsReportedAndRecovered)
{
    BucketSpec spec{0, 1, 16, BucketRule::pg15};
    std::vector<double> v = adversarial(0, 1, 16, 100000, 5);
    std::vector<int64_t> warm;
    ASSERT_EQ(on_gpu_pipeline(spec, v, 16384, &warm), Status::ok); /* pool at its working size */
    size_t free_before = gh::gpu_free_device_memory();
    for (long k = 1; k <= 6; k++) {
        gh::gpu_fail_after(k);
        std::vector<int64_t> counts;
        Status s = on_gpu_pipeline(spec, v, 16384, &counts);
        gh::gpu_fail_after(0);
        EXPECT_NE(s, Status::ok) << "call " << k << " was meant to fail";
        EXPECT_NE(std::string(gh::gpu_last_error()), "");
    }
    std::vector<int64_t> counts;
    ASSERT_EQ(on_gpu_pipeline(spec, v, 16384, &counts), Status::ok);
    EXPECT_EQ(counts, on_cpu(spec, v.data(), v.size()));
    EXPECT_EQ(gh::gpu_free_device_memory(), free_before);
}

/* ---- time histograms (int64 values) and thresholds ---- */

namespace {

/* Random int64s around the spec, and values whose quotient lies just below a bucket edge. */
std::vector<int64_t> int64_values(const gh::Int64Spec &s, size_t random_count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    bool up = s.lo < s.hi;
    gh::u128 range = up ? uint64_t(s.hi) - uint64_t(s.lo) : uint64_t(s.lo) - uint64_t(s.hi);
    std::vector<int64_t> v = {s.lo, s.hi, INT64_MIN, INT64_MAX, 0};
    for (int i = 0; i < 5000; i++) {
        uint64_t k = 1 + rng() % uint64_t(s.nbins);
        gh::u128 e = (gh::u128(k) * range + s.nbins - 1) / uint64_t(s.nbins);
        for (uint64_t j : {0, 1, 2, 3}) {
            uint64_t d = uint64_t(e - (e >= j ? j : 0));
            v.push_back(up ? int64_t(uint64_t(s.lo) + d) : int64_t(uint64_t(s.lo) - d));
        }
    }
    uint64_t lo = uint64_t(std::min(s.lo, s.hi)), width = uint64_t(range);
    for (size_t i = 0; i < random_count; i++)
        v.push_back(int64_t(lo - width / 8 + (width / 4 * 5 > 0 ? rng() % (width / 4 * 5 + 1) : 0)));
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

std::vector<int64_t> int64_on_cpu(const gh::Int64Spec &s, const std::vector<int64_t> &v)
{
    std::vector<int64_t> counts(s.nbins + 2, 0);
    EXPECT_EQ(gh::cpu_bin_int64(s, v.data(), v.size(), counts.data()), Status::ok);
    return counts;
}

template <typename T, typename Launch>
std::vector<int64_t> kernel_counts(const std::vector<T> &v, size_t skip, size_t slots, Launch launch)
{
    T *d_values = nullptr;
    unsigned long long *d_counts = nullptr;
    int *d_nan = nullptr;
    EXPECT_EQ(cudaMalloc(&d_values, sizeof(T) * (v.size() + 1)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_counts, sizeof(unsigned long long) * slots), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_nan, sizeof(int)), cudaSuccess);
    if (!v.empty())
        EXPECT_EQ(cudaMemcpy(d_values, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_counts, 0, sizeof(unsigned long long) * slots), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_nan, 0, sizeof(int)), cudaSuccess);
    EXPECT_EQ(launch(d_values + skip, v.size() - skip, d_counts, d_nan), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned long long> host(slots);
    EXPECT_EQ(cudaMemcpy(host.data(), d_counts, sizeof(unsigned long long) * slots, cudaMemcpyDeviceToHost),
              cudaSuccess);
    int nan = 0;
    EXPECT_EQ(cudaMemcpy(&nan, d_nan, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(nan, 0); /* neither kind has a NaN error */
    cudaFree(d_values);
    cudaFree(d_counts);
    cudaFree(d_nan);
    return std::vector<int64_t>(host.begin(), host.end());
}

std::vector<int64_t> int64_on_gpu(const gh::Int64Spec &s, const std::vector<int64_t> &v, size_t skip,
                                  const gh::KernelLimits &limits)
{
    return kernel_counts(v, skip, s.nbins + 2, [&](const int64_t *d, size_t n, unsigned long long *c, int *nan) {
        return gh::bin_int64_on_device(d, n, s, c, nan, limits, nullptr);
    });
}

std::vector<double> threshold_values(const std::vector<double> &t, size_t random_count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<double> v = {NAN, INFINITY, -INFINITY, 0.0, -0.0, DBL_MAX, -DBL_MAX};
    for (double e : t) {
        v.push_back(e);
        v.push_back(std::nextafter(e, -INFINITY));
        v.push_back(std::nextafter(e, INFINITY));
    }
    std::uniform_real_distribution<double> d(-1100, 1100);
    for (size_t i = 0; i < random_count; i++)
        v.push_back(i % 2 ? d(rng) : std::floor(d(rng)));
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

std::vector<int64_t> thresholds_on_cpu(const std::vector<double> &t, const double *v, size_t n)
{
    std::vector<int64_t> counts(t.size() + 1, 0);
    EXPECT_EQ(gh::cpu_bin_thresholds(gh::ThresholdSpec{t.data(), int32_t(t.size())}, v, n, counts.data()),
              Status::ok);
    return counts;
}

std::vector<int64_t> thresholds_on_gpu(const std::vector<double> &t, const std::vector<double> &v, size_t skip,
                                       const gh::KernelLimits &limits)
{
    double *d_t = nullptr;
    EXPECT_EQ(cudaMalloc(&d_t, sizeof(double) * (t.size() + 1)), cudaSuccess);
    if (!t.empty())
        EXPECT_EQ(cudaMemcpy(d_t, t.data(), sizeof(double) * t.size(), cudaMemcpyHostToDevice), cudaSuccess);
    std::vector<int64_t> counts =
        kernel_counts(v, skip, t.size() + 1, [&](const double *d, size_t n, unsigned long long *c, int *nan) {
            return gh::bin_thresholds_on_device(d, n, d_t, int32_t(t.size()), c, nan, limits, nullptr);
        });
    cudaFree(d_t);
    return counts;
}

} // namespace

TEST_F(Cuda, TimeKernelMatchesCpu)
{
    const int64_t day = 86400000000LL;
    const gh::Int64Spec specs[] = {
        {0, day, 1440},                                     /* minutes of a day */
        {day, 0, 1440},                                     /* the same, bounds reversed */
        {-211813488000000000LL, 9223371331200000000LL, 7},  /* the whole timestamp range */
        {0, 100000000000000003LL, 20000},                   /* numeric's rounding decides */
        {1000000000000000000LL, -999999999999999983LL, 12345},
        {5, 2000000000006LL, 99999},                        /* counters in global memory */
        {0, 365 * day, gh::kMaxBins},
        {-3, 4, 1},
        {730000, 740000, 10000},                            /* day numbers of dates */
    };
    for (const gh::Int64Spec &s : specs) {
        std::vector<int64_t> v = int64_values(s, 300000, uint64_t(s.nbins));
        for (size_t skip : {0ul, 1ul}) {
            std::vector<int64_t> rest(v.begin() + skip, v.end());
            ASSERT_EQ(int64_on_gpu(s, v, skip, limits), int64_on_cpu(s, rest))
                << "lo=" << s.lo << " hi=" << s.hi << " nbins=" << s.nbins << " skip=" << skip;
        }
    }
}

TEST_F(Cuda, TimeKernelOnConstantInputAndOddSizes)
{
    gh::Int64Spec s{0, 86400000000LL, 1440};
    std::vector<int64_t> constant(2000001, 43200000000LL);
    ASSERT_EQ(int64_on_gpu(s, constant, 0, limits), int64_on_cpu(s, constant));
    for (size_t n : {0ul, 1ul, 3ul, 257ul, 100003ul}) {
        std::vector<int64_t> v = int64_values(s, n, n);
        v.resize(n);
        ASSERT_EQ(int64_on_gpu(s, v, 0, limits), int64_on_cpu(s, v)) << n;
    }
}

TEST_F(Cuda, ThresholdKernelMatchesCpuInSharedAndGlobalMemory)
{
    std::mt19937_64 rng(17);
    for (int32_t n : {0, 1, 7, 1000, 20000, 28000, 30000, 50000, 100000}) {
        std::vector<double> t(n);
        std::uniform_real_distribution<double> d(-1000, 1000);
        for (double &e : t)
            e = std::floor(d(rng) * 16) / 16;
        std::sort(t.begin(), t.end());
        std::vector<double> v = threshold_values(t, 500000, n);
        ASSERT_EQ(thresholds_on_gpu(t, v, 0, limits), thresholds_on_cpu(t, v.data(), v.size())) << n;
        ASSERT_EQ(thresholds_on_gpu(t, v, 1, limits), thresholds_on_cpu(t, v.data() + 1, v.size() - 1)) << n;
    }
    EXPECT_TRUE(gh::thresholds_in_shared_memory(20000, limits));
    EXPECT_FALSE(gh::thresholds_in_shared_memory(100000, limits));
}

TEST_F(Cuda, ThresholdKernelFollowsTheServersSearchOnUnsortedAndNaN)
{
    std::mt19937_64 rng(23);
    for (int32_t n : {5, 3000, 60000}) {
        std::vector<double> t(n);
        for (double &e : t)
            e = rng() % 50 == 0 ? NAN : double(int64_t(rng() % 2000) - 1000); /* unsorted, a few NaN */
        std::vector<double> v = threshold_values(t, 200000, n);
        ASSERT_EQ(thresholds_on_gpu(t, v, 0, limits), thresholds_on_cpu(t, v.data(), v.size())) << n;
    }
}

TEST_F(Cuda, PipelineForTimeAndThresholds)
{
    gh::Int64Spec s{0, 100000000000000003LL, 20000};
    std::vector<int64_t> v = int64_values(s, 2000003, 3);
    std::vector<int64_t> counts;
    ASSERT_EQ(words_on_gpu_pipeline(gh::int64_histogram(s), v, 1 << 18, &counts), Status::ok);
    ASSERT_EQ(counts, int64_on_cpu(s, v));

    std::vector<double> t = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    std::vector<double> x = threshold_values(t, 2000003, 4);
    ASSERT_EQ(words_on_gpu_pipeline(gh::threshold_histogram(t.data(), int32_t(t.size())), x, 1 << 18, &counts),
              Status::ok);
    ASSERT_EQ(counts, thresholds_on_cpu(t, x.data(), x.size()));
    std::vector<double> many(100000);
    for (size_t i = 0; i < many.size(); i++)
        many[i] = -1000 + 0.02 * double(i);
    ASSERT_EQ(words_on_gpu_pipeline(gh::threshold_histogram(many.data(), int32_t(many.size())), x, 1 << 18, &counts),
              Status::ok);
    ASSERT_EQ(counts, thresholds_on_cpu(many, x.data(), x.size()));
    EXPECT_EQ(gh::gpu_free_device_memory() > 0, true);
}
