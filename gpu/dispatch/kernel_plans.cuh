/*
 * kernel_plans.cuh: how a histogram of a given size is counted on a given
 * GPU (the path, the slices or the cluster's shape), apart from launching
 * it.  The plan is a pure function of the counters, the binner's table and
 * the device's limits, so the launchers (cuda_kernels.cu,
 * cuda_page_kernels.cu), the backend's EXPLAIN text and the tests all see
 * the same choice.  The constants say where one path stops paying; the
 * facts behind each are in docs/performance.md#what-the-kernel-choices-rest-on.
 */
#ifndef GH_KERNEL_PLANS_CUH
#define GH_KERNEL_PLANS_CUH

#include <cstddef>
#include <cstdint>

#include "../kernels/kernel_cluster.cuh"
#include "cuda_kernels.cuh"

namespace gh {
namespace plans {

using namespace kernels;

/* Up to this many counters, copies per block; above, one copy per large block: at 16,384 copies read
   92 % of the ceiling, one copy 95 %; at 32,768 43 against 95 % (docs/performance.md#what-the-kernel-choices-rest-on). */
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
 * search on constant input.  The time form was kept off
 * them while its every value took 128-bit arithmetic; since most values
 * take one multiplication (time_bucket.h) clusters of 16 read 38 % at
 * 1,000,000 buckets against global atomics' 21 %.  The thresholds'
 * index, while every value read L2 for its cell, was faster through global
 * atomics (10.8 against 8.1 % at 1,000,000); with its segments' lines
 * answering most values from shared memory, clusters of 16 read 27.9 %
 * against 20.9 % (docs/performance.md#what-the-kernel-choices-rest-on).
 */
constexpr bool kClustersForThresholds = false;
template <typename Binner> constexpr bool clusters_for(const Binner &) { return true; }

/*
 * Steps a round on the cluster path at most (kernel_cluster_steps.cuh
 * allows kMaxClusterSteps), and steps of input prefetched into L2 ahead
 * of the loads (0: none); KernelLimits may override both (benchmarks, tests).
 * Every shape was fastest at the most steps that fit (a
 * cap of 3 lost 1-2 % where 4 fit), and one step of prefetch gained 6-8 %
 * on uniform input and 9-12 % on constant input; two steps were no better
 * for float8 and 17-34 % slower for grouped histograms (their group numbers
 * too: more than L2 keeps), four worse everywhere (docs/performance.md#what-the-kernel-choices-rest-on).
 */
constexpr int32_t kClusterSteps = kMaxClusterSteps;
constexpr int32_t kClusterPrefetch = 1;

/* Thresholds: all of them in shared memory up to this many, else the search tree's top levels. */
constexpr int32_t kAllThresholdsUpTo = 4096;

/* Shared memory for a block: the binner's table, then `copies` copies of the counters. */
size_t shared_bytes(int32_t counters, int copies, size_t table_bytes);
/* Copies of the counters per block: up to one per warp, within a quarter of the SM's shared memory. */
int shared_copies(int32_t counters, size_t table_bytes, const KernelLimits &limits);

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

ClusterShape cluster_shape(int32_t blocks, int32_t per_block, size_t table_bytes, bool forced,
                           const KernelLimits &limits);

/*
 * The plan for `slots` counters with a binner table of table_bytes in every
 * block.  `clusters`: whether the engine takes the cluster path for this
 * kind (forced, every kind does).
 */
KernelPlan plan_for(int32_t slots, size_t sample_bytes, size_t table_bytes, const KernelLimits &limits,
                    bool clusters);

/* The thresholds' plan, and the levels of their search tree in shared memory (0: all of them there). */
KernelPlan plan_thresholds(int32_t count, const KernelLimits &limits, int32_t *levels);

} // namespace plans
} // namespace gh

#endif /* GH_KERNEL_PLANS_CUH */
