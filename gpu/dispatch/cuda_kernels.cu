/*
 * cuda_kernels.cu: launches the kernels of kernels/ for the plan
 * kernel_plans.cuh chose: sizes the grid for what the device holds,
 * launches clusters with the sidecar beside them, and replans where the
 * device cannot make a planned cluster resident.  Every kind of histogram
 * goes through the same launch() with its binner (kernel_binners.cuh).
 * Inputs of 2^31 values and more are binned in launches of fewer, so that
 * no 32-bit counter in shared memory or in a thread's run can overflow.
 */
#include "cuda_kernels.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <type_traits>

#include "../gpu_backend.h"
#include "../kernels/kernel_cluster.cuh"
#include "kernel_launch.cuh"
#include "kernel_plans.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

using namespace kernels;
using namespace plans;

/* A binner for values[first ..]: only a grouped binner's group numbers move with the values. */
template <typename Binner> Binner starting_at(Binner b, size_t) { return b; }
template <bool Ascending, BucketRule Rule>
GroupedBinner<Ascending, Rule> starting_at(GroupedBinner<Ascending, Rule> b, size_t first)
{
    b.groups += first;
    return b;
}

/* Blocks worth launching for n values: enough to fill the device, no more than the data needs. */
template <typename T> size_t blocks_wanted(size_t n, int threads)
{
    size_t per_block = static_cast<size_t>(threads) * kUnroll * Vec16<T>::kCount;
    size_t wanted = (n + per_block - 1) / per_block;
    return wanted > 0 ? wanted : 1;
}

size_t capped(size_t blocks, const KernelLimits &limits)
{
    return limits.max_blocks > 0 && blocks > static_cast<size_t>(limits.max_blocks)
               ? static_cast<size_t>(limits.max_blocks)
               : blocks;
}

/*
 * The grid of a kernel of kThreads threads over n values: as many blocks as
 * the values want, at most one wave of what the device keeps resident with
 * smem bytes of shared memory each, and at most limits.max_blocks.
 */
template <typename T, typename Kernel>
cudaError_t one_wave(Kernel kernel, size_t n, size_t smem, const KernelLimits &limits, unsigned *grid)
{
    int per_sm = 0;
    cudaError_t err = resident_blocks(kernel, limits.device, kThreads, smem, &per_sm);
    if (err != cudaSuccess)
        return err;
    size_t full = static_cast<size_t>(limits.multiprocessors) * (per_sm > 0 ? per_sm : 1);
    size_t wanted = blocks_wanted<T>(n, kThreads);
    *grid = static_cast<unsigned>(capped(wanted < full ? wanted : full, limits));
    return cudaSuccess;
}

template <typename T, typename Binner>
cudaError_t launch_shared(const T *values, size_t n, const Binner &binner, unsigned long long *counts, int *flags,
                          const KernelLimits &limits, cudaStream_t stream)
{
    const int32_t counters = shared_slots<T>(binner.slots());
    int copies = shared_copies(counters, binner.table_bytes(), limits);
    size_t smem = shared_bytes(counters, copies, binner.table_bytes());
    auto kernel = histogram_shared<T, Binner>;
    unsigned grid = 0;
    cudaError_t err = one_wave<T>(kernel, n, smem, limits, &grid);
    if (err != cudaSuccess)
        return err;
    kernel<<<grid, kThreads, smem, stream>>>(values, n, binner, copies, counts, flags);
    return cudaGetLastError();
}

template <typename T, typename Binner>
cudaError_t launch_global(const T *values, size_t n, const Binner &binner, unsigned long long *counts, int *flags,
                          const KernelLimits &limits, cudaStream_t stream)
{
    size_t smem = table_space(binner.table_bytes());
    auto kernel = histogram_global<T, Binner>;
    unsigned grid = 0;
    cudaError_t err = one_wave<T>(kernel, n, smem, limits, &grid);
    if (err != cudaSuccess)
        return err;
    kernel<<<grid, kThreads, smem, stream>>>(values, n, binner, counts, flags);
    return cudaGetLastError();
}

template <typename T, typename Binner, bool Narrow>
cudaError_t launch_block(const T *values, size_t n, const Binner &binner, const KernelPlan &plan,
                         unsigned long long *counts, int *flags, const KernelLimits &limits, cudaStream_t stream)
{
    const BlockLayout layout{plan.slices, plan.per_block};
    const size_t words = Narrow ? (static_cast<size_t>(plan.per_block) + 1) / 2 : static_cast<size_t>(plan.per_block);
    const size_t smem = table_space(binner.table_bytes()) + sizeof(unsigned int) * words;
    auto kernel = histogram_block<T, Binner, Narrow>;
    int per_sm = 0;
    cudaError_t err = resident_blocks(kernel, limits.device, kBlockThreads, smem, &per_sm);
    if (err != cudaSuccess)
        return err;
    /* whole groups of one block per slice, at least one */
    size_t groups = static_cast<size_t>(limits.multiprocessors) * per_sm / plan.slices;
    size_t wanted = blocks_wanted<T>(n, kBlockThreads);
    if (wanted < groups)
        groups = wanted;
    if (limits.max_blocks > 0 && groups * plan.slices > static_cast<size_t>(limits.max_blocks))
        groups = static_cast<size_t>(limits.max_blocks) / plan.slices;
    if (groups == 0)
        groups = 1;
    kernel<<<static_cast<unsigned>(groups * plan.slices), kBlockThreads, smem, stream>>>(values, n, binner, layout,
                                                                                         counts, flags);
    return cudaGetLastError();
}

template <typename T, typename Binner>
cudaError_t launch_block(const T *values, size_t n, const Binner &binner, const KernelPlan &plan,
                         unsigned long long *counts, int *flags, const KernelLimits &limits, cudaStream_t stream)
{
    return plan.path == KernelPath::narrow
               ? launch_block<T, Binner, true>(values, n, binner, plan, counts, flags, limits, stream)
               : launch_block<T, Binner, false>(values, n, binner, plan, counts, flags, limits, stream);
}

/*
 * The SMs clusters leave idle.  Clusters of 16 fill whole GPCs, and an
 * H100's 132 SMs hold seven of them: 20 SMs, 15 % of the device, would sit
 * out the launch.  A second kernel bins the input's last part there with
 * global atomics (histogram_global), on a stream of its own so that it runs
 * beside the clusters; the caller's stream waits for both.  Its part is
 * sized by the two kernels' speeds per SM (kSidecarWeight: of the weights
 * 25, 50, 75 and 100 % of a cluster SM's speed, 75 read fastest at
 * 1,000,000 float8 buckets, docs/performance.md#what-the-kernel-choices-rest-on), and it is launched after the
 * cluster kernel, whose blocks take their SMs first.  Counts are added by
 * atomics on both sides, so the split changes no count.
 */
constexpr int kSidecarWeight = 75;                    /* a sidecar SM's values per cluster SM's, in percent */
constexpr size_t kMinSidecarValues = size_t(1) << 20; /* below, a second launch costs more than it gains */

struct Sidecar {
    cudaStream_t stream = nullptr;
    cudaEvent_t fork = nullptr, join = nullptr;
};

/*
 * The device's sidecar stream and events, made on first use.  The GPU
 * service launches from one thread a device, and a fatal CUDA error ends
 * its process, so they live as long as the context.
 */
cudaError_t sidecar_for(int device, Sidecar **out)
{
    static Sidecar sidecars[kMaxDevices];
    if (device < 0 || device >= kMaxDevices)
        return cudaErrorInvalidDevice;
    Sidecar &sc = sidecars[device];
    cudaError_t err = cudaSuccess;
    if (sc.stream == nullptr && (err = cudaStreamCreateWithFlags(&sc.stream, cudaStreamNonBlocking)) != cudaSuccess)
        return err;
    if (sc.fork == nullptr && (err = cudaEventCreateWithFlags(&sc.fork, cudaEventDisableTiming)) != cudaSuccess)
        return err;
    if (sc.join == nullptr && (err = cudaEventCreateWithFlags(&sc.join, cudaEventDisableTiming)) != cudaSuccess)
        return err;
    *out = &sc;
    return cudaSuccess;
}

/* Values of n the sidecar takes beside `busy` SMs of clusters (0: none), a multiple of 16. */
size_t sidecar_share(size_t n, int busy, const KernelLimits &limits)
{
    const int idle = limits.multiprocessors - busy;
    const int weight = limits.cluster_sidecar != 0 ? limits.cluster_sidecar : kSidecarWeight;
    if (idle <= 0 || busy <= 0 || weight < 0)
        return 0;
    const double part = static_cast<double>(idle) * weight / (static_cast<double>(idle) * weight + busy * 100.0);
    const size_t share = static_cast<size_t>(static_cast<double>(n) * part) / 16 * 16;
    return share >= kMinSidecarValues && share < n ? share : 0;
}

/*
 * The cluster path; sets *launched to false, launching nothing, where the
 * device cannot make such clusters resident (the caller takes another path).
 */
template <typename T, typename Binner>
cudaError_t launch_cluster(const T *values, size_t n, const Binner &binner, const KernelPlan &plan,
                           unsigned long long *counts, int *flags, const KernelLimits &limits, cudaStream_t stream,
                           bool *launched)
{
    *launched = false;
    const ClusterShape shape = cluster_shape(plan.slices, plan.per_block, binner.table_bytes(), true, limits);
    if (shape.steps == 0)
        return cudaSuccess;
    ClusterLayout layout{};
    layout.blocks = plan.slices;
    layout.per_block = plan.per_block;
    layout.capacity = shape.capacity;
    layout.low = shape.low;
    layout.steps = shape.steps;
    layout.prefetch = limits.cluster_prefetch > 0   ? limits.cluster_prefetch
                      : limits.cluster_prefetch < 0 ? 0
                                                    : kClusterPrefetch;
    layout.owner_of = divisor_for(static_cast<uint32_t>(plan.per_block),
                                  static_cast<uint64_t>(plan.per_block) * static_cast<uint64_t>(plan.slices));
    if (layout.owner_of.magic == 0)
        return cudaSuccess; /* cannot happen for these sizes (exact_divide.h); another path if it did */
    const size_t smem = cluster_bytes(binner.table_bytes(), layout.per_block, layout.blocks, layout.capacity);
    auto kernel = histogram_cluster<T, Binner>;
    int resident = 0;
    cudaError_t err = resident_clusters(kernel, limits.device, smem, layout.blocks, &resident);
    if (err != cudaSuccess || resident == 0)
        return err;
    size_t clusters = (blocks_wanted<T>(n, kBlockThreads) + layout.blocks - 1) / layout.blocks;
    clusters = std::min(clusters, static_cast<size_t>(resident));
    if (limits.max_blocks > 0)
        clusters = std::min(clusters, static_cast<size_t>(std::max(1, limits.max_blocks / layout.blocks)));
    const int busy = static_cast<int>(clusters) * layout.blocks;
    const size_t side = limits.max_blocks > 0 ? 0 : sidecar_share(n, busy, limits);
    Sidecar *sc = nullptr;
    if (side > 0) { /* the sidecar starts after what the stream holds now, not after the clusters */
        if ((err = sidecar_for(limits.device, &sc)) != cudaSuccess ||
            (err = cudaEventRecord(sc->fork, stream)) != cudaSuccess ||
            (err = cudaStreamWaitEvent(sc->stream, sc->fork, 0)) != cudaSuccess)
            return err;
    }
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = static_cast<unsigned>(layout.blocks);
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.gridDim = dim3(static_cast<unsigned>(clusters * layout.blocks));
    config.blockDim = dim3(kBlockThreads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
    *launched = true;
    if ((err = cudaLaunchKernelEx(&config, kernel, values, n - side, binner, layout, counts, flags)) != cudaSuccess ||
        side == 0)
        return err;
    /* a grid of the idle SMs' worth of blocks, at most */
    KernelLimits idle = limits;
    idle.max_blocks = (limits.multiprocessors - busy) * (2048 / kThreads);
    if ((err = launch_global(values + (n - side), side, starting_at(binner, n - side), counts, flags, idle,
                             sc->stream)) != cudaSuccess ||
        (err = cudaEventRecord(sc->join, sc->stream)) != cudaSuccess)
        return err;
    return cudaStreamWaitEvent(stream, sc->join, 0);
}

template <typename T, typename Binner>
cudaError_t launch(const T *values, size_t n, const Binner &binner, const KernelPlan &plan,
                   unsigned long long *counts, int *flags, const KernelLimits &limits, cudaStream_t stream)
{
    for (size_t done = 0; done < n; done += kMaxPerLaunch) {
        const size_t part = n - done < kMaxPerLaunch ? n - done : kMaxPerLaunch;
        const Binner b = starting_at(binner, done);
        cudaError_t err;
        if constexpr (sizeof(T) == 1) { /* byte values: always counted in shared memory */
            err = launch_shared(values + done, part, b, counts, flags, limits, stream);
        } else if (plan.path == KernelPath::shared) {
            err = launch_shared(values + done, part, b, counts, flags, limits, stream);
        } else if (plan.path == KernelPath::block || plan.path == KernelPath::narrow) {
            err = launch_block(values + done, part, b, plan, counts, flags, limits, stream);
        } else if (plan.path == KernelPath::cluster) {
            bool launched = false;
            err = launch_cluster(values + done, part, b, plan, counts, flags, limits, stream, &launched);
            if (err == cudaSuccess && !launched) { /* no such clusters here after all: the plan without them */
                KernelLimits without = limits;
                without.max_cluster = 0;
                without.force_path = KernelPath::automatic;
                return launch(values + done, n - done, b,
                              plan_for(b.slots(), sizeof(T), b.table_bytes(), without, false), counts, flags,
                              without, stream);
            }
        } else {
            err = launch_global(values + done, part, b, counts, flags, limits, stream);
        }
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

template <typename T, typename Binner>
cudaError_t launch(const T *values, size_t n, const Binner &binner, unsigned long long *counts, int *flags,
                   const KernelLimits &limits, cudaStream_t stream)
{
    return launch(values, n, binner,
                  plan_for(binner.slots(), sizeof(T), binner.table_bytes(), limits, clusters_for(binner)), counts,
                  flags, limits, stream);
}

template <bool Ascending, BucketRule Rule>
GroupedBinner<Ascending, Rule> grouped(FloatBinner<Ascending, Rule> bucket_of, const uint32_t *groups, uint32_t ngroups)
{
    return GroupedBinner<Ascending, Rule>{bucket_of, groups, ngroups};
}

} // namespace

cudaError_t describe_device(int device, KernelLimits *limits)
{
    cudaError_t err;
    *limits = KernelLimits{};
    limits->device = device;
    if ((err = cudaDeviceGetAttribute(&limits->multiprocessors, cudaDevAttrMultiProcessorCount, device)) ||
        (err = cudaDeviceGetAttribute(&limits->max_shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                      device)) ||
        (err = cudaDeviceGetAttribute(&limits->max_shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      device)))
        return err;
    /*
     * Clusters: 8 blocks are portable where the device launches clusters at
     * all; 16 where it can hold such a cluster of full-memory blocks, asked
     * of one cluster kernel (they all take 1024 threads and as much memory).
     */
    int clusters = 0;
    if ((err = cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device)) != cudaSuccess)
        return err;
    /*
     * ... and where the code that runs on it has them: a build for older
     * targets only (75-virtual on an H100, compiled by the driver) has its
     * cluster kernels compiled without clusters, and launching one as a
     * cluster fails with an illegal instruction that takes the context with it.
     */
    cudaFuncAttributes code{};
    if (clusters != 0 &&
        (cudaFuncGetAttributes(&code, histogram_cluster<double, FloatBinner<true, BucketRule::pg15>>) != cudaSuccess ||
         code.ptxVersion < 90)) {
        (void)cudaGetLastError();
        clusters = 0;
    }
    if (clusters != 0) {
        limits->max_cluster = 8;
        int resident = 0;
        if (resident_clusters(histogram_cluster<double, FloatBinner<true, BucketRule::pg15>>, device,
                              static_cast<size_t>(limits->max_shared_per_block), kMaxCluster,
                              &resident) == cudaSuccess &&
            resident > 0)
            limits->max_cluster = kMaxCluster;
        (void)cudaGetLastError();
    }
    return cudaSuccess;
}


template <typename T>
cudaError_t bin_on_device(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts, int *flags,
                          const KernelLimits &limits, cudaStream_t stream)
{
    return with_float_binner(spec, [&](auto binner) {
        if constexpr (std::is_same_v<T, float>) {
            /*
             * Without its table every value in doubt calls the float8 form:
             * on the H100 that read 65,536 buckets at 26 % of the read
             * ceiling, against 46 % for the float8 form alone.
             */
            const auto single = single_binner(binner);
            if (single.tabled())
                return launch(values, n, single, counts, flags, limits, stream);
        }
        return launch(values, n, binner, counts, flags, limits, stream);
    });
}

cudaError_t bin_int64_on_device(const int64_t *values, size_t n, const Int64Spec &spec, unsigned long long *counts,
                                int *flags, const KernelLimits &limits, cudaStream_t stream)
{
    return launch(values, n, Int64Binner{prepare_int64(spec)}, counts, flags, limits, stream);
}


cudaError_t bin_thresholds_on_device(const double *values, size_t n, const DeviceThresholds &thresholds,
                                     unsigned long long *counts, int *flags, const KernelLimits &limits,
                                     cudaStream_t stream)
{
    if (thresholds.index.cells > 0 && thresholds.count <= kAllThresholdsUpTo)
        return launch(values, n, ThresholdIndexBinner<true>{thresholds}, counts, flags, limits, stream);
    if (thresholds.index.cells > 0)
        return launch(values, n, ThresholdIndexBinner<false>{thresholds}, counts, flags, limits, stream);
    int32_t levels = 0;
    const int32_t count = thresholds.count;
    KernelPlan plan = plan_thresholds(count, limits, &levels);
    if (levels == 0)
        return launch(values, n, ThresholdBinner{thresholds.thresholds, count}, plan, counts, flags, limits, stream);
    return launch(values, n, ThresholdTreeBinner{thresholds.thresholds, count, levels, nullptr}, plan, counts, flags,
                  limits, stream);
}

cudaError_t bin_grouped_on_device(const double *values, const uint32_t *groups, size_t n, const GroupedSpec &spec,
                                  unsigned long long *counts, int *flags, const KernelLimits &limits,
                                  cudaStream_t stream)
{
    if (!grouped_spec_fits(spec))
        return cudaErrorInvalidValue;
    return with_float_binner(spec.interval, [&](auto bucket_of) {
        return launch(values, n, grouped(bucket_of, groups, spec.groups), counts, flags, limits, stream);
    });
}

template cudaError_t bin_on_device<double>(const double *, size_t, const BucketSpec &, unsigned long long *, int *,
                                           const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<float>(const float *, size_t, const BucketSpec &, unsigned long long *, int *,
                                          const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<uint8_t>(const uint8_t *, size_t, const BucketSpec &, unsigned long long *, int *,
                                            const KernelLimits &, cudaStream_t);

} // namespace gh
