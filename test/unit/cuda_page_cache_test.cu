/*
 * cuda_page_cache_test.cu: the GPUs' page cache (gpu/page_cache.h) through
 * gpu_pages_submit, as the GPU service drives it: a page is read from
 * device memory only under the key it was committed with, a batch that is
 * never committed leaves no key behind, and pages of one batch that share
 * an entry are each counted once, one of them at most from the cache.
 */
#include "cuda_pages_harness.cuh"

#include <memory>

namespace gh_pages_test {
namespace {

constexpr size_t kPages = 64;
/* 1 MB: 127 entries, so that blocks 127 apart share one */
constexpr size_t kCacheBytes = size_t(1) << 20;

/* Where a batch of up to kPages pages keeps its keys in its buffer, as service_shared.h lays out a page slot. */
gh::PageCacheKeys keys_for(const gh::PageCacheRel &rel)
{
    const uint32_t lsn = kPages + kPages / 8;
    return gh::PageCacheKeys{rel, lsn, lsn + uint32_t(kPages), lsn + uint32_t(kPages) * 3 / 2,
                             lsn + uint32_t(kPages) * 2};
}
constexpr size_t kCapacity = kPages + kPages / 8 + kPages * 2 + 1;

class PageCache : public gh_test::KernelTest {
  protected:
    void SetUp() override
    {
        gh_test::KernelTest::SetUp();
        if (IsSkipped() || HasFatalFailure())
            return;
        if (!gh::gpu_pool_registered())
            ASSERT_EQ(gh::gpu_pool_register(pool(), kPoolPages * kPage), Status::ok) << gh::gpu_last_error();
        uint64_t entries = 0;
        ASSERT_EQ(gh::gpu_page_cache_start(kCacheBytes, &entries), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(entries, kCacheBytes / gh::kPageCacheEntryBytes);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        buffers = std::make_unique<WordBuffers>(kCapacity, 1); /* once the GPU is started */
        ASSERT_EQ(buffers->status(), Status::ok) << gh::gpu_last_error();
    }

    /* Fills buffers [0, kPages) with one float8 column, values from `seed`. */
    Written write(uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        return write_table(layout, 0, kPages, kPages * 226, /* every page full: an empty one is never cached */
                           [&](size_t) { return std::vector<Datum>{stored(PageValueType::float8, around(rng, spec))}; });
    }

    /*
     * One batch of buffers [0, kPages) as blocks[i], each with LSN lsns[i],
     * through the cache; commits it if asked.  Answers the histogram and,
     * in *hits, the pages read from the cache.
     */
    std::vector<int64_t> run(const Written &written, const std::vector<uint64_t> &lsns,
                             const std::vector<uint32_t> &blocks, bool commit, uint64_t *hits)
    {
        std::vector<int64_t> counts(size_t(spec.nbins) + 3, 0);
        const gh::PageCacheKeys keys = keys_for(rel);
        uint64_t *area = buffers->area(0);
        std::vector<uint64_t> words = words_for(written, 0, kPages);
        std::copy(words.begin(), words.end(), area);
        std::copy(lsns.begin(), lsns.end(), area + keys.lsn_word);
        std::copy(blocks.begin(), blocks.end(), reinterpret_cast<uint32_t *>(area + keys.block_word));
        gh::DeviceHistogram *h = nullptr;
        EXPECT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers->buffer(0), kPages, col, &keys), Status::ok) << gh::gpu_last_error();
        for (bool finished = false; !finished;)
            EXPECT_EQ(gh::gpu_batch_finished(buffers->buffer(0), &finished), Status::ok);
        *hits = area[keys.hits_word];
        if (commit)
            EXPECT_EQ(gh::gpu_page_cache_commit(buffers->buffer(0)), Status::ok);
        EXPECT_EQ(gh::gpu_histogram_drain(h, 0, spec.nbins + 3, counts.data(), nullptr), Status::ok);
        gh::gpu_histogram_close(h);
        counts.pop_back(); /* the tuple counter */
        return counts;
    }

    std::vector<int64_t> reference(const Written &written)
    {
        std::vector<int64_t> want;
        EXPECT_EQ(expected(spec, scanned(written, {words_for(written, 0, kPages)}, col), &want), Status::ok);
        return want;
    }

    const BucketSpec spec{0, 1, 40, BucketRule::pg16};
    const Layout layout{{8, 8}};
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    gh::PageCacheRel rel{1663, 5, 16384};
    std::unique_ptr<WordBuffers> buffers;
};

std::vector<uint64_t> all(uint64_t lsn) { return std::vector<uint64_t>(kPages, lsn); }

std::vector<uint32_t> blocks_from(uint32_t first)
{
    std::vector<uint32_t> out;
    for (uint32_t b = 0; b < kPages; b++)
        out.push_back(first + b);
    return out;
}

TEST_F(PageCache, HitsOnlyUnderTheCommittedKey)
{
    const Written first = write(1);
    const std::vector<int64_t> want_first = reference(first);
    uint64_t hits = 0;
    EXPECT_EQ(run(first, all(1000), blocks_from(0), true, &hits), want_first);
    EXPECT_EQ(hits, 0u) << "an empty cache";
    EXPECT_EQ(run(first, all(1000), blocks_from(0), true, &hits), want_first);
    EXPECT_EQ(hits, kPages) << "every page, committed under its key";

    /* the pool changes under the same keys: the cache answers what it was given (an LSN that lied) */
    const Written second = write(2);
    const std::vector<int64_t> want_second = reference(second);
    ASSERT_NE(want_first, want_second);
    EXPECT_EQ(run(second, all(1000), blocks_from(0), true, &hits), want_first);
    EXPECT_EQ(hits, kPages);

    /* new LSNs: read from the pool; not committed, as for a cancelled scan: nothing becomes a hit */
    EXPECT_EQ(run(second, all(2000), blocks_from(0), false, &hits), want_second);
    EXPECT_EQ(hits, 0u);
    EXPECT_EQ(run(second, all(2000), blocks_from(0), true, &hits), want_second);
    EXPECT_EQ(hits, 0u) << "the uncommitted batch left its entries empty";
    EXPECT_EQ(run(second, all(2000), blocks_from(0), true, &hits), want_second);
    EXPECT_EQ(hits, kPages);

    /* an LSN of 0 is never cached; another relation's file is another key */
    EXPECT_EQ(run(second, all(0), blocks_from(0), true, &hits), want_second);
    EXPECT_EQ(hits, 0u);
    rel.rel = 16385;
    EXPECT_EQ(run(second, all(2000), blocks_from(0), true, &hits), want_second);
    EXPECT_EQ(hits, 0u);
}

TEST_F(PageCache, PagesOfOneBatchSharingAnEntry)
{
    const size_t entries = kCacheBytes / gh::kPageCacheEntryBytes;
    const Written written = write(3);
    const std::vector<int64_t> want = reference(written);
    /* block i and block i + entries share an entry: pairs of the batch's pages collide */
    std::vector<uint32_t> blocks;
    for (uint32_t i = 0; i < kPages; i++)
        blocks.push_back(i % 2 == 0 ? 7000 + i / 2 : 7000 + i / 2 + static_cast<uint32_t>(entries));
    uint64_t hits = 0;
    for (int round = 0; round < 4; round++) {
        EXPECT_EQ(run(written, all(3000), blocks, true, &hits), want);
        /* whichever page of a pair claims the entry first: a hit if it is the one cached there */
        EXPECT_LE(hits, kPages / 2) << "one page of each pair at most";
    }
}

} // namespace
} // namespace gh_pages_test
