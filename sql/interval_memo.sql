--
-- interval_memo: a monotone key's table of intervals (Grafana's
-- floor(extract(epoch FROM ts) / 300) * 300, Metabase's Sunday weeks,
-- five minutes as a minute less its remainder) costs two evaluations of
-- the key a group; the intervals it verified are kept for the backend's
-- next tables of the same key (extension/scan/keys/interval_memo.h).
-- Each answer here is compared with the ordinary plan, while the memo
-- holds other ranges of the key, other zones' intervals, a table cut
-- short at a bucket's middle, and after it was emptied by a function's
-- definition and by other keys.  The DEBUG2 line of each table says how
-- many of its intervals were remembered and how many evaluations it made.
-- The rows: one every 10 seconds through New York's fall-back (November
-- 1, 2026), a text column before the values, a NULL time now and then.
--
LOAD 'gpu_histogram';
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.debug_pages_on_cpu = on;
-- every page in batches of 8 through the GPU's key tables, none handed
-- back to the host as a probe, none skipped by the ranges earlier scans
-- recorded: the DEBUG lines' counts do not depend on shared_buffers
SET gpu_histogram.page_probes = off;
SET gpu_histogram.debug_pages_per_batch = 8;
SET gpu_histogram.skip_pages_by_range = off;

CREATE TABLE im (ts timestamptz, host text, x float8);
INSERT INTO im
SELECT CASE WHEN i % 5003 = 0 THEN NULL ELSE timestamptz '2026-10-28 00:00+00' + i * interval '10 seconds' END,
       'host-' || (i % 7), (i % 89) / 89.0
FROM generate_series(0, 69119) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE im;

-- Grafana's five minutes over ranges that overlap, lie inside, and end in
-- a bucket's middle; each table's intervals are remembered for the next
\set g5 'SELECT floor(extract(epoch FROM ts) / 300) * 300 AS "time", count(*), gpu_histogram(x, 0, 1, 8) FROM im'
SET client_min_messages = debug2;
SELECT 1 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-29' AND ts < '2026-10-31' GROUP BY 1$$, false, 'America/New_York');
SELECT 2 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-30' AND ts < '2026-11-02 00:02:30' GROUP BY 1$$, false, 'America/New_York');
SELECT 3 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-30' AND ts < '2026-11-03' GROUP BY 1$$, false, 'America/New_York');
SELECT 4 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-28 12:02:30' AND ts < '2026-11-04' GROUP BY 1$$, false, 'America/New_York');
SELECT 5 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-31 00:02:30' AND ts < '2026-10-31 06:00' GROUP BY 1$$, false, 'America/New_York');
RESET client_min_messages;

-- keys that answer in the session's zone: each zone has its own
-- intervals.  The host places its rows by the table (pages read by the
-- host), and the memo is shared by the GPU's tables and the host's.
RESET gpu_histogram.debug_pages_on_cpu;
\set weeks 'SELECT date_trunc(''week'', ts + interval ''1 day'') - interval ''1 day'' AS w, count(*), gpu_histogram(x, 0, 1, 8) FROM im WHERE ts >= ''2026-10-28'' AND ts < ''2026-11-05'' GROUP BY 1'
\set rem 'SELECT date_trunc(''minute'', ts) - (extract(minute FROM ts)::int % 5) * interval ''1 minute'' AS t, gpu_histogram(x, 0, 1, 8) FROM im WHERE ts >= ''2026-10-31'' AND ts < ''2026-11-02'' GROUP BY 1'
\set hours 'SELECT to_timestamp(floor(extract(epoch FROM date_trunc(''hour'', ts)) / 5400) * 5400) AS h, count(*), gpu_histogram(x, 0, 1, 8) FROM im WHERE ts >= ''2026-10-29'' AND ts < ''2026-11-03'' GROUP BY 1'
SELECT o, q, z, c.scan_planned, c.same, c.rows
FROM (VALUES (1, 'weeks', :'weeks', 'America/New_York'), (2, 'weeks', :'weeks', 'Asia/Kolkata'),
             (3, 'weeks', :'weeks', 'America/New_York'), (4, 'weeks', :'weeks', 'Asia/Kathmandu'),
             (5, 'weeks', :'weeks', 'UTC'),
             (6, 'rem', :'rem', 'America/New_York'), (7, 'rem', :'rem', 'Australia/Lord_Howe'),
             (8, 'rem', :'rem', 'America/New_York'),
             (9, 'hours', :'hours', 'America/New_York'), (10, 'hours', :'hours', 'Asia/Kathmandu'),
             (11, 'hours', :'hours', 'Australia/Lord_Howe'), (12, 'hours', :'hours', 'America/New_York')) qs(o, q, sql, z),
     LATERAL rt_compare(sql, false, z) c
ORDER BY o;
-- EXPLAIN ANALYZE names the host's table
CREATE FUNCTION im_key_line(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        IF line ~ 'Key Computation' THEN
            RETURN NEXT line;
        END IF;
    END LOOP;
END
$fn$;
SET client_min_messages = debug2;
SELECT im_key_line(:'weeks');
RESET client_min_messages;
DROP FUNCTION im_key_line(text);
SET gpu_histogram.debug_pages_on_cpu = on;

-- a function defined: every memo is dropped (a superuser may replace a built-in)
CREATE FUNCTION im_f(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1';
SET client_min_messages = debug2;
SELECT 6 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-29' AND ts < '2026-10-30' GROUP BY 1$$, false, 'America/New_York');
RESET client_min_messages;
DROP FUNCTION im_f(int);

-- more keys than the backend remembers: the least recently used goes first
SELECT s, c.same, c.rows
FROM generate_series(60, 600, 60) s,
     LATERAL rt_compare(format($$SELECT floor(extract(epoch FROM ts) / %s) * %s AS t, gpu_histogram(x, 0, 1, 8)
                                  FROM im WHERE ts >= '2026-10-29' AND ts < '2026-10-30' GROUP BY 1$$, s, s),
                        false, 'America/New_York') c
WHERE s <> 300
ORDER BY s;
SET client_min_messages = debug2;
SELECT 7 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-29' AND ts < '2026-10-30' GROUP BY 1$$, false, 'America/New_York');
SELECT 8 AS step, * FROM rt_compare(:'g5' || $$ WHERE ts >= '2026-10-29' AND ts < '2026-10-30' GROUP BY 1$$, false, 'America/New_York');
RESET client_min_messages;

DROP TABLE im;
