/*
 * heap_blocks.h: the heap reader's next block, for heap_reader.cpp only.
 *
 * heap_reader.h is the reader's door; this header is what its two files
 * share: heap_blocks.cpp decides which block comes next (the allocation,
 * the BRIN bitmap, the block check, the visibility map and its probes, the
 * blocks given back), heap_reader.cpp pins, locks and reads it.
 */
#ifndef GH_SCAN_HEAP_BLOCKS_H
#define GH_SCAN_HEAP_BLOCKS_H

#include "heap_reader_state.h"

namespace gpu_histogram {

/*
 * The scan's next block, and its map LSN: one given back first
 * (*given_back), else the next allocated; false when none is left.
 * *pin: the block check wants it read pinned, not probed.
 */
bool heap_blocks_take(HeapReader *r, BlockNumber *block, XLogRecPtr *vm, bool *given_back, bool *pin);

} // namespace gpu_histogram

#endif /* GH_SCAN_HEAP_BLOCKS_H */
