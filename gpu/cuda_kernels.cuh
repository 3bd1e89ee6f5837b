/*
 * cuda_kernels.cuh: the histogram kernels' launcher, for code compiled by
 * nvcc (the CUDA backend, the GPU unit tests, the kernel benchmark).
 *
 * Layering as in CUB: bin_on_device() picks the path and sizes the grid
 * from the device's properties; the kernels in cuda_kernels.cu do the
 * per-block work.  Values are read where they lie in device memory.
 */
#ifndef GH_CUDA_KERNELS_CUH
#define GH_CUDA_KERNELS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "histogram_spec.h"

namespace gh {

/* What a launch needs to know about the device; filled once by describe_device(). */
struct KernelLimits {
    int device; /* the ordinal these limits are of: launches go to this device */
    int multiprocessors;
    int max_shared_per_block; /* opt-in limit, bytes */
    int max_shared_per_sm;
};

cudaError_t describe_device(int device, KernelLimits *limits);

/* Sample types the kernels are instantiated for. */
template <typename T> struct SampleType;

/*
 * Adds the buckets of values[0 .. n) to counts[0 .. nbins + 1] (64-bit device
 * counters) on `stream`, and sets *nan_flag to 1 if any value is NaN.
 * values may have any alignment.  Returns the launch error, if any.
 * T is double, float or uint8_t; each value is bucketed as the double it
 * converts to, exactly as width_bucket(value::float8, ...) would.
 */
template <typename T>
cudaError_t bin_on_device(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts,
                          int *nan_flag, const KernelLimits &limits, cudaStream_t stream);

/* The same for a time histogram's int64 values; the nan flag is never set. */
cudaError_t bin_int64_on_device(const int64_t *values, size_t n, const Int64Spec &spec, unsigned long long *counts,
                                int *nan_flag, const KernelLimits &limits, cudaStream_t stream);

/*
 * The same for thresholds: counts[0 .. count] (count + 1 bins), the count
 * thresholds in device memory.  A NaN value has a bin: the flag is never set.
 */
cudaError_t bin_thresholds_on_device(const double *values, size_t n, const double *device_thresholds, int32_t count,
                                     unsigned long long *counts, int *nan_flag, const KernelLimits &limits,
                                     cudaStream_t stream);

/* Whether bin_on_device counts float8 samples in shared memory for nbins (1-byte samples always do). */
bool uses_shared_memory(int32_t nbins, const KernelLimits &limits);

/* Whether the threshold kernels search `count` thresholds in shared memory (else in global memory). */
bool thresholds_in_shared_memory(int32_t count, const KernelLimits &limits);

} // namespace gh

#endif /* GH_CUDA_KERNELS_CUH */
