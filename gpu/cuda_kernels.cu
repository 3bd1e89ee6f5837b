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
 * compiled with --fmad=false.  The same two kernels bin the other kinds of
 * histogram through another binner: int64 values of time histograms
 * (time_bucket.h), and thresholds (threshold_bucket.h), whose binary search
 * reads the thresholds from shared memory, copied there by each block, when
 * they fit in it (about 28,000 on an H100) and from global memory else.
 */
#include "cuda_kernels.cuh"

#include "gpu_backend.h"

#include "threshold_bucket.h"
#include "time_bucket.h"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4; /* 16-byte loads in flight per thread */

/*
 * Binners: what a kernel needs to know to bin one value, one kind of
 * histogram each (histogram_spec.h), passed to the kernel by value.  A
 * binner may keep a table in shared memory (table_bytes() at the start of
 * the block's dynamic shared memory): attach() copies it there, and the
 * kernel synchronises before the first value is binned.
 */
template <bool Ascending, BucketRule Rule> struct FloatBinner {
    double lo, hi;
    int32_t nbins;
    __host__ __device__ int32_t slots() const { return nbins + 2; }
    __host__ __device__ size_t table_bytes() const { return 0; }
    void in_shared_memory(bool) {}
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(double x) const
    {
        BucketSpec s{lo, hi, nbins, Rule};
        return Ascending ? bucket_ascending(x, s) : bucket_descending(x, s);
    }
};

struct Int64Binner {
    Int64Binning binning;
    __host__ __device__ int32_t slots() const { return binning.nbins + 2; }
    __host__ __device__ size_t table_bytes() const { return 0; }
    void in_shared_memory(bool) {}
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(int64_t x) const { return int64_bucket(x, binning); }
};

/* The binary search reads the thresholds from shared memory when they fit, else from global memory. */
struct ThresholdBinner {
    const double *thresholds;
    int32_t count;
    bool in_shared;
    __host__ __device__ int32_t slots() const { return count + 1; }
    __host__ __device__ size_t table_bytes() const { return in_shared ? sizeof(double) * static_cast<size_t>(count) : 0; }
    void in_shared_memory(bool yes) { in_shared = yes; }
    __device__ void attach(unsigned char *smem)
    {
        if (!in_shared)
            return;
        double *table = reinterpret_cast<double *>(smem);
        for (int32_t i = threadIdx.x; i < count; i += blockDim.x)
            table[i] = __ldg(thresholds + i);
        thresholds = table;
    }
    __device__ int32_t operator()(double x) const { return threshold_bucket(x, thresholds, count); }
};

/* The block's dynamic shared memory, one declaration for every kernel. */
__device__ __forceinline__ unsigned char *dynamic_shared()
{
    extern __shared__ __align__(16) unsigned char gh_dynamic_shared[];
    return gh_dynamic_shared;
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
__host__ __device__ constexpr int shared_slots(int32_t slots)
{
    return sizeof(T) == 1 ? 256 : slots;
}

/* The table comes first in shared memory, then the counters, 16-byte aligned. */
inline size_t table_space(size_t table_bytes)
{
    return (table_bytes + 15) / 16 * 16;
}

template <typename T, typename Binner>
__global__ void __launch_bounds__(kThreads)
    histogram_shared(const T *__restrict__ values, size_t n, Binner binner, int copies,
                     unsigned long long *__restrict__ counts, int *__restrict__ nan_flag)
{
    unsigned int *block_counts =
        reinterpret_cast<unsigned int *>(dynamic_shared() + (binner.table_bytes() + 15) / 16 * 16);
    binner.attach(dynamic_shared());
    const int slots = shared_slots<T>(binner.slots());
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
            int32_t b = binner(x);
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
        int32_t b = sizeof(T) == 1 ? binner(static_cast<double>(slot)) : slot;
        atomicAdd(&counts[b], static_cast<unsigned long long>(sum));
    }
}

template <typename T, typename Binner>
__global__ void __launch_bounds__(kThreads)
    histogram_global(const T *__restrict__ values, size_t n, Binner binner,
                     unsigned long long *__restrict__ counts, int *__restrict__ nan_flag)
{
    binner.attach(dynamic_shared());
    __syncthreads();
    bool saw_nan = false;
    for_each_value(values, n, [&](T x) {
        int32_t b = binner(x);
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

/* Shared memory for a block: the binner's table, then `copies` copies of the counters. */
template <typename T>
size_t shared_bytes(int32_t slots, int copies, size_t table_bytes = 0)
{
    return table_space(table_bytes) +
           sizeof(unsigned int) * static_cast<size_t>(copies) * (shared_slots<T>(slots) | 1);
}

/* Copies of the counters per block: up to one per warp, within a quarter of the SM's shared memory. */
template <typename T>
int shared_copies(int32_t slots, size_t table_bytes, const KernelLimits &limits)
{
    int copies = kWarps;
    while (copies > 1 &&
           shared_bytes<T>(slots, copies, table_bytes) > static_cast<size_t>(limits.max_shared_per_sm) / 4)
        copies /= 2;
    return copies;
}

/*
 * Blocks per SM for a kernel at a given dynamic shared memory size, asked of
 * the runtime once per kernel, device and size and remembered: per-batch
 * launches should cost a launch, not three API calls.  Keyed by the kernel
 * itself (every instantiation has its own attributes) and by the device:
 * a kernel's dynamic shared memory limit is an attribute of its copy in one
 * device's context, so a limit raised on one GPU says nothing of another's
 * (a launch past 48 KB on a GPU where it was not raised fails with "invalid
 * argument").  The service calls this from one thread; there are a few
 * dozen kernels per device at most.
 */
struct LaunchCache {
    const void *kernel;
    int device;
    size_t smem;            /* the size `blocks` was computed for */
    int blocks;
    size_t attribute_smem;  /* the dynamic shared memory limit set so far on this device */
};

template <typename Kernel>
cudaError_t resident_blocks(Kernel kernel, int device, size_t smem, int *blocks)
{
    constexpr int kEntries = 64 * kMaxDevices;
    static LaunchCache cache[kEntries];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    LaunchCache *c = nullptr;
    for (int i = 0; i < used && c == nullptr; i++)
        if (cache[i].kernel == key && cache[i].device == device)
            c = &cache[i];
    if (c == nullptr) {
        if (used == kEntries)
            return cudaErrorUnknown; /* cannot happen: fewer kernels exist */
        c = &cache[used++];
        *c = LaunchCache{key, device, static_cast<size_t>(-1), 0, 0};
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

template <typename T, typename Binner>
cudaError_t launch(const T *values, size_t n, Binner binner, unsigned long long *counts, int *nan_flag,
                   const KernelLimits &limits, cudaStream_t stream)
{
    /* enough blocks to fill the device, but no more than the data needs */
    size_t per_block = static_cast<size_t>(kThreads) * kUnroll * Vec16<T>::kCount;
    size_t wanted = (n + per_block - 1) / per_block;
    if (wanted == 0)
        wanted = 1;
    int blocks_per_sm = 0;
    cudaError_t err;
    const size_t max_shared = static_cast<size_t>(limits.max_shared_per_block);
    if (shared_bytes<T>(binner.slots(), 1, binner.table_bytes()) <= max_shared) {
        int copies = shared_copies<T>(binner.slots(), binner.table_bytes(), limits);
        size_t smem = shared_bytes<T>(binner.slots(), copies, binner.table_bytes());
        auto kernel = histogram_shared<T, Binner>;
        if ((err = resident_blocks(kernel, limits.device, smem, &blocks_per_sm)) != cudaSuccess)
            return err;
        size_t full = static_cast<size_t>(limits.multiprocessors) * blocks_per_sm;
        unsigned grid = static_cast<unsigned>(wanted < full ? wanted : full);
        kernel<<<grid, kThreads, smem, stream>>>(values, n, binner, copies, counts, nan_flag);
    } else {
        /* counters in global memory; a table stays in shared memory if it fits alone */
        size_t smem = binner.table_bytes() <= max_shared ? binner.table_bytes() : 0;
        if (smem == 0)
            binner.in_shared_memory(false);
        auto kernel = histogram_global<T, Binner>;
        if ((err = resident_blocks(kernel, limits.device, smem, &blocks_per_sm)) != cudaSuccess)
            return err;
        size_t full = static_cast<size_t>(limits.multiprocessors) * blocks_per_sm;
        unsigned grid = static_cast<unsigned>(wanted < full ? wanted : full);
        kernel<<<grid, kThreads, smem, stream>>>(values, n, binner, counts, nan_flag);
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t describe_device(int device, KernelLimits *limits)
{
    cudaError_t err;
    limits->device = device;
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
    return shared_bytes<double>(nbins + 2, 1) <= static_cast<size_t>(limits.max_shared_per_block);
}

bool thresholds_in_shared_memory(int32_t count, const KernelLimits &limits)
{
    return sizeof(double) * static_cast<size_t>(count) <= static_cast<size_t>(limits.max_shared_per_block);
}

template <typename T>
cudaError_t bin_on_device(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts,
                          int *nan_flag, const KernelLimits &limits, cudaStream_t stream)
{
    bool ascending = spec.lo < spec.hi;
    if (spec.rule == BucketRule::pg15)
        return ascending ? launch(values, n, FloatBinner<true, BucketRule::pg15>{spec.lo, spec.hi, spec.nbins},
                                  counts, nan_flag, limits, stream)
                         : launch(values, n, FloatBinner<false, BucketRule::pg15>{spec.lo, spec.hi, spec.nbins},
                                  counts, nan_flag, limits, stream);
    return ascending ? launch(values, n, FloatBinner<true, BucketRule::pg16>{spec.lo, spec.hi, spec.nbins}, counts,
                              nan_flag, limits, stream)
                     : launch(values, n, FloatBinner<false, BucketRule::pg16>{spec.lo, spec.hi, spec.nbins}, counts,
                              nan_flag, limits, stream);
}

cudaError_t bin_int64_on_device(const int64_t *values, size_t n, const Int64Spec &spec, unsigned long long *counts,
                                int *nan_flag, const KernelLimits &limits, cudaStream_t stream)
{
    return launch(values, n, Int64Binner{prepare_int64(spec)}, counts, nan_flag, limits, stream);
}

cudaError_t bin_thresholds_on_device(const double *values, size_t n, const double *device_thresholds, int32_t count,
                                     unsigned long long *counts, int *nan_flag, const KernelLimits &limits,
                                     cudaStream_t stream)
{
    return launch(values, n, ThresholdBinner{device_thresholds, count, true}, counts, nan_flag, limits, stream);
}

template cudaError_t bin_on_device<double>(const double *, size_t, const BucketSpec &, unsigned long long *,
                                           int *, const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<float>(const float *, size_t, const BucketSpec &, unsigned long long *,
                                          int *, const KernelLimits &, cudaStream_t);
template cudaError_t bin_on_device<uint8_t>(const uint8_t *, size_t, const BucketSpec &, unsigned long long *,
                                            int *, const KernelLimits &, cudaStream_t);

} // namespace gh
