/*
 * threshold_index.h: a direct-mapped index over sorted thresholds, so that
 * the CUDA kernels find a value's bin among many thousands of thresholds
 * with one lookup instead of a binary search whose every step waits on
 * memory (issue 15: 100,000 thresholds read at 5 % of the read ceiling).
 *
 * Why it gives the server's answer: for thresholds sorted ascending with
 * no NaN, width_bucket's binary search (threshold_bucket.h) returns the
 * number of thresholds <= x, because its invariant (all before `left` are
 * <= x, all from `right` on are above it) holds for any sorted array.  The
 * index cuts the axis into `cells` pieces by
 *
 *     cell(x) = floor((x - origin) * scale), clamped to [0, cells)
 *
 * in correctly rounded double arithmetic, which is monotone in x (rounding,
 * floor and clamp all are).  So a threshold in a lower cell than x's is
 * below x, one in a higher cell is above it, and only those in x's own cell
 * need comparing: the answer is the cell's `base` (the number of thresholds
 * in lower cells) plus how many of its own `n` thresholds are <= x.  With
 * about four cells a threshold most cells hold none or one, whose value is
 * stored in the cell so that the common case reads 16 bytes and nothing
 * else.  The index is built once on the host, when the histogram is
 * opened; the kernels and the tests call the lookup below, which is the
 * same code on both.
 *
 * Arrays the server would search differently from a sorted one (unsorted,
 * or with a NaN), and arrays whose span does not fit a double (infinite
 * thresholds, or a span that overflows), get no index: cells = 0, and the
 * kernels keep the step-for-step search.
 *
 * Only libc headers; compiled by g++ and nvcc.
 */
#ifndef GH_THRESHOLD_INDEX_H
#define GH_THRESHOLD_INDEX_H

#include <cstddef>
#include <cstdint>

#include "bucket.h"
#include "threshold_bucket.h"

namespace gh {

/* Where the cells lie on the axis; cells == 0: the thresholds have no index. */
struct ThresholdIndex {
    double origin; /* the first threshold */
    double scale;  /* cells / (last - first) */
    int32_t cells;
};

/* One cell: 16 bytes, so that a kernel reads it in one load. */
struct alignas(16) ThresholdCell {
    double first; /* thresholds[base] where n > 0 */
    int32_t base; /* thresholds in lower cells */
    int32_t n;    /* thresholds in this cell */
};

static_assert(sizeof(ThresholdCell) == 16 && offsetof(ThresholdCell, base) == 8 && offsetof(ThresholdCell, n) == 12,
              "the kernels read a cell as two doubles");

/*
 * Cells per threshold, and at most this many cells: 32 MB of device memory
 * for an index the kernels read from L2, 96 KB for one small enough that
 * every block keeps a copy in shared memory (room left for the counters).
 */
constexpr int32_t kThresholdCellsPerThreshold = 4;
constexpr int32_t kMaxThresholdCells = int32_t(1) << 21;
constexpr int32_t kSharedThresholdCells = 6144;

/* The cell of a value that is not NaN. */
GH_HOST_DEVICE int32_t threshold_cell(double x, const ThresholdIndex &ix)
{
    const double v = detail::mul(detail::sub(x, ix.origin), ix.scale);
    if (!(v > 0))
        return 0;
    if (v >= static_cast<double>(ix.cells))
        return ix.cells - 1;
    return static_cast<int32_t>(v);
}

/* The bin of x (not NaN) whose cell is `cell`: its base plus its thresholds <= x, by the server's steps. */
GH_HOST_DEVICE int32_t threshold_bucket_in_cell(double x, const ThresholdCell &cell, const double *thresholds)
{
    if (cell.n == 0 || x < cell.first)
        return cell.base;
    int32_t left = cell.base + 1, right = cell.base + cell.n;
    while (left < right) {
        int32_t mid = (left + right) / 2;
        threshold_step(x, thresholds[mid], mid, left, right);
    }
    return left;
}

/* width_bucket(x, thresholds) through the index: what threshold_bucket() returns, for indexed thresholds. */
GH_HOST_DEVICE int32_t indexed_threshold_bucket(double x, const double *thresholds, int32_t count,
                                                const ThresholdIndex &ix, const ThresholdCell *cells)
{
    if (x != x) /* NaN: at or above every threshold, as threshold_bucket() */
        return count;
    return threshold_bucket_in_cell(x, cells[threshold_cell(x, ix)], thresholds);
}

/*
 * Whether and how to index `count` thresholds: sorted ascending (equal
 * neighbours allowed), none NaN or infinite, a span that is finite and not
 * zero; in at most max_cells cells.  Host code; reads every threshold once.
 */
inline ThresholdIndex plan_threshold_index(const double *thresholds, int32_t count,
                                           int32_t max_cells = kMaxThresholdCells)
{
    const ThresholdIndex none{0, 0, 0};
    if (count < 2)
        return none;
    for (int32_t i = 0; i < count; i++) {
        if (!detail::is_finite(thresholds[i]))
            return none;
        if (i > 0 && !(thresholds[i - 1] <= thresholds[i]))
            return none;
    }
    const double span = thresholds[count - 1] - thresholds[0];
    if (!(span > 0) || !detail::is_finite(span))
        return none;
    int64_t cells = static_cast<int64_t>(count) * kThresholdCellsPerThreshold;
    if (cells > max_cells)
        cells = max_cells;
    if (cells < 1)
        return none;
    const double scale = static_cast<double>(cells) / span;
    if (!(scale > 0) || !detail::is_finite(scale))
        return none;
    return ThresholdIndex{thresholds[0], scale, static_cast<int32_t>(cells)};
}

/* Fills ix.cells cells for thresholds that plan_threshold_index() indexed as ix. */
inline void fill_threshold_index(const double *thresholds, int32_t count, const ThresholdIndex &ix,
                                 ThresholdCell *cells)
{
    int32_t i = 0;
    for (int32_t c = 0; c < ix.cells; c++) {
        ThresholdCell &cell = cells[c];
        cell.base = i;
        cell.first = i < count ? thresholds[i] : 0.0;
        /* the thresholds' cells never decrease, and those below c were taken by earlier cells */
        while (i < count && threshold_cell(thresholds[i], ix) == c)
            i++;
        cell.n = i - cell.base;
    }
}

/*
 * Segments: a line through the thresholds of each piece of the axis, so
 * that most values find their bin from a small table in shared memory and
 * never read the cells (which, for many thousands of thresholds, live in
 * device memory: one random L2 read a value bounds the kernels there at
 * 11 to 26 % of the read ceiling, docs/performance.md#what-the-kernel-choices-rest-on).
 *
 * The axis is cut into segments as into cells (threshold_cell(), with a
 * ThresholdIndex of its own): thresholds of lower segments lie below x,
 * of higher ones above it.  In x's segment, holding t_0 <= ... <= t_(n-1)
 * from `base` on, m(x) = (x - a) * s in correctly rounded doubles is
 * monotone in x, and the host has measured delta >= |m(t_j) - j| for every
 * j, with delta < 0.5 (so no two thresholds are equal).  m(t) < m(x)
 * implies t < x, and m(t) > m(x) implies t > x.  So m(x) < -delta puts x
 * below every t_j (m(t_j) >= j - delta >= -delta); with f = floor(m(x)) in
 * [0, n) and delta < m(x) - f < 1 - delta, m(t_f) <= f + delta < m(x) <
 * f + 1 - delta <= m(t_(f+1)), so exactly f + 1 of them are at or below x;
 * f >= n puts x above them all.  Anything else (a value within delta of a
 * threshold's place, a segment whose line fits badly) answers -1: the
 * caller asks the cells, which are exact everywhere.  Evenly spaced
 * thresholds fit a line to a few ulps; any sorted array is answered
 * exactly, only more often by the cells.
 */
struct alignas(16) ThresholdSegment {
    double a, s;  /* m(x) = (x - a) * s */
    double delta; /* >= |m(t_j) - j| for the segment's thresholds; the line is used only below 0.5 */
    int32_t base; /* thresholds in lower segments */
    int32_t n;    /* thresholds in this one; -1: no usable line (ask the cells) */
};

static_assert(sizeof(ThresholdSegment) == 32, "the kernels copy segments as 16-byte pairs");

/* Segments the kernels keep in shared memory beside many thresholds' counters (16 KB). */
constexpr int32_t kThresholdSegments = 512;

/* The bin of x (not NaN) in segment g by its line, or -1 where the line cannot tell. */
GH_HOST_DEVICE int32_t segment_bucket(double x, const ThresholdSegment &g)
{
    if (g.n <= 0)
        return g.n == 0 ? g.base : -1;
    const double m = detail::mul(detail::sub(x, g.a), g.s);
    if (m < -g.delta)
        return g.base;
    const double f = detail::floor_of(m);
    if (f >= static_cast<double>(g.n))
        return g.base + g.n;
    if (f < 0) /* -delta <= m(x) < 0: x may be t_0 */
        return -1;
    const double fraction = detail::sub(m, f); /* exact: 0 <= f <= m < n <= 2^31 */
    if (fraction > g.delta && detail::add(fraction, g.delta) < 1.0) /* the sum rounds to 1 if it reaches 1 */
        return g.base + static_cast<int32_t>(f) + 1;
    return -1;
}

/*
 * Fills `segments` segments over the span of thresholds that
 * plan_threshold_index() indexed (sorted, finite, a span whose cells'
 * scale is finite; segments no more than its cells); *ix says where they
 * lie.  Host code.
 */
inline void fill_threshold_segments(const double *thresholds, int32_t count, int32_t segments, ThresholdIndex *ix,
                                    ThresholdSegment *out)
{
    *ix = ThresholdIndex{thresholds[0], static_cast<double>(segments) / (thresholds[count - 1] - thresholds[0]),
                         segments};
    int32_t i = 0;
    for (int32_t g = 0; g < segments; g++) {
        ThresholdSegment &seg = out[g];
        seg.base = i;
        while (i < count && threshold_cell(thresholds[i], *ix) == g)
            i++;
        const int32_t n = i - seg.base;
        const double *t = thresholds + seg.base;
        seg.n = n;
        seg.a = n > 0 ? t[0] : 0.0;
        seg.s = n > 1 ? static_cast<double>(n - 1) / (t[n - 1] - t[0]) : 1.0;
        seg.delta = 0.0;
        if (n == 0)
            continue;
        if (!(seg.s > 0) || !detail::is_finite(seg.s)) {
            seg.n = -1;
            continue;
        }
        double worst = 0.0;
        for (int32_t j = 0; j < n; j++) {
            const double m = detail::mul(detail::sub(t[j], seg.a), seg.s);
            const double d = std::fabs(m - static_cast<double>(j)); /* within half an ulp of the exact gap */
            if (!(d <= worst))
                worst = d; /* NaN too: then nothing below passes */
        }
        seg.delta = std::nextafter(worst, INFINITY); /* above the exact gap */
        if (!(seg.delta < 0.5))
            seg.n = -1;
    }
}

/* Where thresholds indexed on the device live: what the kernels read. */
struct DeviceThresholds {
    const double *thresholds;   /* count values, device memory */
    int32_t count;
    ThresholdIndex index;       /* index.cells == 0: none */
    const ThresholdCell *cells; /* index.cells cells, device memory */
    ThresholdIndex lines;       /* segments (lines.cells of them); 0: none */
    const ThresholdSegment *segments; /* device memory */
};

} // namespace gh

#endif /* GH_THRESHOLD_INDEX_H */
