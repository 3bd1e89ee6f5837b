/*
 * cuda_kernels.cuh: the histogram kernels' launcher, for code compiled by
 * nvcc (the CUDA backend, the GPU unit tests, the kernel benchmark).
 *
 * Layering as in CUB: bin_on_device() picks the path (kernel_plan()) and
 * sizes the grid from the device's properties; the kernels in
 * kernel_paths.cuh, kernel_block.cuh and kernel_cluster.cuh do the
 * per-block work.  Values are read where they lie in device memory; the
 * page kernel (bin_pages_on_device) reads heap pages where they lie in
 * mapped host memory.
 */
#ifndef GH_CUDA_KERNELS_CUH
#define GH_CUDA_KERNELS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../specs/grouped_page_spec.h"
#include "../specs/grouped_spec.h"
#include "../specs/histogram_spec.h"
#include "../specs/page_cache_device.cuh"
#include "../specs/page_spec.h"
#include "../formulas/threshold_index.h"

namespace gh {

/* How a launch counts (kernel_paths.cuh, kernel_block.cuh and kernel_cluster.cuh say why there are five ways). */
enum class KernelPath : int32_t {
    automatic = 0, /* only in KernelLimits::force_path: the engine's choice */
    shared,        /* copies of every counter in each block's shared memory */
    block,         /* one copy of 32-bit counters per large block, in slices if need be */
    narrow,        /* the same with 16-bit counters: twice as many per block */
    global,        /* 64-bit atomics in device memory */
    cluster,       /* one copy of 16-bit counters spread over a thread block cluster (sm_90) */
};

/* What a launch needs to know about the device; filled once by describe_device(). */
struct KernelLimits {
    int device; /* the ordinal these limits are of: launches go to this device */
    int multiprocessors;
    int max_shared_per_block; /* opt-in limit, bytes */
    int max_shared_per_sm;
    int max_cluster; /* blocks a cluster of full-memory blocks may have: 0 (no clusters), 8 or 16 */
    /*
     * Tests and benchmarks only (describe_device() leaves them 0): take
     * force_path where it can bin the histogram, in at most max_blocks
     * blocks (at least one per slice, one cluster), a forced cluster path
     * in clusters of cluster_blocks (0: the fewest that fit), with at most
     * max_cluster_steps steps a round (0: the engine's cap) and
     * cluster_prefetch steps of input prefetched into L2 ahead of the loads
     * (0: the engine's choice, -1: none), and a sidecar on the SMs that
     * clusters leave idle weighted cluster_sidecar percent of a cluster's
     * SM (0: the engine's choice, -1: none; max_blocks > 0 takes none).
     * kernel_bench sweeps them.
     */
    KernelPath force_path;
    int max_blocks;
    int cluster_blocks;
    int max_cluster_steps;
    int cluster_prefetch;
    int cluster_sidecar;
};

cudaError_t describe_device(int device, KernelLimits *limits);

/* The choice a launch makes for a histogram, as kernel_plan() and threshold_plan() report it. */
struct KernelPlan {
    KernelPath path;
    int slices;        /* side-by-side passes (block paths), blocks per cluster (cluster path) */
    int32_t per_block; /* counters in each block's shared memory (block and cluster paths) */
    int steps;         /* steps a round (cluster path) */
};

/* The plan for `slots` counters of samples `sample_bytes` wide (1, 4 or 8), without a table. */
KernelPlan kernel_plan(int32_t slots, size_t sample_bytes, const KernelLimits &limits);
/* The plan for a time histogram of nbins buckets (int64 samples). */
KernelPlan time_plan(int32_t nbins, const KernelLimits &limits);
/* The plan for thresholds staged on the device (count + 1 counters; an index, or the search's top in shared memory). */
KernelPlan threshold_plan(const DeviceThresholds &thresholds, const KernelLimits &limits);
/* "shared", "block", "narrow x 3 slices", "global", "cluster of 16, 3 steps": for benchmarks' labels. */
const char *describe_plan(const KernelPlan &plan, char *buf, size_t size);

/* Whether bin_on_device counts float8 samples in shared memory for nbins (1-byte samples always do). */
bool uses_shared_memory(int32_t nbins, const KernelLimits &limits);

/*
 * Adds the buckets of values[0 .. n) to counts[0 .. nbins + 1] (64-bit device
 * counters) on `stream`, and ORs 1 into *flags if any value is NaN.
 * values may have any alignment.  Returns the launch error, if any.
 * T is double, float or uint8_t; each value is bucketed as the double it
 * converts to, exactly as width_bucket(value::float8, ...) would.
 */
template <typename T>
cudaError_t bin_on_device(const T *values, size_t n, const BucketSpec &spec, unsigned long long *counts,
                          int *flags, const KernelLimits &limits, cudaStream_t stream);

/* The same for a time histogram's int64 values; the flags are never set. */
cudaError_t bin_int64_on_device(const int64_t *values, size_t n, const Int64Spec &spec, unsigned long long *counts,
                                int *flags, const KernelLimits &limits, cudaStream_t stream);

/*
 * Device memory for `count` thresholds as stage_thresholds() lays them out:
 * the thresholds, then, for an array the index covers (sorted, finite),
 * their index's cells and, above 4,096 thresholds, their segments
 * (threshold_index.h).  Host code; reads the thresholds.
 */
size_t threshold_device_bytes(const double *thresholds, int32_t count);

/*
 * Copies `count` thresholds from host memory, and builds and copies their
 * index and segments, into `device` (threshold_device_bytes() bytes,
 * 16-byte aligned) on `stream`; *out says where they are.  Returns once the
 * host's thresholds have been read (they may go); cudaErrorMemoryAllocation
 * where the host has no memory for the index.
 */
cudaError_t stage_thresholds(const double *thresholds, int32_t count, void *device, cudaStream_t stream,
                             DeviceThresholds *out);

/*
 * The same for thresholds: counts[0 .. count] (count + 1 bins), for
 * thresholds stage_thresholds() put on the device.  A NaN value has a bin:
 * the flags are never set.
 */
cudaError_t bin_thresholds_on_device(const double *values, size_t n, const DeviceThresholds &thresholds,
                                     unsigned long long *counts, int *flags, const KernelLimits &limits,
                                     cudaStream_t stream);

/*
 * Grouped (grouped_spec.h): value i goes to counts[groups[i] * (nbins + 2)
 * + its bucket], for a spec grouped_spec_fits() accepts; ORs 1 into *flags
 * for a NaN value and 2 for a group number >= spec.groups (not counted).
 */
cudaError_t bin_grouped_on_device(const double *values, const uint32_t *groups, size_t n, const GroupedSpec &spec,
                                  unsigned long long *counts, int *flags, const KernelLimits &limits,
                                  cudaStream_t stream);

/*
 * The page kernel (kernel_pages.cuh, cuda_page_kernels.cu): for each of the
 * npages page words page_words[0 .. npages) (device memory, page_word()s)
 * it reads buffer page_word_buffer() at pool + buffer * 8192, a device
 * pointer to mapped host memory of pool_pages pages (a word naming a
 * buffer past them is skipped), and adds the float8 bucket of column col
 * of each normal tuple among its first lines line pointers (at most
 * heap_layout::kMaxTuplesPerPage) to counts[0 .. nbins + 1], ORing 1 into
 * *flags for a NaN, and the number of those normal tuples, NULL or not,
 * to *tuples.  pool must be 16-byte aligned, col fit page_column_fits()
 * and tuples be given, else cudaErrorInvalidValue and nothing launched.
 * limits.force_path may pick shared or global, and limits.max_blocks cap
 * the grid (tests only).  cache: the batch's page cache directives
 * (resolve_cached_pages), none by default.
 */
cudaError_t bin_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                uint64_t pool_pages, const PageColumn &col, const BucketSpec &spec,
                                unsigned long long *counts, int *flags, unsigned long long *tuples,
                                const KernelLimits &limits, cudaStream_t stream,
                                const PageCacheView &cache = PageCacheView{nullptr, nullptr});

/*
 * The same for any kind of histogram: the float8 form as above; the time
 * form over the stored integer of a date or timestamp column (col.as_word,
 * which only the time form has); thresholds, at most kMaxPageThresholds,
 * from spec.thresholds.thresholds in device memory (the copy that
 * gpu_histogram_open staged).  A column that does not match its form, or
 * more thresholds, give cudaErrorInvalidValue, and nothing is launched.
 */
cudaError_t bin_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                uint64_t pool_pages, const PageColumn &col, const HistogramSpec &spec,
                                unsigned long long *counts, int *flags, unsigned long long *tuples,
                                const KernelLimits &limits, cudaStream_t stream,
                                const PageCacheView &cache = PageCacheView{nullptr, nullptr});

/*
 * The grouped page kernel (kernel_grouped_pages.cuh) over the same page
 * words: for every normal tuple that passes spec's quals it counts the
 * value's bucket and the row into its group's cells of counts[0 ..
 * grouped_page_cells(spec)), the normal tuples of counted pages into
 * *tuples, and sets bounced[p] to 1 for each page it left to the host (a
 * key it cannot place), 0 for the others.  table: the keys' interval
 * tables in device memory (table_words int64s).  cudaErrorInvalidValue,
 * nothing launched, for a spec grouped_page_spec_fits() refuses.
 */
cudaError_t bin_grouped_pages_on_device(const uint64_t *page_words, size_t npages, const unsigned char *pool,
                                        uint64_t pool_pages, const GroupedPageSpec &spec, const int64_t *table,
                                        int32_t table_words, unsigned long long *counts, int *flags,
                                        unsigned long long *tuples, unsigned char *bounced,
                                        const KernelLimits &limits, cudaStream_t stream,
                                        const PageCacheView &cache = PageCacheView{nullptr, nullptr});

/* Whether the grouped page kernel takes spec over a table of table_words int64s. */
bool grouped_page_spec_fits(const GroupedPageSpec &spec, int64_t table_words);
/*
 * The same, with the table at hand in host memory, where the value
 * aggregates' columns lie: they are checked too (without it, only where
 * they lie).
 */
bool grouped_page_spec_fits(const GroupedPageSpec &spec, const int64_t *table, int64_t table_words);

/*
 * Whether the page kernel can read col as a value (a float or integer
 * type, never a boolean): attno from 1, nprefix attno - 1
 * (at most kMaxPagePrefix), the column's length its type's, alignments of
 * 1, 2, 4 or 8, earlier columns fixed width or varlenas, and fixed_offset
 * what the walk over every earlier column gives (-1 after a varlena).
 */
bool page_column_fits(const PageColumn &col);

/* Where the page kernel counts nbins buckets: KernelPath::shared (beside the page) or KernelPath::global. */
KernelPath page_path(int32_t nbins, const KernelLimits &limits);

} // namespace gh

#endif /* GH_CUDA_KERNELS_CUH */
