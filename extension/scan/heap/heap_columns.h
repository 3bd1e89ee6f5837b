/*
 * heap_columns.h: one column of a heap tuple, read without a slot.
 *
 * The scan reads the binned columns and the fixed-width keys straight from
 * the tuples heap_reader.h lists (or from a whole page's line pointers),
 * as float8 or as an int64 word, the way heap_getattr() would find them.
 * A column's layout is worked out once a scan, so the per-tuple loops
 * inline to a fixed offset in the common case.  This is apart from the
 * reader because it knows nothing of blocks, locks or visibility.
 */
#ifndef GH_SCAN_HEAP_COLUMNS_H
#define GH_SCAN_HEAP_COLUMNS_H

#include "../../pg_headers.h"

extern "C" {
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "storage/bufpage.h"
}

namespace gpu_histogram {

/* How an attribute is laid out, as heap tuples store it. */
struct AttrLayout {
    int16 len; /* attlen: > 0 fixed, -1 varlena, -2 cstring */
    char align;
    uint8 mask; /* its alignment in bytes, less one: att_align_nominal() without the branches */
};

/*
 * Where to find one column in a tuple: the binned ones (int2, int4, int8,
 * float4, float8, numeric) and the fixed-width keys of group_keys.h.
 */
struct HeapColumn {
    AttrNumber attno;
    Oid type;              /* the type its values are read as: a domain's base, an enum's int4 (heap_stored_type) */
    int16 len;             /* its attlen */
    char align;
    int32 fixed_offset;    /* its offset in tuples without NULLs when every earlier
                              column is fixed-width; -1 if there is none */
    int nprefix;           /* otherwise the earlier columns' layouts, to walk over ... */
    const AttrLayout *prefix;
    int first_walked;      /* ... from the first of variable width, ... */
    uint32 lead;           /* ... which the fixed-width ones before it end at, ... */
    uint8 mask;            /* ... to the column's own alignment (AttrLayout.mask) */
};

/*
 * The type a column's stored values are read and compared as: a domain's
 * base type (a domain stores its base type's bytes; its constraints held
 * when the row was written), and int4 for an enum, whose label is stored
 * as its 4-byte OID.  enum_eq and enum_ne compare those OIDs, but the
 * enum's order is its labels' sort order, not theirs: an enum read as int4
 * is only ever compared for equality or grouped.
 */
Oid heap_stored_type(Oid type);

/*
 * A column of a domain type where the parser relabeled it to its base type
 * (`cpu > 50` of a domain over float8, avg(cpu)): the Var, else e itself.
 */
const Node *heap_domain_column(const Node *e);

/* Where the column starts in tuple data tp, walking over earlier varlena columns. */
const char *heap_column_walk(const HeapColumn &col, const char *tp);

/*
 * Where the column's value starts in h, for a tuple without NULLs that
 * stores the column; NULL otherwise (heap_getattr() then knows the NULL
 * bitmap and the attribute's missing value).  Small enough to inline into
 * the per-tuple loops; the walk over varlena columns is out of line.
 */
static inline const char *heap_column_data(const HeapColumn &col, HeapTupleHeader h)
{
    if ((h->t_infomask & HEAP_HASNULL) || HeapTupleHeaderGetNatts(h) < col.attno)
        return NULL;
    const char *tp = reinterpret_cast<const char *>(h) + h->t_hoff;
    if (likely(col.fixed_offset >= 0))
        return tp + col.fixed_offset;
    return heap_column_walk(col, tp);
}

/*
 * The fixed-width column's value in tuple t as an int64 (bool, int2, int4
 * and date sign-extended; int8, timestamp, timestamptz as stored); false if
 * it is NULL.
 */
static inline bool heap_column_word(const HeapColumn &col, TupleDesc desc, HeapTupleData *t, int64 *out)
{
    const char *p = heap_column_data(col, t->t_data);
    Datum d;
    if (likely(p != NULL)) {
        d = fetch_att(p, true, col.len);
    } else {
        bool isnull;
        d = heap_getattr(t, col.attno, desc, &isnull);
        if (isnull)
            return false;
    }
    switch (col.len) {
    case 1: *out = DatumGetBool(d) ? 1 : 0; break;
    case 2: *out = DatumGetInt16(d); break;
    case 4: *out = DatumGetInt32(d); break;
    default: *out = DatumGetInt64(d); break;
    }
    return true;
}

/*
 * Where a variable-width column's value (its varlena header) starts in h,
 * for a tuple without NULLs that stores the column; NULL otherwise, as
 * heap_column_data().  The value may be compressed or out of line.
 */
const char *heap_column_varlena(const HeapColumn &col, HeapTupleHeader h);

/* The column's layout, from the relation's descriptor (palloc'd). */
HeapColumn heap_column(TupleDesc desc, AttrNumber attno, Oid type);

/*
 * The non-NULL values of the column in tuples[0 .. n), converted to float8
 * as the implicit cast would (a timestamp, timestamptz or date column: its
 * stored integer as the time histograms' 8-byte word); returns how many
 * were written to out.
 */
int heap_column_values(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n,
                       double *out);

/*
 * The column's value in each of tuples[0 .. n) as float8, with isnull[i]
 * set for a NULL: the values stay aligned with the tuples.
 */
void heap_column_values_each(const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples, int n,
                             double *out, bool *isnull);

/*
 * A numeric(p, s) column's value in tuple t as a whole number of 10^-s
 * (scale), which every value of such a column is, with p at most 18 so
 * that it fits an int64; false for NULL, *nan for NaN.
 */
bool heap_column_numeric_units(const HeapColumn &col, TupleDesc desc, const HeapTupleData *t, int scale, int64 *units,
                               bool *nan);

/*
 * Asks for every cache line of the page's tuples at once, before the
 * first is read.  Read in order they would arrive one or two at a time:
 * pages lie scattered over the buffer pool, and the hardware prefetcher
 * starts again at each one (and at each 4 KB within it).  Asked for
 * together they come in parallel.  Only for pages the host itself parses:
 * a page on its way to the GPU is never read here.
 */
static inline void heap_page_prefetch_start(Page page, uint32 lines);
static inline void heap_page_prefetch(Page page)
{
    heap_page_prefetch_start(page, BLCKSZ / 64);
}

/*
 * The same for the first `lines` cache lines of the page's tuples (the
 * lowest addresses: the last tuples), for a caller whose first pass over
 * them goes from there upwards with work between the rows, as a grouped
 * scan's does.  The hardware prefetcher follows such a pass once these
 * start it, while the rows already here are worked on; asked for all at
 * once, the page's lines fill every line buffer and the asking itself
 * waits for the page.  On the dev VM, 8 lines against all of them: GROUP
 * BY g 204 to 185 ms, GROUP BY g % 10 226 to 210; the hourly heatmap,
 * whose first pass only reads each row's time, 174 to 185.
 */
static inline void heap_page_prefetch_start(Page page, uint32 lines)
{
    const PageHeader header = reinterpret_cast<PageHeader>(page);
    const uint32 from = header->pd_upper & ~63u;
    const uint32 end = Min(static_cast<uint32>(header->pd_special), from + 64 * lines);
    for (uint32 off = from; off < end; off += 64)
        __builtin_prefetch(page + off);
}

/*
 * The same for every normal tuple among the first `lines` line pointers
 * of an all-visible page read whole (heap_reader.h's whole_page), counted
 * in *ntuples: the k values it returns end at buf[MaxHeapTuplesPerPage - 1],
 * in the page's order.
 */
int heap_page_column_values(const HeapColumn &col, TupleDesc desc, Page page, OffsetNumber lines, double *buf,
                            int *ntuples);

/* A word column's least and most values over a page, and whether any was NULL. */
struct PageWordSpan {
    bool nulls;
    int64 least;
    int64 most;
};

/*
 * One pass over every normal tuple among the first `lines` line pointers
 * of an all-visible page read whole: the fixed-width column word's span
 * (heap_column_word()), and the value of col, unless NULL, in each
 * (heap_column_values_each(): values[i] and isnull[i], i in the page's
 * order).  Returns how many tuples.  col is never numeric, whose values
 * may lie in the TOAST table.  A grouped scan's page whose rows are all of
 * one hour is read once, instead of listed, then read for its keys, then
 * for its values (group_page.cpp).
 */
int heap_page_span_values(const HeapColumn &word, const HeapColumn *col, TupleDesc desc, Page page, OffsetNumber lines,
                          double *values, bool *isnull, PageWordSpan *span);

} // namespace gpu_histogram

#endif /* GH_SCAN_HEAP_COLUMNS_H */
