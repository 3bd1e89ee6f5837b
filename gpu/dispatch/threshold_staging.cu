/*
 * threshold_staging.cu: sorted thresholds on the device, with the index
 * and segments that let most values find their bin without a search
 * (formulas/threshold_index.h): their size, and their copy from the host
 * into the backend's buffer.  Kept apart from the launchers because it
 * only prepares memory.
 */
#include <new>

#include "kernel_plans.cuh"

namespace gh {

using plans::kAllThresholdsUpTo;

namespace {

/*
 * The index when the thresholds get one (an array it covers): for up to
 * kAllThresholdsUpTo, small enough for shared memory, where the search's
 * dozen steps through shared memory read at 10 % of the read ceiling at
 * 4,096 thresholds (docs/performance.md#what-the-kernel-choices-rest-on); above, in device memory.
 */
ThresholdIndex index_for(const double *thresholds, int32_t count)
{
    return plan_threshold_index(thresholds, count,
                                count <= kAllThresholdsUpTo ? kSharedThresholdCells : kMaxThresholdCells);
}

/* The index's cells start 16-byte aligned after the thresholds; the segments follow them. */
size_t index_offset(int32_t count)
{
    return (sizeof(double) * static_cast<size_t>(count) + 15) / 16 * 16;
}

/* Segments for the thresholds whose cells stay in device memory (threshold_index.h). */
int32_t segments_for(const ThresholdIndex &ix, int32_t count)
{
    return ix.cells > 0 && count > kAllThresholdsUpTo ? kThresholdSegments : 0;
}

} // namespace

size_t threshold_device_bytes(const double *thresholds, int32_t count)
{
    const ThresholdIndex ix = index_for(thresholds, count);
    return index_offset(count) + sizeof(ThresholdCell) * static_cast<size_t>(ix.cells) +
           sizeof(ThresholdSegment) * static_cast<size_t>(segments_for(ix, count));
}

cudaError_t stage_thresholds(const double *thresholds, int32_t count, void *device, cudaStream_t stream,
                             DeviceThresholds *out)
{
    char *base = static_cast<char *>(device);
    DeviceThresholds t{reinterpret_cast<const double *>(base), count, index_for(thresholds, count), nullptr,
                       ThresholdIndex{0, 0, 0}, nullptr};
    cudaError_t err = cudaSuccess;
    /* from pageable memory: each copy returns once its source has been read */
    if (count > 0)
        err = cudaMemcpyAsync(base, thresholds, sizeof(double) * static_cast<size_t>(count), cudaMemcpyHostToDevice,
                              stream);
    if (err == cudaSuccess && t.index.cells > 0) {
        ThresholdCell *cells = new (std::nothrow) ThresholdCell[static_cast<size_t>(t.index.cells)];
        if (cells == nullptr)
            return cudaErrorMemoryAllocation;
        fill_threshold_index(thresholds, count, t.index, cells);
        t.cells = reinterpret_cast<const ThresholdCell *>(base + index_offset(count));
        err = cudaMemcpyAsync(base + index_offset(count), cells, sizeof(ThresholdCell) * t.index.cells,
                              cudaMemcpyHostToDevice, stream);
        delete[] cells;
    }
    const int32_t segments = segments_for(t.index, count);
    if (err == cudaSuccess && segments > 0) {
        ThresholdSegment *lines = new (std::nothrow) ThresholdSegment[static_cast<size_t>(segments)];
        if (lines == nullptr)
            return cudaErrorMemoryAllocation;
        fill_threshold_segments(thresholds, count, segments, &t.lines, lines);
        char *at = base + index_offset(count) + sizeof(ThresholdCell) * static_cast<size_t>(t.index.cells);
        t.segments = reinterpret_cast<const ThresholdSegment *>(at);
        err = cudaMemcpyAsync(at, lines, sizeof(ThresholdSegment) * static_cast<size_t>(segments),
                              cudaMemcpyHostToDevice, stream);
        delete[] lines;
    }
    if (err == cudaSuccess)
        *out = t;
    return err;
}

} // namespace gh
