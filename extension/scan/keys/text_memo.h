/*
 * text_memo.h: the values of text columns that rows have shown the host,
 * by column, for the backend's life: the dictionary a text key is placed
 * by on the GPU's pages (column_key.cpp).
 *
 * The GPU places a row of `GROUP BY device_id` by finding its bytes among
 * a dictionary's values; a row whose value is not there sends its page to
 * the host.  The statistics' sample names a hundred or so values; a table
 * of a thousand devices has every one on nearly every page.  So the values
 * the host's groups held at the end of a scan are remembered, and the next
 * scan of the column (a dashboard's next refresh) finds them all.  A value
 * remembered that no row holds any more costs a slot with no rows, which
 * is never emitted; one missing costs its pages a trip to the host: the
 * memo is only ever a matter of speed, so nothing invalidates it.
 */
#ifndef GH_SCAN_TEXT_MEMO_H
#define GH_SCAN_TEXT_MEMO_H

#include "../../pg_headers.h"

namespace gpu_histogram {

/*
 * Remembers values[0 .. n) (varlenas, any header) of column attno of
 * relation relid, beyond which a column keeps no more than its bound.
 */
void text_memo_add(Oid relid, AttrNumber attno, struct varlena *const *values, int32 n);

/*
 * The order of text key values by (length, bytes): the memo's, and the
 * GPU's dictionaries' (grouped_page_spec.h), which it bisects in.
 */
int text_key_order(const struct varlena *a, const struct varlena *b);

/* The values remembered for the column: their number, *out pointing at them (valid until the next add). */
int32 text_memo_values(Oid relid, AttrNumber attno, struct varlena *const **out);

} // namespace gpu_histogram

#endif /* GH_SCAN_TEXT_MEMO_H */
