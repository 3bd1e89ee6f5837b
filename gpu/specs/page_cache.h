/*
 * page_cache.h: heap pages kept in device memory between scans, as plain
 * data for the engine and the GPU service.
 *
 * Reading pages over PCIe is the page kernel's limit: 64 pgbench clients
 * each running an hourly heatmap over the same 10M rows (522 MB of pages)
 * held the H100's link at 58-62 GB/s, about 93 transactions a second,
 * while the host stood 73% idle.  A dashboard reads the same pages again
 * and again, and the GPU has tens of GB to keep them in.
 *
 * The key of a cached page is its relation's file (tablespace, database,
 * file number), its block number and its LSN as the scan read it under
 * the page's share lock.  PostgreSQL sets a page's LSN to a new WAL
 * position with every WAL-logged change, and a WAL position is never
 * handed out twice in the life of a cluster's history; what changes a
 * page without WAL (hint bits, PD_ALL_VISIBLE) is nothing the page kernel
 * reads of an all-visible page.  So an equal key means the page the kernel
 * would read, and a changed page is a miss.  A page whose LSN is 0 (written
 * without WAL: unlogged relations, or one created in the same transaction
 * under wal_level = minimal) is never cached: its LSN says nothing.
 *
 * The cache is direct-mapped: a page may live in entry
 * (base + block) mod entries only, so consecutive blocks of one relation
 * never evict each other while the relation fits, and no table of entries
 * needs to live on the host.  Each relation file's base is a place of
 * its own (page_cache_places.h), so that files cached together do not
 * overlap.  A batch resolves its pages
 * before its kernel runs (one thread a page): the first page of the batch
 * to claim an entry owns it for the batch; if the entry's key is the
 * page's, the kernel reads the page from device memory (a hit), otherwise
 * it reads it from the buffer pool as before and writes a copy into the
 * entry (a fill).  A page that finds its entry claimed by another page of
 * the same batch is read from the pool and not cached.
 *
 * A fill's key is written only once the GPU service knows that the scan
 * held the batch's pins until the kernel was done (page_cache_commit): a
 * scan cancelled mid-batch lets go of its pins while the kernel may still
 * read them, and a page read then may already be another block's.  Every
 * step runs on the device's one kernel stream, in order, so no kernel
 * reads an entry while another writes it.
 *
 * Pinning and noting each page is what a scan of cached pages still costs
 * the host: about 80 ms for the 636,943 pages of 100M rows on the H100
 * host, where the GPU reads their 5.2 GB from its own memory at over
 * 2 TB/s.  So a page
 * may also be asked for unpinned, as a probe: its block number and the
 * LSN of the visibility map page that covers it, read together with its
 * all-visible bit (set) under that map page's share lock.  Each fill is
 * keyed with the same: the map page's LSN, read with the bit set before
 * the page was noted (0: none), and the page's line pointer count then.
 * A probe hits an entry whose map LSN equals its own, and a probe is
 * read with its bit set under the map page's share lock.  That an equal
 * map LSN means unchanged tuples rests on these premises, each checked in
 * heapam's source of 15, 16, 17 and 18, for a WAL-logged relation outside
 * the catalogs read under an MVCC snapshot outside recovery (the scan
 * probes nothing else, scan/offload/page_gpu.cpp):
 *   1. Setting a bit gives the map page a new LSN: every caller goes
 *      through visibilitymap_set(), which WAL-logs the change
 *      (log_heap_visible) and stamps the map page with that record's LSN,
 *      a position never handed out before.  So a bit set at both readings
 *      under one LSN was set the whole time.
 *   2. Every change to an all-visible page's tuples clears its bit in the
 *      same critical section: heap_insert, heap_multi_insert, heap_delete
 *      and heap_update (both pages) call visibilitymap_clear().  Clearing
 *      need not change the map LSN (it does not before 18), which is why
 *      the bit itself is read with the LSN.
 *   3. What changes an all-visible page without clearing its bit changes
 *      no tuple a snapshot sees: a tuple lock (heap_lock_tuple clears the
 *      all-frozen bit only), pruning (heap_page_prune, 17's
 *      heap_page_prune_and_freeze: an all-visible page has no dead tuple)
 *      and freezing (the tuples' headers).  heap_inplace_update writes in
 *      place under a set bit, but only into catalogs, which are not probed.
 *   4. The exception: heap_multi_insert with HEAP_INSERT_FROZEN (COPY
 *      FREEZE) adds frozen tuples to a page already all-visible and leaves
 *      its bit, and the map LSN, as they were.  COPY FREEZE is allowed
 *      only into a file created or truncated in the current subtransaction
 *      (copyfrom.c), which no other transaction sees before it commits, and
 *      a TRUNCATE of a table created in the transaction empties its file
 *      in place (heap_truncate_one_rel).  So nothing of a file this
 *      transaction may have created or truncated is cached or probed
 *      (page_gpu_cache_rel): the scans that could see such changes never
 *      fill an entry, and after the commit no frozen insert reaches the
 *      file again.
 *   5. A VACUUM that truncates the table clears the truncated blocks' bits
 *      (visibilitymap_prepare_truncate); a block added again starts empty
 *      with its bit clear, and setting it is premise 1.
 * Where the fill noted the page after the probe's reading, both fell
 * while the probing scan's snapshot was held, and that snapshot holds back
 * the horizon: an all-visible page then holds exactly the tuples it sees
 * (the reasoning of index-only scans).  A probe that misses comes back to
 * the host, which reads the page as before.
 */
#ifndef GH_PAGE_CACHE_H
#define GH_PAGE_CACHE_H

#include <cstdint>

namespace gh {

/*
 * A batch's relation file; every page of a batch is of one relation.  rel
 * == 0: cache nothing of the batch.  base: the entry of the relation's
 * block 0, where the GPU service placed it (no part of the key).
 */
struct PageCacheRel {
    uint32_t spc;
    uint32_t db;
    uint32_t rel;
    uint32_t base;
};

/*
 * A run of probes: consecutive blocks from `block` on, all under map LSN
 * `vm`, that are the batch's pages from number `at` on, up to the next
 * run's `at` (the last run: up to the batch's end).  The scan names its
 * probes this way, a few runs a batch instead of a key a page: walking the
 * map and writing each probe's words was the host's whole cost of a cached
 * scan, about 19 ns a page on the H100 host, 12 ms for 100M rows.  The GPU
 * writes each probe's key into the batch's device twin before it resolves
 * the batch.
 */
struct ProbeRun {
    uint32_t at;
    uint32_t block;
    uint64_t vm;
};

/*
 * Where a page batch's cache keys lie in its buffer: word offsets into the
 * host area (filled by the scan) and, at the same offsets, into its device
 * twin.  For n pages: n LSNs (uint64_t, 0: not cacheable) from lsn_word,
 * n block numbers (uint32_t) from block_word, n map LSNs (uint64_t, 0:
 * none) from vm_word, and, on the device only, n directives (uint32_t)
 * from directive_word; hits_word receives the number of the batch's pages
 * read from the cache, and n bytes from miss_word a 1 for each probe the
 * cache could not answer, once the batch is finished.  A probe is a page
 * with LSN 0 and a map LSN; its page word names no buffer and no lines.
 * With runs > 0 the batch's last pages are probes, given as that many
 * ProbeRuns from run_word on: the host area holds the page words and keys
 * of the pages before the first run's `at` only, and the GPU writes the
 * rest.
 */
struct PageCacheKeys {
    PageCacheRel rel;
    uint32_t lsn_word;
    uint32_t block_word;
    uint32_t vm_word;
    uint32_t directive_word;
    uint32_t hits_word;
    uint32_t miss_word;
    uint32_t run_word;
    uint32_t runs;
};

/* Bytes of device memory a cached page takes: the page and its key. */
constexpr uint64_t kPageCacheEntryBytes = 8192 + 48 + 8;

} // namespace gh

#endif /* GH_PAGE_CACHE_H */
