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
 * (hash(relation) + block) mod entries only, so consecutive blocks of one
 * relation never evict each other while the relation fits, and no table
 * of entries needs to live on the host.  A batch resolves its pages
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
 */
#ifndef GH_PAGE_CACHE_H
#define GH_PAGE_CACHE_H

#include <cstdint>

namespace gh {

/* A batch's relation file; every page of a batch is of one relation.  rel == 0: cache nothing of the batch. */
struct PageCacheRel {
    uint32_t spc;
    uint32_t db;
    uint32_t rel;
};

/*
 * Where a page batch's cache keys lie in its buffer: word offsets into the
 * host area (filled by the scan) and, at the same offsets, into its device
 * twin.  For n pages: n LSNs (uint64_t, 0: not cacheable) from lsn_word,
 * n block numbers (uint32_t) from block_word, and, on the device only, n
 * directives (uint32_t) from directive_word; hits_word receives the number
 * of the batch's pages read from the cache, once the batch is finished.
 */
struct PageCacheKeys {
    PageCacheRel rel;
    uint32_t lsn_word;
    uint32_t block_word;
    uint32_t directive_word;
    uint32_t hits_word;
};

/* Bytes of device memory a cached page takes: the page and its key. */
constexpr uint64_t kPageCacheEntryBytes = 8192 + 32 + 8;

} // namespace gh

#endif /* GH_PAGE_CACHE_H */
