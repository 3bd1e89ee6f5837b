/*
 * page_sink.h: where a page batch's pages are counted, one small interface
 * between the page-batch room (page_batches.cpp, page_gpu.cpp), which
 * knows batches, pins, probes and slots but no mode, and its two sinks:
 *   - page_sink_histograms.cpp: an ungrouped scan's histograms, one per
 *     column the kernel reads, added into their HistogramStates at the end;
 *   - page_sink_grouped.cpp: a grouped scan's one grouped page histogram,
 *     whose cells the caller reads (scan/grouped/offload/), and the pages
 *     the GPU leaves to the host.
 * Included by these files alone: the scan's door is page_gpu.h.
 */
#ifndef GH_SCAN_PAGE_SINK_H
#define GH_SCAN_PAGE_SINK_H

#include "page_gpu.h"

namespace gpu_histogram {

struct PageSink {
    /* whether histogram h takes part in the batches (skip: page_gpu.h's) */
    bool (*binned)(const PageGpu *pg, int h, const bool *skip);
    /* whether the reader's page (or probe) may go into a batch, as far as the histograms go */
    bool (*takes)(const PageGpu *pg, bool probe, HistogramState *const *states, const bool *skip);
    /* opens histogram h's lease for the batches, without waiting; false: no room */
    bool (*open)(PageGpu *pg, int h, HistogramState *const *states);
    /*
     * Collects histogram h's answer for batch b of n pages (probes
     * included) once it is done, waiting with `wait`: gpu_service_pages_done
     * into *answer, whose `missed` the room has set; false if not done.
     */
    bool (*collect)(PageGpu *pg, PageBatch *b, int h, int32 n, bool wait, ServicePageAnswer *answer);
    /*
     * At the end, after every batch is collected: the device histograms'
     * counts into their states (or left to the caller); answers the normal
     * tuples the kernels counted, with those of batches no kernel read.
     */
    uint64 (*finish)(PageGpu *pg, HistogramState *const *states);
};

/*
 * The room's set-up, for a sink's begin.  page_gpu_prepare: the scan of
 * r's relation with nhist histograms, counted by sink; false where pages
 * cannot go to the GPU (nor, testing, be batched), and then pg is empty.
 * page_gpu_start: the batches, once the sink has made its state (and
 * pg->kept's arrays, if it keeps pages): `possible` says whether any page
 * goes, and probes_fit whether every batch goes to one histogram.
 */
bool page_gpu_prepare(PageGpu *pg, HeapReader *r, int nhist, const PageSink *sink, bool parallel, MemoryContext cxt);
void page_gpu_start(PageGpu *pg, HeapReader *r, bool possible, bool probes_fit, MemoryContext cxt);

/*
 * While the GPU still has the scan's previous batch, a parallel scan's
 * participant parses pages off the end of the full one instead of waiting
 * (host_has_idle_core says when), this many at a time (about 30 us),
 * looking again between.
 */
constexpr int32 kStealPages = 16;

/* Gives back b's page slots, whether queued (the service then frees them) or not. */
void page_batch_release_slots(const PageGpu *pg, PageBatch *b);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_SINK_H */
