/*
 * cuda_pages_harness.cuh: what the page kernel's tests (cuda_pages_test.cu)
 * share: the one host pool of the process, tables written into it with
 * heap_pages.h, the page words that list them, the reference (the values a
 * scan of the column finds, through the CPU backend's width_bucket), and
 * the two ways of binning them on the GPU: through gpu_pages_submit and
 * batch buffers, as the GPU service will, and the kernel alone on forced
 * limits.  Also the kernel's tuple walk run on the host, for the tests
 * that need no GPU, and a set of pages damaged in every way it checks.
 */
#ifndef GH_CUDA_PAGES_HARNESS_CUH
#define GH_CUDA_PAGES_HARNESS_CUH

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cuda_kernel_harness.cuh"
#include "heap_pages.h"
#include "kernels/kernel_pages.cuh"

namespace gh_pages_test {

using gh::BucketRule;
using gh::BucketSpec;
using gh::PageValueType;
using gh::Status;
using heap_pages::Datum;
using heap_pages::Layout;
using heap_pages::PageWriter;

constexpr size_t kPoolPages = 4096; /* 32 MB */
constexpr uint32_t kPage = heap_pages::kBlockSize;

/* The process's one pool, page-aligned as the server's shared memory is; registered by the tests. */
inline unsigned char *pool()
{
    static unsigned char *p = static_cast<unsigned char *>(std::aligned_alloc(4096, kPoolPages * kPage));
    return p;
}
inline unsigned char *pool_page(size_t buffer) { return pool() + buffer * kPage; }

inline cudaMemoryType memory_type(const void *p)
{
    cudaPointerAttributes a{};
    EXPECT_EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
    return a.type;
}

inline bool injected(const char *error) { return std::strstr(error, "failure injected") != nullptr; }

/* The pages a test wrote, by buffer: what each line pointer was made as. */
using Written = std::vector<std::vector<heap_pages::Line>>;

/*
 * Fills buffers [first, first + count) with `rows` tuples of `layout` from
 * make_row(row number), as many as fit a page (at most per_page); answers
 * what was written.
 */
template <typename MakeRow>
Written write_table(const Layout &layout, size_t first, size_t count, size_t rows, MakeRow make_row,
                    size_t per_page = heap_pages::kMaxHeapTuples)
{
    Written out(first + count);
    size_t r = 0;
    for (size_t b = first; b < first + count; b++) {
        PageWriter w(pool_page(b));
        while (r < rows && w.lines().size() < per_page && w.add_tuple(layout, make_row(r)))
            r++;
        out[b] = w.lines();
    }
    return out;
}

/* Page words for buffers [first, first + count), each with all its line pointers. */
inline std::vector<uint64_t> words_for(const Written &written, size_t first, size_t count)
{
    std::vector<uint64_t> out;
    for (size_t b = first; b < first + count; b++)
        out.push_back(gh::page_word(b, static_cast<uint32_t>(written[b].size())));
    return out;
}

/* The values a scan of the column finds on the pages the words name (the first `lines` line pointers of each). */
inline std::vector<double> scanned(const Written &written, const std::vector<std::vector<uint64_t>> &batches,
                            const gh::PageColumn &col)
{
    std::vector<double> out;
    for (const auto &words : batches)
        for (uint64_t w : words) {
            const size_t b = gh::page_word_buffer(w);
            if (b >= written.size())
                continue;
            const size_t lines = std::min<size_t>(gh::page_word_lines(w), written[b].size());
            for (size_t i = 0; i < lines; i++)
                if (auto v = heap_pages::column_value(written[b][i], col))
                    out.push_back(*v);
        }
    return out;
}

/*
 * What the host's walk counted before the GPU counted it: the line pointers
 * flagged LP_NORMAL among the first `lines` (at most kMaxTuplesPerPage) of
 * each page in the pool that the words name, read from the pages' bytes.
 */
inline uint64_t normal_tuples(const std::vector<std::vector<uint64_t>> &batches)
{
    uint64_t n = 0;
    for (const auto &words : batches)
        for (uint64_t w : words) {
            const size_t b = gh::page_word_buffer(w);
            if (b >= kPoolPages)
                continue;
            const uint32_t lines = std::min<uint32_t>(gh::page_word_lines(w), gh::heap_layout::kMaxTuplesPerPage);
            for (uint32_t i = 0; i < lines; i++) {
                uint32_t item;
                std::memcpy(&item, pool_page(b) + heap_pages::kPageHeaderSize + 4 * i, sizeof item);
                n += (item >> 15 & 3) == heap_pages::lp_normal;
            }
        }
    return n;
}

/* The reference: the CPU backend's width_bucket over those values (Status::nan_value if one is NaN). */
inline Status expected(const BucketSpec &spec, const std::vector<double> &values, std::vector<int64_t> *counts)
{
    counts->assign(static_cast<size_t>(spec.nbins) + 2, 0);
    return gh::cpu_bin(spec, values.data(), values.size(), counts->data());
}

/*
 * Registered host memory for page words with `count` batch buffers of
 * `capacity` words on device 0, used in turn as the service uses its slots.
 */
class WordBuffers {
  public:
    WordBuffers(size_t capacity, int count) : capacity_(capacity)
    {
        bytes_ = (capacity * static_cast<size_t>(count) * sizeof(uint64_t) + 4095) / 4096 * 4096;
        host_ = static_cast<uint64_t *>(std::aligned_alloc(4096, bytes_));
        registered_ = gh::gpu_host_register(host_, bytes_) == Status::ok;
        for (int k = 0; k < count; k++) {
            gh::BatchBuffer *b = nullptr;
            status_ = gh::gpu_batch_create(0, reinterpret_cast<const double *>(area(k)), capacity, &b);
            if (status_ != Status::ok)
                break;
            buffers_.push_back(b);
        }
    }
    ~WordBuffers()
    {
        for (gh::BatchBuffer *b : buffers_)
            gh::gpu_batch_destroy(b); /* waits for its kernel */
        if (registered_)
            gh::gpu_host_unregister(host_);
        std::free(host_);
    }
    WordBuffers(const WordBuffers &) = delete;
    WordBuffers &operator=(const WordBuffers &) = delete;

    Status status() const { return status_; }
    int size() const { return static_cast<int>(buffers_.size()); }
    uint64_t *area(int k) const { return host_ + static_cast<size_t>(k) * capacity_; }
    gh::BatchBuffer *buffer(int k) const { return buffers_[static_cast<size_t>(k)]; }
    Status wait_until_free(int k) const
    {
        for (;;) {
            bool busy = true;
            Status s = gh::gpu_batch_busy(buffer(k), &busy);
            if (s != Status::ok || !busy)
                return s;
            std::this_thread::yield();
        }
    }

  private:
    size_t capacity_;
    size_t bytes_;
    uint64_t *host_ = nullptr;
    bool registered_ = false;
    std::vector<gh::BatchBuffer *> buffers_;
    Status status_ = Status::ok;
};

/*
 * One histogram through gpu_pages_submit: open, one submit per batch (in
 * turn over the buffers), drain, close.  The drain takes the tuple counter
 * past the slots too: into *tuples.
 */
inline Status on_gpu(const BucketSpec &spec, const gh::PageColumn &col, const std::vector<std::vector<uint64_t>> &batches,
              const WordBuffers &buffers, std::vector<int64_t> *counts, int64_t *tuples = nullptr)
{
    counts->assign(static_cast<size_t>(spec.nbins) + 3, 0);
    gh::DeviceHistogram *h = nullptr;
    Status s = gh::gpu_histogram_open(gh::float_histogram(spec), 0, &h);
    if (s != Status::ok)
        return s;
    for (size_t i = 0; i < batches.size() && s == Status::ok; i++) {
        const int k = static_cast<int>(i % static_cast<size_t>(buffers.size()));
        if ((s = buffers.wait_until_free(k)) != Status::ok)
            break;
        std::copy(batches[i].begin(), batches[i].end(), buffers.area(k));
        s = gh::gpu_pages_submit(h, buffers.buffer(k), batches[i].size(), col);
    }
    if (s == Status::ok)
        s = gh::gpu_histogram_drain(h, 0, spec.nbins + 3, counts->data(), nullptr);
    gh::gpu_histogram_close(h);
    if (tuples != nullptr)
        *tuples = counts->back();
    counts->pop_back();
    return s;
}

inline Status on_gpu(const BucketSpec &spec, const gh::PageColumn &col, const std::vector<std::vector<uint64_t>> &batches,
              std::vector<int64_t> *counts, int64_t *tuples = nullptr)
{
    size_t most = 1;
    for (const auto &b : batches)
        most = std::max(most, b.size());
    WordBuffers buffers(most, 2);
    if (buffers.status() != Status::ok)
        return buffers.status();
    return on_gpu(spec, col, batches, buffers, counts, tuples);
}

/*
 * The kernel alone, on limits that may force its path or cap its grid; it
 * must count the words' normal tuples too (normal_tuples()).
 */
inline gh_test::Binned on_kernel(const BucketSpec &spec, const gh::PageColumn &col, const std::vector<uint64_t> &words,
                          const gh::KernelLimits &limits)
{
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess); /* the engine's calls move the current device */
    void *mapped = nullptr;
    EXPECT_EQ(cudaHostGetDevicePointer(&mapped, pool(), 0), cudaSuccess);
    gh_test::DeviceArray<uint64_t> d_words(words);
    const size_t slots = static_cast<size_t>(spec.nbins) + 2;
    gh_test::Binned out = gh_test::binned(slots + 1, [&](unsigned long long *counts, int *flags) {
        return gh::bin_pages_on_device(d_words.get(), words.size(), static_cast<const unsigned char *>(mapped),
                                       kPoolPages, col, spec, counts, flags, counts + slots, limits, nullptr);
    });
    EXPECT_EQ(static_cast<uint64_t>(out.counts.back()), normal_tuples({words})) << "the kernel's tuple count";
    out.counts.pop_back();
    return out;
}

/* Asserts that the histogram of the column over the batches is the reference's, through gpu_pages_submit. */
inline void expect_histogram(const BucketSpec &spec, const gh::PageColumn &col, const Written &written,
                      const std::vector<std::vector<uint64_t>> &batches, const std::string &what)
{
    std::vector<int64_t> want, got;
    int64_t tuples = -1;
    const Status reference = expected(spec, scanned(written, batches, col), &want);
    ASSERT_EQ(on_gpu(spec, col, batches, &got, &tuples), reference) << what << ": " << gh::gpu_last_error();
    if (reference == Status::ok) {
        EXPECT_EQ(got, want) << what;
        EXPECT_EQ(static_cast<uint64_t>(tuples), normal_tuples(batches)) << what << ": the tuples counted";
    }
}

/* A value around [lo, hi): mostly inside, some outside, some exactly on bucket edges. */
inline double around(std::mt19937_64 &rng, const BucketSpec &spec)
{
    const double a = std::min(spec.lo, spec.hi), w = std::fabs(spec.hi - spec.lo);
    if (rng() % 8 == 0)
        return a + w * static_cast<double>(rng() % static_cast<uint64_t>(spec.nbins + 1)) / spec.nbins;
    return std::uniform_real_distribution<double>(a - w / 8, a + w + w / 8)(rng);
}

/* A datum of `type` near x: what storing x in a column of that type keeps. */
inline Datum stored(PageValueType type, double x)
{
    switch (type) {
    case PageValueType::float8: return heap_pages::float8_datum(x);
    case PageValueType::float4: return heap_pages::float4_datum(static_cast<float>(x));
    case PageValueType::int2: return heap_pages::int_datum(static_cast<int16_t>(std::clamp(x, -32768.0, 32767.0)));
    case PageValueType::int4: return heap_pages::int_datum(static_cast<int32_t>(std::clamp(x, -2e9, 2e9)));
    case PageValueType::int8: return heap_pages::int_datum(static_cast<int64_t>(std::clamp(x, -9e18, 9e18)));
    }
    return Datum{};
}

inline gh::PageAttr attr_of(PageValueType type)
{
    switch (type) {
    case PageValueType::float8:
    case PageValueType::int8: return gh::PageAttr{8, 8};
    case PageValueType::float4:
    case PageValueType::int4: return gh::PageAttr{4, 4};
    case PageValueType::int2: return gh::PageAttr{2, 2};
    case PageValueType::boolean: return gh::PageAttr{1, 1};
    }
    return gh::PageAttr{0, 0};
}

inline const char *type_name(PageValueType type)
{
    static const char *names[] = {"float8", "float4", "int2", "int4", "int8"};
    return names[static_cast<int>(type)];
}

/*
 * Pages 0 and 1 with damage of every kind the kernel checks for, and the
 * words that list them (and two buffers past the pool): what a scan of
 * column 2 (float8, after an int4) must skip, marked in *written.
 */
inline void write_damaged_pages(Written *written, std::vector<uint64_t> *words)
{
    const Layout layout{{4, 4}, {8, 8}};
    auto row = [](double x) { return std::vector<Datum>{heap_pages::int_datum(3), heap_pages::float8_datum(x)}; };
    auto nulls = [](double x) {
        return std::vector<Datum>{heap_pages::null_datum(), heap_pages::float8_datum(x)};
    };
    PageWriter w(pool_page(0));
    for (int i = 0; i < 30; i++)
        ASSERT_TRUE(w.add_tuple(layout, i % 2 ? row(i % 10 + 0.5) : nulls(i % 10 + 0.5)));
    /* line pointers that point past the page, across its end, or at less than a header */
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 0x7FFF, 0x7FFF));
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 8180, 32));
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 8192, 0));
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 8160, 22));
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 0, 8192));  /* the whole page as one "tuple" */
    ASSERT_TRUE(w.add_line_pointer(heap_pages::lp_normal, 8169, 23)); /* a header's fixed part at the very end */
    /* headers that lie: t_hoff past the tuple, or inside the header's fixed part */
    w.tuple(0)[22] = 250;
    w.expect_skipped(0);
    w.tuple(2)[22] = 8;
    w.expect_skipped(2);
    /* with NULLs, t_hoff 23: the bitmap, even the column's own bit, would lie at or past t_hoff */
    unsigned char *t4 = w.tuple(4);
    t4[18] = 0xFF;
    t4[19] = 0x07; /* natts 2047 */
    t4[22] = 23;
    w.expect_skipped(4);
    /* values that would end past lp_len: without NULLs (t_hoff 24, value at 8 .. 16) and with (at 0 .. 8) */
    w.rewrite_line(1, heap_pages::lp_normal, w.tuple(1) - pool_page(0), 30);
    w.expect_skipped(1);
    w.rewrite_line(6, heap_pages::lp_normal, w.tuple(6) - pool_page(0), 31);
    w.expect_skipped(6);
    written->assign(1, w.lines());
    /* a tuple MAXALIGNed nowhere, 3 bytes below where PostgreSQL put it: read byte by byte, and counted */
    PageWriter odd(pool_page(1));
    ASSERT_TRUE(odd.add_tuple(layout, row(4.5)));
    ASSERT_TRUE(odd.add_tuple(layout, row(6.5)));
    unsigned char *src = odd.tuple(1);
    const uint32_t len = odd.tuple_length(1);
    std::memmove(src - 3, src, len);
    odd.rewrite_line(1, heap_pages::lp_normal, src - 3 - pool_page(1), len);
    written->push_back(odd.lines());
    *words = {gh::page_word(0, static_cast<uint32_t>((*written)[0].size())), gh::page_word(1, 2),
              gh::page_word(kPoolPages, 5), gh::page_word(uint64_t(1) << 47, 291)};
}


/* What the kernel's walk (kernel_pages.cuh's tuple_value, run on the host) finds on the pages the words name. */
inline std::vector<double> walked_on_host(const std::vector<std::vector<uint64_t>> &batches, const gh::PageColumn &col)
{
    std::vector<double> out;
    for (const auto &words : batches)
        for (uint64_t w : words) {
            const uint64_t b = gh::page_word_buffer(w);
            if (b >= kPoolPages)
                continue;
            const uint32_t lines = std::min<uint32_t>(gh::page_word_lines(w), heap_pages::kMaxHeapTuples);
            const unsigned char *page = pool_page(b);
            for (uint32_t i = 0; i < lines; i++) {
                uint32_t item;
                std::memcpy(&item, page + heap_pages::kPageHeaderSize + 4 * i, 4);
                double x;
                if (gh::kernels::tuple_value(page, item, col, &x))
                    out.push_back(x);
            }
        }
    return out;
}

/* Equal value for value, bit for bit (NaN included). */
inline void expect_same_values(const std::vector<double> &got, const std::vector<double> &want, const std::string &what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); i++)
        ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0)
            << what << ": value " << i << ": " << got[i] << " for " << want[i];
}

} // namespace gh_pages_test

#endif /* GH_CUDA_PAGES_HARNESS_CUH */
