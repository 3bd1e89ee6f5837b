/*
 * histogram_state.cpp: growing, flushing, combining and serializing the
 * per-group state of gpu_histogram().
 */
#include "histogram_state.h"

#include "errors.h"
#include "gpu_binning.h"
#include "../gpu/cpu_backend.h"

int64 gh_values_binned_on_cpu = 0;

namespace {

/* First chunk: small, since GROUP BY may keep 100,000 groups alive at once. */
constexpr int32 kFirstChunk = 16;
/* Largest CPU chunk: 64 kB, binned while it is still in the L2 cache. */
constexpr int32 kCpuChunk = 8192;

/* Wire format, version 1: this header, then nbins + 2 little-endian int64 counts. */
constexpr uint32 kWireMagic = 0x47485354; /* "GHST" */
constexpr uint32 kWireVersion = 1;
struct WireHeader {
    uint32 magic;
    uint32 version;
    double lo;
    double hi;
    int32 nbins;
    int32 rule;
    int64 nvalues;
};

} // namespace

int64 *histogram_state_counts(HistogramState *st)
{
    if (st->counts == NULL) {
        Size bytes = sizeof(int64) * (static_cast<Size>(st->spec.nbins) + 2);
        st->counts = static_cast<int64 *>(MemoryContextAllocZero(st->mcxt, bytes));
    }
    return st->counts;
}

void histogram_state_bin_on_cpu(HistogramState *st)
{
    if (st->chunk_len == 0)
        return;
    gh::Status s = gh::cpu_bin(st->spec, st->chunk, st->chunk_len, histogram_state_counts(st));
    gh_values_binned_on_cpu += st->chunk_len;
    st->nvalues += st->chunk_len;
    st->chunk_len = 0;
    report_engine_status(s);
}

HistogramState *histogram_state_create(MemoryContext mcxt, const gh::BucketSpec &spec)
{
    HistogramState *st =
        static_cast<HistogramState *>(MemoryContextAllocZero(mcxt, sizeof(HistogramState)));
    st->spec = spec;
    st->mcxt = mcxt;
    st->cpu_chunk_cap = kFirstChunk;
    st->cpu_chunk = static_cast<double *>(MemoryContextAlloc(mcxt, sizeof(double) * kFirstChunk));
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    return st;
}

void histogram_state_chunk_full(HistogramState *st)
{
    if (st->pinned != NULL) {
        gpu_binning_batch_full(st);
        return;
    }
    if (st->chunk_cap < kCpuChunk) {
        st->cpu_chunk_cap *= 2;
        st->cpu_chunk = static_cast<double *>(repalloc(st->cpu_chunk, sizeof(double) * st->cpu_chunk_cap));
        st->chunk = st->cpu_chunk;
        st->chunk_cap = st->cpu_chunk_cap;
        return;
    }
    if (!gpu_binning_take_chunk(st))
        histogram_state_bin_on_cpu(st);
}

void histogram_state_flush(HistogramState *st)
{
    if (st->pinned == NULL && st->chunk_len > 0 && !gpu_binning_take_chunk(st))
        histogram_state_bin_on_cpu(st);
    gpu_binning_flush(st);
    histogram_state_counts(st);
}

static bool same_spec(const gh::BucketSpec &a, const gh::BucketSpec &b)
{
    return a.lo == b.lo && a.hi == b.hi && a.nbins == b.nbins && a.rule == b.rule;
}

void histogram_state_combine(HistogramState *dst, HistogramState *src)
{
    if (!same_spec(dst->spec, src->spec))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("cannot combine gpu_histogram states with different bounds or bucket counts"),
                 errdetail("One has (%g, %g, %d), the other (%g, %g, %d).", dst->spec.lo,
                           dst->spec.hi, dst->spec.nbins, src->spec.lo, src->spec.hi,
                           src->spec.nbins)));
    histogram_state_flush(dst);
    histogram_state_flush(src);
    int32 n = dst->spec.nbins + 2;
    for (int32 i = 0; i < n; i++)
        dst->counts[i] += src->counts[i];
    dst->nvalues += src->nvalues;
}

HistogramState *histogram_state_copy(MemoryContext mcxt, HistogramState *src)
{
    histogram_state_flush(src);
    HistogramState *st = histogram_state_create(mcxt, src->spec);
    memcpy(histogram_state_counts(st), src->counts, sizeof(int64) * (static_cast<Size>(src->spec.nbins) + 2));
    st->nvalues = src->nvalues;
    return st;
}

bytea *histogram_state_serialize(HistogramState *st)
{
    histogram_state_flush(st);
    Size ncounts = static_cast<Size>(st->spec.nbins) + 2;
    Size payload = sizeof(WireHeader) + sizeof(int64) * ncounts;
    bytea *wire = static_cast<bytea *>(palloc(VARHDRSZ + payload));
    SET_VARSIZE(wire, VARHDRSZ + payload);

    WireHeader h{kWireMagic, kWireVersion, st->spec.lo, st->spec.hi, st->spec.nbins,
                 static_cast<int32>(st->spec.rule), st->nvalues};
    char *p = VARDATA(wire);
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    memcpy(p, st->counts, sizeof(int64) * ncounts);
    p += sizeof(int64) * ncounts;
    Assert(p == reinterpret_cast<char *>(wire) + VARSIZE(wire));
    return wire;
}

HistogramState *histogram_state_deserialize(MemoryContext mcxt, const bytea *wire)
{
    Size len = VARSIZE_ANY_EXHDR(wire);
    const char *p = VARDATA_ANY(wire);
    WireHeader h;
    if (len < sizeof h)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state is truncated: %zu bytes", (size_t)len)));
    memcpy(&h, p, sizeof h);
    if (h.magic != kWireMagic || h.version != kWireVersion)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state has an unknown format (version %u)", h.version)));
    gh::BucketSpec spec{h.lo, h.hi, h.nbins, static_cast<gh::BucketRule>(h.rule)};
    if (h.rule != static_cast<int32>(kServerRule) || gh::validate_spec(spec) != gh::SpecError::none)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state has invalid bounds or bucket count")));
    Size ncounts = static_cast<Size>(h.nbins) + 2;
    if (len != sizeof h + sizeof(int64) * ncounts)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state has %zu bytes, expected %zu for %d buckets",
                               (size_t)len, (size_t)(sizeof h + sizeof(int64) * ncounts), h.nbins)));

    HistogramState *st = histogram_state_create(mcxt, spec);
    memcpy(histogram_state_counts(st), p + sizeof h, sizeof(int64) * ncounts);
    int64 total = 0;
    for (Size i = 0; i < ncounts; i++) {
        if (st->counts[i] < 0 || pg_add_s64_overflow(total, st->counts[i], &total))
            total = -1;
        if (total < 0)
            break;
    }
    if (total != h.nvalues)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state is corrupt: counts do not add up to %lld",
                               (long long)h.nvalues)));
    st->nvalues = h.nvalues;
    return st;
}

ArrayType *int64_array(const int64 *counts, int32 n)
{
    Size bytes = ARR_OVERHEAD_NONULLS(1) + sizeof(int64) * static_cast<Size>(n);
    ArrayType *a = static_cast<ArrayType *>(palloc(bytes));
    SET_VARSIZE(a, bytes);
    a->ndim = 1;
    a->dataoffset = 0;
    a->elemtype = INT8OID;
    ARR_DIMS(a)[0] = n;
    ARR_LBOUND(a)[0] = 1;
    memcpy(ARR_DATA_PTR(a), counts, sizeof(int64) * static_cast<Size>(n));
    return a;
}
