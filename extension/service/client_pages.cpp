/*
 * client_pages.cpp: the GPU service's client for page batches
 * (client_pages.h): the page histograms, the page slots and what a batch
 * writes into one, the answers, and the places and shares of the GPUs'
 * page cache.  The page slot's layout (service_shared.h) is known here and
 * in the CUDA process only.
 */
#include "client_inner.h"

extern "C" {
#include "miscadmin.h"
}

namespace gpu_histogram {

ServicePages gpu_service_pages(void)
{
    if (gh_service == NULL)
        return ServicePages{false, false};
    service_lock();
    bool up = gh_service->state == SERVICE_UP;
    ServicePages pages{up && gh_service->pool_registered, up && gh_service->page_cache_entries > 0};
    service_unlock();
    return pages;
}

bool gpu_service_open_pages(const ServicePageHistogram &what, ServiceWait wait, ServiceHistogramRef *out)
{
    if (what.grouped == NULL)
        return client_open(what.spec, 0, &what.column, NULL, false, wait, out);
    GroupedPagesOpen gp{what.grouped, what.table_words};
    if (!client_open(gh::float_histogram(what.grouped->interval), 0, NULL, &gp, false, wait, out))
        return false;
    /* the tables travel through slots, a slot's worth at a time, as thresholds do */
    if (!client_send_table(out, what.table, what.table_words, wait)) {
        gpu_service_close(out);
        return false;
    }
    return true;
}

int32 gpu_service_take_page_slot(int32 most_on_gpus, bool *gpus_busy)
{
    /* a scan fills at most two batches a histogram, and queues each at once: no bound of its own */
    int32 most = most_on_gpus;
    if (most != INT32_MAX)
        most *= Max(gh_service->ndevices, 1); /* ndevices is one aligned word: a stale read misjudges one batch */
    return client_take_slot_among(gh_service->nslots, service_all_slots(), INT32_MAX, most, SERVICE_NO_WAIT,
                                  gpus_busy);
}

void gpu_service_send_pages(int32 slot, const ServiceHistogramRef *ref, const ServicePageBatch &b)
{
    const int32 npages = b.npages + b.nprobes;
    Assert(service_is_page_slot(slot) && npages <= kPageSlotPages && b.nruns <= kPageSlotProbeRuns);
    Assert(b.nprobes == 0 || b.rel.rel != 0);
    double *words = service_slot_values(slot);
    uint64 *pages = reinterpret_cast<uint64 *>(words);
    for (int i = 0; i < b.npages; i++)
        pages[i] = gh::page_word(static_cast<uint64>(b.buffers[i] - 1), b.lines[i]);
    if (b.rel.rel != 0) {
        memcpy(words + kPageSlotLsnWord, b.lsns, sizeof(uint64) * b.npages);
        memcpy(words + kPageSlotBlockWord, b.blocks, sizeof(uint32) * b.npages);
        memcpy(words + kPageSlotVmWord, b.vms, sizeof(uint64) * b.npages);
        /* a probe is missed unless the GPU says otherwise: it answers only where it resolves the batch */
        uint8 *misses = reinterpret_cast<uint8 *>(words + kPageSlotMissWord);
        memset(misses, 0, b.npages);
        memset(misses + b.npages, 1, b.nprobes);
        /* the GPU counts a run's `at` from the batch's first page (copy_page_batch_in) */
        gh::ProbeRun *runs = reinterpret_cast<gh::ProbeRun *>(words + kPageSlotRunWord);
        for (int k = 0; k < b.nruns; k++)
            runs[k] = gh::ProbeRun{b.npages + b.runs[k].at, b.runs[k].block, b.runs[k].vm};
    }
    /* the slot is this process's alone until queued: the queueing's lock publishes all of it */
    gh_service_slots[slot].cache_rel = b.rel;
    gh_service_slots[slot].probe_runs = b.nruns;
    reinterpret_cast<uint64 *>(words)[kPageSlotHitsWord] = 0;
    client_queue(slot, REQUEST_BIN_PAGES, ref, 0, npages);
    gh_batches_sent_to_gpu++;
}

bool gpu_service_pages_done(int32 slot, int32 npages, bool wait, ServicePageAnswer *answer)
{
    if (!client_await_answer(slot, wait, &answer->result))
        return false;
    const double *words = service_slot_values(slot);
    answer->cached = reinterpret_cast<const uint64 *>(words)[kPageSlotHitsWord];
    const bool read = answer->result == gh::Status::ok || answer->result == gh::Status::nan_value;
    /* the GPU's answer for each page lies after the page words (gpu_backend.h: gpu_grouped_pages_submit) */
    if (answer->left_to_host != NULL && read)
        memcpy(answer->left_to_host, reinterpret_cast<const char *>(words + npages), npages);
    /*
     * The probes the cache did not answer: every probe, unless the GPU read
     * the batch (the client flagged them all before sending; the GPU
     * overwrites the flags only where it resolved the batch).
     */
    if (answer->missed != NULL) {
        if (read)
            memcpy(answer->missed, reinterpret_cast<const uint8 *>(words + kPageSlotMissWord), npages);
        else /* the query fails; whatever it reads of the batch must not count as read */
            memset(answer->missed, 1, npages);
    }
    gpu_service_release_slot(slot);
    return true;
}

/* Whether c holds the share of this shape of scan over rel. */
static bool share_of(const CachedShare &c, const gh::PageCacheRel &rel, uint32 shape)
{
    return c.rel.rel != 0 && c.shape == shape && c.rel.spc == rel.spc && c.rel.db == rel.db && c.rel.rel == rel.rel;
}

void gpu_service_note_cached_share(const gh::PageCacheRel &rel, uint32 shape, double share)
{
    if (gh_service == NULL || rel.rel == 0)
        return;
    service_lock();
    /* this shape's entry, else the one noted longest ago */
    CachedShare *into = &gh_service->shares[0];
    for (CachedShare &c : gh_service->shares) {
        if (share_of(c, rel, shape)) {
            into = &c;
            break;
        }
        if (c.noted < into->noted)
            into = &c;
    }
    into->rel = rel;
    into->shape = shape;
    into->share = static_cast<float>(share);
    into->noted = ++gh_service->shares_noted;
    service_unlock();
}

double gpu_service_cached_share(const gh::PageCacheRel &rel, uint32 shape)
{
    if (gh_service == NULL || rel.rel == 0)
        return 0;
    double share = 0;
    service_lock();
    if (gh_service->state == SERVICE_UP && gh_service->page_cache_entries > 0)
        for (const CachedShare &c : gh_service->shares)
            if (share_of(c, rel, shape))
                share = c.share;
    service_unlock();
    return share;
}

uint32 gpu_service_cache_base(const gh::PageCacheRel &rel, uint32 nblocks)
{
    if (gh_service == NULL || rel.rel == 0)
        return 0;
    uint32 base = 0;
    service_lock();
    if (gh_service->page_cache_entries > 0) {
        gh::CachePlaces places{gh_service->places, kCachePlaces, gh_service->places_made, gh_service->next_place};
        base = gh::place_in_cache(&places, gh_service->page_cache_entries, rel, nblocks);
        gh_service->places_made = places.made;
        gh_service->next_place = places.next_base;
    }
    service_unlock();
    return base;
}

} // namespace gpu_histogram
