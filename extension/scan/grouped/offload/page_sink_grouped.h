/*
 * page_sink_grouped.h: the page batches' door for a grouped scan
 * (grouped_pages.cpp), whose sink is page_sink_grouped.cpp; the batches
 * themselves are scan/offload/'s, which knows no grouping.
 */
#ifndef GH_SCAN_PAGE_SINK_GROUPED_H
#define GH_SCAN_PAGE_SINK_GROUPED_H

#include "../../offload/page_gpu.h"

namespace gpu_histogram {

/*
 * page_gpu_begin (scan/offload/page_gpu.h) for a grouped scan: every batch
 * goes to one grouped page histogram, spec over table[0 .. table_words)
 * (both must outlive the scan), whose counts the caller reads from
 * pg->hist[0] after page_gpu_finish().  Pages the GPU leaves to the host
 * come back, pinned, through page_gpu_left().
 */
void page_gpu_begin_grouped(PageGpu *pg, HeapReader *r, const gh::GroupedPageSpec *spec, const int64 *table,
                            int32 table_words, bool parallel, MemoryContext cxt);

/*
 * Pages of finished grouped batches that the GPU did not count (a key it
 * could not place): the caller parses them, then page_gpu_release()s the
 * batch.  NULL when there are none.  Asked after each page_gpu_ call that
 * may collect a batch, while no page is locked.
 */
PageBatch *page_gpu_left(PageGpu *pg);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_SINK_GROUPED_H */
