/*
 * cuda_devices.cu: the CUDA backend's devices: starting them (a context,
 * two streams and the kernels' limits each, after checking this build has
 * code for every one), describing them, and the process-wide state and
 * error recording every other file of cuda/ shares (cuda_backend_state.cuh).
 * Apart from the batches because it runs once per service process, and its
 * failures are what a user reads first when a GPU cannot be used.
 */
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

#include "cuda_backend_state.cuh"
#include "device_code.h"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {

namespace cuda_state {

Backend g;

bool check(cudaError_t err, const char *what)
{
    if (g.fail_countdown > 0 && --g.fail_countdown == 0 && err == cudaSuccess) {
        snprintf(g.last_error, sizeof g.last_error, "%s: failure injected for testing", what);
        return false;
    }
    if (err == cudaSuccess)
        return true;
    snprintf(g.last_error, sizeof g.last_error, "%s: %s (%s)", what, cudaGetErrorString(err),
             cudaGetErrorName(err));
    cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    return false;
}

Status status_of(cudaError_t err)
{
    return err == cudaErrorMemoryAllocation ? Status::out_of_memory : Status::cuda_error;
}

Status set_device(int device)
{
    if (!g.started || device < 0 || device >= g.ndevices)
        return Status::no_device;
    GH_CUDA(cudaSetDevice(device));
    return Status::ok;
}

} // namespace cuda_state

using namespace cuda_state;

namespace {

Status start_device(int ordinal)
{
    Device &d = g.devices[ordinal];
    GH_CUDA(cudaSetDevice(ordinal));
    GH_CUDA(cudaFree(nullptr)); /* creates the context now, not inside the first batch's copy */
    GH_CUDA(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    GH_CUDA(cudaStreamCreateWithFlags(&d.copy_stream, cudaStreamNonBlocking));
    GH_CUDA(describe_device(ordinal, &d.limits));
    /* keep freed device histograms in the stream-ordered pool, up to 256 MB */
    cudaMemPool_t pool;
    GH_CUDA(cudaDeviceGetDefaultMemPool(&pool, ordinal));
    unsigned long long keep = 256ull << 20;
    GH_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return Status::ok;
}

/*
 * Whether this build has code for each of the first count GPUs
 * (device_code.h); if not, g.last_error names the first without, and no
 * GPU is used: the service reports that one line and bins on the CPU,
 * where a launch would fail every batch with "no kernel image".  (A host
 * with GPUs of two generations is left to a build for both.)
 */
bool every_device_has_code(int count)
{
    CudaTarget targets[32];
    const int ntargets = parse_cuda_targets(GH_CUDA_TARGETS, targets, 32);
    for (int i = 0; i < count; i++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            cudaGetLastError();
            continue; /* start_device() reports it */
        }
        if (device_has_code(p.major, p.minor, targets, ntargets))
            continue;
        char built[256];
        describe_cuda_targets(targets, ntargets, built, sizeof built);
        snprintf(g.last_error, sizeof g.last_error,
                 "GPU %d (%s, compute capability %d.%d) has no code in this build (%s): rebuild with "
                 "make GH_CUDA_ARCHITECTURES=\"%d%d-real;...\"",
                 i, p.name, p.major, p.minor, built, p.major, p.minor);
        return false;
    }
    return true;
}

Status start()
{
    if (g.started)
        return Status::ok;
    auto t0 = std::chrono::steady_clock::now();
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0)) {
        /*
         * The runtime says "driver version is insufficient" also when there
         * is no driver at all; the driver's version, 0 without one, tells
         * the two apart.
         */
        int driver = 0;
        if (err == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
            snprintf(g.last_error, sizeof g.last_error, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
        else if (err == cudaErrorInsufficientDriver)
            snprintf(g.last_error, sizeof g.last_error, "%s (driver supports CUDA %d.%d, the runtime needs %d.%d)",
                     cudaGetErrorString(err), driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                     CUDART_VERSION % 1000 / 10);
        else
            snprintf(g.last_error, sizeof g.last_error, "%s",
                     err == cudaSuccess ? "no CUDA device is visible" : cudaGetErrorString(err));
        cudaGetLastError();
        return Status::no_device;
    }
    GH_CUDA(err);
    if (count > kMaxDevices)
        count = kMaxDevices;
    if (!every_device_has_code(count))
        return Status::no_device;
    for (int i = 0; i < count; i++) {
        Status s = start_device(i);
        if (s != Status::ok)
            return s;
    }
    g.ndevices = count;
    g.counters.startup_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    g.started = true;
    return Status::ok;
}

} // namespace

Status gpu_start() noexcept { GH_ENTRY(return start();) }

bool gpu_started() noexcept { return g.started; }

int gpu_device_count() noexcept { return g.started ? g.ndevices : 0; }

Status gpu_devices(DeviceInfo *out, int capacity, int *count) noexcept
{
    *count = 0;
    GH_ENTRY({
        if (!g.started)
            return Status::no_device;
        for (int i = 0; i < g.ndevices && i < capacity; i++) {
            cudaDeviceProp p;
            GH_CUDA(cudaGetDeviceProperties(&p, i));
            DeviceInfo &d = out[i];
            snprintf(d.name, sizeof d.name, "%s", p.name);
            d.ordinal = i;
            d.cc_major = p.major;
            d.cc_minor = p.minor;
            d.multiprocessors = p.multiProcessorCount;
            d.total_memory = p.totalGlobalMem;
            size_t free_bytes = 0, total = 0;
            GH_CUDA(cudaSetDevice(i));
            GH_CUDA(cudaMemGetInfo(&free_bytes, &total));
            d.free_memory = free_bytes;
            *count = i + 1;
        }
        return Status::ok;
    })
}

const char *gpu_last_error() noexcept { return g.last_error; }

GpuCounters gpu_counters() noexcept { return g.counters; }

void gpu_fail_after(long calls) noexcept { g.fail_countdown = calls; }

bool gpu_fail_pending() noexcept { return g.fail_countdown > 0; }

Status gpu_trim_memory() noexcept
{
    GH_ENTRY({
        for (int i = 0; i < g.ndevices; i++) {
            cudaMemPool_t pool;
            GH_CUDA(cudaDeviceGetDefaultMemPool(&pool, i));
            GH_CUDA(cudaMemPoolTrimTo(pool, 0));
        }
        return Status::ok;
    })
}

Status gpu_host_register(void *host, size_t bytes) noexcept
{
    GH_ENTRY({
        if (!g.started)
            return Status::no_device;
        /* portable: every context of this process may DMA from it */
        cudaError_t err = cudaHostRegister(host, bytes, cudaHostRegisterPortable);
        if (!check(err, "cudaHostRegister")) {
            if (err == cudaSuccess) /* an injected failure: undo what did happen */
                cudaHostUnregister(host);
            return status_of(err);
        }
        return Status::ok;
    })
}

void gpu_host_unregister(void *host) noexcept
{
    if (g.started)
        cudaHostUnregister(host);
}

} // namespace gh
