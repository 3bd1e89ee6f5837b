/*
 * kernel_binners.cuh: what a kernel needs to know to bin one value, one
 * struct per kind of histogram, for cuda_kernels.cu and the page kernel
 * (kernel_pages.cuh).
 *
 * The kernels (kernel_paths.cuh) are written once and bin every kind
 * through a binner passed by value: float8 intervals (bucket.h), float4
 * intervals in single precision (bucket_single.h), int64
 * time intervals (time_bucket.h), thresholds (threshold_bucket.h) and
 * grouped float8 intervals (grouped_spec.h).  Each binner calls the one
 * shared definition of its bucket; none has arithmetic of its own (float8
 * intervals go through bucket_fast.h, which multiplies where that cannot
 * change bucket.h's answer and calls bucket.h everywhere else).
 *
 * A binner answers slots(), its number of counters, and operator()(x, i),
 * the counter of value x at index i, or a negative error code: kNaNBucket
 * for a NaN, kBadGroupBucket for a group number out of range.  A binner
 * may keep a table in shared memory, table_bytes() at the start of the
 * block's dynamic shared memory: attach() fills it, and the kernel
 * synchronises before the first value is binned.
 */
#ifndef GH_KERNEL_BINNERS_CUH
#define GH_KERNEL_BINNERS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../formulas/bucket_fast.h"
#include "../formulas/bucket_single.h"
#include "../specs/grouped_spec.h"
#include "../formulas/threshold_bucket.h"
#include "../formulas/threshold_index.h"
#include "../formulas/time_bucket.h"

namespace gh {
namespace kernels {

/* float8 intervals: bucket.h's answer, by bucket_fast.h's reciprocal (rc = reciprocal_for(spec)). */
template <bool Ascending, BucketRule Rule> struct FloatBinner {
    double lo, hi;
    int32_t nbins;
    Reciprocal rc;
    __host__ __device__ int32_t slots() const { return nbins + 2; }
    __host__ __device__ size_t table_bytes() const { return 0; }
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(double x, size_t) const
    {
        BucketSpec s{lo, hi, nbins, Rule};
        return Ascending ? bucket_ascending_fast(x, s, rc) : bucket_descending_fast(x, s, rc);
    }
};

/*
 * float4 intervals: the same answers, in single precision (bucket_single.h).
 * A value in doubt is settled by a table of the buckets' edges in shared
 * memory, which every block computes in attach(), two or three exact
 * buckets an edge.  Launched only for specs that get a table (tabled()):
 * past kMaxTabled buckets, or where the single form is useless, the
 * launcher bins float4 with FloatBinner, so no value is left in doubt.
 */
template <bool Ascending, BucketRule Rule> struct SingleBinner {
    static constexpr int32_t kMaxTabled = 8192;
    FloatBinner<Ascending, Rule> wide;
    SingleBinning single;
    const float *edges; /* set by attach(), when tabled() */

    __host__ __device__ bool tabled() const { return single.slack < 1.0f && wide.nbins <= kMaxTabled; }
    __host__ __device__ int32_t slots() const { return wide.slots(); }
    __host__ __device__ size_t table_bytes() const
    {
        return tabled() ? sizeof(float) * (static_cast<size_t>(wide.nbins) + 2) : 0;
    }
    __device__ void attach(unsigned char *smem)
    {
        edges = nullptr;
        if (!tabled())
            return;
        float *table = reinterpret_cast<float *>(smem);
        const BucketSpec s{wide.lo, wide.hi, wide.nbins, Rule};
        for (int32_t j = threadIdx.x; j < wide.nbins + 2; j += blockDim.x)
            table[j] = j == 0 ? -INFINITY : single_edge<Ascending>(j, s); /* [0] is never read */
        edges = table;
    }
    __device__ int32_t operator()(float x, size_t) const { return bucket_single<Ascending>(x, single, edges); }
    /* for the kernels' 1-byte branch, which float input never takes */
    __device__ int32_t operator()(double x, size_t i) const { return wide(x, i); }
};

struct Int64Binner {
    Int64Binning binning;
    __host__ __device__ int32_t slots() const { return binning.nbins + 2; }
    __host__ __device__ size_t table_bytes() const { return 0; }
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(int64_t x, size_t) const { return int64_bucket(x, binning); }
};

/* The group's offset plus the float8 bucket; the group number is read by the value's index. */
template <bool Ascending, BucketRule Rule> struct GroupedBinner {
    FloatBinner<Ascending, Rule> bucket_of;
    const uint32_t *groups; /* device memory, one per value */
    uint32_t ngroups;
    __host__ __device__ int32_t slots() const { return static_cast<int32_t>(ngroups) * bucket_of.slots(); }
    __host__ __device__ size_t table_bytes() const { return 0; }
    __device__ void attach(unsigned char *) {}
    __device__ int32_t operator()(double x, size_t i) const
    {
        int32_t b = bucket_of(x, i);
        uint32_t g = __ldg(groups + i);
        if (b < 0)
            return b;
        if (g >= ngroups)
            return kBadGroupBucket;
        return static_cast<int32_t>(g) * bucket_of.slots() + b; /* < kMaxGroupedCells */
    }
};

/*
 * Calls f with the float binner for the spec's bound order and rule: each is
 * a kernel of its own.  Host code, for every launcher of float8 intervals.
 */
template <typename F> cudaError_t with_float_binner(const BucketSpec &s, F f)
{
    bool up = s.lo < s.hi;
    const Reciprocal rc = reciprocal_for(s);
    if (s.rule == BucketRule::pg15)
        return up ? f(FloatBinner<true, BucketRule::pg15>{s.lo, s.hi, s.nbins, rc})
                  : f(FloatBinner<false, BucketRule::pg15>{s.lo, s.hi, s.nbins, rc});
    return up ? f(FloatBinner<true, BucketRule::pg16>{s.lo, s.hi, s.nbins, rc})
              : f(FloatBinner<false, BucketRule::pg16>{s.lo, s.hi, s.nbins, rc});
}

/* The single-precision binner of a float binner, for float4 input. */
template <bool Ascending, BucketRule Rule>
SingleBinner<Ascending, Rule> single_binner(const FloatBinner<Ascending, Rule> &wide)
{
    return SingleBinner<Ascending, Rule>{wide, single_binning_for(BucketSpec{wide.lo, wide.hi, wide.nbins, Rule}),
                                         nullptr};
}

/*
 * Thresholds: PostgreSQL's binary search, step for step (threshold_step),
 * so that unsorted arrays and NaN thresholds give the server's answer.
 * Where its steps read the thresholds from decides its speed.  Up to a few
 * thousand: a copy of all of them in shared memory.
 */
struct ThresholdBinner {
    const double *thresholds; /* device memory; the shared copy once attached */
    int32_t count;

    __host__ __device__ int32_t slots() const { return count + 1; }
    __host__ __device__ size_t table_bytes() const { return sizeof(double) * static_cast<size_t>(count); }
    __device__ void attach(unsigned char *smem)
    {
        double *copy = reinterpret_cast<double *>(smem);
        for (int32_t i = threadIdx.x; i < count; i += blockDim.x)
            copy[i] = __ldg(thresholds + i);
        thresholds = copy;
    }
    __device__ int32_t operator()(double x, size_t) const { return threshold_bucket(x, thresholds, count); }
};

/*
 * More thresholds: the first `levels` levels of the search tree in shared
 * memory (2^levels - 1 nodes, breadth first), the last few steps in
 * global memory, where they fall within a few cache lines.
 */
struct ThresholdTreeBinner {
    static constexpr int32_t kMaxLevels = 13;  /* 64 KB of tree at most */
    static constexpr int32_t kGlobalSteps = 8; /* steps below the tree written out */
    const double *thresholds;                  /* device memory */
    int32_t count;
    int32_t levels; /* 1 .. kMaxLevels */
    const double *tree; /* set by attach() */

    __host__ __device__ int32_t slots() const { return count + 1; }
    __host__ __device__ static size_t tree_bytes(int32_t levels)
    {
        return sizeof(double) * ((size_t(1) << levels) - 1);
    }
    __host__ __device__ size_t table_bytes() const { return tree_bytes(levels); }

    __device__ void attach(unsigned char *smem)
    {
        double *nodes = reinterpret_cast<double *>(smem);
        tree = nodes;
        /* node k's path from the root: the bits of k + 1 below its leading one (1: right) */
        const int32_t n = (int32_t(1) << levels) - 1;
        for (int32_t k = threadIdx.x; k < n; k += blockDim.x) {
            uint32_t path = static_cast<uint32_t>(k) + 1;
            int32_t left = 0, right = count;
            for (int d = 30 - __clz(path); d >= 0 && left < right; d--) {
                int32_t mid = (left + right) / 2;
                if ((path >> d) & 1)
                    left = mid + 1;
                else
                    right = mid;
            }
            nodes[k] = left < right ? __ldg(thresholds + (left + right) / 2) : 0.0; /* 0: never read */
        }
    }

    __device__ int32_t operator()(double x, size_t) const
    {
        if (x != x) /* NaN: at or above every threshold, as threshold_bucket() */
            return count;
        int32_t left = 0, right = count;
        int32_t node = 0;
        /*
         * Steps of fixed number, predicated rather than looped, so that the
         * compiler can interleave the searches of a thread's several values
         * and keep their loads in flight together.
         */
#pragma unroll
        for (int32_t l = 0; l < kMaxLevels; l++) {
            if (l < levels && left < right) {
                int32_t mid = (left + right) / 2;
                int32_t before = left;
                threshold_step(x, tree[node], mid, left, right);
                node = 2 * node + (left == before ? 1 : 2);
            }
        }
#pragma unroll
        for (int32_t s = 0; s < kGlobalSteps; s++) {
            if (left < right) {
                int32_t mid = (left + right) / 2;
                threshold_step(x, __ldg(thresholds + mid), mid, left, right);
            }
        }
        while (left < right) { /* more than kGlobalSteps below the tree: very many thresholds */
            int32_t mid = (left + right) / 2;
            threshold_step(x, __ldg(thresholds + mid), mid, left, right);
        }
        return left;
    }
};

/*
 * Sorted thresholds: threshold_index.h's cells.  A value reads its cell, 16
 * bytes, and compares with the cell's thresholds only where the cell has
 * any; the rest of the search, where a cell holds several, reads the
 * thresholds themselves from device memory.  InShared: every block copies
 * the cells into its shared memory first (up to kSharedThresholdCells, for
 * the few thousand thresholds whose counters leave room for them).  Else
 * the cells stay in device memory, where L2 holds them, and every block
 * copies the thresholds' segments instead (threshold_index.h), whose lines
 * answer most values without reading a cell.
 */
template <bool InShared> struct ThresholdIndexBinner {
    DeviceThresholds t;

    __host__ __device__ int32_t slots() const { return t.count + 1; }
    __host__ __device__ size_t table_bytes() const
    {
        return InShared ? sizeof(ThresholdCell) * static_cast<size_t>(t.index.cells)
                        : sizeof(ThresholdSegment) * static_cast<size_t>(t.lines.cells);
    }
    __device__ void attach(unsigned char *smem)
    {
        const double2 *from = InShared ? reinterpret_cast<const double2 *>(t.cells)
                                       : reinterpret_cast<const double2 *>(t.segments);
        double2 *to = reinterpret_cast<double2 *>(smem);
        const int32_t pairs = static_cast<int32_t>(table_bytes() / sizeof(double2));
        for (int32_t i = threadIdx.x; i < pairs; i += blockDim.x)
            to[i] = __ldg(from + i);
        if (InShared)
            t.cells = reinterpret_cast<const ThresholdCell *>(smem);
        else
            t.segments = reinterpret_cast<const ThresholdSegment *>(smem);
    }
    __device__ int32_t operator()(double x, size_t) const
    {
        if (x != x)
            return t.count;
        if (!InShared && t.lines.cells > 0) {
            const int32_t b = segment_bucket(x, t.segments[threshold_cell(x, t.lines)]);
            if (b >= 0)
                return b;
        }
        const int32_t c = threshold_cell(x, t.index);
        const double2 raw = InShared ? reinterpret_cast<const double2 *>(t.cells)[c]
                                     : __ldg(reinterpret_cast<const double2 *>(t.cells + c));
        const long long word = __double_as_longlong(raw.y);
        ThresholdCell cell;
        cell.first = raw.x;
        cell.base = static_cast<int32_t>(static_cast<uint32_t>(word)); /* little-endian: base, then n */
        cell.n = static_cast<int32_t>(static_cast<uint32_t>(static_cast<unsigned long long>(word) >> 32));
        /*
         * threshold_bucket_in_cell() gives the same for 0 or 1 thresholds;
         * answered here without its loop, 10 thresholds read at 93 % of the
         * read ceiling instead of 85 % (docs/performance.md#what-the-kernel-choices-rest-on).
         */
        if (cell.n <= 1)
            return cell.base + (cell.n == 1 && !(x < cell.first) ? 1 : 0);
        return threshold_bucket_in_cell(x, cell, t.thresholds);
    }
};

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_BINNERS_CUH */
