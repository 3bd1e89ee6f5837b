/*
 * page_gpu.cpp: the page-batch room's set-up and lifetime (page_gpu.h):
 * how large a batch is, the batches' memory and pins, the identity of the
 * scan's pages in the GPUs' page cache, and giving everything back.  The
 * batches' way to the GPU and back is page_batches.cpp's; what the pages
 * are counted into, the sinks' (page_sink.h).
 */
#include "page_sink.h"

#include "../heap/page_layout.h"

#include "../../device_policy.h"
#include "../../pg_compat.h"
#include "../../settings.h"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace gpu_histogram {

namespace {

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
 * At a FATAL exit, before the executor's memory is freed, the exit
 * backstop of batch_pins.h drops the batches' pins.  A batch the GPU has
 * not finished must have let go of its slot by then, or the service could
 * commit to its page cache what the GPU read from buffers that already
 * hold other pages (cuda_requests.cpp, commit_cached_pages).  Registered
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
    if (pg->kept.buffers != NULL) {
        for (int i = 0; i < pg->kept.npages; i++)
            batch_pin_drop(pg->kept.buffers[i]);
        pg->kept.npages = 0;
        batch_pins_untrack(&pg->kept.pins);
    }
    pg->pending = false;
    for (PageBatch &b : pg->batch) {
        /*
         * The slots first: the service adds what the GPU copied of these
         * pages to its page cache only while their slots are held
         * (cuda_requests.cpp, commit_cached_pages), and once the pins are
         * gone the buffers may hold other pages.
         */
        page_batch_release_slots(pg, &b);
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


/*
 * The batches and the spill batch, in cxt; their pins and those of
 * pg->kept (if the sink made it) listed for the exit backstop, and the
 * callback that gives everything back registered.  pg->capacity and
 * pg->nhist are set.
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
    if (pg->kept.buffers != NULL) {
        pg->kept.pins = BatchPinList{&pg->kept.buffers, &pg->kept.npages, NULL};
        batch_pins_track(&pg->kept.pins);
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

bool page_gpu_prepare(PageGpu *pg, HeapReader *r, int nhist, const PageSink *sink, bool parallel, MemoryContext cxt)
{
    *pg = PageGpu{};
    pg->nhist = nhist;
    pg->parallel = parallel;
    pg->read_slot = -1;
    pg->cpu_only = gh_debug_pages_on_cpu;
    pg->sink = sink;
    if (!pages_allowed(pg, r->rel))
        return false;
    pg->rel = r->rel;
    pg->cache_rel = placed_cache_rel(r);
    pg->hist = static_cast<ServiceHistogramRef *>(MemoryContextAlloc(cxt, sizeof(ServiceHistogramRef) * nhist));
    /* every ref, before anything may stop early: give_back closes them all */
    for (int h = 0; h < nhist; h++)
        pg->hist[h] = ServiceHistogramRef{-1, 0};
    pg->pin_capacity = pages_per_batch_within_pins();
    pg->capacity = pages_per_batch(pg->pin_capacity, parallel);
    pg->run_capacity = gpu_service_limits().probe_runs;
    return pg->pin_capacity > 0;
}

void page_gpu_start(PageGpu *pg, HeapReader *r, bool possible, bool probes_fit, MemoryContext cxt)
{
    allocate_batches(pg, cxt);
    pg->possible = possible;
    if (possible)
        watch_map(pg, r, probes_fit, cxt);
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
        page_batch_release_slots(pg, &b);
        page_gpu_release(&b);
    }
    give_back(pg);
}

} // namespace gpu_histogram
