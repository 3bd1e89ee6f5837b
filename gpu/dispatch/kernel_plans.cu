/*
 * kernel_plans.cu: the plans of kernel_plans.cuh, and the engine's answers
 * built on them (kernel_plan, time_plan, threshold_plan, describe_plan).
 * Nothing here launches or allocates; a plan that the device then cannot
 * make resident is replanned by the launcher.
 */
#include "kernel_plans.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gh {
namespace plans {
namespace {

constexpr int32_t kTreeLevels = 11; /* 16 KB: leaves room for 16-bit counters of 100,000 thresholds */

} // namespace

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
 * blocks: fewer values routed; more steps: fewer barriers), else at
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
     * kBlockThreads a copy hides it: 97.8 against 66 % at 4,096 thresholds
     * (docs/performance.md#what-the-kernel-choices-rest-on).
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

} // namespace plans

using namespace plans;

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

} // namespace gh
