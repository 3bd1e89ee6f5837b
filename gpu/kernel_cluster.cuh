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
 * speed of global atomics (test/gpu/RUNS.md, run 39).  It is routed
 * instead: the reader appends the cell's index within its owner's slice to
 * an outbox in its own shared memory, one per owner, and after a cluster
 * barrier each owner reads its entries from every outbox with 16-byte
 * loads of distributed shared memory and adds them into its own counters.
 * Only the owner ever touches its counters.
 *
 * Rounds.  Each round a thread bins 8 values; round k writes outbox k % 2
 * while the owners read outbox (k - 1) % 2, so one cluster barrier per
 * round suffices, and the barrier's wait is placed after the binning of
 * the next round's values, which hides it:
 *
 *   route(k) -> arrive -> bin(k + 1), load(k + 2) -> wait -> pull(k) -> __syncthreads
 *
 * Outbox k % 2 is written again in round k + 2, after the wait of round
 * k + 1, which every thread of the cluster reaches only after its pull(k).
 *
 * Exactness.  A run of equal buckets in a thread (kernel_loops.cuh) of more
 * than one value, an out-of-range group or NaN, the few values before the
 * first and after the last 16-byte vector, and an entry that finds its
 * outbox full (skewed input) go straight to the 64-bit device counters; so
 * do the flushes.  Every entry routed is one value.  A 16-bit counter is
 * added to only by its owner's threads, between block barriers, at most
 * kClusterRound + 1 values in the routing interval (its own block's values)
 * and at most (C - 1) * capacity <= kRound in the pull interval, so the
 * kernel_block.cuh argument holds as it is: each counter starts every
 * interval below kCarry, the one add that reaches kCarry moves kCarry to
 * the device counter before the next barrier, and none exceeds 65,535.
 * Outbox counters keep counting past the capacity; owners read at most the
 * capacity.
 */
#ifndef GH_KERNEL_CLUSTER_CUH
#define GH_KERNEL_CLUSTER_CUH

#include "kernel_block.cuh"

namespace gh {
namespace kernels {

constexpr int kMaxCluster = 16;          /* non-portable on sm_90; 8 is portable */
constexpr int kClusterValues = 8;        /* values a thread bins per round */
constexpr int kClusterRound = kBlockThreads * kClusterValues; /* values a block bins per round */
/* outbox counts [2][16], pull starts [17] and counts [16]: 65 words, padded to 16 bytes */
constexpr size_t kClusterHeader = (sizeof(uint32_t) * (2 * kMaxCluster + 2 * kMaxCluster + 1) + 15) / 16 * 16;

/* How a cluster's blocks share the counters; computed on the host (cuda_kernels.cu). */
struct ClusterLayout {
    int32_t blocks;    /* C, a power of two from 2 to kMaxCluster */
    int32_t log2_blocks;
    int32_t per_block; /* P, even: counters each block owns */
    int32_t capacity;  /* entries an outbox holds per owner and round, a multiple of 4 */
    float inverse;     /* 1 / per_block, for the owner's guess (corrected exactly) */
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
           sizeof(uint32_t) * 2 * static_cast<size_t>(blocks) * static_cast<size_t>(capacity);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* The shared memory address `p` of this block, as block `rank` of the cluster holds it. */
template <typename P> __device__ __forceinline__ P *in_block(P *p, uint32_t rank)
{
    return static_cast<P *>(__cluster_map_shared_rank(const_cast<void *>(static_cast<const void *>(p)), rank));
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
    constexpr int kVectors = kClusterValues / kPer; /* 16-byte loads per thread and round */
    unsigned char *smem = dynamic_shared();
    const size_t table = table_space(binner.table_bytes());
    uint32_t *out_count = reinterpret_cast<uint32_t *>(smem + table); /* [2][kMaxCluster] */
    uint32_t *in_start = out_count + 2 * kMaxCluster;                   /* [kMaxCluster + 1], in vectors */
    uint32_t *in_count = in_start + kMaxCluster + 1;                    /* [kMaxCluster] */
    uint32_t *words = reinterpret_cast<uint32_t *>(smem + cluster_counter_offset(binner.table_bytes()));
    uint32_t *outbox =
        reinterpret_cast<uint32_t *>(smem + cluster_outbox_offset(binner.table_bytes(), layout.per_block));
    const uint32_t nblocks = static_cast<uint32_t>(layout.blocks);
    const uint32_t me = __clusterRelativeBlockRank();
    const int32_t P = layout.per_block, Q = layout.capacity;
    const int64_t first = static_cast<int64_t>(me) * P;

    binner.attach(smem);
    for (int32_t i = threadIdx.x; i < P / 2; i += kBlockThreads)
        words[i] = 0;
    if (threadIdx.x < 2 * kMaxCluster)
        out_count[threadIdx.x] = 0;
    /* every block of the cluster runs and has zeroed its counts before any reads another's */
    __cluster_barrier_arrive();
    __cluster_barrier_wait();

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
    Vec16<T> next[kVectors];
    auto load = [&](uint32_t s) {
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
            if (v < nvec)
                next[u] = load16(body + static_cast<size_t>(v) * kPer);
        }
    };
    constexpr int32_t kNone = INT32_MIN; /* no value at this place: past the end */
    int32_t bucket[kClusterValues];
    auto bin = [&](uint32_t s) { /* the values of `next`, loaded for round s */
#pragma unroll
        for (int u = 0; u < kVectors; u++) {
            const uint32_t v = tid + s + u * nthreads;
#pragma unroll
            for (int k = 0; k < kPer; k++)
                bucket[u * kPer + k] =
                    v < nvec ? binner(next[u].v[k], head + static_cast<size_t>(v) * kPer + k) : kNone;
        }
    };

    Run run;
    /* hands one value of another block's cells to outbox `box` (warp-wide: every lane calls it) */
    auto route = [&](bool wanted, uint32_t owner, uint32_t local, int box) {
        const unsigned want = __ballot_sync(0xffffffffu, wanted);
        if (want == 0)
            return;
        /* the lanes with the same owner: one ballot per bit of the owner's rank */
        unsigned peers = want;
        for (int32_t bit = 0; bit < layout.log2_blocks; bit++) {
            const bool set = (owner >> bit) & 1;
            const unsigned m = __ballot_sync(0xffffffffu, set);
            peers &= set ? m : ~m;
        }
        const unsigned lane = threadIdx.x & 31;
        const int leader = wanted ? __ffs(peers) - 1 : static_cast<int>(lane);
        uint32_t base = 0;
        if (wanted && leader == static_cast<int>(lane))
            base = atomicAdd(&out_count[box * kMaxCluster + owner], static_cast<uint32_t>(__popc(peers)));
        base = __shfl_sync(0xffffffffu, base, leader);
        if (wanted) {
            const uint32_t slot = base + __popc(peers & ((1u << lane) - 1));
            if (slot < static_cast<uint32_t>(Q))
                outbox[(static_cast<size_t>(box) * nblocks + owner) * Q + slot] = local;
            else /* full: skewed input */
                global_add(static_cast<int32_t>(static_cast<int64_t>(owner) * P + local), 1);
        }
    };
    /* the owner and index in it of cell b (b < blocks * P < 2^31): a float guess, corrected */
    auto split = [&](int32_t b, uint32_t &owner, uint32_t &local) {
        int32_t o = static_cast<int32_t>(static_cast<float>(b) * layout.inverse);
        int32_t r = b - o * P;
        if (r < 0) {
            o--;
            r += P;
        } else if (r >= P) {
            o++;
            r -= P;
        }
        owner = static_cast<uint32_t>(o);
        local = static_cast<uint32_t>(r);
    };

    uint32_t s = 0;
    load(0);
    bin(0);
    load(step);
    for (int box = 0; cluster_tid + s < nvec; s += step, box ^= 1) {
        /* route this round's buckets, run by run */
#pragma unroll
        for (int j = 0; j < kClusterValues; j++) {
            bool wanted = false;
            uint32_t owner = 0, local = 0;
            const int32_t b = bucket[j];
            if (b != kNone) {
                if (b == run.bucket) {
                    run.count++;
                } else {
                    if (run.count == 1 && run.bucket >= 0) {
                        split(run.bucket, owner, local);
                        if (owner == me)
                            local_add(local);
                        else
                            wanted = true;
                    } else if (run.count != 0) {
                        global_add(run.bucket, run.count);
                    }
                    run.bucket = b;
                    run.count = 1;
                }
            }
            route(wanted, owner, local, box);
        }
        __cluster_barrier_arrive(); /* release: this round's outbox is written */
        bin(s + step);
        load(s + 2 * step);
        __cluster_barrier_wait(); /* acquire: every block's outbox of this round */

        /* outbox box ^ 1 is read by nobody now (every pull of the round before is done) */
        if (threadIdx.x < kMaxCluster)
            out_count[(box ^ 1) * kMaxCluster + threadIdx.x] = 0;
        /* pull: the entries for this block from every block's outbox `box` */
        if (threadIdx.x < 32) {
            const uint32_t src = threadIdx.x;
            uint32_t c = 0;
            if (src < nblocks && src != me) {
                c = *in_block(&out_count[box * kMaxCluster + me], src);
                c = c < static_cast<uint32_t>(Q) ? c : static_cast<uint32_t>(Q);
            }
            uint32_t vecs = (c + 3) / 4, sum = vecs;
#pragma unroll
            for (int d = 1; d < 32; d *= 2) { /* inclusive scan over the lanes */
                const uint32_t up = __shfl_up_sync(0xffffffffu, sum, d);
                if (static_cast<int>(src) >= d)
                    sum += up;
            }
            if (src < nblocks) {
                in_start[src] = sum - vecs;
                in_count[src] = c;
            }
            if (src == nblocks - 1)
                in_start[nblocks] = sum;
        }
        __syncthreads();
        const uint32_t total = in_start[nblocks];
        const uint4 *box_of = reinterpret_cast<const uint4 *>(outbox + (static_cast<size_t>(box) * nblocks + me) * Q);
        constexpr int kPullAhead = 2; /* remote loads in flight per thread */
        for (uint32_t v0 = threadIdx.x; v0 < total; v0 += kPullAhead * kBlockThreads) {
            uint4 e[kPullAhead];
            uint32_t left[kPullAhead];
#pragma unroll
            for (int u = 0; u < kPullAhead; u++) { /* all loads first: their latency overlaps */
                const uint32_t v = v0 + u * kBlockThreads;
                left[u] = 0;
                if (v < total) {
                    uint32_t lo = 0, hi = nblocks; /* the last source whose start <= v */
                    while (hi - lo > 1) {
                        const uint32_t mid = (lo + hi) / 2;
                        if (in_start[mid] <= v)
                            lo = mid;
                        else
                            hi = mid;
                    }
                    const uint32_t at = v - in_start[lo];
                    left[u] = in_count[lo] - 4 * at; /* its entries from this vector on, at least 1 */
                    e[u] = in_block(box_of, lo)[at];
                }
            }
#pragma unroll
            for (int u = 0; u < kPullAhead; u++) {
                if (left[u] > 0)
                    local_add(e[u].x);
                if (left[u] > 1)
                    local_add(e[u].y);
                if (left[u] > 2)
                    local_add(e[u].z);
                if (left[u] > 3)
                    local_add(e[u].w);
            }
        }
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
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
#else
    __trap(); /* never launched: the host plans clusters only where the device has them */
#endif
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_CLUSTER_CUH */
