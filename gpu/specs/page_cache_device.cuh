/*
 * page_cache_device.cuh: the page cache's plain data on the device
 * (page_cache.h), which the page kernels share with the backend
 * (cuda/cuda_page_cache.cu resolves a batch's pages against the entries
 * and commits its fills) and the dispatch layer passes between them: each
 * entry's key, a page's directive, and the view a page kernel reads hits
 * from and writes fills into.  Here, with the specs, so that neither the
 * backend nor the dispatch layer's interface includes a kernel header.
 */
#ifndef GH_PAGE_CACHE_DEVICE_CUH
#define GH_PAGE_CACHE_DEVICE_CUH

#include <cuda_runtime.h>

#include <cstdint>

#include "page_cache.h"

namespace gh {

/* What a page kernel sees of the cache: no directives, no cache. */
struct PageCacheView {
    const uint32_t *directives; /* the batch's, one a page; nullptr: every page from the pool */
    uint4 *pages;               /* the entries' pages, kPageBytes / 16 vectors each */
};

namespace kernels {

/*
 * An entry's key: lsn 0 means empty (no cached page has LSN 0); vm is the
 * map LSN a probe must bring (0: none), lines the line pointers a probe's
 * hit reads.
 */
struct alignas(16) CacheKey {
    uint32_t spc, db, rel, block;
    unsigned long long lsn;
    unsigned long long vm;
    uint32_t lines;
    uint32_t unused[3];
};
static_assert(sizeof(CacheKey) == 48, "page_cache.h's kPageCacheEntryBytes counts 48 bytes a key");

/*
 * A page's directive for the page kernel: read it from the pool only, read
 * it from entry e (a hit: e), or read it from the pool and copy it into
 * entry e (a fill: kFill | e).
 */
constexpr uint32_t kNotCached = 0xFFFFFFFFu;
constexpr uint32_t kFill = 0x80000000u;

} // namespace kernels
} // namespace gh

#endif /* GH_PAGE_CACHE_DEVICE_CUH */
