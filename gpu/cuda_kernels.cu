/*
 * cuda_kernels.cu: the histogram kernels.
 *
 * The common path keeps block-local 32-bit counters in shared memory, one
 * copy per group of warps so that skewed or constant input does not pile
 * every atomic onto one address, reads the input with 16-byte loads, four
 * in flight per thread, and at the end adds each non-zero bucket once into
 * the 64-bit device counters with a global atomic.  When nbins + 2 counters
 * do not fit in shared memory, a second kernel counts with global atomics,
 * one per run of equal buckets within a warp: slower, but correct up to
 * kMaxBins.
 *
 * The bucket of each value is the shared width_bucket() of bucket.h, whose
 * device arithmetic uses explicitly rounded intrinsics; the file is also
 * compiled with --fmad=false.
 */
#include "cuda_kernels.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4; /* 16-byte loads in flight per thread */

template <bool Ascending, BucketRule Rule>
__device__ __forceinline__ int32_t bucket_of(double x, double lo, double hi, int32_t nbins)
{
    BucketSpec s{lo, hi, nbins, Rule};
    return Ascending ? bucket_ascending(x, s) : bucket_descending(x, s);
}

/* 16 bytes of samples, as one vector load. */
template <typename T> struct Vec16 {
    static constexpr int kCount = 16 / sizeof(T);
    union {
        uint4 raw;
        T v[kCount];
    };
};

template <typename T>
__device__ __forceinline__ Vec16<T> load16(const T *p)
{
    Vec16<T> out;
    out.raw = __ldg(reinterpret_cast<const uint4 *>(p));
    return out;
}

/* Runs count(x) over this thread's share of values: 16-byte loads over the aligned body. */
template <typename T, typename Count>
__device__ __forceinline__ void for_each_value(const T *values, size_t n, Count count)
{
    constexpr int kPer = Vec16<T>::kCount;
    size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t nthreads = static_cast<size_t>(gridDim.x) * blockDim.x;

    /* head: values before the first 16-byte boundary */
    size_t head = (16 - (reinterpret_cast<uintptr_t>(values) & 15)) % 16 / sizeof(T);
    if (head > n)
        head = n;
    if (tid < head)
        count(values[tid]);
    const T *body = values + head;
    size_t nvec = (n - head) / kPer;

    size_t i = tid;
    for (; i + (kUnroll - 1) * nthreads < nvec; i += kUnroll * nthreads) {
        Vec16<T> v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = load16(body + (i + u * nthreads) * kPer);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
#pragma unroll
            for (int k = 0; k < kPer; k++)
                count(v[u].v[k]);
    }
    for (; i < nvec; i += nthreads) {
        Vec16<T> v = load16(body + i * kPer);
#pragma unroll
        for (int k = 0; k < kPer; k++)
            count(v.v[k]);
    }
    /* tail: what is left after the last whole vector */
    size_t tail_start = head + nvec * kPer;
    if (tail_start + tid < n)
        count(values[tail_start + tid]);
}

/*
 * Counters per block copy: the buckets, or for 1-byte samples the 256 byte
 * values themselves (each maps to one bucket, so the buckets are computed
 * once per byte value at the end instead of once per sample).
 */
template <typename T>
__host__ __device__ constexpr int shared_slots(int32_t nbins)
{
    return sizeof(T) == 1 ? 256 : nbins + 2;
}

template <typename T, bool Ascending, BucketRule Rule>
__global__ void __launch_bounds__(kThreads)
    histogram_shared(const T *__restrict__ values, size_t n, double lo, double hi, int32_t nbins,
                     int copies, unsigned long long *__restrict__ counts, int *__restrict__ nan_flag)
{
    extern __shared__ unsigned int block_counts[];
    const int slots = shared_slots<T>(nbins);
    const int stride = slots | 1; /* odd: the copies start in different banks */
    for (int i = threadIdx.x; i < copies * stride; i += blockDim.x)
        block_counts[i] = 0;
    __syncthreads();

    unsigned int *mine = block_counts + (threadIdx.x / 32 % copies) * stride;
    bool saw_nan = false;
    if constexpr (sizeof(T) == 1) {
        for_each_value(values, n, [&](T x) { atomicAdd(&mine[x], 1u); });
    } else {
        for_each_value(values, n, [&](T x) {
            int32_t b = bucket_of<Ascending, Rule>(static_cast<double>(x), lo, hi, nbins);
            if (b < 0)
                saw_nan = true;
            else
                atomicAdd(&mine[b], 1u);
        });
    }
    if (__syncthreads_or(saw_nan) && threadIdx.x == 0)
        *nan_flag = 1;

    for (int slot = threadIdx.x; slot < slots; slot += blockDim.x) {
        unsigned int sum = 0;
        for (int c = 0; c < copies; c++)
            sum += block_counts[c * stride + slot];
        if (sum == 0)
            continue;
        int32_t b = sizeof(T) == 1 ? bucket_of<Ascending, Rule>(static_cast<double>(slot), lo, hi, nbins) : slot;
        atomicAdd(&counts[b], static_cast<unsigned long long>(sum));
    }
}

template <typename T, bool Ascending, BucketRule Rule>
__global__ void __launch_bounds__(kThreads)
    histogram_global(const T *__restrict__ values, size_t n, double lo, double hi, int32_t nbins,
                     unsigned long long *__restrict__ counts, int *__restrict__ nan_flag)
{
    bool saw_nan = false;
    for_each_value(values, n, [&](T x) {
        int32_t b = bucket_of<Ascending, Rule>(static_cast<double>(x), lo, hi, nbins);
        if (b < 0) {
            saw_nan = true;
            return;
        }
        /*
         * Lanes that hit the same bucket add together, through their lowest
         * lane: on skewed or constant input that divides the atomics on one
         * address by up to 32.  (Lanes that diverged in for_each_value's head
         * or tail are simply not in the mask.)
         */
        unsigned active = __activemask();
        unsigned same = __match_any_sync(active, b);
        if ((threadIdx.x & 31) == __ffs(same) - 1)
            atomicAdd(&counts[b], static_cast<unsigned long long>(__popc(same)));
    });
    if (saw_nan)
        *nan_flag = 1;
}

template <typename T>
size_t shared_bytes(int32_t nbins, int copies)
{
    return sizeof(unsigned int) * static_cast<size_t>(copies) * (shared_slots<T>(nbins) | 1);
}

/* Copies of the counters per block: up to one per warp, within a quarter of the SM's shared memory. */
template <typename T>
int shared_copies(int32_t nbins, const KernelLimits &limits)
{
    int copies = kWarps;
    while (copies > 1 && shared_bytes<T>(nbins, copies) > static_cast<size_t>(limits.max_shared_per_sm) / 4)
        copies /= 2;
    return copies;
}

/*
 * Blocks per SM for a kernel at a given dynamic shared memory size, asked of
 * the runtime once per kernel and size and remembered: per-batch launches
 * should cost a launch, not three API calls.  Keyed by the kernel itself
 * (every instantiation has its own attributes).  A backend process is
 * single-threaded, and there are a few dozen kernels at most.
 */
struct LaunchCache {
    const void *kernel;
    size_t smem;            /* the size `blocks` was computed for */
    int blocks;
    size_t attribute_smem;  /* the dynamic shared memory limit set so far */
};

template <typename Kernel>
cudaError_t resident_blocks(Kernel kernel, size_t smem, int *blocks)
{
    static LaunchCache cache[64];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    LaunchCache *c = nullptr;
    for (int i = 0; i < used && c == nullptr; i++)
        if (cache[i].kernel == key)
            c = &cache[i];
    if (c == nullptr) {
        if (used == 64)
            return cudaErrorUnknown; /* cannot happen: fewer kernels exist */
        c = &cache[used++];
        *c = LaunchCache{key, static_cast<size_t>(-1), 0, 0};
    }
    if (smem != c->smem) {
        cudaError_t err;
        if (smem > c->attribute_smem) {
            if ((err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(smem))) != cudaSuccess)
                return err;
            c->attribute_smem = smem;
        }
        if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c->blocks, kernel, kThreads, smem)) !=
            cudaSuccess)
            return err;
        c->smem = smem;
    }
    *blocks = c->blocks > 0 ? c->blocks : 1;
    return cudaSuccess;
}

template <typename T, bool Ascending, BucketRule Rule>
cudaError_t launch(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts,
                   int *nan_flag, const KernelLimits &limits, cudaStream_t stream)
{
    /* enough blocks to fill the device, but no more than the data needs */
    size_t per_block = static_cast<size_t>(kThreads) * kUnroll * Vec16<T>::kCount;
    size_t wanted = (n + per_block - 1) / per_block;
    if (wanted == 0)
        wanted = 1;
    int blocks_per_sm = 0;
    cudaError_t err;
    if (shared_bytes<T>(spec.nbins, 1) <= static_cast<size_t>(limits.max_shared_per_block)) {
        int copies = shared_copies<T>(spec.nbins, limits);
        size_t smem = shared_bytes<T>(spec.nbins, copies);
        auto kernel = histogram_shared<T, Ascending, Rule>;
        if ((err = resident_blocks(kernel, smem, &blocks_per_sm)) != cudaSuccess)
            return err;
        size_t full = static_cast<size_t>(limits.multiprocessors) * blocks_per_sm;
        unsigned grid = static_cast<unsigned>(wanted < full ? wanted : full);
        kernel<<<grid, kThreads, smem, stream>>>(values, n, spec.lo, spec.hi, spec.nbins, copies, counts,
                                                 nan_flag);
    } else {
        auto kernel = histogram_global<T, Ascending, Rule>;
        if ((err = resident_blocks(kernel, 0, &blocks_per_sm)) != cudaSuccess)
            return err;
        size_t full = static_cast<size_t>(limits.multiprocessors) * blocks_per_sm;
        unsigned grid = static_cast<unsigned>(wanted < full ? wanted : full);
        kernel<<<grid, kThreads, 0, stream>>>(values, n, spec.lo, spec.hi, spec.nbins, counts, nan_flag);
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t describe_device(int device, KernelLimits *limits)
{
    cudaError_t err;
    if ((err = cudaDeviceGetAttribute(&limits->multiprocessors, cudaDevAttrMultiProcessorCount, device)) ||
        (err = cudaDeviceGetAttribute(&limits->max_shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                      device)) ||
        (err = cudaDeviceGetAttribute(&limits->max_shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      device)))
        return err;
    return cudaSuccess;
}

bool uses_shared_memory(int32_t nbins, const KernelLimits &limits)
{
    return shared_bytes<double>(nbins, 1) <= static_cast<size_t>(limits.max_shared_per_block);
}

template <typename T>
cudaError_t bin_on_device(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts,
                          int *nan_flag, const KernelLimits &limits, cudaStream_t stream)
{
    bool ascending = spec.lo < spec.hi;
    if (spec.rule == BucketRule::pg15)
        return ascending ? launch<T, true, BucketRule::pg15>(values, n, spec, counts, nan_flag, limits, stream)
                         : launch<T, false, BucketRule::pg15>(values, n, spec, counts, nan_flag, limits, stream);
    return ascending ? launch<T, true, BucketRule::pg16>(values, n, spec, counts, nan_flag, limits, stream)
                     : launch<T, false, BucketRule::pg16>(values, n, spec, counts, nan_flag, limits, stream);
}

template cudaError_t bin_on_device<double>(const double *, size_t, const BucketSpec &, unsigned long long *,
                                           int *, const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<float>(const float *, size_t, const BucketSpec &, unsigned long long *,
                                          int *, const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<uint8_t>(const uint8_t *, size_t, const BucketSpec &, unsigned long long *,
                                            int *, const KernelLimits &, cudaStream_t);

} // namespace gh
