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

#include "../formulas/exact_divide.h"
#include "kernel_block.cuh"

namespace gh {
namespace kernels {

constexpr int kMaxCluster = 16;          /* non-portable on sm_90; 8 is portable */
constexpr int kClusterValues = 8;        /* values a thread bins per step */
constexpr int kClusterStep = kBlockThreads * kClusterValues; /* values a block bins per step */
constexpr int kMaxClusterSteps = kRound / kClusterStep;      /* a block routes at most kRound values to itself */
constexpr int32_t kMaxClusterSlice = 131072; /* counters a block owns at most: 16-bit entries in two parts */
constexpr size_t kClusterHeader = sizeof(uint32_t) * 2 * kMaxCluster * 2; /* outbox counts [2][16][2] */

/* How a cluster's blocks share the counters; computed on the host (cuda_kernels.cu). */
struct ClusterLayout {
    int32_t blocks;    /* C, a power of two from 2 to kMaxCluster */
    int32_t per_block; /* P, even, at most kMaxClusterSlice: counters each block owns */
    int32_t capacity;  /* entries an outbox holds per owner and round, a multiple of 8 (16 bytes) */
    int32_t low;       /* of which for the owner's cells below 65,536, a multiple of 8 */
    int32_t steps;     /* steps a round: 1 to kMaxClusterSteps */
    int32_t prefetch;  /* steps of input prefetched into L2 ahead of the loads (0: none) */
    Divisor owner_of;  /* cell / per_block for every cell below blocks * per_block (exact_divide.h) */
};

/* Shared memory of the cluster kernel: table, header, counters (16-byte aligned), two outboxes. */
__host__ __device__ inline size_t cluster_counter_offset(size_t table_bytes)
{
    return table_space(table_bytes) + kClusterHeader;
}
__host__ __device__ inline size_t cluster_outbox_offset(size_t table_bytes, int32_t per_block)
{
    return cluster_counter_offset(table_bytes) + (static_cast<size_t>(per_block) * 2 + 15) / 16 * 16;
}
__host__ __device__ inline size_t cluster_bytes(size_t table_bytes, int32_t per_block, int32_t blocks,
                                                int32_t capacity)
{
    return cluster_outbox_offset(table_bytes, per_block) +
           sizeof(uint16_t) * 2 * static_cast<size_t>(blocks) * static_cast<size_t>(capacity);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* Brings global memory [p, p + bytes) into L2 (p 16-byte aligned, bytes a multiple of 16). */
__device__ __forceinline__ void prefetch_l2(const void *p, uint32_t bytes)
{
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(__cvta_generic_to_global(p)), "r"(bytes)
                 : "memory");
}
/* What a binner reads beside the values, for values [first, first + count): nothing... */
template <typename Binner> __device__ __forceinline__ void prefetch_beside(const Binner &, size_t, size_t) {}
/* ...but a grouped binner's group numbers: the whole 16-byte units inside their range. */
template <bool Ascending, BucketRule Rule>
__device__ __forceinline__ void prefetch_beside(const GroupedBinner<Ascending, Rule> &b, size_t first, size_t count)
{
    const uintptr_t from = (reinterpret_cast<uintptr_t>(b.groups + first) + 15) & ~uintptr_t(15);
    const uintptr_t to = reinterpret_cast<uintptr_t>(b.groups + first + count) & ~uintptr_t(15);
    if (to > from)
        prefetch_l2(reinterpret_cast<const void *>(from), static_cast<uint32_t>(to - from));
}
/* The shared memory address `p` of this block, as block `rank` of the cluster holds it. */
template <typename P> __device__ __forceinline__ P *in_block(P *p, uint32_t rank)
{
    return static_cast<P *>(__cluster_map_shared_rank(const_cast<void *>(static_cast<const void *>(p)), rank));
}
/* The cluster barrier, every thread of a warp together (the warp is converged first). */
__device__ __forceinline__ void cluster_arrive()
{
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait()
{
    __syncwarp();
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
#endif

template <typename T, typename Binner>
__global__ void __launch_bounds__(kBlockThreads, 1)
    histogram_cluster(const T *__restrict__ values, size_t n, Binner binner, ClusterLayout layout,
                      unsigned long long *__restrict__ counts, int *__restrict__ flags)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    static_assert(sizeof(T) >= 4, "1-byte samples are counted in shared memory");
    constexpr int kPer = Vec16<T>::kCount;
    constexpr int kVectors = kClusterValues / kPer; /* 16-byte loads per thread and step */
    unsigned char *smem = dynamic_shared();
    const size_t table = table_space(binner.table_bytes());
    uint32_t *out_count = reinterpret_cast<uint32_t *>(smem + table); /* [2][kMaxCluster][2] */
    uint32_t *words = reinterpret_cast<uint32_t *>(smem + cluster_counter_offset(binner.table_bytes()));
    uint16_t *outbox =
        reinterpret_cast<uint16_t *>(smem + cluster_outbox_offset(binner.table_bytes(), layout.per_block));
    const uint32_t nblocks = static_cast<uint32_t>(layout.blocks);
    const uint32_t me = __clusterRelativeBlockRank();
    const int32_t P = layout.per_block, Q = layout.capacity;
    const uint32_t low_part = static_cast<uint32_t>(layout.low), high_part = static_cast<uint32_t>(Q - layout.low);
    const int64_t first = static_cast<int64_t>(me) * P;

    binner.attach(smem);
    for (int32_t i = threadIdx.x; i < P / 2; i += kBlockThreads)
        words[i] = 0;
    if (threadIdx.x < 4 * kMaxCluster)
        out_count[threadIdx.x] = 0;
    /* every block of the cluster runs and has zeroed its counts before any reads another's */
    cluster_arrive();
    cluster_wait();

    int errors = 0;
    auto global_add = [&](int32_t b, uint32_t k) {
        if (b < 0)
            errors |= error_bits(b);
        else
            atomicAdd(&counts[b], static_cast<unsigned long long>(k));
    };
    /* one value into the owner's 16-bit counter (kernel_block.cuh says why it cannot overflow) */
    auto local_add = [&](uint32_t local) {
        const uint32_t shift = (local & 1) * 16;
        unsigned int *word = &words[local >> 1];
        const uint32_t before = (atomicAdd(word, 1u << shift) >> shift) & 0xffffu;
        if (before == kCarry - 1) {
            atomicSub(word, kCarry << shift);
            atomicAdd(&counts[first + local], static_cast<unsigned long long>(kCarry));
        }
    };

    /* 32-bit positions: a launch bins fewer than 2^31 values (cuda_kernels.cu) */
    const uint32_t tid = blockIdx.x * kBlockThreads + threadIdx.x;
    const uint32_t nthreads = gridDim.x * kBlockThreads;
    const uint32_t cluster_tid = (blockIdx.x - me) * kBlockThreads; /* its first thread */
    uint32_t head = static_cast<uint32_t>((16 - (reinterpret_cast<uintptr_t>(values) & 15)) % 16 / sizeof(T));
    if (head > n)
        head = static_cast<uint32_t>(n);
    const T *body = values + head;
    const uint32_t nvec = static_cast<uint32_t>((n - head) / kPer);
    const size_t tail_start = head + static_cast<size_t>(nvec) * kPer;
    /* the few values outside whole vectors */
    if (tid < head)
        global_add(binner(values[tid], tid), 1);
    if (tail_start + tid < n)
        global_add(binner(values[tail_start + tid], tail_start + tid), 1);

    const uint32_t step = kVectors * nthreads;
    /* the block's share of the step at s into L2: kVectors runs of kBlockThreads vectors, one thread each */
    auto prefetch = [&](uint64_t s) {
        if (threadIdx.x >= kVectors)
            return;
        const uint64_t from = uint64_t(blockIdx.x) * kBlockThreads + s + uint64_t(threadIdx.x) * nthreads;
        if (from >= nvec)
            return;
        const uint64_t count = min(from + kBlockThreads, uint64_t(nvec)) - from;
        prefetch_l2(body + from * kPer, static_cast<uint32_t>(count * 16));
        prefetch_beside(binner, head + from * kPer, count * kPer);
    };
    Vec16<T> next[kVectors];
    auto load = [&](uint32_t s) {
        if (layout.prefetch > 0)
            prefetch(s + uint64_t(layout.prefetch) * step);
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
            if (v < nvec)
                next[u] = load16(body + static_cast<size_t>(v) * kPer);
        }
    };
    constexpr int32_t kNone = INT32_MIN; /* no value at this place: past the end */
    int32_t bucket[kClusterValues];
    auto bin = [&](uint32_t s) { /* the values of `next`, loaded for step s */
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
#pragma unroll
            for (int k = 0; k < kPer; k++)
                bucket[u * kPer + k] =
                    v < nvec ? binner(next[u].v[k], head + static_cast<size_t>(v) * kPer + k) : kNone;
        }
    };

    /* one value of another block's cells into outbox `box`: its low 16 bits, in the part its 17th bit says */
    auto route = [&](uint32_t owner, uint32_t local, int box) {
        const uint32_t high = local >> 16;
        const uint32_t slot = atomicAdd(&out_count[(box * kMaxCluster + owner) * 2 + high], 1u);
        if (slot < (high ? high_part : low_part))
            outbox[(static_cast<size_t>(box) * nblocks + owner) * Q + (high ? low_part : 0) + slot] =
                static_cast<uint16_t>(local);
        else /* full: skewed input */
            global_add(static_cast<int32_t>(static_cast<int64_t>(owner) * P + local), 1);
    };
    /* the owner and index in it of cell b (0 <= b < blocks * P): exact_divide.h's multiply and shift */
    auto split = [&](int32_t b, uint32_t &owner, uint32_t &local) {
        owner = divide(static_cast<uint32_t>(b), layout.owner_of);
        local = static_cast<uint32_t>(b) - owner * static_cast<uint32_t>(P);
    };
    Run run;
    /* the buckets of one step, run by run: a run of one value is routed, a longer one added at once */
    auto route_step = [&](int box) {
#pragma unroll
        for (int j = 0; j < kClusterValues; j++) {
            const int32_t b = bucket[j];
            if (b == kNone)
                continue;
            if (b == run.bucket) {
                run.count++;
                continue;
            }
            if (run.count == 1 && run.bucket >= 0) {
                uint32_t owner, local;
                split(run.bucket, owner, local);
                if (owner == me)
                    local_add(local);
                else
                    route(owner, local, box);
            } else if (run.count != 0) {
                global_add(run.bucket, run.count);
            }
            run.bucket = b;
            run.count = 1;
        }
    };

    /* the pull: this block's entries from every other block's outbox `box`, a share of threads per block */
    const uint32_t per_source = kBlockThreads / nblocks;
    const uint32_t source = threadIdx.x / per_source;
    auto pull = [&](int box) {
        if (source == me)
            return;
        const uint32_t *count = in_block(&out_count[(box * kMaxCluster + me) * 2], source);
        const uint32_t low = min(count[0], low_part), high = min(count[1], high_part);
        const uint32_t low_vectors = (low + 7) / 8;
        /* the two parts' vectors one after the other; each starts on 16 bytes (low_part % 8 == 0) */
        const uint4 *from =
            in_block(reinterpret_cast<const uint4 *>(outbox + (static_cast<size_t>(box) * nblocks + me) * Q), source);
        const uint32_t total = low_vectors + (high + 7) / 8;
        constexpr int kAhead = 2; /* remote loads in flight per thread */
        for (uint32_t v0 = threadIdx.x % per_source; v0 < total; v0 += kAhead * per_source) {
            uint4 e[kAhead];
#pragma unroll
            for (int u = 0; u < kAhead; u++) { /* all loads first: their latency overlaps */
                const uint32_t v = v0 + u * per_source;
                if (v < total)
                    e[u] = from[v < low_vectors ? v : low_part / 8 + (v - low_vectors)];
            }
#pragma unroll
            for (int u = 0; u < kAhead; u++) {
                const uint32_t v = v0 + u * per_source;
                if (v >= total)
                    break;
                const bool in_high = v >= low_vectors;
                const uint32_t left = in_high ? high - 8 * (v - low_vectors) : low - 8 * v; /* >= 1 */
                const uint32_t base = in_high ? 65536u : 0u;
                const uint32_t w[4] = {e[u].x, e[u].y, e[u].z, e[u].w};
#pragma unroll
                for (int q = 0; q < 8; q++)
                    if (left > static_cast<uint32_t>(q))
                        local_add(base | ((w[q / 2] >> (16 * (q % 2))) & 0xffffu));
            }
        }
    };

    /*
     * Round: route `steps` steps into outbox `box`, arrive, bin the next
     * round's first step, wait, pull.  bucket[] holds the step at s.
     */
    uint32_t s = 0;
    for (int32_t d = 1; d < layout.prefetch; d++) /* the steps before the first that load(0) prefetches */
        prefetch(uint64_t(d) * step);
    load(0);
    bin(0);
    load(step);
    for (int box = 0; cluster_tid + s < nvec; box ^= 1) {
        for (int32_t t = 0; t < layout.steps; t++) {
            route_step(box);
            s += step;
            if (t + 1 < layout.steps) {
                bin(s);
                load(s + step);
            }
        }
        cluster_arrive(); /* release: this round's outbox is written */
        bin(s);
        load(s + step);
        cluster_wait(); /* acquire: every block's outbox of this round */
        /* outbox box ^ 1 is read by nobody now (every pull of the round before is done) */
        if (threadIdx.x < 2 * kMaxCluster)
            out_count[(box ^ 1) * 2 * kMaxCluster + threadIdx.x] = 0;
        pull(box);
        __syncthreads(); /* pulls done before the next round routes (counts, and the 16-bit bound) */
    }
    run.finish(global_add);
    if (errors != 0)
        atomicOr(flags, errors);

    for (int32_t i = threadIdx.x; i < P / 2; i += kBlockThreads) {
        const unsigned int w = words[i];
        for (int32_t half = 0; half < 2; half++) {
            const unsigned int c = (w >> (16 * half)) & 0xffffu;
            if (c != 0)
                atomicAdd(&counts[first + 2 * i + half], static_cast<unsigned long long>(c));
        }
    }
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
