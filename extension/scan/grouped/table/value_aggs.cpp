/*
 * value_aggs.cpp: sum, avg, min and max beside the histograms
 * (value_aggs.h).
 *
 * Each step is the step of PostgreSQL's transition function for the
 * aggregate's OID (pg_aggregate): int2_sum and int4_sum add into an int8,
 * int4_avg_accum counts and adds, int8_avg_accum adds into 128 bits,
 * float4pl and float8pl are float4_pl and float8_pl (utils/float.h, which
 * raise the overflow error), float4_accum and float8_accum are
 * Youngs-Cramer's update of (N, Sx, Sxx) with their overflow check, and
 * the larger and smaller functions keep the state unless the new value
 * wins by float8_gt and float8_lt (NaN above everything).  The finals are
 * int8_avg, numeric_poly_sum, numeric_poly_avg and float8_avg.
 */
#include "value_aggs.h"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
}

#include <cmath>

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
            __int128 s = (static_cast<__int128>(c[2]) << 64) | static_cast<uint64>(c[1]);
            s += v;
            c[1] = static_cast<int64>(static_cast<uint64>(s));
            c[2] = static_cast<int64>(s >> 64);
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

/*
 * A float aggregate's cells while a run of rows of one group is added:
 * in registers, not through memory, from one row to the next.
 */
struct FloatState {
    int64 n;
    double a; /* sum: the sum; avg: Sx; min, max: the value */
    double sxx;
};

inline FloatState load_float(const int64 *c)
{
    return FloatState{c[0], cell_double(c[1]), cell_double(c[2])};
}

inline void store_float(int64 *c, const FloatState &f)
{
    c[0] = f.n;
    c[1] = double_cell(f.a);
    c[2] = double_cell(f.sxx);
}

inline void add_float(const ScanAggregate &agg, FloatState &f, double x)
{
    const int64 n = f.n++;
    switch (agg.kind) {
    case AggKind::sum:
        if (n == 0)
            f.a = x;
        else if (agg.coltype == FLOAT4OID)
            f.a = float4_pl(static_cast<float4>(f.a), static_cast<float4>(x));
        else
            f.a = float8_pl(f.a, x);
        return;
    case AggKind::avg: {
        /* float8_accum, float4_accum: the new value as a float8 */
        const double old_n = static_cast<double>(n);
        const double old_sx = f.a;
        const double N = old_n + 1.0;
        const double Sx = old_sx + x;
        double Sxx = f.sxx;
        if (old_n > 0.0) {
            const double tmp = x * N - Sx;
            Sxx += tmp * tmp / (N * old_n);
            if (std::isinf(Sx) || std::isinf(Sxx)) {
                if (!std::isinf(old_sx) && !std::isinf(x))
                    float_overflow_error();
                Sxx = get_float8_nan();
            }
        } else if (std::isnan(x) || std::isinf(x)) {
            Sxx = get_float8_nan();
        }
        f.a = Sx;
        f.sxx = Sxx;
        return;
    }
    case AggKind::min:
        /* float8smaller: the state stays only if it is less */
        if (n == 0 || !float8_lt(f.a, x))
            f.a = x;
        return;
    case AggKind::max:
        if (n == 0 || !float8_gt(f.a, x))
            f.a = x;
        return;
    default: return;
    }
}

/* A 128-bit integer as a numeric, through its decimal digits. */
Datum int128_numeric(__int128 v)
{
    char buf[48];
    char *p = buf + sizeof buf;
    *--p = '\0';
    const bool negative = v < 0;
    unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
    do {
        *--p = static_cast<char>('0' + static_cast<int>(u % 10));
        u /= 10;
    } while (u != 0);
    if (negative)
        *--p = '-';
    return DirectFunctionCall3(numeric_in, CStringGetDatum(p), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
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

void value_agg_add(const ScanAggregate &agg, const HeapColumn &col, TupleDesc desc, const HeapTupleData *tuples,
                   const double *values, const bool *nulls, int64 *const *groups, int n, bool reversed)
{
    if (is_float(agg.coltype)) {
        /* a time-ordered table brings long runs of one group: each run's state stays in registers */
        int64 *run = NULL;
        FloatState f{};
        for (int j = 0; j < n; j++) {
            const int i = reversed ? n - 1 - j : j;
            if (nulls[i] || groups[i] == NULL)
                continue;
            if (groups[i] != run) {
                if (run != NULL)
                    store_float(run, f);
                run = groups[i];
                f = load_float(run);
            }
            add_float(agg, f, values[i]);
        }
        if (run != NULL)
            store_float(run, f);
        return;
    }
    for (int j = 0; j < n; j++) {
        const int i = reversed ? n - 1 - j : j;
        int64 v;
        if (groups[i] != NULL && heap_column_word(col, desc, const_cast<HeapTupleData *>(&tuples[i]), &v))
            add_word(agg, groups[i], v);
    }
}

Datum value_agg_result(const ScanAggregate &agg, const int64 *c, bool partial, bool *isnull)
{
    static const int64 none[kValueAggCells] = {0, 0, 0};
    if (c == NULL)
        c = none;
    const int64 n = c[0];
    *isnull = false;
    if (agg.kind == AggKind::avg && partial) {
        /* the states' initial values are not NULL: {0,0} and {0,0,0} */
        if (is_float(agg.coltype))
            return float8_array(static_cast<double>(n), cell_double(c[1]), cell_double(c[2]));
        return int8_array(n, c[1]);
    }
    if (n == 0) {
        *isnull = true;
        return 0;
    }
    switch (agg.kind) {
    case AggKind::sum:
        switch (agg.coltype) {
        case INT8OID: return int128_numeric((static_cast<__int128>(c[2]) << 64) | static_cast<uint64>(c[1]));
        case FLOAT4OID: return Float4GetDatum(static_cast<float4>(cell_double(c[1])));
        case FLOAT8OID: return Float8GetDatum(cell_double(c[1]));
        }
        return Int64GetDatum(c[1]);
    case AggKind::avg: {
        if (is_float(agg.coltype))
            return Float8GetDatum(cell_double(c[1]) / static_cast<double>(n));
        Datum sum = agg.coltype == INT8OID
                        ? int128_numeric((static_cast<__int128>(c[2]) << 64) | static_cast<uint64>(c[1]))
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
