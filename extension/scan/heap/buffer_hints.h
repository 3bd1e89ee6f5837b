/*
 * buffer_hints.h: which shared buffer held each block of a table the last
 * time this backend scanned it.
 *
 * Pinning a page through ReadBuffer looks its block up in the buffer
 * mapping table: a hash probe under a partition lock, two cache misses
 * that nothing can prefetch, about half of the host's work for a page the
 * GPU parses.  A dashboard reads the same tables again and again, and
 * their pages mostly stay where they were: knowing the buffer beforehand,
 * the scan pins it with ReadRecentBuffer(), which checks the buffer's tag
 * under its header lock and so is never wrong, and it can ask for the
 * buffer's descriptor and page header a few pages ahead.  A hint that has
 * gone stale costs one failed check and the ordinary lookup.
 *
 * Each backend keeps the hints of the few tables it scanned last, within
 * a bound tied to shared_buffers.  A parallel scan shares one array
 * through its DSM: the leader fills it from its own hints, every
 * participant records what it pins there, and the leader keeps the result.
 */
#ifndef GH_SCAN_BUFFER_HINTS_H
#define GH_SCAN_BUFFER_HINTS_H

#include "../../pg_headers.h"

extern "C" {
#include "storage/bufmgr.h"
#include "utils/rel.h"
}

namespace gpu_histogram {

/* The hints for one scan: buffers[block], InvalidBuffer where unknown. */
struct BufferHints {
    Buffer *buffers; /* NULL: no hints for this scan */
    BlockNumber nblocks;
};

/*
 * This backend's hints for rel's first nblocks blocks, kept from its last
 * scans; none for temporary tables, or tables too big for shared buffers
 * to hold.  Valid until the next call.
 */
BufferHints buffer_hints_local(Relation rel, BlockNumber nblocks);

/* The bytes a parallel scan's shared hints take for rel's first nblocks blocks. */
Size buffer_hints_shared_size(Relation rel, BlockNumber nblocks);

/*
 * Lays the shared hints out at space (buffer_hints_shared_size bytes),
 * filled from the leader's own, and returns them.
 */
BufferHints buffer_hints_share(Relation rel, BlockNumber nblocks, void *space);

/* The shared hints that buffer_hints_share laid out at space. */
BufferHints buffer_hints_attach(void *space);

/* The leader keeps what the participants of a parallel scan recorded. */
void buffer_hints_keep(Relation rel, const BufferHints &shared);

/*
 * Pins block of rel, as ReadBufferExtended(rel, MAIN_FORKNUM, block,
 * RBM_NORMAL, strategy) would, through its hint where that buffer still
 * holds the block, and records the buffer as its hint.
 */
Buffer buffer_hints_read(const BufferHints &hints, Relation rel, BlockNumber block, BufferAccessStrategy strategy);

/* Asks for the hinted buffer's descriptor and page header: block is read soon. */
void buffer_hints_prefetch(const BufferHints &hints, BlockNumber block);

} // namespace gpu_histogram

#endif /* GH_SCAN_BUFFER_HINTS_H */
