/*
 * kernel_pages.cuh: the page kernel, for cuda_page_kernels.cu (and the
 * unit tests, which run its tuple walk on the host).  It bins one column
 * read straight out of PostgreSQL heap pages (page_spec.h) that stay in
 * host memory, mapped into the device's address space.
 *
 * Reading: blocks of kPageThreads threads take the batch's pages in turn
 * (grid-stride over the page words).  A page crosses PCIe once, as 16-byte
 * loads into registers, and is parsed from a copy in shared memory; the
 * loads of a block's next page are issued before it parses the current
 * one, so its reads stay in flight while it works.  A probe on the H100
 * read random 8 kB pages through a mapped pointer at 50.7 GB/s (92% of a
 * pinned contiguous copy) with 128 threads a page, 36 to 43 GB/s with 256
 * and 22 with 512: hence small blocks, several per SM.
 *
 * Parsing: each thread takes every kPageThreads-th line pointer among the
 * first `lines` (the number the scan saw under the page's share lock) and
 * reads the column from each normal tuple as PostgreSQL's own deforming
 * does: the tuple's natts says whether it predates the column (its
 * missing value then), its NULL bitmap whether the value is there, and,
 * where earlier columns may be NULL or of variable width, the walk over
 * them that aligns and adds each one present (a varlena by its header).  Every offset is checked against the tuple and
 * the page, so a damaged line pointer or header is skipped and nothing is
 * read outside the page's shared copy.
 *
 * Tuples: the normal line pointers among each page's first `lines` are
 * counted too (into *tuples, one add a warp), so that the host, which
 * only notes the page's line pointer count, need not walk them to keep
 * the scan's statistics: that walk was a third of its time a page.
 *
 * Counting: in 32-bit counters in shared memory beside the page while they
 * fit (kPageSharedMaxSlots), flushed once per block, non-zero ones only;
 * above that, 64-bit global atomics, a thread's runs of equal buckets
 * added once (kernel_loops.cuh's Run).  A launch covers fewer than 2^31
 * values, so no 32-bit count can overflow.  The binner is a template
 * parameter, as for the value kernels: only float8 intervals are
 * instantiated today.
 */
#ifndef GH_KERNEL_PAGES_CUH
#define GH_KERNEL_PAGES_CUH

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "../formulas/numeric_float8.h"
#include "../specs/page_cache_device.cuh"
#include "kernel_paths.cuh"
#include "../specs/page_spec.h"

namespace gh {
namespace kernels {

constexpr int kPageThreads = 128;
/* 16-byte loads a thread makes to bring in one page: 4 */
constexpr int kPageVectors = static_cast<int>(heap_layout::kPageBytes / 16 / kPageThreads);
static_assert(kPageVectors * 16 * kPageThreads == static_cast<int>(heap_layout::kPageBytes),
              "a page is an exact number of the block's 16-byte loads");
/* Counters a block keeps in shared memory beside its page: 48 KB, so that 4 such blocks fit an H100's SM. */
constexpr int32_t kPageSharedMaxSlots = 12288;

/* Bytes a value of each type takes in a tuple. */
__host__ __device__ constexpr uint32_t page_value_bytes(PageValueType type)
{
    return type == PageValueType::uuid                                    ? 16
           : type == PageValueType::float8 || type == PageValueType::int8 ? 8
           : type == PageValueType::float4 || type == PageValueType::int4 ? 4
           : type == PageValueType::boolean || type == PageValueType::text || type == PageValueType::numeric
               ? 1 /* a varlena's first header byte */
               : 2;
}

/* PostgreSQL's att_align_nominal for a fixed-width column: align is a power of two. */
__host__ __device__ constexpr uint32_t align_offset(uint32_t offset, uint32_t align)
{
    return (offset + align - 1) & ~(align - 1);
}

/*
 * A T at byte `at` of the page's shared copy.  Tuples are MAXALIGNed and
 * their columns aligned, so the load is aligned on any page PostgreSQL
 * wrote; a damaged one is read byte by byte rather than faulting.  (The
 * host, in the tests, copies: its loads may be unaligned.)
 */
template <typename T> __host__ __device__ __forceinline__ T load_from_page(const unsigned char *page, uint32_t at)
{
    T out;
#ifdef __CUDA_ARCH__
    if (at % sizeof(T) == 0)
        return *reinterpret_cast<const T *>(page + at);
    uint64_t bits = 0;
    for (uint32_t k = 0; k < sizeof(T); k++)
        bits |= static_cast<uint64_t>(page[at + k]) << (8 * k); /* little-endian, as the server wrote it */
    memcpy(&out, &bits, sizeof(T));
#else
    memcpy(&out, page + at, sizeof(T));
#endif
    return out;
}

/*
 * The sum of v over a full warp, every lane converged.  sm_80 has an
 * instruction for it; a Turing GPU (sm_75) adds by shuffles, five steps.
 */
__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
#endif
}

/*
 * The stored value at byte `at`, as the float8 PostgreSQL's cast gives:
 * int8 rounded to nearest, which the plain conversion is on the device
 * (cvt.rn) and on the host in the default rounding mode.
 */
__host__ __device__ __forceinline__ double page_value(const unsigned char *page, uint32_t at, PageValueType type)
{
    switch (type) {
    case PageValueType::float8: return load_from_page<double>(page, at);
    case PageValueType::float4: return static_cast<double>(load_from_page<float>(page, at));
    case PageValueType::int2: return static_cast<double>(load_from_page<int16_t>(page, at));
    case PageValueType::int4: return static_cast<double>(load_from_page<int32_t>(page, at));
    case PageValueType::int8: return static_cast<double>(load_from_page<long long>(page, at));
    default: break; /* a boolean is never a value; a numeric is read by float_value() */
    }
    return 0.0;
}

/* What locate_column() found of a column in a tuple. */
enum class Found { bad, null, missing, present };

/*
 * The bytes a varlena at byte `at` of a tuple's data, which starts at byte
 * `data` of the page, takes (PostgreSQL's VARSIZE_ANY for what a table
 * stores: a 1-byte header, a 4-byte one, compressed or not, or an on-disk
 * TOAST pointer); 0 if it does not fit in the data's room bytes.
 */
__host__ __device__ __forceinline__ uint32_t varlena_bytes(const unsigned char *page, uint32_t data, uint32_t at,
                                                           uint32_t room)
{
    using namespace heap_layout;
    uint32_t size;
    const uint8_t first = page[data + at];
    if (first == kVarExternal) {
        if (room - at < 2 || page[data + at + 1] != kVarTagOnDisk)
            return 0;
        size = kVarOnDiskBytes;
    } else if (first & 1) {
        size = first >> 1; /* a 1-byte header: the length, header included, in its upper 7 bits */
    } else {
        if (room - at < 4)
            return 0;
        size = (load_from_page<uint32_t>(page, data + at) >> 2) & 0x3FFFFFFFu; /* compressed or not */
        if (size < 4)
            return 0;
    }
    return size <= room - at ? size : 0;
}

/*
 * The column's offset in a tuple's data (room bytes from byte `data` of
 * the page), walking the earlier columns as nocachegetattr() does: a
 * fixed-width one is aligned; a varlena is aligned only where a pad byte
 * (0, never a 1-byte header's first byte) says its writer aligned it
 * (att_align_pointer), and its header gives its length.  present(a) says
 * whether column a (from 0) is stored.  false if a varlena runs past the
 * tuple.
 */
template <typename Present>
__host__ __device__ __forceinline__ bool walk_to_column(const unsigned char *page, uint32_t data, uint32_t room,
                                                        const PageColumn &col, Present present, uint32_t *at_out)
{
    uint32_t at = 0;
    for (int32_t a = 0; a < col.nprefix; a++) {
        if (!present(static_cast<uint32_t>(a)))
            continue;
        const PageAttr &p = col.prefix[a];
        if (p.len > 0) {
            at = align_offset(at, p.align) + static_cast<uint32_t>(p.len);
            continue;
        }
        if (at >= room)
            return false;
        if (page[data + at] == 0)
            at = align_offset(at, p.align);
        if (at >= room)
            return false;
        const uint32_t size = varlena_bytes(page, data, at, room);
        if (size == 0)
            return false;
        at += size;
    }
    /* a varlena column of its own is aligned as the earlier ones are: where its writer left a pad byte */
    if (col.attr.len > 0 || (at < room && page[data + at] == 0))
        at = align_offset(at, col.attr.align);
    *at_out = at;
    return true;
}

/*
 * Where the column lies in the tuple that line pointer `item` (its
 * ItemIdData word) points to: present, with *at its byte in the page;
 * null; missing (the tuple predates the column: its missing value, if
 * has_missing, else NULL); or bad where the item is not a normal tuple or
 * anything to read lies outside the tuple or the page.  Host code calls it
 * too: the unit tests check it against their page writer where there is
 * no GPU.
 */
__host__ __device__ __forceinline__ Found locate_column(const unsigned char *page, uint32_t item,
                                                        const PageColumn &col, uint32_t *at_out)
{
    using namespace heap_layout;
    if ((item >> kLpFlagsShift & 3) != kLpNormal)
        return Found::bad;
    const uint32_t off = item & kLpOffMask, len = item >> kLpLenShift;
    if (len < kBitsOffset || off + len > kPageBytes) /* the header's fixed part, up to t_hoff */
        return Found::bad;
    const uint32_t natts = load_from_page<uint16_t>(page, off + kInfomask2Offset) & kNattsMask;
    const uint32_t attno = static_cast<uint32_t>(col.attno);
    if (natts < attno) /* stored before the column was added */
        return Found::missing;
    const uint32_t hoff = page[off + kHoffOffset];
    if (hoff < kBitsOffset || hoff > len)
        return Found::bad;
    const uint32_t room = len - hoff; /* bytes of data in the tuple */
    const uint32_t data = off + hoff;
    uint32_t at = static_cast<uint32_t>(col.fixed_offset); /* from t_hoff */
    if (load_from_page<uint16_t>(page, off + kInfomaskOffset) & kHasNull) {
        /* the bitmap's bits for columns 1 .. attno, set where the column is not NULL, lie before t_hoff */
        if (kBitsOffset + (attno - 1) / 8 >= hoff)
            return Found::bad;
        const unsigned char *bits = page + off + kBitsOffset;
        auto present = [bits](uint32_t a) { return (bits[a >> 3] >> (a & 7) & 1) != 0; }; /* a from 0 */
        if (!present(attno - 1))
            return Found::null;
        if (!walk_to_column(page, data, room, col, present, &at))
            return Found::bad;
    } else if (col.fixed_offset < 0) {
        if (!walk_to_column(page, data, room, col, [](uint32_t) { return true; }, &at))
            return Found::bad;
    }
    if (at > room || page_value_bytes(col.type) > room - at)
        return Found::bad;
    if (col.attr.len == kVarlenaLen && varlena_bytes(page, data, at, room) == 0)
        return Found::bad;
    *at_out = data + at;
    return Found::present;
}

/*
 * An integer-like stored value (int2, int4, int8: date and timestamps are
 * stored as these) as int64; a boolean as 0 or 1, as DatumGetBool reads
 * its byte.
 */
__host__ __device__ __forceinline__ int64_t page_word(const unsigned char *page, uint32_t at, PageValueType type)
{
    switch (type) {
    case PageValueType::int2: return load_from_page<int16_t>(page, at);
    case PageValueType::int4: return load_from_page<int32_t>(page, at);
    case PageValueType::int8: return load_from_page<long long>(page, at);
    case PageValueType::boolean: return page[at] != 0;
    default: return 0;
    }
}

/* An int64's bits in a double: the time form's 8-byte word (col.as_word), as histogram_state.h carries it. */
__host__ __device__ __forceinline__ double word_bits(int64_t w)
{
    double x;
    memcpy(&x, &w, sizeof x);
    return x;
}

/*
 * A varlena stored at page + at: its bytes and their number, where it lies
 * inline without compression; false for a compressed or out-of-line one,
 * which is the host's to read.
 */
__host__ __device__ __forceinline__ bool inline_varlena(const unsigned char *page, uint32_t at,
                                                       const unsigned char **bytes, uint32_t *n)
{
    const uint8_t first = page[at];
    uint32_t header, size;
    if (first == heap_layout::kVarExternal)
        return false;
    if (first & 1) {
        header = 1;
        size = first >> 1;
    } else {
        const uint32_t word = load_from_page<uint32_t>(page, at);
        if ((word & 3) != 0) /* compressed inline */
            return false;
        header = 4;
        size = word >> 2 & 0x3FFFFFFFu;
    }
    if (size < header)
        return false;
    *bytes = page + at + header;
    *n = size - header;
    return true;
}

/*
 * The float8 a histogram bins from a column stored at byte `at` (not the
 * time form's word): page_value()'s cast, or a numeric's numeric_float8
 * where numeric_float8.h's fast path gives it.  false for a numeric it
 * does not: compressed, out of line, or past the fast path (a column of
 * more than 15 digits); its page is the host's, which converts it as
 * PostgreSQL does.
 */
__host__ __device__ __forceinline__ bool float_value(const unsigned char *page, uint32_t at, const PageColumn &col,
                                                    double *x)
{
    if (col.type != PageValueType::numeric) {
        *x = page_value(page, at, col.type);
        return true;
    }
    const unsigned char *bytes;
    uint32_t n;
    return inline_varlena(page, at, &bytes, &n) && numeric_float8_fast(bytes, n, x);
}

/*
 * The column's value in the tuple that line pointer `item` points to: true
 * and *x where the tuple has one; false where the item is not a normal
 * tuple, the value is NULL, or anything to read lies outside the tuple or
 * the page.
 */
__host__ __device__ __forceinline__ bool tuple_value(const unsigned char *page, uint32_t item,
                                                     const PageColumn &col, double *x)
{
    uint32_t at = 0;
    switch (locate_column(page, item, col, &at)) {
    case Found::present:
        *x = col.as_word ? word_bits(page_word(page, at, col.type)) : page_value(page, at, col.type);
        return true;
    case Found::missing: *x = col.as_word ? word_bits(col.missing_word) : col.missing_value; return col.has_missing;
    default: return false;
    }
}

/*
 * Starts the loads of page word p's page into v, when p is one of the n:
 * answers its line pointers to read, 0 for none (past the batch, no
 * lines, or a buffer past the pool's pool_pages, which is skipped).
 * The word is decoded as page_word_buffer() and page_word_lines() do.  A
 * page the cache holds (specs/page_cache_device.cuh) is loaded from device
 * memory instead; *fill is the entry the page is to be copied into once
 * it has arrived (store_fill), kNotCached for none.
 */
__device__ __forceinline__ uint32_t fetch_page(const uint64_t *words, size_t n, size_t p,
                                               const unsigned char *pool, uint64_t pool_pages,
                                               const PageCacheView &cache, uint4 (&v)[kPageVectors],
                                               uint32_t *fill)
{
    *fill = kNotCached;
    if (p >= n)
        return 0;
    const uint64_t word = __ldg(words + p);
    const uint64_t buffer = word >> 16;
    uint32_t lines = static_cast<uint32_t>(word & 0xFFFF);
    if (lines > heap_layout::kMaxTuplesPerPage)
        lines = heap_layout::kMaxTuplesPerPage;
    if (lines == 0 || buffer >= pool_pages)
        return 0;
    const uint32_t directive = cache.directives != nullptr ? __ldg(cache.directives + p) : kNotCached;
    const uint4 *src = reinterpret_cast<const uint4 *>(pool + buffer * heap_layout::kPageBytes);
    if (directive != kNotCached && (directive & kFill) == 0)
        src = cache.pages + static_cast<size_t>(directive) * (heap_layout::kPageBytes / 16);
    else if (directive != kNotCached)
        *fill = directive & ~kFill;
#pragma unroll
    for (int k = 0; k < kPageVectors; k++)
        v[k] = __ldg(src + k * kPageThreads + threadIdx.x);
    return lines;
}

/* A page fetch_page() loaded from the pool, into the cache entry it named. */
__device__ __forceinline__ void store_fill(const PageCacheView &cache, uint32_t fill, const uint4 (&v)[kPageVectors])
{
    if (fill == kNotCached)
        return;
    uint4 *dst = cache.pages + static_cast<size_t>(fill) * (heap_layout::kPageBytes / 16);
#pragma unroll
    for (int k = 0; k < kPageVectors; k++)
        dst[k * kPageThreads + threadIdx.x] = v[k];
}

/*
 * A block's pages, double-buffered: while the block parses the page in
 * shared memory, the loads of the next one are in flight in registers.
 * Both page kernels walk their pages through this, so that the order of
 * barriers, copies and cache fills is written once.  Pages at `end` and
 * past are none.
 */
struct PageStream {
    const uint64_t *words;
    size_t end;
    const unsigned char *pool;
    uint64_t pool_pages;
    PageCacheView cache;
    uint4 next[kPageVectors];
    uint32_t fill;
    uint32_t lines;

    /* Starts the loads of page word p. */
    __device__ __forceinline__ void start(size_t p)
    {
        lines = fetch_page(words, end, p, pool, pool_pages, cache, next, &fill);
    }

    /*
     * Once every thread is done with the page before, runs `between` (for a
     * block's per-page state) and puts the page started last into `page`
     * (and into the cache entry it names), then starts page `following`.
     * Answers the line pointers of the page now in `page`.  Every thread of
     * the block calls it the same number of times.
     */
    template <typename Between>
    __device__ __forceinline__ uint32_t advance(unsigned char *page, size_t following, Between &&between)
    {
        const uint32_t now = lines;
        __syncthreads(); /* every thread is done with the page before */
        between();
        if (now > 0) {
            uint4 *dst = reinterpret_cast<uint4 *>(page);
#pragma unroll
            for (int k = 0; k < kPageVectors; k++)
                dst[k * kPageThreads + threadIdx.x] = next[k];
            store_fill(cache, fill, next);
        }
        __syncthreads();
        start(following); /* in flight while parsing */
        return now;
    }
};

/*
 * Dynamic shared memory: the page (kPageBytes, 16-byte aligned), the
 * binner's table, then, when Shared, binner.slots() 32-bit counters.
 */
template <typename Binner, bool Shared>
__global__ void __launch_bounds__(kPageThreads)
    histogram_pages(const uint64_t *__restrict__ words, size_t n, const unsigned char *__restrict__ pool,
                    uint64_t pool_pages, const PageCacheView cache, const PageColumn col, Binner binner,
                    unsigned long long *__restrict__ counts, int *__restrict__ flags,
                    unsigned long long *__restrict__ tuples)
{
    unsigned char *page = dynamic_shared();
    unsigned char *table = page + heap_layout::kPageBytes;
    unsigned int *block_counts = reinterpret_cast<unsigned int *>(table + table_space(binner.table_bytes()));
    binner.attach(table);
    const int32_t slots = binner.slots();
    if constexpr (Shared)
        for (int32_t i = threadIdx.x; i < slots; i += kPageThreads)
            block_counts[i] = 0;
    /* the barrier at the top of the page loop orders the table and the zeroes before any count */

    int errors = 0;
    unsigned int normal = 0; /* fewer than 2^31 line pointers a launch */
    Run run;
    auto add = [&](int32_t b, uint32_t k) { atomicAdd(&counts[b], static_cast<unsigned long long>(k)); };
    auto count = [&](double x) {
        const int32_t b = binner(x, 0);
        if (b < 0)
            errors |= error_bits(b);
        else if constexpr (Shared)
            atomicAdd(&block_counts[b], 1u);
        else
            run.push(b, add);
    };

    PageStream pages{words, n, pool, pool_pages, cache};
    pages.start(blockIdx.x);
    for (size_t p = blockIdx.x; p < n; p += gridDim.x) { /* the same trip count for the whole block */
        const uint32_t lines = pages.advance(page, p + gridDim.x, [] {});
        for (uint32_t i = threadIdx.x; i < lines; i += kPageThreads) {
            const uint32_t item = load_from_page<uint32_t>(page, heap_layout::kLinePointers + 4 * i);
            normal += (item >> heap_layout::kLpFlagsShift & 3) == heap_layout::kLpNormal;
            double x;
            if (tuple_value(page, item, col, &x))
                count(x);
        }
    }
    if (errors != 0)
        atomicOr(flags, errors);
    normal = warp_sum(normal); /* the loops above reconverge: every lane is here */
    if (threadIdx.x % 32 == 0 && normal != 0)
        atomicAdd(tuples, static_cast<unsigned long long>(normal));
    if constexpr (Shared) {
        __syncthreads();
        for (int32_t b = threadIdx.x; b < slots; b += kPageThreads)
            if (block_counts[b] != 0)
                atomicAdd(&counts[b], static_cast<unsigned long long>(block_counts[b]));
    } else {
        run.finish(add);
    }
}

} // namespace kernels
} // namespace gh

#endif /* GH_KERNEL_PAGES_CUH */
