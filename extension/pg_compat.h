/*
 * pg_compat.h: what differs between the PostgreSQL majors gpu_histogram
 * builds for (15, 16, 17 and 18), said once.
 *
 * Every other file writes one spelling, the one below, and this header maps
 * it onto the server it is compiled against, so version checks do not
 * spread through the code.  16 follows the same rules but has no server to
 * test against on Debian 12; its branches here are taken from the
 * release's headers, not from a run.
 *
 * Include it after pg_headers.h, and after the PostgreSQL header that
 * declares what a macro here uses (noted at each one).
 */
#ifndef GH_PG_COMPAT_H
#define GH_PG_COMPAT_H

#include "pg_headers.h"

extern "C" {
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#else
#include "storage/relfilenode.h"
#endif
/* 18 moved the ExplainProperty functions and ExplainState out of commands/explain.h */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
}

/* A relation's physical file: RelFileNode until 15, RelFileLocator from 16. */
#if PG_VERSION_NUM >= 160000
using GhRelFile = RelFileLocator;
#define GH_REL_FILE(rel) ((rel)->rd_locator)
#define GH_REL_FILE_EQUALS(a, b) RelFileLocatorEquals(a, b)
#define GH_REL_FILE_PARTS(f) (f).spcOid, (f).dbOid, (f).relNumber
#else
using GhRelFile = RelFileNode;
#define GH_REL_FILE(rel) ((rel)->rd_node)
#define GH_REL_FILE_EQUALS(a, b) RelFileNodeEquals(a, b)
#define GH_REL_FILE_PARTS(f) (f).spcNode, (f).dbNode, (f).relNode
#endif

/*
 * The subtransaction that first gave a relation a new file in this
 * transaction (needs utils/rel.h); 16 renamed relfilenode to relfilelocator.
 */
#if PG_VERSION_NUM >= 160000
#define GH_REL_FIRST_FILE_SUBID(rel) ((rel)->rd_firstRelfilelocatorSubid)
#else
#define GH_REL_FIRST_FILE_SUBID(rel) ((rel)->rd_firstRelfilenodeSubid)
#endif

/*
 * This backend's local transaction id and its PGPROC number (needs
 * storage/proc.h): 17 moved lxid into PGPROC.vxid and replaced
 * PGPROC.pgprocno with the global MyProcNumber.
 */
#if PG_VERSION_NUM >= 170000
#define GH_MY_LXID() (MyProc->vxid.lxid)
#define GH_MY_PROCNO() (MyProcNumber)
#else
#define GH_MY_LXID() (MyProc->lxid)
#define GH_MY_PROCNO() (MyProc->pgprocno)
#endif

/*
 * "snapshot too old" (old_snapshot_threshold) is gone in 17, and with it
 * the check every heap page read had to make.
 */
#if PG_VERSION_NUM >= 170000
#define GH_TEST_FOR_OLD_SNAPSHOT(snapshot, rel, page) ((void) 0)
#else
#define GH_TEST_FOR_OLD_SNAPSHOT(snapshot, rel, page) TestForOldSnapshot(snapshot, rel, page)
#endif

/* The tuples_returned counter of a relation's pending statistics (needs pgstat.h). */
#if PG_VERSION_NUM >= 160000
#define GH_PGSTAT_TUPLES_RETURNED(rel) ((rel)->pgstat_info->counts.tuples_returned)
#else
#define GH_PGSTAT_TUPLES_RETURNED(rel) ((rel)->pgstat_info->t_counts.t_tuples_returned)
#endif

/*
 * An expression of a partitioned table's top parent, rewritten into a
 * leaf's Vars (needs optimizer/appendinfo.h): from 16 the function takes
 * the RelOptInfos rather than their relid sets.
 */
#if PG_VERSION_NUM >= 160000
#define GH_ADJUST_APPENDREL_MULTILEVEL(root, node, leaf, top)                                                          \
    adjust_appendrel_attrs_multilevel(root, node, leaf, top)
#else
#define GH_ADJUST_APPENDREL_MULTILEVEL(root, node, leaf, top)                                                          \
    adjust_appendrel_attrs_multilevel(root, node, (leaf)->relids, (top)->relids)
#endif

/*
 * One Aggref of a planner AggInfo (needs nodes/pathnodes.h): 17 keeps the
 * list of every Aggref that shares the state, whose first member is the one
 * 15 and 16 called representative.
 */
#if PG_VERSION_NUM >= 170000
#define GH_AGGINFO_AGGREF(info) (linitial_node(Aggref, (info)->aggrefs))
#else
#define GH_AGGINFO_AGGREF(info) ((info)->representative_aggref)
#endif

/*
 * How many range table entries EXPLAIN should consider when it decides
 * whether to qualify column names: 18 adds an entry for a grouping step,
 * which core EXPLAIN leaves out of the count (ExplainState.rtable_size).
 */
#if PG_VERSION_NUM >= 180000
#define GH_EXPLAIN_RTABLE_SIZE(es) ((es)->rtable_size)
#else
#define GH_EXPLAIN_RTABLE_SIZE(es) (list_length((es)->rtable))
#endif

/*
 * A walker or mutator as expression_tree_walker() and its kin take it:
 * until 15 an unprototyped function pointer; from 16 the macros cast a
 * typed one themselves.
 */
#if PG_VERSION_NUM >= 160000
#define GH_WALKER(fn) (fn)
#define GH_MUTATOR(fn) (fn)
#else
#define GH_WALKER(fn) reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(fn))
#define GH_MUTATOR(fn) reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(fn))
#endif

/* A bitmap index scan: 18 takes instrumentation (NULL: none). */
#if PG_VERSION_NUM >= 180000
#define GH_INDEX_BEGINSCAN_BITMAP(index, snapshot, nkeys) index_beginscan_bitmap(index, snapshot, NULL, nkeys)
#else
#define GH_INDEX_BEGINSCAN_BITMAP(index, snapshot, nkeys) index_beginscan_bitmap(index, snapshot, nkeys)
#endif

/*
 * Iterating a TIDBitmap's pages in one process: 18 renamed the iterator
 * (TBMPrivateIterator) and fills a caller's result instead of returning
 * its own.  GH_TBM_NEXT sets a BlockNumber and is false at the end.
 */
extern "C" {
#include "nodes/tidbitmap.h"
}
#if PG_VERSION_NUM >= 180000
typedef TBMPrivateIterator GhTbmIterator;
#define GH_TBM_BEGIN(tbm) tbm_begin_private_iterate(tbm)
#define GH_TBM_END(it) tbm_end_private_iterate(it)
static inline bool GH_TBM_NEXT(GhTbmIterator *it, BlockNumber *block)
{
    TBMIterateResult res;
    if (!tbm_private_iterate(it, &res))
        return false;
    *block = res.blockno;
    return true;
}
#else
typedef TBMIterator GhTbmIterator;
#define GH_TBM_BEGIN(tbm) tbm_begin_iterate(tbm)
#define GH_TBM_END(it) tbm_end_iterate(it)
static inline bool GH_TBM_NEXT(GhTbmIterator *it, BlockNumber *block)
{
    TBMIterateResult *res = tbm_iterate(it);
    if (res == NULL)
        return false;
    *block = res->blockno;
    return true;
}
#endif

/*
 * Reads exactly size bytes of a BufFile or raises an error (needs
 * storage/buffile.h): BufFileReadExact from 16; 18 dropped BufFileRead.
 */
#if PG_VERSION_NUM >= 160000
#define GH_BUFFILE_READ_EXACT(file, ptr, size) BufFileReadExact(file, ptr, size)
#else
#define GH_BUFFILE_READ_EXACT(file, ptr, size)                                                                  \
    do {                                                                                                       \
        if (BufFileRead(file, ptr, size) != (size))                                                            \
            ereport(ERROR, (errcode_for_file_access(), errmsg("could not read from a temporary file")));      \
    } while (0)
#endif

#endif /* GH_PG_COMPAT_H */
