-- The time and threshold forms through GpuHistogramScan (issue 47):
-- gpu_histogram(ts, lo, hi, nbins) over timestamptz, timestamp and date
-- columns, and gpu_histogram(x, thresholds), ungrouped and grouped, with
-- WHERE clauses, parameters, errors and workers.  Every answer is compared
-- with the ordinary plan (gpu_histogram.scan = off) as text, which on each
-- major is that major's numeric width_bucket rounding, in zones with
-- daylight saving and with odd offsets.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- Seven weeks of a reading every 41 seconds, across March's daylight
-- saving changes; dates over two years; values with NaN and NULLs; the
-- infinities of each time type.
CREATE TABLE readings (ts timestamptz, lts timestamp, d date, x float8, i int, s text);
INSERT INTO readings
SELECT t, t AT TIME ZONE 'UTC', date '2025-06-01' + (k % 730),
       CASE WHEN k % 503 = 0 THEN 'NaN' WHEN k % 13 = 0 THEN NULL ELSE (k % 1009) / 1009.0 * 10 - 5 END,
       k % 40 - 20,
       CASE WHEN k % 7 = 0 THEN NULL WHEN k % 3 = 0 THEN 'Alpha' ELSE 'beta' END
FROM (SELECT k, timestamptz '2026-03-01 00:00:00+00' + k * interval '41 seconds' AS t
      FROM generate_series(1, 100000) k) g;
INSERT INTO readings VALUES
  (NULL, NULL, NULL, 0.5, 1, 'gamma'),
  ('infinity', 'infinity', 'infinity', 1, 2, 'beta'),
  ('-infinity', '-infinity', '-infinity', -1, 3, 'beta');
-- all-visible pages: on a GPU host with device = gpu the time form's pages go to the page kernel
VACUUM ANALYZE readings;

-- The plans: both forms, ungrouped and grouped, are the scan.
SET TimeZone = 'UTC';
SELECT * FROM rt_explain($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50) FROM readings$$);
SELECT * FROM rt_explain($$SELECT gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[]) FROM readings$$);
SELECT * FROM rt_explain($$SELECT extract(dow FROM ts), gpu_histogram(ts, '2026-03-01', '2026-04-20', 50),
  gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[]), count(*) FROM readings GROUP BY 1$$);

-- Every shape, in four zones.
SELECT z, q, c.*
FROM (VALUES ('UTC'), ('America/New_York'), ('Asia/Kathmandu'), ('Australia/Lord_Howe')) zones(z),
(VALUES
  -- the time form, daily, hourly, reversed, by the minute over a range
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50) FROM readings$$),
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 1200) FROM readings$$),
  ($$SELECT gpu_histogram(ts, '2026-04-20', '2026-03-01', 77) FROM readings$$),
  ($$SELECT gpu_histogram(ts, '2026-03-29 00:00+00', '2026-03-30 00:00+00', 1440) FROM readings
     WHERE ts >= '2026-03-29 00:00+00' AND ts < '2026-03-30 00:00+00'$$),
  -- a range of centuries in many buckets: where the majors' numeric rounding differs
  ($$SELECT gpu_histogram(ts, '1900-01-01', '2100-01-01 00:00:00.000003', 99991) FROM readings$$),
  ($$SELECT gpu_histogram(lts, '2026-03-01', '2026-04-20', 50), gpu_histogram(d, '2025-06-01', '2027-06-01', 24)
     FROM readings$$),
  -- beside the float8 form and counts, ungrouped and grouped
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50), gpu_histogram(x, -5, 5, 10) FROM readings
     WHERE x < 4$$),
  ($$SELECT s, count(*), count(ts), gpu_histogram(ts, '2026-03-01', '2026-04-20', 50) FROM readings GROUP BY s$$),
  ($$SELECT date_trunc('day', ts), gpu_histogram(ts, '2026-03-01', '2026-04-20', 1200) FROM readings GROUP BY 1$$),
  ($$SELECT extract(hour FROM ts), extract(dow FROM ts), gpu_histogram(d, '2025-06-01', '2027-06-01', 24)
     FROM readings GROUP BY 1, 2$$),
  ($$SELECT lower(s), gpu_histogram(lts, '2026-03-01', '2026-04-20', 7) FROM readings WHERE lower(s) <> 'alpha'
     GROUP BY 1$$),
  -- the threshold form: NaN counts in the last bin, as width_bucket puts it there
  ($$SELECT gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[]) FROM readings$$),
  ($$SELECT gpu_histogram(i, '{-10, -10, 0, 7.5, 100}'::float8[]), gpu_histogram(x, '{}'::float8[]) FROM readings$$),
  ($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", gpu_histogram(x, '{-4, -2, 0, 2, 4}'::float8[])
     FROM readings WHERE ts BETWEEN '2026-03-28T00:00:00Z' AND '2026-03-30T00:00:00Z' GROUP BY 1$$),
  ($$SELECT s, gpu_histogram(x, ARRAY[-1, 1]::float8[]), gpu_histogram(ts, '2026-03-01', '2026-04-20', 5)
     FROM readings GROUP BY s HAVING count(*) > 5$$),
  -- no rows: NULL, as the aggregate gives
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50), gpu_histogram(x, '{1}'::float8[]) FROM readings
     WHERE ts > '3000-01-01' AND ts < 'infinity'$$)
) v(q), LATERAL rt_compare(q, false, z) c
ORDER BY z COLLATE "C", q COLLATE "C";

-- The time and threshold forms' pages in batches, as the page kernel
-- takes them, parsed here (debug_pages_on_cpu): a time form's value is the
-- stored integer.
SET gpu_histogram.device = cpu;
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT q, c.*
FROM (VALUES
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 1200), gpu_histogram(d, '2025-06-01', '2027-06-01', 24)
     FROM readings$$),
  ($$SELECT gpu_histogram(lts, '2026-04-20', '2026-03-01', 50), gpu_histogram(i, -20, 20, 40) FROM readings$$),
  ($$SELECT gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[]), gpu_histogram(i, '{5, -1, 3, 3}'::float8[]) FROM readings$$)
) v(q), LATERAL rt_compare(q, false, 'Asia/Kathmandu') c;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;

-- Arguments the aggregate refuses: the same error, raised only where a row reaches it.
SELECT q, c.*
FROM (VALUES
  ($$SELECT gpu_histogram(ts, '2026-03-01', 'infinity', 10) FROM readings$$),
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-03-01', 10) FROM readings$$),
  ($$SELECT gpu_histogram(d, '2026-03-01', '2026-04-01', 0) FROM readings$$),
  ($$SELECT s, gpu_histogram(lts, '2026-03-01', '2026-04-01', -3) FROM readings GROUP BY s$$),
  ($$SELECT gpu_histogram(x, '{1, NULL}'::float8[]) FROM readings$$),
  ($$SELECT s, gpu_histogram(x, '{{1, 2}, {3, 4}}'::float8[]) FROM readings GROUP BY s$$),
  ($$SELECT gpu_histogram(ts, '2026-03-01', 'infinity', 10), gpu_histogram(x, '{1, NULL}'::float8[]) FROM readings
     WHERE ts > '3000-01-01' AND ts < 'infinity'$$),
  ($$SELECT gpu_histogram(ts, NULL, '2026-04-01', 10), gpu_histogram(x, NULL::float8[]) FROM readings$$)
) v(q), LATERAL rt_try(q) c;

-- Parameters, in a generic plan: the arguments are evaluated when the scan starts.
SET plan_cache_mode = force_generic_plan;
PREPARE in_window(timestamptz, timestamptz, int, float8[]) AS
  SELECT s, gpu_histogram(ts, $1, $2, $3), gpu_histogram(x, $4) FROM readings WHERE ts >= $1 GROUP BY s;
SELECT * FROM rt_compare($$EXECUTE in_window('2026-03-10', '2026-03-20', 240, '{0, 1, 2}')$$, false, 'Europe/Berlin');
SELECT * FROM rt_compare($$EXECUTE in_window('2026-04-01', '2026-03-20', 11, '{}')$$, false, 'Europe/Berlin');
DEALLOCATE in_window;
RESET plan_cache_mode;

-- With workers: partial states of both forms, combined by the Finalize Aggregate.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
-- (device = cpu for the plan: a shape whose pages the GPU's page cache
-- served gets a serial plan, docs/custom-scan.md)
SET gpu_histogram.device = cpu;
SELECT * FROM rt_explain($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50) FROM readings$$);
RESET gpu_histogram.device;
SELECT q, c.*
FROM (VALUES
  ($$SELECT gpu_histogram(ts, '2026-03-01', '2026-04-20', 50), gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[])
     FROM readings$$),
  ($$SELECT extract(hour FROM ts), gpu_histogram(ts, '2026-03-01', '2026-04-20', 1200),
            gpu_histogram(x, '{-1, 0, 0.5, 2}'::float8[]) FROM readings GROUP BY 1$$)
) v(q), LATERAL rt_compare(q, false, 'America/New_York') c;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE readings;
RESET TimeZone;
