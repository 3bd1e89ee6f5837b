/*
 * module.cpp: the library's entry point: the module magic, the GUCs, and
 * the custom scan's planner hook (scan/scan.h).
 *
 * _PG_init runs in the postmaster when the library is preloaded, and the
 * backends it forks inherit its memory; CUDA is not fork-safe, so nothing
 * here (or anything it calls) may touch CUDA.  The GPU is initialised lazily,
 * in the backend, on first use.
 */
#include "pg_headers.h"

#include "settings.h"
#include "scan/scan.h"
#include "../gpu/gpu_backend.h"

extern "C" {
PG_MODULE_MAGIC;
void _PG_init(void);
}

int gh_device_mode = DEVICE_AUTO;
int gh_batch_size = 1 << 20;
int gh_pinned_pool_mb = 256;
static int gh_fail_cuda_call = 0;

/* Only records a countdown in the engine: no CUDA call, so safe in any process. */
static void assign_fail_cuda_call(int newval, void *)
{
    gh::gpu_fail_after(newval);
}

static const struct config_enum_entry device_options[] = {
    {"auto", DEVICE_AUTO, false},
    {"gpu", DEVICE_GPU, false},
    {"cpu", DEVICE_CPU, false},
    {NULL, 0, false},
};

void _PG_init(void)
{
    DefineCustomEnumVariable("gpu_histogram.device", "Where gpu_histogram() bins values.",
                             "auto: the GPU for groups that fill a batch, when one is usable, else "
                             "the CPU; gpu: always the GPU; cpu: never the GPU.",
                             &gh_device_mode, DEVICE_AUTO, device_options, PGC_USERSET, 0, NULL,
                             NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.batch_size",
                            "Values per batch sent to the GPU.",
                            "A group switches to the GPU in auto mode once it has this many values.",
                            &gh_batch_size, 1 << 20, 16384, 64 << 20, PGC_USERSET, 0, NULL, NULL,
                            NULL);
    DefineCustomIntVariable("gpu_histogram.pinned_memory_limit",
                            "Upper bound on this backend's pinned (page-locked) batch buffers.",
                            NULL, &gh_pinned_pool_mb, 256, 1, 64 * 1024, PGC_USERSET, GUC_UNIT_MB,
                            NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.debug_fail_cuda_call",
                            "Testing only: makes the Nth CUDA call from now on fail (0: never).",
                            "Used by the GPU checks to show that a failing CUDA call leaks nothing.",
                            &gh_fail_cuda_call, 0, 0, INT_MAX, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL,
                            assign_fail_cuda_call, NULL);
    gpu_histogram_scan_init();
    MarkGUCPrefixReserved("gpu_histogram");
}
