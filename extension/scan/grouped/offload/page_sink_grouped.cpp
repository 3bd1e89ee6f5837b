/*
 * page_sink_grouped.cpp: the page sink of a grouped scan (page_sink.h):
 * every batch goes to one grouped page histogram, which filters, groups
 * and counts the pages on the GPU (gpu/specs/grouped_page_spec.h) and whose
 * cells the caller reads (grouped_pages.cpp).  The
 * pages the GPU leaves to the host (a key it cannot place) stay pinned in
 * pg->kept until the caller has parsed them (page_gpu_left).
 */
#include "page_sink_grouped.h"

#include "../../offload/page_sink.h"

namespace gpu_histogram {

namespace {

/* The sink's state: the histogram's spec and its keys' interval tables, which outlive the scan. */
struct GroupedSink {
    const gh::GroupedPageSpec *spec;
    const int64 *table;
    int32 table_words;
    uint8 *left_flags; /* the GPU's answer for each page of a batch: 1, left to the host */
};

GroupedSink *state_of(const PageGpu *pg)
{
    return static_cast<GroupedSink *>(pg->sink_state);
}

/* Every batch goes to the one grouped histogram. */
bool binned(const PageGpu *, int, const bool *)
{
    return true;
}

bool takes_page(const PageGpu *, bool, HistogramState *const *, const bool *)
{
    return true;
}

bool open_lease(PageGpu *pg, int h, HistogramState *const *)
{
    const GroupedSink *g = state_of(pg);
    ServicePageHistogram what{gh::HistogramSpec{}, gh::PageColumn{}, g->spec, g->table, g->table_words};
    return gpu_service_open_pages(what, SERVICE_NO_WAIT, &pg->hist[h]);
}

/*
 * A finished batch: the pages the GPU left uncounted move, pinned, to
 * pg->kept for the caller (page_gpu_left), and out of the batch, whose
 * release then skips them.
 */
void keep_left_pages(PageGpu *pg, PageBatch *b, const uint8 *left)
{
    for (int i = 0; i < b->npages; i++) {
        if (left[i] == 0)
            continue;
        pg->kept.buffers[pg->kept.npages] = b->buffers[i];
        pg->kept.lines[pg->kept.npages++] = b->lines[i];
        b->buffers[i] = InvalidBuffer;
    }
}

bool collect_answer(PageGpu *pg, PageBatch *b, int h, int32 n, bool wait, ServicePageAnswer *answer)
{
    uint8 *left = state_of(pg)->left_flags;
    answer->left_to_host = left;
    if (!gpu_service_pages_done(b->slots[h], n, wait, answer))
        return false;
    if (answer->result == gh::Status::ok || answer->result == gh::Status::nan_value) {
        keep_left_pages(pg, b, left);
        /* a probe the GPU could not place is the host's to read pinned, as a miss is */
        for (int32 i = b->npages; answer->missed != NULL && i < n; i++)
            answer->missed[i] |= left[i];
    }
    return true;
}

/* The device's tuple counter is the caller's to read, with its cells. */
uint64 finish_counts(PageGpu *pg, HistogramState *const *)
{
    return pg->tuples_uncounted;
}

const PageSink grouped_sink = {binned, takes_page, open_lease, collect_answer, finish_counts};

} // namespace

void page_gpu_begin_grouped(PageGpu *pg, HeapReader *r, const gh::GroupedPageSpec *spec, const int64 *table,
                            int32 table_words, bool parallel, MemoryContext cxt)
{
    if (!page_gpu_prepare(pg, r, 1, &grouped_sink, parallel, cxt))
        return;
    MemoryContext old = MemoryContextSwitchTo(cxt);
    GroupedSink *g = static_cast<GroupedSink *>(palloc(sizeof(GroupedSink)));
    *g = GroupedSink{spec, table, table_words, static_cast<uint8 *>(palloc(pg->capacity))};
    /* both batches may finish before the caller asks: room for all their pages */
    pg->kept.buffers = static_cast<Buffer *>(palloc(sizeof(Buffer) * 2 * pg->pin_capacity));
    pg->kept.lines = static_cast<OffsetNumber *>(palloc(sizeof(OffsetNumber) * 2 * pg->pin_capacity));
    MemoryContextSwitchTo(old);
    pg->sink_state = g;
    page_gpu_start(pg, r, true, true, cxt);
}

PageBatch *page_gpu_left(PageGpu *pg)
{
    return pg->kept.npages > 0 ? &pg->kept : NULL;
}

} // namespace gpu_histogram
