/*
 * shared_groups.cpp: a grouped scan's groups, left in the query's shared
 * memory area (or temporary files) and merged by its processes, a share
 * each (shared_groups.h).
 */
#include "shared_groups.h"

#include "../../../pg_compat.h"

extern "C" {
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"
}

namespace gpu_histogram {

namespace {

/*
 * Groups are placed in buckets by the top bits of their key hash (the low
 * bits place them in a group table's slots); a share is every bucket b
 * with b % shares == index.  256 buckets split among 9 processes differ
 * by at most one bucket in 28.
 */
constexpr int kBucketBits = 8;
constexpr int kBuckets = 1 << kBucketBits;

inline int bucket_of(uint64 hash)
{
    return static_cast<int>(hash >> (64 - kBucketBits));
}

/*
 * One process's groups at one moment: this, then its records by bucket,
 * in one chunk of the area; or this in the area and the records in the
 * process's file `file` from file_offset on (bucket_start's offsets as if
 * they followed this).
 */
struct Dump {
    dsa_pointer next;
    int32 ncells;
    int32 file;   /* -1: the records follow in the area */
    uint64 file_offset;
    uint64 bucket_start[kBuckets + 1]; /* bucket b's records: [bucket_start[b], bucket_start[b + 1]) from the chunk */
};

/* Each group: this, its ncells counters, then its key's bytes, padded to MAXALIGN. */
struct Record {
    uint64 hash;
    uint32 keylen;
    uint32 unused;
};

constexpr Size kDumpHead = MAXALIGN(sizeof(Dump));

Size record_bytes(int32 ncells, uint32 keylen)
{
    return sizeof(Record) + sizeof(int64) * static_cast<Size>(ncells) + MAXALIGN(keylen);
}

Dump *dump_at(dsa_area *area, dsa_pointer dp)
{
    return static_cast<Dump *>(dsa_get_address(area, dp));
}

void file_name(char *name, Size size, int32 file)
{
    snprintf(name, size, "gh_groups.%d", file);
}

/* t's records by bucket: bucket b's at out + start[b] - skip. */
void write_records(const GroupTable *t, const uint64 *start, char *out, Size skip)
{
    uint64 at[kBuckets];
    memcpy(at, start, sizeof at);
    const Size cells = sizeof(int64) * static_cast<Size>(t->ncells);
    for (uint32 i = 0; i < t->ngroups; i++) {
        const ScanGroup *g = t->groups[i];
        const int b = bucket_of(g->hash);
        char *p = out + (at[b] - skip);
        at[b] += record_bytes(t->ncells, g->keylen);
        Record *r = reinterpret_cast<Record *>(p);
        r->hash = g->hash;
        r->keylen = g->keylen;
        r->unused = 0;
        p += sizeof(Record);
        memcpy(p, g->cells, cells);
        p += cells;
        memcpy(p, g->key, g->keylen);
    }
}

/* What is done with each record of a share: added into a table, or written to a part's file. */
struct RecordSink {
    GroupTable *table;  /* when set: add into it */
    BufFile **parts;    /* else: write to parts[hash's part] */
    uint64 *part_records;
    uint32 nparts;
};

inline uint32 part_of(uint64 hash, uint32 nparts)
{
    return static_cast<uint32>(hash >> 24) % nparts;
}

void add_record(GroupTable *t, const Record *r)
{
    const char *p = reinterpret_cast<const char *>(r);
    const int64 *c = reinterpret_cast<const int64 *>(p + sizeof(Record));
    const char *key = p + sizeof(Record) + sizeof(int64) * static_cast<Size>(t->ncells);
    group_table_combine(t, group_table_insert_always(t, key, r->keylen, r->hash), c);
}

/* The records in [p, stop), each of ncells counters, into the sink. */
void sink_records(const RecordSink &sink, int32 ncells, const char *p, const char *stop)
{
    while (p < stop) {
        const Record *r = reinterpret_cast<const Record *>(p);
        const Size size = record_bytes(ncells, r->keylen);
        if (sink.table != NULL) {
            add_record(sink.table, r);
        } else {
            const uint32 part = part_of(r->hash, sink.nparts);
            BufFileWrite(sink.parts[part], const_cast<char *>(p), size);
            sink.part_records[part]++;
        }
        p += size;
    }
}

/* Every record of the share, from the area and the processes' files, into the sink. */
void sink_share(SharedGroups *sg, dsa_area *area, const GroupShare &share, int32 ncells, const RecordSink &sink)
{
    SpinLockAcquire(&sg->mutex);
    dsa_pointer dp = sg->dumps;
    /* final: every process finished */
    const int32 nfiles = sg->nfiles;
    SpinLockRelease(&sg->mutex);
    char *buffer = NULL;
    Size buffer_size = 0;
    /* the processes' files, each opened when first needed */
    BufFile **files = nfiles > 0 ? static_cast<BufFile **>(palloc0(sizeof(BufFile *) * nfiles)) : NULL;
    while (DsaPointerIsValid(dp)) {
        const char *base = static_cast<const char *>(dsa_get_address(area, dp));
        const Dump *d = reinterpret_cast<const Dump *>(base);
        if (d->ncells != ncells)
            elog(ERROR, "gpu_histogram scan: a process left groups of %d counters, not %d", d->ncells, ncells);
        BufFile *f = NULL;
        if (d->file >= 0) {
            if (d->file >= nfiles)
                elog(ERROR, "gpu_histogram scan: groups left in file %d of %d", d->file, nfiles);
            if (files[d->file] == NULL) {
                char name[MAXPGPATH];
                file_name(name, sizeof name, d->file);
                files[d->file] = BufFileOpenFileSet(&sg->files.fs, name, O_RDONLY, false);
            }
            f = files[d->file];
        }
        for (int b = share.index; b < kBuckets; b += share.shares) {
            const Size len = d->bucket_start[b + 1] - d->bucket_start[b];
            if (len == 0)
                continue;
            if (f == NULL) {
                sink_records(sink, ncells, base + d->bucket_start[b], base + d->bucket_start[b + 1]);
                continue;
            }
            if (len > buffer_size) {
                if (buffer != NULL)
                    pfree(buffer);
                buffer = static_cast<char *>(MemoryContextAllocHuge(CurrentMemoryContext, len));
                buffer_size = len;
            }
            /* BufFileSeek finds the segment of an offset past the first */
            if (BufFileSeek(f, 0, static_cast<off_t>(d->file_offset + d->bucket_start[b] - kDumpHead), SEEK_SET) != 0)
                ereport(ERROR, (errcode_for_file_access(),
                                errmsg("gpu_histogram scan: could not seek in a temporary file of groups")));
            GH_BUFFILE_READ_EXACT(f, buffer, len);
            sink_records(sink, ncells, buffer, buffer + len);
        }
        dp = d->next;
    }
    for (int32 i = 0; i < nfiles; i++)
        if (files[i] != NULL)
            BufFileClose(files[i]);
    if (buffer != NULL)
        pfree(buffer);
}

} // namespace

void shared_groups_init(SharedGroups *sg)
{
    SpinLockInit(&sg->mutex);
    sg->joined = 0;
    sg->finished = 0;
    sg->closed = false;
    sg->dumps = InvalidDsaPointer;
    sg->dump_bytes = 0;
    sg->area_bytes = 0;
    sg->nfiles = 0;
    sg->have_files = false;
    ConditionVariableInit(&sg->cv);
}

namespace {

void delete_files(SharedGroups *sg)
{
    if (sg->have_files && sg->nfiles > 0)
        SharedFileSetDeleteAll(&sg->files);
    sg->nfiles = 0;
}

void drop_files(void *arg)
{
    delete_files(static_cast<SharedGroups *>(arg));
}

} // namespace

void shared_groups_init_local_files(SharedGroups *sg, MemoryContext cxt)
{
    SharedFileSetInit(&sg->files, NULL);
    sg->have_files = true;
    MemoryContextCallback *cb = static_cast<MemoryContextCallback *>(MemoryContextAlloc(cxt, sizeof *cb));
    cb->func = drop_files;
    cb->arg = sg;
    MemoryContextRegisterResetCallback(cxt, cb);
}

void shared_groups_init_files(SharedGroups *sg, dsm_segment *seg)
{
    if (seg == NULL)
        return; /* the parallel context fell back to private memory: no worker, no file set */
    SharedFileSetInit(&sg->files, seg);
    sg->have_files = true;
}

void shared_groups_reset(SharedGroups *sg, dsa_area *area)
{
    dsa_pointer dp = sg->dumps;
    /* no area: the only process made one of its own, which went with it */
    while (area != NULL && DsaPointerIsValid(dp)) {
        dsa_pointer next = dump_at(area, dp)->next;
        dsa_free(area, dp);
        dp = next;
    }
    delete_files(sg);
    const bool have_files = sg->have_files;
    shared_groups_init(sg);
    sg->have_files = have_files; /* the set stays set up (registered with the DSM, or the memory callback) */
}

bool shared_groups_join(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    bool late = sg->closed;
    if (!late)
        sg->joined++;
    SpinLockRelease(&sg->mutex);
    return !late;
}

void shared_groups_leave(SharedGroups *sg, dsa_area *area, const GroupTable *t, GroupSpill *spill)
{
    if (t->ngroups == 0)
        return;
    /* each bucket's bytes, then where each starts */
    uint64 start[kBuckets + 1] = {};
    for (uint32 i = 0; i < t->ngroups; i++)
        start[bucket_of(t->groups[i]->hash) + 1] += record_bytes(t->ncells, t->groups[i]->keylen);
    start[0] = kDumpHead;
    for (int b = 0; b < kBuckets; b++)
        start[b + 1] += start[b];
    const Size bytes = start[kBuckets];
    /* the area holds each process's bound once; beyond it the records go to a file */
    const uint64 bound = static_cast<uint64>(get_hash_memory_limit());
    bool to_file = false;
    SpinLockAcquire(&sg->mutex);
    if (sg->have_files && sg->area_bytes + bytes > bound * static_cast<uint64>(Max(sg->joined, 1))) {
        to_file = true;
        if (spill->file == NULL)
            spill->number = sg->nfiles++;
    } else {
        sg->area_bytes += bytes;
    }
    SpinLockRelease(&sg->mutex);
    dsa_pointer dp = dsa_allocate_extended(area, to_file ? kDumpHead : bytes, DSA_ALLOC_HUGE);
    char *base = static_cast<char *>(dsa_get_address(area, dp));
    Dump *d = reinterpret_cast<Dump *>(base);
    d->ncells = t->ncells;
    d->file = -1;
    d->file_offset = 0;
    memcpy(d->bucket_start, start, sizeof start);
    if (!to_file) {
        write_records(t, start, base, 0);
    } else {
        /* the records as if they followed the head, which stays in the area */
        char *records = static_cast<char *>(MemoryContextAllocHuge(CurrentMemoryContext, bytes - kDumpHead));
        write_records(t, start, records, kDumpHead);
        if (spill->file == NULL) {
            char name[MAXPGPATH];
            file_name(name, sizeof name, spill->number);
            spill->file = BufFileCreateFileSet(&sg->files.fs, name);
            spill->written = 0;
        }
        BufFileWrite(spill->file, records, bytes - kDumpHead);
        d->file = spill->number;
        d->file_offset = spill->written;
        spill->written += bytes - kDumpHead;
        pfree(records);
        elog(DEBUG1, "gpu_histogram scan: %u groups left in temporary file %d, %zu bytes", t->ngroups, d->file,
             bytes);
    }
    SpinLockAcquire(&sg->mutex);
    d->next = sg->dumps;
    sg->dumps = dp;
    sg->dump_bytes += bytes;
    SpinLockRelease(&sg->mutex);
}

bool shared_groups_close_alone(SharedGroups *sg)
{
    SpinLockAcquire(&sg->mutex);
    bool alone = sg->joined == 1 && sg->finished == 0 && !DsaPointerIsValid(sg->dumps);
    if (alone) {
        sg->finished = 1;
        sg->closed = true;
    }
    SpinLockRelease(&sg->mutex);
    return alone;
}

void shared_groups_spill_close(GroupSpill *spill)
{
    if (spill->file != NULL)
        BufFileClose(spill->file);
    spill->file = NULL;
}

namespace {

/* Counts the process finished (its number among them in *index): true if it was the last that joined, which closes. */
bool count_finished(SharedGroups *sg, int32 *index)
{
    SpinLockAcquire(&sg->mutex);
    *index = sg->finished++;
    bool last = sg->finished == sg->joined;
    if (last)
        sg->closed = true;
    SpinLockRelease(&sg->mutex);
    return last;
}

} // namespace

GroupShare shared_groups_finish(SharedGroups *sg, GroupSpill *spill)
{
    /* others read the file once this process counts itself finished */
    shared_groups_spill_close(spill);
    GroupShare share{};
    const bool last = count_finished(sg, &share.index);
    if (last) {
        ConditionVariableBroadcast(&sg->cv);
    } else {
        ConditionVariablePrepareToSleep(&sg->cv);
        for (;;) {
            SpinLockAcquire(&sg->mutex);
            bool closed = sg->closed;
            SpinLockRelease(&sg->mutex);
            if (closed)
                break;
            /* interruptible: a cancel, or another process's error reaching the leader, ends the wait */
            ConditionVariableSleep(&sg->cv, PG_WAIT_EXTENSION);
        }
        ConditionVariableCancelSleep();
    }
    SpinLockAcquire(&sg->mutex);
    share.shares = sg->joined; /* closed: no process joins any more */
    share.bytes = sg->dump_bytes;
    SpinLockRelease(&sg->mutex);
    return share;
}

bool shared_groups_done(SharedGroups *sg)
{
    int32 index;
    return count_finished(sg, &index);
}

GroupShare shared_groups_whole(SharedGroups *sg)
{
    GroupShare share{};
    share.index = 0;
    share.shares = 1;
    SpinLockAcquire(&sg->mutex);
    share.bytes = sg->dump_bytes;
    SpinLockRelease(&sg->mutex);
    return share;
}

void shared_groups_merge(SharedGroups *sg, dsa_area *area, GroupTable *t, const GroupShare &share)
{
    RecordSink sink{t, NULL, NULL, 0};
    sink_share(sg, area, share, t->ncells, sink);
}

void shared_groups_partition(SharedGroups *sg, dsa_area *area, const GroupShare &share, int32 ncells,
                             BufFile **parts, uint64 *part_records, uint32 nparts)
{
    RecordSink sink{NULL, parts, part_records, nparts};
    sink_share(sg, area, share, ncells, sink);
}

void shared_groups_merge_part(GroupTable *t, BufFile *part, uint64 records)
{
    if (BufFileSeek(part, 0, 0, SEEK_SET) != 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("gpu_histogram scan: could not seek in a temporary file of groups")));
    Size buffer_size = record_bytes(t->ncells, 64);
    char *buffer = static_cast<char *>(palloc(buffer_size));
    for (uint64 i = 0; i < records; i++) {
        Record head;
        GH_BUFFILE_READ_EXACT(part, &head, sizeof head);
        const Size size = record_bytes(t->ncells, head.keylen);
        if (size > buffer_size) {
            pfree(buffer);
            buffer = static_cast<char *>(MemoryContextAllocHuge(CurrentMemoryContext, size));
            buffer_size = size;
        }
        memcpy(buffer, &head, sizeof head);
        GH_BUFFILE_READ_EXACT(part, buffer + sizeof head, size - sizeof head);
        add_record(t, reinterpret_cast<const Record *>(buffer));
    }
    pfree(buffer);
}

} // namespace gpu_histogram
