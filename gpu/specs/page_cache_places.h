/*
 * page_cache_places.h: where each relation file's pages go in the GPUs'
 * direct-mapped page caches (page_cache.h), as plain data: the GPU service
 * keeps the places in its shared memory and asks place_in_cache() under its
 * lock when a scan begins (extension/service/client_pages.cpp).
 *
 * Why a place per file, not a hash of its name: block b of a file with
 * base B lives in entry (B + b) mod entries, so two files whose bases lie
 * closer than their sizes share entries and evict each other's pages at
 * every scan.  With hashed bases, two of the 17 chunks of a 10M-row
 * hypertable, an eighth of a 4 GB cache in all, overlapped by 2,671
 * entries: their scans took 5 ms instead of 1, every time.
 *
 * So files are placed one after another around the cache, each with room
 * to grow by half (a table that takes rows keeps its place a while).  A
 * file keeps its place while it fits it; one not placed yet, or grown past
 * its place, goes after the last one placed, and the places it covers are
 * forgotten: their files get a new place when next scanned.  The caches
 * thus keep the files scanned last, whole and apart, and give way first
 * in, first out.  A file larger than the cache takes all of it.
 */
#ifndef GH_PAGE_CACHE_PLACES_H
#define GH_PAGE_CACHE_PLACES_H

#include <algorithm>
#include <cstdint>

#include "page_cache.h"

namespace gh {

/* One file's place: entries [rel.base, rel.base + span). */
struct CachePlace {
    PageCacheRel rel; /* rel 0: an empty place */
    uint32_t span;
    uint64_t placed;  /* CachePlaces::made when placed */
};

/* The places of the files placed last, and where the next one goes. */
struct CachePlaces {
    CachePlace *places;
    int nplaces;
    uint64_t made;
    int64_t next_base;
};

inline bool same_cache_file(const PageCacheRel &a, const PageCacheRel &b)
{
    return a.rel == b.rel && a.db == b.db && a.spc == b.spc;
}

/*
 * The base of rel's file for a scan of its first nblocks blocks, in a cache
 * of entries entries (above 0), its place kept or made in *p.
 */
inline uint32_t place_in_cache(CachePlaces *p, int64_t entries, const PageCacheRel &rel, uint32_t nblocks)
{
    CachePlace *into = nullptr;
    for (int i = 0; i < p->nplaces && into == nullptr; i++)
        if (p->places[i].rel.rel != 0 && same_cache_file(p->places[i].rel, rel))
            into = &p->places[i];
    if (into != nullptr && nblocks <= into->span)
        return into->rel.base;
    const int64_t blocks = nblocks;
    const int64_t span = std::min(entries, blocks + std::max<int64_t>(blocks / 2, 64));
    int64_t base = p->next_base;
    if (base + span > entries)
        base = 0; /* around the cache: the places made first go first */
    p->next_base = base + span;
    for (int i = 0; i < p->nplaces; i++) {
        CachePlace &q = p->places[i];
        const int64_t from = q.rel.base, to = from + q.span;
        if (q.rel.rel != 0 && &q != into && from < base + span && base < to)
            q.rel.rel = 0; /* covered: placed anew when next scanned */
    }
    if (into == nullptr) {
        /* an empty place, else the one made longest ago */
        into = &p->places[0];
        for (int i = 0; i < p->nplaces; i++) {
            if (p->places[i].rel.rel == 0) {
                into = &p->places[i];
                break;
            }
            if (p->places[i].placed < into->placed)
                into = &p->places[i];
        }
    }
    into->rel = rel;
    into->rel.base = static_cast<uint32_t>(base);
    into->span = static_cast<uint32_t>(span);
    into->placed = ++p->made;
    return into->rel.base;
}

} // namespace gh

#endif /* GH_PAGE_CACHE_PLACES_H */
