-- Dashboards (issue 47): the GROUP BY keys dashboards write beside the
-- kinds the scan has always computed.  Grafana's macros, periodic fields,
-- zones named in the query, minute buckets over a range, any other
-- expression.  Each query is compared with the ordinary plan
-- (gpu_histogram.scan = off) as text, row for row, in zones with daylight
-- saving and with odd offsets, and is planned as the scan.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;  -- the DEBUG1 lines below are the planner's alone, on a packaged server too

-- Six weeks of a reading every 37 seconds from 2026-03-01, through March's
-- daylight saving changes in Europe and America and April's in Lord Howe
-- and New Zealand; an integer epoch column as Grafana's
-- $__unixEpochGroup expects; labels in mixed case; a numeric(6,2); NULLs.
CREATE TABLE dash (ts timestamptz, lts timestamp, ep bigint, x float8, s text, n numeric(6,2));
INSERT INTO dash
SELECT t, t AT TIME ZONE 'UTC', extract(epoch FROM t)::bigint, (i % 997) / 997.0,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 3 = 0 THEN 'Alpha' ELSE 'beta' END,
       (i % 50) / 4.0
FROM (SELECT i, timestamptz '2026-03-01 00:00:00+00' + i * interval '37 seconds' AS t
      FROM generate_series(1, 98000) i) g;
INSERT INTO dash VALUES (NULL, NULL, NULL, 0.5, 'gamma', NULL), ('infinity', 'infinity', NULL, 0.25, NULL, 1.5),
                        ('2026-03-10 12:00+00', '-infinity', NULL, NULL, 'beta', NULL);
ANALYZE dash;

-- The plans: every key kind in EXPLAIN's Key Computation.
SET TimeZone = 'Europe/Berlin';
SELECT * FROM rt_explain($$SELECT floor(extract(epoch FROM ts) / 60) * 60 AS "time", gpu_histogram(x, 0, 1, 8)
  FROM dash WHERE ts BETWEEN '2026-03-28T00:00:00Z' AND '2026-03-30T00:00:00Z' GROUP BY 1 ORDER BY 1$$);
SELECT * FROM rt_explain($$SELECT extract(dow FROM ts), date_part('hour', ts), gpu_histogram(x, 0, 1, 8)
  FROM dash GROUP BY 1, 2$$);
SELECT * FROM rt_explain($$SELECT lower(s), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$);

-- Which keys are monotone in their column (a table of intervals, for the
-- GPU) and which the executor's alone: a step that decreases (a negative
-- factor, a constant minus the column), a month's interval (its length
-- depends on the date), or one that could raise for a value no row has
-- (to_timestamp out of range, an int8 overflow) is not a monotone step.
-- A float8 key is one where no step can make a -0 (the ordinary plan shows
-- a group of -0 and 0 as whichever came first): Grafana's integer epoch
-- group, floor(ep / 3600) * 3600, is; a ceil of values above -1 is not,
-- and keeps the ordinary plan.
SET work_mem = '256MB';  -- every key's groups fit: the plan shows how the key is computed
SELECT k, coalesce(substring(rt_plan(format('SELECT %s, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1', k))
                             FROM 'Key Computation: ([^\n]*)'), 'the ordinary plan') AS computed
FROM (VALUES ('floor(extract(epoch FROM ts) / 60) * 60'), ('to_timestamp(floor(extract(epoch FROM ts) / 300) * 300)'),
             ('ep / 3600 * 3600'), ('round(extract(epoch FROM ts) / 86400, 2)'), ('date_part(''epoch'', lts) / 60'),
             ('date_trunc(''hour'', lts + interval ''30 minutes'')'), ('floor(-extract(epoch FROM ts) / 60)'),
             ('floor(extract(epoch FROM ts) / 60) * -60'), ('1e10 - extract(epoch FROM ts)'),
             ('date_trunc(''hour'', lts + interval ''1 month'')'), ('to_timestamp(extract(epoch FROM ts) * 1e9)'),
             ('ep * 1000000000000'), ('extract(epoch FROM ts) + ep'), ('ceil(date_part(''epoch'', lts) / 1e10)'),
             -- casts to an integer: Grafana's epoch in milliseconds, numeric and float8 ones, and one past int4's range
             ('(floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint'), ('(extract(epoch FROM ts) / 60)::int4'),
             ('(date_part(''epoch'', lts) / 600)::int8'), ('(extract(epoch FROM ts) * 1000)::int4')) v(k);
RESET work_mem;

-- Every family, in five zones: the ordinary plan's rows, as text.
SELECT z, q, c.*
FROM (VALUES ('UTC'), ('Europe/Berlin'), ('America/New_York'), ('Asia/Kathmandu'), ('Australia/Lord_Howe')) zones(z),
(VALUES
  -- Grafana: $__timeGroupAlias(ts, '1m') over $__timeFilter(ts)
  ($$SELECT floor(extract(epoch FROM ts) / 60) * 60 AS "time", gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts BETWEEN '2026-03-28T00:00:00Z' AND '2026-03-30T00:00:00Z' GROUP BY 1$$),
  -- $__unixEpochGroup(ep, '1h'), and wrapped in to_timestamp
  ($$SELECT floor(ep / 3600) * 3600 AS "time", gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS "time", count(*), gpu_histogram(x, 0, 1, 8)
     FROM dash GROUP BY 1$$),
  -- Grafana's epoch in milliseconds, a bigint, and a float8 epoch rounded to a bigint (the infinite
  -- rows left out: their casts raise, in either plan)
  ($$SELECT (floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint AS "time", gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts BETWEEN '2026-03-28T00:00:00Z' AND '2026-03-30T00:00:00Z' GROUP BY 1$$),
  ($$SELECT (date_part('epoch', ts) / 900)::int8 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-03-01' AND ts < '2026-05-01' GROUP BY 1$$),
  -- an epoch rounded to a bigint, then divided: its groups bounded by the span over 300 s, so the scan is offered
  ($$SELECT extract(epoch FROM ts)::bigint / 300 * 300 AS "time", gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-03-27' AND ts < '2026-03-31' GROUP BY 1$$),
  -- periodic fields, alone and together
  ($$SELECT extract(hour FROM ts), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_part('dow', ts), extract(hour FROM ts), count(x), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  ($$SELECT extract(isodow FROM ts), extract(minute FROM ts), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  ($$SELECT extract(day FROM ts), extract(month FROM ts), extract(quarter FROM ts), extract(doy FROM ts),
            gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2, 3, 4$$),
  ($$SELECT extract(hour FROM lts), date_part('dow', lts), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  -- a zone named in the query
  ($$SELECT date_trunc('day', ts, 'Europe/Berlin'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('hour', ts AT TIME ZONE 'UTC'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT extract(hour FROM ts AT TIME ZONE 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  -- the session's local time as a timestamp, through April 5's repeated half hour in Lord Howe
  ($$SELECT date_trunc('minute', ts::timestamp), extract(hour FROM ts::timestamp), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-04-04 12:00+00' AND ts < '2026-04-05 12:00+00' GROUP BY 1, 2$$),
  ($$SELECT ts::timestamp::date, date_part('dow', ts::timestamp), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  -- minute buckets over a range
  ($$SELECT date_trunc('minute', ts), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-03-29 00:00+00' AND ts < '2026-03-30 00:00+00' GROUP BY 1$$),
  -- quarter hours written by hand, of the time with a zone and of one without, through the changes
  ($$SELECT date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15) AS "time", count(*),
            gpu_histogram(x, 0, 1, 8) FROM dash WHERE ts >= '2026-03-27' AND ts < '2026-04-08' GROUP BY 1$$),
  ($$SELECT date_trunc('hour', lts) + (date_part('minute', lts)::int / 15) * interval '15 minutes', gpu_histogram(x, 0, 1, 8)
     FROM dash GROUP BY 1$$),
  -- any other key
  ($$SELECT lower(s), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT to_char(ts, 'YYYY-MM'), gpu_histogram(x, 0, 1, 8) FROM dash WHERE ts < '2026-06-01' GROUP BY 1$$),
  ($$SELECT n, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT n * 2 + 1, round(x::numeric, 1), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  ($$SELECT floor(x * 10), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts), upper(s), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q, false, z) c
ORDER BY z COLLATE "C", q COLLATE "C";

-- date_trunc(unit, ts, zone), and date_trunc and ::date of ts AT TIME
-- ZONE zone: the time keys in the zone the query names, found as
-- PostgreSQL's functions find it (an abbreviation first, a fixed offset or
-- the zone it stands for, then a zone name).  Every unit, across the
-- changes of March and April in the data (Lord Howe's local half hour from
-- 1:30 to 2:00 comes twice on April 5), in a session whose own zone is
-- another; the infinite row is PostgreSQL's functions'.  Local time in an
-- abbreviation that stands for a zone (msk) is PostgreSQL's, row by row.
SET TimeZone = 'Asia/Kathmandu';
SELECT * FROM rt_explain($$SELECT date_trunc('day', ts, 'Europe/Berlin'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$);
SELECT * FROM rt_explain($$SELECT date_trunc('hour', ts AT TIME ZONE 'UTC'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$);
SET work_mem = '64MB';  -- a minute's 60,000 groups fit
SELECT k, z, c.*
FROM (VALUES ('date_trunc(''minute'', ts, %L)'), ('date_trunc(''hour'', ts, %L)'), ('date_trunc(''day'', ts, %L)'),
             ('date_trunc(''week'', ts, %L)'), ('date_trunc(''month'', ts, %L)'),
             ('date_trunc(''minute'', ts AT TIME ZONE %L)'), ('date_trunc(''hour'', ts AT TIME ZONE %L)'),
             ('date_trunc(''day'', ts AT TIME ZONE %L)'), ('date_trunc(''month'', ts AT TIME ZONE %L)'),
             ('(ts AT TIME ZONE %L)::date'), ('extract(hour FROM ts AT TIME ZONE %L)'),
             ('extract(minute FROM ts AT TIME ZONE %L)'), ('date_part(''dow'', ts AT TIME ZONE %L)')) keys(k),
     (VALUES ('Europe/Berlin'), ('america/new_york'), ('Australia/Lord_Howe'), ('Asia/Kathmandu'), ('UTC'),
             ('EST'), ('msk'), ('UTC+3'), ('+05:45')) zones(z),
     LATERAL rt_compare(format('SELECT ' || k || ', count(*), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1', z)) c
ORDER BY k COLLATE "C", z COLLATE "C";
RESET work_mem;
-- a zone no lookup finds raises PostgreSQL's error at the first row, and none without rows; a NULL zone is a NULL key
SELECT q, c.*
FROM (VALUES
  ($$SELECT date_trunc('hour', ts, 'Mars/Olympus_Mons'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('hour', ts, 'Mars/Olympus_Mons'), gpu_histogram(x, 0, 1, 8) FROM dash WHERE ts < '2000-01-01' GROUP BY 1$$),
  ($$SELECT date_trunc('hour', ts, NULL), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('hour', ts AT TIME ZONE 'Mars/Olympus_Mons'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT extract(hour FROM ts AT TIME ZONE 'Mars/Olympus_Mons'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT extract(hour FROM ts AT TIME ZONE 'Mars/Olympus_Mons'), gpu_histogram(x, 0, 1, 8) FROM dash WHERE ts < '2000-01-01' GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;
RESET TimeZone;

-- Errors the key raises are the ordinary plan's.  (A page's rows are read
-- from its last line pointer, so where two rows would fail differently the
-- first error may name another row than the ordinary plan's: one failing
-- value here.)
SELECT q, c.*
FROM (VALUES
  ($$SELECT 1 / (n::int % 3), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT (CASE WHEN s = 'Alpha' THEN s ELSE '7' END)::int, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;

-- Keys the scan leaves to the ordinary plan, with the same answers.
SELECT q, c.*
FROM (VALUES
  ($$SELECT x::numeric, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT ARRAY[lower(s)], gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;

-- With workers: the key is evaluated in each process.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT q, c.*
FROM (VALUES
  ($$SELECT lower(s), extract(hour FROM ts), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  ($$SELECT floor(ep / 3600) * 3600, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- Why the scan was not offered, at DEBUG1.  The statements run once quietly
-- first, so that no catalog cache grows (a DEBUG1 line of its own) while
-- the messages show.
\o /dev/null
EXPLAIN (COSTS OFF) SELECT s, gpu_histogram(x, 0, 1, 8), stddev(x) FROM dash GROUP BY s;
EXPLAIN (COSTS OFF) SELECT x::numeric, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT s, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY s;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), count(DISTINCT s) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), count(*) FILTER (WHERE x > 0.5) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x * 2, 0, 1, 8) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), avg(x::numeric) FROM dash;
\o
SET client_min_messages = debug1;
EXPLAIN (COSTS OFF) SELECT s, gpu_histogram(x, 0, 1, 8), stddev(x) FROM dash GROUP BY s;
EXPLAIN (COSTS OFF) SELECT x::numeric, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1;
-- the lines alone: the ordinary plans differ between releases (a sort under DISTINCT)
\o /dev/null
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), count(DISTINCT s) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), count(*) FILTER (WHERE x > 0.5) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x * 2, 0, 1, 8) FROM dash;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 8), avg(x::numeric) FROM dash;
\o
SET gpu_histogram.scan = off;
EXPLAIN (COSTS OFF) SELECT s, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY s;
RESET gpu_histogram.scan;
RESET client_min_messages;

-- Periodic fields and monotone keys on the page path: the batches of
-- all-visible pages the GPU would take, with each key a table of verified
-- intervals of the stored time (on a GPU, its counts; here each batch
-- parsed as the GPU would refuse it, debug_pages_on_cpu), across Berlin's
-- and New York's changes of March and Lord Howe's half-hour one of April 5.
-- The monotone keys: Grafana's numeric group, the same to_timestamp(), an
-- integer epoch's steps (in integers, and Grafana's in float8), a time
-- without zone shifted and truncated, and a numeric rounded to two places;
-- the infinite row's key is the host's.
VACUUM dash;
SET gpu_histogram.device = cpu;
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT z, q, c.*
FROM (VALUES ('Europe/Berlin'), ('America/New_York'), ('Asia/Kathmandu'), ('Australia/Lord_Howe')) zones(z),
(VALUES
  ($$SELECT extract(dow FROM ts), extract(hour FROM ts), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$),
  ($$SELECT date_part('minute', ts), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-04-04 12:00+00' AND ts < '2026-04-05 12:00+00' GROUP BY 1$$),
  ($$SELECT extract(month FROM ts), extract(quarter FROM ts), extract(isodow FROM ts), gpu_histogram(x, 0, 1, 8)
     FROM dash GROUP BY 1, 2, 3$$),
  ($$SELECT floor(extract(epoch FROM ts) / 60) * 60 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts BETWEEN '2026-03-28T00:00:00Z' AND '2026-03-30T00:00:00Z' GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT to_timestamp(floor(extract(epoch FROM ts) / 300) * 300), extract(hour FROM ts), gpu_histogram(x, 0, 1, 8)
     FROM dash WHERE ts >= '2026-04-04 12:00+00' AND ts < '2026-04-05 12:00+00' GROUP BY 1, 2$$),
  ($$SELECT ep / 900 * 900, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT floor(ep / 3600) * 3600 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('hour', lts + interval '30 minutes'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT round(extract(epoch FROM ts) / 86400, 2), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts < '2026-03-05' GROUP BY 1$$),
  ($$SELECT date_trunc('minute', ts, 'Australia/Lord_Howe'), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-04-04 12:00+00' AND ts < '2026-04-05 12:00+00' GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT date_trunc('minute', ts AT TIME ZONE 'Australia/Lord_Howe'), gpu_histogram(x, 0, 1, 8) FROM dash
     WHERE ts >= '2026-04-04 12:00+00' AND ts < '2026-04-05 12:00+00' GROUP BY 1$$),
  ($$SELECT (ts AT TIME ZONE 'Europe/Berlin')::date, gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1$$),
  ($$SELECT extract(hour FROM ts AT TIME ZONE 'Australia/Lord_Howe'), date_part('dow', ts AT TIME ZONE 'Asia/Kathmandu'),
            gpu_histogram(x, 0, 1, 8) FROM dash GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q, false, z) c
ORDER BY z COLLATE "C", q COLLATE "C";
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;

-- Monotone keys on the host: where the statistics put at least 16 rows in
-- each interval, the host places its rows by the same table of verified
-- intervals instead of evaluating the key (EXPLAIN ANALYZE counts them);
-- rows outside the table (inserted after ANALYZE, before and after its
-- range) and NULL columns are evaluated.  A row every 10 seconds for three
-- days; an integer epoch beside it.
SET TimeZone = 'Australia/Lord_Howe';
SET gpu_histogram.device = cpu;  -- the host's rows: the same lines on a GPU host
CREATE TABLE mono (ts timestamptz, ep bigint, x float8);
INSERT INTO mono
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE t END, CASE WHEN i % 89 = 0 THEN NULL ELSE extract(epoch FROM t)::bigint END,
       (i % 991) / 991.0
FROM (SELECT i, timestamptz '2026-04-03 12:00:00+00' + i * interval '10 seconds' AS t
      FROM generate_series(1, 26000) i) g;
ANALYZE mono;
INSERT INTO mono SELECT t, extract(epoch FROM t)::bigint, 0.5
FROM (SELECT timestamptz '2026-04-10 00:00:00+00' + i * interval '7 minutes' AS t FROM generate_series(1, 300) i
      UNION ALL SELECT timestamptz '2026-03-30 00:00:00+00' + i * interval '7 minutes' FROM generate_series(1, 50) i) g;
SELECT * FROM rt_explain($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$, true);
SELECT q, c.*
FROM (VALUES
  ($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts) / 300) * 300 AS "time", gpu_histogram(x, 0, 1, 8) FROM mono
     WHERE ts BETWEEN '2026-04-04T00:00:00Z' AND '2026-04-05T00:00:00Z' GROUP BY 1$$),
  ($$SELECT to_timestamp(floor(extract(epoch FROM ts) / 1800) * 1800), gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$),
  ($$SELECT floor(ep / 3600) * 3600, count(x), gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$),
  ($$SELECT ep / 600 * 600, gpu_histogram(x, 0, 1, 8) FROM mono WHERE ep > 1775300000 GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
-- and in two workers, each with its own table
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT q, c.*
FROM (VALUES
  ($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$),
  ($$SELECT floor(ep / 3600) * 3600, gpu_histogram(x, 0, 1, 8) FROM mono GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpu_histogram.device;
DROP TABLE mono;

-- Monotone keys of a date column.  extract(epoch FROM d), d::timestamp and
-- the steps above keep the column's order; date_trunc('month', d) works on
-- d::timestamptz, the date's midnight in the session's zone, which keeps
-- the dates' order only where no clock jumps forward by more than a day;
-- a POSIX zone's may jump by days: in 'AAA+100BBB-60,M3.2.0,M11.1.0' the
-- midnight of 2012-03-12 is 3-18 16:00 local and that of 3-17 is 3-10, so
-- date_trunc('week', d)::date goes 3-19, 3-19, 3-05, 3-18, 3-19.  So its table
-- evaluates such a key at every day it covers.  Twenty years of dates,
-- NULLs, both infinities, rows added after ANALYZE on both sides of the
-- table's range (the executor's); the host's rows and the page path's; a
-- zoned key that is a numeric stays the executor's.
SET gpu_histogram.device = cpu;
CREATE TABLE days (d date, x float8);
INSERT INTO days
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE date '2011-11-01' + i / 8 END, (i % 991) / 991.0
FROM generate_series(1, 60000) i;
INSERT INTO days VALUES ('infinity', 0.5), ('-infinity', 0.5);
ANALYZE days;
INSERT INTO days SELECT date '2031-01-01' + i, 0.75 FROM generate_series(1, 40) i;
INSERT INTO days SELECT date '1870-01-01' + i * 11, 0.75 FROM generate_series(1, 40) i;
SET TimeZone = 'America/New_York';
SELECT * FROM rt_explain($$SELECT date_trunc('month', d), gpu_histogram(x, 0, 1, 8) FROM days GROUP BY 1$$, true);
SELECT * FROM rt_explain($$SELECT floor(extract(epoch FROM d) / 604800) * 604800 AS "time", gpu_histogram(x, 0, 1, 8) FROM days GROUP BY 1$$);
SELECT * FROM rt_explain($$SELECT extract(epoch FROM date_trunc('month', d)), gpu_histogram(x, 0, 1, 8) FROM days GROUP BY 1$$);
SELECT z, k, c.*
FROM (VALUES ($$date_trunc('month', d)$$), ($$date_trunc('week', d)::date$$), ($$d::timestamptz$$),
             ($$floor(extract(epoch FROM d) / 86400 / 7) * 604800$$), ($$date_trunc('year', d::timestamp)$$),
             ($$to_timestamp(floor(extract(epoch FROM d) / 2592000) * 2592000)$$), ($$date_part('epoch', d)$$),
             ($$extract(epoch FROM date_trunc('month', d))$$)) keys(k),
     (VALUES ('America/New_York'), ('Australia/Lord_Howe'), ('America/Sitka'), ('Pacific/Apia'),
             ('Asia/Kathmandu'), ('AAA+100BBB-60,M3.2.0,M11.1.0')) zones(z),
     LATERAL rt_compare(format('SELECT %s, count(*), gpu_histogram(x, 0, 1, 8) FROM days GROUP BY 1', k), false, z) c
ORDER BY k COLLATE "C", z COLLATE "C";
-- the page path, and a range of the column
VACUUM days;
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT z, q, c.*
FROM (VALUES ('America/Sao_Paulo'), ('AAA+100BBB-60,M3.2.0,M11.1.0')) zones(z),
(VALUES
  ($$SELECT date_trunc('week', d), gpu_histogram(x, 0, 1, 8) FROM days GROUP BY 1$$),
  ($$SELECT (d::timestamptz)::date, count(*), gpu_histogram(x, 0, 1, 8) FROM days WHERE d >= '2018-01-01' GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM d) / 86400) * 86400 AS "time", gpu_histogram(x, 0, 1, 8) FROM days
     WHERE d BETWEEN '2012-02-01' AND '2012-04-01' GROUP BY 1$$)
) v(q), LATERAL rt_compare(q, false, z) c
ORDER BY z COLLATE "C", q COLLATE "C";
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE days;

-- The groups' estimate of finer grains than a unit: quarter hours written
-- by hand (the hours times a value per 15 minutes of the minute, not 60
-- each), ten minutes in integers, six hours of a day, an hour rounded by
-- round(), which the planner inlines as round(x, 0), and twenty minutes as
-- a minute less its remainder.  At or above the
-- groups there are, and close to them, so that the default work_mem keeps
-- the scan whole where the groups fit.
SET TimeZone = 'America/New_York';
CREATE FUNCTION pg_temp.estimated(q text) RETURNS float8 LANGUAGE plpgsql AS $fn$
DECLARE
    p json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
    RETURN (p -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END
$fn$;
CREATE FUNCTION pg_temp.groups(q text) RETURNS float8 LANGUAGE plpgsql AS $fn$
DECLARE
    n float8;
BEGIN
    EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
    RETURN n;
END
$fn$;
SELECT k, e >= g AS covers, e <= 3 * g AS close
FROM (VALUES ($$date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15)$$),
             ($$date_trunc('hour', ts) + (date_part('minute', ts)::int / 10) * interval '10 minutes'$$),
             ($$date_trunc('day', ts) + interval '6 hours' * floor(date_part('hour', ts) / 6)$$),
             ($$to_timestamp(round(extract(epoch FROM ts) / 3600) * 3600)$$),
             ($$date_trunc('minute', ts) - (extract(minute FROM ts)::int % 20) * interval '1 minute'$$)) v(k),
     LATERAL format('SELECT %s, gpu_histogram(x, 0, 1, 8) FROM dash WHERE ts >= %L AND ts < %L GROUP BY 1',
                    k, '2026-03-20', '2026-03-27') q,
     LATERAL (SELECT pg_temp.estimated(q) AS e, pg_temp.groups(q) AS g) n;

-- A bar chart wants rows, not an array: the histogram unnested in the
-- select list (a ProjectSet above the scan's rows), its bucket numbers
-- from generate_series beside it, per group too, and count(1) for
-- count(*).  Serially and under a Gather, where the planner puts the
-- projection below the Gather, on the scan.  A set-returning GROUP BY key
-- is evaluated below the grouping, so it keeps the ordinary plan.
SET TimeZone = 'Australia/Lord_Howe';
SELECT w AS workers, q, c.*
FROM (VALUES (0), (2)) v(w),
     LATERAL set_config('max_parallel_workers_per_gather', w::text, false) s,
     LATERAL (VALUES ($$SELECT generate_series(0, 9) AS bucket, unnest(gpu_histogram(x, 0, 1, 8)) AS n FROM dash$$),
                     ($$SELECT count(1), count('x'), unnest(gpu_histogram(x, 0, 1, 4)) FROM dash WHERE s = 'beta'$$),
                     ($$SELECT s, generate_series(0, 5) AS bucket, unnest(gpu_histogram(x, 0, 1, 4)) AS n FROM dash GROUP BY 1$$),
                     ($$SELECT date_trunc('day', ts) AS day, unnest(gpu_histogram(x, '{0.25,0.5,0.75}'::float8[])) AS n, count(1)
                        FROM dash WHERE ts < '2026-03-20' GROUP BY 1 HAVING count(1) > 10$$),
                     ($$SELECT s, unnest(ARRAY[min(x), max(x)]), gpu_histogram(x, 0, 1, 2) FROM dash GROUP BY 1$$),
                     ($$SELECT count(*), gpu_histogram(x, 0, 1, 4) FROM dash GROUP BY generate_series(1, 2)$$)) t(q),
     LATERAL rt_compare(q) c
ORDER BY 1, q COLLATE "C";
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM rt_explain($$SELECT s, generate_series(0, 5) AS bucket, unnest(gpu_histogram(x, 0, 1, 4)) AS n FROM dash GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT s, generate_series(0, 5) AS bucket, unnest(gpu_histogram(x, 0, 1, 4)) AS n FROM dash GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT unnest(gpu_histogram(x, 0, 1, 4)) AS n FROM dash GROUP BY s ORDER BY 1 DESC LIMIT 5$$, true);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

DROP TABLE dash;
RESET TimeZone;
