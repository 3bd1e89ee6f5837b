/*
 * cpu_backend.cpp: the CPU binning loop.
 *
 * This loop is most of the CPU cost of gpu_histogram() beyond the scan, and
 * its cost is the division in width_bucket's formula.  So it runs in two
 * passes over blocks of values: first the bucket numbers, a loop without
 * stores to shared counters that the compiler turns into SIMD (several
 * divisions per instruction, each exactly rounded, so the results do not
 * change), then the increments.  The bound order and the rule are template
 * parameters, hoisted out of the loop.  Each variant is also cloned for AVX2
 * (four divisions per instruction) and picked at load time by the CPU it
 * runs on; the baseline x86-64 clone keeps the library portable.
 */
#include "cpu_backend.h"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

constexpr size_t kBlock = 1024;

template <bool Ascending, BucketRule Rule>
__attribute__((always_inline)) inline Status bin_loop(const BucketSpec &spec, const double *values, size_t n, int64_t *counts)
{
    const BucketSpec s{spec.lo, spec.hi, spec.nbins, Rule};
    const uint32_t last = static_cast<uint32_t>(spec.nbins) + 1;
    int32_t bucket[kBlock];
    for (size_t start = 0; start < n; start += kBlock) {
        size_t len = n - start < kBlock ? n - start : kBlock;
        const double *v = values + start;
        for (size_t i = 0; i < len; i++)
            bucket[i] = Ascending ? bucket_ascending(v[i], s) : bucket_descending(v[i], s);
        for (size_t i = 0; i < len; i++) {
            uint32_t b = static_cast<uint32_t>(bucket[i]);
            if (b > last) /* kNaNBucket */
                return Status::nan_value;
            counts[b]++;
        }
    }
    return Status::ok;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GH_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GH_CPU_CLONES
#endif

#define GH_BIN_VARIANT(name, ascending, rule)                                                      \
    GH_CPU_CLONES Status name(const BucketSpec &spec, const double *values, size_t n,              \
                              int64_t *counts)                                                     \
    {                                                                                              \
        return bin_loop<ascending, rule>(spec, values, n, counts);                                 \
    }
GH_BIN_VARIANT(bin_up_pg15, true, BucketRule::pg15)
GH_BIN_VARIANT(bin_down_pg15, false, BucketRule::pg15)
GH_BIN_VARIANT(bin_up_pg16, true, BucketRule::pg16)
GH_BIN_VARIANT(bin_down_pg16, false, BucketRule::pg16)

} // namespace

Status cpu_bin(const BucketSpec &spec, const double *values, size_t n, int64_t *counts) noexcept
{
    bool ascending = spec.lo < spec.hi;
    if (spec.rule == BucketRule::pg15)
        return ascending ? bin_up_pg15(spec, values, n, counts) : bin_down_pg15(spec, values, n, counts);
    return ascending ? bin_up_pg16(spec, values, n, counts) : bin_down_pg16(spec, values, n, counts);
}

const char *status_text(Status s) noexcept
{
    switch (s) {
    case Status::ok: return "success";
    case Status::nan_value: return "value is NaN";
    case Status::not_built: return "extension was built without CUDA";
    case Status::no_device: return "no usable CUDA device";
    case Status::out_of_memory: return "out of GPU or pinned host memory";
    case Status::interrupted: return "interrupted while waiting for the GPU";
    case Status::cuda_error: return "CUDA call failed";
    case Status::internal_error: return "internal error in the histogram engine";
    }
    return "unknown status";
}

} // namespace gh
