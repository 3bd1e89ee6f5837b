/*
 * kernel_bench_steps.cuh: the kernel benchmark's "steps" section (only when
 * asked for), included by kernel_bench.cu after kernel_bench_cells.cuh.
 *
 * The cluster path (gpu/kernels/kernel_cluster.cuh) routes a round of up to four
 * steps into its outboxes between two cluster barriers; how many steps a
 * round, how many blocks a cluster and how far ahead the input is
 * prefetched into L2 are the engine's choices there (cuda_kernels.cu:
 * cluster_shape, cluster_plan, kClusterPrefetch).  This section measures
 * every size and cap that fit, each without prefetch and 1, 2 and 4 steps
 * ahead, for the shapes issue 15 is about, so that one run of the device
 * decides them: float8 histograms of 262,144 and 1,000,000
 * buckets and grouped ones of 65,536 x 18 and 2,778 x 66 cells, uniform
 * and constant, each against the read ceiling of the same run; then the
 * engine's own choice for those and for 4,096 and 65,536 buckets, where
 * nothing should have moved.  A cap that the outboxes' room lowers to
 * fewer steps is the same launch as that smaller cap, so it is skipped.
 */
#ifndef GH_KERNEL_BENCH_STEPS_CUH
#define GH_KERNEL_BENCH_STEPS_CUH

#include <string>

#include "dispatch/cuda_kernels.cuh"
#include "kernel_bench_cells.cuh"
#include "kernel_bench_common.cuh"

namespace bench {

/* One shape: a float8 histogram of nbins buckets (groups 0), or a grouped one of groups x (nbins + 2) cells. */
struct StepsShape {
    int32_t nbins;
    uint32_t groups;
};

inline void steps_section(CellBuffers &b, const gh::KernelLimits &lim, void *tmp, size_t tmp_bytes)
{
    const StepsShape swept[] = {{262144, 0}, {1000000, 0}, {16, 65536}, {64, 2778}};
    const StepsShape unchanged[] = {{4096, 0}, {65536, 0}};
    for (bool constant : {false, true}) {
        const char *input = constant ? "constant" : "uniform";
        b.fill(constant, 1);
        float ceiling_ms = read_ceiling(b.x, b.n, tmp, tmp_bytes, b.sum_out);
        float ceiling = b.n * 8 / (ceiling_ms * 1e-3) / 1e9;
        report("steps", "float8", input, 0, "cub DeviceReduce::Sum", b.n * 8, ceiling_ms, ceiling);
        /* one launch of a shape under limits l, reported with its plan and prefetch */
        auto measure = [&](const StepsShape &shape, const gh::KernelLimits &l, const char *prefix) {
            const std::string prefetch = l.cluster_prefetch == 0   ? ""
                                         : l.cluster_prefetch < 0 ? ", no prefetch"
                                                                  : ", prefetch " + std::to_string(l.cluster_prefetch);
            if (shape.groups == 0) {
                const gh::BucketSpec spec{0, 1200, shape.nbins, gh::BucketRule::pg15};
                const int32_t cells = shape.nbins + 2;
                float ms = b.zeroed_ms(size_t(cells), [&] {
                    CHECK(gh::bin_on_device(b.x, b.n, spec, b.counts, b.flags, l, nullptr));
                });
                std::string what = std::string(prefix) + "float " + plan_label(gh::kernel_plan(cells, 8, l)) + prefetch;
                report("steps", "float8", input, shape.nbins, what.c_str(), b.n * 8, ms, ceiling);
                return;
            }
            const gh::GroupedSpec spec{gh::BucketSpec{0, 1200, shape.nbins, gh::BucketRule::pg15}, shape.groups};
            const int32_t cells = int32_t(gh::grouped_cells(spec));
            float ms = b.zeroed_ms(size_t(cells), [&] {
                CHECK(gh::bin_grouped_on_device(b.x, b.groups, b.n, spec, b.counts, b.flags, l, nullptr));
            });
            std::string what = std::string(prefix) + "grouped " + std::to_string(shape.groups) + " x " +
                               std::to_string(shape.nbins + 2) + " (" + plan_label(gh::kernel_plan(cells, 8, l)) +
                               prefetch + ")";
            report("steps", "float8", input, cells, what.c_str(), b.n * 12, ms, ceiling);
        };
        for (const StepsShape &shape : swept) {
            if (shape.groups != 0) {
                if (constant)
                    fill_constant<<<1024, 256>>>(b.groups, b.n, shape.groups / 2);
                else
                    fill_groups<<<1024, 256>>>(b.groups, b.n, shape.groups);
                CHECK(cudaDeviceSynchronize());
            }
            const int32_t cells = shape.groups == 0 ? shape.nbins + 2 : int32_t(shape.groups) * (shape.nbins + 2);
            measure(shape, lim, "engine: ");
            gh::KernelLimits l = lim;
            l.force_path = gh::KernelPath::cluster;
            for (l.cluster_blocks = 2; l.cluster_blocks <= lim.max_cluster; l.cluster_blocks *= 2)
                for (l.max_cluster_steps = 1; l.max_cluster_steps <= 4; l.max_cluster_steps++) {
                    const gh::KernelPlan plan = gh::kernel_plan(cells, 8, l);
                    if (plan.path != gh::KernelPath::cluster || plan.slices != l.cluster_blocks ||
                        plan.steps != l.max_cluster_steps)
                        continue; /* does not fit, or the same launch as a smaller cap */
                    for (int prefetch : {-1, 1, 2, 4}) {
                        l.cluster_prefetch = prefetch;
                        measure(shape, l, "");
                    }
                    l.cluster_prefetch = 0;
                }
        }
        for (const StepsShape &shape : unchanged)
            measure(shape, lim, "engine: ");
    }
}

} // namespace bench

#endif /* GH_KERNEL_BENCH_STEPS_CUH */
