/*
 * kernel_launch.cuh: what every launcher needs to size a grid, for
 * cuda_kernels.cu and cuda_page_kernels.cu: the blocks (or clusters) of a
 * kernel that the device holds at a given dynamic shared memory size, asked
 * of the runtime once and remembered.  Shared by the two files so that the page kernel's
 * launches cost what the value kernels' do.
 */
#ifndef GH_KERNEL_LAUNCH_CUH
#define GH_KERNEL_LAUNCH_CUH

#include <cuda_runtime.h>

#include <cstddef>

#include "../gpu_backend.h"
#include "../kernels/kernel_block.cuh" /* kBlockThreads */

namespace gh {
namespace kernels {

/*
 * The entry of `kernel` on `device` in a launch cache of N entries, made
 * (from `fresh`) the first time.  Keyed by the kernel itself (every
 * instantiation has its own attributes) and by the device: a kernel's
 * dynamic shared memory limit is an attribute of its copy in one device's
 * context, so a limit raised on one GPU says nothing of another's (a
 * launch past 48 KB on a GPU where it was not raised fails with "invalid
 * argument").  The service calls the launchers from one thread; there are
 * about a hundred kernels per device.  nullptr: the cache is full, which
 * cannot happen (fewer kernels exist).
 */
template <typename Entry, int N>
Entry *remembered(Entry (&cache)[N], int &used, const void *kernel, int device, const Entry &fresh)
{
    for (int i = 0; i < used; i++)
        if (cache[i].kernel == kernel && cache[i].device == device)
            return &cache[i];
    if (used == N)
        return nullptr;
    cache[used] = fresh;
    return &cache[used++];
}

/*
 * Blocks per SM for a kernel at a given dynamic shared memory size, asked of
 * the runtime once per kernel, device and size and remembered: per-batch
 * launches should cost a launch, not three API calls.  The kernel's shared
 * memory limit is only ever raised.
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
    static LaunchCache cache[128 * kMaxDevices];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    LaunchCache *c = remembered(cache, used, key, device, LaunchCache{key, device, static_cast<size_t>(-1), 0, 0});
    if (c == nullptr)
        return cudaErrorUnknown;
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

/*
 * Clusters of `blocks` blocks of a kernel (kBlockThreads threads each) that
 * can be resident at once at `smem` bytes each (0: none), remembered like
 * resident_blocks(), which also raises the kernel's shared memory limit;
 * past 8 blocks, non-portable cluster sizes are allowed.
 */
struct ClusterCache {
    const void *kernel;
    int device;
    size_t smem;
    int blocks;
    int clusters;
};

template <typename Kernel>
cudaError_t resident_clusters(Kernel kernel, int device, size_t smem, int blocks, int *clusters)
{
    static ClusterCache cache[64 * kMaxDevices];
    static int used = 0;
    const void *key = reinterpret_cast<const void *>(kernel);
    ClusterCache *c = remembered(cache, used, key, device, ClusterCache{key, device, static_cast<size_t>(-1), 0, 0});
    if (c == nullptr)
        return cudaErrorUnknown;
    if (c->smem != smem || c->blocks != blocks) {
        int per_sm = 0;
        cudaError_t err = resident_blocks(kernel, device, kBlockThreads, smem, &per_sm);
        if (err != cudaSuccess)
            return err;
        if (blocks > 8 &&
            (err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)) != cudaSuccess)
            return err;
        cudaLaunchConfig_t config = {};
        cudaLaunchAttribute attribute[1];
        attribute[0].id = cudaLaunchAttributeClusterDimension;
        attribute[0].val.clusterDim.x = static_cast<unsigned>(blocks);
        attribute[0].val.clusterDim.y = 1;
        attribute[0].val.clusterDim.z = 1;
        config.gridDim = dim3(static_cast<unsigned>(blocks));
        config.blockDim = dim3(kBlockThreads);
        config.dynamicSmemBytes = smem;
        config.attrs = attribute;
        config.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &config) != cudaSuccess) {
            (void)cudaGetLastError(); /* a size this device cannot schedule: none */
            n = 0;
        }
        c->smem = smem;
        c->blocks = blocks;
        c->clusters = n;
    }
    *clusters = c->clusters;
    return cudaSuccess;
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_LAUNCH_CUH */
