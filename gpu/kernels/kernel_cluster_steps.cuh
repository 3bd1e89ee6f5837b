/*
 * kernel_cluster_steps.cuh: the cluster kernel's shared memory and the
 * steps it is made of, for kernel_cluster.cuh only.  They are apart from
 * the kernel, as CUB keeps an agent apart from its kernel entry, so that
 * the entry reads as the round it runs, barrier by barrier, and the
 * exactness argument at the top of kernel_cluster.cuh can be checked
 * against that one screen.  Why each step is as it is is said there; a
 * step here has no barrier of its own, and every one is inlined, so the
 * kernel compiles as it did when it was one function.
 */
#ifndef GH_KERNEL_CLUSTER_STEPS_CUH
#define GH_KERNEL_CLUSTER_STEPS_CUH

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

/*
 * One thread's part of the cluster kernel: what it knows, and the steps
 * the entry (histogram_cluster) runs between its barriers.  The entry
 * makes one, and every step is inlined, so that its members are the
 * kernel's registers.  The binner and the layout stay the kernel's
 * parameters (references).  A thread's loaded and binned values are not
 * members but the entry's own arrays, which the steps are handed: in the
 * agent, the copies into them at indices only unrolling makes constant
 * kept the compiler from taking the agent apart into registers until too
 * late (its code grew and spilled).
 */
template <typename T, typename Binner> struct ClusterAgent {
    static_assert(sizeof(T) >= 4, "1-byte samples are counted in shared memory");
    static constexpr int kPer = Vec16<T>::kCount;
    static constexpr int kVectors = kClusterValues / kPer; /* 16-byte loads per thread and step */
    static constexpr int32_t kNone = INT32_MIN;            /* no value at this place: past the end */
    using Loaded = Vec16<T>[kVectors];                     /* the values of a step, as loaded */
    using Buckets = int32_t[kClusterValues];               /* their buckets, or kNone */

    Binner &binner;
    const ClusterLayout &layout;
    unsigned long long *counts;
    uint32_t *out_count; /* [2][kMaxCluster][2] */
    uint32_t *words;     /* the 16-bit counters, two a word */
    uint16_t *outbox;    /* [2][C][capacity] */
    uint32_t nblocks, me;
    int32_t P, Q;
    uint32_t low_part, high_part;
    int64_t first; /* the block's first cell */
    int errors = 0;
    Run run;
    /* Set by bin_outside_vectors().  32-bit positions: a launch bins fewer than 2^31 values (cuda_kernels.cu). */
    uint32_t tid, nthreads, cluster_tid; /* cluster_tid: the cluster's first thread */
    uint32_t head;                       /* values before the first whole vector */
    const T *body;                       /* the values from there */
    uint32_t nvec;                       /* whole vectors in the body */
    uint32_t step;                       /* vectors the grid loads a step */
    uint32_t per_source, source;         /* the pull: threads per block of the cluster, and the block they read */

    /* The block's shared memory; the binner's table is filled. */
    __device__ __forceinline__ ClusterAgent(Binner &binner_, const ClusterLayout &layout_,
                                            unsigned long long *counts_)
        : binner(binner_), layout(layout_), counts(counts_)
    {
        unsigned char *smem = dynamic_shared();
        out_count = reinterpret_cast<uint32_t *>(smem + table_space(binner.table_bytes()));
        words = reinterpret_cast<uint32_t *>(smem + cluster_counter_offset(binner.table_bytes()));
        outbox = reinterpret_cast<uint16_t *>(smem + cluster_outbox_offset(binner.table_bytes(), layout.per_block));
        nblocks = static_cast<uint32_t>(layout.blocks);
        me = __clusterRelativeBlockRank();
        P = layout.per_block;
        Q = layout.capacity;
        low_part = static_cast<uint32_t>(layout.low);
        high_part = static_cast<uint32_t>(Q - layout.low);
        first = static_cast<int64_t>(me) * P;
        binner.attach(smem);
    }

    __device__ __forceinline__ void add_global(int32_t b, uint32_t k)
    {
        if (b < 0)
            errors |= error_bits(b);
        else
            atomicAdd(&counts[b], static_cast<unsigned long long>(k));
    }
    /* one value into the owner's 16-bit counter (kernel_block.cuh says why it cannot overflow) */
    __device__ __forceinline__ void add_local(uint32_t local)
    {
        const uint32_t shift = (local & 1) * 16;
        unsigned int *word = &words[local >> 1];
        const uint32_t before = (atomicAdd(word, 1u << shift) >> shift) & 0xffffu;
        if (before == kCarry - 1) {
            atomicSub(word, kCarry << shift);
            atomicAdd(&counts[first + local], static_cast<unsigned long long>(kCarry));
        }
    }

    /*
     * Where the input's whole 16-byte vectors lie, and the few values
     * outside them straight to the device counters.  These members (and
     * the pull's share of threads) are set here, after the first cluster
     * barrier, rather than in the constructor: so placed, the kernel
     * compiles to the code it had as one function.
     */
    __device__ __forceinline__ void bin_outside_vectors(const T *values, size_t n)
    {
        tid = blockIdx.x * kBlockThreads + threadIdx.x;
        nthreads = gridDim.x * kBlockThreads;
        cluster_tid = (blockIdx.x - me) * kBlockThreads;
        head = static_cast<uint32_t>((16 - (reinterpret_cast<uintptr_t>(values) & 15)) % 16 / sizeof(T));
        if (head > n)
            head = static_cast<uint32_t>(n);
        body = values + head;
        nvec = static_cast<uint32_t>((n - head) / kPer);
        const size_t tail_start = head + static_cast<size_t>(nvec) * kPer;
        if (tid < head)
            add_global(binner(values[tid], tid), 1);
        if (tail_start + tid < n)
            add_global(binner(values[tail_start + tid], tail_start + tid), 1);
        step = kVectors * nthreads;
        per_source = kBlockThreads / nblocks;
        source = threadIdx.x / per_source;
    }

    /* the block's share of the step at s into L2: kVectors runs of kBlockThreads vectors, one thread each */
    __device__ __forceinline__ void prefetch(uint64_t s)
    {
        if (threadIdx.x >= kVectors)
            return;
        const uint64_t from = uint64_t(blockIdx.x) * kBlockThreads + s + uint64_t(threadIdx.x) * nthreads;
        if (from >= nvec)
            return;
        const uint64_t count = min(from + kBlockThreads, uint64_t(nvec)) - from;
        prefetch_l2(body + from * kPer, static_cast<uint32_t>(count * 16));
        prefetch_beside(binner, head + from * kPer, count * kPer);
    }
    /* the steps before the first that load(0) prefetches */
    __device__ __forceinline__ void prefetch_start()
    {
        for (int32_t d = 1; d < layout.prefetch; d++)
            prefetch(uint64_t(d) * step);
    }
    /* the step at s into `next`, and the step layout.prefetch ahead of it into L2 */
    __device__ __forceinline__ void load(Loaded &next, uint32_t s)
    {
        if (layout.prefetch > 0)
            prefetch(s + uint64_t(layout.prefetch) * step);
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
            if (v < nvec)
                next[u] = load16(body + static_cast<size_t>(v) * kPer);
        }
    }
    /* the buckets of `next`, loaded for step s */
    __device__ __forceinline__ void bin(Buckets &bucket, const Loaded &next, uint32_t s)
    {
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
#pragma unroll
            for (int k = 0; k < kPer; k++)
                bucket[u * kPer + k] =
                    v < nvec ? binner(next[u].v[k], head + static_cast<size_t>(v) * kPer + k) : kNone;
        }
    }
    /* whether the cluster has vectors at step s: its blocks go round together */
    __device__ __forceinline__ bool has_step(uint32_t s) const { return cluster_tid + s < nvec; }

    /* one value of another block's cells into outbox `box`: its low 16 bits, in the part its 17th bit says */
    __device__ __forceinline__ void route(uint32_t owner, uint32_t local, int box)
    {
        const uint32_t high = local >> 16;
        const uint32_t slot = atomicAdd(&out_count[(box * kMaxCluster + owner) * 2 + high], 1u);
        if (slot < (high ? high_part : low_part))
            outbox[(static_cast<size_t>(box) * nblocks + owner) * Q + (high ? low_part : 0) + slot] =
                static_cast<uint16_t>(local);
        else /* full: skewed input */
            add_global(static_cast<int32_t>(static_cast<int64_t>(owner) * P + local), 1);
    }
    /* the buckets of one step, run by run: a run of one value is routed, a longer one added at once */
    __device__ __forceinline__ void route_step(const Buckets &bucket, int box)
    {
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
                /* the owner of cell b and its index there: exact_divide.h's multiply and shift */
                const uint32_t owner = divide(static_cast<uint32_t>(run.bucket), layout.owner_of);
                const uint32_t local = static_cast<uint32_t>(run.bucket) - owner * static_cast<uint32_t>(P);
                if (owner == me)
                    add_local(local);
                else
                    route(owner, local, box);
            } else if (run.count != 0) {
                add_global(run.bucket, run.count);
            }
            run.bucket = b;
            run.count = 1;
        }
    }
    /*
     * route(k): the round's steps from the one at s into outbox `box`, each
     * but the last followed by binning the next and loading the one after
     * (the last's are the entry's, around its arrive).  Returns the step
     * after the round.
     */
    __device__ __forceinline__ uint32_t route_round(Buckets &bucket, Loaded &next, uint32_t s, int box)
    {
        for (int32_t t = 0; t < layout.steps; t++) {
            route_step(bucket, box);
            s += step;
            if (t + 1 < layout.steps) {
                bin(bucket, next, s);
                load(next, s + step);
            }
        }
        return s;
    }
    /* outbox `box`'s counts back to zero, before a round routes into it again */
    __device__ __forceinline__ void clear_outbox(int box)
    {
        if (threadIdx.x < 2 * kMaxCluster)
            out_count[box * 2 * kMaxCluster + threadIdx.x] = 0;
    }

    /* the pull: this block's entries from every other block's outbox `box`, a share of threads per block */
    __device__ __forceinline__ void pull(int box)
    {
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
                        add_local(base | ((w[q / 2] >> (16 * (q % 2))) & 0xffffu));
            }
        }
    }

    /* the thread's last run, and the error bits it saw */
    __device__ __forceinline__ void finish(int *flags)
    {
        run.finish([&](int32_t b, uint32_t k) { add_global(b, k); });
        if (errors != 0)
            atomicOr(flags, errors);
    }
    /* the block's 16-bit counters into the 64-bit device counters */
    __device__ __forceinline__ void flush()
    {
        for (int32_t i = threadIdx.x; i < P / 2; i += kBlockThreads) {
            const unsigned int w = words[i];
            for (int32_t half = 0; half < 2; half++) {
                const unsigned int c = (w >> (16 * half)) & 0xffffu;
                if (c != 0)
                    atomicAdd(&counts[first + 2 * i + half], static_cast<unsigned long long>(c));
            }
        }
    }
};
#endif

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_CLUSTER_STEPS_CUH */
