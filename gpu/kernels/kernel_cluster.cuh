/*
 * kernel_cluster.cuh: the kernel for histograms with more counters than one
 * block holds, on devices with thread block clusters (sm_90 and later), for
 * cuda_kernels.cu only.
 *
 * A cluster of C blocks (one 1024-thread block per SM) holds one copy of
 * all the counters, 16-bit as in kernel_block.cuh's narrow path: block r
 * owns cells [r * P, (r + 1) * P).  Every block reads its own share of the
 * input and bins each value once (the sliced block path bins every value
 * once per slice).  A value of another block's cells is not added there
 * with a remote atomic: adds into another block's shared memory ran at the
 * speed of global atomics, 17-21 % of the read ceiling (docs/performance.md#what-the-kernel-choices-rest-on).  It is routed
 * instead: the reader appends the cell's index within its owner's slice to
 * an outbox in its own shared memory, one per owner, and after a cluster
 * barrier each owner reads its entries from every outbox with 16-byte
 * loads of distributed shared memory and adds them into its own counters.
 * Only the owner ever touches its counters.  An entry is 16 bits: an
 * owner's outbox has a part for its cells below 65,536 and one for the
 * rest (P <= 131,072), sized in proportion.  A thread takes its slot with
 * a shared atomic on the outbox's count (warp-aggregated slots, by ballots
 * or __match_any_sync, were 20-25 % slower; docs/performance.md#what-the-kernel-choices-rest-on).
 *
 * Rounds.  A step bins 8 values a thread; a round routes `steps` steps
 * (as many as the outboxes hold: fewer barriers) into outbox k % 2 while
 * the owners read outbox (k - 1) % 2, so one cluster barrier per round
 * suffices, and its wait is placed after the binning of the next round's
 * first step, which hides it:
 *
 *   route(k) -> arrive -> bin, load ahead -> wait -> pull(k) -> __syncthreads
 *
 * Outbox k % 2 is written again in round k + 2, after the wait of round
 * k + 1, which every thread of the cluster reaches only after its pull(k).
 *
 * The kernel below is that line, with the barriers before and after the
 * rounds; its steps are ClusterAgent's, in kernel_cluster_steps.cuh with
 * the layout of shared memory, each inlined and none with a barrier of
 * its own.
 *
 * Prefetch.  A thread's loads run one step ahead of its binning, and every
 * round all blocks of the cluster wait for each other: on constant input,
 * where routing costs nothing, the path read at 63-67 % of the read ceiling
 * (docs/performance.md#what-the-kernel-choices-rest-on) while one block per SM without cluster barriers reads
 * at 94 %.  With layout.prefetch = d > 0, kVectors threads of each block
 * (four for float8) ask the copy engine to bring the block's share of step
 * s + d into L2 (cp.async.bulk.prefetch.L2, 16 KB a request; a grouped
 * binner's group numbers too) when its threads load step s, so the loads
 * find L2 and the memory keeps reading through the barriers.  One step ahead is the
 * engine's choice (kernel_plans.cuh, kClusterPrefetch: 6-12 % faster,
 * docs/performance.md#what-the-kernel-choices-rest-on); further ahead the prefetched data outgrew what L2 kept.  A
 * prefetch is a hint: it changes no count, and it names only bytes of the
 * input.
 *
 * Exactness.  A run of equal buckets in a thread (kernel_loops.cuh) of more
 * than one value, an out-of-range group or NaN, the few values before the
 * first and after the last 16-byte vector, and an entry that finds its
 * outbox full (skewed input) go straight to the 64-bit device counters; so
 * do the flushes.  Every entry routed is one value.  A 16-bit counter is
 * added to only by its owner's threads, between block barriers: at most
 * steps * 8 values a thread (<= kRound a block) in the routing interval,
 * and at most (C - 1) * capacity <= kRound in the pull interval, so the
 * kernel_block.cuh argument holds as it is: each counter starts every
 * interval below kCarry, the one add that reaches kCarry moves kCarry to
 * the device counter before the next barrier, and none exceeds 65,535.
 * Outbox counts keep counting past the capacity; owners read at most the
 * capacity.
 */
#ifndef GH_KERNEL_CLUSTER_CUH
#define GH_KERNEL_CLUSTER_CUH

#include "kernel_cluster_steps.cuh"

namespace gh {
namespace kernels {

template <typename T, typename Binner>
__global__ void __launch_bounds__(kBlockThreads, 1)
    histogram_cluster(const T *__restrict__ values, size_t n, Binner binner, ClusterLayout layout,
                      unsigned long long *__restrict__ counts, int *__restrict__ flags)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using Agent = ClusterAgent<T, Binner>;
    Agent agent(binner, layout, counts);
    /*
     * The block's counters and outbox counts to zero.  Here, not a step:
     * moved into one (inlined all the same), this loop compiled otherwise
     * after SingleBinner's attach().
     */
    for (int32_t i = threadIdx.x; i < agent.P / 2; i += kBlockThreads)
        agent.words[i] = 0;
    if (threadIdx.x < 4 * kMaxCluster)
        agent.out_count[threadIdx.x] = 0;
    /* every block of the cluster runs and has zeroed its counts before any reads another's */
    cluster_arrive();
    cluster_wait();
    agent.bin_outside_vectors(values, n);

    /*
     * Rounds: route `steps` steps into outbox `box`, arrive, bin the next
     * round's first step, wait, pull.  bucket holds the step at s, next
     * the step after it.
     */
    typename Agent::Loaded next;
    typename Agent::Buckets bucket;
    uint32_t s = 0;
    agent.prefetch_start();
    agent.load(next, 0);
    agent.bin(bucket, next, 0);
    agent.load(next, agent.step);
    for (int box = 0; agent.has_step(s); box ^= 1) {
        s = agent.route_round(bucket, next, s, box);
        cluster_arrive(); /* release: this round's outbox is written */
        agent.bin(bucket, next, s);
        agent.load(next, s + agent.step);
        cluster_wait(); /* acquire: every block's outbox of this round */
        /* outbox box ^ 1 is read by nobody now (every pull of the round before is done) */
        agent.clear_outbox(box ^ 1);
        agent.pull(box);
        __syncthreads(); /* pulls done before the next round routes (counts, and the 16-bit bound) */
    }
    agent.finish(flags);
    agent.flush();
    /* no block leaves while another may still read its outboxes */
    cluster_arrive();
    cluster_wait();
#else
    __trap(); /* never launched: the host plans clusters only where the device has them */
#endif
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_CLUSTER_CUH */
