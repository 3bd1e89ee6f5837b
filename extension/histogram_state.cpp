/*
 * histogram_state.cpp: growing, flushing, combining and serializing the
 * per-group state of gpu_histogram(), for every kind of histogram.
 */
#include "histogram_state.h"

#include "errors.h"
#include "../gpu/cpu/cpu_backend.h"

int64 gh_values_binned_on_cpu = 0;

namespace {

/* First chunk: small, since GROUP BY may keep 100,000 groups alive at once. */
constexpr int32 kFirstChunk = 16;
/* Largest CPU chunk: 64 kB, binned while it is still in the L2 cache. */
constexpr int32 kCpuChunk = 8192;

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

/* The interned copy of the thresholds most recently seen through one FmgrInfo. */
struct InternedThresholds {
    int32 count;
    double *values;
};

} // namespace

int64 *histogram_state_counts(HistogramState *st)
{
    if (st->counts == NULL) {
        Size bytes = sizeof(int64) * static_cast<Size>(histogram_state_slots(st));
        st->counts = static_cast<int64 *>(MemoryContextAllocZero(st->mcxt, bytes));
    }
    return st->counts;
}

void histogram_state_bin_on_cpu(HistogramState *st)
{
    if (st->chunk_len == 0)
        return;
    gh::Status s = gh::cpu_bin_words(st->spec, st->chunk, st->chunk_len, histogram_state_counts(st));
    gh_values_binned_on_cpu += st->chunk_len;
    st->nvalues += st->chunk_len;
    st->chunk_len = 0;
    report_engine_status(s);
}

namespace {

/*
 * A state that only combines: the Finalize Aggregate's, one per group, and
 * a worker's state read from the wire.  The struct and its counts are one
 * allocation and there is no chunk, since nothing is ever appended to a
 * combined state (PostgreSQL never runs transitions on it).  Over the
 * hourly heatmap's 27,778 groups this took the Finalize Aggregate's memory
 * from 1.65 kB a group (struct, chunk and counts, each rounded up by the
 * allocator) to 1.2 kB (45.8 MB to 33.5 MB), and it decides how much it spills.
 */
HistogramState *combined_state(MemoryContext mcxt, const gh::HistogramSpec &spec, const int64 *counts, int64 nvalues)
{
    const Size slots = static_cast<Size>(gh::histogram_slots(spec));
    const Size head = MAXALIGN(sizeof(HistogramState));
    char *block = static_cast<char *>(MemoryContextAlloc(mcxt, head + sizeof(int64) * slots));
    HistogramState *st = reinterpret_cast<HistogramState *>(block);
    memset(st, 0, sizeof *st);
    st->spec = spec;
    st->mcxt = mcxt;
    st->counts = reinterpret_cast<int64 *>(block + head);
    if (counts != NULL)
        memcpy(st->counts, counts, sizeof(int64) * slots);
    st->nvalues = nvalues;
    gpu_lease_init(&st->gpu);
    return st;
}

} // namespace

HistogramState *histogram_state_create(MemoryContext mcxt, const gh::HistogramSpec &spec)
{
    HistogramState *st =
        static_cast<HistogramState *>(MemoryContextAllocZero(mcxt, sizeof(HistogramState)));
    st->spec = spec;
    st->mcxt = mcxt;
    st->cpu_chunk_cap = kFirstChunk;
    st->cpu_chunk = static_cast<double *>(MemoryContextAlloc(mcxt, sizeof(double) * kFirstChunk));
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    gpu_lease_init(&st->gpu);
    return st;
}

namespace {

/*
 * The states of this process that are filling a slot.  Before anything that
 * may wait for the GPU service, they hand their slots over, so that no
 * process ever waits for a slot while it holds one.
 */
HistogramState *states_on_slots = NULL;

void link_on_slot(HistogramState *st)
{
    st->on_slot = true;
    st->slot_prev = NULL;
    st->slot_next = states_on_slots;
    if (states_on_slots != NULL)
        states_on_slots->slot_prev = st;
    states_on_slots = st;
}

void unlink_from_slot(HistogramState *st)
{
    if (st->slot_prev != NULL)
        st->slot_prev->slot_next = st->slot_next;
    else
        states_on_slots = st->slot_next;
    if (st->slot_next != NULL)
        st->slot_next->slot_prev = st->slot_prev;
    st->slot_prev = st->slot_next = NULL;
    st->on_slot = false;
}

/* Points the group's appends back at its CPU chunk, counting what left. */
void leave_slot(HistogramState *st)
{
    st->nvalues += st->chunk_len;
    st->chunk = st->cpu_chunk;
    st->chunk_cap = st->cpu_chunk_cap;
    st->chunk_len = 0;
    unlink_from_slot(st);
}

void give_back_other_slots(HistogramState *except);

/* Hands the slot's values to the GPU service; a transient histogram is read back at once. */
void submit_slot(HistogramState *st)
{
    int32 n = st->chunk_len;
    leave_slot(st);
    if (st->gpu.transient)
        give_back_other_slots(st);
    gpu_lease_submit(&st->gpu, n, histogram_state_counts(st), histogram_state_slots(st));
}

void give_back_other_slots(HistogramState *except)
{
    HistogramState *other = states_on_slots;
    while (other != NULL) {
        /* submitting may read a transient histogram, which gives back slots too: start over each time */
        if (other != except) {
            submit_slot(other);
            other = states_on_slots;
        } else {
            other = other->slot_next;
        }
    }
}

/* The aggregate context is going away: the lease goes back to the service. */
void release_lease(void *arg)
{
    HistogramState *st = static_cast<HistogramState *>(arg);
    if (st->on_slot)
        unlink_from_slot(st);
    gpu_lease_release(&st->gpu);
}

/*
 * Moves the group's appends into a slot of the GPU service, carrying the CPU
 * chunk over, if the device policy says so; false: bin on the CPU.
 */
bool move_to_slot(HistogramState *st)
{
    int64 total = histogram_state_total(st);
    if (!gpu_lease_may_start(&st->gpu, total))
        return false;
    if (st->cleanup == NULL) {
        /* registered once per state, before it can hold anything in the service */
        st->cleanup = static_cast<MemoryContextCallback *>(
            MemoryContextAllocZero(st->mcxt, sizeof(MemoryContextCallback)));
        st->cleanup->func = release_lease;
        st->cleanup->arg = st;
        MemoryContextRegisterResetCallback(st->mcxt, st->cleanup);
    }
    double *values = NULL;
    int32 capacity = 0;
    SlotAnswer answer = gpu_lease_next_slot(&st->gpu, st->spec, total, false, &values, &capacity);
    if (answer == SLOT_WAIT_FIRST) {
        give_back_other_slots(st);
        answer = gpu_lease_next_slot(&st->gpu, st->spec, total, true, &values, &capacity);
    }
    if (answer != SLOT_GRANTED)
        return false;
    memcpy(values, st->cpu_chunk, sizeof(double) * st->chunk_len);
    st->chunk = values;
    st->chunk_cap = capacity;
    link_on_slot(st);
    return true;
}

} // namespace

void histogram_state_chunk_full(HistogramState *st)
{
    if (st->on_slot) {
        submit_slot(st);
        /* the next values go straight into a fresh slot if there is one */
        move_to_slot(st);
        return;
    }
    if (st->chunk_cap < kCpuChunk) {
        st->cpu_chunk_cap *= 2;
        st->cpu_chunk = static_cast<double *>(repalloc(st->cpu_chunk, sizeof(double) * st->cpu_chunk_cap));
        st->chunk = st->cpu_chunk;
        st->chunk_cap = st->cpu_chunk_cap;
        return;
    }
    if (!move_to_slot(st))
        histogram_state_bin_on_cpu(st);
}

void histogram_state_flush(HistogramState *st)
{
    if (!st->on_slot && st->chunk_len > 0 && !move_to_slot(st))
        histogram_state_bin_on_cpu(st);
    if (st->on_slot)
        submit_slot(st);
    if (st->gpu.hist.index >= 0) {
        give_back_other_slots(st);
        gpu_lease_read(&st->gpu, histogram_state_counts(st), histogram_state_slots(st));
    }
    histogram_state_counts(st);
}

bool histogram_spec_equal(const gh::HistogramSpec &a, const gh::HistogramSpec &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case gh::SpecKind::float_interval:
        return a.interval.lo == b.interval.lo && a.interval.hi == b.interval.hi &&
               a.interval.nbins == b.interval.nbins && a.interval.rule == b.interval.rule;
    case gh::SpecKind::int64_interval:
        return a.int64.lo == b.int64.lo && a.int64.hi == b.int64.hi && a.int64.nbins == b.int64.nbins &&
               a.int64.rule == b.int64.rule;
    case gh::SpecKind::thresholds:
        return a.thresholds.count == b.thresholds.count &&
               (a.thresholds.thresholds == b.thresholds.thresholds ||
                memcmp(a.thresholds.thresholds, b.thresholds.thresholds,
                       sizeof(double) * static_cast<Size>(a.thresholds.count)) == 0);
    }
    return false;
}

const double *intern_thresholds(FmgrInfo *flinfo, const double *thresholds, int32 count)
{
    InternedThresholds *cached = static_cast<InternedThresholds *>(flinfo->fn_extra);
    Size bytes = sizeof(double) * static_cast<Size>(count);
    if (cached != NULL && cached->count == count && memcmp(cached->values, thresholds, bytes) == 0)
        return cached->values;
    if (cached == NULL) {
        cached = static_cast<InternedThresholds *>(MemoryContextAllocZero(flinfo->fn_mcxt, sizeof *cached));
        flinfo->fn_extra = cached;
    }
    /* the previous copy stays: states of earlier groups may point at it */
    cached->values = static_cast<double *>(MemoryContextAlloc(flinfo->fn_mcxt, bytes > 0 ? bytes : 1));
    memcpy(cached->values, thresholds, bytes);
    cached->count = count;
    return cached->values;
}

/* The spec for an error's detail. */
static char *describe_spec(const gh::HistogramSpec &spec)
{
    switch (spec.kind) {
    case gh::SpecKind::float_interval:
        return psprintf("(%g, %g, %d)", spec.interval.lo, spec.interval.hi, spec.interval.nbins);
    case gh::SpecKind::int64_interval:
        return psprintf("(" INT64_FORMAT ", " INT64_FORMAT ", %d)", spec.int64.lo, spec.int64.hi, spec.int64.nbins);
    case gh::SpecKind::thresholds:
        return psprintf(spec.thresholds.count == 1 ? "%d threshold" : "%d thresholds", spec.thresholds.count);
    }
    return pstrdup("?");
}

void histogram_state_combine(HistogramState *dst, HistogramState *src)
{
    if (!histogram_spec_equal(dst->spec, src->spec))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("cannot combine gpu_histogram states with different bounds or bucket counts"),
                 errdetail("One has %s, the other %s.", describe_spec(dst->spec), describe_spec(src->spec))));
    histogram_state_flush(dst);
    histogram_state_flush(src);
    int32 n = histogram_state_slots(dst);
    for (int32 i = 0; i < n; i++)
        dst->counts[i] += src->counts[i];
    dst->nvalues += src->nvalues;
}

HistogramState *histogram_state_copy(MemoryContext mcxt, HistogramState *src)
{
    histogram_state_flush(src);
    HistogramState *st = combined_state(mcxt, src->spec, src->counts, src->nvalues);
    st->spec_is_constant = src->spec_is_constant;
    return st;
}

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

    HistogramState *st = combined_state(mcxt, spec, NULL, h.nvalues);
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
