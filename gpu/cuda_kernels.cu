/*
 * cuda_kernels.cu: picks how a histogram is counted, sizes the grid, and
 * launches the kernels of kernel_paths.cuh and kernel_block.cuh.
 *
 * Few counters (up to kSharedMaxSlots) are counted in shared memory in
 * several copies per block; more, in one copy per large block, 32-bit up
 * to what a block holds, then 16-bit; more than one block holds, in a
 * thread block cluster's blocks (kernel_cluster.cuh) where the device has
 * clusters, else in up to kMaxSlices slices of 16-bit counters; more than
 * that with global atomics.  The measurements behind the thresholds are in
 * test/gpu/RUNS.md (runs 39, 40 and 45) and docs/performance.md.  Every kind
 * of histogram goes through the same launch() with its binner
 * (kernel_binners.cuh).  Inputs of 2^31 values and more are binned in
 * launches of fewer, so that no 32-bit counter in shared memory or in a
 * thread's run can overflow.
 */
#include "cuda_kernels.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <type_traits>

#include "gpu_backend.h"
#include "kernel_cluster.cuh"
#include "kernel_launch.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

using namespace kernels;

/* Up to this many counters, copies per block; above, one copy per large block (RUNS.md, run 39). */
constexpr int32_t kSharedMaxSlots = 8194;
/* Slices at most before global atomics are faster: each slice bins every value again. */
constexpr int kMaxSlices = 4;
/* The most slices a forced block path takes (tests and benchmarks). */
constexpr int kMaxForcedSlices = 64;
/* Values per launch: below 2^31, so no 32-bit counter can overflow (a multiple of 16 bytes of any sample). */
constexpr size_t kMaxPerLaunch = size_t(1) << 31;
/*
 * Which kinds the engine bins on the cluster path where it fits: float8,
 * grouped and time intervals, and sorted thresholds through their index
 * (plan_for: 8-byte samples only).  Where binning costs more than
 * counting, the rounds' barriers cost more than they save: the thresholds'
 * search on constant input (RUNS.md, run 45).  The time form was kept off
 * them while its every value took 128-bit arithmetic; since most values
 * take one multiplication (time_bucket.h) clusters of 16 read 38 % at
 * 1,000,000 buckets against global atomics' 21 % (run 76).  The thresholds'
 * index, while every value read L2 for its cell, was faster through global
 * atomics (10.8 against 8.1 % at 1,000,000); with its segments' lines
 * answering most values from shared memory, clusters of 16 read 27.9 %
 * against 20.9 % (run 81).
 */
constexpr bool kClustersForThresholds = false;
template <typename Binner> constexpr bool clusters_for(const Binner &) { return true; }

/*
 * Steps a round on the cluster path at most (kernel_cluster.cuh allows
 * kMaxClusterSteps), and steps of input prefetched into L2 ahead of the
 * loads (0: none); KernelLimits may override both (benchmarks, tests).
 * RUNS.md, run 56: every shape was fastest at the most steps that fit (a
 * cap of 3 lost 1-2 % where 4 fit), and one step of prefetch gained 6-8 %
 * on uniform input and 9-12 % on constant input; two steps were no better
 * for float8 and 17-34 % slower for grouped histograms (their group numbers
 * too: more than L2 keeps), four worse everywhere.
 */
constexpr int32_t kClusterSteps = kMaxClusterSteps;
constexpr int32_t kClusterPrefetch = 1;

/* Thresholds: all of them in shared memory up to this many, else the search tree's top levels. */
constexpr int32_t kAllThresholdsUpTo = 4096;
constexpr int32_t kTreeLevels = 11; /* 16 KB: leaves room for 16-bit counters of 100,000 thresholds */

/* Shared memory for a block: the binner's table, then `copies` copies of the counters. */
size_t shared_bytes(int32_t counters, int copies, size_t table_bytes)
{
    return table_space(table_bytes) + sizeof(unsigned int) * static_cast<size_t>(copies) * (counters | 1);
}

/* Copies of the counters per block: up to one per warp, within a quarter of the SM's shared memory. */
int shared_copies(int32_t counters, size_t table_bytes, const KernelLimits &limits)
{
    int copies = kWarps;
    while (copies > 1 &&
           shared_bytes(counters, copies, table_bytes) > static_cast<size_t>(limits.max_shared_per_sm) / 4)
        copies /= 2;
    return copies;
}

/*
 * The outboxes of a cluster of `blocks` blocks owning per_block counters
 * each (kernel_cluster.cuh): what shared memory leaves them, at most what a
 * pull may add to a 16-bit counter between barriers (kRound) and at most a
 * round's values, 16 bytes of entries at a time; the most steps per round
 * (fewer barriers) for which an outbox holds what uniform input sends an
 * owner in a round plus three standard deviations (more goes to global
 * atomics, exactly, only slower); and the part for an owner's cells below
 * 65,536, in proportion.  steps 0: does not fit (forced: room for 8
 * entries a part is enough).
 */
struct ClusterShape {
    int32_t steps;
    int32_t capacity;
    int32_t low;
};

/* The most steps a round: the engine's cap, or the caller's (tests and benchmarks). */
int32_t most_cluster_steps(const KernelLimits &limits)
{
    const int32_t most = limits.max_cluster_steps > 0 ? limits.max_cluster_steps : kClusterSteps;
    return std::min<int32_t>(most, kMaxClusterSteps);
}

ClusterShape cluster_shape(int32_t blocks, int32_t per_block, size_t table_bytes, bool forced,
                           const KernelLimits &limits)
{
    const ClusterShape none{0, 0, 0};
    const size_t max_shared = static_cast<size_t>(limits.max_shared_per_block);
    const size_t fixed = cluster_outbox_offset(table_bytes, per_block);
    if (per_block > kMaxClusterSlice || fixed >= max_shared)
        return none;
    int64_t q = static_cast<int64_t>((max_shared - fixed) / (sizeof(uint16_t) * 2 * static_cast<size_t>(blocks)));
    q = std::min<int64_t>(q, kRound / (blocks - 1)) / 8 * 8;
    auto shaped = [&](int32_t steps, int64_t capacity) {
        int64_t low = per_block <= 65536 ? capacity : capacity * 65536 / per_block / 8 * 8;
        if (capacity - low < (per_block > 65536 ? 8 : 0) || low < 8)
            return none;
        return ClusterShape{steps, static_cast<int32_t>(capacity), static_cast<int32_t>(low)};
    };
    for (int32_t steps = most_cluster_steps(limits); steps >= 1; steps--) {
        const int64_t round = int64_t(kClusterStep) * steps, mean = round / blocks;
        const int64_t need = mean + 3 * static_cast<int64_t>(std::sqrt(static_cast<double>(mean))) + 8;
        if (q >= need)
            return shaped(steps, std::min(q, round));
    }
    return forced ? shaped(1, std::min<int64_t>(q, kClusterStep)) : none;
}

/* Counters per block in a cluster of `blocks`: whole words. */
int64_t cluster_per_block(int32_t slots, int32_t blocks)
{
    int64_t per_block = (static_cast<int64_t>(slots) + blocks - 1) / blocks;
    return per_block + (per_block & 1);
}

/*
 * The cluster for `slots` counters: exactly `forced` blocks, else the fewest
 * (2 to limits.max_cluster) that take at least 3 steps a round (fewer
 * blocks: fewer values routed; more steps: fewer barriers; run 45), else at
 * least 2, else 1 (or the cap's).  Global if none fits.
 */
KernelPlan cluster_plan(int32_t slots, size_t table_bytes, int forced, const KernelLimits &limits)
{
    for (int32_t min_steps = std::min<int32_t>(3, most_cluster_steps(limits)); min_steps >= 1; min_steps--)
        for (int32_t blocks = 2; blocks <= limits.max_cluster && blocks <= kMaxCluster; blocks *= 2) {
            if (forced != 0 && blocks != forced)
                continue;
            const int64_t per_block = cluster_per_block(slots, blocks);
            if (per_block > kMaxClusterSlice)
                continue;
            const ClusterShape shape =
                cluster_shape(blocks, static_cast<int32_t>(per_block), table_bytes, forced != 0, limits);
            if (shape.steps >= (forced != 0 ? 1 : min_steps))
                return KernelPlan{KernelPath::cluster, blocks, static_cast<int32_t>(per_block), shape.steps};
        }
    return KernelPlan{KernelPath::global, 0, 0};
}

/*
 * The plan for `slots` counters with a binner table of table_bytes in every
 * block.  `clusters`: whether the engine takes the cluster path for this
 * kind (forced, every kind does).
 */
KernelPlan plan_for(int32_t slots, size_t sample_bytes, size_t table_bytes, const KernelLimits &limits,
                    bool clusters)
{
    const KernelPlan shared{KernelPath::shared, 0, 0};
    const KernelPlan global{KernelPath::global, 0, 0};
    const size_t max_shared = static_cast<size_t>(limits.max_shared_per_block);
    const int32_t counters = sample_bytes == 1 ? 256 : slots;
    const bool shared_fits = shared_bytes(counters, 1, table_bytes) <= max_shared;
    if (sample_bytes == 1)
        return shared;
    const int64_t words =
        max_shared > table_space(table_bytes) ? (max_shared - table_space(table_bytes)) / sizeof(unsigned int) : 0;
    auto block = [&](bool narrow, int max_slices) {
        const int64_t per_block_max = narrow ? 2 * words : words;
        if (per_block_max == 0)
            return global;
        int64_t slices = (slots + per_block_max - 1) / per_block_max;
        if (slices > max_slices)
            return global;
        int64_t per_block = (slots + slices - 1) / slices;
        if (narrow)
            per_block += per_block & 1; /* whole words */
        return KernelPlan{narrow ? KernelPath::narrow : KernelPath::block, static_cast<int>(slices),
                          static_cast<int32_t>(per_block)};
    };
    switch (limits.force_path) {
    case KernelPath::shared:
        if (shared_fits)
            return shared;
        break;
    case KernelPath::block:
    case KernelPath::narrow: {
        KernelPlan p = block(limits.force_path == KernelPath::narrow, kMaxForcedSlices);
        if (p.path != KernelPath::global)
            return p;
        break;
    }
    case KernelPath::global:
        return global;
    case KernelPath::cluster: {
        KernelPlan p = cluster_plan(slots, table_bytes, limits.cluster_blocks, limits);
        if (p.path == KernelPath::cluster)
            return p;
        break;
    }
    case KernelPath::automatic:
        break;
    }
    /*
     * Copies per block only where four blocks of them fit an SM: a binner
     * table that leaves room for fewer (the thresholds' index) would leave
     * the SM a few hundred threads to hide its latency; one block of
     * kBlockThreads a copy hides it (RUNS.md, run 77).
     */
    const bool shared_roomy =
        shared_bytes(counters, 1, table_bytes) <= static_cast<size_t>(limits.max_shared_per_sm) / 4;
    if (shared_fits && shared_roomy && slots <= kSharedMaxSlots)
        return shared;
    if (slots <= words)
        return block(false, 1);
    if (slots <= 2 * words)
        return block(true, 1);
    const KernelPlan cluster = clusters && sample_bytes == 8 ? cluster_plan(slots, table_bytes, 0, limits) : global;
    if (cluster.path == KernelPath::cluster)
        return cluster;
    return block(true, kMaxSlices);
}

/* The levels of the server's search over count thresholds: at most this many steps. */
int32_t search_depth(int32_t count)
{
    int32_t d = 0;
    while (d < 31 && (int64_t(1) << d) <= count)
        d++;
    return d;
}

/* The thresholds' plan, and the levels of their search tree in shared memory (0: all of them there). */
KernelPlan plan_thresholds(int32_t count, const KernelLimits &limits, int32_t *levels)
{
    if (count <= kAllThresholdsUpTo) {
        *levels = 0;
        return plan_for(count + 1, sizeof(double), sizeof(double) * static_cast<size_t>(count), limits,
                        kClustersForThresholds);
    }
    const int32_t depth = search_depth(count);
    int32_t l = depth < kTreeLevels ? depth : kTreeLevels;
    KernelPlan plan =
        plan_for(count + 1, sizeof(double), ThresholdTreeBinner::tree_bytes(l), limits, kClustersForThresholds);
    /* more levels where the counters leave room for them */
    if (plan.path == KernelPath::block || plan.path == KernelPath::narrow) {
        const size_t counters = plan.path == KernelPath::narrow ? sizeof(uint16_t) : sizeof(uint32_t);
        while (l < ThresholdTreeBinner::kMaxLevels && l < depth &&
               table_space(ThresholdTreeBinner::tree_bytes(l + 1)) + counters * plan.per_block <=
                   static_cast<size_t>(limits.max_shared_per_block))
            l++;
    }
    *levels = l;
    return plan;
}

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

template <typename T, typename Binner>
cudaError_t launch_shared(const T *values, size_t n, const Binner &binner, unsigned long long *counts, int *flags,
                          const KernelLimits &limits, cudaStream_t stream)
{
    const int32_t counters = shared_slots<T>(binner.slots());
    int copies = shared_copies(counters, binner.table_bytes(), limits);
    size_t smem = shared_bytes(counters, copies, binner.table_bytes());
    auto kernel = histogram_shared<T, Binner>;
    int per_sm = 0;
    cudaError_t err = resident_blocks(kernel, limits.device, kThreads, smem, &per_sm);
    if (err != cudaSuccess)
        return err;
    size_t full = static_cast<size_t>(limits.multiprocessors) * (per_sm > 0 ? per_sm : 1);
    size_t wanted = blocks_wanted<T>(n, kThreads);
    unsigned grid = static_cast<unsigned>(capped(wanted < full ? wanted : full, limits));
    kernel<<<grid, kThreads, smem, stream>>>(values, n, binner, copies, counts, flags);
    return cudaGetLastError();
}

template <typename T, typename Binner>
cudaError_t launch_global(const T *values, size_t n, const Binner &binner, unsigned long long *counts, int *flags,
                          const KernelLimits &limits, cudaStream_t stream)
{
    size_t smem = table_space(binner.table_bytes());
    auto kernel = histogram_global<T, Binner>;
    int per_sm = 0;
    cudaError_t err = resident_blocks(kernel, limits.device, kThreads, smem, &per_sm);
    if (err != cudaSuccess)
        return err;
    size_t full = static_cast<size_t>(limits.multiprocessors) * (per_sm > 0 ? per_sm : 1);
    size_t wanted = blocks_wanted<T>(n, kThreads);
    unsigned grid = static_cast<unsigned>(capped(wanted < full ? wanted : full, limits));
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
 * Clusters of `blocks` blocks of a kernel that can be resident at once at
 * `smem` bytes each (0: none), asked of the runtime once per kernel and
 * device and remembered like resident_blocks(); also raises the kernel's
 * shared memory limit and, past 8 blocks, allows non-portable sizes.
 */
struct ClusterCache {
    const void *kernel;
    int device;
    size_t smem;
    int blocks;
    int clusters;
};

template <typename Kernel>
cudaError_t resident_clusters(Kernel kernel, int device, size_t smem, int blocks, int *clusters)
{
    constexpr int kEntries = 64 * kMaxDevices;
    static ClusterCache cache[kEntries];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    ClusterCache *c = nullptr;
    for (int i = 0; i < used && c == nullptr; i++)
        if (cache[i].kernel == key && cache[i].device == device)
            c = &cache[i];
    if (c == nullptr) {
        if (used == kEntries)
            return cudaErrorUnknown; /* cannot happen: fewer kernels exist */
        c = &cache[used++];
        *c = ClusterCache{key, device, static_cast<size_t>(-1), 0, 0};
    }
    if (c->smem != smem || c->blocks != blocks) {
        int per_sm = 0;
        cudaError_t err = resident_blocks(kernel, device, kBlockThreads, smem, &per_sm);
        if (err != cudaSuccess)
            return err;
        if (blocks > 8 &&
            (err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)) != cudaSuccess)
            return err;
        cudaLaunchConfig_t config = {};
        cudaLaunchAttribute attribute[1];
        attribute[0].id = cudaLaunchAttributeClusterDimension;
        attribute[0].val.clusterDim.x = static_cast<unsigned>(blocks);
        attribute[0].val.clusterDim.y = 1;
        attribute[0].val.clusterDim.z = 1;
        config.gridDim = dim3(static_cast<unsigned>(blocks));
        config.blockDim = dim3(kBlockThreads);
        config.dynamicSmemBytes = smem;
        config.attrs = attribute;
        config.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &config) != cudaSuccess) {
            (void)cudaGetLastError(); /* a size this device cannot schedule: none */
            n = 0;
        }
        c->smem = smem;
        c->blocks = blocks;
        c->clusters = n;
    }
    *clusters = c->clusters;
    return cudaSuccess;
}

/*
 * The SMs clusters leave idle.  Clusters of 16 fill whole GPCs, and an
 * H100's 132 SMs hold seven of them: 20 SMs, 15 % of the device, would sit
 * out the launch.  A second kernel bins the input's last part there with
 * global atomics (histogram_global), on a stream of its own so that it runs
 * beside the clusters; the caller's stream waits for both.  Its part is
 * sized by the two kernels' speeds per SM (kSidecarWeight: of the weights
 * 25, 50, 75 and 100 % of a cluster SM's speed, 75 read fastest at
 * 1,000,000 float8 buckets, RUNS.md run 78), and it is launched after the
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

KernelPlan kernel_plan(int32_t slots, size_t sample_bytes, const KernelLimits &limits)
{
    return plan_for(slots, sample_bytes, 0, limits, true);
}

KernelPlan time_plan(int32_t nbins, const KernelLimits &limits)
{
    return plan_for(nbins + 2, sizeof(int64_t), 0, limits, clusters_for(Int64Binner{}));
}

KernelPlan threshold_plan(const DeviceThresholds &thresholds, const KernelLimits &limits)
{
    if (thresholds.index.cells > 0 && thresholds.count <= kAllThresholdsUpTo) {
        const ThresholdIndexBinner<true> b{thresholds};
        return plan_for(b.slots(), sizeof(double), b.table_bytes(), limits, clusters_for(b));
    }
    if (thresholds.index.cells > 0) {
        const ThresholdIndexBinner<false> b{thresholds};
        return plan_for(b.slots(), sizeof(double), b.table_bytes(), limits, clusters_for(b));
    }
    int32_t levels = 0;
    return plan_thresholds(thresholds.count, limits, &levels);
}

const char *describe_plan(const KernelPlan &plan, char *buf, size_t size)
{
    const char *what = plan.path == KernelPath::shared ? "shared"
                       : plan.path == KernelPath::block ? "block"
                       : plan.path == KernelPath::narrow ? "narrow"
                                                         : "global";
    if (plan.path == KernelPath::cluster)
        snprintf(buf, size, "cluster of %d, %d step%s", plan.slices, plan.steps, plan.steps == 1 ? "" : "s");
    else if ((plan.path == KernelPath::block || plan.path == KernelPath::narrow) && plan.slices > 1)
        snprintf(buf, size, "%s x %d slices", what, plan.slices);
    else
        snprintf(buf, size, "%s", what);
    return buf;
}

bool uses_shared_memory(int32_t nbins, const KernelLimits &limits)
{
    return kernel_plan(nbins + 2, sizeof(double), limits).path == KernelPath::shared;
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

namespace {

/*
 * The index when the thresholds get one (an array it covers): for up to
 * kAllThresholdsUpTo, small enough for shared memory, where the search's
 * dozen steps through shared memory read at 10 % of the read ceiling at
 * 4,096 thresholds (RUNS.md, run 76); above, in device memory.
 */
ThresholdIndex index_for(const double *thresholds, int32_t count)
{
    return plan_threshold_index(thresholds, count,
                                count <= kAllThresholdsUpTo ? kSharedThresholdCells : kMaxThresholdCells);
}

/* The index's cells start 16-byte aligned after the thresholds; the segments follow them. */
size_t index_offset(int32_t count)
{
    return (sizeof(double) * static_cast<size_t>(count) + 15) / 16 * 16;
}

/* Segments for the thresholds whose cells stay in device memory (threshold_index.h). */
int32_t segments_for(const ThresholdIndex &ix, int32_t count)
{
    return ix.cells > 0 && count > kAllThresholdsUpTo ? kThresholdSegments : 0;
}

} // namespace

size_t threshold_device_bytes(const double *thresholds, int32_t count)
{
    const ThresholdIndex ix = index_for(thresholds, count);
    return index_offset(count) + sizeof(ThresholdCell) * static_cast<size_t>(ix.cells) +
           sizeof(ThresholdSegment) * static_cast<size_t>(segments_for(ix, count));
}

cudaError_t stage_thresholds(const double *thresholds, int32_t count, void *device, cudaStream_t stream,
                             DeviceThresholds *out)
{
    char *base = static_cast<char *>(device);
    DeviceThresholds t{reinterpret_cast<const double *>(base), count, index_for(thresholds, count), nullptr,
                       ThresholdIndex{0, 0, 0}, nullptr};
    cudaError_t err = cudaSuccess;
    /* from pageable memory: each copy returns once its source has been read */
    if (count > 0)
        err = cudaMemcpyAsync(base, thresholds, sizeof(double) * static_cast<size_t>(count), cudaMemcpyHostToDevice,
                              stream);
    if (err == cudaSuccess && t.index.cells > 0) {
        ThresholdCell *cells = new (std::nothrow) ThresholdCell[static_cast<size_t>(t.index.cells)];
        if (cells == nullptr)
            return cudaErrorMemoryAllocation;
        fill_threshold_index(thresholds, count, t.index, cells);
        t.cells = reinterpret_cast<const ThresholdCell *>(base + index_offset(count));
        err = cudaMemcpyAsync(base + index_offset(count), cells, sizeof(ThresholdCell) * t.index.cells,
                              cudaMemcpyHostToDevice, stream);
        delete[] cells;
    }
    const int32_t segments = segments_for(t.index, count);
    if (err == cudaSuccess && segments > 0) {
        ThresholdSegment *lines = new (std::nothrow) ThresholdSegment[static_cast<size_t>(segments)];
        if (lines == nullptr)
            return cudaErrorMemoryAllocation;
        fill_threshold_segments(thresholds, count, segments, &t.lines, lines);
        char *at = base + index_offset(count) + sizeof(ThresholdCell) * static_cast<size_t>(t.index.cells);
        t.segments = reinterpret_cast<const ThresholdSegment *>(at);
        err = cudaMemcpyAsync(at, lines, sizeof(ThresholdSegment) * static_cast<size_t>(segments),
                              cudaMemcpyHostToDevice, stream);
        delete[] lines;
    }
    if (err == cudaSuccess)
        *out = t;
    return err;
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
