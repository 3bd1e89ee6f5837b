/*
 * kernel_bench_pages.cuh: the kernel benchmark's "pages" section (only when
 * asked for: it takes gigabytes of host memory), included by kernel_bench.cu.
 *
 * What issue 13 asks of the page kernel: reading heap pages in place, in
 * host memory registered and mapped as the server's buffer pool will be,
 * at 70% or more of what a plain host-to-device copy moves.  A pool of
 * synthetic pages of `CREATE TABLE t (x float8)` (226 tuples a page, as
 * PostgreSQL packs them) is registered with gpu_pool_register (timed), and
 * read in batches of 2048 random page numbers:
 *
 *   pinned H2D copy        cudaMemcpy from the registered pool: the ceiling
 *   gather only            a bare kernel that reads the same pages the same
 *                          way and parses nothing: what reading costs
 *   page kernel            bin_pages_on_device per batch, words on the device
 *   engine                 gpu_pages_submit through batch buffers, as the
 *                          GPU service will drive it, then a drain
 *
 * Each reports GB/s of pages read, rows a second and the fraction of the
 * pinned copy's rate: the median of 9 timed runs after 2 warm-ups (the
 * engine's path: 5 after 1).  On an H100 (first run, 4 GB pool): 54.4 GB/s
 * copied, 50.1 GB/s of pages parsed and binned into 256 buckets (92%),
 * 1.38 billion rows a second; the pool registered in 274 ms.
 */
#ifndef GH_KERNEL_BENCH_PAGES_CUH
#define GH_KERNEL_BENCH_PAGES_CUH

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "../unit/heap_pages.h"
#include "dispatch/cuda_kernels.cuh"
#include "gpu_backend.h"
#include "kernel_bench_common.cuh"

namespace bench {

constexpr int kPageBatch = 2048;     /* page words a batch */
constexpr uint32_t kRowsPerPage = 226; /* (8192 - 24) / (4 + MAXALIGN(24 + 8)) */

/* The gather alone: each block of 128 threads reads its pages with 16-byte loads, as the page kernel does. */
__global__ void __launch_bounds__(128) gather_pages(const uint64_t *words, size_t n, const unsigned char *pool,
                                                    unsigned long long *sink)
{
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (size_t p = blockIdx.x; p < n; p += gridDim.x) {
        const uint4 *src = reinterpret_cast<const uint4 *>(pool + (words[p] >> 16) * 8192);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            uint4 v = __ldg(src + k * 128 + threadIdx.x);
            acc.x ^= v.x;
            acc.y ^= v.y;
            acc.z ^= v.z;
            acc.w ^= v.w;
        }
    }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9e3779b9u) /* never, in practice: keeps the loads */
        atomicAdd(sink, 1ull);
}

/* Fills pool pages [first, last) from a template page, each with its own values in [0, 1). */
void fill_pages(unsigned char *pool, const unsigned char *page, const std::vector<uint32_t> &value_at, size_t first,
                size_t last)
{
    for (size_t b = first; b < last; b++) {
        unsigned char *dst = pool + b * 8192;
        std::memcpy(dst, page, 8192);
        for (size_t i = 0; i < value_at.size(); i++) {
            uint64_t x = (b * kRowsPerPage + i) * 0x9E3779B97F4A7C15ull;
            double v = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
            std::memcpy(dst + value_at[i], &v, 8);
        }
    }
}

void pages_section(size_t pool_gb, int batches)
{
    if (gh::gpu_start() != gh::Status::ok) {
        fprintf(stderr, "engine did not start: %s\n", gh::gpu_last_error());
        exit(1);
    }
    const size_t pool_pages = (pool_gb << 30) / 8192;
    const size_t pool_bytes = pool_pages * 8192;
    unsigned char *pool = static_cast<unsigned char *>(std::aligned_alloc(1 << 21, pool_bytes));
    if (pool == nullptr) {
        fprintf(stderr, "no host memory for a pool of %zu GB\n", pool_gb);
        exit(1);
    }
    /* one template page, written as PostgreSQL does; then every page a copy with values of its own */
    std::vector<unsigned char> page(8192);
    heap_pages::PageWriter writer(page.data());
    const heap_pages::Layout layout{{8, 8}};
    while (writer.add_tuple(layout, {heap_pages::float8_datum(0.5)})) {
    }
    if (writer.line_count() != kRowsPerPage) {
        fprintf(stderr, "the template page has %u rows, not %u\n", writer.line_count(), kRowsPerPage);
        exit(1);
    }
    std::vector<uint32_t> value_at;
    for (uint32_t i = 0; i < kRowsPerPage; i++)
        value_at.push_back(static_cast<uint32_t>(writer.tuple(i) - page.data()) + 24);
    {
        const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
        std::vector<std::thread> fill;
        for (unsigned t = 0; t < threads; t++)
            fill.emplace_back(fill_pages, pool, page.data(), std::cref(value_at), pool_pages * t / threads,
                              pool_pages * (t + 1) / threads);
        for (std::thread &t : fill)
            t.join();
    }
    auto t0 = std::chrono::steady_clock::now();
    gh::Status s = gh::gpu_pool_register(pool, pool_bytes);
    const double register_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (s != gh::Status::ok) {
        fprintf(stderr, "gpu_pool_register: %s: %s\n", gh::status_text(s), gh::gpu_last_error());
        exit(1);
    }
    fprintf(stderr, "pages: gpu_pool_register of %zu GB took %.1f ms (%.1f GB/s)\n", pool_gb, register_ms,
            pool_bytes / (register_ms * 1e-3) / 1e9);
    printf("pages,float8,pool,0,gpu_pool_register %zu GB,%.4f,%.1f,0\n", pool_gb, register_ms,
           pool_bytes / (register_ms * 1e-3) / 1e9);

    CHECK(cudaSetDevice(0));
    gh::KernelLimits lim;
    CHECK(gh::describe_device(0, &lim));
    void *mapped = nullptr;
    CHECK(cudaHostGetDevicePointer(&mapped, pool, 0));
    const unsigned char *d_pool = static_cast<const unsigned char *>(mapped);
    fprintf(stderr, "pages: device 0 maps the pool at %s\n", mapped == pool ? "the host's address" : "another address");

    /* random page numbers, batches of kPageBatch */
    const size_t total = static_cast<size_t>(batches) * kPageBatch;
    std::vector<uint64_t> words(total);
    std::mt19937_64 rng(42);
    for (uint64_t &w : words)
        w = gh::page_word(rng() % pool_pages, kRowsPerPage);
    uint64_t *d_words;
    CHECK(cudaMalloc(&d_words, total * sizeof(uint64_t)));
    CHECK(cudaMemcpy(d_words, words.data(), total * sizeof(uint64_t), cudaMemcpyHostToDevice));
    const size_t bytes = total * 8192;
    const double rows = static_cast<double>(total) * kRowsPerPage;
    auto line = [&](const char *what, int nbins, float ms, float ceiling) {
        report("pages", "float8", "random", nbins, what, bytes, ms, ceiling);
        fprintf(stderr, "%-9s %45s %.0f M rows/s\n", "", "", rows / (ms * 1e-3) / 1e6);
    };

    /* the ceiling: the same number of bytes copied from the registered pool, in 16 MB copies */
    const size_t chunk = size_t(kPageBatch) * 8192;
    unsigned char *d_copy;
    CHECK(cudaMalloc(&d_copy, chunk));
    float copy_ms = median_ms([&] {
        for (int i = 0; i < batches; i++)
            CHECK(cudaMemcpyAsync(d_copy, pool + (static_cast<size_t>(i) * chunk) % (pool_bytes - chunk + 1), chunk,
                                  cudaMemcpyHostToDevice, nullptr));
    }, 2, 9);
    const float copy_gbs = bytes / (copy_ms * 1e-3) / 1e9;
    report("pages", "float8", "contiguous", 0, "pinned H2D copy (reference)", bytes, copy_ms, copy_gbs);

    unsigned long long *sink;
    CHECK(cudaMalloc(&sink, sizeof(unsigned long long)));
    const unsigned gather_grid = static_cast<unsigned>(lim.multiprocessors) * 8;
    float gather_ms = median_ms([&] {
        for (int i = 0; i < batches; i++)
            gather_pages<<<gather_grid, 128>>>(d_words + static_cast<size_t>(i) * kPageBatch, kPageBatch, d_pool, sink);
    }, 2, 9);
    line("gather only (no parse)", 0, gather_ms, copy_gbs);

    unsigned long long *d_counts;
    int *d_flags;
    CHECK(cudaMalloc(&d_counts, sizeof(unsigned long long) * 100003)); /* the most buckets, and the tuple count */
    CHECK(cudaMalloc(&d_flags, sizeof(int)));
    for (int nbins : {256, 100000}) {
        const gh::BucketSpec spec{0.0, 1.0, nbins, gh::BucketRule::pg15};
        const gh::PageColumn col = heap_pages::page_column(layout, 1, gh::PageValueType::float8);
        float ms = median_ms([&] {
            CHECK(cudaMemsetAsync(d_counts, 0, sizeof(unsigned long long) * (nbins + 3)));
            for (int i = 0; i < batches; i++)
                CHECK(gh::bin_pages_on_device(d_words + static_cast<size_t>(i) * kPageBatch, kPageBatch, d_pool,
                                              pool_pages, col, spec, d_counts, d_flags, d_counts + nbins + 2, lim,
                                              nullptr));
        }, 2, 9);
        std::string what = std::string("page kernel (") +
                           (gh::page_path(nbins, lim) == gh::KernelPath::shared ? "shared" : "global") + ")";
        line(what.c_str(), nbins, ms, copy_gbs);
        /* every row counted once: a check, not a measurement */
        std::vector<unsigned long long> counts(static_cast<size_t>(nbins) + 2);
        CHECK(cudaMemset(d_counts, 0, sizeof(unsigned long long) * (nbins + 3)));
        CHECK(gh::bin_pages_on_device(d_words, total, d_pool, pool_pages, col, spec, d_counts, d_flags,
                                      d_counts + nbins + 2, lim, nullptr));
        CHECK(cudaMemcpy(counts.data(), d_counts, sizeof(unsigned long long) * counts.size(), cudaMemcpyDeviceToHost));
        unsigned long long sum = 0;
        for (unsigned long long c : counts)
            sum += c;
        if (sum != static_cast<unsigned long long>(rows))
            fprintf(stderr, "pages: %d buckets counted %llu rows of %.0f\n", nbins, sum, rows);
    }

    /* the engine's path: page words through batch buffers on the copy stream, as the service will send them */
    {
        constexpr int kAreas = 4;
        uint64_t *host = static_cast<uint64_t *>(std::aligned_alloc(4096, kAreas * kPageBatch * sizeof(uint64_t)));
        bool registered = gh::gpu_host_register(host, kAreas * kPageBatch * sizeof(uint64_t)) == gh::Status::ok;
        gh::BatchBuffer *buffers[kAreas];
        for (int k = 0; k < kAreas; k++)
            if (gh::gpu_batch_create(0, reinterpret_cast<const double *>(host + k * kPageBatch), kPageBatch,
                                     &buffers[k]) != gh::Status::ok)
                exit(1);
        CHECK(cudaSetDevice(0));
        const gh::BucketSpec spec{0.0, 1.0, 256, gh::BucketRule::pg15};
        const gh::PageColumn col = heap_pages::page_column(layout, 1, gh::PageValueType::float8);
        std::vector<int64_t> counts(258, 0);
        float ms = median_ms([&] {
            gh::DeviceHistogram *h = nullptr;
            if (gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h) != gh::Status::ok)
                exit(1);
            for (int i = 0; i < batches; i++) {
                const int k = i % kAreas;
                for (bool busy = true; busy;)
                    if (gh::gpu_batch_busy(buffers[k], &busy) != gh::Status::ok)
                        exit(1);
                std::memcpy(host + k * kPageBatch, words.data() + static_cast<size_t>(i) * kPageBatch,
                            kPageBatch * sizeof(uint64_t));
                if (gh::gpu_pages_submit(h, buffers[k], kPageBatch, col) != gh::Status::ok)
                    exit(1);
            }
            if (gh::gpu_histogram_drain(h, 0, 258, counts.data(), nullptr) != gh::Status::ok)
                exit(1);
            gh::gpu_histogram_close(h);
            CHECK(cudaSetDevice(0));
        }, 1, 5);
        line("engine: gpu_pages_submit, drain", 256, ms, copy_gbs);
        for (gh::BatchBuffer *b : buffers)
            gh::gpu_batch_destroy(b);
        if (registered)
            gh::gpu_host_unregister(host);
        free(host);
    }
    cudaFree(d_words);
    cudaFree(d_copy);
    cudaFree(sink);
    cudaFree(d_counts);
    cudaFree(d_flags);
    /* the pool stays registered for the life of the process, as in the service */
}

} // namespace bench

#endif /* GH_KERNEL_BENCH_PAGES_CUH */
