/*
 * numeric_values.h: a numeric as the scan reads it from a heap tuple,
 * without numeric.c's arithmetic on every row.
 *
 * A histogram of a numeric column bins numeric_float8's float8, which
 * prints the value and reads the digits back with strtod: the correctly
 * rounded float8 nearest the decimal.  A value of at most 2^53 units and
 * a power of ten of at most 22 comes to the same float8 by one
 * multiplication or division of two exact float8s (Clinger's fast path),
 * without a string: most prices and measurements.  That path is
 * gpu/formulas/numeric_float8.h's, which the GPU's page kernels run too,
 * so that a value converts alike on either side.  The rest go through
 * numeric_float8 itself.  A numeric(p, s) column's sum and mean count
 * whole units of 10^-s, which every value of the column is.
 *
 * The values are read in numeric.c's stored form, which is on disk and so
 * the same in every release.
 */
#ifndef GH_SCAN_NUMERIC_VALUES_H
#define GH_SCAN_NUMERIC_VALUES_H

#include "../../pg_headers.h"

namespace gpu_histogram {

/*
 * numeric_float8 of the numeric varlena at v (any header, neither
 * compressed nor out of line).  Raises where numeric_float8 raises: the
 * plan takes only columns whose typmod keeps it from raising
 * (histogram_calls.cpp).
 */
double numeric_float8_of(const char *v);

/*
 * The numeric varlena at v as whole units of 10^-scale (*nan for NaN);
 * false if it is not such a number within an int64 (an infinity, or more
 * digits than the scale).
 */
bool numeric_units_of(const char *v, int scale, int64 *units, bool *nan);

} // namespace gpu_histogram

#endif /* GH_SCAN_NUMERIC_VALUES_H */
