--
-- group_keys: GpuHistogramScan under GROUP BY.  Grouped queries whose
-- aggregates are gpu_histogram calls (with count(*) and count(col) beside
-- them) and whose keys are plain columns (int2, int4, int8, bool, date,
-- timestamp, timestamptz, text, varchar), date_trunc(unit, ts),
-- date_bin(stride, ts, origin), ts::date, or width_bucket(y, lo, hi, n) of
-- another column (a 2-D histogram): NULL keys, infinite timestamps, toasted
-- text keys, several session time zones across their DST changes, historical
-- local mean time and the far future, parallel plans, prepared statements,
-- WHERE clauses (also on a key's own expression, a HAVING clause on a key
-- and a view's qual on its key column), a tiny work_mem with many groups,
-- and the shapes that keep the ordinary plan.  Every answer is compared
-- with the ordinary plan's (gpu_histogram.scan = off), and once per key
-- kind with width_bucket and count(*) in plain SQL.  rt_compare() prints
-- one line per query: scan_planned | same | rows.
--
LOAD 'gpu_histogram'; -- the planner hook, also without shared_preload_libraries
SET client_min_messages = warning;
DROP TABLE IF EXISTS gk_t, gk_tz, gk_edge, gk_par CASCADE;
DROP FUNCTION IF EXISTS gk_plan_lines, gk_if_icu;
DROP COLLATION IF EXISTS gk_ci;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- plans that do not depend on what ran before: a table the GPU's page cache holds (read through
-- probes) costs less to scan serially (cached_cost.h); page_cache_checks.sh covers that on the GPU
SET gpu_histogram.page_probes = off;
-- the data is made in UTC (timestamptz plus an interval of days or months
-- depends on TimeZone); the queries run in the zones they name
SET TimeZone = 'UTC';
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql

-- rt_compare where the collation gk_ci exists (ICU); without ICU it cannot
-- be made, and the check answers as the ordinary plan would
CREATE FUNCTION gk_if_icu(q text, OUT scan_planned boolean, OUT same boolean) LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_collation WHERE collname = 'gk_ci') THEN
        scan_planned := false;
        same := true;
        RETURN;
    END IF;
    SELECT c.scan_planned, c.same INTO scan_planned, same FROM rt_compare(q) c;
END
$fn$;

-- EXPLAIN ANALYZE's lines, for a plan's run-time figures
CREATE FUNCTION gk_plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        RETURN NEXT line;
    END LOOP;
END
$fn$;

-- 20,000 rows with a key column of each type.  NULLs in every key, the
-- extremes of int2 and int8, infinite dates and timestamps; times in 2026
-- with microseconds (a dense run across a month's end, one over the whole
-- year, one on whole hours) and, every tenth row, from 850 to about 2090; text
-- keys that differ in case, in Unicode normalization (e acute composed and
-- decomposed), in trailing spaces, and that are compressed inline or
-- toasted; x with NULLs, -0, infinities and values outside [0, 1); every
-- value of x is NULL in the group g4 = 13.
CREATE TABLE gk_t (id int4, g2 int2, g4 int4, g8 int8, b bool, d date, t timestamp, tz timestamptz,
                   s text, v varchar(40), x float8, y float8, yi int4, f float8);
INSERT INTO gk_t
SELECT i,
       CASE WHEN i % 211 = 0 THEN NULL WHEN i % 1000 = 1 THEN -32768 WHEN i % 1000 = 2 THEN 32767
            ELSE i % 7 - 3 END,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 50 END,
       CASE WHEN i % 103 = 0 THEN NULL WHEN i % 1000 = 3 THEN -9223372036854775808
            WHEN i % 1000 = 4 THEN 9223372036854775807 ELSE (i % 40) * 1000000000000007 - 20000000000000000 END,
       CASE i % 3 WHEN 0 THEN true WHEN 1 THEN false END,
       CASE WHEN i % 107 = 0 THEN NULL WHEN i % 1000 = 5 THEN 'infinity' WHEN i % 1000 = 6 THEN '-infinity'
            WHEN i % 50 = 7 THEN date '1890-01-01' + i ELSE date '2025-12-20' + i % 400 END,
       CASE WHEN i % 109 = 0 THEN NULL WHEN i % 1000 = 7 THEN 'infinity' WHEN i % 1000 = 8 THEN '-infinity'
            WHEN i % 10 = 0 THEN timestamp '0850-01-01 03:04:05.678901' + (i / 10) * interval '7 months 11 days 3 hours 7.333 seconds'
            WHEN i % 10 = 3 THEN timestamp '2026-06-01' + (i / 10) * interval '1 hour'
            WHEN i % 10 = 5 THEN timestamp '2026-01-01' + i * interval '26 minutes 3.5 seconds'
            ELSE timestamp '2026-02-26 21:00' + i * interval '17.123457 seconds' END,
       CASE WHEN i % 113 = 0 THEN NULL WHEN i % 1000 = 7 THEN '-infinity' WHEN i % 1000 = 8 THEN 'infinity'
            WHEN i % 10 = 0 THEN timestamptz '0850-01-01 00:00+00' + (i / 10) * interval '7 months 13 days 5 hours 11.111 seconds'
            WHEN i % 10 = 3 THEN timestamptz '2026-06-01 00:00+00' + (i / 10) * interval '1 hour'
            WHEN i % 10 = 5 THEN timestamptz '2026-01-01 00:00+00' + i * interval '26 minutes 3.5 seconds'
            ELSE timestamptz '2026-03-06 00:00+00' + i * interval '23.654321 seconds' END,
       CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'alpha' WHEN 3 THEN 'Alpha' WHEN 4 THEN 'ALPHA'
            WHEN 5 THEN 'beta' WHEN 6 THEN U&'stra\00DFe' WHEN 7 THEN 'STRASSE' WHEN 8 THEN U&'\00E9t\00E9'
            WHEN 9 THEN U&'e\0301te\0301' WHEN 10 THEN repeat('compressible ', 300) || (i % 2)
            WHEN 11 THEN (SELECT string_agg(md5((i % 3) || ':' || g), '') FROM generate_series(1, 80) g)
            ELSE 'gamma ' || i % 17 END,
       CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 'north' WHEN 2 THEN 'North' WHEN 3 THEN 'south '
            WHEN 4 THEN 'south' WHEN 5 THEN 'east' || i % 3 ELSE repeat('w', 40) END,
       CASE WHEN i % 29 = 0 OR (i % 50 = 13 AND i % 101 <> 0) THEN NULL
            WHEN i % 997 = 0 THEN 'Infinity' WHEN i % 991 = 0 THEN '-Infinity' WHEN i % 1009 = 0 THEN '-0'
            ELSE ((i * 0.6180339887498949) - floor(i * 0.6180339887498949)) * 1.2 - 0.1 END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 37 = 0 THEN 1 WHEN i % 41 = 0 THEN -1
            ELSE ((i * 1.4142135623730951) - floor(i * 1.4142135623730951)) * 2.6 - 1.3 END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE i % 25 - 2 END,
       CASE i % 6 WHEN 0 THEN 0 WHEN 1 THEN '-0' WHEN 2 THEN 'NaN' WHEN 3 THEN NULL WHEN 4 THEN 0.1::float8 + 0.2 ELSE 0.3 END
FROM generate_series(1, 20000) i;

-- A time zone table: a row every 7 minutes for four days either side of the
-- 2026 DST changes of New York, Havana and St. John's (March 8, November 1)
-- and of Lord Howe (April 5, 30 minutes back; October 4, 30 minutes
-- forward); every 13 minutes around the United States' changes of 2100;
-- every 53 minutes around the ends of local mean time in New York (1883),
-- Lord Howe (1895), Kolkata (1906) and Kathmandu (1920); scattered rows from
-- 1800 to 2000 and from 2100 to 2400; NULL and both infinities.
CREATE TABLE gk_tz (tz timestamptz, x float8, y float8);
INSERT INTO gk_tz
SELECT tz, ((n * 0.6180339887498949) - floor(n * 0.6180339887498949)),
       CASE WHEN n % 17 = 0 THEN NULL ELSE ((n * 1.4142135623730951) - floor(n * 1.4142135623730951)) END
FROM (SELECT tz, row_number() OVER (ORDER BY tz) AS n FROM (
          SELECT generate_series(a, b, step) AS tz
          FROM (VALUES (timestamptz '2026-03-04 00:00+00', timestamptz '2026-03-12 00:00+00', interval '7 minutes'),
                       ('2026-10-28 00:00+00', '2026-11-05 00:00+00', '7 minutes'),
                       ('2026-04-01 00:00+00', '2026-04-09 00:00+00', '7 minutes'),
                       ('2026-09-30 00:00+00', '2026-10-08 00:00+00', '7 minutes'),
                       ('2100-03-11 00:00+00', '2100-03-17 00:00+00', '13 minutes'),
                       ('2100-11-04 00:00+00', '2100-11-10 00:00+00', '13 minutes'),
                       ('1883-11-16 00:00+00', '1883-11-21 00:00+00', '53 minutes'),
                       ('1895-01-29 00:00+00', '1895-02-03 00:00+00', '53 minutes'),
                       ('1905-12-29 00:00+00', '1906-01-03 00:00+00', '53 minutes'),
                       ('1919-12-29 00:00+00', '1920-01-03 00:00+00', '53 minutes'),
                       ('1800-01-01 00:00:17+00', '1999-12-31 00:00+00', '37 days 5 hours 17 minutes 3 seconds'),
                       ('2100-01-01 00:00+00', '2399-12-31 00:00+00', '97 days 3 hours 1 minute')) w(a, b, step)) s) s;
INSERT INTO gk_tz VALUES (NULL, 0.5, 0.5), ('infinity', 0.25, NULL), ('-infinity', 0.75, 0.125), ('infinity', 0.125, 0.75);

-- The extremes: the first and last timestamps and dates, infinities, NULL,
-- and a NaN for width_bucket keys.
CREATE TABLE gk_edge (g int4, t timestamp, tz timestamptz, d date, x float8, y float8);
INSERT INTO gk_edge VALUES
    (1, '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC', '4714-11-24 BC', 0.5, 0.5),
    (2, '4713-01-01 12:34:56 BC', '4713-01-01 12:34:56+00 BC', '4713-01-01 BC', 0.25, 0.25),
    (3, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', '5874897-12-31', 0.75, 0.75),
    (4, 'infinity', 'infinity', 'infinity', 0.125, 0.125),
    (5, '-infinity', '-infinity', '-infinity', 0.875, 0.875),
    (6, NULL, NULL, NULL, NULL, NULL),
    (7, '2026-01-01 12:00', '2026-01-01 12:00+00', '2026-01-01', 0.5, 'NaN');

-- 300,000 rows for parallel plans and for the memory bound: m has 50,000
-- distinct values, six rows each.
CREATE TABLE gk_par AS
SELECT i AS id, i % 97 AS g4, i % 3 = 0 AS b, 'k' || i % 11 AS s,
       CASE WHEN i % 500 = 0 THEN NULL ELSE timestamptz '2026-03-01 00:00+00' + i * interval '13 seconds' END AS tz,
       (i::int8 * 7919) % 50000 AS m,
       CASE WHEN i % 53 = 0 OR i % 97 = 41 THEN NULL ELSE ((i * 0.6180339887498949) - floor(i * 0.6180339887498949))::float8 END AS x,
       ((i * 1.4142135623730951) - floor(i * 1.4142135623730951))::float8 AS y
FROM generate_series(1, 300000) i;
VACUUM ANALYZE gk_t;
VACUUM ANALYZE gk_tz;
VACUUM ANALYZE gk_edge;
VACUUM ANALYZE gk_par;
SELECT (SELECT count(*) FROM gk_t) AS gk_t, (SELECT count(*) FROM gk_tz) AS gk_tz,
       (SELECT count(*) FROM gk_par) AS gk_par, (SELECT count(DISTINCT m) FROM gk_par) AS gk_par_m,
       (SELECT count(*) FROM gk_t WHERE pg_column_compression(s) IS NOT NULL) AS compressed_s,
       (SELECT count(*) FROM gk_t WHERE pg_column_size(s) > 2000) AS uncompressed_long_s,
       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'gk_t') AS toast_used;

SET TimeZone = 'America/New_York';
-- The tables are small, with many groups for their rows, where the ordinary
-- plan can cost less: this topic checks what the scan computes, so the
-- ordinary plan's Seq Scan is discouraged throughout.  Shapes the scan does
-- not take keep the ordinary plan regardless (scan_planned f).
SET enable_seqscan = off;

-- The plans, in EXPLAIN.
SELECT rt_explain($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$);
SELECT rt_explain($$SELECT date_trunc('hour', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE tz >= '2026-03-07' GROUP BY 1$$);
SELECT rt_explain($$SELECT date_bin('15 minutes', t, '2026-01-01'), width_bucket(y, -1, 1, 4), gpu_histogram(x, 0, 1, 8), gpu_histogram(yi, 0, 20, 5) FROM gk_t GROUP BY 1, 2$$);
SELECT rt_explain($$SELECT b, tz::date, count(x), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY tz::date, b ORDER BY 2, 1 LIMIT 10$$);

-- Plain columns of each type as the key, one or several; NULL keys are a
-- group of their own, infinite dates and timestamps groups like any other.
SELECT q, c.* FROM (VALUES
    ($$SELECT g2, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g2$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g8, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g8$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY b$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY d$$),
    ($$SELECT t, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY t$$),
    ($$SELECT tz, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY tz$$),
    ($$SELECT s, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY s$$),
    ($$SELECT v, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY v$$),
    ($$SELECT s COLLATE "C", gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY s COLLATE "C"$$),
    ($$SELECT v COLLATE "POSIX", gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY v COLLATE "POSIX"$$),
    ($$SELECT id, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY id$$),
    ($$SELECT g4, b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4, b$$),
    ($$SELECT b, g2, s, gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY b, g2, s$$),
    ($$SELECT d, g8, v, tz, gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY d, g8, v, tz$$),
    ($$SELECT g4, gpu_histogram(g4, 0, 50, 5) FROM gk_t GROUP BY g4$$),
    ($$SELECT g2, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT g2 AS k, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY k$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4, g4$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE g4 = 13 OR g4 IS NULL GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x, 1, 0, 3), gpu_histogram(x, 0.25, 0.75, 10000) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x, 0, (SELECT max(y) FROM gk_t), 4) FROM gk_t GROUP BY g4$$)
) v(q), LATERAL rt_compare(q) c;

-- date_trunc at every unit, timestamp and timestamptz (in the session's
-- zone), with other spellings of the units.
SELECT u, c.* FROM unnest(ARRAY['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'week', 'month',
                                'quarter', 'year', 'decade', 'century', 'millennium']) WITH ORDINALITY us(u, n),
     LATERAL rt_compare(format('SELECT date_trunc(%L, t), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1', u)) c
ORDER BY n;
SELECT u, c.* FROM unnest(ARRAY['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'week', 'month',
                                'quarter', 'year', 'decade', 'century', 'millennium']) WITH ORDINALITY us(u, n),
     LATERAL rt_compare(format('SELECT date_trunc(%L, tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1', u)) c
ORDER BY n;
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('HOUR', t), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('hours', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('mon', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('ms', t), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('day', t), date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$),
    ($$SELECT date_trunc('week', t), b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q) c;

-- date_bin, timestamp and timestamptz: strides from a microsecond to a week,
-- origins before, among and after the data (gk_t's times end before 2090; whole
-- hours are exact multiples of the stride away from an origin after them).
SELECT q, c.* FROM (VALUES
    ($$SELECT date_bin('15 minutes', t, '2001-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', t, '0001-01-01 00:30'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 day 3 hours', t, '2026-06-01 05:00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('7 days', t, '1900-01-03 12:00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', t, '3000-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('7 days', t, '3000-01-04'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 day 3 hours', t, '2999-12-31 21:00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1.5 seconds', t, '2026-01-01 00:00:00.25'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 microsecond', t, '2026-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('15 minutes', tz, '2001-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', tz, '0001-01-01 00:30+00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 day 3 hours', tz, '2026-03-08 02:30'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('7 days', tz, '1900-01-03 12:00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', tz, '3000-01-01 00:00+00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('7 days', tz, '3000-01-04 00:00+00'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('45 minutes', tz, '2026-11-01 01:30-04'), b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q) c;
-- An origin after the timestamp, a whole number of strides away: the bin
-- starts at the timestamp itself.  (PostgreSQL before 15.7 subtracted one
-- stride too many here; the scan gives what the server's date_bin gives.)
SELECT date_bin('1 hour', timestamp '2026-01-01 10:00', timestamp '2026-01-01 12:00') AS whole_strides_before,
       date_bin('1 hour', timestamp '2026-01-01 10:30', timestamp '2026-01-01 12:00') AS inside_a_stride,
       date_bin('7 days', timestamptz '2026-01-01 00:00+00', timestamptz '2026-01-15 00:00+00') AS two_weeks_before;

-- ::date, CAST and date(), from timestamp and timestamptz.
SELECT q, c.* FROM (VALUES
    ($$SELECT t::date, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT tz::date, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT CAST(t AS date), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY CAST(t AS date)$$),
    ($$SELECT date(tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY date(tz)$$),
    ($$SELECT tz::date, t::date, d, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2, 3$$)
) v(q), LATERAL rt_compare(q) c;

-- width_bucket of another column as a key: 2-D histograms, with y NULL,
-- outside [lo, hi) and on its edges, bounds in either order, an int4 column
-- through its implicit cast.
SELECT q, c.* FROM (VALUES
    ($$SELECT width_bucket(y, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, 1, -1, 4), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, -1, 1, 1), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, -0.5, 0.5, 1000), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(yi, 0, 20, 4), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(x, 0, 1, 3), gpu_histogram(y, -1, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT g4, width_bucket(y, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$),
    ($$SELECT width_bucket(y, -1, 1, 5), width_bucket(yi, 0, 20, 4), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$),
    ($$SELECT date_trunc('day', tz), width_bucket(y, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q) c;

-- Against width_bucket and count(*) in plain SQL, once per key kind.
SELECT array_to_string(k, ', ') AS keys, val, c.* FROM (VALUES
    (ARRAY['g2'], 'x', 0::float8, 1::float8, 8),
    (ARRAY['g4'], 'x', 0, 1, 8),
    (ARRAY['g8'], 'x', 1, 0, 5),
    (ARRAY['b'], 'x', 0.25, 0.75, 3),
    (ARRAY['d'], 'x', 0, 1, 8),
    (ARRAY['t'], 'x', 0, 1, 8),
    (ARRAY['tz'], 'x', 0, 1, 8),
    (ARRAY['s'], 'x', 0, 1, 8),
    (ARRAY['v'], 'x', 0, 1, 8),
    (ARRAY['date_trunc(''hour'', t)'], 'x', 0, 1, 8),
    (ARRAY['date_trunc(''week'', tz)'], 'x', 0, 1, 8),
    (ARRAY['date_bin(''15 minutes'', t, ''2026-01-01'')'], 'x', 0, 1, 8),
    (ARRAY['date_bin(''1 day 3 hours'', tz, ''2026-03-08 02:30'')'], 'x', 0, 1, 8),
    (ARRAY['date_bin(''1 hour'', tz, ''3000-01-01 00:00+00'')'], 'x', 0, 1, 8),
    (ARRAY['t::date'], 'x', 0, 1, 8),
    (ARRAY['tz::date'], 'x', 0, 1, 8),
    (ARRAY['width_bucket(y, -1, 1, 5)'], 'x', 0, 1, 8),
    (ARRAY['width_bucket(yi, 0, 20, 4)'], 'x', 0, 1, 8),
    (ARRAY['g4', 'b', 'tz::date'], 'x', 0, 1, 8),
    (ARRAY['g4'], 'y', -1, 1, 7),
    (ARRAY['b'], 'yi', 0, 20, 4),
    (ARRAY['s'], 'g2', -3, 3, 6)
) v(k, val, lo, hi, nbins), LATERAL rt_against_width_bucket('gk_t', k, val, lo, hi, nbins) c;

-- count(*) and count(col) beside the histograms, several histograms per
-- group, keys in expressions or not in the SELECT list at all, ORDER BY
-- (compared in order) and LIMIT.
SELECT q, c.* FROM (VALUES
    ($$SELECT g4, count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT date_trunc('day', tz), count(*), count(y), count(tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 4), gpu_histogram(y, -1, 1, 5), gpu_histogram(g2, -3, 3, 6), gpu_histogram(yi, 20, 0, 3) FROM gk_t GROUP BY g4$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 4), gpu_histogram(x, 0, 1, 4), count(*) FROM gk_t GROUP BY b$$),
    ($$SELECT extract(hour FROM date_trunc('hour', tz)), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY date_trunc('hour', tz)$$),
    ($$SELECT g4 + 1, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, g4 * 2 AS twice, g4 AS again, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT to_char(date_bin('1 hour', t, '2026-01-01'), 'YYYY-MM-DD HH24'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY date_bin('1 hour', t, '2026-01-01')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY date_trunc('month', t), b$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8)::text || '!', (gpu_histogram(x, 0, 1, 8))[2] FROM gk_t GROUP BY s$$),
    ($$SELECT count(*) FROM (SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 LIMIT 5) s$$),
    ($$SELECT * FROM (SELECT g4, gpu_histogram(x, 0, 1, 8) h FROM gk_t GROUP BY g4) s WHERE g4 > 40$$),
    ($$SELECT * FROM (SELECT g4, gpu_histogram(x, 0, 1, 8) h FROM gk_t GROUP BY g4) s, LATERAL unnest(s.h) WITH ORDINALITY u$$)
) v(q), LATERAL rt_compare(q) c;
SELECT q, c.* FROM (VALUES
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 ORDER BY g4 DESC NULLS LAST$$),
    ($$SELECT date_trunc('hour', tz) h, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1 ORDER BY count(*) DESC, h NULLS FIRST$$),
    ($$SELECT s, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY s ORDER BY gpu_histogram(x, 0, 1, 8), s COLLATE "C"$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 ORDER BY g4 LIMIT 5$$),
    ($$SELECT tz::date, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1 ORDER BY 1 DESC LIMIT 3 OFFSET 2$$),
    ($$SELECT width_bucket(y, -1, 1, 5) w, b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2 ORDER BY b NULLS FIRST, w DESC LIMIT 7$$)
) v(q), LATERAL rt_compare(q, true) c;

-- WHERE together with GROUP BY: a time range (which the scan evaluates
-- itself), a clause for the executor, a clause on the key, none left.
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE tz >= '2026-03-07' AND tz < '2026-03-09 12:00' GROUP BY 1$$),
    ($$SELECT date_bin('15 minutes', t, '2026-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE t BETWEEN '2026-02-27' AND '2026-03-01' GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE x * 2 < 1.5 GROUP BY g4$$),
    ($$SELECT s, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE g4 < 10 AND s LIKE 'a%' GROUP BY s$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE g4 BETWEEN 10 AND 20 GROUP BY g4$$),
    ($$SELECT tz::date, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE date_trunc('day', tz) = '2026-03-08' GROUP BY 1$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE tz < now() + interval '1000 years' AND d >= '1926-01-01' GROUP BY d$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE x IS NOT NULL AND y > 0 GROUP BY b$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE g4 < 0 GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE false GROUP BY g4$$)
) v(q), LATERAL rt_compare(q) c;

-- A WHERE clause on the key's own expression, a HAVING clause on the key
-- (which the planner moves to WHERE), and a view's qual on its key column
-- (which the planner pushes down into the view's WHERE): the scan keeps
-- them and evaluates the key's expression on each row as the ordinary plan
-- does.  A qual on the view's histogram stays a HAVING clause, which the
-- Finalize Aggregate above the scan evaluates.
CREATE VIEW gk_hourly AS SELECT date_trunc('hour', tz) AS hour, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1;
CREATE VIEW gk_days AS SELECT tz::date AS day, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1;
SELECT rt_explain($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 16) FROM gk_t WHERE date_trunc('day', tz) >= '2026-03-08' GROUP BY 1$$);
SELECT rt_explain($$SELECT * FROM gk_hourly WHERE hour >= '2026-03-08'$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 16) FROM gk_t WHERE date_trunc('day', tz) >= '2026-03-08' GROUP BY 1$$),
    ($$SELECT tz::date, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE tz::date > '2026-03-07' GROUP BY tz::date$$),
    ($$SELECT t::date, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE t::date BETWEEN '2026-02-27' AND '2026-03-01' OR t::date IS NULL GROUP BY 1$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE date_trunc('hour', tz) < '2026-03-07' AND x > 0.25 GROUP BY 1$$),
    ($$SELECT date_trunc('month', t), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE date_trunc('month', t) IN ('1500-03-01', '2026-01-01') OR date_trunc('month', t) > '2026-02-01' GROUP BY 1$$),
    ($$SELECT date_bin('15 minutes', t, '2026-01-01'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1 HAVING date_bin('15 minutes', t, '2026-01-01') < '2026-02-27 06:00'$$),
    ($$SELECT width_bucket(y, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE width_bucket(y, -1, 1, 5) IN (0, 2, 6) GROUP BY 1$$),
    ($$SELECT g4, date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE date_trunc('day', tz) = '2026-03-07' GROUP BY 1, 2 HAVING g4 < 20$$),
    ($$SELECT s COLLATE "C", gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE s COLLATE "C" < 'beta' GROUP BY 1$$),
    ($$SELECT * FROM gk_hourly WHERE hour >= '2026-03-08'$$),
    ($$SELECT hour, n, h FROM gk_hourly WHERE hour BETWEEN '2026-03-07 10:00' AND '2026-03-07 20:00' OR hour IS NULL$$),
    ($$SELECT * FROM gk_days WHERE day > '2026-03-06' AND day < 'infinity'$$),
    ($$SELECT * FROM gk_days WHERE day = '2026-03-07' OR h IS NULL$$)
) v(q), LATERAL rt_compare(q) c;

-- Time zones: each time-bucket form in zones with whole, half-hour and
-- 45-minute offsets, DST changes of an hour and of 30 minutes (at 02:00, and
-- at midnight in Havana, where some days begin at 01:00), local mean time
-- with seconds in its offset, and the far future; date_bin's literal origins
-- are read in the zone ('2026-03-08 02:30' does not exist in New York).
SELECT z AS zone, k AS key, c.*
FROM unnest(ARRAY['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe',
                  'America/Havana', 'America/St_Johns']) WITH ORDINALITY zs(z, zn),
     unnest(ARRAY[$$date_trunc('minute', tz)$$, $$date_trunc('hour', tz)$$, $$date_trunc('day', tz)$$,
                  $$date_trunc('week', tz)$$, $$date_trunc('month', tz)$$, $$date_trunc('year', tz)$$,
                  $$date_bin('15 minutes', tz, '2026-01-01')$$, $$date_bin('1 day 3 hours', tz, '2026-03-08 02:30')$$,
                  $$date_bin('7 days', tz, '2400-01-01')$$, $$date_bin('1 hour', tz, '2400-01-01')$$,
                  $$tz::date$$]) WITH ORDINALITY ks(k, kn),
     LATERAL rt_compare(format('SELECT %s AS k, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_tz GROUP BY 1', k), zone => z) c
ORDER BY zn, kn;
-- ... with the other units, a second histogram and a 2-D key, in two of them.
SELECT z AS zone, k AS key, c.*
FROM unnest(ARRAY['Australia/Lord_Howe', 'Asia/Kathmandu']) WITH ORDINALITY zs(z, zn),
     unnest(ARRAY[$$date_trunc('second', tz)$$, $$date_trunc('quarter', tz)$$, $$date_trunc('decade', tz)$$,
                  $$date_trunc('century', tz)$$, $$date_trunc('millennium', tz)$$,
                  $$date_trunc('hour', tz), width_bucket(y, 0, 1, 4)$$]) WITH ORDINALITY ks(k, kn),
     LATERAL rt_compare(format('SELECT %s, gpu_histogram(x, 0, 1, 8), gpu_histogram(y, 0, 1, 3) FROM gk_tz GROUP BY %s', k, k), zone => z) c
ORDER BY zn, kn;
-- ... and against width_bucket in plain SQL.
SET TimeZone = 'Australia/Lord_Howe';
SELECT array_to_string(k, ', ') AS keys, c.* FROM (VALUES
    (ARRAY['date_trunc(''hour'', tz)']),
    (ARRAY['date_trunc(''day'', tz)']),
    (ARRAY['date_bin(''15 minutes'', tz, ''2026-01-01'')']),
    (ARRAY['tz::date'])
) v(k), LATERAL rt_against_width_bucket('gk_tz', k, 'x', 0, 1, 8) c;
SET TimeZone = 'America/New_York';
-- What date_trunc gives in Lord Howe on the night the clocks go back from
-- 02:00 (+11) to 01:30 (+10:30): below a day, PostgreSQL truncates in the
-- row's own offset, so the hour of 01:32+10:30 is 01:00+10:30 (01:30+11).
SET TimeZone = 'Australia/Lord_Howe';
SELECT tz, date_trunc('hour', tz) AS hour, date_trunc('day', tz) AS day, date_bin('1 hour', tz, '2026-01-01') AS bin
FROM gk_tz WHERE tz >= '2026-04-04 14:40+00' AND tz < '2026-04-04 15:30+00' ORDER BY tz;
SET TimeZone = 'America/New_York';

-- Extreme timestamps and dates: keys that work and keys whose computation
-- fails (timestamp or interval out of range), with the same error whichever
-- plan runs.
SELECT q, c.* FROM (VALUES
    ($$SELECT t, gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT tz, gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT t::date, gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT tz::date, gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_trunc('week', t), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_trunc('millennium', t), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_trunc('millennium', t), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g > 2 GROUP BY 1$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g > 1 GROUP BY 1$$),
    ($$SELECT date_trunc('year', tz), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g > 1 GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', t, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_bin('7 days', t, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_bin('7 days', t, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g > 1 GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', t, '4714-11-24 00:00 BC'), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', tz, '294276-12-31 00:00+00'), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', tz, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g > 1 GROUP BY 1$$),
    ($$SELECT width_bucket(y, 0, 1, 4), gpu_histogram(x, 0, 1, 4) FROM gk_edge GROUP BY 1$$),
    ($$SELECT width_bucket(y, 0, 1, 4), gpu_histogram(x, 0, 1, 4) FROM gk_edge WHERE g <> 7 GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(y, 0, 1, 4) FROM gk_edge GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;
-- Arguments that PostgreSQL refuses: the same error with the scan on; but
-- no error where no row reaches the aggregate (no row, or only NULLs).
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('fortnight', t), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('dow', tz), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 month', t, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('0 seconds', tz, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('-1 hour', tz, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', t, 'infinity'), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_bin(NULL, t, '2026-01-01'), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, 1, 1, 4), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, 0, 1, 0), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, '-Infinity', 1, 4), gpu_histogram(x, 0, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 1, 1, 4) FROM gk_t GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 4) FROM gk_t WHERE g4 < 0 GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 1, 1, 4) FROM gk_t WHERE g4 < 0 GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 1, 1, 4) FROM gk_t WHERE g4 = 13 GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;

-- A nondeterministic collation (case-insensitive ICU) groups 'alpha' with
-- 'ALPHA' and the two spellings of e acute: it keeps the ordinary plan, with the
-- same answer.  Without ICU there is no such collation, and nothing to check.
DO $$
BEGIN
    CREATE COLLATION gk_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXCEPTION WHEN OTHERS THEN
    NULL;
END
$$;
SELECT q, c.* FROM (VALUES
    ($$SELECT lower(s COLLATE gk_ci), count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY s COLLATE gk_ci$$),
    ($$SELECT lower(v::text COLLATE gk_ci), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY v::text COLLATE gk_ci$$),
    ($$SELECT b, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY b, s COLLATE gk_ci$$)
) v(q), LATERAL gk_if_icu(q) c;
-- (and the collation does merge groups: an ERROR here if it did not)
DO $$
DECLARE
    merges boolean;
BEGIN
    IF EXISTS (SELECT FROM pg_collation WHERE collname = 'gk_ci') THEN
        EXECUTE 'SELECT count(DISTINCT s COLLATE gk_ci) < count(DISTINCT s) FROM gk_t' INTO merges;
        IF NOT merges THEN
            RAISE EXCEPTION 'gk_ci merges no groups of s';
        END IF;
    END IF;
END
$$;

-- HAVING, and an outer query's filter on a grouped subquery's aggregates
-- (which the planner makes the subquery's HAVING): where the scan emits
-- finished rows, HAVING is its Filter; where it emits partial states, the
-- Finalize Aggregate above it evaluates the clause on the combined states,
-- as in PostgreSQL's own parallel plans.  The aggregates only HAVING names
-- are computed by the scan too, also where the target has no aggregate.
SELECT rt_explain($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING count(*) > 396$$);
SELECT rt_explain($$SELECT * FROM (SELECT date_trunc('second', tz) AS second, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1) s WHERE h IS NOT NULL$$);
-- Groups past the memory bound: serially where no GPU counts, finished rows
-- still (the groups that do not fit spill as tuples, and each goes out once,
-- from the table or one partition's pass).  Where a GPU may count, its
-- groups would need a merge, so partial states under a Finalize Aggregate
-- (gk_par's 1,083 hours), unless the groups are so many for the table that
-- the host would take its pages anyway, their cells flushed past the bound
-- writing more than the table holds (gk_t's seconds): finished rows again.
SET work_mem = '64kB';
SET gpu_histogram.device = cpu;
SELECT rt_explain($$SELECT * FROM (SELECT date_trunc('second', tz) AS second, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1) s WHERE h IS NOT NULL$$);
SELECT rt_explain($$SELECT date_trunc('hour', tz) AS hour, gpu_histogram(x, 0, 1, 8) AS h FROM gk_par GROUP BY 1$$);
SET gpu_histogram.device = gpu;
SELECT rt_explain($$SELECT * FROM (SELECT date_trunc('second', tz) AS second, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1) s WHERE h IS NOT NULL$$);
SELECT rt_explain($$SELECT date_trunc('hour', tz) AS hour, gpu_histogram(x, 0, 1, 8) AS h FROM gk_par GROUP BY 1$$);
RESET gpu_histogram.device;
RESET work_mem;
SELECT q, c.* FROM (VALUES
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING count(*) > 396$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING gpu_histogram(x, 0, 1, 8) IS NOT NULL$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING (gpu_histogram(x, 0, 1, 8))[2] > 20 AND count(x) < count(*)$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING gpu_histogram(x, 0, 1, 4) IS NULL$$),
    ($$SELECT * FROM (SELECT date_trunc('hour', tz) AS hour, gpu_histogram(x, 0, 1, 8) AS h FROM gk_t GROUP BY 1) s WHERE h IS NOT NULL$$),
    ($$SELECT * FROM gk_hourly WHERE n > 30 AND hour IS NOT NULL$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING g4 > 40 AND random() >= 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM gk_t HAVING count(*) > 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE g4 < -1000000 HAVING count(*) > 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM gk_t HAVING gpu_histogram(x, 0, 1, 8) IS NULL$$),
    ($$SELECT 1 FROM gk_t HAVING gpu_histogram(x, 0, 1, 8) IS NOT NULL$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING g4 > 40 OR count(*) > 400$$),
    ($$SELECT g4 FROM gk_t GROUP BY g4 HAVING (gpu_histogram(x, 0, 1, 8))[1] > 32 AND count(*) > 390$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING count(x) >= 383 AND g4 IS NOT NULL$$)
) v(q), LATERAL rt_compare(q) c;
SELECT rt_explain($$SELECT g4 FROM gk_t GROUP BY g4 HAVING (gpu_histogram(x, 0, 1, 8))[1] > 32 AND count(*) > 390$$);
-- WHERE and HAVING in one node: the Filter and the Group Filter, and in
-- EXPLAIN ANALYZE the groups HAVING removed.
CREATE FUNCTION gk_analyze_filters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Filter|Custom Scan|Groups:' THEN
            -- the pages' split between the GPU and the CPU depends on the device
            RETURN NEXT regexp_replace(regexp_replace(line, ' \(actual .*', ''), '(GPU|CPU) [0-9]+ pages', '\1 N pages', 'g');
        END IF;
    END LOOP;
END
$fn$;
SELECT gk_analyze_filters($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE x < 0.9 GROUP BY g4 HAVING count(*) > 318$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_t WHERE x < 0.9 GROUP BY g4 HAVING count(*) > 318$$)
) v(q), LATERAL rt_compare(q) c;

-- HAVING with a parameter, in a generic plan: the scan's Filter reads it.
SET plan_cache_mode = force_generic_plan;
PREPARE gk_having(bigint) AS SELECT g4, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 HAVING count(*) > $1;
SELECT rt_explain('EXECUTE gk_having(396)');
SELECT q, c.* FROM (VALUES ('EXECUTE gk_having(0)'), ('EXECUTE gk_having(396)'), ('EXECUTE gk_having(100000)')) v(q),
    LATERAL rt_compare(q) c;
DEALLOCATE gk_having;
RESET plan_cache_mode;

-- Shapes that keep the ordinary plan, with the same answer.
SELECT q, c.* FROM (VALUES
    ($$SELECT f, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY f$$),
    ($$SELECT g4, b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY ROLLUP (g4, b)$$),
    ($$SELECT b, g2, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY CUBE (b, g2)$$),
    ($$SELECT g4, b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY GROUPING SETS ((g4), (b), ())$$),
    ($$SELECT lower(s), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY lower(s)$$),
    ($$SELECT g4 % 7, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4 % 7$$),
    ($$SELECT extract(hour FROM tz), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('hour', t + interval '1 hour'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('day', d), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc(CASE WHEN b THEN 'hour' ELSE 'day' END, t), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT date_trunc('day', tz, 'Asia/Tokyo'), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT (tz AT TIME ZONE 'Asia/Tokyo')::date, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y::numeric, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT width_bucket(y, ARRAY[-0.5, 0, 0.5]), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1$$),
    ($$SELECT g4, count(DISTINCT b), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(DISTINCT x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FILTER (WHERE b) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, count(*) FILTER (WHERE b), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, stddev(x), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x + 1, 1, 2, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT g4, gpu_histogram(x, 0, g4 + 1, 8) FROM gk_t GROUP BY g4$$),
    ($$SELECT a.g4, gpu_histogram(a.x, 0, 1, 8) FROM gk_t a JOIN gk_t b ON a.id = b.id GROUP BY a.g4$$)
) v(q), LATERAL rt_compare(q) c;

-- Prepared statements: the WHERE range, date_bin's stride and origin and the
-- bounds as parameters, in generic and custom plans; a generic plan run
-- again after TimeZone changed.
PREPARE gk_range(timestamptz, timestamptz) AS
    SELECT date_trunc('hour', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM gk_tz WHERE tz >= $1 AND tz < $2 GROUP BY 1;
PREPARE gk_bin(interval, timestamptz, timestamptz, timestamptz) AS
    SELECT date_bin($1, tz, $2), gpu_histogram(x, 0, 1, 8) FROM gk_tz WHERE tz >= $3 AND tz < $4 GROUP BY 1;
PREPARE gk_bin_ts(interval, timestamp) AS
    SELECT date_bin($1, t, $2), b, gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1, 2;
PREPARE gk_bounds(float8, float8, integer, integer) AS
    SELECT g4, width_bucket(y, -1, 1, $4), gpu_histogram(x, $1, $2, $3) FROM gk_t GROUP BY 1, 2;
SET plan_cache_mode = force_generic_plan;
SELECT rt_explain($$EXECUTE gk_bin('15 minutes', '2026-01-01', '2026-03-07', '2026-03-10')$$);
SELECT q, c.* FROM (VALUES
    ($$EXECUTE gk_range('2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_range('-infinity', 'infinity')$$),
    ($$EXECUTE gk_range('2026-11-05', '2026-11-01')$$),
    ($$EXECUTE gk_bin('15 minutes', '2026-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin('1 day 3 hours', '2400-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin('7 days', '1800-01-01', '-infinity', 'infinity')$$),
    ($$EXECUTE gk_bin(NULL, '2026-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin_ts('1 hour', '3000-01-01')$$),
    ($$EXECUTE gk_bin_ts('45 minutes', '2026-02-27 00:10')$$),
    ($$EXECUTE gk_bounds(0, 1, 8, 5)$$),
    ($$EXECUTE gk_bounds(1, 0, 3, 1)$$),
    ($$EXECUTE gk_bounds(NULL, 1, 3, 4)$$)
) v(q), LATERAL rt_compare(q) c;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE gk_bin('0 minutes', '2026-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin('1 month', '2026-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bounds(0, 0, 8, 5)$$)
) v(q), LATERAL rt_try(q) c;
-- the generic plan made in New York, run in Kathmandu and in Lord Howe
-- (a change of TimeZone does not plan again)
SELECT cardinality(rt_rows($$EXECUTE gk_range('2026-03-07', '2026-03-10')$$)) AS rows_in_new_york;
SET TimeZone = 'Asia/Kathmandu';
SELECT * FROM rt_compare($$EXECUTE gk_range('2026-03-07', '2026-03-10')$$, replan => false);
SET TimeZone = 'America/New_York';
SELECT cardinality(rt_rows($$EXECUTE gk_range('2026-04-03', '2026-04-06')$$)) AS rows_in_new_york;
SET TimeZone = 'Australia/Lord_Howe';
SELECT * FROM rt_compare($$EXECUTE gk_range('2026-04-03', '2026-04-06')$$, replan => false);
SET TimeZone = 'America/New_York';
SET plan_cache_mode = force_custom_plan;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE gk_range('2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_range('-infinity', 'infinity')$$),
    ($$EXECUTE gk_bin('15 minutes', '2026-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin('1 day 3 hours', '2400-01-01', '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_bin_ts('1 hour', '3000-01-01')$$),
    ($$EXECUTE gk_bounds(1, 0, 3, 1)$$)
) v(q), LATERAL rt_compare(q) c;
RESET plan_cache_mode;
DEALLOCATE gk_range;
DEALLOCATE gk_bin;
DEALLOCATE gk_bin_ts;
DEALLOCATE gk_bounds;

-- A generic plan with parameters inside a key, as a driver's prepared
-- statement has them: Grafana's epoch group by $1 seconds, $1 of an
-- integer's remainder, date_trunc's unit.  When the scan starts, each
-- parameter is its value, so the key is the one a custom plan computes
-- ("non-decreasing in tz", not "host expression"); NULL, zero, a
-- negative step and an infinite time (whose epoch cannot be a bigint)
-- answer, or raise, as the ordinary plan does.
PREPARE gk_epoch(int, timestamptz, timestamptz) AS
    SELECT floor(extract(epoch FROM tz) / $1) * $1 AS t, count(*), gpu_histogram(x, 0, 1, 8)
    FROM gk_tz WHERE tz >= $2 AND tz < $3 GROUP BY 1;
PREPARE gk_epoch_ms(bigint) AS
    SELECT (floor(extract(epoch FROM tz) * 1000 / $1) * $1)::bigint AS t, gpu_histogram(x, 0, 1, 8) FROM gk_tz GROUP BY 1;
PREPARE gk_rem(int) AS SELECT g4 % $1 AS r, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_t GROUP BY 1;
PREPARE gk_unit(text) AS SELECT date_trunc($1, tz) AS u, gpu_histogram(x, 0, 1, 8) FROM gk_tz GROUP BY 1;
SET plan_cache_mode = force_generic_plan;
SELECT line FROM rt_explain($$EXECUTE gk_epoch(300, '2026-03-07', '2026-03-10')$$) line WHERE line ~ 'Group Key|Key Computation';
SELECT line FROM rt_explain($$EXECUTE gk_rem(10)$$) line WHERE line ~ 'Group Key|Key Computation';
SELECT q, c.* FROM (VALUES
    ($$EXECUTE gk_epoch(300, '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_epoch(3600, '-infinity', 'infinity')$$),
    ($$EXECUTE gk_epoch(-900, '2026-10-30', '2026-11-03')$$),
    ($$EXECUTE gk_epoch(NULL, '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_rem(10)$$),
    ($$EXECUTE gk_rem(-3)$$),
    ($$EXECUTE gk_unit('hour')$$),
    ($$EXECUTE gk_unit('week')$$)
) v(q), LATERAL rt_compare(q) c;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE gk_epoch(0, '2026-03-07', '2026-03-10')$$),
    ($$EXECUTE gk_epoch(0, '2030-01-01', '2030-01-02')$$),
    ($$EXECUTE gk_rem(0)$$),
    ($$EXECUTE gk_unit('fortnight')$$),
    ($$EXECUTE gk_epoch_ms(60000)$$)
) v(q), LATERAL rt_try(q) c;
RESET plan_cache_mode;
DEALLOCATE gk_epoch;
DEALLOCATE gk_epoch_ms;
DEALLOCATE gk_rem;
DEALLOCATE gk_unit;

-- Parallel plans: a Gather over the grouped work on 300,000 rows, and the
-- leader alone when no worker can start.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rt_explain($$SELECT g4, count(*), gpu_histogram(x, 0, 1, 16) FROM gk_par GROUP BY g4$$);
CREATE VIEW gk_par_hourly AS SELECT date_trunc('hour', tz) AS hour, gpu_histogram(x, 0, 1, 8) AS h FROM gk_par GROUP BY 1;
SELECT rt_explain($$SELECT * FROM gk_par_hourly WHERE hour >= '2026-03-03 12:00'$$);
SELECT q, rt_plan(q) LIKE '%Gather%' AS gather, c.* FROM (VALUES
    ($$SELECT g4, count(*), gpu_histogram(x, 0, 1, 16) FROM gk_par GROUP BY g4$$),
    ($$SELECT b, s, gpu_histogram(x, 0, 1, 16), gpu_histogram(y, 0, 1, 4) FROM gk_par GROUP BY b, s$$),
    ($$SELECT date_trunc('hour', tz), count(x), gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY 1$$),
    ($$SELECT date_bin('1 day 3 hours', tz, '2026-03-08 02:30'), gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY 1$$),
    ($$SELECT tz::date, gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY 1$$),
    ($$SELECT g4, width_bucket(y, 0, 1, 4), gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY 1, 2$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM gk_par WHERE tz >= '2026-03-05' AND x * 2 < 1.5 GROUP BY 1$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_par WHERE g4 < 0 GROUP BY 1$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 16) FROM gk_par WHERE date_trunc('day', tz) >= '2026-03-02' GROUP BY 1$$),
    ($$SELECT tz::date, count(*), gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY 1 HAVING tz::date < '2026-03-03' OR tz::date IS NULL$$),
    ($$SELECT * FROM gk_par_hourly WHERE hour >= '2026-03-03 12:00'$$),
    ($$SELECT * FROM gk_par_hourly WHERE h IS NOT NULL AND (h)[3] % 2 = 0$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY g4 HAVING count(*) % 2 = 0$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY g4 HAVING count(*) % 2 = 0 AND random() >= 0$$),
    ($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY g4 HAVING count(*) > (SELECT avg(g4) + 3091 FROM gk_par WHERE g4 < 3)$$)
) v(q), LATERAL rt_compare(q) c;
SELECT rt_explain($$SELECT * FROM gk_par_hourly WHERE h IS NOT NULL AND (h)[3] % 2 = 0$$);
-- A HAVING the workers may not evaluate (random() is parallel restricted):
-- a serial scan's Filter, or a Finalize Aggregate above the workers.
SELECT rt_explain($$SELECT g4, gpu_histogram(x, 0, 1, 8) FROM gk_par GROUP BY g4 HAVING count(*) % 2 = 0 AND random() >= 0$$);
SET max_parallel_workers = 0; -- Gather with no worker: the leader reads every block
SELECT q, rt_plan(q) LIKE '%Gather%' AS gather, c.* FROM (VALUES
    ($$SELECT g4, count(*), gpu_histogram(x, 0, 1, 16) FROM gk_par GROUP BY g4$$)
) v(q), LATERAL rt_compare(q) c;
RESET max_parallel_workers;

-- The memory bound: 50,000 groups of 64 buckets in 64kB of work_mem.  The
-- planner keeps the ordinary plan, or the scan gives the ordinary plan's
-- answer or a clear error: this says which.
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET max_parallel_workers_per_gather = 0;
SELECT q, c.* FROM (VALUES
    ($$SELECT m, gpu_histogram(x, 0, 1, 64) FROM gk_par GROUP BY m$$),
    ($$SELECT m, b, count(*), gpu_histogram(x, 0, 1, 64) FROM gk_par GROUP BY m, b$$)
) v(q), LATERAL rt_memory(q) c;
SET max_parallel_workers_per_gather = 2;
SELECT q, c.* FROM (VALUES
    ($$SELECT m, gpu_histogram(x, 0, 1, 64) FROM gk_par GROUP BY m$$)
) v(q), LATERAL rt_memory(q) c;
RESET work_mem;
RESET hash_mem_multiplier;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET TimeZone;

-- The memory bound at run time: statistics that promise 10 groups, then
-- 20,000 more keys inserted behind the planner's back.  The planner picks
-- the scan emitting finished rows; its groups outgrow work_mem x
-- hash_mem_multiplier, so it keeps those it has and writes the tuples of
-- the others to temporary files (Spilled Tuples), then counts them a
-- partition at a time (Spill Passes): the ordinary plan's answer, in
-- bounded memory, without an error (the spill topic tests more).
CREATE TABLE gk_grow (k int4, x float8) WITH (autovacuum_enabled = false);
INSERT INTO gk_grow SELECT i % 10, (i % 97) / 97.0 FROM generate_series(1, 1000) i;
ANALYZE gk_grow;
INSERT INTO gk_grow SELECT 100 + i, (i % 89) / 89.0 FROM generate_series(1, 20000) i;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT regexp_replace(line, '\d+(\.\d+)?', 'N', 'g') AS plan_lines
FROM gk_plan_lines($$SELECT k, gpu_histogram(x, 0, 1, 64) FROM gk_grow GROUP BY k$$) line
WHERE line ~ 'Finalize|GpuHistogramScan|Group Flushes|Spilled|Spill Passes|Batches';
SELECT * FROM rt_compare($$SELECT k, count(*), gpu_histogram(x, 0, 1, 64) FROM gk_grow GROUP BY k$$);
RESET work_mem;
RESET hash_mem_multiplier;
SELECT * FROM rt_compare($$SELECT k, count(*), gpu_histogram(x, 0, 1, 64) FROM gk_grow GROUP BY k$$);
DROP TABLE gk_grow;
