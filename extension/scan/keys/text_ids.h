/*
 * text_ids.h: a number for each distinct value of a text column that a
 * scan meets, so that a GROUP BY key of that column (lower(host),
 * split_part(device_id, '-', 1)) can be remembered by value as a key of an
 * integer column is (value_key.cpp, value_memo.h).
 *
 * Numbers are given 1, 2, ... in the order the values are met and last as
 * long as the table (a key's memo's: value_memo.h); equal bytes get the
 * same number, whatever header or compression stored them.  A function of a text value gives one result for the same
 * bytes, under any collation, so remembering its result by the bytes is
 * exact.
 */
#ifndef GH_SCAN_TEXT_IDS_H
#define GH_SCAN_TEXT_IDS_H

#include "../../pg_headers.h"

namespace gpu_histogram {

struct TextIds;

/*
 * Most bytes one table copies: a table lives as long as its memo, which
 * may be the backend's, and a column's values may be long.
 */
constexpr int64 kTextIdsBytes = 64 * 1024 * 1024;

/* An empty table in the current memory context, numbering up to max_values values. */
TextIds *text_ids_create(int32 max_values);

/*
 * The number of the n bytes at data: the one given before, or the next;
 * -1 once max_values are numbered or kTextIdsBytes copied.
 */
int64 text_ids_number(TextIds *ids, const char *data, int32 n);

/* The bytes numbered number (1 .. the numbers given), the table's own copy. */
void text_ids_value(const TextIds *ids, int64 number, const char **data, int32 *n);

} // namespace gpu_histogram

#endif /* GH_SCAN_TEXT_IDS_H */
