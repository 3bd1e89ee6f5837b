/*
 * value_memo.cpp: a key's result for each value of its column that rows
 * held (value_memo.h).
 */
#include "value_memo.h"
#include "text_ids.h"

#include "../../pg_compat.h"

#include <algorithm>

extern "C" {
#include "access/xact.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

namespace gpu_histogram {

namespace {

/* Most expressions the backend remembers; the least recently opened goes first. */
constexpr int kMaxBackendMemos = 16;
/*
 * Values within this many of the first one met are found by their offset,
 * without hashing: a dashboard's small integers (a sensor id, a status)
 * all are.  256 KB.
 */
constexpr uint64 kDenseValues = kValueMemoDense;

struct Entry {
    int64 value;
    MemoResult r;
};

} // namespace

struct ValueMemo {
    MemoryContext cxt;
    char *name;       /* a backend memo: its expression, normalized; else NULL */
    Entry *entries;   /* in the order the rows met them */
    int32 n, cap;
    Size result_bytes; /* of the results' bytes copied, at most kValueMemoBytes */
    int32 *index;     /* open addressing over entries: an entry's number + 1, 0 where empty */
    uint32 mask;
    int32 last;       /* the entry found last: a table in key order repeats values in runs */
    int64 dense_base; /* dense[v - dense_base] is the entry number + 1 of v, 0 if not met */
    int32 *dense;     /* NULL until the first value */
    bool have_null;
    MemoResult null_result;
    TextIds *text_ids; /* a text column's values' numbers, which are the values here; NULL until asked for */
    ValueMemo *next;  /* the backend's list */
    uint64 opened;    /* when it was last opened, for the eviction */
};

namespace {

ValueMemo *backend_memos;
int backend_count;
uint64 open_clock;
bool memos_stale;
bool callback_registered;
MemoryContext backend_cxt;

/* Any function changed: an immutable SQL function's body may give other results now. */
void functions_changed(Datum, int, uint32)
{
    memos_stale = true;
}

uint32 value_hash(int64 v)
{
    uint64 x = static_cast<uint64>(v) + UINT64CONST(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64CONST(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64CONST(0x94d049bb133111eb);
    return static_cast<uint32>(x ^ (x >> 31));
}

void rebuild_index(ValueMemo *m, uint32 slots)
{
    if (m->index != NULL)
        pfree(m->index);
    m->index = static_cast<int32 *>(MemoryContextAllocZero(m->cxt, sizeof(int32) * slots));
    m->mask = slots - 1;
    for (int32 e = 0; e < m->n; e++) {
        uint32 at = value_hash(m->entries[e].value) & m->mask;
        while (m->index[at] != 0)
            at = (at + 1) & m->mask;
        m->index[at] = e + 1;
    }
}

ValueMemo *memo_create(MemoryContext parent, const char *name)
{
    MemoryContext cxt = AllocSetContextCreate(parent, "gpu_histogram key values", ALLOCSET_SMALL_SIZES);
    ValueMemo *m = static_cast<ValueMemo *>(MemoryContextAllocZero(cxt, sizeof(ValueMemo)));
    m->cxt = cxt;
    m->name = name != NULL ? MemoryContextStrdup(cxt, name) : NULL;
    m->cap = 64;
    m->entries = static_cast<Entry *>(MemoryContextAlloc(cxt, sizeof(Entry) * m->cap));
    m->last = -1;
    rebuild_index(m, 128);
    return m;
}

/*
 * Leaves the backend's list.  A scan of this transaction may still read
 * it (a key function that runs a query of its own): it goes with the
 * transaction's memory.
 */
void retire(ValueMemo *m)
{
    ValueMemo **p = &backend_memos;
    while (*p != m)
        p = &(*p)->next;
    *p = m->next;
    backend_count--;
    MemoryContextSetParent(m->cxt, TopTransactionContext);
}

bool reset_var(Node *node, void *)
{
    if (node == NULL)
        return false;
    if (IsA(node, Var)) {
        Var *v = reinterpret_cast<Var *>(node);
        v->varno = 1;
        v->varnosyn = 1;
        return false;
    }
    return expression_tree_walker(node, GH_WALKER(reset_var), NULL);
}

bool has_param(Node *node, void *)
{
    if (node == NULL)
        return false;
    if (IsA(node, Param))
        return true;
    return expression_tree_walker(node, GH_WALKER(has_param), NULL);
}

MemoResult copied(ValueMemo *m, const MemoResult &r)
{
    MemoResult c = r;
    if (!r.isnull && r.bytes != NULL) {
        const Size size = VARSIZE_ANY(r.bytes);
        c.bytes = static_cast<struct varlena *>(MemoryContextAlloc(m->cxt, size));
        memcpy(c.bytes, r.bytes, size);
    }
    return c;
}

} // namespace

/*
 * The expression as a string that does not depend on the query it came
 * from (its range table, its text), with the settings under which
 * immutable output functions still answer differently: float8out's
 * extra_float_digits, byteaout's bytea_output.
 */
char *memo_expression_name(Expr *expr)
{
    Node *copy = static_cast<Node *>(copyObjectImpl(expr));
    reset_var(copy, NULL);
    const char *s = nodeToString(copy);
    StringInfoData out;
    initStringInfo(&out);
    static const char kLocation[] = ":location ";
    for (const char *p = s; *p != '\0';) {
        if (strncmp(p, kLocation, sizeof kLocation - 1) == 0) {
            appendStringInfoString(&out, kLocation);
            p += sizeof kLocation - 1;
            while (*p == '-' || (*p >= '0' && *p <= '9'))
                p++;
            continue;
        }
        appendStringInfoChar(&out, *p++);
    }
    appendStringInfo(&out, " extra_float_digits=%s bytea_output=%s", GetConfigOption("extra_float_digits", false, false),
                     GetConfigOption("bytea_output", false, false));
    return out.data;
}

/* expr with the subexpression `inner` replaced by a NULL constant of its type: what a derived key computes of it */
Node *without_inner(Node *node, Node *inner)
{
    if (node == NULL)
        return NULL;
    if (node == inner)
        return reinterpret_cast<Node *>(makeNullConst(exprType(inner), exprTypmod(inner), exprCollation(inner)));
    return expression_tree_mutator(node, GH_MUTATOR(without_inner), inner);
}

ValueMemo *value_memo_open(Expr *expr)
{
    return value_memo_open_over(expr, NULL);
}

ValueMemo *value_memo_open_over(Expr *expr, Node *inner)
{
    /*
     * a parameter is fixed for one execution of a generic plan only; a
     * derived key's results depend on its inner key's value through the
     * rest of the expression alone
     */
    Node *outer = inner != NULL ? without_inner(reinterpret_cast<Node *>(expr), inner) : reinterpret_cast<Node *>(expr);
    if (contain_mutable_functions(outer) || has_param(reinterpret_cast<Node *>(expr), NULL))
        return memo_create(CurrentMemoryContext, NULL);
    if (!callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, functions_changed, 0);
        callback_registered = true;
        backend_cxt = AllocSetContextCreate(TopMemoryContext, "gpu_histogram key memos", ALLOCSET_SMALL_SIZES);
    }
    if (memos_stale) {
        while (backend_memos != NULL)
            retire(backend_memos);
        memos_stale = false;
    }
    char *name = memo_expression_name(expr);
    ValueMemo *found = NULL;
    for (ValueMemo *m = backend_memos; m != NULL; m = m->next)
        if (strcmp(m->name, name) == 0)
            found = m;
    if (found == NULL) {
        if (backend_count >= kMaxBackendMemos) {
            ValueMemo *oldest = backend_memos;
            for (ValueMemo *m = backend_memos; m != NULL; m = m->next)
                if (m->opened < oldest->opened)
                    oldest = m;
            retire(oldest);
        }
        found = memo_create(backend_cxt, name);
        found->next = backend_memos;
        backend_memos = found;
        backend_count++;
    }
    pfree(name);
    found->opened = ++open_clock;
    return found;
}

TextIds *value_memo_text_ids(ValueMemo *m)
{
    if (m->text_ids == NULL) {
        MemoryContext old = MemoryContextSwitchTo(m->cxt);
        m->text_ids = text_ids_create(kValueMemoMax);
        MemoryContextSwitchTo(old);
    }
    return m->text_ids;
}

int32 value_memo_count(const ValueMemo *m)
{
    return m->n + (m->have_null ? 1 : 0);
}

int32 value_memo_number(ValueMemo *m, bool colnull, int64 value)
{
    if (colnull)
        return m->have_null ? 0 : kNotRemembered;
    const uint64 d = static_cast<uint64>(value) - static_cast<uint64>(m->dense_base);
    if (m->dense != NULL && d < kDenseValues) {
        const int32 e = m->dense[d];
        return e == 0 ? kNotRemembered : e;
    }
    if (m->last >= 0 && m->entries[m->last].value == value)
        return m->last + 1;
    for (uint32 at = value_hash(value) & m->mask;; at = (at + 1) & m->mask) {
        const int32 e = m->index[at];
        if (e == 0)
            return kNotRemembered;
        if (m->entries[e - 1].value == value) {
            m->last = e - 1;
            return e;
        }
    }
}

ValueMemoDense value_memo_dense(const ValueMemo *m)
{
    return ValueMemoDense{m->dense_base, m->dense};
}

const MemoResult *value_memo_result(const ValueMemo *m, int32 number)
{
    return number == 0 ? &m->null_result : &m->entries[number - 1].r;
}

const MemoResult *value_memo_find(ValueMemo *m, bool colnull, int64 value)
{
    const int32 number = value_memo_number(m, colnull, value);
    return number == kNotRemembered ? NULL : value_memo_result(m, number);
}

const MemoResult *value_memo_add(ValueMemo *m, bool colnull, int64 value, const MemoResult &r)
{
    if (colnull) {
        m->null_result = copied(m, r);
        m->have_null = true;
        return &m->null_result;
    }
    const Size bytes = r.isnull || r.bytes == NULL ? 0 : VARSIZE_ANY(r.bytes);
    if (m->n >= kValueMemoMax || m->result_bytes + bytes > kValueMemoBytes)
        return &r;
    m->result_bytes += bytes;
    if (m->n == m->cap) {
        m->cap *= 2;
        m->entries = static_cast<Entry *>(repalloc(m->entries, sizeof(Entry) * m->cap));
    }
    Entry &e = m->entries[m->n];
    e.value = value;
    e.r = copied(m, r);
    m->n++;
    if (m->dense == NULL) {
        /* centred on the first value, so that values on either side of it are dense too */
        m->dense_base = value - static_cast<int64>(Min(static_cast<uint64>(value) - static_cast<uint64>(PG_INT64_MIN),
                                                       kDenseValues / 2));
        m->dense = static_cast<int32 *>(MemoryContextAllocZero(m->cxt, sizeof(int32) * kDenseValues));
    }
    const uint64 d = static_cast<uint64>(value) - static_cast<uint64>(m->dense_base);
    if (d < kDenseValues)
        m->dense[d] = m->n;
    if (static_cast<uint32>(m->n) * 2 > m->mask + 1) {
        rebuild_index(m, (m->mask + 1) * 2);
    } else {
        uint32 at = value_hash(value) & m->mask;
        while (m->index[at] != 0)
            at = (at + 1) & m->mask;
        m->index[at] = m->n;
    }
    m->last = m->n - 1;
    return &e.r;
}

int32 value_memo_sorted(ValueMemo *m, int64 **values, const MemoResult ***results)
{
    int32 *order = static_cast<int32 *>(palloc(sizeof(int32) * Max(m->n, 1)));
    for (int32 i = 0; i < m->n; i++)
        order[i] = i;
    std::sort(order, order + m->n, [m](int32 a, int32 b) { return m->entries[a].value < m->entries[b].value; });
    *values = static_cast<int64 *>(palloc(sizeof(int64) * Max(m->n, 1)));
    *results = static_cast<const MemoResult **>(palloc(sizeof(MemoResult *) * Max(m->n, 1)));
    for (int32 i = 0; i < m->n; i++) {
        (*values)[i] = m->entries[order[i]].value;
        (*results)[i] = &m->entries[order[i]].r;
    }
    pfree(order);
    return m->n;
}

const MemoResult *value_memo_null(const ValueMemo *m)
{
    return m->have_null ? &m->null_result : NULL;
}

namespace {

inline bool same_tid(const ItemPointerData &a, const ItemPointerData &b)
{
    return a.ip_posid == b.ip_posid && a.ip_blkid.bi_lo == b.ip_blkid.bi_lo && a.ip_blkid.bi_hi == b.ip_blkid.bi_hi;
}

} // namespace

int32 memo_page_number(const MemoPage *p, const HeapTupleData *t)
{
    const ptrdiff_t at = t - p->tuples;
    if (p->n == 0 || at < 0 || at >= p->n || !ItemPointerIsValid(&t->t_self))
        return kNotRemembered;
    if (same_tid(p->tids[p->n - 1 - at], t->t_self)) /* the scan reverses a page it groups fast */
        return p->numbers[p->n - 1 - at];
    if (same_tid(p->tids[at], t->t_self))
        return p->numbers[at];
    return kNotRemembered;
}

bool memo_page_numbers(const MemoPage *p, const HeapTupleData *tuples, int n, int32 *numbers)
{
    if (p->n != n || p->tuples != tuples || n == 0)
        return false;
    /* the scan reverses a page it groups fast: its first tuple is then the one page_may_raise() saw last */
    const bool reversed = !same_tid(p->tids[0], tuples[0].t_self);
    for (int i = 0; i < n; i++) {
        const int at = reversed ? n - 1 - i : i;
        /* a tuple back from the spill has no TID: nothing then says which it is */
        if (!ItemPointerIsValid(&tuples[i].t_self) || !same_tid(p->tids[at], tuples[i].t_self))
            return false;
        numbers[i] = p->numbers[at];
    }
    return true;
}

MemoResult memo_bytes_result(MemoryContext cxt, bool isnull, const char *data, int32 len)
{
    MemoResult r{};
    r.isnull = isnull;
    if (!isnull) {
        r.bytes = static_cast<struct varlena *>(MemoryContextAlloc(cxt, VARHDRSZ + len));
        SET_VARSIZE(r.bytes, VARHDRSZ + len);
        memcpy(VARDATA(r.bytes), data, len);
    }
    return r;
}

} // namespace gpu_histogram
