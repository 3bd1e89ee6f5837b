/*
 * cpu_backend.cpp: the CPU binning loop.
 *
 * This loop is most of the CPU cost of gpu_histogram() beyond the scan, and
 * its cost is the division in width_bucket's formula.  So it runs in two
 * passes over blocks of values: first the bucket numbers, a loop without
 * stores to shared counters that the compiler turns into SIMD (several
 * divisions per instruction, each exactly rounded, so the results do not
 * change), then the increments.  The bound order and the rule are template
 * parameters, hoisted out of the loop.  Each variant is also cloned for AVX2
 * (four divisions per instruction) and picked at load time by the CPU it
 * runs on; the baseline x86-64 clone keeps the library portable.
 *
 * The same loop, with another binner, bins the int64 values of time
 * histograms and the values of threshold histograms; a variant of it bins
 * grouped histograms (grouped_spec.h), adding each value's group offset.
 */
#include "cpu_backend.h"

#include <cstring>

#ifdef POSTGRES_H
static_assert(false, "the engine is PostgreSQL-free: it must not include PostgreSQL headers");
#endif

namespace gh {
namespace {

constexpr size_t kBlock = 1024;

/*
 * Skewed or constant input sends run after run of increments to one counter,
 * each waiting for the last (store-to-load forwarding).  For small bucket
 * counts the increments rotate over four copies of the counters, summed into
 * `counts` at the end of the call.
 */
constexpr int32_t kCopiesUpTo = 1024; /* nbins + 2 at most this: 16 kB of copies */

/*
 * Adds the bucket of each value, as bucket_of(value) gives it, into counts
 * (slots counters).  Binners are small function objects inlined here, so
 * each kind and bound order gets a loop of its own.
 */
template <typename T, typename Binner>
__attribute__((always_inline)) inline Status bin_loop(const Binner &bucket_of, int32_t slots, const T *values,
                                                      size_t n, int64_t *counts)
{
    const uint32_t last = static_cast<uint32_t>(slots) - 1;
    const bool use_copies = slots <= kCopiesUpTo;
    uint32_t copies[4][kCopiesUpTo];
    if (use_copies)
        for (auto &copy : copies)
            memset(copy, 0, sizeof(uint32_t) * slots);
    int32_t bucket[kBlock];
    Status status = Status::ok;
    for (size_t start = 0; start < n && status == Status::ok; start += kBlock) {
        size_t len = n - start < kBlock ? n - start : kBlock;
        const T *v = values + start;
        for (size_t i = 0; i < len; i++)
            bucket[i] = bucket_of(v[i]);
        for (size_t i = 0; i < len; i++) {
            uint32_t b = static_cast<uint32_t>(bucket[i]);
            if (b > last) { /* kNaNBucket */
                status = Status::nan_value;
                break;
            }
            if (use_copies)
                copies[i & 3][b]++;
            else
                counts[b]++;
        }
    }
    if (use_copies) /* 32-bit copies: callers pass at most kMaxPerLoop values */
        for (uint32_t b = 0; b <= last; b++)
            counts[b] += static_cast<int64_t>(copies[0][b]) + copies[1][b] + copies[2][b] + copies[3][b];
    return status;
}

template <bool Ascending, BucketRule Rule> struct FloatBinner {
    BucketSpec spec;
    int32_t operator()(double x) const
    {
        return Ascending ? bucket_ascending(x, spec) : bucket_descending(x, spec);
    }
};

template <bool Ascending, BucketRule Rule>
__attribute__((always_inline)) inline Status bin_float(const BucketSpec &spec, const double *values, size_t n,
                                                       int64_t *counts)
{
    const FloatBinner<Ascending, Rule> binner{BucketSpec{spec.lo, spec.hi, spec.nbins, Rule}};
    return bin_loop(binner, spec.nbins + 2, values, n, counts);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GH_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GH_CPU_CLONES
#endif

#define GH_BIN_VARIANT(name, ascending, rule)                                                      \
    GH_CPU_CLONES Status name(const BucketSpec &spec, const double *values, size_t n,              \
                              int64_t *counts)                                                     \
    {                                                                                              \
        return bin_float<ascending, rule>(spec, values, n, counts);                                 \
    }
GH_BIN_VARIANT(bin_up_pg15, true, BucketRule::pg15)
GH_BIN_VARIANT(bin_down_pg15, false, BucketRule::pg15)
GH_BIN_VARIANT(bin_up_pg16, true, BucketRule::pg16)
GH_BIN_VARIANT(bin_down_pg16, false, BucketRule::pg16)

/*
 * Many groups: the same two passes, the second adding one to the value's
 * group's row, which row_of(i) gives (a check that fails stops the loop
 * with internal_error).  The one loop of every grouped histogram on the
 * CPU: the rows of a dense group x bucket array, or a grouped scan's rows
 * wherever its groups keep them.  The counters are the caller's int64s (one
 * copy: with many groups there is no room for more), so no chunking is
 * needed.
 */
template <bool Ascending, BucketRule Rule, typename RowOf>
__attribute__((always_inline)) inline Status bin_grouped(const BucketSpec &spec, const double *values, size_t n,
                                                         RowOf row_of)
{
    const FloatBinner<Ascending, Rule> bucket_of{BucketSpec{spec.lo, spec.hi, spec.nbins, Rule}};
    const uint32_t last = static_cast<uint32_t>(spec.nbins) + 1;
    int32_t bucket[kBlock];
    for (size_t start = 0; start < n; start += kBlock) {
        size_t len = n - start < kBlock ? n - start : kBlock;
        const double *v = values + start;
        for (size_t i = 0; i < len; i++)
            bucket[i] = bucket_of(v[i]);
        for (size_t i = 0; i < len; i++) {
            uint32_t b = static_cast<uint32_t>(bucket[i]);
            if (b > last) /* kNaNBucket */
                return Status::nan_value;
            int64_t *row = row_of(start + i);
            if (row == nullptr)
                return Status::internal_error;
            row[b]++;
        }
    }
    return Status::ok;
}

/* Rows of counts, spec.groups of them, each grouped_slots(spec) long. */
struct DenseRows {
    const uint32_t *groups;
    uint32_t ngroups;
    int64_t slots;
    int64_t *counts;
    int64_t *operator()(size_t i) const
    {
        return groups[i] < ngroups ? counts + groups[i] * slots : nullptr;
    }
};

/* The caller's own row pointers. */
struct GivenRows {
    int64_t *const *rows;
    int64_t *operator()(size_t i) const { return rows[i]; }
};

#define GH_GROUPED_VARIANT(name, ascending, rule)                                                  \
    GH_CPU_CLONES Status name##_dense(const BucketSpec &spec, const double *values, size_t n,      \
                                      DenseRows rows)                                              \
    {                                                                                              \
        return bin_grouped<ascending, rule>(spec, values, n, rows);                                \
    }                                                                                              \
    GH_CPU_CLONES Status name##_rows(const BucketSpec &spec, const double *values, size_t n,       \
                                     GivenRows rows)                                               \
    {                                                                                              \
        return bin_grouped<ascending, rule>(spec, values, n, rows);                                \
    }
GH_GROUPED_VARIANT(grouped_up_pg15, true, BucketRule::pg15)
GH_GROUPED_VARIANT(grouped_down_pg15, false, BucketRule::pg15)
GH_GROUPED_VARIANT(grouped_up_pg16, true, BucketRule::pg16)
GH_GROUPED_VARIANT(grouped_down_pg16, false, BucketRule::pg16)

/* The variant for spec's direction and rule. */
template <typename Rows>
Status bin_grouped_any(const BucketSpec &spec, const double *values, size_t n, Rows rows,
                       Status (*const variants[4])(const BucketSpec &, const double *, size_t, Rows))
{
    int which = (spec.rule == BucketRule::pg15 ? 0 : 2) + (spec.lo < spec.hi ? 0 : 1);
    return variants[which](spec, values, n, rows);
}

constexpr size_t kMaxPerLoop = size_t(1) << 30;

/* Integer division does not vectorize: a plain loop, without AVX2 clones. */
Status bin_int64(const Int64Binning &binning, const int64_t *values, size_t n, int64_t *counts)
{
    auto binner = [&binning](int64_t x) { return int64_bucket(x, binning); };
    return bin_loop(binner, binning.nbins + 2, values, n, counts);
}

/*
 * A dashboard's few thresholds, compared all at once.  For thresholds sorted
 * ascending with no NaN, the server's binary search returns how many of
 * them are <= x (threshold_index.h says why), and so does counting every
 * `t <= x`: a loop without branches, which the compiler turns into SIMD
 * compares.  The copy is padded with NaN, which is <= nothing.  On the
 * development machine eight thresholds took 13 ns a value by the search
 * (each step a branch that random data mispredicts half the time).
 */
template <int32_t Width> struct FewThresholds {
    double t[Width];
    int32_t count;
};

template <int32_t Width> bool few_thresholds(const ThresholdSpec &spec, FewThresholds<Width> *out)
{
    if (spec.count > Width)
        return false;
    for (int32_t i = 0; i < spec.count; i++) {
        const double t = spec.thresholds[i];
        if (t != t || (i > 0 && !(spec.thresholds[i - 1] <= t)))
            return false; /* the search's own answer, step for step */
        out->t[i] = t;
    }
    for (int32_t i = spec.count; i < Width; i++)
        out->t[i] = __builtin_nan("");
    out->count = spec.count;
    return true;
}

template <int32_t Width> inline int32_t few_thresholds_bucket(double x, const FewThresholds<Width> &f)
{
    if (x != x) /* NaN: at or above every threshold */
        return f.count;
    int32_t b = 0;
    for (int32_t i = 0; i < Width; i++)
        b += f.t[i] <= x;
    return b;
}

template <int32_t Width> GH_CPU_CLONES Status bin_few_thresholds(const FewThresholds<Width> &f, const double *values,
                                                                 size_t n, int64_t *counts)
{
    auto binner = [&f](double x) { return few_thresholds_bucket(x, f); };
    return bin_loop(binner, f.count + 1, values, n, counts);
}

/* A binary search per value: a plain loop too. */
Status bin_thresholds(const ThresholdSpec &spec, const double *values, size_t n, int64_t *counts)
{
    FewThresholds<8> f8;
    if (few_thresholds(spec, &f8))
        return bin_few_thresholds(f8, values, n, counts);
    FewThresholds<32> f32;
    if (few_thresholds(spec, &f32))
        return bin_few_thresholds(f32, values, n, counts);
    auto binner = [&spec](double x) { return threshold_bucket(x, spec.thresholds, spec.count); };
    return bin_loop(binner, spec.count + 1, values, n, counts);
}

} // namespace

Status cpu_bin(const BucketSpec &spec, const double *values, size_t n, int64_t *counts) noexcept
{
    bool ascending = spec.lo < spec.hi;
    auto loop = spec.rule == BucketRule::pg15 ? (ascending ? bin_up_pg15 : bin_down_pg15)
                                              : (ascending ? bin_up_pg16 : bin_down_pg16);
    Status s = Status::ok;
    for (size_t done = 0; done < n && s == Status::ok; done += kMaxPerLoop)
        s = loop(spec, values + done, n - done < kMaxPerLoop ? n - done : kMaxPerLoop, counts);
    return s;
}

Status cpu_bin_int64(const Int64Spec &spec, const int64_t *values, size_t n, int64_t *counts) noexcept
{
    Int64Binning binning = prepare_int64(spec);
    Status s = Status::ok;
    for (size_t done = 0; done < n && s == Status::ok; done += kMaxPerLoop)
        s = bin_int64(binning, values + done, n - done < kMaxPerLoop ? n - done : kMaxPerLoop, counts);
    return s;
}

Status cpu_bin_thresholds(const ThresholdSpec &spec, const double *values, size_t n, int64_t *counts) noexcept
{
    Status s = Status::ok;
    for (size_t done = 0; done < n && s == Status::ok; done += kMaxPerLoop)
        s = bin_thresholds(spec, values + done, n - done < kMaxPerLoop ? n - done : kMaxPerLoop, counts);
    return s;
}

Status cpu_bin_words(const HistogramSpec &spec, const void *values, size_t n, int64_t *counts) noexcept
{
    switch (spec.kind) {
    case SpecKind::float_interval:
        return cpu_bin(spec.interval, static_cast<const double *>(values), n, counts);
    case SpecKind::int64_interval:
        return cpu_bin_int64(spec.int64, static_cast<const int64_t *>(values), n, counts);
    case SpecKind::thresholds:
        return cpu_bin_thresholds(spec.thresholds, static_cast<const double *>(values), n, counts);
    }
    return Status::internal_error;
}

Status cpu_bin_grouped(const GroupedSpec &spec, const double *values, const uint32_t *groups, size_t n,
                       int64_t *counts) noexcept
{
    if (!grouped_spec_fits(spec))
        return Status::internal_error;
    static Status (*const variants[4])(const BucketSpec &, const double *, size_t, DenseRows) = {
        grouped_up_pg15_dense, grouped_down_pg15_dense, grouped_up_pg16_dense, grouped_down_pg16_dense};
    return bin_grouped_any(spec.interval, values, n, DenseRows{groups, spec.groups, grouped_slots(spec), counts},
                           variants);
}

Status cpu_bin_rows(const BucketSpec &spec, const double *values, int64_t *const *rows, size_t n) noexcept
{
    static Status (*const variants[4])(const BucketSpec &, const double *, size_t, GivenRows) = {
        grouped_up_pg15_rows, grouped_down_pg15_rows, grouped_up_pg16_rows, grouped_down_pg16_rows};
    return bin_grouped_any(spec, values, n, GivenRows{rows}, variants);
}

namespace {

/* One value at a time into the caller's rows: a plain loop, as bin_int64's and bin_thresholds' are. */
template <typename T, typename Binner>
Status bin_rows_one_by_one(Binner binner, const T *values, int64_t *const *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rows[i] == nullptr)
            return Status::internal_error;
        rows[i][binner(values[i])]++;
    }
    return Status::ok;
}

} // namespace

Status cpu_bin_rows_words(const HistogramSpec &spec, const void *values, int64_t *const *rows, size_t n) noexcept
{
    switch (spec.kind) {
    case SpecKind::float_interval:
        return cpu_bin_rows(spec.interval, static_cast<const double *>(values), rows, n);
    case SpecKind::int64_interval: {
        Int64Binning binning = prepare_int64(spec.int64);
        return bin_rows_one_by_one([&binning](int64_t x) { return int64_bucket(x, binning); },
                                   static_cast<const int64_t *>(values), rows, n);
    }
    case SpecKind::thresholds: {
        const ThresholdSpec &t = spec.thresholds;
        const double *v = static_cast<const double *>(values);
        FewThresholds<8> f8;
        if (few_thresholds(t, &f8))
            return bin_rows_one_by_one([&f8](double x) { return few_thresholds_bucket(x, f8); }, v, rows, n);
        FewThresholds<32> f32;
        if (few_thresholds(t, &f32))
            return bin_rows_one_by_one([&f32](double x) { return few_thresholds_bucket(x, f32); }, v, rows, n);
        return bin_rows_one_by_one([&t](double x) { return threshold_bucket(x, t.thresholds, t.count); }, v, rows, n);
    }
    }
    return Status::internal_error;
}

Status cpu_count_one(const BucketSpec &spec, double value, int64_t delta, int64_t *counts) noexcept
{
    int32_t b = width_bucket(value, spec);
    if (b == kNaNBucket)
        return Status::nan_value;
    counts[b] += delta;
    return Status::ok;
}

const char *status_text(Status s) noexcept
{
    switch (s) {
    case Status::ok: return "success";
    case Status::nan_value: return "value is NaN";
    case Status::not_built: return "extension was built without CUDA";
    case Status::no_device: return "no usable CUDA device";
    case Status::out_of_memory: return "out of GPU or host memory";
    case Status::interrupted: return "interrupted while waiting for the GPU";
    case Status::cuda_error: return "CUDA call failed";
    case Status::internal_error: return "internal error in the histogram engine";
    }
    return "unknown status";
}

} // namespace gh
