/*
 * histogram_wire.cpp: the wire form of a gpu_histogram() state: what a
 * parallel worker's partial aggregate sends the leader, and what the
 * grouped scan emits as partial states (histogram_state.h).
 *
 * Apart from histogram_state.cpp because it is a format with a reader
 * that must trust nothing it reads: the header, the thresholds and the
 * counts are checked, as hll's deserialize checks its input, before any
 * of them is used.  Also the bigint[] a finished histogram is.
 */
#include "histogram_state.h"

#include "errors.h"

extern "C" {
#include "common/int.h"
#include "utils/array.h"
}

namespace gpu_histogram {

namespace {

/*
 * Wire format, version 3: this header; for thresholds, their `size`
 * float8s; then histogram_slots() counts, each a base-128 varint (seven
 * bits a byte, low first, the high bit set on every byte but the last),
 * all in host byte order (workers and leader are one machine).  `bounds`
 * holds lo and hi, two float8s or two int64s; `size` is nbins, or the
 * number of thresholds.  A grouped scan's counts are mostly small: the
 * hourly heatmap's 66 counts of a group take about 70 bytes instead of
 * 528, and the states are what crosses the Gather's queues and what the
 * Finalize Aggregate spills.
 */
constexpr uint32 kWireMagic = 0x47485354; /* "GHST" */
constexpr uint32 kWireVersion = 3;
constexpr Size kMaxVarintBytes = 10; /* 64 bits, seven a byte */
struct WireHeader {
    uint32 magic;
    uint32 version;
    int32 kind;
    int32 size;
    int32 rule;
    int32 unused;
    int64 nvalues;
    char bounds[16];
};

} // namespace

bytea *histogram_state_serialize(HistogramState *st)
{
    histogram_state_flush(st);
    return histogram_wire(st->spec, st->counts, st->nvalues);
}

namespace {

char *put_varint(char *p, uint64 v)
{
    while (v >= 0x80) {
        *p++ = static_cast<char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

/* The varint at *p, before end; false if it is cut short or does not fit 64 bits. */
bool get_varint(const char **p, const char *end, uint64 *out)
{
    uint64 v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p == end)
            return false;
        const uint8 b = static_cast<uint8>(*(*p)++);
        if (shift == 63 && (b & 0x7e) != 0)
            return false;
        v |= static_cast<uint64>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *out = v;
            return true;
        }
    }
    return false;
}

} // namespace

bytea *histogram_wire(const gh::HistogramSpec &spec, const int64 *counts, int64 nvalues)
{
    Size ncounts = static_cast<Size>(gh::histogram_slots(spec));
    Size nthresholds = spec.kind == gh::SpecKind::thresholds ? static_cast<Size>(spec.thresholds.count) : 0;
    Size most = sizeof(WireHeader) + sizeof(double) * nthresholds + kMaxVarintBytes * ncounts;
    bytea *wire = static_cast<bytea *>(palloc(VARHDRSZ + most));

    WireHeader h{};
    h.magic = kWireMagic;
    h.version = kWireVersion;
    h.kind = static_cast<int32>(spec.kind);
    h.nvalues = nvalues;
    switch (spec.kind) {
    case gh::SpecKind::float_interval:
        h.size = spec.interval.nbins;
        h.rule = static_cast<int32>(spec.interval.rule);
        memcpy(h.bounds, &spec.interval.lo, 8);
        memcpy(h.bounds + 8, &spec.interval.hi, 8);
        break;
    case gh::SpecKind::int64_interval:
        h.size = spec.int64.nbins;
        h.rule = static_cast<int32>(spec.int64.rule);
        memcpy(h.bounds, &spec.int64.lo, 8);
        memcpy(h.bounds + 8, &spec.int64.hi, 8);
        break;
    case gh::SpecKind::thresholds:
        h.size = spec.thresholds.count;
        break;
    }
    char *p = VARDATA(wire);
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    if (nthresholds > 0)
        memcpy(p, spec.thresholds.thresholds, sizeof(double) * nthresholds);
    p += sizeof(double) * nthresholds;
    for (Size i = 0; i < ncounts; i++)
        p = put_varint(p, static_cast<uint64>(counts[i])); /* a count is never negative */
    SET_VARSIZE(wire, p - reinterpret_cast<char *>(wire));
    return wire;
}

[[noreturn]] static void report_bad_wire(const char *what);
static void report_bad_wire(const char *what)
{
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("gpu_histogram state has %s", what)));
}

HistogramState *histogram_state_deserialize(MemoryContext mcxt, const bytea *wire, FmgrInfo *flinfo)
{
    Size len = VARSIZE_ANY_EXHDR(wire);
    const char *p = VARDATA_ANY(wire);
    WireHeader h;
    if (len < sizeof h)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg_plural("gpu_histogram state is truncated: %zu byte",
                                      "gpu_histogram state is truncated: %zu bytes", len, (size_t)len)));
    memcpy(&h, p, sizeof h);
    if (h.magic != kWireMagic || h.version != kWireVersion)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state has an unknown format (version %u)", h.version)));
    gh::HistogramSpec spec{};
    Size nthresholds = 0;
    switch (static_cast<gh::SpecKind>(h.kind)) {
    case gh::SpecKind::float_interval: {
        gh::BucketSpec b{0, 0, h.size, static_cast<gh::BucketRule>(h.rule)};
        memcpy(&b.lo, h.bounds, 8);
        memcpy(&b.hi, h.bounds + 8, 8);
        if (h.rule != static_cast<int32>(kServerRule) || gh::validate_spec(b) != gh::SpecError::none)
            report_bad_wire("invalid bounds or bucket count");
        spec = gh::float_histogram(b);
        break;
    }
    case gh::SpecKind::int64_interval: {
        gh::Int64Spec b{0, 0, h.size, static_cast<gh::NumericRule>(h.rule)};
        memcpy(&b.lo, h.bounds, 8);
        memcpy(&b.hi, h.bounds + 8, 8);
        if (h.rule != static_cast<int32>(kServerNumericRule) || gh::validate_int64_spec(b, false) != gh::SpecError::none)
            report_bad_wire("invalid bounds or bucket count");
        spec = gh::int64_histogram(b);
        break;
    }
    case gh::SpecKind::thresholds:
        if (h.size < 0 || h.size > gh::kMaxThresholds)
            report_bad_wire("an invalid number of thresholds");
        nthresholds = static_cast<Size>(h.size);
        spec = gh::threshold_histogram(NULL, h.size);
        break;
    default:
        report_bad_wire("an unknown kind");
    }
    Size ncounts = static_cast<Size>(gh::histogram_slots(spec));
    if (len < sizeof h + sizeof(double) * nthresholds + ncounts)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg_plural("gpu_histogram state is truncated: %zu byte for %d bucket",
                                      "gpu_histogram state is truncated: %zu bytes for %d buckets", ncounts,
                                      (size_t)len, (int)ncounts)));
    const char *end = p + len;
    p += sizeof h;
    if (spec.kind == gh::SpecKind::thresholds) {
        /* the payload is not 8-byte aligned: copy before use */
        double *t = static_cast<double *>(palloc(sizeof(double) * nthresholds + 1));
        memcpy(t, p, sizeof(double) * nthresholds);
        spec.thresholds.thresholds = intern_thresholds(flinfo, t, h.size);
        pfree(t);
        p += sizeof(double) * nthresholds;
    }

    HistogramState *st = histogram_state_combined(mcxt, spec, NULL, h.nvalues);
    int64 total = 0;
    bool sums = true;
    for (Size i = 0; i < ncounts && sums; i++) {
        uint64 c;
        if (!get_varint(&p, end, &c))
            report_bad_wire("a malformed count");
        sums = c <= static_cast<uint64>(PG_INT64_MAX) && !pg_add_s64_overflow(total, static_cast<int64>(c), &total);
        st->counts[i] = static_cast<int64>(c);
    }
    if (sums && p != end)
        report_bad_wire("bytes after its counts");
    if (!sums || total != h.nvalues)
        ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                        errmsg("gpu_histogram state is corrupt: counts do not add up to %lld",
                               (long long)h.nvalues)));
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

} // namespace gpu_histogram
