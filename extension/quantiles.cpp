/*
 * quantiles.cpp: gpu_histogram_quantile and gpu_histogram_quantile_bounds,
 * a percentile read back from a histogram of any form (width_bucket, time,
 * thresholds), so that a dashboard draws its p50, p95 and p99 lines from
 * the heatmap it already has instead of sorting every row again.
 *
 * A histogram knows a value only up to its bucket, so there are two
 * answers, and both are the user's:
 *  - the estimate, as Prometheus's histogram_quantile computes it: the
 *    rank is q times the rows, the bucket is the first whose running count
 *    reaches it (the bucket of percentile_disc's row), and inside it the
 *    rows are taken as spread evenly between its edges;
 *  - the bound: the edges between which percentile_cont's and
 *    percentile_disc's answers on the same rows must lie.  percentile_cont
 *    interpolates between rows floor(q (N - 1)) and ceil(q (N - 1)), which
 *    can sit in two buckets; the bound then runs from the first one's lower
 *    edge to the second one's upper edge.
 *
 * The edges are the ones gpu_histogram_buckets shows (bucket_edges.h), so
 * that a user can join the two.  They are nominal: width_bucket's rounding
 * can count a value within a few units in the last place of an edge in the
 * bucket beside it, and such a row can lie that far outside its bound.
 * Everything here is plain arithmetic on the stored counts.
 */
#include "pg_headers.h"

extern "C" {
#include "utils/lsyscache.h"
}

#include "bucket_edges.h"
#include "errors.h"
#include "../gpu/formulas/time_bucket.h"

#include <cmath>

namespace gpu_histogram {

namespace {

enum class Form { width_bucket, time, dates, thresholds };

/*
 * A stored histogram and the layout its counts were binned by.  Slot s is
 * element s + 1 of the array (bucket s); "ascending" says whether slot 0
 * holds the smallest values (lo < hi) or the largest (lo > hi).
 */
struct Ladder {
    Form form;
    const int64 *counts;
    int32 n;
    bool ascending;
    int64 total;
    gh::BucketSpec spec;       /* width_bucket */
    gh::Int64Binning binning;  /* time: microseconds, dates: days */
    const double *thresholds;  /* thresholds: n - 1 of them */
};

/*
 * The values a slot holds lie between lower and upper (inclusive: an edge
 * shared with the next slot belongs to one of the two).
 * An outer slot reaches infinity on one side.  long double holds every
 * float8 and every int64 exactly, so the edges of all forms fit.
 */
struct Span {
    long double lower;
    long double upper;
    bool open_below;
    bool open_above;
};

/*
 * Along the numbering, where bucket b (1 .. nbins + 1) begins, as
 * gpu_histogram_buckets shows it; a date edge as its timestamp.
 */
long double first_in(const Ladder &h, int32 b)
{
    switch (h.form) {
    case Form::width_bucket: return nominal_edge(h.spec.lo, h.spec.hi, b - 1, h.spec.nbins);
    case Form::time: return time_edge(h.binning.lo, h.binning.hi, b - 1, h.binning.nbins);
    case Form::dates:
        return timestamp_of_date_edge(static_cast<DateADT>(time_edge(h.binning.lo, h.binning.hi, b - 1, h.binning.nbins)));
    case Form::thresholds: return h.thresholds[b - 1];
    }
    return 0;
}

/* Slot of the i-th bucket in the order of the values. */
int32 slot_at(const Ladder &h, int32 i)
{
    return h.ascending ? i : h.n - 1 - i;
}

/*
 * The values of the i-th bucket in value order.  An infinite or NaN
 * threshold leaves its side open too: nothing can be interpolated to it.
 */
Span span_at(const Ladder &h, int32 i)
{
    int32 s = slot_at(h, i);
    Span sp{0, 0, false, false};
    /* along the numbering, bucket s starts at first_in(s) and the next one at first_in(s + 1) */
    bool no_start = s == 0, no_next = s == h.n - 1;
    long double start = no_start ? 0 : first_in(h, s), next = no_next ? 0 : first_in(h, s + 1);
    if (h.ascending) {
        sp.open_below = no_start;
        sp.lower = start;
        sp.open_above = no_next;
        sp.upper = next;
    } else {
        sp.open_below = no_next;
        sp.lower = next;
        sp.open_above = no_start;
        sp.upper = start;
    }
    if (!sp.open_below && !std::isfinite(sp.lower))
        sp.open_below = true;
    if (!sp.open_above && !std::isfinite(sp.upper))
        sp.open_above = true;
    return sp;
}

int64 count_at(const Ladder &h, int32 i)
{
    return h.counts[slot_at(h, i)];
}

/*
 * Where the estimate's rank lands: the value-order index of the first
 * non-empty bucket whose running count reaches q * total, and how far
 * into its rows the rank is (0 .. 1).  In float8, as Prometheus computes it.
 */
int32 rank_landing(const Ladder &h, double q, double *fraction)
{
    double rank = q * static_cast<double>(h.total);
    int64 before = 0;
    int32 last = -1;
    for (int32 i = 0; i < h.n; i++) {
        int64 c = count_at(h, i);
        if (c == 0)
            continue;
        last = i;
        if (static_cast<double>(before + c) >= rank) {
            double f = (rank - static_cast<double>(before)) / static_cast<double>(c);
            *fraction = f < 0 ? 0 : (f > 1 ? 1 : f);
            return i;
        }
        before += c;
    }
    *fraction = 1;
    return last;
}

/* The value-order index of the bucket holding row p (0-based) of the sorted rows. */
int32 row_bucket(const Ladder &h, int64 p)
{
    int64 cum = 0;
    int32 last = -1;
    for (int32 i = 0; i < h.n; i++) {
        int64 c = count_at(h, i);
        if (c == 0)
            continue;
        last = i;
        cum += c;
        if (cum > p)
            return i;
    }
    return last;
}

/*
 * The estimate for q, or false where there is none (a bucket with no
 * finite edge: a histogram over infinite or NaN thresholds).  A rank in a
 * bucket open on one side gives its finite edge, which is then only a
 * bound: lo or hi as written for the outer buckets.
 */
bool estimate(const Ladder &h, double q, long double *value)
{
    double fraction;
    int32 i = rank_landing(h, q, &fraction);
    Span sp = span_at(h, i);
    if (sp.open_below && sp.open_above)
        return false;
    if (sp.open_below || sp.open_above) {
        *value = sp.open_below ? sp.upper : sp.lower;
        return true;
    }
    long double v = sp.lower + (sp.upper - sp.lower) * static_cast<long double>(fraction);
    *value = v < sp.lower ? sp.lower : (v > sp.upper ? sp.upper : v);
    return true;
}

/* The bound of q: see the file's comment.  Rows as percentile_cont numbers them, in float8. */
Span bound(const Ladder &h, double q)
{
    double r = q * static_cast<double>(h.total - 1);
    Span first = span_at(h, row_bucket(h, static_cast<int64>(floor(r))));
    Span second = span_at(h, row_bucket(h, static_cast<int64>(ceil(r))));
    return Span{first.lower, second.upper, first.open_below, second.open_above};
}

/* percentile_cont's check of a fraction, with its SQLSTATE and words. */
void check_fraction(double q)
{
    if (q < 0 || q > 1 || std::isnan(q))
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("percentile value %g is not between 0 and 1", q)));
}

/*
 * The histogram (argument 0) and its layout (the arguments after it),
 * checked as gpu_histogram_buckets checks them; the total of its counts.
 */
Ladder read_ladder(FunctionCallInfo fcinfo, Form form)
{
    Ladder h{};
    h.form = form;
    ArrayType *hist = PG_GETARG_ARRAYTYPE_P(0);
    if (form == Form::thresholds) {
        ArrayType *thresholds = PG_GETARG_ARRAYTYPE_P(1);
        int32 count = checked_thresholds_histogram(hist, thresholds);
        if (count == 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("a histogram over no thresholds has no quantiles"),
                            errdetail("Its one bucket holds every value, with no edge on either side.")));
        h.thresholds = reinterpret_cast<const double *>(ARR_DATA_PTR(thresholds));
        for (int32 k = 1; k < count; k++)
            if (float8_gt(h.thresholds[k - 1], h.thresholds[k]))
                ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                                errmsg("thresholds must be in ascending order for a quantile"),
                                errdetail("Threshold %d is less than the one before it.", k + 1)));
        h.ascending = true;
    } else {
        check_histogram_counts(hist, 3);
        int32 nbins = ARR_DIMS(hist)[0] - 2;
        if (form == Form::width_bucket) {
            h.spec = checked_spec(PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2), nbins);
            h.ascending = h.spec.lo < h.spec.hi;
        } else {
            int64 lo = form == Form::dates ? PG_GETARG_DATEADT(1) : PG_GETARG_INT64(1);
            int64 hi = form == Form::dates ? PG_GETARG_DATEADT(2) : PG_GETARG_INT64(2);
            gh::Int64Spec spec =
                checked_int64_spec(lo, hi, nbins, time_bounds_infinite(lo, hi, form == Form::dates));
            h.binning = gh::prepare_int64(spec);
            h.ascending = lo < hi;
        }
    }
    h.counts = reinterpret_cast<const int64 *>(ARR_DATA_PTR(hist));
    h.n = ARR_DIMS(hist)[0];
    for (int32 s = 0; s < h.n; s++)
        if (pg_add_s64_overflow(h.total, h.counts[s], &h.total))
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                            errmsg("the histogram's counts add up to more than bigint holds")));
    return h;
}

/* The argument that holds q: after lo and hi, or after the thresholds. */
int q_argument(Form form)
{
    return form == Form::thresholds ? 2 : 3;
}

/* A value of the estimate or a bound as the result's type: float8, or a timestamp rounded to the microsecond. */
Datum as_result(Form form, long double v)
{
    if (form == Form::width_bucket || form == Form::thresholds)
        return Float8GetDatum(static_cast<double>(v));
    return TimestampGetDatum(static_cast<Timestamp>(llroundl(v)));
}

Datum open_end(Form form, bool above)
{
    if (form == Form::width_bucket || form == Form::thresholds)
        return Float8GetDatum(above ? get_float8_infinity() : -get_float8_infinity());
    return TimestampGetDatum(above ? DT_NOEND : DT_NOBEGIN);
}

/* gpu_histogram_quantile(hist, ..., q float8). */
Datum quantile(FunctionCallInfo fcinfo, Form form)
{
    Ladder h = read_ladder(fcinfo, form);
    double q = PG_GETARG_FLOAT8(q_argument(form));
    /* as percentile_cont: the fraction is checked even when there are no rows */
    check_fraction(q);
    long double v;
    if (h.total == 0 || !estimate(h, q, &v))
        PG_RETURN_NULL();
    return as_result(form, v);
}

/* gpu_histogram_quantile(hist, ..., q float8[]): one estimate per fraction, in the array's shape. */
Datum quantiles(FunctionCallInfo fcinfo, Form form)
{
    Ladder h = read_ladder(fcinfo, form);
    ArrayType *fractions = PG_GETARG_ARRAYTYPE_P(q_argument(form));
    /* as percentile_cont's array form: no rows is NULL before the fractions are looked at */
    if (h.total == 0)
        PG_RETURN_NULL();
    Oid result_type = get_element_type(get_fn_expr_rettype(fcinfo->flinfo));
    if (!OidIsValid(result_type))
        elog(ERROR, "gpu_histogram_quantile: could not determine the result's element type");
    int ndim = ARR_NDIM(fractions);
    if (ndim == 0)
        PG_RETURN_ARRAYTYPE_P(construct_empty_array(result_type));
    Datum *elems;
    bool *nulls;
    int count;
    deconstruct_array(fractions, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, &count);
    for (int i = 0; i < count; i++)
        if (!nulls[i])
            check_fraction(DatumGetFloat8(elems[i]));
    Datum *results = static_cast<Datum *>(palloc(sizeof(Datum) * count));
    bool *result_nulls = static_cast<bool *>(palloc(sizeof(bool) * count));
    for (int i = 0; i < count; i++) {
        long double v;
        result_nulls[i] = nulls[i] || !estimate(h, DatumGetFloat8(elems[i]), &v);
        results[i] = result_nulls[i] ? (Datum)0 : as_result(form, v);
        CHECK_FOR_INTERRUPTS();
    }
    int16 typlen;
    bool typbyval;
    char typalign;
    get_typlenbyvalalign(result_type, &typlen, &typbyval, &typalign);
    PG_RETURN_ARRAYTYPE_P(construct_md_array(results, result_nulls, ndim, ARR_DIMS(fractions), ARR_LBOUND(fractions),
                                             result_type, typlen, typbyval, typalign));
}

/* gpu_histogram_quantile_bounds(hist, ..., q, OUT lower, OUT upper). */
Datum quantile_bounds(FunctionCallInfo fcinfo, Form form)
{
    Ladder h = read_ladder(fcinfo, form);
    double q = PG_GETARG_FLOAT8(q_argument(form));
    check_fraction(q);
    if (h.total == 0)
        PG_RETURN_NULL();
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "gpu_histogram_quantile_bounds: the result must be a record of lower and upper");
    desc = BlessTupleDesc(desc);
    Span sp = bound(h, q);
    Datum values[2] = {sp.open_below ? open_end(form, false) : as_result(form, sp.lower),
                       sp.open_above ? open_end(form, true) : as_result(form, sp.upper)};
    bool nulls[2] = {false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

} // namespace

GH_FUNCTION(gpu_histogram_quantile)
{
    return quantile(fcinfo, Form::width_bucket);
}

GH_FUNCTION(gpu_histogram_quantile_array)
{
    return quantiles(fcinfo, Form::width_bucket);
}

GH_FUNCTION(gpu_histogram_quantile_bounds)
{
    return quantile_bounds(fcinfo, Form::width_bucket);
}

/* The time form's, for timestamptz and timestamp bounds alike: both count microseconds. */
GH_FUNCTION(gpu_histogram_quantile_time)
{
    return quantile(fcinfo, Form::time);
}

GH_FUNCTION(gpu_histogram_quantile_time_array)
{
    return quantiles(fcinfo, Form::time);
}

GH_FUNCTION(gpu_histogram_quantile_bounds_time)
{
    return quantile_bounds(fcinfo, Form::time);
}

/* date bounds: the answers are timestamps, as gpu_histogram_buckets gives a date histogram's edges. */
GH_FUNCTION(gpu_histogram_quantile_date)
{
    return quantile(fcinfo, Form::dates);
}

GH_FUNCTION(gpu_histogram_quantile_date_array)
{
    return quantiles(fcinfo, Form::dates);
}

GH_FUNCTION(gpu_histogram_quantile_bounds_date)
{
    return quantile_bounds(fcinfo, Form::dates);
}

GH_FUNCTION(gpu_histogram_quantile_thresholds)
{
    return quantile(fcinfo, Form::thresholds);
}

GH_FUNCTION(gpu_histogram_quantile_thresholds_array)
{
    return quantiles(fcinfo, Form::thresholds);
}

GH_FUNCTION(gpu_histogram_quantile_bounds_thresholds)
{
    return quantile_bounds(fcinfo, Form::thresholds);
}

} // namespace gpu_histogram
