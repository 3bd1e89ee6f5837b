/*
 * settings.h: the extension's GUCs, read by the aggregate code.
 */
#ifndef GH_SETTINGS_H
#define GH_SETTINGS_H

namespace gpu_histogram {

/* gpu_histogram.device */
enum DeviceMode {
    DEVICE_AUTO, /* the GPU service for groups big enough to fill a batch, when it has room */
    DEVICE_GPU,  /* always the GPU service; an error if it has no GPU */
    DEVICE_CPU,  /* never the GPU */
};

extern int gh_device_mode;
extern int gh_batch_size;          /* values per GPU batch (at most a service slot) */
extern bool gh_pages_on_gpu;       /* the scan may hand pinned pages to the GPU (scan/offload/page_gpu.h) */
extern bool gh_page_probes;        /* ... and ask the GPUs' page cache for all-visible ones unpinned */
extern bool gh_skip_pages_by_range; /* pass over pages by their known ranges (page_range_scan.h) */
extern int gh_auto_page_batches;   /* auto: page batches reserved on each GPU at once, all sessions together */
extern bool gh_debug_pages_on_cpu; /* testing: batches of pinned pages, all parsed on the CPU */
extern int gh_debug_pages_per_batch; /* testing: pages per batch for the GPU, 0 the built-in */

} // namespace gpu_histogram

#endif /* GH_SETTINGS_H */
