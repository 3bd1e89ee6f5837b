/*
 * kernel_bench_common.cuh: what the kernel benchmark's sections share
 * (kernel_bench.cu, kernel_bench_cells.cuh): a CUDA check that exits,
 * device-side fills of uniform and constant data, the median of timed runs
 * and the CSV and summary lines.  Included by kernel_bench.cu only.
 */
#ifndef GH_KERNEL_BENCH_COMMON_CUH
#define GH_KERNEL_BENCH_COMMON_CUH

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

namespace bench {

/* A cheap counter-based hash: uniform doubles in [0, 1) without a host round trip. */
__device__ uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}
template <typename T> __global__ void fill_uniform(T *v, size_t n, double scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = static_cast<T>((mix(i + 12345) >> 11) * (1.0 / 9007199254740992.0) * scale);
}
template <typename T> __global__ void fill_constant(T *v, size_t n, T value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = value;
}

/* Warm-ups and timed runs where a section names none: 3 and 15, or 0 and 1 with --once (under a profiler). */
inline int g_warmups = 3, g_reps = 15;

float median_ms(const std::function<void()> &run, int warmup = g_warmups, int reps = g_reps)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < warmup; i++)
        run();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CHECK(cudaEventRecord(a));
        run();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[t.size() / 2];
}

void report(const char *section, const char *type, const char *input, int nbins, const char *what,
            size_t bytes, float ms, float ceiling_gbs)
{
    double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("%s,%s,%s,%d,%s,%.4f,%.1f,%.3f\n", section, type, input, nbins, what, ms, gbs,
           ceiling_gbs > 0 ? gbs / ceiling_gbs : 0.0);
    fprintf(stderr, "%-9s %-7s %-8s %8d  %-26s %9.4f ms %8.1f GB/s %s\n", section, type, input, nbins, what, ms,
            gbs, ceiling_gbs > 0 ? (std::to_string((int)(100 * gbs / ceiling_gbs)) + "% of the reference").c_str() : "");
}

template <typename T> float read_ceiling(const T *d, size_t n, void *tmp, size_t tmp_bytes, T *out)
{
    return median_ms([&] { CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d, out, n)); });
}

} // namespace bench

#endif /* GH_KERNEL_BENCH_COMMON_CUH */
