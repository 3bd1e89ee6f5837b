/*
 * text_memo.cpp: text values met by column (text_memo.h).
 *
 * A few columns, each a sorted array of its values, in a memory context of
 * the backend's: a scan adds its values once, at its end, so a merge of
 * two sorted arrays is all an addition costs, and the dictionary reads
 * them in order.
 */
#include "text_memo.h"

#include <algorithm>

extern "C" {
#include "fmgr.h"
#include "utils/memutils.h"
}

namespace gpu_histogram {

namespace {

/* Columns remembered; the oldest gives way. */
constexpr int kMemoColumns = 16;
/* A column's bound: a dictionary past it would be slower to search than worth (grouped_page_spec.h). */
constexpr int32 kMemoValues = 1 << 16;
constexpr Size kMemoBytes = Size(8) << 20;

struct ColumnMemo {
    Oid relid;
    AttrNumber attno;
    uint64 used;             /* when last added to or read: the oldest goes first */
    int32 n;
    Size bytes;
    struct varlena **values; /* 4-byte headers, sorted by (length, bytes), no repeats */
    MemoryContext cxt;
};

ColumnMemo memo[kMemoColumns];
uint64 clock;
MemoryContext memo_cxt;

ColumnMemo *find(Oid relid, AttrNumber attno, bool create)
{
    ColumnMemo *oldest = &memo[0];
    for (ColumnMemo &m : memo) {
        if (m.cxt != NULL && m.relid == relid && m.attno == attno) {
            m.used = ++clock;
            return &m;
        }
        if (m.cxt == NULL || (oldest->cxt != NULL && m.used < oldest->used))
            oldest = &m;
    }
    if (!create)
        return NULL;
    if (memo_cxt == NULL)
        memo_cxt = AllocSetContextCreate(TopMemoryContext, "gpu_histogram text keys", ALLOCSET_SMALL_SIZES);
    if (oldest->cxt != NULL)
        MemoryContextDelete(oldest->cxt);
    *oldest = ColumnMemo{relid, attno, ++clock, 0, 0, NULL,
                         AllocSetContextCreate(memo_cxt, "gpu_histogram text key", ALLOCSET_DEFAULT_SIZES)};
    return oldest;
}

} // namespace

int text_key_order(const struct varlena *a, const struct varlena *b)
{
    const Size la = VARSIZE_ANY_EXHDR(a), lb = VARSIZE_ANY_EXHDR(b);
    if (la != lb)
        return la < lb ? -1 : 1;
    return memcmp(VARDATA_ANY(a), VARDATA_ANY(b), la);
}

void text_memo_add(Oid relid, AttrNumber attno, struct varlena *const *values, int32 n)
{
    if (n <= 0)
        return;
    /* the new values sorted, in the caller's context: only those kept are copied */
    struct varlena **added = static_cast<struct varlena **>(palloc(sizeof(struct varlena *) * n));
    memcpy(added, values, sizeof(struct varlena *) * n);
    std::sort(added, added + n, [](const struct varlena *a, const struct varlena *b) { return text_key_order(a, b) < 0; });
    ColumnMemo *m = find(relid, attno, true);
    struct varlena **merged =
        static_cast<struct varlena **>(MemoryContextAlloc(m->cxt, sizeof(struct varlena *) * (m->n + n)));
    int32 i = 0, j = 0, out = 0;
    while (i < m->n || j < n) {
        const int c = i == m->n ? 1 : j == n ? -1 : text_key_order(m->values[i], added[j]);
        if (c <= 0) {
            merged[out++] = m->values[i++];
            if (c == 0)
                j++;
            continue;
        }
        if ((out == 0 || text_key_order(merged[out - 1], added[j]) != 0) && out < kMemoValues && m->bytes < kMemoBytes) {
            const Size len = VARSIZE_ANY_EXHDR(added[j]);
            struct varlena *v = static_cast<struct varlena *>(MemoryContextAlloc(m->cxt, VARHDRSZ + len));
            SET_VARSIZE(v, VARHDRSZ + len);
            memcpy(VARDATA(v), VARDATA_ANY(added[j]), len);
            merged[out++] = v;
            m->bytes += VARHDRSZ + len;
        }
        j++;
    }
    if (m->values != NULL)
        pfree(m->values);
    m->values = merged;
    m->n = out;
    pfree(added);
}

int32 text_memo_values(Oid relid, AttrNumber attno, struct varlena *const **out)
{
    ColumnMemo *m = find(relid, attno, false);
    *out = m != NULL ? m->values : NULL;
    return m != NULL ? m->n : 0;
}

} // namespace gpu_histogram
