--
-- timescaledb: GpuHistogramScan over TimescaleDB hypertables, with
-- time_bucket() as a native group key.  Every form a dashboard writes
-- (widths from a millisecond to a year, a time zone argument, origin and
-- offset, over timestamptz, timestamp and date), under session time zones
-- across their DST changes; chunk exclusion, parallel plans over chunks,
-- views with a filter on the bucket, updates, deletes and drop_chunks; and
-- TimescaleDB's own errors.  Every answer is compared with the ordinary
-- plan's (gpu_histogram.scan = off), and once with width_bucket and
-- count(*) in plain SQL.  ts_compare() prints: scan_planned | same | rows.
--
-- The ordinary plan is taken with timescaledb.enable_optimizations = off.
-- With them on, TimescaleDB sorts by ts to group by time_bucket(), which
-- splits a group where time_bucket() with a zone argument is not monotonic:
-- at New York's fall-back of 2026-11-01, 45-minute buckets give 04:45 UTC,
-- then 06:30, then 04:45 again, and that sorted plan returns two 04:45
-- rows.  PostgreSQL's own HashAggregate, like the scan, returns one.
--
-- Runs only where TimescaleDB is installed and preloaded
-- (test/timescaledb/run_timescaledb_checks.sh).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS timescaledb;
CREATE EXTENSION IF NOT EXISTS gpu_histogram;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';

CREATE FUNCTION ts_plan(q text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
    plan text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        plan := plan || line || E'\n';
    END LOOP;
    RETURN plan;
END
$fn$;

CREATE FUNCTION ts_rows(q text) RETURNS text[] LANGUAGE plpgsql AS $fn$
DECLARE
    rec record;
    acc text[] := '{}';
BEGIN
    FOR rec IN EXECUTE q LOOP
        acc := acc || rec::text;
    END LOOP;
    SELECT coalesce(array_agg(e ORDER BY e COLLATE "C"), '{}') INTO acc FROM unnest(acc) e;
    RETURN acc;
END
$fn$;

-- whether the scan was planned with time_bucket as its key (or no
-- time_bucket in the query), whether its answer equals the ordinary
-- plan's, and how many rows; zone, if given, is the TimeZone of both runs
CREATE FUNCTION ts_compare(q text, zone text DEFAULT NULL)
RETURNS TABLE(scan_planned boolean, same boolean, rows bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    with_scan text[];
    without_scan text[];
    plan text;
BEGIN
    IF zone IS NOT NULL THEN
        PERFORM set_config('TimeZone', zone, true);
    END IF;
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    plan := ts_plan(q);
    scan_planned := plan LIKE '%GpuHistogramScan%' AND
                    (q NOT LIKE '%time_bucket%' OR plan LIKE '%Key Computation: time_bucket%');
    with_scan := ts_rows(q);
    PERFORM set_config('gpu_histogram.scan', 'off', true);
    PERFORM set_config('timescaledb.enable_optimizations', 'off', true);
    without_scan := ts_rows(q);
    PERFORM set_config('timescaledb.enable_optimizations', 'on', true);
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    same := with_scan = without_scan;
    rows := cardinality(without_scan);
    RETURN NEXT;
END
$fn$;

-- for queries that may fail: the ordinary plan's outcome and whether the
-- scan's is the same (the same rows, or the same error)
CREATE FUNCTION ts_outcome(q text) RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
    RETURN md5(array_to_string(ts_rows(q), E'\n'));
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$fn$;

CREATE FUNCTION ts_try(q text, OUT outcome text, OUT same boolean) LANGUAGE plpgsql AS $fn$
DECLARE
    with_scan text;
BEGIN
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    with_scan := ts_outcome(q);
    PERFORM set_config('gpu_histogram.scan', 'off', true);
    PERFORM set_config('timescaledb.enable_optimizations', 'off', true);
    outcome := ts_outcome(q);
    PERFORM set_config('timescaledb.enable_optimizations', 'on', true);
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    same := with_scan = outcome;
    IF outcome !~ '^[0-9A-Z]{5}: ' THEN
        outcome := 'ok';
    END IF;
END
$fn$;

-- Three months across the spring DST changes of New York (March 8) and
-- Berlin (March 29) of 2026, one row every 97 seconds, and four weeks
-- across the autumn ones (October 25, November 1), one row every 61
-- seconds; a timestamp and a date column beside ts (some NULL, some
-- infinite), NULL values, 7-day chunks.  ts_dense: ten rows at each of
-- 30,000 instants 7 microseconds apart, for the narrowest widths.
CREATE TABLE ts_m (ts timestamptz NOT NULL, t timestamp, d date, x float8, g int);
SELECT create_hypertable('ts_m', 'ts', chunk_time_interval => interval '7 days') IS NOT NULL AS hypertable;
INSERT INTO ts_m
SELECT ts,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i = 500 THEN 'infinity' WHEN i = 501 THEN '-infinity'
            ELSE ts AT TIME ZONE 'America/New_York' END,
       CASE WHEN i % 103 = 0 THEN NULL WHEN i = 502 THEN 'infinity'::date ELSE (ts AT TIME ZONE 'Asia/Tokyo')::date END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 7919) % 10007) / 10007.0 END,
       i % 5
FROM (SELECT '2026-02-20 00:00:00+00'::timestamptz + i * interval '97 seconds' AS ts, i
      FROM generate_series(1, 120000) i) s;
INSERT INTO ts_m
SELECT '2026-10-15 00:00:00+00'::timestamptz + i * interval '61 seconds', NULL, NULL, (i % 1000) / 1000.0, i % 3
FROM generate_series(1, 40000) i;
CREATE TABLE ts_dense (ts timestamptz NOT NULL, x float8);
SELECT create_hypertable('ts_dense', 'ts', chunk_time_interval => interval '50 milliseconds') IS NOT NULL AS hypertable;
INSERT INTO ts_dense
SELECT '2026-05-01 12:00:00+00'::timestamptz + (i / 10) * interval '7 microseconds', (i % 997) / 997.0
FROM generate_series(0, 299999) i;
VACUUM ANALYZE ts_m, ts_dense;
SELECT count(*) > 10 AS many_chunks FROM show_chunks('ts_m');

-- Widths from a microsecond to a second
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 microsecond', ts), gpu_histogram(x, 0, 1, 4) FROM ts_dense GROUP BY 1$$),
    ($$SELECT time_bucket('20 microseconds', ts), count(*), gpu_histogram(x, 0, 1, 4) FROM ts_dense GROUP BY 1$$),
    ($$SELECT time_bucket('1 millisecond', ts), gpu_histogram(x, 0, 1, 4) FROM ts_dense GROUP BY 1$$),
    ($$SELECT time_bucket('1 second', ts, '2026-05-01 12:00:00.1+00'::timestamptz), gpu_histogram(x, 0, 1, 4) FROM ts_dense GROUP BY 1$$)
) v(q), LATERAL ts_compare(q) c;

-- Fixed widths over timestamptz, from ten minutes to four weeks
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('10 minutes', ts), count(x), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 hour', ts), count(*), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('90 minutes', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 week', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('4 weeks', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 hour', ts), g, gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1, 2$$),
    ($$SELECT time_bucket('1 day', ts) AS day, width_bucket(x, 0, 1, 4) AS band, gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1, 2$$)
) v(q), LATERAL ts_compare(q) c;

-- Months and years: TimescaleDB buckets them by calendar month
SELECT q, zone, c.* FROM (VALUES
    ($$SELECT time_bucket('1 month', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 month', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$, 'America/New_York'),
    ($$SELECT time_bucket('3 months', ts), count(*), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$, 'Asia/Kolkata'),
    ($$SELECT time_bucket('1 year', ts), gpu_histogram(x, 0, 1, 16) FROM ts_m GROUP BY 1$$, 'UTC')
) v(q, zone), LATERAL ts_compare(q, zone) c;

-- A time zone argument, origin and offset, under other session zones
SELECT q, zone, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('45 minutes', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 day', ts, 'Europe/Berlin'), count(*), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'America/New_York'),
    ($$SELECT time_bucket('1 week', ts, 'Australia/Lord_Howe'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 month', ts, 'Asia/Kathmandu'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 hour', ts, 'EST'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 hour', ts, '+05:30'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('2 hours', ts, 'America/New_York', origin => '2026-01-01 00:30:00-05'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 day', ts, 'Europe/Berlin', "offset" => '6 hours'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'Asia/Tokyo'),
    ($$SELECT time_bucket('1 hour', ts, '2026-01-01 00:20:00+00'::timestamptz), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 week', ts, origin => '2026-01-05 06:00:00+00'::timestamptz), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'America/New_York'),
    ($$SELECT time_bucket('1 hour', ts, "offset" => '10 minutes'::interval), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'UTC'),
    ($$SELECT time_bucket('1 day', ts, "offset" => '1 day 3 hours'::interval), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'America/New_York'),
    ($$SELECT time_bucket('1 month', ts, "offset" => '1 month'::interval), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$, 'Europe/Berlin')
) v(q, zone), LATERAL ts_compare(q, zone) c;

-- timestamp and date columns (NULL and infinite values among them)
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', t), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('10 minutes', t, '2026-01-01 00:05:00'::timestamp), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', t, "offset" => '-2 hours'::interval), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 month', t), count(*), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', d), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 week', d), count(x), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 week', d, '2026-01-07'::date), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('3 days', d, "offset" => '1 day'::interval), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 month', d), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('2 months', d, '2026-02-01'::date), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$)
) v(q), LATERAL ts_compare(q) c;

-- Against plain SQL: width_bucket and count(*) per hour and bucket
WITH ours AS (
    SELECT time_bucket('1 hour', ts) AS b, gpu_histogram(x, 0, 1, 8) AS h FROM ts_m GROUP BY 1
), plain AS (
    SELECT b, array_agg(coalesce(n, 0) ORDER BY k) AS h
    FROM (SELECT DISTINCT time_bucket('1 hour', ts) AS b FROM ts_m WHERE x IS NOT NULL) bs
         CROSS JOIN generate_series(0, 9) k
         LEFT JOIN (SELECT time_bucket('1 hour', ts) AS b, width_bucket(x, 0, 1, 8) AS k, count(*) AS n
                    FROM ts_m WHERE x IS NOT NULL GROUP BY 1, 2) c USING (b, k)
    GROUP BY b
)
SELECT count(*) AS hours, count(*) FILTER (WHERE o.h IS DISTINCT FROM p.h) AS differ
FROM ours o FULL JOIN plain p USING (b) WHERE o.h IS NOT NULL OR p.h IS NOT NULL;

-- Chunk exclusion: only the chunks of the range are read
SELECT (SELECT count(*) FROM regexp_matches(ts_plan($$SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m
        WHERE ts >= '2026-03-05' AND ts < '2026-03-12' GROUP BY 1$$), 'GpuHistogramScan', 'g')) BETWEEN 1 AND 2 AS few_chunks_read;
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m WHERE ts >= '2026-03-05' AND ts < '2026-03-12' GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM ts_m WHERE ts > now() - interval '100 years' GROUP BY 1$$),
    ($$SELECT time_bucket('15 minutes', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m WHERE time_bucket('15 minutes', ts) >= '2026-03-20' GROUP BY 1$$),
    ($$SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m WHERE g = 2 AND x > 0.5 GROUP BY 1$$)
) v(q), LATERAL ts_compare(q) c;

-- A dashboard's view, filtered on its bucket from outside
CREATE VIEW ts_hourly AS
    SELECT time_bucket('1 hour', ts) AS hour, count(*) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM ts_m GROUP BY 1;
SELECT q, c.* FROM (VALUES
    ($$SELECT * FROM ts_hourly WHERE hour >= '2026-03-01'$$),
    ($$SELECT * FROM ts_hourly WHERE hour >= '2026-03-01' AND hour < '2026-10-01'$$)
) v(q), LATERAL ts_compare(q) c;

-- Parallel plans over the chunks
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT ts_plan($$SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$)
       ~ 'Gather(.|\n)*Parallel Custom Scan \(GpuHistogramScan\)' AS parallel_scan;
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', ts, 'Europe/Berlin'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 month', d), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$)
) v(q), LATERAL ts_compare(q) c;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- After updates, deletes (pages no longer all-visible) and drop_chunks
UPDATE ts_m SET x = 1 - x WHERE g = 1 AND ts < '2026-03-01';
DELETE FROM ts_m WHERE g = 3 AND ts >= '2026-03-15' AND ts < '2026-03-20';
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 day', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$)
) v(q), LATERAL ts_compare(q) c;
SELECT count(*) > 0 AS dropped FROM drop_chunks('ts_m', older_than => '2026-03-10'::timestamptz);
VACUUM ANALYZE ts_m;
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 hour', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 week', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM ts_m$$)
) v(q), LATERAL ts_compare(q) c;

-- TimescaleDB's own errors, raised the same from the scan
SELECT q, c.* FROM (VALUES
    ($$SELECT time_bucket('1 month 2 days', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('0 hours', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('-1 hour', ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('12 hours', d), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 hour', ts, 'No/Such_Zone'), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket(NULL::interval, ts), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$),
    ($$SELECT time_bucket('1 hour', ts, NULL::text), gpu_histogram(x, 0, 1, 8) FROM ts_m GROUP BY 1$$)
) v(q), LATERAL ts_try(q) c;

-- TimescaleDB's histogram() counts a NULL input as 0.0; gpu_histogram skips it
SELECT histogram(x, 0, 1, 4) AS timescaledb, gpu_histogram(x, 0, 1, 4) AS ours
FROM (VALUES (0.1::float8), (NULL), (0.9)) v(x);

-- A float sum and mean beside the histogram, each device's rows in every
-- chunk: every chunk leaves its groups for the last, which emits each
-- group once, its exact sum rounded once (against numeric), serially and
-- with workers.  A chunk's devices hold about eight 1e16 and 424 ones a
-- day, so sums rounded chunk by chunk and then added would be off.
CREATE TABLE ts_sums (ts timestamptz NOT NULL, device int, x float8);
SELECT create_hypertable('ts_sums', 'ts', chunk_time_interval => interval '1 day') IS NOT NULL AS created;
INSERT INTO ts_sums
SELECT '2026-03-01'::timestamptz + i * interval '10 seconds', i % 20, CASE WHEN i % 1000 < 20 THEN 1e16 ELSE 1 END
FROM generate_series(0, 60479) i;
VACUUM ANALYZE ts_sums;
CREATE TEMP TABLE ts_sums_reference AS
SELECT device, sum(x::numeric)::float8 AS sx, sum(x::numeric)::float8 / count(x) AS ax FROM ts_sums GROUP BY device;
SELECT ts_plan($$SELECT device, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM ts_sums GROUP BY device$$)
       ~ 'Groups Merged' AS merged;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.sx::text = r.sx::text AND s.ax::text = r.ax::text) AS exact
FROM (SELECT device, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM ts_sums GROUP BY device) s
JOIN ts_sums_reference r USING (device) WHERE s.h IS NOT NULL;
SELECT count(*) FILTER (WHERE s.sx::text <> r.sx::text) > 0 AS sequential_differs
FROM (SELECT device, sum(x) AS sx FROM ts_sums GROUP BY device) s JOIN ts_sums_reference r USING (device);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT ts_plan($$SELECT device, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM ts_sums GROUP BY device$$)
       ~ 'Gather(.|\n)*Groups Merged' AS parallel_merged;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.sx::text = r.sx::text AND s.ax::text = r.ax::text) AS exact
FROM (SELECT device, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM ts_sums GROUP BY device) s
JOIN ts_sums_reference r USING (device) WHERE s.h IS NOT NULL;
SELECT s.sx = r.sx AS sum_exact, s.ax = r.ax AS avg_exact
FROM (SELECT sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM ts_sums WHERE device = 3) s,
     (SELECT sum(x::numeric)::float8 AS sx, sum(x::numeric)::float8 / count(x) AS ax FROM ts_sums WHERE device = 3) r
WHERE s.h IS NOT NULL;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE ts_sums;

DROP VIEW ts_hourly;
DROP TABLE ts_m;
DROP TABLE ts_dense;
