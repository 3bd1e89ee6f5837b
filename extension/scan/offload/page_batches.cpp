/*
 * page_batches.cpp: the page-batch room (page_gpu.h), the same for every
 * scan: pages and probes into batches, a ready batch to the GPU or back to
 * the caller, stealing from it while the GPU is busy, collecting finished
 * batches and their missed probes.  It knows no mode: what a batch is
 * counted into, and what comes back beyond the probes, is its sink's
 * (page_sink.h).
 */
#include "host_cores.h"
#include "page_sink.h"

#include "../../device_policy.h"
#include "../../settings.h"

extern "C" {
#include "access/htup_details.h"
#include "miscadmin.h"
}

namespace gpu_histogram {

/* Gives back b's page slots, whether queued (the service then frees them) or not. */
void page_batch_release_slots(const PageGpu *pg, PageBatch *b)
{
    for (int h = 0; h < pg->nhist; h++) {
        gpu_service_release_slot(b->slots[h]);
        b->slots[h] = -1;
    }
}

namespace {

/* A filling batch looks whether the GPU is done with the other one this often (pages, probes). */
constexpr int32 kCollectEvery = 64;
constexpr int32 kCollectProbesEvery = 1024;

/* A batch's pages on the GPU: the pinned ones, then its probes. */
inline int32 batch_size(const PageBatch *b)
{
    return b->npages + b->nprobes;
}

/* Pages of the batches on the GPU now. */
int64 pages_on_gpu(const PageGpu *pg)
{
    int64 n = 0;
    for (const PageBatch &b : pg->batch)
        n += b.on_gpu ? batch_size(&b) : 0;
    return n;
}

/* Whether b takes no more pages: it names capacity pages, pin_capacity pinned ones, or as many runs as a slot holds. */
inline bool batch_full(const PageGpu *pg, const PageBatch *b)
{
    return batch_size(b) >= pg->capacity || b->npages >= pg->pin_capacity || b->nruns >= pg->run_capacity;
}

/* n probes from block `first` on under map LSN vm, into b's last run if they follow it, else a new run. */
void add_probes(PageBatch *b, BlockNumber first, uint32 n, XLogRecPtr vm)
{
    gh::ProbeRun *last = b->nruns > 0 ? &b->runs[b->nruns - 1] : NULL;
    if (last == NULL || last->vm != vm || static_cast<uint64>(last->block) + (b->nprobes - last->at) != first)
        b->runs[b->nruns++] = gh::ProbeRun{static_cast<uint32>(b->nprobes), first, vm};
    b->nprobes += n;
}

/* Gives the probes of b's runs for which missed(probe) holds back to the reader; how many. */
template <typename Missed>
int64 give_back_probes(PageGpu *pg, const PageBatch *b, Missed missed)
{
    int64 n = 0;
    for (int k = 0; k < b->nruns; k++) {
        const gh::ProbeRun &run = b->runs[k];
        int32 end = k + 1 < b->nruns ? static_cast<int32>(b->runs[k + 1].at) : b->nprobes;
        for (int32 p = static_cast<int32>(run.at); p < end; p++) {
            if (!missed(p))
                continue;
            heap_reader_reread(pg->reader, run.block + (p - run.at), run.vm);
            n++;
        }
    }
    return n;
}

/*
 * Collects a batch on the GPU once the GPU is done with it (waiting for
 * that with `wait`), unpins it, and raises the service's error if the GPU
 * failed it; false if it is still on the GPU (only without wait).
 */
bool complete(PageGpu *pg, PageBatch *b, bool wait)
{
    if (!b->on_gpu)
        return true;
    gh::Status failure = gh::Status::ok;
    bool counted = false;
    const int32 n = batch_size(b);
    uint8 *missed = b->nprobes > 0 ? pg->miss_flags : NULL;
    for (int h = 0; h < pg->nhist; h++) {
        if (b->slots[h] < 0)
            continue;
        ServicePageAnswer answer{gh::Status::ok, 0, NULL, missed};
        if (!pg->sink->collect(pg, b, h, n, wait, &answer))
            return false;
        gh::Status result = answer.result;
        uint64 cached = answer.cached;
        b->slots[h] = -1;
        b->cached = Max(b->cached, cached); /* every histogram's batch names the same pages */
        counted = true;
        if (failure == gh::Status::ok)
            failure = result;
    }
    b->on_gpu = false;
    const uint8 *probe_missed = missed != NULL ? missed + b->npages : NULL;
    int64 given_back = give_back_probes(pg, b, [&](int32 p) { return !counted || probe_missed[p] != 0; });
    pg->probes += b->nprobes;
    pg->probes_missed += given_back;
    pg->pages_gpu += n - given_back;
    pg->pages_cached += b->cached;
    for (int i = 0; !counted && i < b->npages; i++)
        if (BufferIsValid(b->buffers[i]))
            pg->tuples_uncounted += heap_page_normal_tuples(BufferGetPage(b->buffers[i]), b->lines[i]);
    page_gpu_release(b);
    if (failure == gh::Status::nan_value && pg->defer_nan) {
        pg->nan_deferred = true;
        failure = gh::Status::ok;
    }
    gpu_service_report(failure);
    return true;
}

/*
 * A scan's last batch, short of capacity, is sent in auto as a full one is
 * once it holds this many line pointers.  The host parses pages slowly next
 * to a batch's round trip: the 7,808 pages a BRIN index left of the
 * dashboards table's 100M rows (1.2M tuples) took 45 to 61 ms in auto,
 * all parsed on the host, and 4.6 to 6.1 ms with device = gpu on the H100
 * host, a single batch.  A smaller remainder, or a small table, stays on
 * the CPU.
 */
constexpr int64 kAutoLastBatchLines = 64 * 1024;

/*
 * A ready batch as the counter weighs it: its line pointers stand for its
 * values, and a batch short of capacity is the scan's last, which counts
 * as a full one where it is as large as kAutoLastBatchLines.
 */
DeviceWork batch_work(const PageGpu *pg, const PageBatch *b)
{
    /* a probe's lines are the cache's to know: it counts as a full page, which costs the host nothing more */
    int64 lines = static_cast<int64>(b->nprobes) * MaxHeapTuplesPerPage;
    for (int i = 0; i < b->npages; i++)
        lines += b->lines[i];
    bool leased = false;
    for (int h = 0; h < pg->nhist; h++)
        leased = leased || pg->hist[h].index >= 0;
    bool full = batch_full(pg, b) || lines >= kAutoLastBatchLines;
    return DeviceWork{lines, full, leased, false};
}

/*
 * Takes a page slot per histogram and a lease per histogram without
 * waiting (pages never wait: with gpu_wait a refused batch's values go to
 * the GPU through the histogram states), and queues the batch; false: no
 * room.  gpu_now first asks whether the GPUs' queue of page batches, all
 * sessions' together, is under gpu_histogram.auto_page_batches a GPU; the
 * slots come before the leases, so that a scan turned away opens nothing.
 */
bool send(PageGpu *pg, PageBatch *b, HistogramState *const *states, const bool *skip, DeviceChoice choice)
{
    if (!gpu_service_pages().ready)
        return false;
    bool first = true;
    for (int h = 0; h < pg->nhist; h++) {
        if (!pg->sink->binned(pg, h, skip))
            continue;
        /* the batch's first slot answers for the whole batch */
        int32 most = choice == DeviceChoice::gpu_now && first ? gh_auto_page_batches : INT32_MAX;
        bool busy = false;
        b->slots[h] = gpu_service_take_page_slot(most, &busy);
        first = false;
        if (b->slots[h] < 0) {
            page_batch_release_slots(pg, b);
            if (busy)
                pg->gpus_busy++;
            else
                pg->no_room++;
            return false;
        }
    }
    for (int h = 0; h < pg->nhist; h++) {
        if (!pg->sink->binned(pg, h, skip) || pg->hist[h].index >= 0)
            continue;
        if (!pg->sink->open(pg, h, states)) {
            page_batch_release_slots(pg, b);
            pg->no_room++;
            return false;
        }
    }
    /* every histogram's slot names the same pages */
    const ServicePageBatch request{b->npages, b->buffers, b->lines, b->lsns, b->blocks, b->vms,
                                   b->nprobes, b->nruns, b->runs, pg->cache_rel};
    for (int h = 0; h < pg->nhist; h++)
        if (b->slots[h] >= 0)
            gpu_service_send_pages(b->slots[h], &pg->hist[h], request);
    b->on_gpu = true;
    b->cached = 0;
    return true;
}

/* A ready batch on its way to the counter. */
struct Shipment {
    PageGpu *pg;
    PageBatch *b;
    HistogramState *const *states;
    const bool *skip;
};

bool send_shipment(void *arg, DeviceChoice choice)
{
    Shipment *sh = static_cast<Shipment *>(arg);
    return send(sh->pg, sh->b, sh->states, sh->skip, choice);
}

/*
 * The counter's CPU count of a page batch is the scan's own read of its
 * tuples: ship() hands the batch back for that.  In auto, a GPU with no
 * room keeps a pinned batch's worth of the next pages here as they come.
 */
void keep_here(void *arg, DeviceChoice choice)
{
    Shipment *sh = static_cast<Shipment *>(arg);
    if (choice == DeviceChoice::gpu_now)
        sh->pg->cpu_pages_left = sh->pg->pin_capacity;
}

/*
 * Moves up to kStealPages pinned pages off the end of the filling batch
 * into the spill batch, for the caller to parse (its probes stay).  NULL
 * if there was none to take (the batch keeps its first page).
 */
PageBatch *steal(PageGpu *pg, PageBatch *b)
{
    PageBatch *spill = &pg->spill;
    int32 n = Min(kStealPages, b->npages - 1);
    if (n <= 0)
        return NULL;
    b->npages -= n;
    memcpy(spill->buffers, b->buffers + b->npages, sizeof(Buffer) * n);
    memcpy(spill->lines, b->lines + b->npages, sizeof(OffsetNumber) * n);
    spill->npages = n;
    pg->pending = true;
    pg->pages_stolen += n;
    return spill;
}

/* A batch the GPU does not take, for the caller to parse: its probes go back to the reader. */
PageBatch *unprobe(PageGpu *pg, PageBatch *b)
{
    if (b->nprobes == 0)
        return b;
    pg->probes_missed += give_back_probes(pg, b, [](int32) { return true; });
    pg->probes += b->nprobes;
    b->nprobes = 0;
    b->nruns = 0;
    return b;
}

/*
 * Batches of probes only that a scan keeps on the GPU at once.  With one,
 * the GPU idled through each batch's round trip (the request, the copies
 * and launches, the collection, the scan's wake-up): a serial scan of
 * 100M cached rows sent 20 batches of 32,768 probes on the H200 host and
 * waited about 175 us for each, where reading their 256 MB out of the
 * cache takes the GPU's memory about 55 us.  A batch with pinned pages
 * still goes alone, so that a scan pins two batches at most.
 */
constexpr int kProbeBatchesOnGpu = 2;

/* Collects every batch the GPU is done with, without waiting. */
void look_at_batches(PageGpu *pg)
{
    for (PageBatch &b : pg->batch)
        if (b.on_gpu)
            (void)complete(pg, &b, false);
}

/*
 * The oldest of the batches on the GPU if b may not join them yet: they
 * are kProbeBatchesOnGpu, or one of them or b holds pins and they are one.
 * NULL when b may go.
 */
PageBatch *in_the_way(PageGpu *pg, const PageBatch *b)
{
    PageBatch *oldest = NULL;
    int on_gpu = 0;
    bool pinned = b->npages > 0;
    for (PageBatch &o : pg->batch) {
        if (!o.on_gpu)
            continue;
        on_gpu++;
        pinned = pinned || o.npages > 0;
        if (oldest == NULL || o.sent < oldest->sent)
            oldest = &o;
    }
    return on_gpu >= (pinned ? 1 : kProbeBatchesOnGpu) ? oldest : NULL;
}

/*
 * The filling batch is ready (full, or the scan's last): it goes to the
 * GPU once the GPU is done with the scan's other batch (one batch on the
 * GPU at a time per scan, or kProbeBatchesOnGpu of probes only).  Until
 * then a parallel scan with a core to spare parses pages off its end
 * (returned a few at a time in the spill batch, pg->pending set); others
 * wait.  Then it
 * goes if the service has room (in auto, a place in the GPUs' queue of
 * all sessions' page batches); if not, it is the caller's to
 * parse, and in auto the next batch's worth of pages takes the CPU path as
 * it comes.
 */
PageBatch *ship(PageGpu *pg, HistogramState *const *states, const bool *skip)
{
    PageBatch *b = &pg->batch[pg->filling];
    bool stealing = pg->pending; /* decided when this batch first found the GPU busy */
    pg->pending = false;
    if (batch_size(b) == 0)
        return NULL;
    if (pg->cpu_only) {
        /*
         * Testing without a GPU: a batch's pages are taken off its end, a
         * few at a time, as from a batch that waits for a busy GPU, until
         * half are left; the rest is refused as if the service had no room.
         */
        PageBatch *spill = b->npages > pg->pin_capacity / 2 ? steal(pg, b) : NULL;
        return spill != NULL ? spill : unprobe(pg, b);
    }
    for (PageBatch *other; (other = in_the_way(pg, b)) != NULL;) {
        if (complete(pg, other, false))
            continue;
        if (!stealing)
            stealing = pg->parallel && host_has_idle_core();
        PageBatch *spill = b->npages > 1 && stealing ? steal(pg, b) : NULL;
        if (spill != NULL)
            return spill;
        (void)complete(pg, other, true);
    }
    Shipment shipment{pg, b, states, skip};
    if (!device_count(DeviceBatch{batch_work(pg, b), &shipment, send_shipment, keep_here}))
        return unprobe(pg, b);
    b->sent = ++pg->sends;
    /* at most two on the GPU: one of the three is free to fill */
    for (int i = 0; i < static_cast<int>(lengthof(pg->batch)); i++)
        if (!pg->batch[i].on_gpu) {
            pg->filling = i;
            break;
        }
    return NULL;
}

} // namespace

bool page_gpu_accepts(PageGpu *pg, const HeapReader *r, HistogramState *const *states, const bool *skip)
{
    if (!pg->possible || (r->probe ? !pg->probing : !heap_reader_page_shareable(r)))
        return false;
    if (!pg->sink->takes(pg, r->probe, states, skip))
        return false;
    if (pg->cpu_pages_left > 0) {
        pg->cpu_pages_left--;
        /*
         * A batch the GPU has finished is collected during the stretch, not
         * after it: until then it holds its pins and its page slot.
         */
        if (pg->cpu_pages_left % kCollectEvery == 0)
            look_at_batches(pg);
        return false;
    }
    return true;
}

PageBatch *page_gpu_add(PageGpu *pg, HeapReader *r, HistogramState *const *states, const bool *skip)
{
    PageBatch *b = &pg->batch[pg->filling];
    if (r->rel != pg->rel) { /* never so today: a scan reads one relation; a cache key must not lie */
        pg->cache_rel.rel = 0;
        pg->probing = false;
    }
    if (r->probe) {
        r->probe = false;
        add_probes(b, r->probe_block, 1, r->page_vm);
        /*
         * The probes that follow go in at once, a run at a time: a run of
         * all-visible blocks then costs the host a few instructions, not a
         * trip a block through the scan's loop (the reader, the strategy,
         * the checks above) and a key a block in the slot.
         */
        while (!batch_full(pg, b)) {
            BlockNumber first;
            XLogRecPtr vm;
            uint32 n = heap_reader_next_probe_run(r, pg->capacity - batch_size(b), &first, &vm);
            if (n == 0)
                break;
            add_probes(b, first, n, vm);
        }
        CHECK_FOR_INTERRUPTS();
    } else {
        XLogRecPtr lsn;
        Buffer buffer = heap_reader_take_page(r, &b->lines[b->npages], &lsn);
        b->lsns[b->npages] = lsn;
        b->blocks[b->npages] = BufferGetBlockNumber(buffer);
        b->vms[b->npages] = r->page_vm;
        /* the batch's own pin first, then the ordinary one goes: the page is never unpinned between */
        batch_pin_add(buffer);
        b->buffers[b->npages++] = buffer;
        ReleaseBuffer(buffer);
    }
    if (!batch_full(pg, b)) {
        /*
         * The other batch's slot and pins go back as soon as the GPU is
         * done with it; a batch of probes holds no pins, so it is looked
         * at less often, and the service's lock taken less often.
         */
        if (b->nprobes - pg->probes_unlooked >= kCollectProbesEvery || (b->npages > 0 && b->npages % kCollectEvery == 0)) {
            pg->probes_unlooked = b->nprobes;
            look_at_batches(pg);
        }
        return NULL;
    }
    pg->probes_unlooked = 0;
    return ship(pg, states, skip);
}

PageBatch *page_gpu_resume(PageGpu *pg, HistogramState *const *states, const bool *skip)
{
    return pg->pending ? ship(pg, states, skip) : NULL;
}

PageBatch *page_gpu_flush(PageGpu *pg, HistogramState *const *states, const bool *skip)
{
    if (!pg->possible)
        return NULL;
    /* the last, partial batch goes where the policy says (auto: not to a GPU this scan has not used) */
    return ship(pg, states, skip);
}

void page_gpu_release(PageBatch *b)
{
    for (int i = 0; i < b->npages; i++)
        if (BufferIsValid(b->buffers[i]))
            batch_pin_drop(b->buffers[i]);
    b->npages = 0;
    b->nprobes = 0;
    b->nruns = 0;
}

bool page_gpu_collect_probes(PageGpu *pg)
{
    if (!pg->possible || !pg->probing)
        return false;
    for (PageBatch &b : pg->batch)
        if (b.nprobes > 0)
            (void)complete(pg, &b, true);
    return heap_reader_has_rereads(pg->reader);
}

void page_gpu_parsed_on_cpu(PageGpu *pg, const PageBatch *b)
{
    pg->pages_cpu += b->npages;
}

uint64 page_gpu_finish(PageGpu *pg, HistogramState *const *states)
{
    if (!pg->possible)
        return 0;
    if (pg->cpu_only)
        elog(DEBUG1, "gpu_histogram scan: %llu pages pinned in batches and parsed on the CPU, %llu of them taken off "
             "a batch's end; %llu probes, %llu of them given back",
             static_cast<unsigned long long>(pg->pages_cpu), static_cast<unsigned long long>(pg->pages_stolen),
             static_cast<unsigned long long>(pg->probes), static_cast<unsigned long long>(pg->probes_missed));
    else /* why pages stayed on the CPU: under load, see where auto's share went */
        elog(DEBUG1,
             "gpu_histogram scan: batches on the GPU hold %llu pages; %llu batches found the GPUs' queue full, "
             "%llu no lease or slot; %llu batched pages parsed on the CPU, %llu of them while the GPU was busy; "
             "%llu pages so far read from the GPU's page cache; %llu probes, %llu of them missed",
             static_cast<unsigned long long>(pg->pages_gpu + pages_on_gpu(pg)),
             static_cast<unsigned long long>(pg->gpus_busy), static_cast<unsigned long long>(pg->no_room),
             static_cast<unsigned long long>(pg->pages_cpu), static_cast<unsigned long long>(pg->pages_stolen),
             static_cast<unsigned long long>(pg->pages_cached), static_cast<unsigned long long>(pg->probes),
             static_cast<unsigned long long>(pg->probes_missed));
    for (PageBatch &b : pg->batch)
        (void)complete(pg, &b, true);
    /* the caller reads every probe given back before it finishes (page_gpu_collect_probes) */
    if (pg->probing && heap_reader_has_rereads(pg->reader))
        elog(ERROR, "gpu_histogram scan: pages given back by the GPU were left unread");
    return pg->sink->finish(pg, states);
}

} // namespace gpu_histogram
