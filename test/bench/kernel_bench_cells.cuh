/*
 * kernel_bench_cells.cuh: the kernel benchmark's sections about many
 * cells, included by kernel_bench.cu.
 *
 *   forms    the time (int64) and threshold kernels, uniform and constant
 *            input, from a day's minutes to a million buckets
 *   grouped  grouped histograms (grouped_spec.h): 100 and 2,778 groups of
 *            66 cells, 65,536 groups of 18, each value with its group number
 *   paths    (only when asked for) every way of counting forced in turn,
 *            at the bucket counts where the engine's choice changes: the
 *            measurements behind cuda_kernels.cu's thresholds
 *   atomics  (only when asked for) global atomics alone, 64- and 32-bit
 *
 * Each reports the bytes it reads (a grouped value is 12: the value and
 * its group number) against the read ceiling of the same run.
 */
#ifndef GH_KERNEL_BENCH_CELLS_CUH
#define GH_KERNEL_BENCH_CELLS_CUH

#include <string>
#include <utility>

#include "dispatch/cuda_kernels.cuh"
#include "kernel_bench_common.cuh"

namespace bench {

__global__ void fill_microseconds(int64_t *v, size_t n, int64_t lo, int64_t span)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v[i] = lo + static_cast<int64_t>(mix(i + 777) % static_cast<uint64_t>(span));
}

__global__ void fill_groups(uint32_t *g, size_t n, uint32_t groups)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        g[i] = static_cast<uint32_t>(mix(i + 4242) % groups);
}

inline std::string plan_label(const gh::KernelPlan &plan)
{
    char buf[64];
    return gh::describe_plan(plan, buf, sizeof buf);
}

/* Device buffers the sections share: 2^28 8-byte values, group numbers, counters for 10M + 2 cells. */
struct CellBuffers {
    size_t n;
    double *x;
    int64_t *t;
    uint32_t *groups;
    double *thresholds;
    double *sum_out;
    unsigned long long *counts;
    int *flags;
    static constexpr size_t kCells = 10000002;

    explicit CellBuffers(size_t n) : n(n)
    {
        CHECK(cudaMalloc(&x, sizeof(double) * n));
        CHECK(cudaMalloc(&t, sizeof(int64_t) * n));
        CHECK(cudaMalloc(&groups, sizeof(uint32_t) * n));
        CHECK(cudaMalloc(&thresholds, sizeof(double) * 1000000 + sizeof(gh::ThresholdCell) * gh::kMaxThresholdCells +
                                           sizeof(gh::ThresholdSegment) * gh::kThresholdSegments));
        CHECK(cudaMalloc(&sum_out, sizeof(double)));
        CHECK(cudaMalloc(&counts, sizeof(unsigned long long) * kCells));
        CHECK(cudaMalloc(&flags, sizeof(int)));
    }
    ~CellBuffers()
    {
        cudaFree(x);
        cudaFree(t);
        cudaFree(groups);
        cudaFree(thresholds);
        cudaFree(sum_out);
        cudaFree(counts);
        cudaFree(flags);
    }
    /* uniform or constant values of both types; thresholds every 1200 / count apart */
    void fill(bool constant, int64_t span)
    {
        if (constant) {
            fill_constant<<<1024, 256>>>(x, n, 600.5);
            fill_constant<<<1024, 256>>>(t, n, static_cast<int64_t>(span / 2 + 12345));
        } else {
            fill_uniform<<<1024, 256>>>(x, n, 1200.0);
            fill_microseconds<<<1024, 256>>>(t, n, 0, span);
        }
        CHECK(cudaDeviceSynchronize());
    }
    float zeroed_ms(size_t cells, const std::function<void()> &bin, int warmup = g_warmups, int reps = g_reps)
    {
        return median_ms(
            [&] {
                CHECK(cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * cells));
                bin();
            },
            warmup, reps);
    }
};

/*
 * Stages `count` thresholds as the engine does (with the index where it
 * gives one); search drops the index, for the search it replaced; cells
 * drops the segments' lines, for the index's cells alone.
 */
enum class ThresholdLookup { engine, search, cells };
inline gh::DeviceThresholds set_thresholds(CellBuffers &b, int32_t count,
                                           ThresholdLookup lookup = ThresholdLookup::engine)
{
    static const double latency[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
    std::vector<double> t(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; i++)
        t[static_cast<size_t>(i)] = count == 10 ? latency[i] : 1200.0 * i / count;
    gh::DeviceThresholds staged{};
    CHECK(gh::stage_thresholds(t.data(), count, b.thresholds, nullptr, &staged));
    if (lookup == ThresholdLookup::search)
        staged.index = gh::ThresholdIndex{0, 0, 0};
    if (lookup != ThresholdLookup::engine)
        staged.lines = gh::ThresholdIndex{0, 0, 0};
    CHECK(cudaDeviceSynchronize());
    return staged;
}

/*
 * The time kernel (int64 microseconds over a day's minutes, a year in
 * 100,000 buckets, a year in a million) and the threshold kernel (10
 * latency thresholds, 100,000 and a million evenly spaced).
 */
inline void forms_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    const int64_t day = 86400000000LL, year = 365 * day;
    const size_t bytes = b.n * 8;
    for (bool constant : {false, true}) {
        const char *input = constant ? "constant" : "uniform";
        b.fill(constant, year);
        float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
        float ceiling = bytes / (ceiling_ms * 1e-3) / 1e9;
        report("forms", "float8", input, 0, "cub DeviceReduce::Sum", bytes, ceiling_ms, ceiling);
        for (auto [nbins, span] : {std::pair{1440, day}, std::pair{100000, year}, std::pair{1000000, year}}) {
            gh::Int64Spec spec{0, span, nbins, gh::NumericRule::pg15};
            if (constant)
                fill_constant<<<1024, 256>>>(b.t, b.n, static_cast<int64_t>(span / 2 + 12345));
            else
                fill_microseconds<<<1024, 256>>>(b.t, b.n, 0, span);
            float ms = b.zeroed_ms(size_t(nbins) + 2, [&] {
                CHECK(gh::bin_int64_on_device(b.t, b.n, spec, b.counts, b.flags, lim, nullptr));
            });
            std::string what = "time histogram (" + plan_label(gh::time_plan(nbins, lim)) + ")";
            report("forms", "int64", input, nbins, what.c_str(), bytes, ms, ceiling);
        }
        /* the engine's choice (the index: the thresholds are sorted), its cells alone, the search */
        for (int32_t count : {10, 4096, 100000, 1000000}) {
            for (ThresholdLookup lookup : {ThresholdLookup::engine, ThresholdLookup::cells, ThresholdLookup::search}) {
                if (lookup == ThresholdLookup::cells && count <= 4096)
                    continue; /* no lines there: the cells are in shared memory */
                const gh::DeviceThresholds staged = set_thresholds(b, count, lookup);
                float ms = b.zeroed_ms(size_t(count) + 1, [&] {
                    CHECK(gh::bin_thresholds_on_device(b.x, b.n, staged, b.counts, b.flags, lim, nullptr));
                });
                const char *how = staged.index.cells == 0 ? "search" : staged.lines.cells > 0 ? "lines, cells" : "cells";
                std::string what = std::string("thresholds, ") + how + " (" +
                                   plan_label(gh::threshold_plan(staged, lim)) + ")";
                report("forms", "float8", input, count, what.c_str(), bytes, ms, ceiling);
            }
        }
    }
}

/* Grouped histograms of the SQL side's shapes: values in [0, 1200) over 64 or 16 buckets, random groups. */
inline void grouped_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    for (bool constant : {false, true}) {
        const char *input = constant ? "constant" : "uniform";
        b.fill(constant, 1);
        float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
        float ceiling = b.n * 8 / (ceiling_ms * 1e-3) / 1e9;
        report("grouped", "float8", input, 0, "cub DeviceReduce::Sum", b.n * 8, ceiling_ms, ceiling);
        for (auto [groups, nbins] : {std::pair{100u, 64}, std::pair{2778u, 64}, std::pair{65536u, 16}}) {
            gh::GroupedSpec spec{gh::BucketSpec{0, 1200, nbins, gh::BucketRule::pg15}, groups};
            if (constant)
                fill_constant<<<1024, 256>>>(b.groups, b.n, static_cast<uint32_t>(groups / 2));
            else
                fill_groups<<<1024, 256>>>(b.groups, b.n, groups);
            CHECK(cudaDeviceSynchronize());
            const size_t cells = size_t(gh::grouped_cells(spec));
            float ms = b.zeroed_ms(cells, [&] {
                CHECK(gh::bin_grouped_on_device(b.x, b.groups, b.n, spec, b.counts, b.flags, lim, nullptr));
            });
            std::string what = "grouped " + std::to_string(groups) + " x " + std::to_string(nbins + 2) + " (" +
                               plan_label(gh::kernel_plan(int32_t(cells), 8, lim)) + ")";
            report("grouped", "float8", input, int(cells), what.c_str(), b.n * 12, ms, ceiling);
        }
    }
}

/*
 * The sidecar on the SMs clusters leave idle (cuda_kernels.cu), by its
 * weight: none (-1), the engine's choice, then a quarter to the whole of a
 * cluster SM's speed.
 */
inline void sidecar_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    const int64_t year = 365LL * 86400000000LL;
    for (bool constant : {false, true}) {
        const char *input = constant ? "constant" : "uniform";
        b.fill(constant, year);
        fill_groups<<<1024, 256>>>(b.groups, b.n, 65536);
        float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
        float ceiling = b.n * 8 / (ceiling_ms * 1e-3) / 1e9;
        report("sidecar", "float8", input, 0, "cub DeviceReduce::Sum", b.n * 8, ceiling_ms, ceiling);
        for (int weight : {-1, 0, 25, 50, 100}) {
            gh::KernelLimits l = lim;
            l.cluster_sidecar = weight;
            auto label = [&](const char *what, int32_t cells) {
                const std::string w = weight < 0    ? "off"
                                      : weight == 0 ? "the engine's"
                                                    : std::to_string(weight) + " %";
                return std::string(what) + " (" + plan_label(gh::kernel_plan(cells, 8, l)) + "), sidecar " + w;
            };
            for (int32_t nbins : {262144, 1000000}) {
                gh::BucketSpec spec{0, 1200, nbins, gh::BucketRule::pg15};
                float ms = b.zeroed_ms(size_t(nbins) + 2, [&] {
                    CHECK(gh::bin_on_device(b.x, b.n, spec, b.counts, b.flags, l, nullptr));
                });
                report("sidecar", "float8", input, nbins, label("float", nbins + 2).c_str(), b.n * 8, ms, ceiling);
            }
            gh::Int64Spec tspec{0, year, 1000000, gh::NumericRule::pg15};
            float ms = b.zeroed_ms(1000002, [&] {
                CHECK(gh::bin_int64_on_device(b.t, b.n, tspec, b.counts, b.flags, l, nullptr));
            });
            report("sidecar", "int64", input, 1000000, label("time", 1000002).c_str(), b.n * 8, ms, ceiling);
            gh::GroupedSpec gspec{gh::BucketSpec{0, 1200, 16, gh::BucketRule::pg15}, 65536};
            const size_t cells = size_t(gh::grouped_cells(gspec));
            ms = b.zeroed_ms(cells, [&] {
                CHECK(gh::bin_grouped_on_device(b.x, b.groups, b.n, gspec, b.counts, b.flags, l, nullptr));
            });
            report("sidecar", "float8", input, int(cells), label("grouped 65536 x 18", int32_t(cells)).c_str(),
                   b.n * 12, ms, ceiling);
        }
    }
}

/* Global atomics alone, n of them at hashed cells: 64-bit, 32-bit, and 32-bit with the carry into a 64-bit word. */
__global__ void atomics_u64(size_t n, uint32_t cells, unsigned long long *c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&c[mix(i) % cells], 1ull);
}
__global__ void atomics_u32(size_t n, uint32_t cells, unsigned int *c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&c[mix(i) % cells], 1u);
}
__global__ void atomics_u32_carry(size_t n, uint32_t cells, unsigned long long *c)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned int *word = reinterpret_cast<unsigned int *>(&c[mix(i) % cells]);
        if (atomicAdd(word, 1u) == 0xffffffffu)
            atomicAdd(word + 1, 1u);
    }
}

/* The probe behind the choice of 64-bit device counters (only when asked for): 2^28 atomics each. */
inline void atomics_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    b.fill(false, 1);
    float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
    float ceiling = b.n * 8 / (ceiling_ms * 1e-3) / 1e9;
    const int grid = lim.multiprocessors * 8;
    for (uint32_t cells : {262144u, 1000000u}) {
        float u64 = b.zeroed_ms(cells, [&] { atomics_u64<<<grid, 256>>>(b.n, cells, b.counts); }, 1, 5);
        report("atomics", "float8", "uniform", int(cells), "red.global.add.u64", b.n * 8, u64, ceiling);
        float u32 = b.zeroed_ms(cells, [&] {
            atomics_u32<<<grid, 256>>>(b.n, cells, reinterpret_cast<unsigned int *>(b.counts));
        }, 1, 5);
        report("atomics", "float8", "uniform", int(cells), "red.global.add.u32", b.n * 8, u32, ceiling);
        float carry = b.zeroed_ms(cells, [&] { atomics_u32_carry<<<grid, 256>>>(b.n, cells, b.counts); }, 1, 5);
        report("atomics", "float8", "uniform", int(cells), "atom.global.add.u32 + carry", b.n * 8, carry, ceiling);
    }
}

/* Every path forced in turn at the counts where the choice changes (fewer runs each: only for choosing). */
inline void paths_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    /* shared (where it fits), block and narrow (at most 8 slices), global, clusters of each size that fits */
    auto each_path = [&](int32_t slots, const std::function<void(const gh::KernelLimits &, const std::string &)> &f) {
        std::vector<gh::KernelLimits> all;
        gh::KernelLimits l = lim;
        for (gh::KernelPath p :
             {gh::KernelPath::shared, gh::KernelPath::block, gh::KernelPath::narrow, gh::KernelPath::global}) {
            l.force_path = p;
            gh::KernelPlan plan = gh::kernel_plan(slots, 8, l);
            if (plan.path == p && plan.slices <= 8)
                all.push_back(l);
        }
        l.force_path = gh::KernelPath::cluster;
        for (l.cluster_blocks = 2; l.cluster_blocks <= lim.max_cluster; l.cluster_blocks *= 2) {
            gh::KernelPlan plan = gh::kernel_plan(slots, 8, l);
            if (plan.path == gh::KernelPath::cluster && plan.slices == l.cluster_blocks)
                all.push_back(l);
        }
        for (const gh::KernelLimits &p : all)
            f(p, plan_label(gh::kernel_plan(slots, 8, p)));
    };
    const int64_t year = 365LL * 86400000000LL;
    for (bool constant : {false, true}) {
        const char *input = constant ? "constant" : "uniform";
        b.fill(constant, year);
        float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
        float ceiling = b.n * 8 / (ceiling_ms * 1e-3) / 1e9;
        report("paths", "float8", input, 0, "cub DeviceReduce::Sum", b.n * 8, ceiling_ms, ceiling);
        for (int32_t nbins : {8192, 16384, 32768, 50000, 65536, 262144, 1000000, 4000000}) {
            gh::BucketSpec spec{0, 1200, nbins, gh::BucketRule::pg15};
            each_path(nbins + 2, [&](const gh::KernelLimits &l, const std::string &label) {
                float ms = b.zeroed_ms(size_t(nbins) + 2, [&] {
                    CHECK(gh::bin_on_device(b.x, b.n, spec, b.counts, b.flags, l, nullptr));
                }, 1, 5);
                report("paths", "float8", input, nbins, ("float " + label).c_str(), b.n * 8, ms, ceiling);
            });
        }
        for (int32_t nbins : {100000, 1000000}) {
            gh::Int64Spec spec{0, year, nbins, gh::NumericRule::pg15};
            each_path(nbins + 2, [&](const gh::KernelLimits &l, const std::string &label) {
                float ms = b.zeroed_ms(size_t(nbins) + 2, [&] {
                    CHECK(gh::bin_int64_on_device(b.t, b.n, spec, b.counts, b.flags, l, nullptr));
                }, 1, 5);
                report("paths", "int64", input, nbins, ("time " + label).c_str(), b.n * 8, ms, ceiling);
            });
        }
        for (int32_t count : {100000, 1000000}) {
            const gh::DeviceThresholds staged = set_thresholds(b, count);
            each_path(count + 1, [&](const gh::KernelLimits &l, const std::string &label) {
                float ms = b.zeroed_ms(size_t(count) + 1, [&] {
                    CHECK(gh::bin_thresholds_on_device(b.x, b.n, staged, b.counts, b.flags, l, nullptr));
                }, 1, 5);
                report("paths", "float8", input, count, ("thresholds " + label).c_str(), b.n * 8, ms, ceiling);
            });
        }
        gh::GroupedSpec spec{gh::BucketSpec{0, 1200, 16, gh::BucketRule::pg15}, 65536};
        fill_groups<<<1024, 256>>>(b.groups, b.n, 65536);
        each_path(int32_t(gh::grouped_cells(spec)), [&](const gh::KernelLimits &l, const std::string &label) {
            float ms = b.zeroed_ms(size_t(gh::grouped_cells(spec)), [&] {
                CHECK(gh::bin_grouped_on_device(b.x, b.groups, b.n, spec, b.counts, b.flags, l, nullptr));
            }, 1, 5);
            report("paths", "float8", input, int(gh::grouped_cells(spec)), ("grouped " + label).c_str(), b.n * 12, ms,
                   ceiling);
        });
    }
}

} // namespace bench

#endif /* GH_KERNEL_BENCH_CELLS_CUH */
