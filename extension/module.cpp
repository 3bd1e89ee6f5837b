/*
 * module.cpp: the library's entry point: the module magic, the GUCs, the
 * planner hook that evaluates fixed arguments once (plan_args.h), the
 * custom scan's planner hook (scan/scan.h) and the GPU service
 * (service/service.h).
 *
 * _PG_init runs in the postmaster when the library is preloaded, and the
 * backends it forks inherit its memory; CUDA is not fork-safe, so nothing
 * here (or anything it calls) may touch CUDA.  Only the GPU service's
 * background worker does, once it runs.
 */
#include "pg_headers.h"

#include "plan_args.h"
#include "settings.h"
#include "scan/scan.h"
#include "scan/summaries/page_ranges.h"
#include "service/service.h"
#include "service/service_client.h"

extern "C" {
/*
 * From 18 the library names itself and its version (pg_get_loaded_modules());
 * GH_EXTVERSION is the control file's default_version (the Makefile).
 */
#if PG_VERSION_NUM >= 180000
PG_MODULE_MAGIC_EXT(.name = "gpu_histogram", .version = GH_EXTVERSION);
#else
PG_MODULE_MAGIC;
#endif
void _PG_init(void);
}

namespace gpu_histogram {

int gh_device_mode = DEVICE_AUTO;
int gh_batch_size = 1 << 20;
bool gh_pages_on_gpu = true;
bool gh_page_probes = true;
bool gh_skip_pages_by_range = true;
int gh_auto_page_batches = 32;
bool gh_debug_pages_on_cpu = false;
int gh_debug_pages_per_batch = 0;
static int gh_fail_cuda_call = 0;
static bool gh_crash_cuda_process = false;

/*
 * Passes the countdown on to the GPU service (no CUDA call here).  Only a
 * client session's SET does: parallel workers restoring the leader's
 * settings, and the postmaster, must not arm it again.
 */
static void assign_fail_cuda_call(int newval, void *)
{
    if (MyBackendType == B_BACKEND && !InitializingParallelWorker && IsNormalProcessingMode())
        gpu_service_fail_after(newval);
}

/* Each SET to true (by a client session, as above) crashes the CUDA process once. */
static void assign_crash_cuda_process(bool newval, void *)
{
    if (newval && MyBackendType == B_BACKEND && !InitializingParallelWorker && IsNormalProcessingMode())
        gpu_service_crash_cuda_process();
}

static const struct config_enum_entry device_options[] = {
    {"auto", DEVICE_AUTO, false},
    {"gpu", DEVICE_GPU, false},
    {"cpu", DEVICE_CPU, false},
    {NULL, 0, false},
};

/* What _PG_init does, inside the namespace that declares the settings and the hooks. */
static void module_init(void)
{
    DefineCustomEnumVariable("gpu_histogram.device", "Where gpu_histogram() bins values.",
                             "auto: the GPU for groups that fill a batch, when one is usable, else "
                             "the CPU; gpu: always the GPU; cpu: never the GPU.",
                             &gh_device_mode, DEVICE_AUTO, device_options, PGC_USERSET, 0, NULL,
                             NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.batch_size",
                            "Values per batch sent to the GPU.",
                            "A group switches to the GPU in auto mode once it has this many values; a batch "
                            "is at most gpu_histogram.service_slot_size values.",
                            &gh_batch_size, 1 << 20, 16384, 64 << 20, PGC_USERSET, 0, NULL, NULL,
                            NULL);
    DefineCustomBoolVariable("gpu_histogram.pages_on_gpu",
                             "Whether the custom scan hands pinned all-visible pages to the GPU.",
                             "The GPU then reads the pages out of the shared buffer pool and extracts the "
                             "values itself; off: the scan extracts them and sends values, as before.",
                             &gh_pages_on_gpu, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("gpu_histogram.page_probes",
                             "Whether the custom scan asks the GPUs' page cache for pages the visibility map "
                             "marks all-visible without pinning them.",
                             "The cache answers a page that has not changed since it was cached; the scan "
                             "pins and reads the others.  Off: every page is pinned and noted, as before.",
                             &gh_page_probes, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomBoolVariable("gpu_histogram.skip_pages_by_range",
                             "Whether the custom scan passes over all-visible pages whose known range of the "
                             "WHERE clause's range column lies outside the clause's range.",
                             "The ranges are those earlier scans recorded (gpu_histogram.page_ranges); a scan "
                             "records the ranges of the all-visible pages it reads.  Off: neither.",
                             &gh_skip_pages_by_range, true, PGC_USERSET, 0, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.auto_page_batches",
                            "With device = auto, how many batches of pages all sessions together queue on "
                            "each GPU at once.",
                            "A scan's full batch goes to the GPU only while fewer are being read there "
                            "(finished ones do not count); otherwise its pages are parsed on the CPU, so "
                            "that under load both devices work.",
                            &gh_auto_page_batches, 32, 1, 1024, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.debug_fail_cuda_call",
                            "Testing only: makes the GPU service's Nth CUDA call from now on fail (0: never).",
                            "Used by the GPU checks to show that a failing CUDA call leaks nothing and "
                            "that the service restarts.",
                            &gh_fail_cuda_call, 0, 0, INT_MAX, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL,
                            assign_fail_cuda_call, NULL);
    DefineCustomBoolVariable("gpu_histogram.debug_crash_cuda_process",
                             "Testing only: makes the GPU service's CUDA process die by SIGSEGV while it holds "
                             "the service's lock.",
                             "Used by the crash isolation checks to show that the server does not restart and "
                             "that the service repairs its shared memory and comes back.",
                             &gh_crash_cuda_process, false, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL,
                             assign_crash_cuda_process, NULL);
    DefineCustomBoolVariable("gpu_histogram.debug_pages_on_cpu",
                             "Testing only: the custom scan gathers pinned pages in batches as for the GPU, "
                             "and parses every batch on the CPU as if the GPU had refused it.",
                             "Lets a machine without a GPU run the page path's pinning, batching and "
                             "unpinning, also under concurrent writers.",
                             &gh_debug_pages_on_cpu, false, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
    DefineCustomIntVariable("gpu_histogram.debug_pages_per_batch",
                            "Testing only: the most pages a batch for the GPU holds; 0 keeps the built-in 8192.",
                            "Batches stay within the backend's share of the buffer pool whatever this says.",
                            &gh_debug_pages_per_batch, 0, 0, 8192, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL,
                            NULL);
    gpu_histogram_plan_args_init();
    gpu_histogram_scan_init();
    page_ranges_init();
    gpu_service_init();
    MarkGUCPrefixReserved("gpu_histogram");
}

} // namespace gpu_histogram

/*
 * The server looks _PG_init up by its unmangled name, so it stays at global
 * scope with the C linkage declared above, as does the module magic.
 */
void _PG_init(void)
{
    gpu_histogram::module_init();
}
