--
-- quantiles: gpu_histogram_quantile and gpu_histogram_quantile_bounds,
-- checked against PostgreSQL's percentile_cont and percentile_disc over
-- the same rows.  The estimate is the histogram's (Prometheus's
-- interpolation inside a bucket); what must always hold is that both of
-- PostgreSQL's answers, and the estimate, lie within the bounds.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS qt_rows, qt_edges, qt_specials;
RESET client_min_messages;
SET timezone = 'America/New_York';

-- Skewed values, some below 0 and above 100, some NULL; times across the
-- spring-forward night of 2024-03-10; five groups.
CREATE TABLE qt_rows AS
SELECT i, i % 5 AS g,
       CASE WHEN i % 97 = 0 THEN NULL
            ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) ^ 3 * 120 - 10 END AS x,
       timestamptz '2024-03-09 00:00' + (i * 7919 % 172800) * interval '1 second' AS ts
FROM generate_series(1, 20000) i;

CREATE FUNCTION qt_qs() RETURNS float8[] LANGUAGE sql IMMUTABLE
AS $$ SELECT ARRAY[0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1]::float8[] $$;

-- What a dashboard asks: p50, p95, p99 beside percentile_cont.
SELECT g, gpu_histogram_quantile(gpu_histogram(x, 0, 100, 20), 0, 100, ARRAY[0.5, 0.95, 0.99]) AS estimate,
       percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x) AS cont
FROM qt_rows GROUP BY g ORDER BY g;

-- The width_bucket form: every layout x group x fraction.  Ascending,
-- descending, uneven widths, a thousand narrow buckets, a range that leaves
-- most rows outside.
WITH specs(lo, hi, nbins) AS (VALUES (0::float8, 100::float8, 20), (100, 0, 20), (-10, 110, 7), (0, 50, 1000), (20, 30, 4)),
hists AS (
    SELECT s.lo, s.hi, s.nbins, r.g, gpu_histogram(r.x, s.lo, s.hi, s.nbins) AS h
    FROM specs s, qt_rows r GROUP BY 1, 2, 3, 4),
truth AS (
    SELECT g, percentile_cont(qt_qs()) WITHIN GROUP (ORDER BY x) AS cont,
           percentile_disc(qt_qs()) WITHIN GROUP (ORDER BY x) AS disc
    FROM qt_rows GROUP BY g),
checks AS (
    SELECT h.lo, h.hi, k.q, t.cont[k.i] AS c, t.disc[k.i] AS d,
           gpu_histogram_quantile(h.h, h.lo, h.hi, k.q) AS est,
           (gpu_histogram_quantile(h.h, h.lo, h.hi, qt_qs()))[k.i] AS est_from_array, b.lower, b.upper
    FROM hists h JOIN truth t USING (g), unnest(qt_qs()) WITH ORDINALITY k(q, i),
         gpu_histogram_quantile_bounds(h.h, h.lo, h.hi, k.q) b)
SELECT count(*) AS checked,
       count(*) FILTER (WHERE NOT (lower <= c AND c <= upper)) AS cont_outside,
       count(*) FILTER (WHERE NOT (lower <= d AND d <= upper)) AS disc_outside,
       count(*) FILTER (WHERE NOT (lower <= est AND est <= upper)) AS estimate_outside,
       count(*) FILTER (WHERE est IS DISTINCT FROM est_from_array) AS array_differs,
       count(*) FILTER (WHERE lower = '-Infinity' OR upper = 'Infinity') AS open_ended
FROM checks;

-- One layout in full: the estimate, the bound, and PostgreSQL's answers.
SELECT k.q, gpu_histogram_quantile(s.h, 0, 128, k.q) AS estimate, b.lower, b.upper,
       (SELECT percentile_cont(k.q) WITHIN GROUP (ORDER BY x) FROM qt_rows) AS cont,
       (SELECT percentile_disc(k.q) WITHIN GROUP (ORDER BY x) FROM qt_rows) AS disc
FROM (SELECT gpu_histogram(x, 0, 128, 16) AS h FROM qt_rows) s, unnest(qt_qs()) k(q),
     gpu_histogram_quantile_bounds(s.h, 0, 128, k.q) b
ORDER BY k.q;

-- Values sitting on the bucket edges (lo 0, hi 64, 64 buckets: every edge
-- exact under both of PostgreSQL's width_bucket formulas), 641 rows so that
-- q (N - 1) is a whole row for these q: the lower bound is percentile_cont's
-- and percentile_disc's answer exactly.
CREATE TABLE qt_edges AS SELECT (i % 64)::float8 AS e FROM generate_series(1, 641) i;
SELECT k.q, b.lower, b.upper,
       (SELECT percentile_cont(k.q) WITHIN GROUP (ORDER BY e) FROM qt_edges) AS cont,
       (SELECT percentile_disc(k.q) WITHIN GROUP (ORDER BY e) FROM qt_edges) AS disc,
       gpu_histogram_quantile(s.h, 0, 64, k.q) AS estimate
FROM (SELECT gpu_histogram(e, 0, 64, 64) AS h FROM qt_edges) s,
     unnest(ARRAY[0, 0.25, 0.5, 0.9, 0.95, 1]::float8[]) k(q),
     gpu_histogram_quantile_bounds(s.h, 0, 64, k.q) b
ORDER BY k.q;

-- Where percentile_cont falls between two rows of different buckets, the
-- bound runs from the first one's lower edge to the second one's upper edge.
SELECT b.*, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM (VALUES (1.0::float8), (9.0)) v(v)) AS cont,
       gpu_histogram_quantile(h, 0, 10, 0.5) AS estimate
FROM (SELECT gpu_histogram(v, 0, 10, 10) AS h FROM (VALUES (1.0::float8), (9.0)) v(v)) s,
     gpu_histogram_quantile_bounds(s.h, 0, 10, 0.5) b;

-- Outer buckets: a rank below lo gives lo, at or above hi gives hi, each
-- then only a bound; mirrored for lo > hi.
SELECT gpu_histogram_quantile('{5,0,0,0}', 0, 10, 0.5) AS below,
       gpu_histogram_quantile('{0,0,0,5}', 0, 10, 0.5) AS above,
       gpu_histogram_quantile('{5,0,0,0}', 10, 0, 0.5) AS above_lo_desc,
       gpu_histogram_quantile('{0,0,0,5}', 10, 0, 0.5) AS below_hi_desc;
SELECT * FROM gpu_histogram_quantile_bounds('{5,0,0,0}', 0, 10, 0.5);
SELECT * FROM gpu_histogram_quantile_bounds('{0,0,0,5}', 0, 10, 0.5);
SELECT * FROM gpu_histogram_quantile_bounds('{5,0,0,0}', 10, 0, 0.5);
SELECT * FROM gpu_histogram_quantile_bounds('{0,0,0,5}', 10, 0, 0.5);
-- all rows in one bucket; q = 0 and q = 1 are its edges
SELECT gpu_histogram_quantile('{0,0,7,0,0}', 0, 30, ARRAY[0, 0.5, 1]) AS one_bucket;
SELECT * FROM gpu_histogram_quantile_bounds('{0,0,7,0,0}', 0, 30, 1);
-- infinities count in the outer buckets
SELECT gpu_histogram_quantile(gpu_histogram(v, 0, 10, 5), 0, 10, ARRAY[0, 0.5, 1]) AS est,
       percentile_cont(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY v) AS cont
FROM (VALUES ('-Infinity'::float8), (3), ('Infinity')) v(v);

-- The time form, in a zone with DST: percentile_disc on the times
-- themselves, percentile_cont on their microseconds.
WITH hists AS (
    SELECT g, gpu_histogram(ts, '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', 48) AS h,
           gpu_histogram(ts::timestamp, '2024-03-09 00:00'::timestamp, '2024-03-11 00:00', 36) AS hl,
           gpu_histogram(ts::date, '2024-03-09'::date, '2024-03-11', 2) AS hd,
           percentile_disc(qt_qs()) WITHIN GROUP (ORDER BY ts) AS disc,
           percentile_disc(qt_qs()) WITHIN GROUP (ORDER BY ts::timestamp) AS disc_local,
           percentile_disc(qt_qs()) WITHIN GROUP (ORDER BY ts::date) AS disc_date,
           percentile_cont(qt_qs()) WITHIN GROUP (ORDER BY (extract(epoch FROM ts) * 1000000)::float8) AS cont_us
    FROM qt_rows GROUP BY g),
checks AS (
    SELECT k.q, disc[k.i] AS d, disc_local[k.i] AS dl, disc_date[k.i] AS dd, cont_us[k.i] AS c,
           gpu_histogram_quantile(h, '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', k.q) AS est,
           b.lower, b.upper, bl.lower AS l_lower, bl.upper AS l_upper, bd.lower AS d_lower, bd.upper AS d_upper
    FROM hists, unnest(qt_qs()) WITH ORDINALITY k(q, i),
         gpu_histogram_quantile_bounds(h, '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', k.q) b,
         gpu_histogram_quantile_bounds(hl, '2024-03-09 00:00'::timestamp, '2024-03-11 00:00', k.q) bl,
         gpu_histogram_quantile_bounds(hd, '2024-03-09'::date, '2024-03-11', k.q) bd)
SELECT count(*) AS checked,
       count(*) FILTER (WHERE NOT (lower <= d AND d <= upper)) AS disc_outside,
       count(*) FILTER (WHERE NOT ((extract(epoch FROM lower) * 1000000)::float8 <= c
                                   AND c <= (extract(epoch FROM upper) * 1000000)::float8)) AS cont_outside,
       count(*) FILTER (WHERE NOT (lower <= est AND est <= upper)) AS estimate_outside,
       count(*) FILTER (WHERE NOT (l_lower <= dl AND dl <= l_upper)) AS local_outside,
       count(*) FILTER (WHERE NOT (d_lower <= dd AND dd <= d_upper)) AS date_outside
FROM checks;
SELECT gpu_histogram_quantile(gpu_histogram(ts, '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', 48),
                              '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', ARRAY[0.5, 0.99]) AS p50_p99,
       percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY ts) AS disc
FROM qt_rows;
SELECT gpu_histogram_quantile('{0,3,1,0}'::bigint[], '2024-03-11'::date, '2024-03-09'::date, ARRAY[0, 0.5, 1]) AS date_desc;
SELECT * FROM gpu_histogram_quantile_bounds('{0,0,0,2}'::bigint[], '2024-01-01'::timestamp, '2024-01-04'::timestamp, 0.5);

-- The thresholds form, with NaN and infinities among the rows: NaN sorts
-- above every number, as in percentile_cont, and lands in the top bucket,
-- which reaches Infinity (so a NaN answer is "above the last threshold").
CREATE TABLE qt_specials AS
SELECT x FROM qt_rows UNION ALL VALUES ('NaN'::float8), ('Infinity'), ('-Infinity'), (NULL);
WITH th(t) AS (VALUES (ARRAY[0, 1, 5, 10, 50, 90, 100]::float8[]), (ARRAY[-5, -5, 0, 200]::float8[])),
hists AS (SELECT th.t, gpu_histogram(x, th.t) AS h FROM th, qt_specials GROUP BY th.t),
truth AS (SELECT percentile_cont(qt_qs()) WITHIN GROUP (ORDER BY x) AS cont,
                 percentile_disc(qt_qs()) WITHIN GROUP (ORDER BY x) AS disc FROM qt_specials),
checks AS (
    SELECT k.q, cont[k.i] AS c, disc[k.i] AS d, gpu_histogram_quantile(h, t, k.q) AS est, b.lower, b.upper
    FROM hists, truth, unnest(qt_qs()) WITH ORDINALITY k(q, i), gpu_histogram_quantile_bounds(h, t, k.q) b)
SELECT count(*) AS checked,
       count(*) FILTER (WHERE NOT (lower <= c AND (c <= upper OR upper = 'Infinity'))) AS cont_outside,
       count(*) FILTER (WHERE NOT (lower <= d AND (d <= upper OR upper = 'Infinity'))) AS disc_outside,
       count(*) FILTER (WHERE NOT (lower <= est AND est <= upper)) AS estimate_outside
FROM checks;
SELECT gpu_histogram_quantile(gpu_histogram(x, ARRAY[0, 50, 100]::float8[]), ARRAY[0, 50, 100]::float8[],
                              ARRAY[0, 0.5, 0.999, 1]) AS est,
       percentile_disc(ARRAY[0, 0.5, 0.999, 1]) WITHIN GROUP (ORDER BY x) AS disc
FROM qt_specials;
SELECT * FROM gpu_histogram_quantile_bounds('{0,0,4}'::bigint[], ARRAY[0, 50]::float8[], 0.5);

-- Merged histograms: the p50 and p99 of each group and of all rows come
-- from the same histograms, and the merge gives the whole table's.
WITH per_g AS (SELECT g, gpu_histogram(x, -10, 110, 24) AS h FROM qt_rows GROUP BY g)
SELECT gpu_histogram_quantile(gpu_histogram_merge(h), -10, 110, ARRAY[0.5, 0.99]) AS merged,
       (SELECT gpu_histogram_quantile(gpu_histogram(x, -10, 110, 24), -10, 110, ARRAY[0.5, 0.99]) FROM qt_rows) AS whole
FROM per_g;

-- The grouped scan's histograms: p50, p95 and p99 per hour, computed by
-- the custom scan, each within its bound of percentile_cont over the hour.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SELECT * FROM rt_explain($$
    SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 100, 50) AS h,
           gpu_histogram_quantile(gpu_histogram(x, 0, 100, 50), 0, 100, ARRAY[0.5, 0.95, 0.99]) AS lines
    FROM qt_rows GROUP BY 1 $$);
WITH scan AS MATERIALIZED (
    SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 100, 50) AS h,
           gpu_histogram_quantile(gpu_histogram(x, 0, 100, 50), 0, 100, ARRAY[0.5, 0.95, 0.99]) AS lines
    FROM qt_rows GROUP BY 1),
truth AS (
    SELECT date_trunc('hour', ts) AS hour, percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x) AS c
    FROM qt_rows GROUP BY 1)
SELECT count(*) AS hours,
       count(*) FILTER (WHERE NOT (b50.lower <= c[1] AND c[1] <= b50.upper AND b95.lower <= c[2] AND c[2] <= b95.upper
                                   AND b99.lower <= c[3] AND c[3] <= b99.upper)) AS outside,
       count(*) FILTER (WHERE NOT (b50.lower <= lines[1] AND lines[1] <= b50.upper
                                   AND b99.lower <= lines[3] AND lines[3] <= b99.upper)) AS estimate_outside
FROM scan JOIN truth USING (hour),
     gpu_histogram_quantile_bounds(h, 0, 100, 0.5) b50, gpu_histogram_quantile_bounds(h, 0, 100, 0.95) b95,
     gpu_histogram_quantile_bounds(h, 0, 100, 0.99) b99;
-- empty groups give NULL, as percentile_cont does
SELECT d.g, gpu_histogram_quantile(gpu_histogram(r.x, 0, 100, 20), 0, 100, 0.5) AS estimate,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.x) AS cont
FROM (VALUES (1), (99)) d(g) LEFT JOIN qt_rows r ON r.g = d.g
GROUP BY d.g ORDER BY d.g;

-- NULLs: the functions are strict; a NULL fraction in the array is a NULL
-- answer, as in percentile_cont; the array's shape is kept.
SELECT gpu_histogram_quantile(NULL, 0, 1, 0.5) IS NULL AS null_hist,
       gpu_histogram_quantile('{1,1,1}', 0, 1, NULL::float8) IS NULL AS null_q,
       gpu_histogram_quantile('{1,1,1}', 0, 1, ARRAY[0.5, NULL]) AS null_element,
       gpu_histogram_quantile('{1,1,1}', 0, 1, ARRAY[[0, 0.5], [0.75, 1]]) AS two_dimensions,
       gpu_histogram_quantile('{1,1,1}', 0, 1, '{}'::float8[]) AS no_fractions;
-- no rows: NULL
SELECT gpu_histogram_quantile('{0,0,0}', 0, 1, 0.5) AS scalar,
       gpu_histogram_quantile('{0,0,0}', 0, 1, ARRAY[0.5]) AS array_form,
       gpu_histogram_quantile_bounds('{0,0,0}', 0, 1, 0.5) AS bounds;

-- Errors, with percentile_cont's beside where it has one.
\set VERBOSITY sqlstate
SELECT gpu_histogram_quantile('{1,1,1}', 0, 1, 1.5);
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM qt_rows;
SELECT gpu_histogram_quantile('{1,1,1}', 0, 1, -0.1);
SELECT gpu_histogram_quantile('{1,1,1}', 0, 1, 'NaN'::float8);
SELECT gpu_histogram_quantile_bounds('{1,1,1}', 0, 1, 2);
SELECT gpu_histogram_quantile('{1,1,1}', 0, 1, ARRAY[0.5, 2]);
-- a fraction out of range with no rows: the scalar form checks it first, the array form returns NULL first
SELECT gpu_histogram_quantile('{0,0,0}', 0, 1, 2);
SELECT percentile_cont(2) WITHIN GROUP (ORDER BY x) FROM qt_rows WHERE false;
SELECT gpu_histogram_quantile('{0,0,0}', 0, 1, ARRAY[2]) IS NULL AS array_no_rows;
SELECT percentile_cont(ARRAY[2]) WITHIN GROUP (ORDER BY x) IS NULL AS cont_array_no_rows FROM qt_rows WHERE false;
-- histograms that are not one
SELECT gpu_histogram_quantile('{1,1}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{1,NULL,1}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{1,-1,1}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{{1,1,1}}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{9223372036854775807,1,1}', 0, 1, 0.5);
SELECT gpu_histogram_quantile('{1,1,1,1}', ARRAY[1, 2]::float8[], 0.5);
SELECT gpu_histogram_quantile('{1}', '{}'::float8[], 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', ARRAY[2, 1]::float8[], 0.5);
-- layouts width_bucket refuses, with its errors
SELECT gpu_histogram_quantile('{1,1,1}', 1, 1, 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', 'NaN', 1, 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', 0, 'Infinity', 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', '-infinity'::timestamptz, '2024-01-01'::timestamptz, 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', ARRAY[1, NULL]::float8[], 0.5);
\set VERBOSITY default
-- the words of three of them
SELECT gpu_histogram_quantile('{1,1,1}', 0, 1, 1.5);
SELECT gpu_histogram_quantile('{1,1,1,1}', ARRAY[1, 2]::float8[], 0.5);
SELECT gpu_histogram_quantile('{1,1,1}', ARRAY[2, 1]::float8[], 0.5);

DROP FUNCTION qt_qs();
DROP TABLE qt_rows, qt_edges, qt_specials;
RESET timezone;
