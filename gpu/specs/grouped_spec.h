/*
 * grouped_spec.h: many histograms of one float8 layout, side by side, for
 * binning rows of many groups in one pass (GROUP BY on the SQL side).
 *
 * Each value comes with a dense group number g < groups, computed by the
 * caller, and lands in cell g * slots + width_bucket(value), slots being
 * nbins + 2.  The cells are one array, so the engine's counters, drains and
 * kernels see one large histogram; the group number only moves the bucket.
 * Only libc headers; compiled by g++ and nvcc.
 */
#ifndef GH_GROUPED_SPEC_H
#define GH_GROUPED_SPEC_H

#include <cstdint>

#include "../formulas/bucket.h"

namespace gh {

struct GroupedSpec {
    BucketSpec interval; /* validated by validate_spec() */
    uint32_t groups;     /* group numbers run from 0 to groups - 1 */
};

/*
 * Most cells a grouped histogram may have: drains address cells with
 * int32_t, as they do a histogram's buckets.
 */
constexpr int64_t kMaxGroupedCells = INT32_MAX;

/* Cells of one group: width_bucket's nbins + 2 results. */
inline int32_t grouped_slots(const GroupedSpec &spec) { return spec.interval.nbins + 2; }

/* groups * (nbins + 2): the length of the counts array. */
inline int64_t grouped_cells(const GroupedSpec &spec)
{
    return static_cast<int64_t>(spec.groups) * grouped_slots(spec);
}

/* Whether the engine bins this spec: at least one group, and at most kMaxGroupedCells cells. */
inline bool grouped_spec_fits(const GroupedSpec &spec)
{
    return spec.groups > 0 && grouped_cells(spec) <= kMaxGroupedCells;
}

/* What the bucket functions return for a group number >= groups: a caller's bug, never counted. */
constexpr int32_t kBadGroupBucket = -2;

} // namespace gh

#endif /* GH_GROUPED_SPEC_H */
