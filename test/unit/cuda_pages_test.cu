/*
 * cuda_pages_test.cu: the page kernel and its entry points (gpu_pool_register,
 * gpu_pages_submit, gpu_batch_finished) against a host reference.
 *
 * Pages are written as PostgreSQL 15 writes them (heap_pages.h) into one
 * host pool registered once for the whole process, as the GPU service
 * registers the server's buffer pool.  Each test lists pages of that pool
 * in page words and compares the device histogram with what the column's
 * values give through the CPU backend's width_bucket, value by value:
 * every stored type, alignment padding, NULL bitmaps before and at the
 * column, tuples older than the column, every kind of line pointer, the
 * scan's line count, NaN and infinities, pages in any order and more than
 * once, batches larger than the grid, counters in shared and in global
 * memory, and damaged pages that must be skipped without a read outside
 * them (compute-sanitizer's memcheck checks that).  Skips without a GPU,
 * but for the PageParse tests: they run the kernel's tuple walk on the
 * host over random tables and the damaged pages, so that a machine with
 * no GPU checks the parsing too.  The helpers are in cuda_pages_harness.cuh.
 */
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda_pages_harness.cuh"

namespace {

using namespace gh_pages_test;

/* ---- the kernel's walk on the host: no GPU needed ---- */

TEST(PageParse, HostWalkAgreesWithTheWriterOnRandomTables)
{
    ASSERT_NE(pool(), nullptr);
    std::mt19937_64 rng(12);
    /* varlenas (text, numeric, arrays of float8) before the column: the walk reads their headers */
    const Layout widths{{1, 1}, {2, 2}, {4, 4}, {8, 8}, {16, 1}, {6, 2}, {12, 4},
                        {gh::kVarlenaLen, 4}, {gh::kVarlenaLen, 8}, {gh::kVarlenaLen, 1}};
    auto varlena = [&rng]() {
        switch (rng() % 8) {
        case 0: return heap_pages::toast_pointer_datum(static_cast<uint32_t>(rng()));
        case 1: return heap_pages::varlena_datum(static_cast<uint32_t>(rng() % 300), true);
        case 2: return heap_pages::varlena_datum(126 + static_cast<uint32_t>(rng() % 200));
        default: return heap_pages::varlena_datum(static_cast<uint32_t>(rng() % 40));
        }
    };
    const PageValueType types[] = {PageValueType::float8, PageValueType::float4, PageValueType::int2,
                                   PageValueType::int4, PageValueType::int8};
    for (int trial = 0; trial < 500; trial++) {
        const PageValueType type = types[rng() % 5];
        const size_t ncols = 1 + rng() % (trial % 4 == 0 ? 65 : 12); /* up to kMaxPagePrefix earlier columns */
        const int attno = 1 + static_cast<int>(rng() % ncols);
        Layout layout;
        for (size_t a = 0; a < ncols; a++)
            layout.push_back(widths[rng() % widths.size()]);
        layout[size_t(attno - 1)] = attr_of(type);
        const uint64_t null_rate = rng() % 4; /* in eighths */
        const bool older_rows = rng() % 2 == 0;
        Written written = write_table(layout, 0, 3, 1000, [&](size_t) {
            const size_t natts = older_rows && rng() % 4 == 0 ? 1 + rng() % ncols : ncols;
            std::vector<Datum> row;
            for (size_t a = 0; a < natts; a++)
                row.push_back(rng() % 8 < null_rate ? heap_pages::null_datum()
                              : int(a) + 1 == attno ? stored(type, std::uniform_real_distribution<double>(-1e6, 1e6)(rng))
                              : layout[a].len == gh::kVarlenaLen ? varlena()
                                                    : heap_pages::int_datum(static_cast<int64_t>(rng())));
            return row;
        });
        std::vector<uint64_t> words;
        for (size_t b = 0; b < 3; b++)
            words.push_back(gh::page_word(b, static_cast<uint32_t>(rng() % (written[b].size() + 1))));
        const gh::PageColumn col = heap_pages::page_column(layout, attno, type, rng() % 2 == 0, -0.25);
        ASSERT_TRUE(gh::page_column_fits(col)) << "trial " << trial;
        expect_same_values(walked_on_host({words}, col), scanned(written, {words}, col), "trial " + std::to_string(trial));
    }
}

TEST(PageParse, HostWalkSkipsDamageWithinThePage)
{
    ASSERT_NE(pool(), nullptr);
    Written written;
    std::vector<uint64_t> words;
    ASSERT_NO_FATAL_FAILURE(write_damaged_pages(&written, &words));
    const gh::PageColumn col = heap_pages::page_column({{4, 4}, {8, 8}}, 2, PageValueType::float8);
    expect_same_values(walked_on_host({words}, col), scanned(written, {words}, col), "damaged pages");
}

TEST(PageParse, HostWalkSkipsAVarlenaThatLiesAboutItsLength)
{
    ASSERT_NE(pool(), nullptr);
    const Layout layout{{gh::kVarlenaLen, 4}, {8, 8}};
    PageWriter w(pool_page(0));
    for (int i = 0; i < 12; i++) {
        const Datum text = i % 3 == 0 ? heap_pages::varlena_datum(200) /* a 4-byte header */
                           : i % 3 == 1 ? heap_pages::varlena_datum(9)
                                        : heap_pages::toast_pointer_datum(static_cast<uint32_t>(i));
        ASSERT_TRUE(w.add_tuple(layout, {text, heap_pages::float8_datum(i + 0.5)}));
    }
    /* each tuple's data starts at t_hoff 24, with the varlena first */
    auto data = [&w](uint32_t i) { return w.tuple(i) + 24; };
    data(0)[1] = 0x40; /* a 4-byte header whose length runs far past the tuple */
    w.expect_skipped(0);
    data(3)[0] = 0;
    data(3)[1] = 0;
    data(3)[2] = 0;
    data(3)[3] = 0; /* a 4-byte header of length 0, shorter than itself */
    w.expect_skipped(3);
    data(1)[0] = 0x7F; /* a 1-byte header of 63 bytes, in a 34-byte tuple */
    w.expect_skipped(1);
    data(2)[1] = 1; /* a TOAST pointer tagged VARTAG_INDIRECT, which no table stores */
    w.expect_skipped(2);
    const Written written{w.lines()};
    const std::vector<uint64_t> words = words_for(written, 0, 1);
    const gh::PageColumn col = heap_pages::page_column(layout, 2, PageValueType::float8);
    ASSERT_TRUE(gh::page_column_fits(col));
    expect_same_values(walked_on_host({words}, col), scanned(written, {words}, col), "lying varlenas");
}

/* ---- registration: its own suite, first, so that it is the one that registers the pool ---- */

TEST(PagePool, RegistersOnceThroughInjectedFailures)
{
    Status started = gh::gpu_start();
    if (started != Status::ok)
        GTEST_SKIP() << "no usable GPU, CUDA tests skipped: " << gh::status_text(started);
    ASSERT_NE(pool(), nullptr);
    if (gh::gpu_pool_registered()) {
        std::cout << "[   NOTE   ] the pool was registered before this test: injection not tried\n";
    } else {
        /* a page batch before the pool is registered: refused */
        BucketSpec spec{0, 1, 4, BucketRule::pg15};
        gh::DeviceHistogram *h = nullptr;
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
        WordBuffers words(4, 1);
        ASSERT_EQ(words.status(), Status::ok);
        const Layout layout{{8, 8}};
        EXPECT_EQ(gh::gpu_pages_submit(h, words.buffer(0), 0, heap_pages::page_column(layout, 1, PageValueType::float8)),
                  Status::internal_error);
        gh::gpu_histogram_close(h);
        /* the 1st, 2nd, ... CUDA call fails until one registration goes through; none leaves memory registered */
        long k = 1;
        for (;; k++) {
            gh::gpu_fail_after(k);
            Status s = gh::gpu_pool_register(pool(), kPoolPages * kPage);
            gh::gpu_fail_after(0);
            if (s == Status::ok)
                break;
            EXPECT_EQ(s, Status::cuda_error) << "call " << k;
            EXPECT_TRUE(injected(gh::gpu_last_error())) << "call " << k << ": " << gh::gpu_last_error();
            EXPECT_FALSE(gh::gpu_pool_registered());
            EXPECT_EQ(memory_type(pool()), cudaMemoryTypeUnregistered) << "call " << k;
            ASSERT_LT(k, 100) << "the failures never stop";
        }
        EXPECT_EQ(k, 2 + 2L * gh::gpu_device_count()) << "the register, then each device's: set, pointer";
    }
    ASSERT_TRUE(gh::gpu_pool_registered());
    EXPECT_EQ(memory_type(pool()), cudaMemoryTypeHost);
    EXPECT_EQ(memory_type(pool() + kPoolPages * kPage - 1), cudaMemoryTypeHost);
    /* once: the same pool again is ok, another one is the caller's bug */
    EXPECT_EQ(gh::gpu_pool_register(pool(), kPoolPages * kPage), Status::ok);
    EXPECT_EQ(gh::gpu_pool_register(pool(), kPage), Status::internal_error);
    void *mapped = nullptr;
    ASSERT_EQ(cudaHostGetDevicePointer(&mapped, pool(), 0), cudaSuccess);
    std::cout << "[   NOTE   ] device 0 maps the pool at " << (mapped == pool() ? "the host's address" : "its own address")
              << "\n";
}

class Pages : public gh_test::KernelTest {
  protected:
    void SetUp() override
    {
        gh_test::KernelTest::SetUp();
        if (IsSkipped() || HasFatalFailure())
            return;
        ASSERT_NE(pool(), nullptr);
        if (!gh::gpu_pool_registered())
            ASSERT_EQ(gh::gpu_pool_register(pool(), kPoolPages * kPage), Status::ok) << gh::gpu_last_error();
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    }
};

/* ---- what the kernel reads ---- */

TEST_F(Pages, EveryValueType)
{
    std::mt19937_64 rng(1);
    for (PageValueType type :
         {PageValueType::float8, PageValueType::float4, PageValueType::int2, PageValueType::int4, PageValueType::int8}) {
        const BucketSpec spec = type == PageValueType::int8 ? BucketSpec{-1e18, 1e18, 1000, BucketRule::pg16}
                                : type == PageValueType::int2 ? BucketSpec{-30000, 30000, 777, BucketRule::pg15}
                                                              : BucketSpec{-1000, 1000, 333, BucketRule::pg15};
        const Layout layout{attr_of(type)};
        std::vector<Datum> edges = {stored(type, 0), stored(type, -0.0), stored(type, spec.lo), stored(type, spec.hi)};
        if (type == PageValueType::int8) /* int8 values a float8 cannot hold exactly: rounded to nearest */
            for (int64_t v : {INT64_MAX, INT64_MIN, (int64_t(1) << 53) + 1, -(int64_t(1) << 53) - 1,
                              int64_t(999999999999999999), int64_t(-1000000000000000001)})
                edges.push_back(heap_pages::int_datum(v));
        if (type == PageValueType::int2 || type == PageValueType::int4)
            for (int64_t v : {int64_t(INT16_MIN), int64_t(INT16_MAX), int64_t(INT32_MIN), int64_t(INT32_MAX)})
                edges.push_back(heap_pages::int_datum(v));
        const size_t rows = 20000;
        Written written = write_table(layout, 0, 200, rows, [&](size_t r) {
            return std::vector<Datum>{r < edges.size() ? edges[r] : stored(type, around(rng, spec))};
        });
        expect_histogram(spec, heap_pages::page_column(layout, 1, type), written, {words_for(written, 0, 200)},
                         type_name(type));
    }
}

TEST_F(Pages, AlignmentPaddingBeforeTheColumn)
{
    std::mt19937_64 rng(2);
    const BucketSpec spec{-50, 50, 100, BucketRule::pg16};
    /* (int4, float8): 4 bytes of padding; (char, int2, float4); (int2, int8); (16-byte uuid-like, int4, float8) */
    const std::vector<std::pair<Layout, std::pair<int, PageValueType>>> tables = {
        {{{4, 4}, {8, 8}}, {2, PageValueType::float8}},
        {{{1, 1}, {2, 2}, {4, 4}}, {3, PageValueType::float4}},
        {{{1, 1}, {2, 2}, {4, 4}}, {2, PageValueType::int2}},
        {{{2, 2}, {8, 8}}, {2, PageValueType::int8}},
        {{{16, 1}, {4, 4}, {1, 1}, {8, 8}}, {4, PageValueType::float8}},
        {{{16, 1}, {4, 4}, {1, 1}, {8, 8}}, {2, PageValueType::int4}},
    };
    for (size_t t = 0; t < tables.size(); t++) {
        const Layout &layout = tables[t].first;
        const int attno = tables[t].second.first;
        const PageValueType type = tables[t].second.second;
        Written written = write_table(layout, 0, 100, 15000, [&](size_t) {
            std::vector<Datum> row;
            for (size_t a = 0; a < layout.size(); a++)
                row.push_back(int(a) + 1 == attno ? stored(type, around(rng, spec))
                                                  : heap_pages::int_datum(static_cast<int64_t>(rng())));
            return row;
        });
        expect_histogram(spec, heap_pages::page_column(layout, attno, type), written, {words_for(written, 0, 100)},
                         "table " + std::to_string(t));
    }
}

TEST_F(Pages, NullBitmapWalkOverEarlierColumns)
{
    std::mt19937_64 rng(3);
    const BucketSpec spec{0, 1, 64, BucketRule::pg15};
    /* twenty columns of every width and alignment: the bitmap takes three bytes */
    const Layout layout{{4, 4}, {8, 8}, {2, 2}, {1, 1}, {8, 8}, {4, 4}, {2, 2}, {8, 8}, {1, 1}, {16, 1},
                        {4, 4}, {8, 8}, {2, 2}, {8, 8}, {4, 4}, {1, 1}, {8, 8}, {2, 2}, {4, 4}, {8, 8}};
    for (int attno : {2, 8, 12, 14, 15, 20}) {
        const PageValueType type = layout[size_t(attno - 1)].len == 8 ? PageValueType::float8 : PageValueType::float4;
        Written written = write_table(layout, 0, 300, 20000, [&](size_t r) {
            std::vector<Datum> row;
            const int nulls = r % 3 == 0 ? 0 : 1 + int(rng() % 6); /* a third without NULLs: the fixed offset */
            for (size_t a = 0; a < layout.size(); a++) {
                bool null = nulls > 0 && rng() % 20 < uint64_t(nulls);
                row.push_back(null ? heap_pages::null_datum()
                              : int(a) + 1 == attno ? stored(type, around(rng, spec))
                                                    : heap_pages::int_datum(static_cast<int64_t>(rng())));
            }
            return row;
        });
        expect_histogram(spec, heap_pages::page_column(layout, attno, type), written, {words_for(written, 0, 300)},
                         "column " + std::to_string(attno));
    }
}

TEST_F(Pages, TuplesOlderThanTheColumn)
{
    std::mt19937_64 rng(4);
    const BucketSpec spec{-10, 10, 20, BucketRule::pg16};
    const Layout layout{{4, 4}, {8, 8}, {8, 8}};
    /* rows of 1, 2 or 3 attributes (ALTER TABLE ADD COLUMN between them), some with NULLs */
    Written written = write_table(layout, 0, 50, 8000, [&](size_t r) {
        std::vector<Datum> row{heap_pages::int_datum(int64_t(r))};
        const size_t natts = 1 + r % 3;
        for (size_t a = 1; a < natts; a++)
            row.push_back(rng() % 5 == 0 ? heap_pages::null_datum() : stored(PageValueType::float8, around(rng, spec)));
        return row;
    });
    const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 50)};
    for (int attno : {2, 3}) {
        const std::string what = "column " + std::to_string(attno);
        expect_histogram(spec, heap_pages::page_column(layout, attno, PageValueType::float8), written, batches,
                         what + ", no missing value: NULL");
        expect_histogram(spec, heap_pages::page_column(layout, attno, PageValueType::float8, true, 2.5), written,
                         batches, what + ", missing value 2.5");
        expect_histogram(spec, heap_pages::page_column(layout, attno, PageValueType::float8, true, -INFINITY), written,
                         batches, what + ", missing value -Infinity");
        expect_histogram(spec, heap_pages::page_column(layout, attno, PageValueType::float8, true, NAN), written,
                         batches, what + ", missing value NaN");
    }
}

TEST_F(Pages, OnlyNormalLinePointersAreRead)
{
    std::mt19937_64 rng(5);
    const BucketSpec spec{0, 100, 10, BucketRule::pg15};
    const Layout layout{{8, 8}};
    Written written(20);
    for (size_t b = 0; b < 20; b++) {
        PageWriter w(pool_page(b));
        for (int i = 0; i < 150; i++)
            ASSERT_TRUE(w.add_tuple(layout, {stored(PageValueType::float8, around(rng, spec))}));
        /* dead items and unused slots keep pointing at valid tuples here: only their flags say skip */
        for (uint32_t i = 0; i < 150; i += 3)
            w.set_flags(i, (i / 3) % 3 == 0 ? heap_pages::lp_unused
                           : (i / 3) % 3 == 1 ? heap_pages::lp_dead
                                             : heap_pages::lp_redirect);
        ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_redirect, 7, 0));
        ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_unused, 0, 0));
        ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_dead, 0, 0));
        ASSERT_TRUE(w.add_tuple(layout, {stored(PageValueType::float8, 50)}));
        written[b] = w.lines();
    }
    expect_histogram(spec, heap_pages::page_column(layout, 1, PageValueType::float8), written,
                     {words_for(written, 0, 20)}, "mixed line pointers");
}

TEST_F(Pages, OnlyTheScansLinePointersAreRead)
{
    const BucketSpec spec{0, 100, 100, BucketRule::pg16};
    const Layout layout{{8, 8}};
    Written written = write_table(
        layout, 0, 12, 12 * 100,
        [](size_t r) { return std::vector<Datum>{heap_pages::float8_datum(double(r % 100) + 0.5)}; }, 100);
    /* line i in bucket i + 1 */
    for (size_t b = 0; b < 12; b++)
        ASSERT_EQ(written[b].size(), 100u);
    PageWriter empty(pool_page(12)); /* PageInit only */
    written.push_back(empty.lines());
    /* the scan saw fewer lines than the page has now, none, and (zeroed free space after them) more */
    std::vector<uint64_t> words;
    for (uint32_t b = 0; b < 12; b++)
        words.push_back(gh::page_word(b, b * 9));
    words.push_back(gh::page_word(12, 0));
    words.push_back(gh::page_word(12, 40));
    words.push_back(gh::page_word(11, 0));
    words.push_back(gh::page_word(10, 250));
    words.push_back(gh::page_word(9, 0xFFFF)); /* more than MaxHeapTuplesPerPage: clamped, never past the page */
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    expect_histogram(spec, col, written, {words}, "partial line counts");
    std::vector<int64_t> counts;
    ASSERT_EQ(on_gpu(spec, col, {words}, &counts), Status::ok);
    EXPECT_EQ(counts[1], 13) << "line 0: pages 1 to 11 (page 0 with no line), then 10 and 9 again";
    EXPECT_EQ(counts[100], 2) << "line 99: only where every line was read";
    EXPECT_EQ(counts[101], 0);
}

TEST_F(Pages, NaNAndInfinities)
{
    const BucketSpec spec{-1, 1, 8, BucketRule::pg15};
    const Layout layout{{4, 4}, {8, 8}};
    const std::vector<double> specials{INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 1, -1, 0.99999999999999989};
    Written written = write_table(layout, 0, 10, 1500, [&](size_t r) {
        return std::vector<Datum>{heap_pages::int_datum(1), heap_pages::float8_datum(specials[r % specials.size()])};
    });
    const gh::PageColumn col = heap_pages::page_column(layout, 2, PageValueType::float8);
    expect_histogram(spec, col, written, {words_for(written, 0, 10)}, "infinities");
    std::vector<int64_t> counts;
    ASSERT_EQ(on_gpu(spec, col, {words_for(written, 0, 10)}, &counts), Status::ok);
    EXPECT_GT(counts[0], 0);
    EXPECT_GT(counts[9], 0);
    /* one NaN on one page: the drain reports it */
    PageWriter w(pool_page(10));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(1), heap_pages::float8_datum(0.5)}));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(1), heap_pages::float8_datum(std::nan(""))}));
    written.push_back(w.lines());
    EXPECT_EQ(on_gpu(spec, col, {words_for(written, 0, 11)}, &counts), Status::nan_value);
    /* ... and a float4 NaN, cast to float8 */
    const Layout f4{{4, 4}};
    PageWriter w4(pool_page(11));
    ASSERT_TRUE(w4.add_tuple(f4, {heap_pages::float4_datum(std::nanf(""))}));
    EXPECT_EQ(on_gpu(spec, heap_pages::page_column(f4, 1, PageValueType::float4), {{gh::page_word(11, 1)}}, &counts),
              Status::nan_value);
}

/*
 * The time form: a timestamp (int8) or date (int4) column binned as its
 * stored integer (col.as_word), by numeric width_bucket's rule of each
 * major, against the CPU loop over the integers written.
 */
TEST_F(Pages, TimeFormBinsTheStoredInteger)
{
    std::mt19937_64 rng(5);
    for (PageValueType type : {PageValueType::int8, PageValueType::int4}) {
        for (gh::NumericRule rule : {gh::NumericRule::pg15, gh::NumericRule::pg16, gh::NumericRule::pg18}) {
            const bool days = type == PageValueType::int4;
            /* days around 2025; or microseconds over 1,429 days from 1996, in buckets that numeric's rounding reaches */
            const int64_t lo = days ? 9000 : 820454400000000LL;
            const int64_t hi = days ? 9400 : lo + 123456789012LL * 1000;
            const gh::Int64Spec spec{lo, hi, days ? 97 : 99991, rule};
            const Layout layout{{4, 4}, attr_of(type)};
            std::vector<int64_t> edges{lo, hi, lo - 1, hi - 1, lo + (hi - lo) / 2};
            for (int64_t v : days ? std::vector<int64_t>{INT32_MIN, INT32_MAX}
                                  : std::vector<int64_t>{INT64_MIN, INT64_MAX}) /* -infinity, infinity */
                edges.push_back(v);
            const size_t rows = 15000;
            const uint64_t span = static_cast<uint64_t>(hi - lo);
            std::vector<int64_t> values(rows);
            for (size_t r = 0; r < rows; r++)
                values[r] = r < edges.size() ? edges[r]
                                             : lo - static_cast<int64_t>(span / 8) +
                                                   static_cast<int64_t>(rng() % (span + span / 4));
            /* make_row is asked again for a row that did not fit the page before */
            Written written = write_table(layout, 0, 120, rows, [&](size_t r) {
                return std::vector<Datum>{heap_pages::int_datum(static_cast<int32_t>(r)),
                                          heap_pages::int_datum(values[r])};
            });
            size_t stored = 0;
            for (const auto &page : written)
                stored += page.size();
            ASSERT_EQ(stored, rows) << "every row written";
            gh::PageColumn col = heap_pages::page_column(layout, 2, type);
            col.as_word = true;
            std::vector<int64_t> want(static_cast<size_t>(spec.nbins) + 2, 0);
            ASSERT_EQ(gh::cpu_bin_int64(spec, values.data(), values.size(), want.data()), Status::ok);

            const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 70), words_for(written, 70, 50)};
            WordBuffers buffers(70, 2);
            ASSERT_EQ(buffers.status(), Status::ok);
            gh::DeviceHistogram *h = nullptr;
            ASSERT_EQ(gh::gpu_histogram_open(gh::int64_histogram(spec), 0, &h), Status::ok);
            for (size_t i = 0; i < batches.size(); i++) {
                ASSERT_EQ(buffers.wait_until_free(static_cast<int>(i)), Status::ok);
                std::copy(batches[i].begin(), batches[i].end(), buffers.area(static_cast<int>(i)));
                ASSERT_EQ(gh::gpu_pages_submit(h, buffers.buffer(static_cast<int>(i)), batches[i].size(), col),
                          Status::ok)
                    << gh::gpu_last_error();
            }
            std::vector<int64_t> got(static_cast<size_t>(spec.nbins) + 3, 0);
            ASSERT_EQ(gh::gpu_histogram_drain(h, 0, spec.nbins + 3, got.data(), nullptr), Status::ok);
            EXPECT_EQ(static_cast<uint64_t>(got.back()), normal_tuples(batches)) << "the tuples counted";
            got.pop_back();
            EXPECT_EQ(got, want) << type_name(type) << " rule " << static_cast<int>(rule);
            /* the column must match the form: a plain int8 column under the time form is refused */
            gh::PageColumn plain = col;
            plain.as_word = false;
            ASSERT_EQ(buffers.wait_until_free(0), Status::ok);
            EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), batches[0].size(), plain), Status::internal_error);
            gh::gpu_histogram_close(h);
        }
    }
}

/*
 * The threshold form: a float8 column and an int4 one (cast to float8)
 * binned by thresholds, sorted, unsorted and repeated, NaN values in the
 * last bin as PostgreSQL's search puts them, against the CPU loop over the
 * values the host's walk finds; past kMaxPageThresholds the pages are
 * refused.
 */
TEST_F(Pages, ThresholdFormFollowsTheServersSearch)
{
    std::mt19937_64 rng(9);
    const std::vector<std::vector<double>> arrays{
        {0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99}, {5, -1, 3, 3, 0.5, -7}, {}, {0.5}};
    for (PageValueType type : {PageValueType::float8, PageValueType::int4}) {
        for (const std::vector<double> &t : arrays) {
            const gh::HistogramSpec spec = gh::threshold_histogram(t.data(), static_cast<int32_t>(t.size()));
            const Layout layout{{2, 2}, attr_of(type)};
            Written written = write_table(layout, 0, 60, 8000, [&](size_t r) {
                const double x = type == PageValueType::int4 ? static_cast<double>(static_cast<int64_t>(rng() % 17) - 8)
                                 : r % 97 == 0               ? std::nan("")
                                                             : std::uniform_real_distribution<double>(-1, 2)(rng);
                return std::vector<Datum>{heap_pages::int_datum(static_cast<int16_t>(r)), stored(type, x)};
            });
            const gh::PageColumn col = heap_pages::page_column(layout, 2, type);
            const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 60)};
            const std::vector<double> values = scanned(written, batches, col);
            std::vector<int64_t> want(t.size() + 1, 0);
            ASSERT_EQ(gh::cpu_bin_thresholds(spec.thresholds, values.data(), values.size(), want.data()), Status::ok);

            WordBuffers buffers(60, 1);
            ASSERT_EQ(buffers.status(), Status::ok);
            gh::DeviceHistogram *h = nullptr;
            ASSERT_EQ(gh::gpu_histogram_open(spec, 0, &h), Status::ok);
            std::copy(batches[0].begin(), batches[0].end(), buffers.area(0));
            ASSERT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), batches[0].size(), col), Status::ok)
                << gh::gpu_last_error();
            std::vector<int64_t> got(t.size() + 2, 0);
            ASSERT_EQ(gh::gpu_histogram_drain(h, 0, static_cast<int32_t>(t.size()) + 2, got.data(), nullptr),
                      Status::ok);
            EXPECT_EQ(static_cast<uint64_t>(got.back()), normal_tuples(batches)) << "the tuples counted";
            got.pop_back();
            EXPECT_EQ(got, want) << type_name(type) << ", " << t.size() << " thresholds";
            gh::gpu_histogram_close(h);
        }
    }
    std::vector<double> many(gh::kMaxPageThresholds + 1);
    for (size_t i = 0; i < many.size(); i++)
        many[i] = static_cast<double>(i);
    const Layout layout{{8, 8}};
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::threshold_histogram(many.data(), static_cast<int32_t>(many.size())), 0, &h),
              Status::ok);
    WordBuffers buffers(1, 1);
    ASSERT_EQ(buffers.status(), Status::ok);
    buffers.area(0)[0] = gh::page_word(0, 1);
    EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, heap_pages::page_column(layout, 1, PageValueType::float8)),
              Status::internal_error);
    gh::gpu_histogram_close(h);
}

/* ---- how pages are listed ---- */

TEST_F(Pages, AnyOrderRepeatsAndSeveralBatches)
{
    std::mt19937_64 rng(6);
    const BucketSpec spec{5, -5, 37, BucketRule::pg16}; /* descending bounds */
    const Layout layout{{8, 8}};
    Written written = write_table(layout, 0, 400, 400 * 226, [&](size_t) {
        return std::vector<Datum>{stored(PageValueType::float8, around(rng, spec))};
    });
    std::vector<uint64_t> shuffled = words_for(written, 0, 400);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::vector<uint64_t> again(shuffled.begin() + 50, shuffled.begin() + 250); /* the same buffers a second time */
    std::vector<uint64_t> twice = {gh::page_word(7, 226), gh::page_word(7, 226), gh::page_word(7, 100)};
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    expect_histogram(spec, col, written, {shuffled, again, twice, {}, shuffled}, "shuffled and repeated");
}

TEST_F(Pages, BatchesLargerThanTheGrid)
{
    std::mt19937_64 rng(7);
    const BucketSpec spec{0, 1, 100, BucketRule::pg15};
    const Layout layout{{8, 8}};
    Written written = write_table(layout, 0, 1000, 1000 * 226, [&](size_t) {
        return std::vector<Datum>{stored(PageValueType::float8, around(rng, spec))};
    });
    /* 20,000 page words: more than the blocks of any grid, so that each block reads several pages */
    std::vector<uint64_t> words;
    for (size_t i = 0; i < 20000; i++)
        words.push_back(gh::page_word(rng() % 1000, 226));
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    expect_histogram(spec, col, written, {words}, "20,000 pages");
    /* the kernel alone on grids of 1, 3 and 7 blocks */
    std::vector<int64_t> want;
    ASSERT_EQ(expected(spec, scanned(written, {words}, col), &want), Status::ok);
    for (int blocks : {1, 3, 7}) {
        gh_test::Binned got = on_kernel(spec, col, words, gh_test::forced(limits, gh::KernelPath::automatic, blocks));
        EXPECT_EQ(got.counts, want) << blocks << " blocks";
        EXPECT_EQ(got.flags, 0);
    }
}

TEST_F(Pages, SharedAndGlobalCounters)
{
    std::mt19937_64 rng(8);
    const Layout layout{{2, 2}, {8, 8}};
    Written written;
    for (int32_t nbins : {1, 16, 12286, 12287, 100000}) {
        for (BucketRule rule : {BucketRule::pg15, BucketRule::pg16}) {
            const BucketSpec spec{-3, 7, nbins, rule};
            written = write_table(layout, 0, 300, 300 * 200, [&](size_t r) {
                /* a long run of one value, then random ones: the global path's runs and its atomics */
                double x = r < 5000 ? 1.25 : around(rng, spec);
                return std::vector<Datum>{heap_pages::int_datum(7), stored(PageValueType::float8, x)};
            });
            const gh::PageColumn col = heap_pages::page_column(layout, 2, PageValueType::float8);
            const std::vector<uint64_t> words = words_for(written, 0, 300);
            const std::string what = std::to_string(nbins) + " buckets, rule " + std::to_string(int(rule));
            expect_histogram(spec, col, written, {words}, what);
            std::vector<int64_t> want;
            ASSERT_EQ(expected(spec, scanned(written, {words}, col), &want), Status::ok);
            EXPECT_EQ(gh::page_path(nbins, limits), nbins + 2 <= 12288 ? gh::KernelPath::shared : gh::KernelPath::global)
                << what;
            for (gh::KernelPath path : {gh::KernelPath::shared, gh::KernelPath::global}) {
                const gh::KernelLimits l = gh_test::forced(limits, path, path == gh::KernelPath::global ? 5 : 0);
                if (gh::page_path(nbins, l) != path)
                    continue; /* shared memory cannot hold this many */
                gh_test::Binned got = on_kernel(spec, col, words, l);
                EXPECT_EQ(got.counts, want) << what << (path == gh::KernelPath::shared ? ", shared" : ", global");
            }
        }
    }
}

/* ---- what must never be read ---- */

TEST_F(Pages, DamagedPagesAreSkippedWithinTheirBounds)
{
    const BucketSpec spec{0, 10, 10, BucketRule::pg15};
    Written written;
    std::vector<uint64_t> words;
    ASSERT_NO_FATAL_FAILURE(write_damaged_pages(&written, &words));
    const gh::PageColumn col = heap_pages::page_column({{4, 4}, {8, 8}}, 2, PageValueType::float8);
    expect_histogram(spec, col, written, {words}, "damaged");
    std::vector<int64_t> want;
    ASSERT_EQ(expected(spec, scanned(written, {words}, col), &want), Status::ok);
    EXPECT_EQ(want[7], 3) << "6.5: lines 16 and 26 of page 0 and the misaligned tuple";
    for (gh::KernelPath path : {gh::KernelPath::shared, gh::KernelPath::global})
        EXPECT_EQ(on_kernel(spec, col, words, gh_test::forced(limits, path)).counts, want);
}

/* ---- the entry points ---- */

TEST_F(Pages, FinishedOnlyAfterTheKernelHasReadThePages)
{
    std::mt19937_64 rng(9);
    const BucketSpec spec{0, 1, 50, BucketRule::pg16};
    const Layout layout{{8, 8}};
    Written written = write_table(layout, 0, kPoolPages, kPoolPages * 226, [&](size_t) {
        return std::vector<Datum>{stored(PageValueType::float8, around(rng, spec))};
    });
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    std::vector<uint64_t> words;
    for (int round = 0; round < 8; round++)
        for (size_t b = 0; b < kPoolPages; b++)
            words.push_back(gh::page_word(b, 226));
    std::vector<int64_t> want;
    ASSERT_EQ(expected(spec, scanned(written, {words}, col), &want), Status::ok);
    WordBuffers buffers(words.size(), 1);
    ASSERT_EQ(buffers.status(), Status::ok) << gh::gpu_last_error();
    bool finished = false;
    ASSERT_EQ(gh::gpu_batch_finished(buffers.buffer(0), &finished), Status::ok);
    EXPECT_TRUE(finished) << "nothing submitted yet";
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h), Status::ok);
    const gh::GpuCounters before = gh::gpu_counters();
    std::copy(words.begin(), words.end(), buffers.area(0));
    ASSERT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), words.size(), col), Status::ok) << gh::gpu_last_error();
    int polls_unfinished = 0;
    for (finished = false; !finished; polls_unfinished++)
        ASSERT_EQ(gh::gpu_batch_finished(buffers.buffer(0), &finished), Status::ok) << gh::gpu_last_error();
    /* the pages are the caller's again: NaN everywhere must not reach the histogram */
    for (size_t b = 0; b < kPoolPages; b++)
        PageWriter(pool_page(b)).add_tuple(layout, {heap_pages::float8_datum(std::nan(""))});
    std::vector<int64_t> counts(size_t(spec.nbins) + 2, 0);
    ASSERT_EQ(gh::gpu_histogram_drain(h, 0, spec.nbins + 2, counts.data(), nullptr), Status::ok)
        << "a page was read after gpu_batch_finished said the kernel was done";
    EXPECT_EQ(counts, want);
    const gh::GpuCounters after = gh::gpu_counters();
    EXPECT_EQ(after.batches - before.batches, 1);
    EXPECT_EQ(after.values_binned, before.values_binned) << "the host does not know how many tuples were read";
    gh::gpu_histogram_close(h);
    std::cout << "[   NOTE   ] gpu_batch_finished answered false " << polls_unfinished - 1 << " times over "
              << words.size() << " pages\n";
}

TEST_F(Pages, RefusedArguments)
{
    const Layout layout{{4, 4}, {8, 8}};
    const gh::PageColumn good = heap_pages::page_column(layout, 2, PageValueType::float8);
    WordBuffers buffers(8, 1);
    ASSERT_EQ(buffers.status(), Status::ok);
    PageWriter w(pool_page(0));
    ASSERT_TRUE(w.add_tuple(layout, {heap_pages::int_datum(1), heap_pages::float8_datum(0.5)}));
    buffers.area(0)[0] = gh::page_word(0, 1);
    gh::DeviceHistogram *h = nullptr;
    ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(BucketSpec{0, 1, 4, BucketRule::pg15}), 0, &h), Status::ok);
    EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 9, good), Status::internal_error) << "more than the capacity";
    std::vector<gh::PageColumn> bad(9, good);
    bad[0].attno = 0;
    bad[1].nprefix = 0;
    bad[2].attr.len = 4; /* a float8 of 4 bytes */
    bad[3].attr.align = 3;
    bad[4].fixed_offset = 4; /* the walk says 8 */
    bad[5].prefix[0].len = 0;
    bad[6].type = static_cast<PageValueType>(9);
    bad[7].attno = gh::kMaxPagePrefix + 2;
    bad[7].nprefix = gh::kMaxPagePrefix + 1;
    bad[8].prefix[0].align = 16;
    for (size_t i = 0; i < bad.size(); i++)
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, bad[i]), Status::internal_error) << "column " << i;
    EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, good), Status::ok);
    std::vector<int64_t> counts(6, 0);
    EXPECT_EQ(gh::gpu_histogram_drain(h, 0, 6, counts.data(), nullptr), Status::ok);
    EXPECT_EQ(counts, (std::vector<int64_t>{0, 0, 0, 1, 0, 0})) << "only the good column's batch was binned";
    gh::gpu_histogram_close(h);
    /*
     * The column must match the histogram's form: the time form's read as
     * its stored integer (as_word), the float8 and threshold forms' as the
     * float8 the cast makes; and not grouped.
     */
    gh::PageColumn word = heap_pages::page_column(layout, 2, PageValueType::int8);
    word.as_word = true;
    const double thresholds[] = {1, 2};
    const std::pair<gh::HistogramSpec, gh::PageColumn> mismatched[] = {
        {gh::int64_histogram(gh::Int64Spec{0, 100, 10, gh::NumericRule::pg15}), good},
        {gh::float_histogram(BucketSpec{0, 1, 4, BucketRule::pg15}), word},
        {gh::threshold_histogram(thresholds, 2), word}};
    for (const auto &[spec, col] : mismatched) {
        ASSERT_EQ(gh::gpu_histogram_open(spec, 0, &h), Status::ok) << gh::gpu_last_error();
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, col), Status::internal_error);
        gh::gpu_histogram_close(h);
    }
    ASSERT_EQ(gh::gpu_grouped_open(gh::GroupedSpec{BucketSpec{0, 1, 4, BucketRule::pg15}, 3}, 0, &h), Status::ok);
    EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, good), Status::internal_error);
    gh::gpu_histogram_close(h);
    if (gh::gpu_device_count() > 1) { /* a buffer of another device */
        ASSERT_EQ(gh::gpu_histogram_open(gh::float_histogram(BucketSpec{0, 1, 4, BucketRule::pg15}), 1, &h),
                  Status::ok);
        EXPECT_EQ(gh::gpu_pages_submit(h, buffers.buffer(0), 1, good), Status::internal_error);
        gh::gpu_histogram_close(h);
    }
}

TEST_F(Pages, InjectedFailureIsReportedAndRecovered)
{
    std::mt19937_64 rng(10);
    const BucketSpec spec{0, 1, 16, BucketRule::pg15};
    const Layout layout{{8, 8}};
    Written written = write_table(layout, 0, 64, 64 * 226, [&](size_t) {
        return std::vector<Datum>{stored(PageValueType::float8, around(rng, spec))};
    });
    const gh::PageColumn col = heap_pages::page_column(layout, 1, PageValueType::float8);
    const std::vector<std::vector<uint64_t>> batches{words_for(written, 0, 32), words_for(written, 32, 32),
                                                     words_for(written, 0, 64)};
    std::vector<int64_t> want, counts;
    ASSERT_EQ(expected(spec, scanned(written, batches, col), &want), Status::ok);
    WordBuffers buffers(64, 2);
    ASSERT_EQ(buffers.status(), Status::ok);
    long k = 1;
    for (;; k++) {
        gh::gpu_fail_after(k);
        Status s = on_gpu(spec, col, batches, buffers, &counts);
        gh::gpu_fail_after(0);
        if (s == Status::ok)
            break;
        EXPECT_EQ(s, Status::cuda_error) << "call " << k;
        EXPECT_TRUE(injected(gh::gpu_last_error())) << "call " << k << ": " << gh::gpu_last_error();
        ASSERT_LT(k, 1000) << "the failures never stop";
    }
    EXPECT_GT(k, 3L * 5) << "each submit's five calls: a failure went unreported";
    EXPECT_EQ(counts, want);
    std::cout << "[   NOTE   ] three page batches: calls 1 to " << k - 1 << " failed in turn\n";
}

} // namespace
