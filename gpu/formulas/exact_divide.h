/*
 * exact_divide.h: b / d for a divisor fixed before a kernel starts, by one
 * wide multiplication and a shift, exact for every b below a bound.
 *
 * The cluster kernel (kernel_cluster.cuh) splits the cell of every value
 * into the block that owns it and the index there, cell / per_block.  An
 * integer division is a long instruction sequence on a GPU, and a float
 * guess needs a correction; at 1,000,000 buckets the kernel is bound by
 * the instructions it issues (docs/performance.md#what-the-kernel-choices-rest-on).  With m =
 * ceil(2^s / d) and e = m d - 2^s (0 <= e < d), b m / 2^s = b / d +
 * b e / (d 2^s), whose floor is b / d's whenever b e < 2^s: divisor_for()
 * picks the smallest s that makes this hold for every b below `bound` with
 * m below 2^32, so the device needs one 32 x 32 -> 64-bit multiply and one
 * shift.  Plain C++, so that the host tests it over every b.
 */
#ifndef GH_EXACT_DIVIDE_H
#define GH_EXACT_DIVIDE_H

#include <cstdint>

#ifdef __CUDACC__
#define GH_DIVIDE_FN __host__ __device__ __forceinline__
#else
#define GH_DIVIDE_FN inline
#endif

namespace gh {

struct Divisor {
    uint32_t magic; /* ceil(2^shift / d); 0: no such pair (never for the kernel's sizes) */
    int32_t shift;
};

/* The divisor d (>= 1) for every dividend below bound (<= 2^32). */
inline Divisor divisor_for(uint32_t d, uint64_t bound)
{
    for (int32_t s = 0; s < 64; s++) {
        const uint64_t two = uint64_t(1) << s;
        const uint64_t m = (two + d - 1) / d;
        if (m >= (uint64_t(1) << 32))
            break;
        const uint64_t e = m * d - two;
        /* (bound - 1) * e < 2^s, without overflow: e < d <= 2^32 and bound <= 2^32 */
        if (bound <= 1 || e == 0 || (bound - 1) <= (two - 1) / e)
            return Divisor{static_cast<uint32_t>(m), s};
    }
    return Divisor{0, 0};
}

GH_DIVIDE_FN uint32_t divide(uint32_t b, const Divisor &d)
{
    return static_cast<uint32_t>((static_cast<uint64_t>(b) * d.magic) >> d.shift);
}

} // namespace gh

#endif /* GH_EXACT_DIVIDE_H */
