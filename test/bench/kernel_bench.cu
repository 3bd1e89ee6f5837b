/*
 * kernel_bench.cu: the engine's kernels side by side with CUB and simpler
 * kernels, on device-resident data, in one run on one GPU.
 *
 *   kernel_bench [--quick] [--once] [--sections engine,bytes,forms,grouped,pipeline,paths,steps,atomics,sidecar,pages]
 *                [--pool-gb N] > results.csv
 *
 * CSV on stdout, a summary on stderr.  Every section but "paths", "steps",
 * "atomics", "sidecar" and "pages" runs by default; paths
 * (kernel_bench_cells.cuh) forces each way of counting in turn, for
 * choosing between them, steps (kernel_bench_steps.cuh) each cluster size
 * and steps a round of the cluster path, atomics measures global atomics
 * alone, sidecar weighs the kernel beside clusters of 16, and pages
 * (kernel_bench_pages.cuh) reads heap pages from a registered host pool of
 * N GB (default 4, 1 with --quick).  For each case: median of 15 timed
 * runs (CUDA events) after 3 warm-ups (the pages section: fewer, its
 * header says), reported as time and as bytes of input read per second;
 * --once runs each such case once, without warm-up, for a profiler (ncu).  The read ceiling is cub::DeviceReduce::Sum over the
 * same data.  CUB's HistogramEven bins with its own float formula, so it is
 * a speed reference, not a correctness one; the engine's results are
 * checked against the CPU backend elsewhere (test/unit/cuda_*_test.cu).
 */
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dispatch/cuda_kernels.cuh"
#include "gpu_backend.h"
#include "kernel_bench_cells.cuh"
#include "kernel_bench_common.cuh"
#include "kernel_bench_pages.cuh"
#include "kernel_bench_steps.cuh"

namespace {

using namespace bench;

/* Baseline 1: one global atomic per value. */
template <typename T>
__global__ void naive_global(const T *v, size_t n, double lo, double hi, int nbins, unsigned long long *c)
{
    gh::BucketSpec s{lo, hi, nbins, gh::BucketRule::pg15};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int b = gh::bucket_ascending(static_cast<double>(v[i]), s);
        if (b >= 0)
            atomicAdd(&c[b], 1ull);
    }
}

/* The published uint8 variants: global atomics; shared atomics; shared atomics with 16-byte loads. */
__global__ void bytes_global(const uint8_t *v, size_t n, unsigned int *c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&c[v[i]], 1u);
}
__global__ void bytes_shared(const uint8_t *v, size_t n, unsigned int *c)
{
    __shared__ unsigned int h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[v[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (h[i])
            atomicAdd(&c[i], h[i]);
}
__global__ void bytes_shared_vec16(const uint8_t *v, size_t n, unsigned int *c)
{
    __shared__ unsigned int h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    const uint4 *v4 = reinterpret_cast<const uint4 *>(v);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n / 16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 w = v4[i];
        unsigned int words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
            for (int b = 0; b < 4; b++)
                atomicAdd(&h[(words[k] >> (8 * b)) & 255], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (h[i])
            atomicAdd(&c[i], h[i]);
}

template <typename T>
void engine_section(const char *type, size_t n, const gh::KernelLimits &lim, const std::vector<int> &bins_list,
                    void *tmp, size_t tmp_bytes)
{
    T *d;
    CHECK(cudaMalloc(&d, n * sizeof(T)));
    unsigned long long *c64;
    int *nan;
    float *cf_levels = nullptr;
    int *c32;
    CHECK(cudaMalloc(&c64, sizeof(unsigned long long) * 1000002));
    CHECK(cudaMalloc(&c32, sizeof(int) * 1000002));
    CHECK(cudaMalloc(&nan, sizeof(int)));
    T *sum_out;
    CHECK(cudaMalloc(&sum_out, sizeof(T)));
    (void)cf_levels;
    for (const char *input : {"uniform", "constant"}) {
        if (!strcmp(input, "uniform"))
            fill_uniform<<<1024, 256>>>(d, n, 1.0);
        else
            fill_constant<<<1024, 256>>>(d, n, static_cast<T>(0.5));
        CHECK(cudaDeviceSynchronize());
        size_t bytes = n * sizeof(T);
        float ceiling_ms = read_ceiling(d, n, tmp, tmp_bytes, sum_out);
        float ceiling = bytes / (ceiling_ms * 1e-3) / 1e9;
        report("engine", type, input, 0, "cub DeviceReduce::Sum", bytes, ceiling_ms, ceiling);
        for (int nbins : bins_list) {
            gh::BucketSpec spec{0.0, 1.0, nbins, gh::BucketRule::pg15};
            float ours = median_ms([&] {
                CHECK(cudaMemsetAsync(c64, 0, sizeof(unsigned long long) * (nbins + 2)));
                CHECK(gh::bin_on_device(d, n, spec, c64, nan, lim, nullptr));
            });
            std::string what = "gpu_histogram (" + plan_label(gh::kernel_plan(nbins + 2, sizeof(T), lim)) + ")";
            report("engine", type, input, nbins, what.c_str(), bytes, ours, ceiling);
            size_t cub_tmp = 0;
            CHECK(cub::DeviceHistogram::HistogramEven(nullptr, cub_tmp, d, c32, nbins + 1, (T)0, (T)1, (int)n));
            if (cub_tmp <= tmp_bytes) {
                float cub_ms = median_ms([&] {
                    CHECK(cub::DeviceHistogram::HistogramEven(tmp, cub_tmp, d, c32, nbins + 1, (T)0, (T)1, (int)n));
                });
                report("engine", type, input, nbins, "cub HistogramEven", bytes, cub_ms, ceiling);
            }
            if (nbins <= 65536) {
                float naive = median_ms([&] {
                    CHECK(cudaMemsetAsync(c64, 0, sizeof(unsigned long long) * (nbins + 2)));
                    naive_global<<<lim.multiprocessors * 8, 256>>>(d, n, 0.0, 1.0, nbins, c64);
                }, 1, 3);
                report("engine", type, input, nbins, "naive global atomics", bytes, naive, ceiling);
            }
        }
    }
    cudaFree(d);
    cudaFree(c64);
    cudaFree(c32);
    cudaFree(nan);
    cudaFree(sum_out);
}

void bytes_section(size_t n, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    uint8_t *d;
    unsigned int *c;
    unsigned long long *c64;
    int *nan;
    CHECK(cudaMalloc(&d, n));
    CHECK(cudaMalloc(&c, sizeof(unsigned int) * 258));
    CHECK(cudaMalloc(&c64, sizeof(unsigned long long) * 258));
    CHECK(cudaMalloc(&nan, sizeof(int)));
    fill_uniform<<<1024, 256>>>(d, n, 256.0);
    CHECK(cudaDeviceSynchronize());
    int grid = lim.multiprocessors * 8;
    float g = median_ms([&] { CHECK(cudaMemsetAsync(c, 0, 1024)); bytes_global<<<grid, 256>>>(d, n, c); }, 1, 3);
    report("bytes", "uint8", "uniform", 256, "global atomics", n, g, 0);
    float s = median_ms([&] { CHECK(cudaMemsetAsync(c, 0, 1024)); bytes_shared<<<grid, 256>>>(d, n, c); });
    report("bytes", "uint8", "uniform", 256, "shared atomics", n, s, 0);
    float v = median_ms([&] { CHECK(cudaMemsetAsync(c, 0, 1024)); bytes_shared_vec16<<<grid, 256>>>(d, n, c); });
    report("bytes", "uint8", "uniform", 256, "shared atomics, 16B loads", n, v, 0);
    size_t cub_tmp = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, cub_tmp, d, (int *)c, 257, 0, 256, (int)n));
    if (cub_tmp <= tmp_bytes) {
        float cb = median_ms([&] { CHECK(cub::DeviceHistogram::HistogramEven(tmp, cub_tmp, d, (int *)c, 257, 0, 256, (int)n)); });
        report("bytes", "uint8", "uniform", 256, "cub HistogramEven", n, cb, 0);
    }
    gh::BucketSpec spec{0.0, 256.0, 256, gh::BucketRule::pg15};
    float ours = median_ms([&] {
        CHECK(cudaMemsetAsync(c64, 0, sizeof(unsigned long long) * 258));
        CHECK(gh::bin_on_device(d, n, spec, c64, nan, lim, nullptr));
    });
    report("bytes", "uint8", "uniform", 256, "gpu_histogram", n, ours, 0);
    cudaFree(d);
    cudaFree(c);
    cudaFree(c64);
    cudaFree(nan);
}

/*
 * The engine's own pipeline (gpu_backend.h: the caller's registered host
 * areas, batch buffers, copy stream, kernel, drain) over `batches` host
 * batches, against plain host-to-device copies of the same bytes from the
 * same page-locked areas.  The host-side fill (the scan's work) is left
 * out: this measures what the GPU side can absorb.  With more than one
 * device, the same batches spread over all of them too.
 */
void pipeline_section(size_t batch, int batches)
{
    if (gh::gpu_start() != gh::Status::ok) {
        fprintf(stderr, "engine did not start: %s\n", gh::gpu_last_error());
        exit(1);
    }
    /* the caller's host memory, as the GPU service's batch slots: one page-aligned allocation, registered once */
    constexpr int kAreas = 4;
    size_t bytes = batch * sizeof(double);
    size_t total = (kAreas * bytes + 4095) / 4096 * 4096;
    double *host = static_cast<double *>(std::aligned_alloc(4096, total));
    if (host == nullptr) {
        fprintf(stderr, "no host memory for the pipeline\n");
        exit(1);
    }
    for (size_t i = 0; i < kAreas * batch; i++)
        host[i] = static_cast<double>(i % 1000) / 1000;
    bool registered = gh::gpu_host_register(host, total) == gh::Status::ok;
    if (!registered)
        fprintf(stderr, "gpu_host_register failed (%s): copies are staged through pageable memory\n",
                gh::gpu_last_error());

    /* the reference: the same bytes copied from the same areas */
    CHECK(cudaSetDevice(0));
    double *d[kAreas];
    for (int k = 0; k < kAreas; k++)
        CHECK(cudaMalloc(&d[k], bytes));
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    float copy = median_ms([&] {
        for (int i = 0; i < batches; i++)
            CHECK(cudaMemcpyAsync(d[i % kAreas], host + (i % kAreas) * batch, bytes, cudaMemcpyHostToDevice, st));
        CHECK(cudaStreamSynchronize(st));
    }, 1, 5);
    report("pipeline", "float8", "uniform", 0, "registered H2D copy only", bytes * batches, copy, 0);
    float copy_gbs = bytes * batches / (copy * 1e-3) / 1e9;

    /* the engine: one batch buffer per area and device, each reused once gpu_batch_busy says its copy is done */
    const int devices = gh::gpu_device_count();
    std::vector<gh::BatchBuffer *> buffers(static_cast<size_t>(devices) * kAreas, nullptr);
    for (int dev = 0; dev < devices; dev++)
        for (int k = 0; k < kAreas; k++)
            if (gh::gpu_batch_create(dev, host + k * batch, batch, &buffers[dev * kAreas + k]) != gh::Status::ok) {
                fprintf(stderr, "gpu_batch_create: %s\n", gh::gpu_last_error());
                exit(1);
            }
    CHECK(cudaSetDevice(0)); /* the engine's calls move the current device; median_ms's events are on device 0 */
    auto wait_free = [](gh::BatchBuffer *b) {
        for (bool busy = true; busy;)
            if (gh::gpu_batch_busy(b, &busy) != gh::Status::ok)
                exit(1);
    };
    gh::BucketSpec spec{0.0, 1.0, 256, gh::BucketRule::pg15};
    std::vector<int64_t> counts(258, 0);
    /* batch i goes to device i % used, from area i % kAreas */
    auto run = [&](int used) {
        gh::DeviceHistogram *hist[gh::kMaxDevices] = {};
        for (int dev = 0; dev < used; dev++)
            if (gh::gpu_histogram_open(gh::float_histogram(spec), dev, &hist[dev]) != gh::Status::ok)
                exit(1);
        for (int i = 0; i < batches; i++) {
            int dev = i % used;
            gh::BatchBuffer *b = buffers[dev * kAreas + (i / used) % kAreas];
            wait_free(b);
            if (gh::gpu_histogram_submit(hist[dev], b, batch) != gh::Status::ok)
                exit(1);
        }
        for (int dev = 0; dev < used; dev++) {
            if (gh::gpu_histogram_drain(hist[dev], 0, 258, counts.data(), nullptr) != gh::Status::ok)
                exit(1);
            gh::gpu_histogram_close(hist[dev]);
        }
        CHECK(cudaSetDevice(0));
    };
    float pipe = median_ms([&] { run(1); }, 1, 5);
    report("pipeline", "float8", "uniform", 256, "engine: registered areas, copy, bin, drain", bytes * batches, pipe,
           copy_gbs);
    if (devices > 1) {
        float spread = median_ms([&] { run(devices); }, 1, 5);
        std::string what = "engine: the same over " + std::to_string(devices) + " devices";
        report("pipeline", "float8", "uniform", 256, what.c_str(), bytes * batches, spread, copy_gbs);
    }
    for (gh::BatchBuffer *b : buffers)
        gh::gpu_batch_destroy(b);
    for (int k = 0; k < kAreas; k++)
        cudaFree(d[k]);
    cudaStreamDestroy(st);
    if (registered)
        gh::gpu_host_unregister(host);
    free(host);
}

} // namespace

/* Whether `name` is in the comma-separated list (an empty list: every section but paths, steps, atomics and pages). */
bool wanted(const std::string &list, const char *name)
{
    if (list.empty())
        return strcmp(name, "paths") != 0 && strcmp(name, "steps") != 0 && strcmp(name, "atomics") != 0 &&
               strcmp(name, "sidecar") != 0 && strcmp(name, "pages") != 0;
    return ("," + list + ",").find("," + std::string(name) + ",") != std::string::npos;
}

int main(int argc, char **argv)
{
    bool quick = false;
    std::string sections;
    size_t pool_gb = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--once"))
            g_warmups = 0, g_reps = 1;
        else if (!strcmp(argv[i], "--sections") && i + 1 < argc)
            sections = argv[++i];
        else if (!strcmp(argv[i], "--pool-gb") && i + 1 < argc)
            pool_gb = strtoul(argv[++i], nullptr, 10);
        else {
            fprintf(stderr, "usage: kernel_bench [--quick] [--once] [--sections "
                            "engine,bytes,forms,grouped,pipeline,paths,steps,atomics,sidecar,pages] [--pool-gb N]\n");
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "kernel_bench: no GPU, nothing measured\n");
        return 0;
    }
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    gh::KernelLimits lim;
    CHECK(gh::describe_device(0, &lim));
    fprintf(stderr, "device: %s, %d SMs, %d KB of shared memory a block, clusters of up to %d blocks\n", p.name,
            p.multiProcessorCount, lim.max_shared_per_block / 1024, lim.max_cluster);
    size_t tmp_bytes = 256 << 20;
    void *tmp;
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    printf("section,type,input,nbins,kernel,ms,GBps,fraction_of_read_ceiling\n");
    size_t n8 = quick ? (1ul << 24) : (1ul << 28); /* 2 GiB of float8 */
    if (wanted(sections, "engine")) {
        std::vector<int> bins = quick ? std::vector<int>{256, 65536}
                                      : std::vector<int>{16, 256, 4096, 16384, 65536, 262144, 1000000};
        engine_section<double>("float8", n8, lim, bins, tmp, tmp_bytes);
        engine_section<float>("float4", 2 * n8, lim,
                              quick ? std::vector<int>{256} : std::vector<int>{16, 256, 4096, 65536, 1000000}, tmp,
                              tmp_bytes);
    }
    if (wanted(sections, "bytes"))
        bytes_section(quick ? (1ul << 26) : (1ul << 30), lim, tmp, tmp_bytes);
    if (wanted(sections, "forms") || wanted(sections, "grouped") || wanted(sections, "paths") ||
        wanted(sections, "steps") || wanted(sections, "atomics") || wanted(sections, "sidecar")) {
        CellBuffers cells(n8);
        if (wanted(sections, "forms"))
            forms_section(cells, lim, tmp, tmp_bytes);
        if (wanted(sections, "grouped"))
            grouped_section(cells, lim, tmp, tmp_bytes);
        if (wanted(sections, "paths"))
            paths_section(cells, lim, tmp, tmp_bytes);
        if (wanted(sections, "steps"))
            steps_section(cells, lim, tmp, tmp_bytes);
        if (wanted(sections, "atomics"))
            atomics_section(cells, lim, tmp, tmp_bytes);
        if (wanted(sections, "sidecar"))
            sidecar_section(cells, lim, tmp, tmp_bytes);
    }
    if (wanted(sections, "pipeline"))
        pipeline_section(1 << 20, quick ? 8 : 64);
    if (wanted(sections, "pages"))
        pages_section(pool_gb > 0 ? pool_gb : quick ? 1 : 4, quick ? 16 : 64);
    cudaFree(tmp);
    return 0;
}
