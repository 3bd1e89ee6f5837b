/*
 * batch_pins.h: the pins a batch of pages keeps while the GPU reads them,
 * held by the batch itself rather than by the buffer manager's books.
 *
 * The buffer manager tracks each pin a backend holds twice: in its private
 * reference counts (an array of 8, then a hash table) and in the resource
 * owner (an array, hashed past 64).  A scan holds up to two batches of
 * 2,048 pages pinned, so every pin and unpin went through both hash tables:
 * four probes a page, a third of the host's work for a page the GPU parses
 * (perf on the dev VM).
 *
 * So a page taken into a batch gets a second pin that only the shared
 * reference count knows of, and its ordinary pin is released at once: the
 * buffer manager's books never hold more than the reader's page or two.
 * The shared count is what every other process looks at (eviction, a
 * cleanup lock, dropping a relation), so to them the page is pinned as
 * before.  Dropping such a pin does what UnpinBuffer() does to the shared
 * state, including waking a VACUUM that waits for a cleanup lock.
 *
 * Nobody else releases these pins: the batch releases them when it is done,
 * and page_gpu.cpp's memory context callback after an ERROR, a cancel or a
 * FATAL exit (the executor's memory is freed on each).  As a last line,
 * batch_pins_track() registers the arrays, and whatever is still listed at
 * process exit is released then.
 */
#ifndef GH_SCAN_BATCH_PINS_H
#define GH_SCAN_BATCH_PINS_H

#include "../../pg_headers.h"

extern "C" {
#include "storage/bufmgr.h"
}

namespace gpu_histogram {

/* Adds a pin of the batch's own to a shared buffer this backend has pinned the ordinary way. */
void batch_pin_add(Buffer buffer);

/* Drops a pin batch_pin_add() added. */
void batch_pin_drop(Buffer buffer);

/*
 * An array of buffers holding such pins (or InvalidBuffer), *count of them, listed for the
 * exit backstop while tracked.  The pins are the array owner's to drop.
 */
struct BatchPinList {
    Buffer *const *buffers;
    int *count; /* set to 0 once the exit backstop has dropped them */
    BatchPinList *next;
};

void batch_pins_track(BatchPinList *list);
void batch_pins_untrack(BatchPinList *list);

} // namespace gpu_histogram

#endif
