/*
 * cuda_grouped_test.cu: grouped histograms on the GPU (bin_grouped_on_device,
 * gpu_grouped_open / gpu_grouped_submit) against the CPU's cpu_bin_grouped
 * and the naive per-value formula: the benchmark's shapes (100 and 2,778
 * groups of 66 cells, 65,536 groups of 18) and others, on every path,
 * constant input, NaN and group numbers out of range; then through the
 * pipeline the GPU service drives, with chunked drains and the calls it
 * must refuse.  Skips without a GPU.
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cuda_kernel_harness.cuh"

namespace {

using gh::BucketRule;
using gh::BucketSpec;
using gh::GroupedSpec;
using gh::KernelPath;
using gh::Status;
using gh_test::binned;
using gh_test::DeviceArray;
using gh_test::forced;
using gh_test::KernelTest;

struct Rows {
    std::vector<double> values;
    std::vector<uint32_t> groups;
};

/* Random values over and around the range (every tenth on a bucket edge), random groups. */
Rows random_rows(const GroupedSpec &spec, size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const BucketSpec &s = spec.interval;
    double a = std::min(s.lo, s.hi), w = std::fabs(s.hi - s.lo);
    std::uniform_real_distribution<double> wide(a - w / 8, a + w + w / 8);
    Rows r;
    r.values.resize(n);
    r.groups.resize(n);
    for (size_t i = 0; i < n; i++) {
        r.values[i] = i % 10 == 0 ? s.lo + (s.hi - s.lo) * double(rng() % (uint64_t(s.nbins) + 1)) / s.nbins
                                  : wide(rng);
        r.groups[i] = uint32_t(rng() % spec.groups);
    }
    return r;
}

std::vector<int64_t> naive(const GroupedSpec &spec, const Rows &r)
{
    std::vector<int64_t> counts(size_t(gh::grouped_cells(spec)), 0);
    for (size_t i = 0; i < r.values.size(); i++)
        counts[size_t(r.groups[i]) * size_t(gh::grouped_slots(spec)) +
               size_t(gh::width_bucket(r.values[i], spec.interval))]++;
    return counts;
}

std::vector<int64_t> on_cpu(const GroupedSpec &spec, const Rows &r)
{
    std::vector<int64_t> counts(size_t(gh::grouped_cells(spec)), 0);
    EXPECT_EQ(gh::cpu_bin_grouped(spec, r.values.data(), r.groups.data(), r.values.size(), counts.data()),
              Status::ok);
    return counts;
}

gh_test::Binned on_gpu(const GroupedSpec &spec, const Rows &r, const gh::KernelLimits &l, size_t skip = 0)
{
    DeviceArray<double> v(r.values);
    DeviceArray<uint32_t> g(r.groups);
    return binned(size_t(gh::grouped_cells(spec)), [&](unsigned long long *c, int *f) {
        return gh::bin_grouped_on_device(v.get() + skip, g.get() + skip, r.values.size() - skip, spec, c, f, l,
                                         nullptr);
    });
}

std::vector<gh::KernelLimits> every_path(const gh::KernelLimits &limits, const GroupedSpec &spec)
{
    std::vector<gh::KernelLimits> out = gh_test::every_path(limits, int32_t(gh::grouped_cells(spec)));
    out.push_back(limits);
    return out;
}

} // namespace

TEST_F(KernelTest, GroupedMatchesTheCpuAndTheNaiveFormula)
{
    struct Shape {
        uint32_t groups;
        int32_t nbins;
        BucketRule rule;
    };
    for (Shape s : {Shape{100, 64, BucketRule::pg15}, Shape{2778, 64, BucketRule::pg16},
                    Shape{65536, 16, BucketRule::pg15}, Shape{1, 1000, BucketRule::pg16},
                    Shape{7, 50000, BucketRule::pg15}, Shape{3, 1, BucketRule::pg16}}) {
        GroupedSpec spec{BucketSpec{s.rule == BucketRule::pg15 ? -5.0 : 1e3, s.rule == BucketRule::pg15 ? 2e3 : -7.5,
                                    s.nbins, s.rule},
                         s.groups};
        Rows r = random_rows(spec, 2000003, s.groups);
        const std::vector<int64_t> expected = on_cpu(spec, r);
        ASSERT_EQ(expected, naive(spec, r)) << s.groups << " groups";
        for (const gh::KernelLimits &l : every_path(limits, spec)) {
            gh_test::Binned b = on_gpu(spec, r, l);
            ASSERT_EQ(b.flags, 0);
            ASSERT_EQ(b.counts, expected) << s.groups << " groups of " << s.nbins << " buckets, path "
                                          << int(l.force_path);
        }
        /* a start that is not 16-byte aligned moves the group numbers with the values */
        Rows rest{std::vector<double>(r.values.begin() + 1, r.values.end()),
                  std::vector<uint32_t>(r.groups.begin() + 1, r.groups.end())};
        ASSERT_EQ(on_gpu(spec, r, limits, 1).counts, on_cpu(spec, rest));
    }
}

TEST_F(KernelTest, GroupedConstantInputNaNAndGroupsOutOfRange)
{
    GroupedSpec spec{BucketSpec{0, 1, 64, BucketRule::pg15}, 2778};
    Rows r{std::vector<double>(3000001, 0.5), std::vector<uint32_t>(3000001, 42)};
    for (const gh::KernelLimits &l : every_path(limits, spec)) {
        gh_test::Binned b = on_gpu(spec, r, l);
        EXPECT_EQ(b.counts[42 * 66 + 33], 3000001); /* width_bucket(0.5, 0, 1, 64) = 33 */
        EXPECT_EQ(b.counts, on_cpu(spec, r));
    }
    Rows bad = random_rows(spec, 500000, 8);
    bad.values[4321] = std::nan("");
    for (const gh::KernelLimits &l : every_path(limits, spec))
        EXPECT_EQ(on_gpu(spec, bad, l).flags, 1);
    bad.values[4321] = 0.5;
    bad.groups[99999] = 2778;
    Rows counted = bad; /* what is left once the row with the bad group is not counted */
    counted.values.erase(counted.values.begin() + 99999);
    counted.groups.erase(counted.groups.begin() + 99999);
    for (const gh::KernelLimits &l : every_path(limits, spec)) {
        gh_test::Binned b = on_gpu(spec, bad, l);
        EXPECT_EQ(b.flags, 2);
        EXPECT_EQ(b.counts, on_cpu(spec, counted));
    }
    /* a spec too large for int32 cells is refused before any launch */
    DeviceArray<unsigned long long> c(1);
    DeviceArray<int> f(1);
    GroupedSpec huge{BucketSpec{0, 1, 1000000, BucketRule::pg15}, 4000};
    EXPECT_EQ(gh::bin_grouped_on_device(nullptr, nullptr, 10, huge, c.get(), f.get(), limits, nullptr),
              cudaErrorInvalidValue);
}

namespace {

/* Registered host memory, page-aligned, for a batch buffer pair. */
struct Area {
    explicit Area(size_t bytes) : bytes((bytes + 4095) / 4096 * 4096)
    {
        p = std::aligned_alloc(4096, this->bytes);
        registered = p != nullptr && gh::gpu_host_register(p, this->bytes) == Status::ok;
    }
    ~Area()
    {
        if (registered)
            gh::gpu_host_unregister(p);
        std::free(p);
    }
    size_t bytes;
    void *p;
    bool registered;
};

Status wait_free(gh::BatchBuffer *b)
{
    for (bool busy = true;;) {
        Status s = gh::gpu_batch_busy(b, &busy);
        if (s != Status::ok || !busy)
            return s;
        std::this_thread::yield();
    }
}

/* Sends the rows through two pairs of batch buffers, `batch` rows at a time. */
Status feed(gh::DeviceHistogram *h, gh::BatchBuffer *const *values, gh::BatchBuffer *const *groups,
            double *const *value_areas, uint32_t *const *group_areas, const Rows &r, size_t batch)
{
    for (size_t start = 0, k = 0; start < r.values.size(); start += batch, k ^= 1) {
        size_t n = std::min(batch, r.values.size() - start);
        Status s;
        if ((s = wait_free(values[k])) != Status::ok || (s = wait_free(groups[k])) != Status::ok)
            return s;
        std::memcpy(value_areas[k], r.values.data() + start, n * sizeof(double));
        std::memcpy(group_areas[k], r.groups.data() + start, n * sizeof(uint32_t));
        if ((s = gh::gpu_grouped_submit(h, values[k], groups[k], n)) != Status::ok)
            return s;
    }
    return Status::ok;
}

} // namespace

TEST_F(KernelTest, GroupedThroughThePipeline)
{
    const size_t batch = 100003; /* odd: group areas 4 but not 16 bytes apart */
    Area area(2 * batch * sizeof(double) + 2 * batch * sizeof(uint32_t) + 64);
    ASSERT_NE(area.p, nullptr);
    double *value_areas[2] = {static_cast<double *>(area.p), static_cast<double *>(area.p) + batch};
    uint32_t *group_areas[2] = {reinterpret_cast<uint32_t *>(value_areas[1] + batch),
                                reinterpret_cast<uint32_t *>(value_areas[1] + batch) + batch + 1};
    gh::BatchBuffer *values[2] = {}, *groups[2] = {};
    for (int k = 0; k < 2; k++) {
        ASSERT_EQ(gh::gpu_batch_create(0, value_areas[k], batch, &values[k]), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(gh::gpu_batch_create(0, reinterpret_cast<const double *>(group_areas[k]), (batch + 1) / 2,
                                       &groups[k]),
                  Status::ok);
    }
    for (GroupedSpec spec : {GroupedSpec{BucketSpec{0, 100, 64, BucketRule::pg15}, 100},
                             GroupedSpec{BucketSpec{50, -50, 64, BucketRule::pg16}, 2778},
                             GroupedSpec{BucketSpec{0, 1, 16, BucketRule::pg15}, 65536}}) {
        Rows r = random_rows(spec, 1000033, spec.groups);
        const int32_t cells = int32_t(gh::grouped_cells(spec));
        gh::DeviceHistogram *h = nullptr;
        ASSERT_EQ(gh::gpu_grouped_open(spec, 0, &h), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(feed(h, values, groups, value_areas, group_areas, r, batch), Status::ok) << gh::gpu_last_error();
        std::vector<int64_t> counts(size_t(cells), 0);
        const int32_t chunk = 70001;
        for (int32_t first = 0; first < cells; first += chunk)
            ASSERT_EQ(gh::gpu_histogram_drain(h, first, std::min(chunk, cells - first), counts.data() + first,
                                              nullptr),
                      Status::ok);
        EXPECT_EQ(counts, naive(spec, r)) << spec.groups << " groups";
        /* a group out of range: the drain says the caller is wrong */
        r.groups[500] = spec.groups + 1;
        ASSERT_EQ(feed(h, values, groups, value_areas, group_areas, r, batch), Status::ok);
        EXPECT_EQ(gh::gpu_histogram_drain(h, 0, cells, counts.data(), nullptr), Status::internal_error);
        gh::gpu_histogram_close(h);
    }

    /* what the grouped calls refuse */
    GroupedSpec spec{BucketSpec{0, 1, 10, BucketRule::pg15}, 5};
    gh::DeviceHistogram *grouped = nullptr, *plain = nullptr;
    EXPECT_EQ(gh::gpu_grouped_open(GroupedSpec{spec.interval, 0}, 0, &grouped), Status::internal_error);
    EXPECT_EQ(grouped, nullptr);
    EXPECT_EQ(gh::gpu_grouped_open(GroupedSpec{BucketSpec{0, 1, 1000000, BucketRule::pg15}, 4000}, 0, &grouped),
              Status::internal_error);
    ASSERT_EQ(gh::gpu_grouped_open(spec, 0, &grouped), Status::ok);
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec.interval), 0, &plain), Status::ok);
    EXPECT_EQ(gh::gpu_histogram_submit(grouped, values[0], 10), Status::internal_error);
    EXPECT_EQ(gh::gpu_grouped_submit(plain, values[0], groups[0], 10), Status::internal_error);
    EXPECT_EQ(gh::gpu_grouped_submit(grouped, values[0], values[0], 10), Status::internal_error);
    EXPECT_EQ(gh::gpu_grouped_submit(grouped, values[0], groups[0], batch + 1), Status::internal_error);
    /* 60 cells and the page kernel's tuple counter after them: 61 may be drained, not 62 */
    EXPECT_EQ(gh::gpu_histogram_drain(grouped, 0, 62, nullptr, nullptr), Status::internal_error);
    std::vector<int64_t> none(61, 0);
    EXPECT_EQ(gh::gpu_histogram_drain(grouped, 0, 61, none.data(), nullptr), Status::ok);
    EXPECT_EQ(none, std::vector<int64_t>(61, 0));
    gh::gpu_histogram_close(plain);
    gh::gpu_histogram_close(grouped);
    for (int k = 0; k < 2; k++) {
        gh::gpu_batch_destroy(values[k]);
        gh::gpu_batch_destroy(groups[k]);
    }
}
