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
RESET work_mem;
RESET TimeZone;
DROP TABLE og_stale;

DROP TABLE og;
