/*
 * cuda_backend_test.cu: the CUDA backend against the CPU backend.
 *
 * Random and adversarial data (every edge value, ±0, denormals, ±inf),
 * sizes 0, 1 and odd tails, misaligned starts, constant input, 1 and
 * 10,000,000 buckets, both bound orders and both PostgreSQL rules; the
 * batch pipeline through the public interface, as the GPU service drives
 * it: host memory the caller owns and registers, batch buffers reused once
 * gpu_batch_busy says their copy is done, drains of whole histograms and of
 * ranges of their counters, histograms on every device, the pool's trim;
 * NaN, refused arguments, interrupted drains and injected CUDA failures.
 * Time histograms (int64 values, PostgreSQL's numeric rounding at the
 * edges) and thresholds (in shared and in global memory, sorted and
 * unsorted, up to 100,000) against the CPU loops too.  Skips, with a
 * message, where there is no GPU.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/cpu_backend.h"
#include "dispatch/cuda_kernels.cuh"
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
        ASSERT_GE(gh::gpu_device_count(), 1);
        /* the kernel tests allocate on the current device, which the engine's calls move */
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
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

/* Free memory on `device`, read from CUDA itself: the engine does not report it. */
size_t free_device_memory(int device)
{
    int current = 0;
    EXPECT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
    size_t free_bytes = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(current), cudaSuccess);
    return free_bytes;
}

/* What CUDA takes host memory at p for: cudaMemoryTypeHost while page-locked. */
cudaMemoryType memory_type(const void *p)
{
    cudaPointerAttributes a{};
    EXPECT_EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
    return a.type;
}

bool injected(const char *error) { return std::strstr(error, "failure injected") != nullptr; }

/*
 * Host memory the caller owns, as the GPU service owns its batch slots: one
 * page-aligned allocation, page-locked with gpu_host_register unless told
 * not to (a failed registration leaves it pageable, and still usable).
 */
class HostArea {
  public:
    explicit HostArea(size_t words, bool page_lock = true)
        : bytes_((std::max<size_t>(words, 1) * sizeof(double) + kPage - 1) / kPage * kPage)
    {
        words_ = static_cast<double *>(std::aligned_alloc(kPage, bytes_));
        EXPECT_NE(words_, nullptr);
        if (words_ != nullptr && page_lock)
            registered_ = gh::gpu_host_register(words_, bytes_) == Status::ok;
    }
    ~HostArea()
    {
        if (registered_)
            gh::gpu_host_unregister(words_);
        std::free(words_);
    }
    HostArea(const HostArea &) = delete;
    HostArea &operator=(const HostArea &) = delete;

    double *words() const { return words_; }
    size_t bytes() const { return bytes_; }
    bool registered() const { return registered_; }

  private:
    static constexpr size_t kPage = 4096;
    size_t bytes_;
    double *words_ = nullptr;
    bool registered_ = false;
};

/*
 * `count` batch buffers of `capacity` words on `device`, over consecutive
 * parts of a host area, used in turn as the service uses its slots: wait
 * until a buffer's area may be refilled, fill it, submit it.
 */
class Ring {
  public:
    Ring(int device, double *host, size_t capacity, int count) : device_(device), host_(host), capacity_(capacity)
    {
        for (int k = 0; k < count && status_ == Status::ok; k++) {
            gh::BatchBuffer *b = nullptr;
            status_ = gh::gpu_batch_create(device, host + static_cast<size_t>(k) * capacity, capacity, &b);
            if (status_ == Status::ok)
                batches_.push_back(b);
            else
                EXPECT_EQ(b, nullptr);
        }
    }
    ~Ring()
    {
        for (int k = 0; k < size(); k++) {
            wait_until_free(k); /* the host area goes after this */
            gh::gpu_batch_destroy(batches_[static_cast<size_t>(k)]);
        }
    }
    Ring(const Ring &) = delete;
    Ring &operator=(const Ring &) = delete;

    Status status() const { return status_; }
    int device() const { return device_; }
    int size() const { return static_cast<int>(batches_.size()); }
    double *area(int k) const { return host_ + static_cast<size_t>(k) * capacity_; }
    gh::BatchBuffer *batch(int k) const { return batches_[static_cast<size_t>(k)]; }

    /* Polls gpu_batch_busy until buffer k's host area may be refilled. */
    Status wait_until_free(int k) const
    {
        for (;;) {
            bool busy = true;
            Status s = gh::gpu_batch_busy(batch(k), &busy);
            if (s != Status::ok || !busy)
                return s;
            std::this_thread::yield();
        }
    }

  private:
    int device_;
    double *host_;
    size_t capacity_;
    std::vector<gh::BatchBuffer *> batches_;
    Status status_ = Status::ok;
};

/* A registered host area with a ring of batch buffers over it, on one device. */
struct Batches {
    Batches(int device, size_t capacity, int count = 3)
        : host(capacity * static_cast<size_t>(count)), ring(device, host.words(), capacity, count)
    {
    }
    HostArea host;
    Ring ring;
};

/* Sends v through the ring into h, `batch` words at a time (at most the ring's capacity). */
template <typename T> Status feed(gh::DeviceHistogram *h, const Ring &ring, const std::vector<T> &v, size_t batch)
{
    static_assert(sizeof(T) == sizeof(double), "batches hold 8-byte words");
    size_t i = 0;
    for (size_t start = 0; start < v.size(); start += batch, i++) {
        int k = static_cast<int>(i % static_cast<size_t>(ring.size()));
        size_t n = std::min(batch, v.size() - start);
        Status s = ring.wait_until_free(k);
        if (s != Status::ok)
            return s;
        std::memcpy(ring.area(k), v.data() + start, n * sizeof(T));
        if ((s = gh::gpu_histogram_submit(h, ring.batch(k), n)) != Status::ok)
            return s;
    }
    return Status::ok;
}

/* One histogram of any kind through the ring: open, feed, drain every counter, close. */
template <typename T>
Status words_on_gpu_pipeline(const gh::HistogramSpec &spec, const std::vector<T> &v, const Ring &ring, size_t batch,
                             std::vector<int64_t> *counts)
{
    const int32_t slots = gh::histogram_slots(spec);
    counts->assign(static_cast<size_t>(slots), 0);
    gh::DeviceHistogram *h = nullptr;
    Status s = gh::gpu_histogram_open(spec, ring.device(), &h);
    if (s != Status::ok)
        return s;
    s = feed(h, ring, v, batch);
    if (s == Status::ok)
        s = gh::gpu_histogram_drain(h, 0, slots, counts->data(), nullptr);
    gh::gpu_histogram_close(h);
    return s;
}

/* The same through a ring of its own: registered memory and three batch buffers on `device`. */
template <typename T>
Status words_on_gpu_pipeline(const gh::HistogramSpec &spec, const std::vector<T> &v, size_t batch,
                             std::vector<int64_t> *counts, int device = 0)
{
    Batches b(device, batch);
    if (b.ring.status() != Status::ok)
        return b.ring.status();
    return words_on_gpu_pipeline(spec, v, b.ring, batch, counts);
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

/*
 * Values on bucket edges, where the kernels' reciprocal (gpu/formulas/bucket_fast.h)
 * cannot tell the bucket from its product and takes the exact residual or
 * the division: integers in integer buckets, both rules, both orders, on the
 * shared, narrow and cluster paths (1,000,000 buckets of [0, 1e6)).
 */
TEST_F(Cuda, EdgeValuesOfRoundRangesOnEveryPath)
{
    for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16})
        for (int32_t nbins : {100, 1200, 65536, 1000000}) {
            const double top = nbins == 65536 ? 1200.0 : static_cast<double>(nbins);
            std::vector<double> v;
            for (int rep = 0; rep < 3; rep++)
                for (int32_t k = -2; k <= nbins + 2; k++) {
                    const double x = top * k / nbins;
                    v.insert(v.end(), {x, std::nextafter(x, -1e9), std::nextafter(x, 1e9)});
                }
            for (BucketSpec spec : {BucketSpec{0, top, nbins, rule}, BucketSpec{top, 0, nbins, rule}})
                ASSERT_EQ(on_gpu_kernel(spec, v, 0, limits), on_cpu(spec, v.data(), v.size()))
                    << "nbins " << nbins << " rule " << int(rule) << " lo " << spec.lo;
        }
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
    /* a drain of part of the counters reports it too */
    Batches b(0, 16384);
    ASSERT_EQ(b.ring.status(), Status::ok) << gh::gpu_last_error();
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    ASSERT_EQ(feed(h, b.ring, v, 16384), Status::ok);
    counts.assign(3, 0);
    EXPECT_EQ(gh::gpu_histogram_drain(h, 7, 3, counts.data(), nullptr), Status::nan_value);
    gh::gpu_histogram_close(h);
}

/* Polls gpu_batch_finished until the buffer's last queued work is done. */
Status wait_finished(gh::BatchBuffer *b)
{
    for (;;) {
        bool finished = false;
        Status s = gh::gpu_batch_finished(b, &finished);
        if (s != Status::ok || finished)
            return s;
        std::this_thread::yield();
    }
}

/*
 * The GPU service's read: queued behind the batches, answered in a batch
 * buffer's registered area.  It must equal the waiting drain's counts
 * (here, the CPU's), zero what it read, refuse a range that leaves no word
 * for the flags, and report a NaN as the waiting drain does.
 */
TEST_F(Cuda, DrainWithoutWaitingEqualsTheWaitingDrain)
{
    BucketSpec spec{0, 1, 1000, BucketRule::pg15};
    std::vector<double> v = adversarial(0, 1, 1000, 3000000, 11);
    std::vector<int64_t> want = on_cpu(spec, v.data(), v.size());
    int32_t cells = static_cast<int32_t>(want.size());
    Batches b(0, 16384);
    ASSERT_EQ(b.ring.status(), Status::ok) << gh::gpu_last_error();
    Batches out(0, static_cast<size_t>(cells) + 1, 1);
    ASSERT_EQ(out.ring.status(), Status::ok) << gh::gpu_last_error();
    gh::BatchBuffer *into = out.ring.batch(0);
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    ASSERT_EQ(feed(h, b.ring, v, 16384), Status::ok);
    /* queued right behind the batches: nothing waited for them */
    ASSERT_EQ(gh::gpu_histogram_drain_async(h, 0, cells, into), Status::ok);
    ASSERT_EQ(wait_finished(into), Status::ok);
    ASSERT_EQ(gh::gpu_drain_result(into, cells), Status::ok);
    const int64_t *got = reinterpret_cast<const int64_t *>(out.ring.area(0));
    EXPECT_EQ(std::vector<int64_t>(got, got + cells), want);
    /* what was read is zeroed on the device; a part of the range, later, reads zeros */
    ASSERT_EQ(gh::gpu_histogram_drain_async(h, 10, 20, into), Status::ok);
    ASSERT_EQ(wait_finished(into), Status::ok);
    EXPECT_EQ(std::vector<int64_t>(got, got + 20), std::vector<int64_t>(20, 0));
    /* the flags take the word after the counts: the whole area is too much */
    EXPECT_EQ(gh::gpu_histogram_drain_async(h, 0, cells + 1, into), Status::internal_error);
    EXPECT_EQ(gh::gpu_histogram_drain_async(h, -1, 2, into), Status::internal_error);
    gh::gpu_histogram_close(h);
    /* a NaN */
    std::vector<double> with_nan(50000, 0.5);
    with_nan[31337] = std::nan("");
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    ASSERT_EQ(feed(h, b.ring, with_nan, 16384), Status::ok);
    ASSERT_EQ(gh::gpu_histogram_drain_async(h, 0, 5, into), Status::ok);
    ASSERT_EQ(wait_finished(into), Status::ok);
    EXPECT_EQ(gh::gpu_drain_result(into, 5), Status::nan_value);
    gh::gpu_histogram_close(h);
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
    /* buffers of an odd size: host areas at addresses 8 but not 16 bytes apart, a short last batch */
    BucketSpec spec{-2, 2, 1000, BucketRule::pg16};
    std::vector<double> v = adversarial(-2, 2, 1000, 1000001, 12);
    std::vector<int64_t> counts;
    ASSERT_EQ(on_gpu_pipeline(spec, v, 100003, &counts), Status::ok);
    ASSERT_EQ(counts, on_cpu(spec, v.data(), v.size()));
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
    void *d_t = nullptr;
    EXPECT_EQ(cudaMalloc(&d_t, gh::threshold_device_bytes(t.data(), int32_t(t.size())) + 16), cudaSuccess);
    gh::DeviceThresholds staged{};
    EXPECT_EQ(gh::stage_thresholds(t.data(), int32_t(t.size()), d_t, nullptr, &staged), cudaSuccess);
    std::vector<int64_t> counts =
        kernel_counts(v, skip, t.size() + 1, [&](const double *d, size_t n, unsigned long long *c, int *nan) {
            return gh::bin_thresholds_on_device(d, n, staged, c, nan, limits, nullptr);
        });
    cudaFree(d_t);
    return counts;
}

} // namespace

TEST_F(Cuda, TimeKernelMatchesCpu)
{
    const int64_t day = 86400000000LL;
    const gh::Int64Spec specs[] = {
        {0, day, 1440, gh::NumericRule::pg15},                                     /* minutes of a day */
        {day, 0, 1440, gh::NumericRule::pg15},                                     /* the same, bounds reversed */
        {-211813488000000000LL, 9223371331200000000LL, 7, gh::NumericRule::pg15},  /* the whole timestamp range */
        {0, 100000000000000003LL, 20000, gh::NumericRule::pg15},                   /* numeric's rounding decides */
        {1000000000000000000LL, -999999999999999983LL, 12345, gh::NumericRule::pg15},
        {5, 2000000000006LL, 99999, gh::NumericRule::pg15},                        /* counters in global memory */
        {0, 365 * day, gh::kMaxBins, gh::NumericRule::pg15},
        {-3, 4, 1, gh::NumericRule::pg15},
        {730000, 740000, 10000, gh::NumericRule::pg15},                            /* day numbers of dates */
        {0, 1000000000000000000LL, 100000, gh::NumericRule::pg16}, /* 16 and 17 clamp a q rounded to count */
        {0, 100000000000000003LL, 20000, gh::NumericRule::pg18},  /* 18 divides exactly */
        {day, 0, 1440, gh::NumericRule::pg18},
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
    gh::Int64Spec s{0, 86400000000LL, 1440, gh::NumericRule::pg15};
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
    /* few thresholds: all in shared memory, with copies of the counters; many: cuda_paths_test.cu */
    EXPECT_EQ(gh::threshold_plan(gh::DeviceThresholds{nullptr, 10, {}, nullptr}, limits).path,
              gh::KernelPath::shared);
}

/*
 * Sorted arrays go through their index (in shared memory up to 4,096
 * thresholds, in device memory above): thresholds crowded into a few cells
 * (log-spaced: most cells empty, one holding thousands), runs of equal
 * thresholds, both zeros, spans at the edge of the doubles (no index), each
 * with the values at and beside every threshold.
 */
TEST_F(Cuda, IndexedThresholdsMatchTheServersSearch)
{
    std::mt19937_64 rng(31);
    std::vector<std::vector<double>> arrays;
    std::vector<double> t;
    for (int n : {60000, 4096, 300}) {
        for (int i = 0; i < n; i++)
            t.push_back(std::pow(10.0, -12 + 24.0 * i / n)); /* 1e-12 .. 1e12 */
        arrays.push_back(t);
        t.clear();
    }
    for (int i = 0; i < 4000; i++)
        t.push_back(double(i / 5) - 200.0); /* runs of 5 equal thresholds, in shared memory */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 30000; i++)
        t.push_back(double(i / 7) - 2000.0); /* runs of 7 equal thresholds */
    t.push_back(-0.0);
    t.push_back(0.0);
    std::sort(t.begin(), t.end());
    arrays.push_back(t);
    t.clear();
    std::uniform_real_distribution<double> d(-1, 1);
    for (int i = 0; i < 20000; i++)
        t.push_back(d(rng) * DBL_MAX); /* the span overflows: no index */
    std::sort(t.begin(), t.end());
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 100000; i++)
        t.push_back(1e15 + i * 0.125); /* cells finer than the doubles' spacing */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 200000; i++)
        t.push_back(-50 + i * 0.001); /* evenly spaced, not exactly: the segments' lines answer most values */
    arrays.push_back(t);
    t.clear();
    for (int i = 0; i < 150000; i++)
        t.push_back(std::exp(12.0 * i / 150000)); /* geometric: lines that bend a little */
    arrays.push_back(t);
    for (const std::vector<double> &a : arrays) {
        std::vector<double> v = threshold_values(a, 300000, a.size());
        for (size_t i = 0; i < 100000; i++)
            v.push_back(a[rng() % a.size()] * (1 + d(rng) * 1e-9));
        ASSERT_EQ(thresholds_on_gpu(a, v, 0, limits), thresholds_on_cpu(a, v.data(), v.size())) << a.size();
    }
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
    gh::Int64Spec s{0, 100000000000000003LL, 20000, gh::NumericRule::pg15};
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
    /* the second round needs no device memory that the first did not give back */
    size_t free_after_first = 0;
    for (int round = 0; round < 2; round++) {
        ASSERT_EQ(words_on_gpu_pipeline(gh::threshold_histogram(many.data(), int32_t(many.size())), x, 1 << 18,
                                        &counts),
                  Status::ok);
        ASSERT_EQ(counts, thresholds_on_cpu(many, x.data(), x.size()));
        if (round == 0)
            free_after_first = free_device_memory(0);
    }
    EXPECT_EQ(free_device_memory(0), free_after_first);
}

/* ---- the caller's host memory, batch buffers, drains, devices, failures ---- */

/* Without a GPU every entry point refuses, and says why; with one, unknown devices and oversized batches. */
TEST(CudaEngine, RefusesUnknownDevicesAndOversizedBatches)
{
    const Status started = gh::gpu_start();
    const int devices = gh::gpu_device_count();
    BucketSpec spec{0, 1, 4, BucketRule::pg15};
    char sentinel = 0;
    double words[16] = {};
    if (started != Status::ok) {
        EXPECT_FALSE(gh::gpu_started());
        EXPECT_EQ(devices, 0);
        EXPECT_NE(std::string(gh::gpu_last_error()), "");
        gh::DeviceInfo info[1];
        int count = -1;
        EXPECT_NE(gh::gpu_devices(info, 1, &count), Status::ok);
        EXPECT_EQ(count, 0);
        gh::DeviceHistogram *h = reinterpret_cast<gh::DeviceHistogram *>(&sentinel);
        EXPECT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::no_device);
        EXPECT_EQ(h, nullptr);
        gh::BatchBuffer *b = reinterpret_cast<gh::BatchBuffer *>(&sentinel);
        EXPECT_EQ(gh::gpu_batch_create(0, words, 16, &b), Status::no_device);
        EXPECT_EQ(b, nullptr);
        EXPECT_EQ(gh::gpu_host_register(words, sizeof words), Status::no_device);
        gh::gpu_host_unregister(words); /* nothing to undo: harmless */
        std::cout << "[   NOTE   ] no GPU (" << gh::status_text(started) << "): only the refusals were checked\n";
        return;
    }
    ASSERT_TRUE(gh::gpu_started());
    ASSERT_GE(devices, 1);
    for (int bad : {-1, devices, gh::kMaxDevices}) {
        gh::DeviceHistogram *h = reinterpret_cast<gh::DeviceHistogram *>(&sentinel);
        EXPECT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), bad, &h), Status::no_device) << bad;
        EXPECT_EQ(h, nullptr);
        gh::BatchBuffer *b = reinterpret_cast<gh::BatchBuffer *>(&sentinel);
        EXPECT_EQ(gh::gpu_batch_create(bad, words, 16, &b), Status::no_device) << bad;
        EXPECT_EQ(b, nullptr);
    }
    /* a batch longer than its buffer is refused; the histogram goes on */
    HostArea area(16);
    gh::BatchBuffer *b = nullptr;
    ASSERT_EQ(gh::gpu_batch_create(0, area.words(), 16, &b), Status::ok) << gh::gpu_last_error();
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok) << gh::gpu_last_error();
    EXPECT_EQ(gh::gpu_histogram_device(h), 0);
    std::fill(area.words(), area.words() + 16, 0.3);
    EXPECT_EQ(gh::gpu_histogram_submit(h, b, 17), Status::internal_error);
    EXPECT_EQ(gh::gpu_histogram_submit(h, b, 16), Status::ok) << gh::gpu_last_error();
    std::vector<int64_t> counts(6, 0);
    EXPECT_EQ(gh::gpu_histogram_drain(h, 0, 6, counts.data(), nullptr), Status::ok);
    EXPECT_EQ(counts, (std::vector<int64_t>{0, 0, 16, 0, 0, 0}));
    gh::gpu_histogram_close(h);
    gh::gpu_batch_destroy(b);
}

TEST_F(Cuda, CallerHostMemoryRegistersAndFeedsBatches)
{
    BucketSpec spec{-1, 1, 64, BucketRule::pg15};
    std::vector<double> v = adversarial(-1, 1, 64, 300000, 21);
    const std::vector<int64_t> expected = on_cpu(spec, v.data(), v.size());
    const size_t cap = 1 << 16;
    std::vector<int64_t> counts;

    /* malloc'd, then registered: page-locked while registered, pageable again after */
    {
        HostArea area(2 * cap, false);
        ASSERT_NE(area.words(), nullptr);
        EXPECT_EQ(memory_type(area.words()), cudaMemoryTypeUnregistered);
        ASSERT_EQ(gh::gpu_host_register(area.words(), area.bytes()), Status::ok) << gh::gpu_last_error();
        EXPECT_EQ(memory_type(area.words()), cudaMemoryTypeHost);
        EXPECT_EQ(memory_type(area.words() + 2 * cap - 1), cudaMemoryTypeHost);
        {
            Ring ring(0, area.words(), cap, 2);
            ASSERT_EQ(ring.status(), Status::ok) << gh::gpu_last_error();
            ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, ring, cap, &counts), Status::ok)
                << gh::gpu_last_error();
            EXPECT_EQ(counts, expected);
        }
        gh::gpu_host_unregister(area.words());
        EXPECT_EQ(memory_type(area.words()), cudaMemoryTypeUnregistered);
    }
    /* memory CUDA allocated page-locked needs no registration */
    {
        double *pinned = nullptr;
        ASSERT_EQ(cudaHostAlloc(&pinned, 2 * cap * sizeof(double), cudaHostAllocPortable), cudaSuccess);
        {
            Ring ring(0, pinned, cap, 2);
            ASSERT_EQ(ring.status(), Status::ok) << gh::gpu_last_error();
            ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, ring, cap, &counts), Status::ok)
                << gh::gpu_last_error();
            EXPECT_EQ(counts, expected);
        }
        EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
    }
    /* memory left pageable (as after a failed registration) still works: the driver stages the copies */
    {
        HostArea area(2 * cap, false);
        Ring ring(0, area.words(), cap, 2);
        ASSERT_EQ(ring.status(), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, ring, cap, &counts), Status::ok)
            << gh::gpu_last_error();
        EXPECT_EQ(counts, expected);
        EXPECT_EQ(memory_type(area.words()), cudaMemoryTypeUnregistered);
    }
}

/* Not under compute-sanitizer: CUDA's refusal is a real API error, which memcheck counts. */
TEST_F(Cuda, SecondRegistrationIsRefused)
{
    HostArea area(1 << 16);
    ASSERT_TRUE(area.registered()) << gh::gpu_last_error();
    /* refused and reported; the first registration stands, and the engine goes on */
    EXPECT_EQ(gh::gpu_host_register(area.words(), area.bytes()), Status::cuda_error);
    EXPECT_NE(std::string(gh::gpu_last_error()), "");
    EXPECT_EQ(memory_type(area.words()), cudaMemoryTypeHost);
    BucketSpec spec{0, 1, 10, BucketRule::pg16};
    std::vector<double> v = adversarial(0, 1, 10, 200000, 61);
    Ring ring(0, area.words(), 1 << 15, 2);
    ASSERT_EQ(ring.status(), Status::ok) << gh::gpu_last_error();
    std::vector<int64_t> counts;
    ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, ring, 1 << 15, &counts), Status::ok)
        << gh::gpu_last_error();
    EXPECT_EQ(counts, on_cpu(spec, v.data(), v.size()));
}

TEST_F(Cuda, BatchBufferReusedAcrossSubmits)
{
    /*
     * One buffer for sixteen batches: each refill waits for gpu_batch_busy
     * to say the last copy is done.  Batch r's values all lie in bucket
     * r + 1, so a copy that read part of a later refill would move counts.
     */
    const int32_t rounds = 16;
    const size_t cap = size_t(1) << 21; /* 16 MiB a batch */
    BucketSpec spec{0, double(rounds), rounds, BucketRule::pg15};
    HostArea area(cap);
    ASSERT_TRUE(area.registered()) << gh::gpu_last_error();
    gh::BatchBuffer *b = nullptr;
    ASSERT_EQ(gh::gpu_batch_create(0, area.words(), cap, &b), Status::ok) << gh::gpu_last_error();
    bool busy = true;
    ASSERT_EQ(gh::gpu_batch_busy(b, &busy), Status::ok);
    EXPECT_FALSE(busy); /* nothing submitted yet */
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok) << gh::gpu_last_error();
    const gh::GpuCounters before = gh::gpu_counters();
    EXPECT_EQ(gh::gpu_histogram_submit(h, b, 0), Status::ok); /* an empty batch is a batch */
    std::vector<int64_t> expected(rounds + 2, 0);
    int64_t total = 0;
    int saw_busy = 0;
    for (int32_t r = 0; r < rounds; r++) {
        for (busy = true; busy;) {
            ASSERT_EQ(gh::gpu_batch_busy(b, &busy), Status::ok) << gh::gpu_last_error();
            saw_busy += busy;
        }
        size_t n = cap - size_t(r) * 1001;
        for (size_t i = 0; i < n; i++)
            area.words()[i] = r + double(i % 1000) / 1000;
        ASSERT_EQ(gh::cpu_bin(spec, area.words(), n, expected.data()), Status::ok);
        ASSERT_EQ(gh::gpu_histogram_submit(h, b, n), Status::ok) << gh::gpu_last_error();
        total += int64_t(n);
    }
    /* once the last copy is done the area is the caller's again, even before the kernel ran */
    for (busy = true; busy;)
        ASSERT_EQ(gh::gpu_batch_busy(b, &busy), Status::ok) << gh::gpu_last_error();
    std::fill(area.words(), area.words() + cap, std::nan(""));
    std::vector<int64_t> counts(rounds + 2, 0);
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, rounds + 2, counts.data(), nullptr), Status::ok)
        << "the NaN written after busy went false was read by a copy";
    EXPECT_EQ(counts, expected);
    for (int32_t r = 0; r < rounds; r++)
        EXPECT_EQ(counts[size_t(r) + 1], int64_t(cap - size_t(r) * 1001)) << r;
    const gh::GpuCounters after = gh::gpu_counters();
    EXPECT_EQ(after.batches - before.batches, rounds + 1);
    EXPECT_EQ(after.values_binned - before.values_binned, total);
    ASSERT_EQ(gh::gpu_batch_busy(b, &busy), Status::ok);
    EXPECT_FALSE(busy); /* drained: every copy is done */
    gh::gpu_histogram_close(h);
    gh::gpu_batch_destroy(b);
    std::cout << "[   NOTE   ] gpu_batch_busy answered busy " << saw_busy << " times\n";
}

TEST_F(Cuda, ChunkedDrainsEqualAWholeDrain)
{
    BucketSpec spec{-5, 5, 1000, BucketRule::pg16};
    const int32_t slots = spec.nbins + 2;
    std::vector<double> v = adversarial(-5, 5, 1000, 500000, 41);
    const std::vector<int64_t> expected = on_cpu(spec, v.data(), v.size());
    const size_t batch = 1 << 16;
    Batches b(0, batch);
    ASSERT_EQ(b.ring.status(), Status::ok) << gh::gpu_last_error();

    for (int32_t chunk : {1, 7, 400, 501, 1001, 1002}) {
        gh::DeviceHistogram *h = nullptr;
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(feed(h, b.ring, v, batch), Status::ok) << gh::gpu_last_error();
        std::vector<int64_t> counts(size_t(slots), 0);
        for (int32_t first = 0; first < slots; first += chunk)
            ASSERT_EQ(gh::gpu_histogram_drain(h, first, std::min(chunk, slots - first), counts.data() + first,
                                              nullptr),
                      Status::ok)
                << "chunk " << chunk << " first " << first;
        EXPECT_EQ(counts, expected) << "chunk " << chunk;
        gh::gpu_histogram_close(h);
    }

    /* a drain adds into counts, zeroes only its range on the device, and leaves the rest */
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok) << gh::gpu_last_error();
    ASSERT_EQ(feed(h, b.ring, v, batch), Status::ok);
    std::vector<int64_t> low(500, 1);
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, 500, low.data(), nullptr), Status::ok);
    for (size_t i = 0; i < low.size(); i++)
        ASSERT_EQ(low[i], expected[i] + 1) << i;
    std::vector<int64_t> again(500, 0);
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, 500, again.data(), nullptr), Status::ok);
    EXPECT_EQ(again, std::vector<int64_t>(500, 0));
    ASSERT_EQ(feed(h, b.ring, v, batch), Status::ok);
    /* an empty range, and ranges outside the counters, which are refused and touch nothing */
    std::vector<int64_t> whole(size_t(slots), 0);
    EXPECT_EQ(gh::gpu_histogram_drain(h, slots, 0, whole.data(), nullptr), Status::ok);
    EXPECT_EQ(gh::gpu_histogram_drain(h, -1, 2, whole.data(), nullptr), Status::internal_error);
    EXPECT_EQ(gh::gpu_histogram_drain(h, 0, -1, whole.data(), nullptr), Status::internal_error);
    /* the counters and the page kernel's tuple counter after them: slots + 1 in all */
    EXPECT_EQ(gh::gpu_histogram_drain(h, 2, slots, whole.data(), nullptr), Status::internal_error);
    EXPECT_EQ(gh::gpu_histogram_drain(h, INT32_MAX, 1, whole.data(), nullptr), Status::internal_error);
    EXPECT_EQ(whole, std::vector<int64_t>(size_t(slots), 0));
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, slots, whole.data(), nullptr), Status::ok);
    for (size_t i = 0; i < whole.size(); i++)
        ASSERT_EQ(whole[i], (i < 500 ? 1 : 2) * expected[i]) << i;
    gh::gpu_histogram_close(h);

    /* the time and threshold kinds, in three uneven parts */
    gh::Int64Spec ts{0, 86400000000LL, 1440, gh::NumericRule::pg15};
    std::vector<int64_t> times = int64_values(ts, 400003, 43);
    std::vector<double> t(30000);
    for (size_t i = 0; i < t.size(); i++)
        t[i] = -1000 + 0.07 * double(i);
    std::vector<double> x = threshold_values(t, 400003, 44);
    struct Case {
        gh::HistogramSpec spec;
        std::vector<int64_t> expected;
    };
    for (const Case &c : {Case{gh::int64_histogram(ts), int64_on_cpu(ts, times)},
                          Case{gh::threshold_histogram(t.data(), int32_t(t.size())),
                               thresholds_on_cpu(t, x.data(), x.size())}}) {
        const int32_t n = gh::histogram_slots(c.spec);
        gh::DeviceHistogram *g = nullptr;
        ASSERT_EQ(gh::gpu_histogram_open(c.spec, 0, &g), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(c.spec.kind == gh::SpecKind::int64_interval ? feed(g, b.ring, times, batch) : feed(g, b.ring, x, batch),
                  Status::ok);
        std::vector<int64_t> counts(size_t(n), 0);
        const int32_t cuts[] = {0, n / 3 + 1, n - 2, n};
        for (int k = 0; k < 3; k++)
            ASSERT_EQ(gh::gpu_histogram_drain(g, cuts[k], cuts[k + 1] - cuts[k], counts.data() + cuts[k], nullptr),
                      Status::ok);
        EXPECT_EQ(counts, c.expected) << n << " slots";
        gh::gpu_histogram_close(g);
    }
}

TEST_F(Cuda, TrimGivesPoolMemoryBack)
{
    /* a closed histogram's counters stay in its device's pool (up to 256 MB) until trimmed */
    BucketSpec spec{0, 1, gh::kMaxBins, BucketRule::pg15}; /* 80 MB of counters */
    std::vector<double> v = adversarial(0, 1, gh::kMaxBins, 100000, 71);
    std::vector<int64_t> counts;
    ASSERT_EQ(on_gpu_pipeline(spec, v, 1 << 16, &counts), Status::ok) << gh::gpu_last_error();
    ASSERT_EQ(counts, on_cpu(spec, v.data(), v.size()));
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess); /* the stream-ordered free has happened */
    const size_t kept = free_device_memory(0);
    ASSERT_EQ(gh::gpu_trim_memory(), Status::ok) << gh::gpu_last_error();
    const size_t trimmed = free_device_memory(0);
    EXPECT_GE(trimmed, kept + (size_t(64) << 20)) << "kept " << kept << ", after the trim " << trimmed;
    /* and the pool grows again as histograms need it */
    ASSERT_EQ(on_gpu_pipeline(spec, v, 1 << 16, &counts), Status::ok) << gh::gpu_last_error();
    EXPECT_EQ(counts, on_cpu(spec, v.data(), v.size()));
}

namespace {
bool always_interrupted() { return true; }
} // namespace

TEST_F(Cuda, InterruptedDrainLosesNothing)
{
    BucketSpec spec{0, 1, 256, BucketRule::pg15};
    std::vector<double> v = adversarial(0, 1, 256, 8000000, 51);
    const size_t batch = size_t(1) << 22;
    Batches b(0, batch, 2);
    ASSERT_EQ(b.ring.status(), Status::ok) << gh::gpu_last_error();
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    ASSERT_EQ(feed(h, b.ring, v, batch), Status::ok);
    std::vector<int64_t> counts(258, 0);
    /* still copying and binning: abandoned (or, on a fast enough GPU, already done) */
    Status s = gh::gpu_histogram_drain(h, 0, 258, counts.data(), always_interrupted);
    ASSERT_TRUE(s == Status::interrupted || s == Status::ok) << gh::status_text(s);
    if (s == Status::interrupted)
        EXPECT_EQ(counts, std::vector<int64_t>(258, 0)); /* nothing read, nothing zeroed */
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, 258, counts.data(), nullptr), Status::ok);
    EXPECT_EQ(counts, on_cpu(spec, v.data(), v.size()));
    gh::gpu_histogram_close(h);
    std::cout << "[   NOTE   ] the first drain answered " << gh::status_text(s) << "\n";
}

TEST_F(Cuda, HistogramsOnEveryDevice)
{
    const int devices = gh::gpu_device_count();
    ASSERT_GE(devices, 1);
    ASSERT_LE(devices, gh::kMaxDevices);
    gh::DeviceInfo info[gh::kMaxDevices];
    int listed = -1;
    ASSERT_EQ(gh::gpu_devices(info, gh::kMaxDevices, &listed), Status::ok) << gh::gpu_last_error();
    ASSERT_EQ(listed, devices);
    for (int d = 0; d < devices; d++) {
        EXPECT_EQ(info[d].ordinal, d);
        EXPECT_GT(info[d].free_memory, 0u);
    }
    if (devices == 1)
        std::cout << "[   NOTE   ] one device: the checks across devices were not run\n";

    /* every device at once, each with data of its own: a float, a time and a threshold histogram on each */
    BucketSpec fs{-3, 3, 5000, BucketRule::pg15};
    gh::Int64Spec ts{0, 86400000000LL, 1440, gh::NumericRule::pg15};
    std::vector<double> t = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    const size_t batch = 1 << 18;
    struct PerDevice {
        std::unique_ptr<Batches> batches;
        std::vector<double> x, y;
        std::vector<int64_t> times;
        gh::DeviceHistogram *h[3] = {};
    };
    std::vector<PerDevice> per(static_cast<size_t>(devices));
    for (int d = 0; d < devices; d++) {
        PerDevice &p = per[size_t(d)];
        p.batches = std::make_unique<Batches>(d, batch);
        ASSERT_EQ(p.batches->ring.status(), Status::ok) << "device " << d << ": " << gh::gpu_last_error();
        p.x = adversarial(-3, 3, 5000, 1000003 + 7919 * size_t(d), 100 + d);
        p.times = int64_values(ts, 500001 + size_t(d), 200 + d);
        p.y = threshold_values(t, 700001 + size_t(d), 300 + d);
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(fs), d, &p.h[0]), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_open(gh::int64_histogram(ts), d, &p.h[1]), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_open(gh::threshold_histogram(t.data(), int32_t(t.size())), d, &p.h[2]),
                  Status::ok)
            << d;
        for (gh::DeviceHistogram *h : p.h)
            EXPECT_EQ(gh::gpu_histogram_device(h), d);
    }
    /* one kind after another, device after device: each device's work is in flight while the next is fed */
    for (int kind = 0; kind < 3; kind++)
        for (int d = 0; d < devices; d++) {
            PerDevice &p = per[size_t(d)];
            const Ring &ring = p.batches->ring;
            Status s = kind == 0   ? feed(p.h[0], ring, p.x, batch)
                       : kind == 1 ? feed(p.h[1], ring, p.times, batch)
                                   : feed(p.h[2], ring, p.y, batch);
            ASSERT_EQ(s, Status::ok) << "device " << d << " kind " << kind << ": " << gh::gpu_last_error();
        }
    /* a batch buffer on one device cannot feed a histogram on another */
    if (devices > 1)
        EXPECT_EQ(gh::gpu_histogram_submit(per[1].h[0], per[0].batches->ring.batch(0), 1), Status::internal_error);
    for (int d = 0; d < devices; d++) {
        PerDevice &p = per[size_t(d)];
        std::vector<int64_t> f(size_t(fs.nbins) + 2, 0), tm(size_t(ts.nbins) + 2, 0), th(t.size() + 1, 0);
        ASSERT_EQ(gh::gpu_histogram_drain(p.h[0], 0, int32_t(f.size()), f.data(), nullptr), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_drain(p.h[1], 0, int32_t(tm.size()), tm.data(), nullptr), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_drain(p.h[2], 0, int32_t(th.size()), th.data(), nullptr), Status::ok) << d;
        EXPECT_EQ(f, on_cpu(fs, p.x.data(), p.x.size())) << "device " << d;
        EXPECT_EQ(tm, int64_on_cpu(ts, p.times)) << "device " << d;
        EXPECT_EQ(th, thresholds_on_cpu(t, p.y.data(), p.y.size())) << "device " << d;
        for (gh::DeviceHistogram *h : p.h)
            gh::gpu_histogram_close(h);
    }

    /* one registered area feeding every device (registration is for all of them): refilled when all are done */
    HostArea shared(batch);
    ASSERT_TRUE(shared.registered()) << gh::gpu_last_error();
    std::vector<gh::BatchBuffer *> bufs(size_t(devices), nullptr);
    std::vector<gh::DeviceHistogram *> hs(size_t(devices), nullptr);
    for (int d = 0; d < devices; d++) {
        ASSERT_EQ(gh::gpu_batch_create(d, shared.words(), batch, &bufs[size_t(d)]), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(fs), d, &hs[size_t(d)]), Status::ok) << d;
    }
    std::vector<double> z = adversarial(-3, 3, 5000, 3 * batch + 17, 77);
    for (size_t start = 0; start < z.size(); start += batch) {
        size_t n = std::min(batch, z.size() - start);
        for (int d = 0; d < devices; d++)
            for (bool busy = true; busy;)
                ASSERT_EQ(gh::gpu_batch_busy(bufs[size_t(d)], &busy), Status::ok) << d;
        std::memcpy(shared.words(), z.data() + start, n * sizeof(double));
        for (int d = 0; d < devices; d++)
            ASSERT_EQ(gh::gpu_histogram_submit(hs[size_t(d)], bufs[size_t(d)], n), Status::ok)
                << d << ": " << gh::gpu_last_error();
    }
    const std::vector<int64_t> expected = on_cpu(fs, z.data(), z.size());
    for (int d = 0; d < devices; d++) {
        std::vector<int64_t> f(size_t(fs.nbins) + 2, 0);
        ASSERT_EQ(gh::gpu_histogram_drain(hs[size_t(d)], 0, int32_t(f.size()), f.data(), nullptr), Status::ok) << d;
        EXPECT_EQ(f, expected) << "device " << d;
        gh::gpu_histogram_close(hs[size_t(d)]);
        gh::gpu_batch_destroy(bufs[size_t(d)]);
    }
}

/*
 * Issue 14's multi-GPU failure: a kernel's dynamic shared memory limit is an
 * attribute of its copy on one device, so a limit raised on the first GPU
 * must be raised again on the next.  Histograms needing more than the default
 * 48 KB (20,000 buckets: one 80 KB copy of the counters; 10,000 thresholds:
 * an 80 KB table) run on every device in turn, the same kernels and sizes.
 */
TEST_F(Cuda, LargeSharedMemoryOnEveryDevice)
{
    const int devices = gh::gpu_device_count();
    if (devices == 1)
        std::cout << "[   NOTE   ] one device: the launch on a second device was not run\n";
    BucketSpec fs{0, 1, 20000, BucketRule::pg16};
    std::vector<double> t(10000);
    for (size_t i = 0; i < t.size(); i++)
        t[i] = double(i) / double(t.size());
    const size_t batch = 1 << 16;
    for (int d = 0; d < devices; d++) {
        Batches batches(d, batch);
        ASSERT_EQ(batches.ring.status(), Status::ok) << "device " << d << ": " << gh::gpu_last_error();
        std::vector<double> x = adversarial(0, 1, 20000, 300007, 900 + d);
        gh::DeviceHistogram *hf = nullptr, *ht = nullptr;
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(fs), d, &hf), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_open(gh::threshold_histogram(t.data(), int32_t(t.size())), d, &ht), Status::ok)
            << d;
        ASSERT_EQ(feed(hf, batches.ring, x, batch), Status::ok) << "device " << d << ": " << gh::gpu_last_error();
        ASSERT_EQ(feed(ht, batches.ring, x, batch), Status::ok) << "device " << d << ": " << gh::gpu_last_error();
        std::vector<int64_t> f(size_t(fs.nbins) + 2, 0), th(t.size() + 1, 0);
        ASSERT_EQ(gh::gpu_histogram_drain(hf, 0, int32_t(f.size()), f.data(), nullptr), Status::ok) << d;
        ASSERT_EQ(gh::gpu_histogram_drain(ht, 0, int32_t(th.size()), th.data(), nullptr), Status::ok) << d;
        EXPECT_EQ(f, on_cpu(fs, x.data(), x.size())) << "device " << d;
        EXPECT_EQ(th, thresholds_on_cpu(t, x.data(), x.size())) << "device " << d;
        gh::gpu_histogram_close(hf);
        gh::gpu_histogram_close(ht);
    }
}

TEST_F(Cuda, InjectedFailureIsReportedAndRecovered)
{
    BucketSpec spec{0, 1, 16, BucketRule::pg15};
    std::vector<double> v = adversarial(0, 1, 16, 100000, 5);
    const std::vector<int64_t> expected = on_cpu(spec, v.data(), v.size());
    const size_t batch = 16384, batches = (v.size() + batch - 1) / batch;
    /* the caller's long-lived side, as the service sets it up once: registered memory, two buffers */
    Batches b(0, batch, 2);
    ASSERT_EQ(b.ring.status(), Status::ok) << gh::gpu_last_error();
    std::vector<int64_t> counts;
    ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, b.ring, batch, &counts), Status::ok); /* warm */
    const size_t free_before = free_device_memory(0);

    /* fail the 1st, 2nd, ... CUDA call of a whole histogram (open, waits, submits, drain) until one goes through */
    long k = 1;
    for (;; k++) {
        gh::gpu_fail_after(k);
        Status s = words_on_gpu_pipeline(gh::float_histogram(spec), v, b.ring, batch, &counts);
        gh::gpu_fail_after(0);
        if (s == Status::ok)
            break;
        EXPECT_EQ(s, Status::cuda_error) << "call " << k;
        EXPECT_TRUE(injected(gh::gpu_last_error())) << "call " << k << ": " << gh::gpu_last_error();
        ASSERT_LT(k, 1000) << "the failures never stop";
    }
    /* at least a wait and a submit per batch were failed once each: none was swallowed */
    EXPECT_GT(k, long(8 * batches)) << "call " << k << " went through: a failure went unreported";
    std::cout << "[   NOTE   ] a histogram of " << batches << " batches: calls 1 to " << k - 1 << " failed in turn\n";
    EXPECT_EQ(counts, expected);
    EXPECT_EQ(free_device_memory(0), free_before);

    /* the same for creating a batch buffer */
    for (k = 1;; k++) {
        gh::BatchBuffer *nb = nullptr;
        gh::gpu_fail_after(k);
        Status s = gh::gpu_batch_create(0, b.host.words(), batch, &nb);
        gh::gpu_fail_after(0);
        if (s == Status::ok) {
            gh::gpu_batch_destroy(nb);
            break;
        }
        EXPECT_EQ(s, Status::cuda_error) << "call " << k;
        EXPECT_EQ(nb, nullptr);
        EXPECT_TRUE(injected(gh::gpu_last_error())) << "call " << k << ": " << gh::gpu_last_error();
        ASSERT_LT(k, 100) << "the failures never stop";
    }
    EXPECT_GT(k, 2L); /* the allocation and its events */
    ASSERT_EQ(words_on_gpu_pipeline(gh::float_histogram(spec), v, b.ring, batch, &counts), Status::ok);
    EXPECT_EQ(counts, expected);
    EXPECT_EQ(free_device_memory(0), free_before);
}
