/*
 * page_gpu.cpp: batches of pinned pages for the GPU service (page_gpu.h).
 */
#include "page_gpu.h"

#include "../heap/page_layout.h"

#include "../../device_policy.h"
#include "../../pg_compat.h"
#include "../../settings.h"

#include <cstdio>
#include <unistd.h>
#include <utility>

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace {

/*
 * While the GPU still has the scan's previous batch, a parallel scan's
 * participant parses pages off the end of the full one instead of waiting
 * (host_has_idle_core says when), this many at a time (about 30 us),
 * looking again between.
 */
constexpr int32 kStealPages = 16;

/*
 * Pinned pages a batch holds at most.  A batch costs about 0.2 ms beyond
 * its transfer (the request, the launch, the collection), while the GPU
 * idles, and a lone scan has one batch on the GPU at a time: on the H100
 * over 100M rows of three columns, serially, 1,024, 2,048, 4,096 and
 * 8,192 pages a batch took 231, 186, 163 and 137 ms (ungrouped) and 236,
 * 198, 155 and 143 ms (GROUP BY g); with 8 workers, and under 64 pgbench
 * clients, the size made no difference.  Probes fill the rest of a page
 * slot (service_shared.h).
 */
constexpr int32 kPinnedPagesPerBatch = 8192;

/*
 * Pinned pages per batch within this backend's share of the buffer pool,
 * the share PostgreSQL's own read streams keep their pins to (the pool
 * over every backend and auxiliary process): a scan pins two batches (the
 * pages taken off one's end, and those the GPU leaves, are moved out of
 * them).  Unbounded, a 2,048-page batch took every buffer of a 16 MB pool
 * and the scan failed with "no unpinned buffers available"; with a 24 GB
 * pool and 100 connections the share is about 17,000 pins (PostgreSQL 18)
 * and the bound changes nothing.  Below kMinPagesPerBatch pages a batch,
 * no page is batched: the host reads them all.
 */
constexpr int32 kMinPagesPerBatch = 8;

int32 pages_per_batch_within_pins()
{
    int32 share = NBuffers / Max(MaxBackends + NUM_AUXILIARY_PROCS, 1);
    int32 pages = Min(kPinnedPagesPerBatch, share / 2);
    if (gh_debug_pages_per_batch > 0)
        pages = Min(pages, gh_debug_pages_per_batch);
    return pages >= kMinPagesPerBatch ? pages : 0;
}

/*
 * Pages per batch, probes included: a page slot's worth, or fewer for
 * testing.  A participant of a parallel scan claims no more than a pinned
 * batch's worth of blocks at a time: the blocks of its probes the cache
 * misses are its alone to read, pinned, and 32,768 of them would leave the
 * others idle.
 */
int32 pages_per_batch(int32 pin_capacity, bool parallel)
{
    int32 pages = parallel ? pin_capacity : gpu_service_limits().batch_pages;
    return gh_debug_pages_per_batch > 0 ? Min(pages, gh_debug_pages_per_batch) : pages;
}

/*
 * Whether a core would otherwise idle while this process waits for the
 * GPU: no more processes runnable than there are cores (/proc/loadavg's
 * running count, this one included).  Stealing only pays then, and only
 * in a parallel scan, where the participants together outrun the GPU's
 * link: with 8 workers on 16 cores it took a fifth of the pages and the
 * scan went from 80 to 59-62 ms on the H100.  A lone scan keeps pace with
 * the link (119 ms either way), so there it only spent the host's time
 * (81 ms of CPU became 118).  Under 64 pgbench clients on those 16 cores,
 * where every core is busy, a page the host steals is one the GPU would
 * have read for a tenth of the host's time: waiting gave 234 transactions
 * a second against 219.  Where the count cannot be read, it steals.
 */
bool host_has_idle_core()
{
    static long cores = 0;
    if (cores <= 0)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *f = AllocateFile("/proc/loadavg", "r");
    if (f == NULL)
        return true;
    double avg[3];
    long running = 0, total = 0;
    int got = fscanf(f, "%lf %lf %lf %ld/%ld", &avg[0], &avg[1], &avg[2], &running, &total);
    FreeFile(f);
    return got != 5 || cores <= 0 || running <= cores;
}

/* A filling batch looks whether the GPU is done with the other one this often (pages, probes). */
constexpr int32 kCollectEvery = 64;
constexpr int32 kCollectProbesEvery = 1024;

/* Gives back b's page slots, whether queued (the service then frees them) or not. */
void release_slots(const PageGpu *pg, PageBatch *b)
{
    for (int h = 0; h < pg->nhist; h++) {
        gpu_service_release_slot(b->slots[h]);
        b->slots[h] = -1;
    }
}

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
 * At a FATAL exit, before the executor's memory is freed, the exit
 * backstop of batch_pins.h drops the batches' pins.  A batch the GPU has
 * not finished must have let go of its slot by then, or the service could
 * commit to its page cache what the GPU read from buffers that already
 * hold other pages (cuda_process.cpp, commit_cached_pages).  Registered
 * after the backstop, so it runs before it.
 */
bool exit_release_registered = false;

void release_slots_at_exit(int, Datum)
{
    gpu_service_release_everything();
}

/* The pins, the service's slots and leases go back when the scan's memory does (ERROR, cancel, end). */
void give_back(void *arg)
{
    PageGpu *pg = static_cast<PageGpu *>(arg);
    for (int i = 0; i < pg->spill.npages; i++)
        batch_pin_drop(pg->spill.buffers[i]);
    pg->spill.npages = 0;
    batch_pins_untrack(&pg->spill.pins);
    if (pg->grouped != NULL) {
        for (int i = 0; i < pg->left.npages; i++)
            batch_pin_drop(pg->left.buffers[i]);
        pg->left.npages = 0;
        batch_pins_untrack(&pg->left.pins);
    }
    pg->pending = false;
    for (PageBatch &b : pg->batch) {
        /*
         * The slots first: the service adds what the GPU copied of these
         * pages to its page cache only while their slots are held
         * (cuda_process.cpp, commit_cached_pages), and once the pins are
         * gone the buffers may hold other pages.
         */
        release_slots(pg, &b);
        for (int i = 0; i < b.npages; i++)
            if (BufferIsValid(b.buffers[i]))
                batch_pin_drop(b.buffers[i]);
        b.npages = 0;
        batch_pins_untrack(&b.pins);
        b.on_gpu = false;
    }
    gpu_service_release_slot(pg->read_slot);
    pg->read_slot = -1;
    for (int h = 0; h < pg->nhist; h++)
        gpu_service_close(&pg->hist[h]);
}

/* Whether histogram h takes part: it has a column the kernel reads and input. */
bool binned(const PageGpu *pg, int h, const bool *skip)
{
    return pg->grouped != NULL || (pg->columns[h].attno > 0 && !skip[h]);
}

/*
 * A finished grouped batch: the pages the GPU left uncounted move, pinned,
 * to pg->left for the caller (page_gpu_left), and out of the batch, whose
 * release then skips them.
 */
void keep_left_pages(PageGpu *pg, PageBatch *b)
{
    for (int i = 0; i < b->npages; i++) {
        if (pg->left_flags[i] == 0)
            continue;
        pg->left.buffers[pg->left.npages] = b->buffers[i];
        pg->left.lines[pg->left.npages++] = b->lines[i];
        b->buffers[i] = InvalidBuffer;
    }
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
        ServicePageAnswer answer{gh::Status::ok, 0, pg->grouped != NULL ? pg->left_flags : NULL, missed};
        if (!gpu_service_pages_done(b->slots[h], n, wait, &answer))
            return false;
        gh::Status result = answer.result;
        uint64 cached = answer.cached;
        if (pg->grouped != NULL && (result == gh::Status::ok || result == gh::Status::nan_value)) {
            keep_left_pages(pg, b);
            /* a probe the GPU could not place is the host's to read pinned, as a miss is */
            for (int32 i = b->npages; missed != NULL && i < n; i++)
                missed[i] |= pg->left_flags[i];
        }
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
 * The policy's answer for a ready batch: its line pointers stand for its
 * values, and a batch short of capacity is the scan's last, which counts
 * as a full one where it is as large as kAutoLastBatchLines.
 */
DeviceChoice batch_choice(const PageGpu *pg, const PageBatch *b)
{
    /* a probe's lines are the cache's to know: it counts as a full page, which costs the host nothing more */
    int64 lines = static_cast<int64>(b->nprobes) * MaxHeapTuplesPerPage;
    for (int i = 0; i < b->npages; i++)
        lines += b->lines[i];
    bool leased = false;
    for (int h = 0; h < pg->nhist; h++)
        leased = leased || pg->hist[h].index >= 0;
    bool full = batch_full(pg, b) || lines >= kAutoLastBatchLines;
    return device_choose(DeviceWork{lines, full, leased, false});
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
    if (choice == DeviceChoice::cpu || !gpu_service_pages().ready)
        return false;
    bool first = true;
    for (int h = 0; h < pg->nhist; h++) {
        if (!binned(pg, h, skip))
            continue;
        /* the batch's first slot answers for the whole batch */
        int32 most = choice == DeviceChoice::gpu_now && first ? gh_auto_page_batches : INT32_MAX;
        bool busy = false;
        b->slots[h] = gpu_service_take_page_slot(most, &busy);
        first = false;
        if (b->slots[h] < 0) {
            release_slots(pg, b);
            if (busy)
                pg->gpus_busy++;
            else
                pg->no_room++;
            return false;
        }
    }
    for (int h = 0; h < pg->nhist; h++) {
        if (!binned(pg, h, skip) || pg->hist[h].index >= 0)
            continue;
        ServicePageHistogram what{};
        if (pg->grouped != NULL)
            what = ServicePageHistogram{gh::HistogramSpec{}, gh::PageColumn{}, pg->grouped, pg->table, pg->table_words};
        else
            what = ServicePageHistogram{states[h]->spec, pg->columns[h], NULL, NULL, 0};
        if (!gpu_service_open_pages(what, SERVICE_NO_WAIT, &pg->hist[h])) {
            release_slots(pg, b);
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
    DeviceChoice choice = batch_choice(pg, b);
    if (!send(pg, b, states, skip, choice)) {
        if (choice == DeviceChoice::gpu_now)
            pg->cpu_pages_left = pg->pin_capacity; /* no room: a pinned batch's worth as it comes */
        return unprobe(pg, b);
    }
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

namespace {

/*
 * The batches, the spill batch and, for a grouped scan, the left pages, in
 * cxt; their pins listed for the exit backstop, and the callback that gives
 * everything back registered.  pg->capacity and pg->nhist are set.
 */
void allocate_batches(PageGpu *pg, MemoryContext cxt)
{
    MemoryContext old = MemoryContextSwitchTo(cxt);
    for (PageBatch &b : pg->batch) {
        b.buffers = static_cast<Buffer *>(palloc(sizeof(Buffer) * pg->pin_capacity));
        b.lines = static_cast<OffsetNumber *>(palloc(sizeof(OffsetNumber) * pg->pin_capacity));
        b.lsns = static_cast<uint64 *>(palloc(sizeof(uint64) * pg->pin_capacity));
        b.blocks = static_cast<uint32 *>(palloc(sizeof(uint32) * pg->pin_capacity));
        b.vms = static_cast<uint64 *>(palloc(sizeof(uint64) * pg->pin_capacity));
        b.runs = static_cast<gh::ProbeRun *>(palloc(sizeof(gh::ProbeRun) * pg->run_capacity));
        b.slots = static_cast<int32 *>(palloc(sizeof(int32) * pg->nhist));
        for (int h = 0; h < pg->nhist; h++)
            b.slots[h] = -1;
    }
    pg->spill.buffers = static_cast<Buffer *>(palloc(sizeof(Buffer) * kStealPages));
    pg->spill.lines = static_cast<OffsetNumber *>(palloc(sizeof(OffsetNumber) * kStealPages));
    pg->miss_flags = static_cast<uint8 *>(palloc(pg->capacity));
    if (pg->grouped != NULL) {
        /* both batches may finish before the caller asks: room for all their pages */
        pg->left.buffers = static_cast<Buffer *>(palloc(sizeof(Buffer) * 2 * pg->pin_capacity));
        pg->left.lines = static_cast<OffsetNumber *>(palloc(sizeof(OffsetNumber) * 2 * pg->pin_capacity));
        pg->left_flags = static_cast<uint8 *>(palloc(pg->capacity));
    }
    MemoryContextSwitchTo(old);
    /*
     * Listed for the exit backstop only once nothing more can fail: the
     * callback that unlists them must be registered before an ERROR could
     * free this memory.
     */
    for (PageBatch &b : pg->batch) {
        b.pins = BatchPinList{&b.buffers, &b.npages, NULL};
        batch_pins_track(&b.pins);
    }
    if (!exit_release_registered) {
        before_shmem_exit(release_slots_at_exit, 0);
        exit_release_registered = true;
    }
    pg->spill.pins = BatchPinList{&pg->spill.buffers, &pg->spill.npages, NULL};
    batch_pins_track(&pg->spill.pins);
    if (pg->grouped != NULL) {
        pg->left.pins = BatchPinList{&pg->left.buffers, &pg->left.npages, NULL};
        batch_pins_track(&pg->left.pins);
    }
    pg->cleanup.func = give_back;
    pg->cleanup.arg = pg;
    MemoryContextRegisterResetCallback(cxt, &pg->cleanup);
}

/*
 * Where the GPUs keep a page cache, the reader notes each page's
 * visibility map LSN for it (heap_reader_watch_map), and with
 * `probes_fit` (every batch goes to one histogram, so that the cache
 * answers each probe once) hands out probes.  Only where an all-visible
 * page holds exactly the tuples the scan sees, and its map's LSNs can be
 * trusted: an MVCC snapshot outside recovery, no SERIALIZABLE (whose
 * checks read every tuple), a WAL-logged relation (cache_rel says so),
 * and no catalog (updated in place).  Testing without a GPU, every probe
 * comes back and is read pinned.
 */
void watch_map(PageGpu *pg, HeapReader *r, bool probes_fit, MemoryContext cxt)
{
    pg->reader = r;
    if (pg->cache_rel.rel == 0 || r->check_serializable || !IsMVCCSnapshot(r->snapshot) ||
        r->snapshot->takenDuringRecovery || RecoveryInProgress() || IsCatalogRelation(pg->rel))
        return;
    if (!pg->cpu_only && !gpu_service_pages().cache_running)
        return;
    pg->probing = probes_fit && gh_page_probes;
    heap_reader_watch_map(r, pg->probing, cxt);
}

/* Whether pages of rel can go to the GPU at all (or, testing, be batched for the CPU). */
bool pages_allowed(const PageGpu *pg, Relation rel)
{
    return !RelationUsesLocalBuffers(rel) && page_layout_matches() &&
           (pg->cpu_only || (device_gpu_wanted() && gh_pages_on_gpu && gpu_service_pages().ready));
}

/*
 * Whether rel's file may have been created, or given its present size, in
 * this transaction: the one place where its all-visible pages can change
 * while their map bits stay set.  COPY FREEZE, allowed only into a file
 * the current subtransaction created or truncated, adds frozen tuples to
 * a page that is already all-visible without clearing its bit, and so
 * without a new map LSN (heap_multi_insert with HEAP_INSERT_FROZEN); a
 * probe would then hit the page as cached before those tuples came.  And
 * a TRUNCATE of a table created in this transaction empties its file in
 * place (heap_truncate_one_rel), with the map truncated too.
 *
 * The relcache knows this of its own backend (rd_createSubid and the
 * first new file's subtransaction, which stay set to the end of the
 * transaction); a parallel worker's relcache is built afresh and does not.
 * Giving a relation a new file updates its pg_class row, so a row
 * written by this transaction tells a worker too; so does any other
 * ALTER of the table in this transaction, where leaving the cache out
 * costs only speed until the commit.
 */
bool file_new_in_xact(Relation rel)
{
    if (rel->rd_createSubid != InvalidSubTransactionId || GH_REL_FIRST_FILE_SUBID(rel) != InvalidSubTransactionId)
        return true;
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(RelationGetRelid(rel)));
    if (!HeapTupleIsValid(tuple))
        return true;
    bool mine = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
    ReleaseSysCache(tuple);
    return mine;
}

} // namespace

gh::PageCacheRel page_gpu_cache_rel(Relation rel)
{
    if (!RelationNeedsWAL(rel) || RelationUsesLocalBuffers(rel) || file_new_in_xact(rel))
        return gh::PageCacheRel{0, 0, 0, 0};
    GhRelFile file = GH_REL_FILE(rel);
    return gh::PageCacheRel{GH_REL_FILE_PARTS(file), 0};
}

namespace {

/* The scan's relation file and its place in the GPUs' page caches. */
gh::PageCacheRel placed_cache_rel(const HeapReader *r)
{
    gh::PageCacheRel file = page_gpu_cache_rel(r->rel);
    if (file.rel != 0)
        file.base = gpu_service_cache_base(file, r->nblocks);
    return file;
}

} // namespace

void page_gpu_begin(PageGpu *pg, HeapReader *r, const HeapColumn *columns, int nhist, bool parallel,
                    MemoryContext cxt)
{
    Relation rel = r->rel;
    *pg = PageGpu{};
    pg->nhist = nhist;
    pg->parallel = parallel;
    pg->read_slot = -1;
    pg->cpu_only = gh_debug_pages_on_cpu;
    if (!pages_allowed(pg, rel))
        return;
    pg->rel = rel;
    pg->cache_rel = placed_cache_rel(r);
    MemoryContext old = MemoryContextSwitchTo(cxt);
    pg->columns = static_cast<gh::PageColumn *>(palloc0(sizeof(gh::PageColumn) * nhist));
    pg->hist = static_cast<ServiceHistogramRef *>(palloc(sizeof(ServiceHistogramRef) * nhist));
    MemoryContextSwitchTo(old);
    TupleDesc desc = RelationGetDescr(rel);
    /* every ref, before the loop below may stop early: give_back closes them all */
    for (int h = 0; h < nhist; h++)
        pg->hist[h] = ServiceHistogramRef{-1, 0};
    bool any = false;
    for (int h = 0; h < nhist; h++) {
        if (columns[h].attno > 0 && page_column_for(desc, columns[h], &pg->columns[h]))
            any = true;
        else if (columns[h].attno > 0) {
            /* one histogram the kernel cannot read would need every page on the CPU anyway */
            any = false;
            break;
        }
    }
    pg->pin_capacity = pages_per_batch_within_pins();
    pg->capacity = pages_per_batch(pg->pin_capacity, parallel);
    pg->run_capacity = gpu_service_limits().probe_runs;
    if (pg->pin_capacity <= 0)
        return;
    allocate_batches(pg, cxt);
    pg->possible = any;
    int read = 0;
    for (int h = 0; h < nhist; h++)
        read += columns[h].attno > 0;
    if (any)
        watch_map(pg, r, read == 1, cxt);
}

void page_gpu_begin_grouped(PageGpu *pg, HeapReader *r, const gh::GroupedPageSpec *spec, const int64 *table,
                            int32 table_words, bool parallel, MemoryContext cxt)
{
    Relation rel = r->rel;
    *pg = PageGpu{};
    pg->nhist = 1;
    pg->parallel = parallel;
    pg->read_slot = -1;
    pg->cpu_only = gh_debug_pages_on_cpu;
    if (!pages_allowed(pg, rel))
        return;
    pg->rel = rel;
    pg->cache_rel = placed_cache_rel(r);
    pg->grouped = spec;
    pg->table = table;
    pg->table_words = table_words;
    pg->hist = static_cast<ServiceHistogramRef *>(MemoryContextAlloc(cxt, sizeof(ServiceHistogramRef)));
    pg->hist[0] = ServiceHistogramRef{-1, 0};
    pg->pin_capacity = pages_per_batch_within_pins();
    pg->capacity = pages_per_batch(pg->pin_capacity, parallel);
    pg->run_capacity = gpu_service_limits().probe_runs;
    if (pg->pin_capacity <= 0)
        return;
    allocate_batches(pg, cxt);
    pg->possible = true;
    watch_map(pg, r, true, cxt);
}

PageBatch *page_gpu_left(PageGpu *pg)
{
    return pg->left.npages > 0 ? &pg->left : NULL;
}

bool page_gpu_accepts(PageGpu *pg, const HeapReader *r, HistogramState *const *states, const bool *skip)
{
    if (!pg->possible || (r->probe ? !pg->probing : !heap_reader_page_shareable(r)))
        return false;
    int nbinned = 0;
    for (int h = 0; pg->grouped == NULL && h < pg->nhist; h++) {
        if (binned(pg, h, skip) && states[h] == NULL)
            return false;
        nbinned += binned(pg, h, skip);
    }
    if (r->probe && pg->grouped == NULL && nbinned != 1) /* a probe's batch goes to exactly one histogram */
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

void page_gpu_keep_values_on_cpu(const PageGpu *pg, HistogramState *st)
{
    if (pg->possible && !pg->cpu_only)
        st->gpu.refused = true; /* auto heeds it; device = gpu sends every full chunk all the same */
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
    if (pg->grouped != NULL)
        return pg->tuples_uncounted; /* the device's tuple counter is the caller's to read, with its cells */
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

void page_gpu_end(PageGpu *pg)
{
    if (!pg->possible)
        return;
    for (PageBatch &b : pg->batch) {
        /*
         * Still on the GPU only if the scan stopped early: unpinning then is
         * safe, its histogram goes unread, once its slots are let go (as in
         * give_back()).
         */
        release_slots(pg, &b);
        page_gpu_release(&b);
    }
    give_back(pg);
}
