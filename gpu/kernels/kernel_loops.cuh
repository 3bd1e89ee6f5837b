/*
 * kernel_loops.cuh: how every histogram kernel reads its input, for
 * cuda_kernels.cu (the page kernel, kernel_pages.cuh, takes its Run and
 * its shared memory).
 *
 * The kernels differ in where they count (kernel_paths.cuh); they all read
 * the same way, so that way is written once: 16-byte loads over the aligned
 * body of the values, four of them in flight per thread, the unaligned head
 * and the tail one value at a time.  Each value is handed to the caller's
 * function with its index, which a grouped histogram needs to find the
 * value's group.  Also the block's dynamic shared memory, declared once.
 */
#ifndef GH_KERNEL_LOOPS_CUH
#define GH_KERNEL_LOOPS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gh {
namespace kernels {

constexpr int kUnroll = 4; /* 16-byte loads in flight per thread */

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

/*
 * Calls count(value, index) for this thread's share of values[0 .. n):
 * thread `tid` of `nthreads` that stride over the input together (a whole
 * grid, or the blocks of one slice's pass over the input).
 */
template <typename T, typename Count>
__device__ __forceinline__ void for_each_value(const T *values, size_t n, size_t tid, size_t nthreads, Count count)
{
    constexpr int kPer = Vec16<T>::kCount;
    /* head: values before the first 16-byte boundary */
    size_t head = (16 - (reinterpret_cast<uintptr_t>(values) & 15)) % 16 / sizeof(T);
    if (head > n)
        head = n;
    if (tid < head)
        count(values[tid], tid);
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
                count(v[u].v[k], head + (i + u * nthreads) * kPer + k);
    }
    for (; i < nvec; i += nthreads) {
        Vec16<T> v = load16(body + i * kPer);
#pragma unroll
        for (int k = 0; k < kPer; k++)
            count(v.v[k], head + i * kPer + k);
    }
    /* tail: what is left after the last whole vector */
    size_t tail_start = head + nvec * kPer;
    if (tail_start + tid < n)
        count(values[tail_start + tid], tail_start + tid);
}

/*
 * The same walk, but every thread of a block takes the same number of
 * steps, so that the block may synchronise between rounds: every thread
 * calls end_round() after the head and tail (at most two values each),
 * and after every `steps_per_round` steps of kUnroll vectors.  block_tid
 * is the tid of the block's first thread.
 */
template <typename T, typename Count, typename EndRound>
__device__ __forceinline__ void for_each_value_in_rounds(const T *values, size_t n, size_t tid, size_t block_tid,
                                                         size_t nthreads, int steps_per_round, Count count,
                                                         EndRound end_round)
{
    constexpr int kPer = Vec16<T>::kCount;
    size_t head = (16 - (reinterpret_cast<uintptr_t>(values) & 15)) % 16 / sizeof(T);
    if (head > n)
        head = n;
    const T *body = values + head;
    const size_t nvec = (n - head) / kPer;
    const size_t tail_start = head + nvec * kPer;
    if (tid < head)
        count(values[tid], tid);
    if (tail_start + tid < n)
        count(values[tail_start + tid], tail_start + tid);
    end_round();
    int steps = 0;
    for (size_t s = 0; block_tid + s < nvec; s += kUnroll * nthreads) { /* the same trip count in the block */
        Vec16<T> v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            if (tid + s + u * nthreads < nvec)
                v[u] = load16(body + (tid + s + u * nthreads) * kPer);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            if (tid + s + u * nthreads < nvec)
#pragma unroll
                for (int k = 0; k < kPer; k++)
                    count(v[u].v[k], head + (tid + s + u * nthreads) * kPer + k);
        if (++steps == steps_per_round) {
            steps = 0;
            end_round();
        }
    }
}

/*
 * Equal buckets in a row, counted in registers: a thread adds its run of
 * one bucket with one atomic when the bucket changes.  On constant input a
 * thread then adds once at its end instead of once per value, which is
 * what keeps one hot counter from serializing a kernel that has only one
 * copy of it.  On uniform input it costs a compare per value.  A run is
 * shorter than one launch's values (cuda_kernels.cu keeps those below
 * 2^31), so its 32-bit count cannot overflow.
 */
struct Run {
    int32_t bucket = INT32_MIN; /* no bucket returns this */
    uint32_t count = 0;

    /* Adds b to the run; when b ends the run, calls add(bucket, count) for the run that ended. */
    template <typename Add> __device__ __forceinline__ void push(int32_t b, Add add)
    {
        if (b == bucket) {
            count++;
            return;
        }
        if (count != 0)
            add(bucket, count);
        bucket = b;
        count = 1;
    }
    template <typename Add> __device__ __forceinline__ void finish(Add add)
    {
        if (count != 0)
            add(bucket, count);
        count = 0;
    }
};

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_LOOPS_CUH */
