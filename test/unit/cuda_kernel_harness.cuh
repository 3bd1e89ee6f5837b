/*
 * cuda_kernel_harness.cuh: what the kernel-level CUDA tests share
 * (cuda_paths_test.cu, cuda_grouped_test.cu): a fixture that skips without
 * a GPU, device arrays that free themselves, and one call that runs a
 * launcher of cuda_kernels.cuh on zeroed device counters and reads back the
 * counters and the flags.
 */
#ifndef GH_CUDA_KERNEL_HARNESS_CUH
#define GH_CUDA_KERNEL_HARNESS_CUH

#include <gtest/gtest.h>

#include <vector>

#include "dispatch/cuda_kernels.cuh"
#include "gpu_backend.h"

namespace gh_test {

class KernelTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        gh::Status s = gh::gpu_start();
        if (s != gh::Status::ok)
            GTEST_SKIP() << "no usable GPU, CUDA tests skipped: " << gh::status_text(s);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(gh::describe_device(0, &limits), cudaSuccess);
    }
    gh::KernelLimits limits{};
};

/* n elements of T in device memory, copied from a host vector or left as they are. */
template <typename T> class DeviceArray {
  public:
    explicit DeviceArray(size_t n) : n_(n) { EXPECT_EQ(cudaMalloc(&p_, sizeof(T) * (n > 0 ? n : 1)), cudaSuccess); }
    explicit DeviceArray(const std::vector<T> &v) : DeviceArray(v.size())
    {
        if (!v.empty())
            EXPECT_EQ(cudaMemcpy(p_, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice), cudaSuccess);
    }
    ~DeviceArray() { cudaFree(p_); }
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    T *get() const { return p_; }
    bool ok() const { return p_ != nullptr; }

  private:
    T *p_ = nullptr;
    size_t n_;
};

/* Thresholds on the device as the engine stages them (stage_thresholds): with their index where they get one. */
class StagedThresholds {
  public:
    explicit StagedThresholds(const std::vector<double> &t)
    {
        const size_t bytes = gh::threshold_device_bytes(t.data(), int32_t(t.size()));
        EXPECT_EQ(cudaMalloc(&p_, bytes > 0 ? bytes : 16), cudaSuccess);
        EXPECT_EQ(gh::stage_thresholds(t.data(), int32_t(t.size()), p_, nullptr, &staged_), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    }
    ~StagedThresholds() { cudaFree(p_); }
    StagedThresholds(const StagedThresholds &) = delete;
    StagedThresholds &operator=(const StagedThresholds &) = delete;
    const gh::DeviceThresholds &get() const { return staged_; }
    bool indexed() const { return staged_.index.cells > 0; }

  private:
    void *p_ = nullptr;
    gh::DeviceThresholds staged_{};
};

/* What one launch left: the counters and the flags (1 NaN, 2 group out of range). */
struct Binned {
    std::vector<int64_t> counts;
    int flags = 0;
};

/* Runs launch(counts, flags) on `slots` zeroed device counters and reads them back. */
template <typename Launch> Binned binned(size_t slots, Launch launch)
{
    DeviceArray<unsigned long long> counts(slots);
    DeviceArray<int> flags(1);
    EXPECT_EQ(cudaMemset(counts.get(), 0, sizeof(unsigned long long) * slots), cudaSuccess);
    EXPECT_EQ(cudaMemset(flags.get(), 0, sizeof(int)), cudaSuccess);
    EXPECT_EQ(launch(counts.get(), flags.get()), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned long long> host(slots);
    Binned out;
    EXPECT_EQ(cudaMemcpy(host.data(), counts.get(), sizeof(unsigned long long) * slots, cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&out.flags, flags.get(), sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    out.counts.assign(host.begin(), host.end());
    return out;
}

/* The limits with a path forced (tests only: see KernelLimits). */
inline gh::KernelLimits forced(gh::KernelLimits limits, gh::KernelPath path, int max_blocks = 0)
{
    limits.force_path = path;
    limits.max_blocks = max_blocks;
    return limits;
}

/* The limits with the cluster path forced in clusters of `blocks` (0: the fewest that fit). */
inline gh::KernelLimits clustered(gh::KernelLimits limits, int blocks, int max_blocks = 0)
{
    limits = forced(limits, gh::KernelPath::cluster, max_blocks);
    limits.cluster_blocks = blocks;
    return limits;
}

/*
 * Every path for `slots` counters: shared (where it fits), block, narrow,
 * global, and clusters where the device has them: the fewest blocks that
 * fit, and 16 where the device makes such clusters.
 */
inline std::vector<gh::KernelLimits> every_path(const gh::KernelLimits &limits, int32_t slots,
                                                size_t sample_bytes = 8)
{
    std::vector<gh::KernelLimits> out;
    if (gh::kernel_plan(slots, sample_bytes, forced(limits, gh::KernelPath::shared)).path == gh::KernelPath::shared)
        out.push_back(forced(limits, gh::KernelPath::shared));
    for (gh::KernelPath p : {gh::KernelPath::block, gh::KernelPath::narrow, gh::KernelPath::global})
        out.push_back(forced(limits, p));
    if (sample_bytes == 1)
        return out;
    gh::KernelPlan fewest = gh::kernel_plan(slots, sample_bytes, clustered(limits, 0));
    if (fewest.path == gh::KernelPath::cluster)
        out.push_back(clustered(limits, 0));
    gh::KernelPlan sixteen = gh::kernel_plan(slots, sample_bytes, clustered(limits, 16));
    if (fewest.slices != 16 && sixteen.path == gh::KernelPath::cluster && sixteen.slices == 16)
        out.push_back(clustered(limits, 16));
    return out;
}

} // namespace gh_test

#endif /* GH_CUDA_KERNEL_HARNESS_CUH */
