/*
 * value_aggs.cpp: sum, avg, min and max beside the histograms
 * (value_aggs.h).
 *
 * Each step is the step of PostgreSQL's transition function for the
 * aggregate's OID (pg_aggregate): int2_sum and int4_sum add into an int8,
 * int4_avg_accum counts and adds, int8_avg_accum adds into 128 bits, and
 * the larger and smaller functions keep the state unless the new value
 * wins by float8_gt and float8_lt (NaN above everything).  The finals are
 * int8_avg, numeric_poly_sum, numeric_poly_avg and float8_avg.
 *
 * Float sums and means are the exception: float4pl, float8pl,
 * float4_accum and float8_accum add value after value, so their answer
 * depends on the order of the rows, and a scan split between workers, the
 * CPU and the GPU would give different bits each run.  Here they are
 * summed exactly (gpu/formulas/exact_sum.h) and rounded once: sum(float4)
 * to the nearest float4, sum(float8) and the means' Sx to the nearest
 * float8.  Where the exact sum is finite but past the type's largest
 * value, the same overflow error float8_pl raises is raised when the
 * group's row is formed.
 */
#include "value_aggs.h"

#include <cmath>

#include "../../../../gpu/formulas/exact_sum.h"
#include "../../../../gpu/specs/grouped_page_spec.h"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
}


namespace gpu_histogram {

namespace {

double cell_double(int64 c)
{
    double d;
    memcpy(&d, &c, sizeof d);
    return d;
}

int64 double_cell(double d)
{
    int64 c;
    memcpy(&c, &d, sizeof c);
    return c;
}

/* A 128-bit sum kept in two cells, the low word first. */
inline __int128 cells_int128(const int64 *c)
{
    return (static_cast<__int128>(c[1]) << 64) | static_cast<uint64>(c[0]);
}

/* Adds v to the 128-bit sum in cells c[0], c[1]. */
inline void add_int128(int64 *c, __int128 v)
{
    const __int128 sum = cells_int128(c) + v;
    c[0] = static_cast<int64>(static_cast<uint64>(sum));
    c[1] = static_cast<int64>(sum >> 64);
}

bool is_float(Oid type)
{
    return type == FLOAT4OID || type == FLOAT8OID;
}

/* One value into the cells c, as the aggregate's transition function takes it. */
inline void add_word(const ScanAggregate &agg, int64 *c, int64 v)
{
    const bool first = c[0]++ == 0;
    switch (agg.kind) {
    case AggKind::sum:
    case AggKind::avg:
        if (agg.coltype == INT8OID) {
            add_int128(c + 1, v);
        } else {
            c[1] += v;
        }
        return;
    case AggKind::min:
        if (first || v < c[1])
            c[1] = v;
        return;
    case AggKind::max:
        if (first || v > c[1])
            c[1] = v;
        return;
    default: return;
    }
}

/* A float min or max of the cells, as float8smaller and float8larger keep their state. */
inline void add_float_extreme(const ScanAggregate &agg, int64 *c, double x)
{
    const bool first = c[0]++ == 0;
    const double v = cell_double(c[1]);
    if (agg.kind == AggKind::min ? (first || !float8_lt(v, x)) : (first || !float8_gt(v, x)))
        c[1] = double_cell(x);
}

/*
 * add_float_extreme() over a page's values, max (Max) or min, a loop of
 * its own for each.  Rows of one group in a row (a table in time order,
 * grouped by hour) keep the state in a register until the group changes:
 * through the cells, each value waited for the last one's store.
 */
template <bool Max, typename Groups>
void float_extremes(const double *values, const bool *nulls, Groups groups, int n, bool reversed)
{
    int64 *run = NULL; /* the group of the rows in a row, and its state */
    int64 rows = 0;
    double state = 0;
    for (int j = 0; j < n; j++) {
        const int i = reversed ? n - 1 - j : j;
        int64 *c = groups(i);
        if (nulls[i] || c == NULL)
            continue;
        if (c != run) {
            if (run != NULL) {
                run[0] = rows;
                run[1] = double_cell(state);
            }
            run = c;
            rows = c[0];
            state = cell_double(c[1]);
        }
        const double x = values[i];
        if (rows++ == 0 || (Max ? !float8_gt(state, x) : !float8_lt(state, x)))
            state = x;
    }
    if (run != NULL) {
        run[0] = rows;
        run[1] = double_cell(state);
    }
}

/*
 * float_extremes() for rows of one group: the page's extreme, by a loop
 * with nothing but the comparison in it, into *best; how many values.
 * The caller adds it to the cells as one more value (add_float_extreme).  That is exact: the state after a run of values is the
 * last of them (in the rows' order) that the comparison let through, and
 * it lets it through the group's state as it would have its first.  The
 * last in the rows' order matters only among values that compare equal
 * but differ in their bits: a 0 and a -0, NaNs (float8_gt has NaN above
 * every number and equal to another NaN, as larger and smaller keep it).
 */
template <bool Max> int page_extreme(const double *values, const bool *nulls, int n, bool reversed, double *best_out)
{
    if (memchr(nulls, true, n) == NULL) {
        /*
         * No NULL: four comparisons in flight instead of one chain, 10 to
         * 5 ms over 10M values on the development machine.  z turns NaN at
         * a NaN or an infinity (x - x), and a best of 0 may be a -0: both
         * are left to the loop below, which knows which one PostgreSQL's
         * state keeps.
         */
        const double none = Max ? -get_float8_infinity() : get_float8_infinity();
        double b[4] = {none, none, none, none};
        double z0 = 0, z1 = 0;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            for (int k = 0; k < 4; k++) {
                const double x = values[i + k];
                b[k] = (Max ? x > b[k] : x < b[k]) ? x : b[k];
            }
            z0 += (values[i] - values[i]) + (values[i + 1] - values[i + 1]);
            z1 += (values[i + 2] - values[i + 2]) + (values[i + 3] - values[i + 3]);
        }
        for (; i < n; i++) {
            b[0] = (Max ? values[i] > b[0] : values[i] < b[0]) ? values[i] : b[0];
            z0 += values[i] - values[i];
        }
        double best = b[0];
        for (int k = 1; k < 4; k++)
            best = (Max ? b[k] > best : b[k] < best) ? b[k] : best;
        if (n > 0 && z0 == 0 && z1 == 0 && best != 0) {
            *best_out = best;
            return n;
        }
    }
    int rows = 0, nans = 0;
    double best = Max ? -get_float8_infinity() : get_float8_infinity();
    for (int i = 0; i < n; i++) {
        if (nulls[i])
            continue;
        const double x = values[i];
        rows++;
        nans += std::isnan(x) ? 1 : 0;
        best = (Max ? x > best : x < best) ? x : best; /* a NaN never wins here */
    }
    if (rows == 0)
        return 0;
    /* max: any NaN is the answer; min: only where every value is a NaN */
    const bool nan = Max ? nans > 0 : nans == rows;
    if (nan || best == 0) {
        /* the last such value in the rows' order: the first in the array when it is reversed */
        for (int j = 0; j < n; j++) {
            const int i = reversed ? j : n - 1 - j;
            if (!nulls[i] && (nan ? std::isnan(values[i]) : values[i] == 0)) {
                best = values[i];
                break;
            }
        }
    }
    *best_out = best;
    return rows;
}

/*
 * Exact float sums (gpu/formulas/exact_sum.h) over a page's values, in any
 * order: the sum is the same.  Rows of one group in a row whose values
 * start at the same limb (most values of a column share a few exponents)
 * are summed in registers and added once (exact_sum_add_run): adding each
 * into the cells waited on the last one's store, a sixth of the mean
 * line's time on the development machine.
 */
/*
 * A page's values of one group summed exactly in float8 arithmetic, without
 * splitting each into limbs: Rump, Ogita and Oishi's extraction ("Accurate
 * floating-point summation part I", SIAM J. Sci. Comput. 31(1), 2008,
 * Lemma 3.3).  With sigma a power of two at least 2^9 times every |x| and
 * at most 510 values (n + 2 <= 2^9), q = (sigma + x) - sigma and r = x - q
 * are exact, x = q + r, every q is a multiple of 2^-53 sigma and their sum
 * is exact in any order; |r| <= 2^-53 sigma.  Two such passes take 88 bits
 * below the largest value, all a column of measurements holds; a remainder
 * still nonzero after them is added as before.  So the cells end as
 * exact_sums() leaves them, but for the count of -0 values, which only an
 * all-zero page's sum needs (exact_sum_round), and such a page is not
 * taken here.  Over 10M values on the development machine: 24 to 18 ms.
 * false, nothing added: a NULL, a NaN, an infinity, every value 0, values
 * near the ends of float8's range, or too many values.
 */
bool exact_page_sum(const double *values, const bool *nulls, int n, int64 *cells)
{
    constexpr int kMaxValues = 510;
    if (n <= 0 || n > kMaxValues || memchr(nulls, true, n) != NULL)
        return false;
    /* in pairs throughout: two chains of float additions in flight instead of one */
    double m0 = 0, m1 = 0, z0 = 0, z1 = 0;
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        const double a0 = fabs(values[i]), a1 = fabs(values[i + 1]);
        m0 = a0 > m0 ? a0 : m0;
        m1 = a1 > m1 ? a1 : m1;
        z0 += values[i] - values[i]; /* NaN at a NaN or an infinity */
        z1 += values[i + 1] - values[i + 1];
    }
    if (i < n) {
        const double a = fabs(values[i]);
        m0 = a > m0 ? a : m0;
        z0 += values[i] - values[i];
    }
    const double m = m0 > m1 ? m0 : m1;
    if (!(z0 == 0 && z1 == 0) || m == 0 || m > 0x1p1000 || m < 0x1p-900)
        return false;
    int e;
    (void) frexp(m, &e); /* m < 2^e */
    double sigma = ldexp(1.0, e + 9);
    double rest[kMaxValues];
    double tau[2];
    double r0 = 0, r1 = 0; /* the largest remainder left by the second pass */
    for (int pass = 0; pass < 2; pass++) {
        const double *from = pass == 0 ? values : rest;
        double t0 = 0, t1 = 0;
        for (i = 0; i + 2 <= n; i += 2) {
            const double q0 = (sigma + from[i]) - sigma, q1 = (sigma + from[i + 1]) - sigma;
            const double p0 = from[i] - q0, p1 = from[i + 1] - q1;
            rest[i] = p0;
            rest[i + 1] = p1;
            t0 += q0;
            t1 += q1;
            if (pass == 1) {
                r0 = fabs(p0) > r0 ? fabs(p0) : r0;
                r1 = fabs(p1) > r1 ? fabs(p1) : r1;
            }
        }
        if (i < n) {
            const double q = (sigma + from[i]) - sigma;
            rest[i] = from[i] - q;
            t0 += q;
            r0 = pass == 1 && fabs(rest[i]) > r0 ? fabs(rest[i]) : r0;
        }
        tau[pass] = t0 + t1;
        sigma *= 0x1p-44; /* 2^9 times the remainders' bound, 2^-53 sigma */
    }
    cells[0] += n;
    gh::exact_sum_add(cells + 1, tau[0]);
    gh::exact_sum_add(cells + 1, tau[1]);
    if (r0 != 0 || r1 != 0)
        for (i = 0; i < n; i++)
            if (rest[i] != 0)
                gh::exact_sum_add(cells + 1, rest[i]);
    return true;
}

template <typename Groups> void exact_sums(const double *values, const bool *nulls, Groups groups, int n)
{
    int64 *run = NULL;
    int first = -1;
    int64 rows = 0, adds = 0, s0 = 0, s1 = 0, s2 = 0;
    auto flush = [&]() {
        if (run == NULL)
            return;
        run[0] += rows;
        if (adds > 0)
            gh::exact_sum_add_run(run + 1, first, s0, s1, s2, adds);
        rows = adds = s0 = s1 = s2 = 0;
    };
    for (int i = 0; i < n; i++) {
        int64 *c = groups(i);
        if (nulls[i] || c == NULL)
            continue;
        int f = 0, special = 0;
        int64_t chunks[3] = {0, 0, 0};
        const bool limbs = gh::exact_sum_chunks(values[i], &f, chunks, &special);
        if (c != run || (limbs && f != first && adds > 0)) {
            flush();
            run = c;
        }
        rows++;
        if (!limbs) {
            if (special >= 0)
                c[1 + special]++;
            continue;
        }
        first = f;
        adds++;
        s0 += chunks[0];
        s1 += chunks[1];
        s2 += chunks[2];
    }
    flush();
}

/*
 * The exact sum rounded: a float8 (float4 for sum(float4)), raising
 * float_overflow_error where finite values sum past the type's range.
 */
double exact_result(const ScanAggregate &agg, const int64 *c)
{
    int64 cells[gh::kExactCells];
    memcpy(cells, c + 1, sizeof cells);
    gh::ExactSumKind kind;
    const bool float4 = agg.kind == AggKind::sum && agg.coltype == FLOAT4OID;
    const double v = float4 ? gh::exact_sum_round(cells, c[0], 24, 925, 128, &kind)
                            : gh::exact_sum_round(cells, c[0], 53, 0, 1024, &kind);
    if (kind == gh::ExactSumKind::overflow)
        float_overflow_error();
    return v;
}

/*
 * v * 10^-scale as a numeric of display scale `scale`, through its decimal
 * digits, as numeric_in reads them: the numeric_sum of numeric(p, s)
 * values has their display scale s.
 */
Datum int128_numeric(__int128 v, int scale = 0)
{
    char buf[96];
    char *p = buf + sizeof buf;
    *--p = '\0';
    const bool negative = v < 0;
    unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
    int written = 0;
    do {
        *--p = static_cast<char>('0' + static_cast<int>(u % 10));
        u /= 10;
        if (++written == scale)
            *--p = '.';
    } while (u != 0 || written <= scale);
    if (negative)
        *--p = '-';
    return DirectFunctionCall3(numeric_in, CStringGetDatum(p), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

Datum numeric_nan()
{
    return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * A numeric(p, s) column's cells (p at most 18, histogram_calls.cpp): its
 * values, NaN among them; its NaNs; then the 128-bit sum of the numbers
 * in units of 10^-s (sum and avg, as numeric_avg_accum's exact sum), or
 * the least or greatest of them (min and max; NaN is above every number,
 * as cmp_numerics has it).  A column of one display scale holds each
 * value in one form, so min and max have no ties to break.
 */
constexpr int32 kNumericCells = 4;

void add_numeric(const ScanAggregate &agg, int64 *c, bool nan, int64 units)
{
    const bool first_number = c[0] == c[1];
    c[0]++;
    if (nan) {
        c[1]++;
        return;
    }
    switch (agg.kind) {
    case AggKind::sum:
    case AggKind::avg: add_int128(c + 2, units); return;
    case AggKind::min:
        if (first_number || units < c[2])
            c[2] = units;
        return;
    case AggKind::max:
        if (first_number || units > c[2])
            c[2] = units;
        return;
    default: return;
    }
}

void combine_numeric(const ScanAggregate &agg, int64 *dst, const int64 *src)
{
    const int64 numbers = src[0] - src[1];
    if (agg.kind == AggKind::sum || agg.kind == AggKind::avg) {
        add_int128(dst + 2, cells_int128(src + 2));
    } else if (numbers > 0) {
        const bool first_number = dst[0] == dst[1];
        if (first_number || (agg.kind == AggKind::min ? src[2] < dst[2] : src[2] > dst[2]))
            dst[2] = src[2];
    }
    dst[0] += src[0];
    dst[1] += src[1];
}

Datum numeric_result(const ScanAggregate &agg, const int64 *c)
{
    const __int128 sum = cells_int128(c + 2);
    switch (agg.kind) {
    case AggKind::sum: return c[1] > 0 ? numeric_nan() : int128_numeric(sum, agg.scale);
    case AggKind::avg:
        /* numeric_avg: the exact sum divided by the count, numeric_div's scale */
        return c[1] > 0 ? numeric_nan()
                        : DirectFunctionCall2(numeric_div, int128_numeric(sum, agg.scale),
                                              NumericGetDatum(int64_to_numeric(c[0])));
    case AggKind::min: return c[0] == c[1] ? numeric_nan() : int128_numeric(c[2], agg.scale);
    case AggKind::max: return c[1] > 0 ? numeric_nan() : int128_numeric(c[2], agg.scale);
    default: break;
    }
    return numeric_nan();
}

Datum float8_array(double a, double b, double c)
{
    Datum d[3] = {Float8GetDatum(a), Float8GetDatum(b), Float8GetDatum(c)};
    return PointerGetDatum(construct_array(d, 3, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

Datum int8_array(int64 a, int64 b)
{
    Datum d[2] = {Int64GetDatum(a), Int64GetDatum(b)};
    return PointerGetDatum(construct_array(d, 2, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* A min or max's word or float as a Datum of the column's type. */
Datum value_datum(Oid type, int64 cell)
{
    switch (type) {
    case INT2OID: return Int16GetDatum(static_cast<int16>(cell));
    case INT4OID: return Int32GetDatum(static_cast<int32>(cell));
    case DATEOID: return DateADTGetDatum(static_cast<DateADT>(cell));
    case FLOAT4OID: return Float4GetDatum(static_cast<float4>(cell_double(cell)));
    case FLOAT8OID: return Float8GetDatum(cell_double(cell));
    }
    return Int64GetDatum(cell); /* int8, timestamp, timestamptz */
}

} // namespace

bool value_agg_exact(const ScanAggregate &agg)
{
    return is_float(agg.coltype) && (agg.kind == AggKind::sum || agg.kind == AggKind::avg);
}

int32 value_agg_cells(const ScanAggregate &agg)
{
    return value_agg_exact(agg) ? 1 + gh::kExactCells : agg.coltype == NUMERICOID ? kNumericCells : 3;
}

void value_agg_combine(const ScanAggregate &agg, int64 *dst, const int64 *src)
{
    if (src[0] == 0)
        return;
    if (agg.coltype == NUMERICOID) {
        combine_numeric(agg, dst, src);
        return;
    }
    if (value_agg_exact(agg)) {
        dst[0] += src[0];
        gh::exact_sum_merge(dst + 1, src + 1);
        return;
    }
    if (dst[0] == 0) {
        memcpy(dst, src, sizeof(int64) * 3);
        return;
    }
    if (agg.kind == AggKind::min || agg.kind == AggKind::max) {
        /* src's value as one more value after dst's */
        if (is_float(agg.coltype)) {
            add_float_extreme(agg, dst, cell_double(src[1]));
            dst[0] += src[0] - 1;
        } else {
            add_word(agg, dst, src[1]);
            dst[0] += src[0] - 1;
        }
        return;
    }
    /* integer sums and means: int8's in 128 bits */
    dst[0] += src[0];
    if (agg.coltype == INT8OID) {
        add_int128(dst + 1, cells_int128(src + 1));
    } else {
        dst[1] += src[1];
    }
}

void value_agg_combine_gpu(const ScanAggregate &agg, int64 *dst, const int64 *gpu)
{
    if (agg.kind != AggKind::min && agg.kind != AggKind::max) {
        value_agg_combine(agg, dst, gpu);
        return;
    }
    const uint64 key = static_cast<uint64>(gpu[1]);
    const int64 state[3] = {gpu[0], gh::page_agg_word(agg.kind == AggKind::min ? ~key : key, is_float(agg.coltype)), 0};
    value_agg_combine(agg, dst, state);
}

namespace {

/* value_agg_add() with each row's cells groups(i), a function of its place. */
template <typename Groups>
void add_values(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                const double *values, const bool *nulls, Groups groups, int n, bool reversed)
{
    if (value_agg_exact(agg)) {
        exact_sums(values, nulls, groups, n);
        return;
    }
    if (is_float(agg.coltype)) {
        /* in the rows' order: of a -0 and a 0, or two NaNs, the state keeps the one PostgreSQL's would */
        if (agg.kind == AggKind::max)
            float_extremes<true>(values, nulls, groups, n, reversed);
        else
            float_extremes<false>(values, nulls, groups, n, reversed);
        return;
    }
    if (agg.coltype == NUMERICOID) {
        for (int i = 0; i < n; i++) {
            int64 units;
            bool nan;
            int64 *c = groups(i);
            if (c != NULL && heap_column_numeric_units(col, desc, &tuples[i], agg.scale, &units, &nan))
                add_numeric(agg, c, nan, units);
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        const int i = reversed ? n - 1 - j : j;
        int64 v;
        int64 *c = groups(i);
        if (c != NULL && heap_column_word(col, desc, const_cast<HeapTupleData *>(&tuples[i]), &v))
            add_word(agg, c, v);
    }
}

} // namespace

void value_agg_add(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                   const double *values, const bool *nulls, int64 *const *groups, int n, bool reversed)
{
    add_values(agg, col, desc, tuples, values, nulls, [groups](int i) { return groups[i]; }, n, reversed);
}

void value_agg_add_one(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                       const double *values, const bool *nulls, int64 *cells, int n, bool reversed)
{
    if (is_float(agg.coltype) && (agg.kind == AggKind::max || agg.kind == AggKind::min)) {
        double best = 0;
        const int rows = agg.kind == AggKind::max ? page_extreme<true>(values, nulls, n, reversed, &best)
                                                  : page_extreme<false>(values, nulls, n, reversed, &best);
        if (rows > 0) {
            add_float_extreme(agg, cells, best); /* counts one row */
            cells[0] += rows - 1;
        }
        return;
    }
    if (value_agg_exact(agg) && exact_page_sum(values, nulls, n, cells))
        return;
    add_values(agg, col, desc, tuples, values, nulls, [cells](int) { return cells; }, n, reversed);
}

Datum value_agg_result(const ScanAggregate &agg, const int64 *c, bool partial, bool *isnull)
{
    static const int64 none[1 + gh::kExactCells] = {};
    if (c == NULL)
        c = none;
    const int64 n = c[0];
    *isnull = false;
    if (agg.coltype == NUMERICOID) { /* never partial: value_aggregate_partial() */
        *isnull = n == 0;
        return n == 0 ? 0 : numeric_result(agg, c);
    }
    if (agg.kind == AggKind::avg && partial) {
        /*
         * The states' initial values are not NULL: {0,0} and {0,0,0}.  A
         * mean's Sxx serves only var_ and stddev_, never avg: NaN, which
         * float8_combine carries without the overflow check that a made-up
         * finite one could trip.
         */
        if (is_float(agg.coltype))
            return float8_array(static_cast<double>(n), n == 0 ? 0.0 : exact_result(agg, c),
                                n == 0 ? 0.0 : get_float8_nan());
        return int8_array(n, c[1]);
    }
    if (n == 0) {
        *isnull = true;
        return 0;
    }
    switch (agg.kind) {
    case AggKind::sum:
        switch (agg.coltype) {
        case INT8OID: return int128_numeric(cells_int128(c + 1));
        case FLOAT4OID: return Float4GetDatum(static_cast<float4>(exact_result(agg, c)));
        case FLOAT8OID: return Float8GetDatum(exact_result(agg, c));
        }
        return Int64GetDatum(c[1]);
    case AggKind::avg: {
        if (is_float(agg.coltype))
            return Float8GetDatum(exact_result(agg, c) / static_cast<double>(n));
        Datum sum = agg.coltype == INT8OID
                        ? int128_numeric(cells_int128(c + 1))
                        : NumericGetDatum(int64_to_numeric(c[1]));
        return DirectFunctionCall2(numeric_div, sum, NumericGetDatum(int64_to_numeric(n)));
    }
    case AggKind::min:
    case AggKind::max: return value_datum(agg.coltype, c[1]);
    default: break;
    }
    *isnull = true;
    return 0;
}

} // namespace gpu_histogram
