/*
 * tuple_spill.h: the tuples of a grouped scan whose groups found no room
 * under the memory bound, kept in temporary files until the groups in
 * memory are done.
 *
 * A group's cells are its histograms' counters, nbins + 2 of them each: a
 * group of 12,000 buckets takes 96 kB, and 4 MB of work_mem holds about 40
 * of them.  Emitting or leaving every group whenever the table filled, and
 * starting again, wrote the same groups over and over: 100,000 rows
 * cycling through 100 such groups wrote gigabytes of temporary files until
 * temp_file_limit stopped the query, where HashAggregate spilled the rows
 * once and took 61 ms.  So the scan does what HashAggregate does
 * (nodeAgg.c's spill): once the table is full it takes no new group; a
 * tuple of a group already there is counted as before, and any other is
 * written here, whole, to one of 32 partitions chosen by the top bits of
 * its key's hash.  Where PostgreSQL's executor may evaluate the key
 * (Grafana's epoch minute), the key goes with it, as HashAggregate spills
 * its projected input, so that it is not evaluated again; other keys are
 * computed again from the tuple, which costs less than writing them.  When the scan has read the table and emitted (or left)
 * its groups, each partition is read back into an empty table in its turn
 * (a pass); tuples of groups that do not fit then go to
 * partitions of the next depth, split by the next bits of the hash.  A
 * tuple is written once per depth it reaches, and every pass finishes at
 * least the groups that fit, so the passes end.
 *
 * The files are BufFileCreateTemp's: private to this process, counted
 * against temp_file_limit, and removed at the end of the transaction after
 * an ERROR or a cancel.
 */
#ifndef GH_SCAN_TUPLE_SPILL_H
#define GH_SCAN_TUPLE_SPILL_H

#include "../../../pg_headers.h"

extern "C" {
#include "access/htup.h"
#include "storage/buffile.h"
}

namespace gpu_histogram {

/* Partitions at each depth: as HashAggregate's HASHAGG_MAX_PARTITIONS is to its spill, a few 8 kB buffers. */
constexpr int kSpillParts = 32;

/* A spilled tuple's group key: its hash, and the bytes the group table keeps (group_table.h), or none (len 0). */
struct SpillKey {
    uint64 hash;
    const char *data;
    uint32 len;
};

/* A written partition, waiting for its pass. */
struct SpillPart {
    BufFile *file;
    uint64 tuples;
    int depth;
};

struct TupleSpill {
    MemoryContext cxt;        /* the files' handles, the read buffer and the list of waiting partitions */
    int depth;                /* the depth the next writes go to: 0 from the scan, d + 1 in a pass over depth d */
    BufFile *writing[kSpillParts]; /* the partitions of `depth` being written (NULL: none yet) */
    uint64 written[kSpillParts];
    SpillPart *waiting;       /* partitions written, their passes to come (a stack: the deepest first) */
    int nwaiting;
    int waiting_cap;
    BufFile *reading;         /* the partition of the pass in progress */
    uint64 left;              /* ... its tuples not yet read */
    char *buf;                /* the keys and tuples of the last read */
    Size buf_cap;
    /* what EXPLAIN ANALYZE reports */
    uint64 tuples_written;    /* all depths: a tuple counts once per depth it reaches */
    uint64 bytes_written;
    uint32 passes;
};

/* An empty spill whose handles live in cxt. */
void tuple_spill_init(TupleSpill *sp, MemoryContext cxt);

/* Writes t and its key to the partition of the current depth that the key's hash chooses. */
void tuple_spill_write(TupleSpill *sp, const SpillKey &key, const HeapTupleData *t);

/* Whether tuples wait for a pass. */
bool tuple_spill_pending(const TupleSpill *sp);

/*
 * Starts the pass over the next partition: what was written since the
 * last pass waits for its own, and new writes go one depth deeper.  false
 * if no tuple waits.
 */
bool tuple_spill_begin_pass(TupleSpill *sp);

/*
 * Up to max tuples of the pass into tuples[], and their keys into keys[],
 * valid until the next call; 0 at the partition's end, which closes (and
 * so removes) its file.
 */
int tuple_spill_read(TupleSpill *sp, HeapTupleData *tuples, SpillKey *keys, int max);

/* Closes every file and forgets every tuple (a rescan, or the scan's end). */
void tuple_spill_discard(TupleSpill *sp);

} // namespace gpu_histogram

#endif /* GH_SCAN_TUPLE_SPILL_H */
