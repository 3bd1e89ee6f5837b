/*
 * cuda_page_cache_test.cu: the GPUs' page cache (gpu/specs/page_cache.h) through
 * gpu_pages_submit, as the GPU service drives it: a page is read from
 * device memory only under the key it was committed with, a batch that is
 * never committed leaves no key behind, and pages of one batch that share
 * an entry are each counted once, one of them at most from the cache; a
 * probe is answered only under its fill's map LSN, with its fill's lines.
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
    const uint32_t block = lsn + uint32_t(kPages);
    const uint32_t vm = block + uint32_t(kPages) / 2;
    const uint32_t directive = vm + uint32_t(kPages);
    const uint32_t hits = directive + uint32_t(kPages) / 2;
    const uint32_t miss = hits + 1;
    return gh::PageCacheKeys{rel, lsn, block, vm, directive, hits, miss, miss + uint32_t(kPages) / 8, 0};
}
constexpr size_t kRuns = 8;
constexpr size_t kCapacity = kPages + kPages / 8 + kPages * 3 + 1 + kPages / 8 + kRuns * 2;

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
     * One batch of buffers [0, kPages) as blocks[i], each with LSN lsns[i]
     * and map LSN vms[i] (none: all 0), through the cache; commits it if
     * asked.  A page whose LSN is 0 and map LSN is not is sent as a probe,
     * naming no buffer.  Answers the histogram and, in *hits, the pages
     * read from the cache; *missed, if given, gets each page's miss byte.
     * With runs, the pages from the first run's `at` on are its probes,
     * whatever the words and keys there say.
     */
    std::vector<int64_t> run(const Written &written, const std::vector<uint64_t> &lsns,
                             const std::vector<uint32_t> &blocks, bool commit, uint64_t *hits,
                             std::vector<uint64_t> vms = {}, std::vector<uint8_t> *missed = nullptr,
                             const std::vector<uint64_t> *page_words = nullptr,
                             const std::vector<gh::ProbeRun> *runs = nullptr)
    {
        if (vms.empty())
            vms.assign(kPages, 0);
        std::vector<int64_t> counts(size_t(spec.nbins) + 3, 0);
        gh::PageCacheKeys keys = keys_for(rel);
        uint64_t *area = buffers->area(0);
        std::vector<uint64_t> words = page_words != nullptr ? *page_words : words_for(written, 0, kPages);
        uint8_t *miss = reinterpret_cast<uint8_t *>(area + keys.miss_word);
        for (size_t i = 0; i < kPages; i++) {
            const bool probe = lsns[i] == 0 && vms[i] != 0;
            if (probe)
                words[i] = 0;
            miss[i] = probe || (runs != nullptr && i >= runs->front().at); /* as the scan flags its probes */
        }
        if (runs != nullptr) {
            keys.runs = uint32_t(runs->size());
            std::copy(runs->begin(), runs->end(), reinterpret_cast<gh::ProbeRun *>(area + keys.run_word));
        }
        std::copy(words.begin(), words.end(), area);
        std::copy(lsns.begin(), lsns.end(), area + keys.lsn_word);
        std::copy(blocks.begin(), blocks.end(), reinterpret_cast<uint32_t *>(area + keys.block_word));
        std::copy(vms.begin(), vms.end(), area + keys.vm_word);
        gh::DeviceHistogram *h = nullptr;
        EXPECT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers->buffer(0), kPages, col, &keys), Status::ok) << gh::gpu_last_error();
        for (bool finished = false; !finished;)
            EXPECT_EQ(gh::gpu_batch_finished(buffers->buffer(0), &finished), Status::ok);
        *hits = area[keys.hits_word];
        if (missed != nullptr)
            missed->assign(miss, miss + kPages);
        if (commit)
            EXPECT_EQ(gh::gpu_page_cache_commit(buffers->buffer(0)), Status::ok);
        EXPECT_EQ(gh::gpu_histogram_drain(h, 0, spec.nbins + 3, counts.data(), nullptr), Status::ok);
        gh::gpu_histogram_close(h);
        counts.pop_back(); /* the tuple counter */
        return counts;
    }

    /* The histogram of the pages [0, kPages) whose `take` is set. */
    std::vector<int64_t> reference_of(const Written &written, const std::vector<bool> &take)
    {
        std::vector<uint64_t> words = words_for(written, 0, kPages);
        for (size_t i = 0; i < kPages; i++)
            if (!take[i])
                words[i] = 0;
        std::vector<int64_t> want;
        EXPECT_EQ(expected(spec, scanned(written, {words}, col), &want), Status::ok);
        return want;
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

/*
 * Probes (page_cache.h): a page asked for by block and map LSN alone is read from the
 * entry filled under the same map LSN, with that fill's line pointers;
 * under another map LSN, or where nothing was committed, it is a miss,
 * flagged and counted nowhere, and the entry stays as it was.
 */
TEST_F(PageCache, ProbesHitOnlyUnderTheFillsMapLsn)
{
    const Written first = write(4);
    const std::vector<int64_t> want = reference(first);
    std::vector<uint8_t> missed;
    uint64_t hits = 0;
    const std::vector<uint64_t> vm_a(kPages, 500), vm_b(kPages, 600);

    /* an empty cache: every probe misses and nothing is counted */
    EXPECT_EQ(run(first, all(0), blocks_from(100), true, &hits, vm_a, &missed),
              reference_of(first, std::vector<bool>(kPages, false)));
    EXPECT_EQ(hits, 0u);
    EXPECT_EQ(missed, std::vector<uint8_t>(kPages, 1));

    /* filled from the pool under page LSN 4000 and map LSN 500; then probes with 500 hit */
    EXPECT_EQ(run(first, all(4000), blocks_from(100), true, &hits, vm_a, &missed), want);
    EXPECT_EQ(hits, 0u);
    EXPECT_EQ(missed, std::vector<uint8_t>(kPages, 0)) << "only probes miss";
    const Written second = write(5); /* the pool changes: a hit reads the entry, not the pool */
    ASSERT_NE(reference(second), want);
    EXPECT_EQ(run(second, all(0), blocks_from(100), true, &hits, vm_a, &missed), want);
    EXPECT_EQ(hits, kPages);
    EXPECT_EQ(missed, std::vector<uint8_t>(kPages, 0));

    /* another map LSN misses, and leaves the entries to the map LSN they have */
    EXPECT_EQ(run(second, all(0), blocks_from(100), true, &hits, vm_b, &missed),
              reference_of(second, std::vector<bool>(kPages, false)));
    EXPECT_EQ(hits, 0u);
    EXPECT_EQ(missed, std::vector<uint8_t>(kPages, 1));
    EXPECT_EQ(run(second, all(0), blocks_from(100), true, &hits, vm_a, &missed), want);
    EXPECT_EQ(hits, kPages);

    /* a pinned page under its fill's LSN, its bit now set under map LSN 600 (a VACUUM elsewhere on the map page) */
    EXPECT_EQ(run(second, all(4000), blocks_from(100), true, &hits, vm_b, &missed), want);
    EXPECT_EQ(hits, kPages);
    EXPECT_EQ(run(second, all(0), blocks_from(100), true, &hits, vm_b, &missed), want) << "the hit renewed the key";
    EXPECT_EQ(hits, kPages);
    EXPECT_EQ(run(second, all(0), blocks_from(100), true, &hits, vm_a, &missed),
              reference_of(second, std::vector<bool>(kPages, false)));
    EXPECT_EQ(hits, 0u) << "the old map LSN no longer";

    /* half probes of other blocks, half pinned pages: each probe misses, the pinned ones are read */
    std::vector<uint64_t> lsns(kPages), vms(kPages);
    std::vector<bool> pinned(kPages);
    for (size_t i = 0; i < kPages; i++) {
        pinned[i] = i % 2 == 1;
        lsns[i] = pinned[i] ? 4100 : 0;
        vms[i] = 500;
    }
    EXPECT_EQ(run(second, lsns, blocks_from(300), true, &hits, vms, &missed), reference_of(second, pinned));
    for (size_t i = 0; i < kPages; i++)
        EXPECT_EQ(missed[i], pinned[i] ? 0 : 1) << "page " << i;

    /* a fill without a map LSN (the bit was not set) is never a probe's hit */
    EXPECT_EQ(run(second, all(4200), blocks_from(700), true, &hits), reference(second));
    EXPECT_EQ(run(second, all(0), blocks_from(700), true, &hits, vm_a, &missed),
              reference_of(second, std::vector<bool>(kPages, false)));
    EXPECT_EQ(hits, 0u);

    /* an uncommitted fill leaves nothing a probe could hit */
    EXPECT_EQ(run(second, all(4300), blocks_from(900), false, &hits, vm_a, &missed), reference(second));
    EXPECT_EQ(run(second, all(0), blocks_from(900), true, &hits, vm_a, &missed),
              reference_of(second, std::vector<bool>(kPages, false)));
    EXPECT_EQ(hits, 0u);
}

/* A hit reads only the line pointers its fill noted: those added to the page later are not counted. */
TEST_F(PageCache, ProbeHitsReadTheFillsLines)
{
    const Written written = write(6);
    std::vector<uint64_t> halved = words_for(written, 0, kPages);
    for (uint64_t &w : halved)
        w = gh::page_word(gh::page_word_buffer(w), gh::page_word_lines(w) / 2);
    std::vector<int64_t> want;
    ASSERT_EQ(expected(spec, scanned(written, {halved}, col), &want), Status::ok);
    ASSERT_NE(want, reference(written));
    const std::vector<uint64_t> vms(kPages, 800);
    const std::vector<uint32_t> blocks = blocks_from(1200);
    uint64_t hits = 0;
    std::vector<uint8_t> missed;
    EXPECT_EQ(run(written, all(5000), blocks, true, &hits, vms, &missed, &halved), want);
    EXPECT_EQ(run(written, all(0), blocks, true, &hits, vms, &missed), want) << "the fill's lines, not the page's";
    EXPECT_EQ(hits, kPages);
}

/*
 * Probes given as runs (page_cache.h: ProbeRun) after a batch's pinned
 * pages: the GPU writes each probe's key itself, whatever the host area
 * holds there, and answers it as it answers a probe the host wrote out.
 */
TEST_F(PageCache, ProbeRunsAreExpandedOnTheDevice)
{
    const Written first = write(7);
    uint64_t hits = 0;
    std::vector<uint8_t> missed;
    const std::vector<uint32_t> blocks = blocks_from(2000);
    EXPECT_EQ(run(first, all(6000), blocks, true, &hits, std::vector<uint64_t>(kPages, 900), &missed), reference(first));
    const Written second = write(8); /* the pool changes: only a hit reads the first pages */
    ASSERT_NE(reference(second), reference(first));

    /*
     * 16 pinned pages under their fills' key, then runs: 24 probes under
     * the fills' map LSN, 16 under another, 8 under the fills' again.  The
     * host area past the pinned pages holds the pool's words under LSNs
     * no entry has: read as written, they would be fills of `second`.
     */
    std::vector<uint64_t> lsns(kPages, 7777), vms(kPages, 0);
    std::vector<uint32_t> pinned_blocks(kPages, 0);
    for (size_t i = 0; i < 16; i++) {
        lsns[i] = 6000;
        vms[i] = 900;
        pinned_blocks[i] = blocks[i];
    }
    const std::vector<gh::ProbeRun> runs{{16, 2016, 900}, {40, 2040, 901}, {56, 2056, 900}};
    std::vector<bool> from_cache(kPages);
    for (size_t i = 0; i < kPages; i++)
        from_cache[i] = i < 40 || i >= 56;
    EXPECT_EQ(run(second, lsns, pinned_blocks, true, &hits, vms, &missed, nullptr, &runs),
              reference_of(first, from_cache));
    EXPECT_EQ(hits, 48u);
    for (size_t i = 0; i < kPages; i++)
        EXPECT_EQ(missed[i], from_cache[i] ? 0 : 1) << "page " << i;

    /* a batch of runs only, one probe each block */
    const std::vector<gh::ProbeRun> only{{0, 2000, 900}};
    EXPECT_EQ(run(second, all(0), blocks, true, &hits, {}, &missed, nullptr, &only), reference(first));
    EXPECT_EQ(hits, kPages);
    EXPECT_EQ(missed, std::vector<uint8_t>(kPages, 0));
}

/* Runs out of order, empty, or without a map LSN are refused before anything is queued. */
TEST_F(PageCache, MalformedProbeRunsAreRefused)
{
    const Written written = write(9);
    gh::PageCacheKeys keys = keys_for(rel);
    uint64_t *area = buffers->area(0);
    std::copy_n(words_for(written, 0, kPages).begin(), kPages, area);
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    const std::vector<std::vector<gh::ProbeRun>> bad{
        {{30, 0, 1}, {20, 100, 1}}, /* out of order */
        {{10, 0, 1}, {10, 100, 1}}, /* an empty run */
        {{70, 0, 1}},               /* past the batch */
        {{10, 0, 0}},               /* no map LSN */
        {{10, 0xFFFFFFF0u, 1}},     /* past the last block number */
    };
    for (const std::vector<gh::ProbeRun> &runs : bad) {
        keys.runs = uint32_t(runs.size());
        std::copy(runs.begin(), runs.end(), reinterpret_cast<gh::ProbeRun *>(area + keys.run_word));
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers->buffer(0), kPages, col, &keys), Status::internal_error)
            << "runs from " << runs.front().at;
    }
    gh::gpu_histogram_close(h);
}

} // namespace
} // namespace gh_pages_test
