--
-- local_time_keys: monotone keys whose steps pass through a zone's local
-- time (extension/scan/keys/zone_steps.h) on the grouped page path: the
-- weeks from Sunday that Metabase and Superset write,
-- date_trunc('week', ts + interval '1 day') - interval '1 day', a day
-- shifted by hours then cast to a date, to_timestamp(...) AT TIME ZONE
-- 'UTC', round trips through local time, parts of a unit,
-- date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute
-- FROM ts) / 15), which keep order only within the unit, and a unit less
-- its remainder, date_trunc('minute', ts) - (extract(minute FROM ts)::int
-- % 5) * interval '1 minute'.  Such a step keeps order only
-- between the zone's transitions; the key tables' intervals are cut where
-- one could break it.  The rows: one every 7 minutes 13 seconds through
-- 2011 and 2026, and around every transition of the zones below (found
-- from their offsets every 15 minutes) the instant itself, a microsecond
-- either side, and the same a day and a week later and earlier, where a
-- day's shift lands on the transition.  Every answer is compared with
-- PostgreSQL's ordinary plan in zones with daylight saving (New York, Lord
-- Howe's half hour), transitions at midnight (Sao Paulo and Beirut in
-- 2011, Havana), a day skipped (Apia, December 30, 2011), Moscow's change
-- of 2011, a POSIX zone and UTC.  At the end, the periodic fields of the
-- local time, with rows from 1969 on.
--
LOAD 'gpu_histogram';
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

CREATE TABLE lt (ts timestamptz, host text, x float8);
INSERT INTO lt
SELECT t, 'host-' || (i % 7), (i % 89) / 89.0
FROM (SELECT i, timestamptz '2011-01-01 00:00+00' + i * interval '14 minutes 26 seconds' AS t
      FROM generate_series(0, 36400) i) a;
INSERT INTO lt
SELECT t, 'host-' || (i % 7), (i % 89) / 89.0
FROM (SELECT i, timestamptz '2026-01-01 00:00+00' + i * interval '14 minutes 26 seconds' AS t
      FROM generate_series(0, 36400) i) a;
CREATE TEMP TABLE lt_zones (z text);
INSERT INTO lt_zones VALUES ('America/New_York'), ('Australia/Lord_Howe'), ('America/Sao_Paulo'), ('Asia/Beirut'),
                            ('America/Havana'), ('Pacific/Apia'), ('Europe/Moscow'), ('EST5EDT'), ('UTC');
-- each zone's transitions, to the 15 minutes they fall on
CREATE TEMP TABLE lt_transitions AS
SELECT DISTINCT t
FROM lt_zones, LATERAL (
    SELECT t, (t AT TIME ZONE z) - (t AT TIME ZONE 'UTC') AS off,
           lag((t AT TIME ZONE z) - (t AT TIME ZONE 'UTC')) OVER (ORDER BY t) AS before
    FROM (SELECT generate_series(timestamptz '2010-12-20 00:00+00', '2012-01-10 00:00+00', '15 minutes') AS t
          UNION ALL
          SELECT generate_series(timestamptz '2025-12-20 00:00+00', '2027-01-10 00:00+00', '15 minutes')) s) o
WHERE off <> before;
SELECT count(*) > 20 AS transitions FROM lt_transitions;
INSERT INTO lt
SELECT t + d + e, 'edge', 0.5
FROM lt_transitions,
     unnest(ARRAY[interval '0', interval '1 day', interval '-1 day', interval '7 days', interval '-7 days',
                  interval '1 day 1 hour', interval '-1 day -1 hour']) d,
     unnest(ARRAY[interval '0', interval '1 microsecond', interval '-1 microsecond']) e;
INSERT INTO lt VALUES (NULL, 'null', 0.25), ('infinity', 'inf', 0.75), ('-infinity', 'inf', 0.125);
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE lt;

CREATE TEMP TABLE lt_keys (n int GENERATED ALWAYS AS IDENTITY, k text);
INSERT INTO lt_keys (k) VALUES
    -- Metabase's and Superset's weeks from Sunday; Superset's week ending on Saturday
    ($$date_trunc('week', ts + interval '1 day') - interval '1 day'$$),
    ($$date_trunc('week', ts + interval '1 day') + interval '5 days'$$),
    -- a day shifted by days and hours
    ($$date_trunc('hour', ts + interval '1 day')$$),
    ($$date_trunc('day', ts - interval '3 days 6 hours')$$),
    ($$(ts - interval '6 hours')::date$$),
    ($$(ts + interval '2 days')::date$$),
    -- Grafana's five minutes as UTC's local time, and local times in other zones
    ($$to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AT TIME ZONE 'UTC'$$),
    ($$date_trunc('hour', (ts AT TIME ZONE 'Asia/Kathmandu') AT TIME ZONE 'Europe/Berlin')$$),
    ($$date_trunc('minute', ts::timestamp)::timestamptz$$),
    ($$date_trunc('day', ts)::date$$),
    ($$date_trunc('month', ts - interval '15 days')$$),
    -- a part of a unit: sub-hour and sub-day groups as Superset and hand-written dashboards write them
    ($$date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15)$$),
    ($$date_trunc('day', ts) + interval '4 hours' * floor(extract(hour FROM ts) / 4)$$),
    ($$date_trunc('hour', ts) + (date_part('minute', ts)::int / 10) * interval '10 minutes'$$),
    ($$date_trunc('minute', ts) + interval '30 seconds' * floor(extract(second FROM ts) / 30)$$),
    ($$date_trunc('hour', ts::timestamp) + interval '20 minutes' * floor(date_part('minute', ts::timestamp) / 20)$$),
    -- one whose part reaches past the next hour's start: order holds only within an hour
    ($$date_trunc('hour', ts) + interval '3 minutes' * extract(minute FROM ts)$$),
    -- a unit less its remainder: five minutes as often written by hand, and hours in sevens of a day
    ($$date_trunc('minute', ts) - (extract(minute FROM ts)::int % 5) * interval '1 minute'$$),
    ($$date_trunc('hour', ts) - interval '1 hour' * mod(date_part('hour', ts)::int, 7)$$);

-- The plan: a monotone key, whose table the GPU (here the CPU's page parse) uses
SET TimeZone = 'America/New_York';
SELECT rt_explain($$SELECT date_trunc('week', ts + interval '1 day') - interval '1 day' AS week, gpu_histogram(x, 0, 1, 8)
                    FROM lt GROUP BY 1$$);

-- Every key in every zone, against the ordinary plan: the keys' rows, counts and histograms
SET work_mem = '64MB';
-- (the groups' number is left out: the rows at transitions follow the server's time zone data)
SELECT z, n, k, c.scan_planned, c.same
FROM lt_zones, lt_keys,
     LATERAL rt_compare(format('SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt GROUP BY 1', k), false, z) c
ORDER BY z COLLATE "C", n;
-- with a WHERE clause on the time and a host, as a dashboard sends it
SELECT z, n, c.scan_planned, c.same
FROM lt_zones, lt_keys,
     LATERAL rt_compare(format($$SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt
                                 WHERE ts >= '2026-10-20' AND ts < '2026-11-20' AND host IN ('host-1', 'edge') GROUP BY 1$$, k),
                        false, z) c
WHERE n <= 6 OR n >= 12
ORDER BY z COLLATE "C", n;
-- the parts of a unit through 2011's transitions (Apia's skipped day, Moscow's last, Sao Paulo's and
-- Beirut's at midnight), over a range whose intervals a key table holds
SELECT z, n, c.scan_planned, c.same
FROM lt_zones, lt_keys,
     LATERAL rt_compare(format($$SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt
                                 WHERE ts >= '2011-01-01' AND ts < '2012-01-01' GROUP BY 1$$, k),
                        false, z) c
WHERE n >= 12
ORDER BY z COLLATE "C", n;

-- The page path took them: EXPLAIN ANALYZE names nothing that kept pages
-- off it (serial, New York), but for keys of a minute or so over the
-- table's 16 years, more intervals than a key table holds ...
SELECT n, count(*) FILTER (WHERE line ~ 'Pages Kept off') AS kept_off_lines,
       min(substring(line FROM 'Key Computation: (.*)$')) AS computed
FROM lt_keys, LATERAL rt_explain(format('SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt GROUP BY 1', k), true) line
WHERE n <= 11
GROUP BY n ORDER BY n;
-- ... which a dashboard's range of six weeks (across New York's and Lord Howe's transitions) holds
SELECT n, count(*) FILTER (WHERE line ~ 'Pages Kept off') AS kept_off_lines,
       min(substring(line FROM 'Key Computation: (.*)$')) AS computed
FROM lt_keys, LATERAL rt_explain(format($$SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt
                                          WHERE ts >= '2026-03-01' AND ts < '2026-04-15' GROUP BY 1$$, k), true) line
GROUP BY n ORDER BY n;
RESET work_mem;

-- What stays the executor's: a month's shift (January 30 and 31 both go to
-- February 28), a zone abbreviation that stands for a zone, a numeric key
-- of such steps (its slots are numbered as its values come, which the
-- transitions could reorder)
SELECT k, coalesce(substring(rt_plan(format('SELECT %s, gpu_histogram(x, 0, 1, 8) FROM lt GROUP BY 1', k))
                             FROM 'Key Computation: ([^\n]*)'), 'the ordinary plan') AS computed
FROM (VALUES ($$date_trunc('day', ts + interval '1 month')$$), ($$date_trunc('hour', ts AT TIME ZONE 'msk')$$),
             ($$date_trunc('hour', (ts AT TIME ZONE 'msk') + interval '1 hour')$$),
             ($$extract(epoch FROM date_trunc('week', ts + interval '1 day'))$$)) v(k);
-- and is no monotone key (the executor's on the host, or the ordinary plan,
-- as the costs choose), over a week: a unit's part of another field than
-- the one below the unit, of another time than the one truncated, of an
-- interval with days, or divided by a constant below 1; a unit less the
-- remainder of a second (its cast rounds 59.6 up to 60), of two units, or
-- of another field
SET work_mem = '64MB';
SELECT k, coalesce(substring(rt_plan(format($$SELECT %s, gpu_histogram(x, 0, 1, 8) FROM lt
                                               WHERE ts >= '2026-03-01' AND ts < '2026-03-08' GROUP BY 1$$, k))
                             FROM 'Key Computation: ([^\n]*)'), '') !~ 'non-decreasing' AS not_monotone
FROM (VALUES ($$date_trunc('hour', ts) + interval '15 seconds' * floor(extract(second FROM ts) / 15)$$),
             ($$date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts + interval '1 hour') / 15)$$),
             ($$date_trunc('day', ts) + interval '1 day 1 hour' * floor(extract(hour FROM ts) / 4)$$),
             ($$date_trunc('hour', ts) + interval '1 minute' * floor(extract(minute FROM ts) / 0.5)$$),
             ($$date_trunc('second', ts) - (extract(second FROM ts)::int % 5) * interval '1 second'$$),
             ($$date_trunc('minute', ts) - (extract(minute FROM ts)::int % 5) * interval '2 minutes'$$),
             ($$date_trunc('minute', ts) - (extract(hour FROM ts)::int % 5) * interval '1 minute'$$)) v(k);
-- (the accepted forms beside them are)
SELECT k, substring(rt_plan(format($$SELECT %s, gpu_histogram(x, 0, 1, 8) FROM lt
                                     WHERE ts >= '2026-03-01' AND ts < '2026-03-08' GROUP BY 1$$, k))
                    FROM 'Key Computation: ([^\n]*)') ~ 'non-decreasing' AS monotone
FROM (VALUES ($$date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15)$$),
             ($$date_trunc('minute', ts) - (extract(minute FROM ts)::int % 5) * interval '1 minute'$$)) v(k);
RESET work_mem;

-- Periodic fields of the local time (the hour and minute of the day, the
-- day of the week), which the GPU computes from the zone's offset over each
-- interval between transitions: in every zone, of the session's zone and
-- of a named one, with rows before 2000 (local times below PostgreSQL's
-- epoch) and rows added after ANALYZE, beyond the statistics' range
INSERT INTO lt
SELECT timestamptz '1969-12-25 00:00+00' + i * interval '7 hours 13 minutes 1.5 seconds', 'old', (i % 89) / 89.0
FROM generate_series(0, 40000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE lt;
INSERT INTO lt
SELECT timestamptz '2027-01-15 00:00+00' + i * interval '47 minutes 11 seconds', 'late', 0.75
FROM generate_series(0, 500) i;
CREATE TEMP TABLE lt_fields (n int GENERATED ALWAYS AS IDENTITY, k text);
INSERT INTO lt_fields (k) VALUES
    ($$extract(hour FROM ts)$$), ($$date_part('minute', ts)$$), ($$extract(dow FROM ts)$$),
    ($$date_part('isodow', ts)$$), ($$extract(hour FROM ts AT TIME ZONE 'Asia/Kolkata')$$),
    ($$date_part('dow', ts AT TIME ZONE 'Australia/Lord_Howe')$$), ($$extract(minute FROM ts::timestamp)$$);
SET work_mem = '64MB';
SELECT z, n, k, c.scan_planned, c.same
FROM lt_zones, lt_fields,
     LATERAL rt_compare(format('SELECT %s AS k, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM lt GROUP BY 1', k), false, z) c
ORDER BY z COLLATE "C", n;
-- two of them, and one beside a host in the WHERE clause
SELECT z, c.scan_planned, c.same
FROM lt_zones,
     LATERAL rt_compare($$SELECT extract(isodow FROM ts) AS d, extract(hour FROM ts) AS h, count(*) AS n,
                                 gpu_histogram(x, 0, 1, 8) AS hist
                          FROM lt WHERE host <> 'edge' GROUP BY 1, 2$$, false, z) c
ORDER BY z COLLATE "C";
RESET work_mem;

RESET TimeZone;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
DROP TABLE lt;
