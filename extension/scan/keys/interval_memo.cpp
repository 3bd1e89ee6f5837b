/*
 * interval_memo.cpp: a monotone key's verified intervals, kept for the
 * backend (interval_memo.h).
 */
#include "interval_memo.h"

#include <algorithm>

extern "C" {
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

namespace gpu_histogram {

namespace {

/* Most keys the backend remembers intervals of; the least recently opened goes first. */
constexpr int kMaxMemos = 8;

struct Interval {
    int64 from, to; /* [from, to) of the stored column */
    int64 word;
    struct varlena *bytes; /* a bytes key's value, in the memo's memory; NULL for a word key */
};

} // namespace

struct IntervalMemo {
    MemoryContext cxt;
    char *name;          /* the expression's name and the zone's */
    Interval *held;      /* sorted by from, none overlapping */
    int32 n;
    Interval *pending;   /* added since the last commit, in the order found */
    int32 npending, pending_cap;
    int32 last;          /* the interval found last: a table asks in increasing order */
    uint64 opened;
    IntervalMemo *next;
};

namespace {

IntervalMemo *memos;
int nmemos;
uint64 open_clock;
bool stale;
bool registered;
MemoryContext memos_cxt;

void functions_changed(Datum, int, uint32)
{
    stale = true;
}

void drop(IntervalMemo *m)
{
    IntervalMemo **p = &memos;
    while (*p != m)
        p = &(*p)->next;
    *p = m->next;
    nmemos--;
    MemoryContextDelete(m->cxt);
    pfree(m);
}

bool same_key(const Interval &a, const Interval &b)
{
    if (a.bytes == NULL || b.bytes == NULL)
        return a.bytes == b.bytes && a.word == b.word;
    return VARSIZE_ANY_EXHDR(a.bytes) == VARSIZE_ANY_EXHDR(b.bytes) &&
           memcmp(VARDATA_ANY(a.bytes), VARDATA_ANY(b.bytes), VARSIZE_ANY_EXHDR(a.bytes)) == 0;
}

/* a, in cxt, with room for need intervals (*cap of them now) */
Interval *grow(MemoryContext cxt, Interval *a, int32 *cap, int32 need)
{
    if (need <= *cap)
        return a;
    int32 c = Max(64, *cap);
    while (c < need)
        c *= 2;
    *cap = c;
    return static_cast<Interval *>(a == NULL ? MemoryContextAlloc(cxt, sizeof(Interval) * c)
                                             : repalloc(a, sizeof(Interval) * c));
}

/* Empties the memo, its pending intervals kept (the bytes they point to live in a new context). */
void restart(IntervalMemo *m)
{
    MemoryContext fresh = AllocSetContextCreate(memos_cxt, "gpu_histogram key intervals", ALLOCSET_DEFAULT_SIZES);
    Interval *pending = static_cast<Interval *>(MemoryContextAlloc(fresh, sizeof(Interval) * Max(1, m->npending)));
    for (int32 i = 0; i < m->npending; i++) {
        pending[i] = m->pending[i];
        if (pending[i].bytes != NULL) {
            const Size size = VARSIZE_ANY(pending[i].bytes);
            pending[i].bytes = static_cast<struct varlena *>(MemoryContextAlloc(fresh, size));
            memcpy(pending[i].bytes, m->pending[i].bytes, size);
        }
    }
    char *name = MemoryContextStrdup(fresh, m->name);
    MemoryContextDelete(m->cxt);
    m->cxt = fresh;
    m->name = name;
    m->held = NULL;
    m->n = 0;
    m->pending = pending;
    m->pending_cap = Max(1, m->npending);
    m->last = 0;
}

} // namespace

IntervalMemo *interval_memo_open(const char *expression)
{
    if (!registered) {
        CacheRegisterSyscacheCallback(PROCOID, functions_changed, 0);
        memos_cxt = AllocSetContextCreate(TopMemoryContext, "gpu_histogram interval memos", ALLOCSET_SMALL_SIZES);
        registered = true;
    }
    if (stale) {
        while (memos != NULL)
            drop(memos);
        stale = false;
    }
    /* date_trunc('day', ts) and the local fields of a timestamptz answer in the session's zone */
    char *name = psprintf("%s TimeZone=%s", expression, GetConfigOption("TimeZone", false, false));
    IntervalMemo *found = NULL;
    for (IntervalMemo *m = memos; m != NULL; m = m->next)
        if (strcmp(m->name, name) == 0)
            found = m;
    if (found == NULL) {
        if (nmemos >= kMaxMemos) {
            IntervalMemo *oldest = memos;
            for (IntervalMemo *m = memos; m != NULL; m = m->next)
                if (m->opened < oldest->opened)
                    oldest = m;
            drop(oldest);
        }
        MemoryContext cxt = AllocSetContextCreate(memos_cxt, "gpu_histogram key intervals", ALLOCSET_DEFAULT_SIZES);
        found = static_cast<IntervalMemo *>(MemoryContextAllocZero(memos_cxt, sizeof(IntervalMemo)));
        found->cxt = cxt;
        found->name = MemoryContextStrdup(cxt, name);
        found->next = memos;
        memos = found;
        nmemos++;
    }
    pfree(name);
    /* what a table that an error cut short added */
    for (int32 i = 0; i < found->npending; i++)
        if (found->pending[i].bytes != NULL)
            pfree(found->pending[i].bytes);
    found->npending = 0;
    found->last = 0;
    found->opened = ++open_clock;
    return found;
}

bool interval_memo_find(IntervalMemo *m, int64 ts, int64 *to, int64 *word, const struct varlena **bytes)
{
    if (m->n == 0)
        return false;
    int32 i = m->last;
    if (!(m->held[i].from <= ts && (i + 1 == m->n || ts < m->held[i + 1].from))) {
        const Interval *after = std::upper_bound(m->held, m->held + m->n, ts,
                                                 [](int64 v, const Interval &a) { return v < a.from; });
        if (after == m->held)
            return false;
        i = static_cast<int32>(after - m->held) - 1;
        m->last = i;
    }
    const Interval &a = m->held[i];
    if (ts >= a.to)
        return false;
    *to = a.to;
    *word = a.word;
    *bytes = a.bytes;
    return true;
}

void interval_memo_add(IntervalMemo *m, int64 from, int64 to, int64 word, const struct varlena *bytes)
{
    m->pending = grow(m->cxt, m->pending, &m->pending_cap, m->npending + 1);
    Interval &a = m->pending[m->npending++];
    a.from = from;
    a.to = to;
    a.word = word;
    a.bytes = NULL;
    if (bytes != NULL) {
        const Size n = VARSIZE_ANY_EXHDR(bytes);
        a.bytes = static_cast<struct varlena *>(MemoryContextAlloc(m->cxt, VARHDRSZ + n));
        SET_VARSIZE(a.bytes, VARHDRSZ + n);
        memcpy(VARDATA(a.bytes), VARDATA_ANY(bytes), n);
    }
}

void interval_memo_commit(IntervalMemo *m)
{
    if (m->npending == 0)
        return;
    if (m->npending > kIntervalMemoMax) {
        m->npending = 0; /* more than a memo keeps: none of them, and the others go with their memory */
        restart(m);
        return;
    }
    if (m->n + m->npending > kIntervalMemoMax)
        restart(m);
    /* the two runs in one, by where they start, then each run of one key joined */
    Interval *all = static_cast<Interval *>(MemoryContextAlloc(m->cxt, sizeof(Interval) * (m->n + m->npending)));
    auto by_from = [](const Interval &a, const Interval &b) { return a.from < b.from; };
    std::sort(m->pending, m->pending + m->npending, by_from); /* in place: no buffer of its own */
    std::merge(m->held, m->held + m->n, m->pending, m->pending + m->npending, all, by_from);
    int32 n = 0;
    for (int32 i = 0; i < m->n + m->npending; i++) {
        const Interval &a = all[i];
        if (n > 0 && a.from <= all[n - 1].to) {
            Interval &b = all[n - 1];
            if (same_key(a, b)) {
                b.to = Max(b.to, a.to);
                if (a.bytes != NULL) /* each interval's bytes are a chunk of its own */
                    pfree(a.bytes);
                continue;
            }
            if (a.from < b.to) {
                /* two keys over one value: not the function the name says; remember nothing of it */
                elog(DEBUG1, "gpu_histogram scan: a key's remembered intervals disagree at %lld; forgotten",
                     static_cast<long long>(a.from));
                pfree(all);
                m->npending = 0;
                restart(m);
                return;
            }
        }
        all[n++] = a;
    }
    if (m->held != NULL)
        pfree(m->held);
    m->held = all;
    m->n = n;
    m->npending = 0;
    m->last = 0;
}

int32 interval_memo_count(const IntervalMemo *m)
{
    return m->n;
}

} // namespace gpu_histogram
