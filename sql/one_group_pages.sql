--
-- one_group_pages: a table in time order grouped by a time key has one
-- group on most of its pages (a page of rows a few seconds apart lies in
-- one hour).  Where the span of a page's times has one key (the interval
-- time_keys.h verified for date_trunc and date_bin, one local hour,
-- minute or day under one UTC offset for a date field), the host finds
-- the group once and counts the page as an ungrouped scan would
-- (extension/scan/grouped/table/group_find.cpp, group_agg_find_one_group).
-- The rows: one every 20 seconds through a fortnight around Lord Howe's
-- half-hour fall-back (April 5, 2026) and New York's (November 1, 2026),
-- with a text column before the values, a NULL time now and then, a few
-- rows out of order, and both infinities.  Each answer is compared with
-- the ordinary plan in zones with daylight saving (New York, Lord Howe's
-- half hour), an odd offset (Kolkata) and UTC, with pages read by the
-- host and in batches as for the GPU, and with a WHERE clause.
--
LOAD 'gpu_histogram';
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET gpu_histogram.device = cpu;
SET jit = off;

CREATE TABLE og (ts timestamptz, host text, i int, x float8, lts timestamp);
INSERT INTO og
SELECT CASE WHEN i % 7001 = 0 THEN NULL
            WHEN i % 4999 = 0 THEN timestamptz '2026-06-01 00:00+00' + i * interval '13 minutes'
            ELSE t END,
       'host-' || (i % 11), i, (i % 97) / 97.0, t AT TIME ZONE 'UTC'
FROM (SELECT i, CASE WHEN i < 60480 THEN timestamptz '2026-03-29 00:00+00' + i * interval '20 seconds'
                     ELSE timestamptz '2026-10-25 00:00+00' + (i - 60480) * interval '20 seconds' END AS t
      FROM generate_series(0, 120959) i) s;
INSERT INTO og VALUES ('infinity', 'inf', -1, 0.5, 'infinity'), ('-infinity', 'inf', -2, 0.25, '-infinity');
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE og;

CREATE TEMP TABLE og_zones (z text);
INSERT INTO og_zones VALUES ('America/New_York'), ('Australia/Lord_Howe'), ('Asia/Kolkata'), ('UTC');
CREATE TEMP TABLE og_queries (n int, q text);
INSERT INTO og_queries VALUES
  (1, 'SELECT extract(hour FROM ts), count(*), gpu_histogram(x, 0, 1, 16) FROM og GROUP BY 1'),
  (2, $$SELECT date_part('minute', ts), gpu_histogram(x, '{0.1,0.5,0.9}'::float8[]) FROM og GROUP BY 1$$),
  (3, $$SELECT date_trunc('hour', ts), count(*), avg(i), max(x), min(i), sum(i), gpu_histogram(x, 0, 1, 8) FROM og GROUP BY 1$$),
  (4, 'SELECT extract(dow FROM ts), extract(hour FROM ts), count(*), gpu_histogram(x, 0, 1, 4) FROM og GROUP BY 1, 2'),
  (5, $$SELECT date_bin('15 minutes', ts, timestamptz '2026-01-01 00:00+00'),
              gpu_histogram(ts, timestamptz '2026-03-28 00:00+00', timestamptz '2026-11-09 00:00+00', 100)
       FROM og GROUP BY 1$$),
  (6, $$SELECT (ts AT TIME ZONE 'Asia/Kolkata')::date, count(*), gpu_histogram(x, 0, 1, 4) FROM og GROUP BY 1$$),
  (7, $$SELECT extract(hour FROM ts AT TIME ZONE 'Australia/Lord_Howe'), date_trunc('day', ts),
              gpu_histogram(x, 0, 1, 4) FROM og GROUP BY 1, 2$$),
  (8, $$SELECT extract(hour FROM ts), count(*), gpu_histogram(x, 0, 1, 8) FROM og WHERE host <> 'host-3' GROUP BY 1$$),
  (9, $$SELECT date_trunc('hour', lts), extract(minute FROM lts), count(*), gpu_histogram(x, 0, 1, 8)
       FROM og GROUP BY 1, 2$$),
  (10, $$SELECT date_trunc('week', ts), extract(quarter FROM ts), count(*), gpu_histogram(x, 0, 1, 8)
        FROM og WHERE i % 3 <> 1 GROUP BY 1, 2$$),
  -- keys the host places by a table of intervals (monotone_key.cpp): Metabase's Sunday weeks, a to_timestamp bucket
  (11, $$SELECT date_trunc('week', ts + interval '1 day') - interval '1 day', count(*), gpu_histogram(x, 0, 1, 8)
        FROM og WHERE ts >= '2026-03-29 00:00+00' AND ts < '2026-04-12 00:00+00' GROUP BY 1$$),
  (12, $$SELECT to_timestamp(floor(extract(epoch FROM ts) / 900) * 900), count(*), avg(i), max(x), gpu_histogram(x, 0, 1, 8)
        FROM og WHERE ts BETWEEN '2026-10-25T00:00:00Z' AND '2026-11-07T00:00:00Z' GROUP BY 1$$),
  (13, $$SELECT floor(extract(epoch FROM ts) / 900) * 900 AS "time", gpu_histogram(x, 0, 1, 8)
        FROM og WHERE ts BETWEEN '2026-03-30T00:00:00Z' AND '2026-04-08T00:00:00Z' GROUP BY 1$$);

-- pages read by the host
SELECT n, z, c.scan_planned, c.same, c.rows
FROM og_queries, og_zones, LATERAL rt_compare(q, false, z) c
ORDER BY n, z;

-- pages batched as for the GPU and parsed by the host
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SELECT n, z, c.scan_planned, c.same, c.rows
FROM og_queries, og_zones, LATERAL rt_compare(q, false, z) c
WHERE z IN ('America/New_York', 'Australia/Lord_Howe')
ORDER BY n, z;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.debug_pages_per_batch;

-- max and min over pages of one hour, where values that compare equal
-- differ in their bits (a 0 and a -0, NaNs): the state keeps the last in
-- the rows' order, as float8larger and float8smaller do.  The zeros lie
-- inside each hour, so the one that decides lies on a page of one group.
CREATE TABLE og_ext (ts timestamptz, host text, i int, x float8);
INSERT INTO og_ext
SELECT timestamptz '2026-05-01 00:00+00' + i * interval '1 second', 'host', i,
       CASE WHEN (i / 3600) % 6 = 5 THEN 'NaN'::float8
            WHEN i % 1000 = 17 AND (i / 3600) % 3 = 1 THEN 'NaN'::float8
            WHEN i % 3600 BETWEEN 600 AND 1199 AND i % 7 = 0 THEN '-0'::float8
            WHEN i % 3600 BETWEEN 600 AND 1199 AND i % 7 = 3 THEN 0::float8
            WHEN (i / 3600) % 3 = 0 THEN -(1 + i % 5)::float8
            ELSE (1 + i % 5)::float8 END
FROM generate_series(0, 64799) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE og_ext;
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), max(x), min(x), count(x), gpu_histogram(i, 0, 65000, 4)
                            FROM og_ext GROUP BY 1$$, false, 'UTC') c;
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), max(x), min(x), gpu_histogram(i, 0, 65000, 4)
                            FROM og_ext WHERE i % 5 <> 2 GROUP BY 1$$, false, 'UTC') c;
DROP TABLE og_ext;

-- groups past the memory bound (statistics from when the table held one
-- hour): the closed table refuses a page's one group whole, and its rows
-- wait in the spill with the others
CREATE TABLE og_stale (ts timestamptz, host text, x float8);
INSERT INTO og_stale SELECT timestamptz '2026-10-31 00:00+00' + i * interval '1 second', 'h', 0.5 FROM generate_series(1, 10) i;
ANALYZE og_stale;
INSERT INTO og_stale SELECT ts, host, x FROM og WHERE i % 2 = 0;
SET work_mem = '1MB';
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 12000) FROM og_stale GROUP BY 1$$,
                           false, 'America/New_York') c;
SELECT line AS spilled
FROM rt_explain($$SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 12000) FROM og_stale GROUP BY 1$$, true) line
WHERE line ~ 'Spill';
-- the same table all-visible: its pages come whole, and a page whose one
-- group the closed table refuses is listed and spilled as above
VACUUM og_stale;
SET work_mem = '1MB';
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 12000) FROM og_stale GROUP BY 1$$,
                           false, 'America/New_York') c;
RESET work_mem;
RESET TimeZone;
DROP TABLE og_stale;

-- all-visible pages read whole in one pass (group_page.cpp): a page of
-- one group is read once, for its times' span and its values; a page of
-- two groups, or with a NULL or infinite time, or whose values two
-- histograms may raise for, is listed and goes the general way.  Rows
-- seven seconds apart over New York's spring change, a float4 and a
-- float8 column after a text column, NULL times and values, infinite
-- values and signed zeros; the keys of one column (date_trunc, date
-- fields, date_bin, Metabase's Sunday weeks), histograms, counts and
-- float value aggregates of one value column.  The means and sums are
-- exactly rounded (value_aggs): compared to ten and eight places.
CREATE TABLE og_pass (ts timestamptz, host text, f float4, x float8);
INSERT INTO og_pass
SELECT CASE WHEN i % 10007 = 0 THEN NULL ELSE timestamptz '2026-03-05 00:00+00' + i * interval '7 seconds' END,
       'host-' || (i % 13),
       CASE WHEN i % 997 = 0 THEN NULL ELSE ((i * 37) % 101 / 101.0)::float4 END,
       CASE WHEN i % 991 = 0 THEN NULL
            WHEN i % 4001 = 0 THEN 'infinity'::float8
            WHEN i % 4003 = 0 THEN '-infinity'::float8
            WHEN i % 1009 = 0 THEN '-0'::float8
            WHEN i % 1013 = 0 THEN 0::float8
            ELSE ((i * 53) % 211) / 105.0 - 1 END
FROM generate_series(0, 149999) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE og_pass;
CREATE TEMP TABLE og_pass_queries (n int, q text);
INSERT INTO og_pass_queries VALUES
  (1, $$SELECT date_trunc('hour', ts), count(*), round(avg(x)::numeric, 10), max(x), min(x), round(sum(x)::numeric, 8),
               gpu_histogram(x, -1, 1, 8)
        FROM og_pass GROUP BY 1$$),
  (2, $$SELECT extract(hour FROM ts), gpu_histogram(f, '{0.1,0.5,0.9}'::float8[]), max(f), round(avg(f)::numeric, 10)
        FROM og_pass GROUP BY 1$$),
  (3, $$SELECT date_trunc('day', ts), extract(hour FROM ts),
               gpu_histogram(ts, timestamptz '2026-03-05 00:00+00', timestamptz '2026-03-18 00:00+00', 312)
        FROM og_pass GROUP BY 1, 2$$),
  (4, $$SELECT date_trunc('week', ts + interval '1 day') - interval '1 day', count(*), gpu_histogram(x, -1, 1, 4)
        FROM og_pass GROUP BY 1$$),
  (5, $$SELECT date_bin('30 minutes', ts, timestamptz '2026-01-01 00:00+00'), min(x), gpu_histogram(x, '{-0.5,0,0.5}'::float8[])
        FROM og_pass GROUP BY 1$$),
  -- not read in one pass: two value columns, count(col)
  (6, $$SELECT date_trunc('hour', ts), gpu_histogram(x, -1, 1, 4), gpu_histogram(f, 0, 1, 4) FROM og_pass GROUP BY 1$$),
  (7, $$SELECT extract(hour FROM ts), count(x), gpu_histogram(x, -1, 1, 4) FROM og_pass GROUP BY 1$$),
  -- a dashboard's time range: pages inside it pass whole, pages across its ends are listed and filtered
  (8, $$SELECT date_trunc('hour', ts), count(*), max(x), gpu_histogram(x, -1, 1, 8) FROM og_pass
        WHERE ts >= '2026-03-07 10:20:13+00' AND ts < '2026-03-10 00:00:00+00' GROUP BY 1$$),
  (9, $$SELECT extract(hour FROM ts), gpu_histogram(f, 0, 1, 8) FROM og_pass WHERE ts > date '2026-03-08' GROUP BY 1$$),
  (10, $$SELECT date_trunc('day', ts), count(*), gpu_histogram(x, -1, 1, 8) FROM og_pass
         WHERE ts BETWEEN '2026-03-06 00:00:00+00' AND now() AND ts <> '2026-03-09 12:00:00+00' GROUP BY 1$$),
  -- not in one pass: a clause of another column, a list
  (11, $$SELECT date_trunc('hour', ts), gpu_histogram(x, -1, 1, 8) FROM og_pass WHERE host = 'host-1' GROUP BY 1$$),
  (12, $$SELECT date_trunc('hour', ts), gpu_histogram(x, -1, 1, 8) FROM og_pass
         WHERE ts IN ('2026-03-06 00:00:08+00', '2026-03-07 00:00:09+00') GROUP BY 1$$),
  -- Grafana's epoch key, a numeric kept as bytes: a page inside one of its intervals is one group
  (13, $$SELECT floor(extract(epoch FROM ts) / 1800) * 1800 AS "time", count(*), gpu_histogram(x, -1, 1, 8) FROM og_pass
         WHERE ts BETWEEN '2026-03-06T00:00:00Z' AND '2026-03-12T00:00:00Z' GROUP BY 1$$),
  (14, $$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", round(avg(x)::numeric, 10), max(x),
                gpu_histogram(x, -1, 1, 8)
         FROM og_pass GROUP BY 1$$);
SELECT n, z, c.scan_planned, c.same, c.rows
FROM og_pass_queries, og_zones, LATERAL rt_compare(q, false, z) c
WHERE z IN ('America/New_York', 'UTC')
ORDER BY n, z;
-- which of them read pages in one pass
SET TimeZone = 'America/New_York';
SELECT n, EXISTS (SELECT FROM rt_explain(q, true) line WHERE line ~ 'Pages Read in One Pass') AS one_pass
FROM og_pass_queries ORDER BY n;
-- in parallel workers: the whole table, and under time ranges
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT n, c.scan_planned, c.same, c.rows
FROM og_pass_queries, LATERAL rt_compare(q, false, 'America/New_York') c
WHERE n IN (1, 3, 8, 9, 13, 14)
ORDER BY n;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- errors: a NaN value raises for the first row that has it in both
-- plans; two histograms that may raise take the page's rows in their
-- order; invalid arguments raise at the first value
CREATE TABLE og_nan (ts timestamptz, host text, x float8);
INSERT INTO og_nan
SELECT timestamptz '2026-03-05 00:00+00' + i * interval '7 seconds', 'h',
       CASE WHEN i = 31337 THEN 'NaN'::float8 ELSE (i % 100) / 100.0 END
FROM generate_series(0, 59999) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE og_nan;
SELECT c.* FROM rt_try($$SELECT date_trunc('hour', ts), max(x), gpu_histogram(x, 0, 1, 8) FROM og_nan GROUP BY 1$$) c;
SELECT c.* FROM rt_try($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8), gpu_histogram(x, 0, 2, 4)
                        FROM og_nan GROUP BY 1$$) c;
SELECT c.* FROM rt_try($$SELECT extract(minute FROM ts), gpu_histogram(x, 1, 1, 8) FROM og_nan GROUP BY 1$$) c;
SELECT c.* FROM rt_try($$SELECT date_trunc('hour', ts), round(avg(x)::numeric, 10), gpu_histogram(x, '{0.5}'::float8[])
                        FROM og_nan GROUP BY 1$$) c;
RESET TimeZone;
DROP TABLE og_nan;
DROP TABLE og_pass;

DROP TABLE og;
