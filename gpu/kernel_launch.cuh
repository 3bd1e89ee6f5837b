/*
 * kernel_launch.cuh: what every launcher needs to size a grid, for
 * cuda_kernels.cu and cuda_page_kernels.cu: the blocks of a kernel that one
 * SM holds at a given dynamic shared memory size, asked of the runtime once
 * and remembered.  Shared by the two files so that the page kernel's
 * launches cost what the value kernels' do.
 */
#ifndef GH_KERNEL_LAUNCH_CUH
#define GH_KERNEL_LAUNCH_CUH

#include <cuda_runtime.h>

#include <cstddef>

#include "gpu_backend.h"

namespace gh {
namespace kernels {

/*
 * Blocks per SM for a kernel at a given dynamic shared memory size, asked of
 * the runtime once per kernel, device and size and remembered: per-batch
 * launches should cost a launch, not three API calls.  Keyed by the kernel
 * itself (every instantiation has its own attributes) and by the device:
 * a kernel's dynamic shared memory limit is an attribute of its copy in one
 * device's context, so a limit raised on one GPU says nothing of another's
 * (a launch past 48 KB on a GPU where it was not raised fails with "invalid
 * argument").  The limit is only ever raised.  The service calls this from
 * one thread; there are about a hundred kernels per device.
 */
struct LaunchCache {
    const void *kernel;
    int device;
    size_t smem;            /* the size `blocks` was computed for */
    int blocks;
    size_t attribute_smem;  /* the dynamic shared memory limit set so far on this device */
};

template <typename Kernel>
cudaError_t resident_blocks(Kernel kernel, int device, int threads, size_t smem, int *blocks)
{
    constexpr int kEntries = 128 * kMaxDevices;
    static LaunchCache cache[kEntries];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    LaunchCache *c = nullptr;
    for (int i = 0; i < used && c == nullptr; i++)
        if (cache[i].kernel == key && cache[i].device == device)
            c = &cache[i];
    if (c == nullptr) {
        if (used == kEntries)
            return cudaErrorUnknown; /* cannot happen: fewer kernels exist */
        c = &cache[used++];
        *c = LaunchCache{key, device, static_cast<size_t>(-1), 0, 0};
    }
    if (smem != c->smem) {
        cudaError_t err;
        if (smem > c->attribute_smem) {
            if ((err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(smem))) != cudaSuccess)
                return err;
            c->attribute_smem = smem;
        }
        if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c->blocks, kernel, threads, smem)) != cudaSuccess)
            return err;
        c->smem = smem;
    }
    *blocks = c->blocks > 0 ? c->blocks : 1;
    return cudaSuccess;
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_LAUNCH_CUH */
