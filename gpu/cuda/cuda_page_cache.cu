/*
 * cuda_page_cache.cu: the CUDA backend's page cache (page_cache.h): each
 * device's entries, and the two steps a cached page batch adds around its
 * kernel: resolving its pages against the entries before, committing its
 * fills after (gpu_backend.h: gpu_page_cache_start, gpu_page_cache_commit;
 * cuda_pages.cu calls resolve_cached_pages).
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_backend_state.cuh"

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {

using namespace cuda_state;
using kernels::CacheKey;
using kernels::kFill;
using kernels::kNotCached;

namespace {

constexpr unsigned kThreads = 256;

/*
 * One thread a page: claims the page's entry for batch `seq` and answers
 * its directive.  Pages the page kernel reads nothing of (no lines, a
 * buffer past the pool) are not cached.  A probe (LSN 0, a map LSN) that
 * finds its block under the same map LSN claims the entry and becomes a
 * hit on its line pointers: its page word is rewritten for the page
 * kernel.  Any other probe is a miss, flagged for the host and read by
 * nobody; it claims nothing, so an entry it does not read stays as it is.
 */
__global__ void resolve_pages(uint64_t *__restrict__ words, const unsigned long long *__restrict__ lsns,
                              const uint32_t *__restrict__ blocks, const unsigned long long *__restrict__ vms,
                              uint32_t n, PageCacheRel rel, uint64_t pool_pages, CacheKey *__restrict__ keys,
                              unsigned long long *__restrict__ claims, uint32_t entries, unsigned long long seq,
                              uint32_t *__restrict__ directives, unsigned long long *__restrict__ hits,
                              unsigned char *__restrict__ misses)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint64_t word = words[i];
    const unsigned long long lsn = lsns[i];
    const unsigned long long vm = vms[i];
    const uint32_t block = blocks[i];
    const uint32_t e = static_cast<uint32_t>((static_cast<uint64_t>(rel.base) + block) % entries);
    uint32_t directive = kNotCached;
    if (lsn == 0 && vm != 0) {
        const CacheKey k = keys[e];
        const bool same = k.lsn != 0 && k.vm == vm && k.lines != 0 && k.block == block && k.rel == rel.rel &&
                          k.db == rel.db && k.spc == rel.spc;
        /* a page of this batch that claimed the entry first may be about to overwrite it */
        if (same && atomicExch(&claims[e], seq) != seq) {
            directive = e;
            words[i] = k.lines; /* page_word(): buffer 0, unread, and the entry's lines */
            atomicAdd(hits, 1ull);
        } else {
            words[i] = 0;
        }
        misses[i] = directive == kNotCached;
    } else {
        misses[i] = 0;
        if (lsn != 0 && (word & 0xFFFF) != 0 && (word >> 16) < pool_pages) {
            /* the first of the batch's pages to claim the entry has it; the others are read from the pool */
            if (atomicExch(&claims[e], seq) != seq) {
                const CacheKey k = keys[e];
                if (k.lsn == lsn && k.block == block && k.rel == rel.rel && k.db == rel.db && k.spc == rel.spc) {
                    directive = e;
                    atomicAdd(hits, 1ull);
                    /*
                     * The page has not changed since its fill, and its bit is set under map LSN vm: as
                     * good a key for probes as a fill's now.  Without this, setting any bit of the map
                     * page (a VACUUM) would leave every page it covers to be pinned from then on.
                     */
                    if (vm != 0 && k.vm != vm && k.lines == (word & 0xFFFF))
                        keys[e].vm = vm;
                } else {
                    keys[e].lsn = 0; /* its page is about to be overwritten: empty until a commit says otherwise */
                    directive = kFill | e;
                }
            }
        }
    }
    directives[i] = directive;
}

/*
 * Each entry the batch filled gets its page's key, unless a later batch
 * has claimed the entry since (and may have overwritten its page).
 */
__global__ void commit_pages(const uint64_t *__restrict__ words, const unsigned long long *__restrict__ lsns,
                             const uint32_t *__restrict__ blocks, const unsigned long long *__restrict__ vms,
                             const uint32_t *__restrict__ directives, uint32_t n, PageCacheRel rel,
                             CacheKey *__restrict__ keys, const unsigned long long *__restrict__ claims,
                             unsigned long long seq)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t d = directives[i];
    if (d == kNotCached || (d & kFill) == 0)
        return;
    const uint32_t e = d & ~kFill;
    if (claims[e] != seq)
        return;
    CacheKey k{};
    k.spc = rel.spc;
    k.db = rel.db;
    k.rel = rel.rel;
    k.block = blocks[i];
    k.lsn = lsns[i];
    k.vm = vms[i];
    k.lines = static_cast<uint32_t>(words[i] & 0xFFFF); /* page_word_lines() */
    keys[e] = k;
}

/*
 * One thread a probe of the batch's runs (page_cache.h: ProbeRun): the
 * probe's page word, LSN, block and map LSN, as the host would have
 * written them, for pages [from, n).  Runs are few (one a batch in a
 * serial scan of an all-visible table), so each thread finds its own by
 * bisection.
 */
__global__ void expand_probe_runs(const ProbeRun *__restrict__ runs, uint32_t nruns, uint32_t from, uint32_t n,
                                  uint64_t *__restrict__ words, unsigned long long *__restrict__ lsns,
                                  uint32_t *__restrict__ blocks, unsigned long long *__restrict__ vms)
{
    const uint32_t i = from + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t lo = 0, hi = nruns - 1;
    while (lo < hi) {
        const uint32_t mid = (lo + hi + 1) / 2;
        if (runs[mid].at <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    const ProbeRun r = runs[lo];
    words[i] = 0;
    lsns[i] = 0;
    blocks[i] = r.block + (i - r.at);
    vms[i] = r.vm;
}

unsigned grid_for(size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <typename T>
T *at_word(double *base, uint32_t word)
{
    return reinterpret_cast<T *>(base + word);
}

/* Frees one device's entries (after a failure on the way to allocating them, too). */
void free_cache(PageCacheMemory *c)
{
    cudaFree(c->pages);
    cudaFree(c->keys);
    cudaFree(c->claims);
    *c = PageCacheMemory{};
}

Status start_cache(int device, size_t bytes)
{
    Status s = set_device(device);
    if (s != Status::ok)
        return s;
    PageCacheMemory *c = &g.devices[device].cache;
    uint64_t entries = bytes / kPageCacheEntryBytes;
    if (entries > (kFill - 1))
        entries = kFill - 1; /* a directive names an entry in 31 bits */
    if (entries == 0)
        return Status::ok;
    cudaError_t err = cudaSuccess;
    if (check(err = cudaMalloc(reinterpret_cast<void **>(&c->pages), entries * heap_layout::kPageBytes), "cudaMalloc") &&
        check(err = cudaMalloc(reinterpret_cast<void **>(&c->keys), entries * sizeof(CacheKey)), "cudaMalloc") &&
        check(err = cudaMalloc(reinterpret_cast<void **>(&c->claims), entries * sizeof(unsigned long long)),
              "cudaMalloc") &&
        check(err = cudaMemset(c->keys, 0, entries * sizeof(CacheKey)), "cudaMemset") &&
        check(err = cudaMemset(c->claims, 0, entries * sizeof(unsigned long long)), "cudaMemset")) {
        c->entries = static_cast<uint32_t>(entries);
        return Status::ok;
    }
    free_cache(c);
    return status_of(err);
}

Status commit(BatchBuffer *b)
{
    if (b->cache_seq == 0)
        return Status::ok;
    Status s = set_device(b->device);
    if (s != Status::ok)
        return s;
    const Device &d = g.devices[b->device];
    const PageCacheKeys &k = b->cache_keys;
    const unsigned long long seq = b->cache_seq;
    b->cache_seq = 0;
    commit_pages<<<grid_for(b->cache_pages), kThreads, 0, d.stream>>>(
        reinterpret_cast<const uint64_t *>(b->on_device), at_word<unsigned long long>(b->on_device, k.lsn_word),
        at_word<uint32_t>(b->on_device, k.block_word), at_word<unsigned long long>(b->on_device, k.vm_word),
        at_word<uint32_t>(b->on_device, k.directive_word), static_cast<uint32_t>(b->cache_pages), k.rel,
        d.cache.keys, d.cache.claims, seq);
    GH_CUDA(cudaGetLastError());
    /* the buffer's next copy waits for this kernel, which reads its device side */
    GH_CUDA(cudaEventRecord(b->done, d.stream));
    return Status::ok;
}

} // namespace

bool page_cache_keys_fit(const PageCacheKeys &k, size_t n, size_t capacity)
{
    const size_t halves = (n + 1) / 2; /* n uint32_t in 8-byte words */
    const size_t eighths = (n + 7) / 8; /* n bytes */
    const size_t run_words = size_t(k.runs) * sizeof(ProbeRun) / sizeof(uint64_t);
    return k.lsn_word >= n + eighths && k.lsn_word + n <= k.block_word && k.block_word + halves <= k.vm_word &&
           k.vm_word + n <= k.directive_word && k.directive_word + halves <= k.hits_word && k.hits_word < k.miss_word &&
           k.miss_word + eighths <= k.run_word && k.run_word + run_words <= capacity;
}

static Status probe_runs_valid(const BatchBuffer *b, size_t n, const PageCacheKeys &k, uint32_t *pinned)
{
    *pinned = static_cast<uint32_t>(n);
    if (k.runs == 0)
        return Status::ok;
    const ProbeRun *runs = reinterpret_cast<const ProbeRun *>(b->host + k.run_word);
    /* each run names at least one page, in order, within the batch: else a client's mistake */
    for (uint32_t r = 0; r < k.runs; r++) {
        const uint32_t end = r + 1 < k.runs ? runs[r + 1].at : static_cast<uint32_t>(n);
        if (runs[r].at >= end || end > n || runs[r].vm == 0 || uint64_t(runs[r].block) + (end - runs[r].at) > 0xFFFFFFFFull)
            return Status::internal_error;
    }
    *pinned = runs[0].at;
    return Status::ok;
}

Status copy_page_batch_in(const Device &d, BatchBuffer *b, size_t n, const PageCacheKeys *keys)
{
    uint32_t pinned = static_cast<uint32_t>(n);
    if (keys != nullptr) {
        Status s = probe_runs_valid(b, n, *keys, &pinned);
        if (s != Status::ok)
            return s;
    }
    GH_CUDA(cudaStreamWaitEvent(d.copy_stream, b->done, 0));
    GH_CUDA(cudaMemcpyAsync(b->on_device, b->host, pinned * sizeof(double), cudaMemcpyHostToDevice, d.copy_stream));
    if (keys != nullptr) { /* the keys of the pages before the runs, at the same offsets, and the runs */
        GH_CUDA(cudaMemcpyAsync(b->on_device + keys->lsn_word, b->host + keys->lsn_word, pinned * sizeof(uint64_t),
                                cudaMemcpyHostToDevice, d.copy_stream));
        GH_CUDA(cudaMemcpyAsync(b->on_device + keys->block_word, b->host + keys->block_word,
                                pinned * sizeof(uint32_t), cudaMemcpyHostToDevice, d.copy_stream));
        GH_CUDA(cudaMemcpyAsync(b->on_device + keys->vm_word, b->host + keys->vm_word, pinned * sizeof(uint64_t),
                                cudaMemcpyHostToDevice, d.copy_stream));
        if (keys->runs > 0)
            GH_CUDA(cudaMemcpyAsync(b->on_device + keys->run_word, b->host + keys->run_word,
                                    keys->runs * sizeof(ProbeRun), cudaMemcpyHostToDevice, d.copy_stream));
    }
    GH_CUDA(cudaEventRecord(b->copied, d.copy_stream));
    GH_CUDA(cudaStreamWaitEvent(d.stream, b->copied, 0));
    if (pinned < n) {
        /* with or without a cache: a probe's page word must name nothing for the page kernel */
        expand_probe_runs<<<grid_for(n - pinned), kThreads, 0, d.stream>>>(
            at_word<const ProbeRun>(b->on_device, keys->run_word), keys->runs, pinned, static_cast<uint32_t>(n),
            reinterpret_cast<uint64_t *>(b->on_device), at_word<unsigned long long>(b->on_device, keys->lsn_word),
            at_word<uint32_t>(b->on_device, keys->block_word), at_word<unsigned long long>(b->on_device, keys->vm_word));
        GH_CUDA(cudaGetLastError());
    }
    return Status::ok;
}

Status resolve_cached_pages(const Device &d, BatchBuffer *b, size_t n, const PageCacheKeys *keys, uint64_t pool_pages,
                            PageCacheView *view)
{
    *view = PageCacheView{nullptr, nullptr};
    b->cache_seq = 0;
    if (keys == nullptr || d.cache.entries == 0 || keys->rel.rel == 0 || n == 0)
        return Status::ok;
    unsigned long long *hits = at_word<unsigned long long>(b->on_device, keys->hits_word);
    uint32_t *directives = at_word<uint32_t>(b->on_device, keys->directive_word);
    GH_CUDA(cudaMemsetAsync(hits, 0, sizeof(unsigned long long), d.stream));
    PageCacheMemory &c = g.devices[b->device].cache;
    const unsigned long long seq = c.next_seq++;
    resolve_pages<<<grid_for(n), kThreads, 0, d.stream>>>(
        reinterpret_cast<uint64_t *>(b->on_device), at_word<unsigned long long>(b->on_device, keys->lsn_word),
        at_word<uint32_t>(b->on_device, keys->block_word), at_word<unsigned long long>(b->on_device, keys->vm_word),
        static_cast<uint32_t>(n), keys->rel, pool_pages, c.keys, c.claims, c.entries, seq, directives, hits,
        at_word<unsigned char>(b->on_device, keys->miss_word));
    GH_CUDA(cudaGetLastError());
    *view = PageCacheView{directives, c.pages};
    b->cache_seq = seq;
    b->cache_pages = n;
    b->cache_keys = *keys;
    return Status::ok;
}

Status read_cache_hits(const Device &d, BatchBuffer *b)
{
    if (b->cache_seq == 0)
        return Status::ok;
    const uint32_t w = b->cache_keys.hits_word;
    GH_CUDA(cudaMemcpyAsync(const_cast<double *>(b->host) + w, b->on_device + w, sizeof(uint64_t),
                            cudaMemcpyDeviceToHost, d.stream));
    const uint32_t m = b->cache_keys.miss_word;
    GH_CUDA(cudaMemcpyAsync(const_cast<double *>(b->host) + m, b->on_device + m, b->cache_pages,
                            cudaMemcpyDeviceToHost, d.stream));
    return Status::ok;
}

Status gpu_page_cache_start(size_t bytes_per_device, uint64_t *entries) noexcept
{
    GH_ENTRY({
        *entries = 0;
        if (!g.started)
            return Status::no_device;
        if (g.devices[0].cache.entries != 0) { /* once per process */
            *entries = g.devices[0].cache.entries;
            return Status::ok;
        }
        for (int i = 0; i < g.ndevices; i++) {
            Status s = start_cache(i, bytes_per_device);
            if (s != Status::ok) {
                for (int j = 0; j < i; j++)
                    free_cache(&g.devices[j].cache);
                return s;
            }
        }
        *entries = g.devices[0].cache.entries;
        return Status::ok;
    })
}

Status gpu_page_cache_commit(BatchBuffer *b) noexcept { GH_ENTRY(return commit(b);) }

} // namespace gh
