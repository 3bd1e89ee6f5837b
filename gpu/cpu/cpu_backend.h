/*
 * cpu_backend.h: bins a batch of values on the CPU, for every kind of
 * histogram (histogram_spec.h).
 *
 * The fallback when no GPU is usable, the whole engine in a build without
 * CUDA, and the reference the CUDA backend is tested against.  Plain data in,
 * a status out: nothing here throws or allocates.
 */
#ifndef GH_CPU_BACKEND_H
#define GH_CPU_BACKEND_H

#include <cstddef>
#include <cstdint>

#include "../specs/grouped_spec.h"
#include "../specs/histogram_spec.h"
#include "../specs/status.h"

namespace gh {

/*
 * Adds one to counts[width_bucket(values[i], spec)] for every i < n.
 * counts has spec.nbins + 2 elements.  Returns Status::nan_value, leaving the
 * counts partly updated, if any value is NaN: the caller raises an error then.
 */
Status cpu_bin(const BucketSpec &spec, const double *values, size_t n, int64_t *counts) noexcept;

/* The same for a time histogram: counts has spec.nbins + 2 elements.  Never fails. */
Status cpu_bin_int64(const Int64Spec &spec, const int64_t *values, size_t n, int64_t *counts) noexcept;

/* The same for thresholds: counts has spec.count + 1 elements.  Never fails (NaN has a bin). */
Status cpu_bin_thresholds(const ThresholdSpec &spec, const double *values, size_t n, int64_t *counts) noexcept;

/*
 * Any kind, on 8-byte words: doubles for float_interval and thresholds,
 * int64s for int64_interval; counts has histogram_slots(spec) elements.
 */
Status cpu_bin_words(const HistogramSpec &spec, const void *values, size_t n, int64_t *counts) noexcept;

/*
 * Many groups at once (grouped_spec.h): adds one to
 * counts[groups[i] * (nbins + 2) + width_bucket(values[i], spec.interval)]
 * for every i < n; counts has grouped_cells(spec) elements.  Returns
 * Status::nan_value if a value is NaN, and Status::internal_error if a
 * group number is >= spec.groups or grouped_spec_fits() refuses the spec
 * (both the caller's bugs); either leaves the counts partly updated.
 */
Status cpu_bin_grouped(const GroupedSpec &spec, const double *values, const uint32_t *groups, size_t n,
                       int64_t *counts) noexcept;

/*
 * The same loop over rows the caller keeps wherever it likes: adds one to
 * rows[i][width_bucket(values[i], spec)] for every i < n, each row having
 * nbins + 2 counters (a grouped scan's groups).  Returns Status::nan_value
 * at the first NaN, Status::internal_error for a null row, leaving the
 * counts partly updated.
 */
Status cpu_bin_rows(const BucketSpec &spec, const double *values, int64_t *const *rows, size_t n) noexcept;

/*
 * The same for any kind, on 8-byte words (as cpu_bin_words takes them):
 * each row has histogram_slots(spec) counters.  A grouped scan of the time
 * and threshold forms counts through it.
 */
Status cpu_bin_rows_words(const HistogramSpec &spec, const void *values, int64_t *const *rows, size_t n) noexcept;

/*
 * Adds delta to counts[width_bucket(value, spec)]: one value at a time, for a
 * moving window frame, which adds each row that enters the frame (+1) and
 * removes each row that leaves it (-1) with the same formula as cpu_bin.
 * Returns Status::nan_value, changing nothing, if value is NaN.
 */
Status cpu_count_one(const BucketSpec &spec, double value, int64_t delta, int64_t *counts) noexcept;

} // namespace gh

#endif /* GH_CPU_BACKEND_H */
