/*
 * kernel_block.cuh: the kernel for histograms with more counters than fit
 * in shared memory in several copies per block, for cuda_kernels.cu.
 *
 * One large block per SM (all its warps) holds one copy of the counters
 * in its shared memory: up to about 58,000 32-bit counters, or twice that
 * as 16-bit counters (Narrow).  Where even that is too few, the counters
 * are cut into slices, side by side: block b counts only the buckets of
 * slice b % slices, and the blocks of all slices walk the input in the same
 * order, so that a value read for one slice is in L2 for the others (each
 * slice still computes every value's bucket).  Global atomics top out near
 * 75 billion a second on an H100, a fifth of its read rate in float8
 * values, and adding into another block's shared memory in a cluster
 * (distributed shared memory) was no faster (docs/performance.md#what-the-kernel-choices-rest-on), so
 * counters stay in the block's own shared memory.
 *
 * There is one copy of each counter, so constant input would serialize on
 * it: runs of equal buckets are added once per run (kernel_loops.cuh).
 *
 * 16-bit counters cannot overflow, by construction.  A block adds at most
 * kRound values between two barriers, and kRound <= kCarry = 2^15.  The one
 * add that takes a counter from below kCarry to kCarry or above (atomicAdd
 * returns the old value, so exactly one thread sees it) moves kCarry to the
 * 64-bit device counter and takes it off the 16-bit one before the next
 * barrier.  While that is pending no other add can cross again (the counter
 * stays >= kCarry), so a counter starts every round below kCarry and never
 * exceeds kCarry - 1 + kRound <= 65,535: it never carries into its
 * neighbour in the 32-bit word, and the subtraction never borrows.
 */
#ifndef GH_KERNEL_BLOCK_CUH
#define GH_KERNEL_BLOCK_CUH

#include "kernel_paths.cuh"

namespace gh {
namespace kernels {

/* How a histogram's counters are cut into slices of one block each. */
struct BlockLayout {
    int32_t slices;    /* block b counts slice b % slices */
    int32_t per_block; /* counters in each block's shared memory */
};

constexpr int kBlockThreads = 1024; /* one block per SM: all its warps in one block (512 was slower) */
constexpr uint32_t kCarry = 1u << 15; /* what a 16-bit counter hands to the device counter at a time */
constexpr int kRound = 1 << 15;       /* values a block adds at most between two barriers */

/* Steps of for_each_value_in_rounds per round: at most kRound values for the block. */
template <typename T> __host__ __device__ constexpr int steps_per_round()
{
    constexpr int per_step = kBlockThreads * kUnroll * Vec16<T>::kCount;
    static_assert(per_step <= kRound, "a step of the block must fit in a round");
    return kRound / per_step;
}

template <typename T, typename Binner, bool Narrow>
__global__ void __launch_bounds__(kBlockThreads, 1)
    histogram_block(const T *__restrict__ values, size_t n, Binner binner, BlockLayout layout,
                    unsigned long long *__restrict__ counts, int *__restrict__ flags)
{
    unsigned int *words = reinterpret_cast<unsigned int *>(dynamic_shared() + table_space(binner.table_bytes()));
    const int32_t nwords = Narrow ? (layout.per_block + 1) / 2 : layout.per_block;
    binner.attach(dynamic_shared());
    for (int32_t i = threadIdx.x; i < nwords; i += kBlockThreads)
        words[i] = 0;
    __syncthreads();

    const uint32_t slice = blockIdx.x % static_cast<uint32_t>(layout.slices);
    const uint32_t group = blockIdx.x / static_cast<uint32_t>(layout.slices);
    const uint32_t groups = gridDim.x / static_cast<uint32_t>(layout.slices);
    const int64_t first = static_cast<int64_t>(slice) * layout.per_block;
    /* the blocks of one group, one per slice, read the same values in the same order */
    const size_t block_tid = static_cast<size_t>(group) * kBlockThreads;
    const size_t tid = block_tid + threadIdx.x;
    const size_t nthreads = static_cast<size_t>(groups) * kBlockThreads;

    int errors = 0;
    auto add = [&](int32_t b, uint32_t k) {
        if (b < 0) {
            errors |= error_bits(b);
            return;
        }
        const int64_t local = b - first;
        if (local < 0 || local >= layout.per_block) /* another slice's */
            return;
        if constexpr (Narrow) {
            const uint32_t shift = (static_cast<uint32_t>(local) & 1) * 16;
            unsigned int *word = &words[local >> 1];
            const uint32_t before = (atomicAdd(word, k << shift) >> shift) & 0xffffu;
            if (before < kCarry && before + k >= kCarry) {
                atomicSub(word, kCarry << shift);
                atomicAdd(&counts[first + local], static_cast<unsigned long long>(kCarry));
            }
        } else {
            atomicAdd(&words[local], k);
        }
    };
    Run run;
    auto count = [&](T x, size_t i) { run.push(binner(x, i), add); };
    if constexpr (Narrow) {
        /* a run ends with its round, so that a round adds at most kRound values */
        for_each_value_in_rounds(values, n, tid, block_tid, nthreads, steps_per_round<T>(), count, [&] {
            run.finish(add);
            __syncthreads();
        });
    } else {
        for_each_value(values, n, tid, nthreads, count);
    }
    run.finish(add);
    if (errors != 0)
        atomicOr(flags, errors);
    __syncthreads();

    for (int32_t i = threadIdx.x; i < nwords; i += kBlockThreads) {
        const unsigned int w = words[i];
        if constexpr (Narrow) {
            for (int32_t half = 0; half < 2; half++) {
                const unsigned int v = (w >> (16 * half)) & 0xffffu;
                if (v != 0)
                    atomicAdd(&counts[first + 2 * i + half], static_cast<unsigned long long>(v));
            }
        } else if (w != 0) {
            atomicAdd(&counts[first + i], static_cast<unsigned long long>(w));
        }
    }
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_BLOCK_CUH */
