/*
 * page_layout.h: the bridge between PostgreSQL's heap page format and the
 * engine's spelled-out copy of it (gpu/specs/page_spec.h).
 *
 * The engine reads pages without PostgreSQL's headers, so every constant
 * it uses is checked here against the server's: at compile time where C++
 * can, and once at run time for the line pointer's bit fields and the
 * block size.  A server whose layout differs keeps its pages on the CPU.
 */
#ifndef GH_SCAN_PAGE_LAYOUT_H
#define GH_SCAN_PAGE_LAYOUT_H

#include "heap_reader.h"

#include "../../../gpu/specs/page_spec.h"

namespace gpu_histogram {

/* Whether this server's heap pages are laid out as gpu/specs/page_spec.h says. */
bool page_layout_matches(void);

/*
 * What the page kernel needs to read col out of rel's tuples, or false if
 * it cannot: an earlier column is not fixed width, or too many precede it.
 */
bool page_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out);

/*
 * The same for a numeric column a histogram bins: the kernel converts each
 * value as numeric_float8 does where numeric_float8.h's fast path reaches
 * it, and hands the page of any other back to the host.
 */
bool page_numeric_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out);

/*
 * The same for a text or varchar column a WHERE clause compares as bytes;
 * *missing is its missing value (has_missing: a tuple stored before ADD
 * COLUMN has it), whose answer the caller works out and stores in
 * missing_word.
 */
bool page_text_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out, Datum *missing);

/* The same for a uuid column, whose 16 bytes the kernel compares in place. */
bool page_uuid_column_for(TupleDesc desc, const HeapColumn &col, gh::PageColumn *out, Datum *missing);

} // namespace gpu_histogram

#endif /* GH_SCAN_PAGE_LAYOUT_H */
