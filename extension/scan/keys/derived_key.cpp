/*
 * derived_key.cpp: a GROUP BY key that is an expression of one time key
 * or local date field the scan computes itself (key_kind.h), such as
 * Metabase's hour of the day, `CAST(extract(hour FROM ts) AS integer)`,
 * its day of the week, `CAST(extract(dow FROM ts) AS integer) + 1`, or
 * `extract(epoch FROM date_trunc('minute', ts))`.
 *
 * Such a key depends on the row only through the inner key, which has
 * few values: 24 hours, 7 days, a minute per minute of the span read.  So
 * the inner key is computed as its kind computes it, and PostgreSQL's
 * executor evaluates the whole key at the first row that holds each inner
 * value, in the rows' order; the result is remembered (value_memo.h) for
 * every later row with that inner value, as value_key.cpp remembers a
 * column's.  The key never sees an inner value no row holds, and an error
 * is raised at the first row with that value, where the ordinary plan
 * raises it.  The executor used to evaluate Metabase's hour at every row.
 *
 * On the GPU's pages the inner key is found as its kind finds it there,
 * and its slot renumbered by a table of the memo's results (the PageKey's
 * remap): an inner value no row has shown the host yet sends its page to
 * the host, which evaluates the key there.
 */
#include "expression_bound.h"
#include "expression_key.h"
#include "key_tables.h"
#include "value_memo.h"

#include "../../pg_compat.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
}

namespace gpu_histogram {

namespace {

struct FindInner {
    Index relid;
    GroupKeyDef def;
    Node *inner;
    int found;
};

/* A subexpression a time or date field kind takes; the outermost such one on each path. */
bool find_inner(Node *node, FindInner *f)
{
    if (node == NULL)
        return false;
    if (!IsA(node, Var) && !IsA(node, Const)) {
        /* the two kinds asked directly: group_key_parse would ask this kind again, of the same node */
        static const KeyKindOps *const kInner[] = {&time_key_kind, &date_field_key_kind};
        for (const KeyKindOps *kind : kInner) {
            GroupKeyDef def;
            memset(&def, 0, sizeof def);
            if (kind->recognise(reinterpret_cast<Expr *>(node), f->relid, &def) && !def.as_bytes) {
                def.ops = kind;
                def.kind = kind->id;
                if (f->found++ == 0) {
                    f->def = def;
                    f->inner = node;
                }
                return false;
            }
        }
    }
    return expression_tree_walker(node, GH_WALKER(find_inner), f);
}

/* Whether node reads a column outside the subexpression `inner`. */
bool column_outside(Node *node, Node *inner)
{
    if (node == NULL || node == inner)
        return false;
    if (IsA(node, Var))
        return true;
    return expression_tree_walker(node, GH_WALKER(column_outside), inner);
}

bool recognise(Expr *expr, Index relid, GroupKeyDef *out)
{
    if (IsA(expr, Var) || !expression_key_recognise(expr, relid, out, false))
        return false;
    FindInner f{relid, {}, NULL, 0};
    find_inner(reinterpret_cast<Node *>(expr), &f);
    /* one inner key, the whole key's only way to the row, and not the whole key itself */
    if (f.found != 1 || f.inner == reinterpret_cast<Node *>(expr) || column_outside(reinterpret_cast<Node *>(expr), f.inner))
        return false;
    out->inner = static_cast<GroupKeyDef *>(palloc(sizeof(GroupKeyDef)));
    *out->inner = f.def;
    out->inner->expr = reinterpret_cast<Expr *>(f.inner); /* the subexpression, for the memo (no kind of its reads it) */
    return true;
}

void init(GroupKey *key, TupleDesc desc, PlanState *parent)
{
    expression_key_init(key, desc, parent);
    key->memo = value_memo_open_over(key->def.expr, reinterpret_cast<Node *>(key->def.inner->expr));
    key->inner = static_cast<GroupKey *>(palloc(sizeof(GroupKey)));
    group_key_init(key->inner, *key->def.inner, desc, parent);
    key->column = key->inner->column; /* the one column the key reads, for the GPU's table */
    key->value_page = static_cast<MemoPage *>(palloc0(sizeof(MemoPage)));
}

void prepare(GroupKey *key, ExprContext *econtext)
{
    group_key_prepare(key->inner, econtext);
}

/* The remembered key of tuple t's inner key, or NULL: *inner_null and *inner say which inner value. */
const MemoResult *remembered(GroupKey *key, TupleDesc desc, HeapTupleData *t, bool *inner_null, int64 *inner)
{
    const int32 number = memo_page_number(key->value_page, t);
    if (number != kNotRemembered)
        return value_memo_result(key->memo, number);
    *inner = 0;
    *inner_null = !group_key_word(key->inner, desc, t, inner);
    return value_memo_find(key->memo, *inner_null, *inner);
}

bool word(GroupKey *key, TupleDesc desc, HeapTupleData *t, int64 *out)
{
    bool inner_null = false;
    int64 inner = 0;
    const MemoResult *r = remembered(key, desc, t, &inner_null, &inner);
    MemoResult fresh{};
    if (r == NULL)
        r = expression_key_remember(key, desc, t, inner_null, inner, true, &fresh);
    if (r->isnull)
        return false;
    *out = r->word;
    return true;
}

bool bytes(GroupKey *key, TupleDesc desc, HeapTupleData *t, const char **data, int32 *len)
{
    bool inner_null = false;
    int64 inner = 0;
    const MemoResult *r = remembered(key, desc, t, &inner_null, &inner);
    MemoResult fresh{};
    if (r == NULL)
        r = expression_key_remember(key, desc, t, inner_null, inner, true, &fresh);
    if (r->isnull)
        return false;
    *data = VARDATA_ANY(r->bytes);
    *len = static_cast<int32>(VARSIZE_ANY_EXHDR(r->bytes));
    return true;
}

/*
 * A page's keys can raise where the inner key can, or where a row's inner
 * value is not remembered (the executor then evaluates the key).
 */
bool page_may_raise(GroupKey *key, TupleDesc desc, HeapTupleData *tuples, int n, KeySpan *)
{
    MemoPage *p = key->value_page;
    p->n = 0;
    KeySpan span;
    if (group_key_page_may_raise(key->inner, desc, tuples, n, &span))
        return true;
    int64 inner = 0;
    if (group_key_span_word(key->inner, span, &inner)) {
        /* every row's inner key is one: a page of one hour */
        const int32 number = value_memo_number(key->memo, false, inner);
        if (number == kNotRemembered)
            return true;
        for (int i = 0; i < n; i++) {
            p->tids[i] = tuples[i].t_self;
            p->numbers[i] = number;
        }
    } else {
        for (int i = 0; i < n; i++) {
            const bool inner_null = !group_key_word(key->inner, desc, &tuples[i], &inner);
            const int32 number = value_memo_number(key->memo, inner_null, inner);
            if (number == kNotRemembered)
                return true;
            p->tids[i] = tuples[i].t_self;
            p->numbers[i] = number;
        }
    }
    p->tuples = tuples;
    p->n = n;
    return false;
}

/*
 * The GPU's table: the inner key's, each of its slots (and its NULL)
 * renumbered by the result remembered for that inner value, kHostSlot for
 * one the rows have not shown yet.  false where the inner key has no
 * table, or no inner value has a result yet (every page would come back).
 */
bool gpu_table(GroupKey *key, const KeyRows &rows, gh::PageKey *out, KeyTables *t, int k)
{
    GroupKey *inner = key->inner;
    if (inner->def.ops->gpu_table == NULL || !inner->def.ops->gpu_table(inner, rows, out, t, k) ||
        out->remap_count != 0 || out->slots > kMaxKeySlots)
        return false;
    const uint32 n = out->slots; /* the inner slots; entry n is a NULL inner value's */
    const int64 *inner_words = t->slot_words[k];
    const MemoResult **found = static_cast<const MemoResult **>(palloc(sizeof(MemoResult *) * (n + 1)));
    int32 *which = static_cast<int32 *>(palloc(sizeof(int32) * (n + 1)));
    int32 m = 0;
    for (uint32 s = 0; s <= n; s++) {
        const MemoResult *r = s < n ? value_memo_find(key->memo, false, inner_words != NULL ? inner_words[s] : s)
                                    : value_memo_find(key->memo, true, 0);
        which[s] = r != NULL ? m : -1;
        if (r != NULL)
            found[m++] = r;
    }
    if (m == 0)
        return false;
    int64 *slot = static_cast<int64 *>(palloc(sizeof(int64) * m));
    const uint32 slots = key_tables_number_results(key, found, m, slot, t, k);
    if (slots == 0)
        return false; /* every result NULL so far: no group to count in */
    int64 *remap = static_cast<int64 *>(palloc(sizeof(int64) * (n + 1)));
    for (uint32 s = 0; s <= n; s++)
        remap[s] = which[s] >= 0 ? slot[which[s]] : gh::kHostSlot;
    out->remap_first = static_cast<uint32>(key_tables_add_list(t, remap, static_cast<int32>(n + 1)));
    out->remap_count = n + 1;
    out->slots = slots;
    out->null_host = 0; /* a NULL inner value is the remap's last entry */
    return true;
}

double group_bound(PlannerInfo *root, Index relid, const GroupKeyDef &def)
{
    /* no more groups than the inner key's values */
    const double inner = def.inner->ops->group_bound != NULL ? def.inner->ops->group_bound(root, relid, *def.inner) : 0;
    const double outer = expression_group_bound(root, relid, def.expr);
    return inner > 0 && (outer <= 0 || inner < outer) ? inner : outer;
}

const char *describe(const GroupKey *key)
{
    return psprintf("host expression of %s, by value", group_key_describe(key->inner));
}

} // namespace

const KeyKindOps derived_key_kind = {
    KeyKind::derived, "derived", recognise, init, prepare, word, bytes, gpu_table, group_bound, false, NULL,
    describe,         NULL,      page_may_raise,
};

} // namespace gpu_histogram
