/*
 * page_cache_places_test.cpp: the page caches' places of relation files
 * (gpu/specs/page_cache_places.h), which decide whether the files a dashboard
 * scans together stay cached: placed one after another, kept while they
 * fit, moved when they outgrow their place, forgotten first in, first out
 * around the cache; and, whatever the sequence of scans, no two places
 * that are kept overlap.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "specs/page_cache_places.h"

namespace {

using gh::CachePlace;
using gh::CachePlaces;
using gh::PageCacheRel;

PageCacheRel file(uint32_t rel) { return PageCacheRel{1663, 5, rel, 0}; }

/* A table of n places, empty. */
struct Places {
    explicit Places(int n) : places(static_cast<size_t>(n)), state{places.data(), n, 0, 0} {}
    std::vector<CachePlace> places;
    CachePlaces state;
    uint32_t place(uint32_t rel, uint32_t nblocks, int64_t entries)
    {
        return gh::place_in_cache(&state, entries, file(rel), nblocks);
    }
};

TEST(PageCachePlaces, FilesGoOneAfterAnotherWithRoomToGrow)
{
    Places p(16);
    EXPECT_EQ(p.place(100, 1000, 100000), 0u);
    EXPECT_EQ(p.place(101, 1000, 100000), 1500u) << "1,000 blocks and half again";
    EXPECT_EQ(p.place(102, 10, 100000), 3000u);
    EXPECT_EQ(p.place(103, 10, 100000), 3074u) << "a small file still gets 64 blocks to grow";
    /* the same file, the same place, also grown within it */
    EXPECT_EQ(p.place(100, 1000, 100000), 0u);
    EXPECT_EQ(p.place(101, 1500, 100000), 1500u);
    /* another database's file of the same number is another file */
    EXPECT_EQ(gh::place_in_cache(&p.state, 100000, PageCacheRel{1663, 6, 100, 0}, 10), 3148u);
}

TEST(PageCachePlaces, AFileThatOutgrewItsPlaceMoves)
{
    Places p(16);
    EXPECT_EQ(p.place(1, 100, 10000), 0u);   /* [0, 164) */
    EXPECT_EQ(p.place(2, 100, 10000), 164u); /* [164, 328) */
    EXPECT_EQ(p.place(1, 165, 10000), 328u) << "past its 164 entries: after the last one placed";
    EXPECT_EQ(p.place(2, 100, 10000), 164u) << "the other one keeps its place";
    EXPECT_EQ(p.place(1, 165, 10000), 328u);
}

TEST(PageCachePlaces, AroundTheCacheTheFirstPlacesGoFirst)
{
    Places p(16);
    const int64_t entries = 1000;
    EXPECT_EQ(p.place(1, 200, entries), 0u);   /* [0, 300) */
    EXPECT_EQ(p.place(2, 200, entries), 300u); /* [300, 600) */
    EXPECT_EQ(p.place(3, 200, entries), 600u); /* [600, 900) */
    EXPECT_EQ(p.place(4, 200, entries), 0u) << "no room after 900: around, over the first";
    EXPECT_EQ(p.place(2, 200, entries), 300u) << "not covered: kept";
    EXPECT_EQ(p.place(1, 200, entries), 300u) << "covered: placed anew, after the last one";
    EXPECT_EQ(p.place(2, 200, entries), 600u) << "and that covered the second";
}

TEST(PageCachePlaces, AFileLargerThanTheCacheTakesAllOfIt)
{
    Places p(16);
    EXPECT_EQ(p.place(1, 100, 1000), 0u);
    EXPECT_EQ(p.place(2, 5000, 1000), 0u) << "no room after 164 for all 1,000 entries";
    EXPECT_EQ(p.place(2, 5000, 1000), 0u);
    EXPECT_EQ(p.place(1, 100, 1000), 0u) << "placed anew over it, at the start";
}

TEST(PageCachePlaces, AFullTableGivesUpTheOldestPlace)
{
    Places p(3);
    EXPECT_EQ(p.place(1, 10, 100000), 0u);
    EXPECT_EQ(p.place(2, 10, 100000), 74u);
    EXPECT_EQ(p.place(3, 10, 100000), 148u);
    EXPECT_EQ(p.place(4, 10, 100000), 222u) << "the table held three: the first file's place went";
    EXPECT_EQ(p.place(1, 10, 100000), 296u) << "so the first file is placed anew";
    EXPECT_EQ(p.place(3, 10, 100000), 148u) << "the third kept its place";
}

/* Whatever the scans, the places kept lie inside the cache and never overlap, and a file keeps its base while it fits. */
TEST(PageCachePlaces, KeptPlacesNeverOverlap)
{
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; trial++) {
        const int64_t entries = 500 + static_cast<int64_t>(rng() % 100000);
        Places p(1 + static_cast<int>(rng() % 40));
        std::vector<uint32_t> sizes(60);
        for (uint32_t &s : sizes)
            s = static_cast<uint32_t>(rng() % (rng() % 4 == 0 ? 3 * entries : entries / 8 + 1));
        for (int step = 0; step < 400; step++) {
            const uint32_t f = static_cast<uint32_t>(rng() % sizes.size());
            if (rng() % 10 == 0)
                sizes[f] += static_cast<uint32_t>(rng() % 200); /* the table took rows */
            const uint32_t before_span_base = [&] {
                for (const CachePlace &c : p.places)
                    if (c.rel.rel == f + 1 && sizes[f] <= c.span)
                        return c.rel.base;
                return UINT32_MAX;
            }();
            const uint32_t base = p.place(f + 1, sizes[f], entries);
            if (before_span_base != UINT32_MAX) {
                ASSERT_EQ(base, before_span_base) << "trial " << trial << ": a file that fits keeps its place";
            }
            for (size_t i = 0; i < p.places.size(); i++) {
                const CachePlace &a = p.places[i];
                if (a.rel.rel == 0)
                    continue;
                ASSERT_LE(int64_t(a.rel.base) + a.span, entries) << "trial " << trial;
                ASSERT_GE(int64_t(a.span), 1) << "trial " << trial;
                for (size_t j = i + 1; j < p.places.size(); j++) {
                    const CachePlace &b = p.places[j];
                    if (b.rel.rel == 0)
                        continue;
                    ASSERT_NE(a.rel.rel, b.rel.rel) << "trial " << trial << ": one place a file";
                    const bool apart = int64_t(a.rel.base) + a.span <= b.rel.base ||
                                       int64_t(b.rel.base) + b.span <= a.rel.base;
                    ASSERT_TRUE(apart) << "trial " << trial << ", step " << step << ": places of files "
                                       << a.rel.rel << " and " << b.rel.rel << " overlap";
                }
            }
        }
    }
}

} // namespace
