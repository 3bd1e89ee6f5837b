/*
 * page_sink_histograms.cpp: the page sink of an ungrouped scan
 * (page_sink.h): a device histogram per column the page kernel reads,
 * added into that column's HistogramState at the scan's end.  Its state is
 * what the kernel reads of each histogram's column.
 */
#include "page_sink.h"

#include "../heap/page_layout.h"

extern "C" {
#include "utils/rel.h"
}

namespace gpu_histogram {

namespace {

/* What the page kernel reads for each histogram. */
gh::PageColumn *columns_of(const PageGpu *pg)
{
    return static_cast<gh::PageColumn *>(pg->sink_state);
}

/* Whether histogram h takes part: it has a column the kernel reads and input. */
bool binned(const PageGpu *pg, int h, const bool *skip)
{
    return columns_of(pg)[h].attno > 0 && !skip[h];
}

/* Every histogram that takes part has its state; a probe's batch goes to exactly one histogram. */
bool takes_page(const PageGpu *pg, bool probe, HistogramState *const *states, const bool *skip)
{
    int nbinned = 0;
    for (int h = 0; h < pg->nhist; h++) {
        if (binned(pg, h, skip) && states[h] == NULL)
            return false;
        nbinned += binned(pg, h, skip);
    }
    return !probe || nbinned == 1;
}

bool open_lease(PageGpu *pg, int h, HistogramState *const *states)
{
    const gh::HistogramSpec &spec = states[h]->spec;
    if (spec.kind == gh::SpecKind::thresholds && spec.thresholds.count > gh::kMaxPageThresholds)
        return false; /* more than the page kernel keeps beside the page: the host parses them */
    ServicePageHistogram what{states[h]->spec, columns_of(pg)[h], NULL, NULL, 0};
    return gpu_service_open_pages(what, SERVICE_NO_WAIT, &pg->hist[h]);
}

bool collect_answer(PageGpu *pg, PageBatch *b, int h, int32 n, bool wait, ServicePageAnswer *answer)
{
    return gpu_service_pages_done(b->slots[h], n, wait, answer);
}

uint64 finish_counts(PageGpu *pg, HistogramState *const *states)
{
    /* the states hand back any slot they fill (device = 'gpu'): a read must not wait while this process holds one */
    for (int h = 0; h < pg->nhist; h++)
        if (pg->hist[h].index >= 0)
            histogram_state_flush(states[h]);
    /*
     * Every batch on the GPU went to every histogram that takes part, so
     * the first one's device histogram holds the batches' tuple count, in
     * the counter past its slots.
     */
    uint64 tuples = pg->tuples_uncounted;
    bool tuples_read = false;
    for (int h = 0; h < pg->nhist; h++) {
        if (pg->hist[h].index < 0)
            continue;
        HistogramState *st = states[h];
        int32 nslots = histogram_state_slots(st);
        int32 nread = tuples_read ? nslots : nslots + 1;
        int64 *counts = static_cast<int64 *>(palloc0(sizeof(int64) * nread));
        gpu_service_read_range(&pg->hist[h], 0, nread, counts, &pg->read_slot);
        gpu_service_close(&pg->hist[h]);
        if (!tuples_read)
            tuples += static_cast<uint64>(counts[nslots]);
        tuples_read = true;
        int64 *into = histogram_state_counts(st);
        int64 total = 0;
        for (int32 i = 0; i < nslots; i++) {
            into[i] += counts[i];
            total += counts[i];
        }
        st->nvalues += total;
        gh_values_sent_to_gpu += total;
        pfree(counts);
    }
    return tuples;
}

const PageSink histograms_sink = {binned, takes_page, open_lease, collect_answer, finish_counts};

} // namespace

void page_gpu_begin(PageGpu *pg, HeapReader *r, const HeapColumn *columns, int nhist, bool parallel,
                    MemoryContext cxt)
{
    if (!page_gpu_prepare(pg, r, nhist, &histograms_sink, parallel, cxt))
        return;
    gh::PageColumn *read = static_cast<gh::PageColumn *>(MemoryContextAllocZero(cxt, sizeof(gh::PageColumn) * nhist));
    pg->sink_state = read;
    TupleDesc desc = RelationGetDescr(r->rel);
    bool any = false;
    for (int h = 0; h < nhist; h++) {
        if (columns[h].attno > 0 && page_column_for(desc, columns[h], &read[h])) {
            /* a binned date or timestamp is the time form's: its stored integer is the value */
            const Oid type = columns[h].type;
            read[h].as_word = type == DATEOID || type == TIMESTAMPOID || type == TIMESTAMPTZOID;
            any = true;
        }
        else if (columns[h].attno > 0) {
            /* one histogram the kernel cannot read would need every page on the CPU anyway */
            any = false;
            break;
        }
    }
    int nread = 0;
    for (int h = 0; h < nhist; h++)
        nread += columns[h].attno > 0;
    page_gpu_start(pg, r, any, nread == 1, cxt);
}

void page_gpu_keep_values_on_cpu(const PageGpu *pg, HistogramState *st)
{
    if (pg->possible && !pg->cpu_only)
        st->gpu.refused = true; /* auto heeds it; device = gpu sends every full chunk all the same */
}

} // namespace gpu_histogram
