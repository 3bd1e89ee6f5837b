/*
 * kernel_take_groups.cuh: the kernel that hands a grouped page
 * histogram's counted groups back, for cuda_page_kernels.cu.
 *
 * Why it exists: a parallel scan's process holds a grouped page histogram
 * over every group the key tables allow, but counts only its share of the
 * table.  An hourly heatmap over 100M rows has 28,648 groups of 67 cells
 * (15 MB); each of 7 processes counted about 4,100 of them, yet each read
 * all 15 MB back, 2 MB a request, through the one GPU service process.
 * This kernel moves only the groups with rows into the answer, as records
 * of [group number, cells], in group order, and zeroes them on the device.
 *
 * One block of kTakeThreads threads walks the groups from `first` on, a
 * tile of kTakeThreads groups at a time: each thread looks at its group's
 * row counter (the last cell: every counted row adds to it, so a group
 * without rows has no counts at all), the block numbers the tile's groups
 * with rows (a ballot within each warp, then the warps' sums), and each
 * warp copies its own groups' records, 32 cells at a time.  It stops at
 * the first group that has no room left, which the answer names for the
 * next request.  One block suffices: the walk reads one word per group
 * (a 1M-group histogram is 1M words), and the records are at most the
 * answer's size.
 */
#ifndef GH_KERNEL_TAKE_GROUPS_CUH
#define GH_KERNEL_TAKE_GROUPS_CUH

#include <cstdint>

#include "grouped_page_spec.h"

namespace gh {
namespace kernels {

constexpr int kTakeThreads = 1024;

/*
 * counts: groups * slots cells.  out: the answer (grouped_page_spec.h,
 * TakenGroups), room records after its header.  flags: the histogram's,
 * copied into the answer's header.
 */
__global__ void __launch_bounds__(kTakeThreads)
    take_groups(unsigned long long *__restrict__ counts, int64_t groups, int32_t slots, int64_t first,
                unsigned long long *__restrict__ out, int64_t room, const int *__restrict__ flags)
{
    constexpr int kWarps = kTakeThreads / 32;
    __shared__ unsigned int warp_rows[kWarps];
    __shared__ long long taken;
    __shared__ long long stopped_at; /* the first group left for lack of room; groups if none */
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        taken = 0;
        stopped_at = groups;
    }
    __syncthreads();
    for (int64_t tile = first; tile < groups; tile += kTakeThreads) {
        const int64_t g = tile + threadIdx.x;
        const bool has_rows = g < groups && counts[g * slots + slots - 1] != 0;
        const unsigned int ballot = __ballot_sync(0xffffffffu, has_rows);
        if (lane == 0)
            warp_rows[warp] = static_cast<unsigned int>(__popc(ballot));
        __syncthreads();
        long long before = taken; /* records ahead of this warp's first */
        long long in_tile = 0;
        for (int w = 0; w < kWarps; w++) {
            before += w < warp ? warp_rows[w] : 0;
            in_tile += warp_rows[w];
        }
        /* the warp's groups with rows, one record at a time, the lanes over its cells */
        for (unsigned int left = ballot; left != 0; left &= left - 1) {
            const int bit = __ffs(left) - 1;
            const long long record = before + __popc(ballot & ((1u << bit) - 1));
            const int64_t group = tile + warp * 32 + bit;
            if (record >= room) {
                if (record == room && lane == 0)
                    stopped_at = group; /* exactly one group is the room's first past */
                break;
            }
            unsigned long long *dst = out + kTakenHeaderWords + record * (static_cast<int64_t>(slots) + 1);
            unsigned long long *cells = counts + group * slots;
            if (lane == 0)
                dst[0] = static_cast<unsigned long long>(group);
            for (int32_t c = lane; c < slots; c += 32) {
                dst[1 + c] = cells[c];
                cells[c] = 0;
            }
        }
        __syncthreads(); /* every warp has read `taken` and warp_rows */
        if (threadIdx.x == 0) {
            taken += in_tile;
            if (taken >= room && stopped_at == groups) /* the room ended with the tile: go on after it */
                stopped_at = tile + kTakeThreads < groups ? tile + kTakeThreads : groups;
        }
        __syncthreads();
        if (taken >= room)
            break;
    }
    if (threadIdx.x == 0) {
        out[0] = static_cast<unsigned long long>(taken < room ? taken : room);
        out[1] = static_cast<unsigned long long>(stopped_at);
        out[2] = static_cast<unsigned long long>(static_cast<unsigned int>(*flags));
    }
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_TAKE_GROUPS_CUH */
