/*
 * cpu_backend.cpp: the CPU binning loop.
 *
 * This loop is most of the CPU cost of gpu_histogram(), so the bound order
 * and the rule are hoisted out of it with a template: the body is two
 * compares, the width_bucket arithmetic and one increment.
 */
#include "cpu_backend.h"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

template <bool Ascending, BucketRule Rule>
Status bin_loop(const BucketSpec &spec, const double *values, size_t n, int64_t *counts)
{
    const BucketSpec s{spec.lo, spec.hi, spec.nbins, Rule};
    for (size_t i = 0; i < n; i++) {
        double x = values[i];
        if (x != x)
            return Status::nan_value;
        counts[Ascending ? bucket_ascending(x, s) : bucket_descending(x, s)]++;
    }
    return Status::ok;
}

} // namespace

Status cpu_bin(const BucketSpec &spec, const double *values, size_t n, int64_t *counts) noexcept
{
    bool ascending = spec.lo < spec.hi;
    if (spec.rule == BucketRule::pg15)
        return ascending ? bin_loop<true, BucketRule::pg15>(spec, values, n, counts)
                         : bin_loop<false, BucketRule::pg15>(spec, values, n, counts);
    return ascending ? bin_loop<true, BucketRule::pg16>(spec, values, n, counts)
                     : bin_loop<false, BucketRule::pg16>(spec, values, n, counts);
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
