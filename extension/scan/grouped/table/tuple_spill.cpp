/*
 * tuple_spill.cpp: the partitions of tuples whose groups waited
 * (tuple_spill.h).
 *
 * A record is the key's length and the tuple's (uint32 each); where the
 * key is kept, its hash (uint64) and bytes; then the tuple's bytes, its
 * header included, so that a pass hands group_agg the tuple as the heap
 * reader did: its values and counts are computed again from it, by the
 * same code, and its group is found by the key it had, or by its key
 * computed again.
 */
#include "tuple_spill.h"

#include "../../../pg_compat.h"

extern "C" {
#include "access/htup_details.h"
#include "miscadmin.h"
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

constexpr int kPartBits = 5;
static_assert((1 << kPartBits) == kSpillParts, "a partition per value of kPartBits bits");

/*
 * The partition of a key's hash at a depth: its top bits first, then the
 * next ones down.  The group table places keys by the hash's low bits, so
 * a partition's keys spread over the whole table of its pass.  Deeper than
 * the hash has bits, the bits are mixed again with the depth.
 */
int part_of(uint64 hash, int depth)
{
    const int shift = 64 - kPartBits * (depth + 1);
    if (shift < 16) {
        hash ^= static_cast<uint64>(depth) * 0x9E3779B97F4A7C15ULL;
        hash ^= hash >> 31;
        hash *= 0xbf58476d1ce4e5b9ULL;
        hash ^= hash >> 29;
        return static_cast<int>(hash >> (64 - kPartBits));
    }
    return static_cast<int>((hash >> shift) & (kSpillParts - 1));
}

/* What was written at the current depth waits for its passes. */
void seal_writing(TupleSpill *sp)
{
    for (int p = 0; p < kSpillParts; p++) {
        if (sp->writing[p] == NULL)
            continue;
        if (sp->nwaiting == sp->waiting_cap) {
            sp->waiting_cap = Max(sp->waiting_cap * 2, kSpillParts);
            sp->waiting = static_cast<SpillPart *>(
                sp->waiting == NULL ? MemoryContextAlloc(sp->cxt, sizeof(SpillPart) * sp->waiting_cap)
                                    : repalloc(sp->waiting, sizeof(SpillPart) * sp->waiting_cap));
        }
        sp->waiting[sp->nwaiting++] = SpillPart{sp->writing[p], sp->written[p], sp->depth};
        sp->writing[p] = NULL;
        sp->written[p] = 0;
    }
}

} // namespace

void tuple_spill_init(TupleSpill *sp, MemoryContext cxt)
{
    memset(sp, 0, sizeof *sp);
    sp->cxt = cxt;
}

void tuple_spill_write(TupleSpill *sp, const SpillKey &key, const HeapTupleData *t)
{
    const int p = part_of(key.hash, sp->depth);
    if (sp->writing[p] == NULL) {
        MemoryContext old = MemoryContextSwitchTo(sp->cxt);
        sp->writing[p] = BufFileCreateTemp(false);
        MemoryContextSwitchTo(old);
    }
    uint64 hash = key.hash;
    uint32 lens[2] = {key.len, t->t_len};
    BufFileWrite(sp->writing[p], lens, sizeof lens);
    if (key.len > 0) {
        BufFileWrite(sp->writing[p], &hash, sizeof hash);
        BufFileWrite(sp->writing[p], const_cast<char *>(key.data), key.len); /* PostgreSQL 15 takes no const */
    }
    BufFileWrite(sp->writing[p], t->t_data, t->t_len);
    sp->written[p]++;
    sp->tuples_written++;
    sp->bytes_written += sizeof lens + (key.len > 0 ? sizeof hash + key.len : 0) + t->t_len;
}

bool tuple_spill_pending(const TupleSpill *sp)
{
    if (sp->nwaiting > 0)
        return true;
    for (int p = 0; p < kSpillParts; p++)
        if (sp->writing[p] != NULL)
            return true;
    return false;
}

bool tuple_spill_begin_pass(TupleSpill *sp)
{
    Assert(sp->reading == NULL);
    seal_writing(sp);
    if (sp->nwaiting == 0)
        return false;
    const SpillPart part = sp->waiting[--sp->nwaiting];
    if (BufFileSeek(part.file, 0, 0, SEEK_SET) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not rewind a gpu_histogram spill file")));
    sp->reading = part.file;
    sp->left = part.tuples;
    sp->depth = part.depth + 1;
    sp->passes++;
    return true;
}

int tuple_spill_read(TupleSpill *sp, HeapTupleData *tuples, SpillKey *keys, int max)
{
    if (sp->reading == NULL)
        return 0;
    if (sp->left == 0) {
        BufFileClose(sp->reading); /* a temporary file: gone once closed */
        sp->reading = NULL;
        return 0;
    }
    /* the keys and tuples of one read lie one after another in buf, each at a MAXALIGNed offset */
    Size used = 0;
    int n = 0;
    uint32 key_lens[MaxHeapTuplesPerPage], lens[MaxHeapTuplesPerPage];
    Size at[MaxHeapTuplesPerPage];
    max = Min(max, MaxHeapTuplesPerPage);
    while (n < max && sp->left > 0) {
        uint32 two[2];
        GH_BUFFILE_READ_EXACT(sp->reading, two, sizeof two);
        keys[n].hash = 0;
        if (two[0] > 0)
            GH_BUFFILE_READ_EXACT(sp->reading, &keys[n].hash, sizeof keys[n].hash);
        const Size need = used + MAXALIGN(two[0]) + MAXALIGN(two[1]);
        if (need > sp->buf_cap) {
            Size cap = Max(sp->buf_cap * 2, Max(need, static_cast<Size>(BLCKSZ)));
            sp->buf = static_cast<char *>(sp->buf == NULL ? MemoryContextAlloc(sp->cxt, cap)
                                                          : repalloc(sp->buf, cap));
            sp->buf_cap = cap;
        }
        GH_BUFFILE_READ_EXACT(sp->reading, sp->buf + used, two[0]);
        GH_BUFFILE_READ_EXACT(sp->reading, sp->buf + used + MAXALIGN(two[0]), two[1]);
        key_lens[n] = two[0];
        lens[n] = two[1];
        at[n] = used;
        used = need;
        n++;
        sp->left--;
    }
    /* pointers only once the buffer has stopped moving */
    for (int i = 0; i < n; i++) {
        keys[i].data = sp->buf + at[i];
        keys[i].len = key_lens[i];
        tuples[i].t_len = lens[i];
        ItemPointerSetInvalid(&tuples[i].t_self);
        tuples[i].t_tableOid = InvalidOid;
        tuples[i].t_data = reinterpret_cast<HeapTupleHeader>(sp->buf + at[i] + MAXALIGN(key_lens[i]));
    }
    return n;
}

void tuple_spill_discard(TupleSpill *sp)
{
    for (int p = 0; p < kSpillParts; p++) {
        if (sp->writing[p] != NULL)
            BufFileClose(sp->writing[p]);
        sp->writing[p] = NULL;
        sp->written[p] = 0;
    }
    for (int i = 0; i < sp->nwaiting; i++)
        BufFileClose(sp->waiting[i].file);
    sp->nwaiting = 0;
    if (sp->reading != NULL)
        BufFileClose(sp->reading);
    sp->reading = NULL;
    sp->left = 0;
    sp->depth = 0;
}

} // namespace gpu_histogram
