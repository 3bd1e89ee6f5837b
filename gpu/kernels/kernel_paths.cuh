/*
 * kernel_paths.cuh: the histogram kernels, one per way of counting, for
 * cuda_kernels.cu only (which picks one per launch and sizes its grid);
 * the page kernel (kernel_pages.cuh) shares its shared memory layout and
 * error bits.
 *
 *   histogram_shared   few counters: each block keeps copies of all of
 *                      them in shared memory, one per group of warps, so
 *                      that skewed or constant input does not pile every
 *                      atomic onto one address
 *   histogram_block    more counters (kernel_block.cuh): one copy per large
 *                      block, 32- or 16-bit, in slices if need be
 *   histogram_global   more counters than that: 64-bit atomics in device
 *                      memory, one per run of equal buckets in a thread
 *
 * Shared memory counters are 32-bit and flushed once per block, non-zero
 * ones only, into the 64-bit device counters; a launch bins fewer than
 * 2^31 values (cuda_kernels.cu splits larger inputs), so they cannot
 * overflow.  Each kernel ORs the negative codes its binner returned
 * (1: a NaN, 2: a group number out of range) into *flags.
 */
#ifndef GH_KERNEL_PATHS_CUH
#define GH_KERNEL_PATHS_CUH

#include "kernel_binners.cuh"
#include "kernel_loops.cuh"

namespace gh {
namespace kernels {

constexpr int kThreads = 256; /* histogram_shared and histogram_global */
constexpr int kWarps = kThreads / 32;

/*
 * Counters per block copy: the buckets, or for 1-byte samples the 256 byte
 * values themselves (each maps to one bucket, so the buckets are computed
 * once per byte value at the end instead of once per sample).
 */
template <typename T>
__host__ __device__ constexpr int shared_slots(int32_t slots)
{
    return sizeof(T) == 1 ? 256 : slots;
}

/* The binner's table comes first in shared memory, then the counters, 16-byte aligned. */
__host__ __device__ inline size_t table_space(size_t table_bytes)
{
    return (table_bytes + 15) / 16 * 16;
}

/* The error bits of a negative bucket: kNaNBucket (-1) is 1, kBadGroupBucket (-2) is 2. */
__device__ __forceinline__ int error_bits(int32_t b) { return -b; }

template <typename T, typename Binner>
__global__ void __launch_bounds__(kThreads)
    histogram_shared(const T *__restrict__ values, size_t n, Binner binner, int copies,
                     unsigned long long *__restrict__ counts, int *__restrict__ flags)
{
    unsigned int *block_counts =
        reinterpret_cast<unsigned int *>(dynamic_shared() + table_space(binner.table_bytes()));
    binner.attach(dynamic_shared());
    const int slots = shared_slots<T>(binner.slots());
    const int stride = slots | 1; /* odd: the copies start in different banks */
    for (int i = threadIdx.x; i < copies * stride; i += blockDim.x)
        block_counts[i] = 0;
    __syncthreads();

    unsigned int *mine = block_counts + (threadIdx.x / 32 % copies) * stride;
    const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t nthreads = static_cast<size_t>(gridDim.x) * blockDim.x;
    int errors = 0;
    if constexpr (sizeof(T) == 1) {
        for_each_value(values, n, tid, nthreads, [&](T x, size_t) { atomicAdd(&mine[x], 1u); });
    } else {
        for_each_value(values, n, tid, nthreads, [&](T x, size_t i) {
            int32_t b = binner(x, i);
            if (b < 0)
                errors |= error_bits(b);
            else
                atomicAdd(&mine[b], 1u);
        });
    }
    if (errors != 0)
        atomicOr(flags, errors);
    __syncthreads();

    for (int slot = threadIdx.x; slot < slots; slot += blockDim.x) {
        unsigned int sum = 0;
        for (int c = 0; c < copies; c++)
            sum += block_counts[c * stride + slot];
        if (sum == 0)
            continue;
        int32_t b = sizeof(T) == 1 ? binner(static_cast<double>(slot), 0) : slot;
        atomicAdd(&counts[b], static_cast<unsigned long long>(sum));
    }
}

template <typename T, typename Binner>
__global__ void __launch_bounds__(kThreads)
    histogram_global(const T *__restrict__ values, size_t n, Binner binner,
                     unsigned long long *__restrict__ counts, int *__restrict__ flags)
{
    binner.attach(dynamic_shared());
    __syncthreads();
    const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t nthreads = static_cast<size_t>(gridDim.x) * blockDim.x;
    int errors = 0;
    auto add = [&](int32_t b, uint32_t k) {
        if (b < 0)
            errors |= error_bits(b);
        else
            atomicAdd(&counts[b], static_cast<unsigned long long>(k));
    };
    Run run;
    for_each_value(values, n, tid, nthreads, [&](T x, size_t i) { run.push(binner(x, i), add); });
    run.finish(add);
    if (errors != 0)
        atomicOr(flags, errors);
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_PATHS_CUH */
