/*
 * leaf_group.h: what the leaves of one Append share within a process.
 *
 * The planner numbers an Append whose leaves must act together (their held
 * errors, leaf_errors.h; their float sums, leaf_merge.h); each leaf's scan
 * finds its Append's entry here by its executor state and that number.
 * Every leaf of our Append is initialized (ExecInitNode) before any of
 * them runs, in the leader and in each worker alike, so a count of the
 * leaves that joined an entry is the Append's number of leaves by the
 * time the first one reads a row.
 *
 * The entries live in their query's memory and leave this process's list
 * when that memory goes (after the query, or an ERROR), so that an
 * executor state at an address used before never finds an old one.
 */
#ifndef GH_SCAN_LEAF_GROUP_H
#define GH_SCAN_LEAF_GROUP_H

#include "../../pg_headers.h"

extern "C" {
#include "nodes/execnodes.h"
}

namespace gpu_histogram {

/* What an entry is for: each kind has its own struct. */
enum class LeafGroupKind : uint8 {
    errors, /* leaf_errors.cpp */
    merge,  /* leaf_merge.cpp */
};

/*
 * The entry of kind for the Append numbered group (never 0) in estate:
 * `bytes` zeroed bytes in the query's memory, made by the first leaf that
 * asks.
 */
void *leaf_group_entry(EState *estate, uint32 group, LeafGroupKind kind, Size bytes);

} // namespace gpu_histogram

#endif /* GH_SCAN_LEAF_GROUP_H */
