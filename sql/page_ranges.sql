--
-- page_ranges: a scan whose WHERE clause holds a range of an integer, date
-- or timestamp column passes over the all-visible pages whose range of
-- that column, recorded by an earlier scan, lies outside the clause's
-- (page_ranges.h).  A range is kept with the visibility map LSN its
-- page's bit was set under: a change to the page clears the bit, and only
-- VACUUM sets it again, under a new LSN, so a changed page is read until
-- a scan records its range anew.  Every answer here is the ordinary
-- plan's; pr_pages says how many pages the scan read and skipped, the
-- first scan of a shape recording and the next one skipping.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

-- the pages the scan read, and those it passed over by their ranges (EXPLAIN ANALYZE)
CREATE FUNCTION pr_pages(q text, OUT pages bigint, OUT skipped bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    skipped := 0;
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ '^\s*Pages Skipped by Their Ranges: ' THEN
            skipped := substring(line FROM '(\d+)$')::bigint;
        ELSIF line ~ '^\s*Pages: ' THEN
            pages := substring(line FROM '(\d+)$')::bigint;
        END IF;
    END LOOP;
END
$fn$;

-- one a minute over two weeks; i numbers the rows in their order; ts NULL for an hour and a half
CREATE TABLE pr_t (i int, ts timestamptz, host text, d date, x float8) WITH (autovacuum_enabled = off);
INSERT INTO pr_t
SELECT i, CASE WHEN i BETWEEN 5000 AND 5099 THEN NULL ELSE '2024-01-01 00:00+00'::timestamptz + i * interval '1 minute' END,
       'host-' || i % 7, date '2024-01-01' + i / 1440, (i % 1000) / 1000.0
FROM generate_series(0, 19999) i;
VACUUM ANALYZE pr_t;

-- a day of the time form, twice: the first scan reads every page and records their ranges, the second only the day's
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM rt_compare($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
-- another range of the same column uses the same ranges; BETWEEN, an hour, grouped, with a list beside
SELECT * FROM pr_pages($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_t
                         WHERE ts BETWEEN '2024-01-10 05:00' AND '2024-01-10 06:00' AND host IN ('host-1', 'host-2') GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_t
                           WHERE ts BETWEEN '2024-01-10 05:00' AND '2024-01-10 06:00' AND host IN ('host-1', 'host-2') GROUP BY 1$$);
-- the hours whose ts is NULL: their pages hold no value in any range
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-04 11:00' AND ts < '2024-01-04 12:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-04 11:00' AND ts < '2024-01-04 12:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts IS NULL OR ts < '2024-01-01 01:00'$$);
-- ranges that nothing passes, the ends of the type, a NULL value
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts > 'infinity'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '-infinity' AND ts <= '2024-01-01 00:30'$$);
SELECT * FROM rt_compare($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '-infinity' AND ts <= '2024-01-01 00:30'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= NULL::timestamptz$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts > '2024-01-03' AND ts < '2024-01-02'$$);

-- an integer column and a date column have ranges of their own, recorded by their first scans
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i < 300$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i < 300$$);
SELECT * FROM rt_compare($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i < 300$$);
SELECT * FROM pr_pages($$SELECT d, gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE d = '2024-01-07' GROUP BY 1$$);
SELECT * FROM pr_pages($$SELECT d, gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE d = '2024-01-07' GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT d, gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE d = '2024-01-07' GROUP BY 1$$);

-- a row moved into the range on a page the ranges skip: the update clears the page's bit, and the page is read again
-- (on 17 the map page has a new LSN after this UPDATE too, and every page is read again: a range serves only
-- under the map LSN it was recorded under)
UPDATE pr_t SET ts = '2024-01-05 12:00+00' WHERE i = 100;
SELECT pages > 13 AS changed_page_read FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
-- VACUUM sets the bits again, under a new LSN: the changed pages are read once more, then skipped
VACUUM pr_t;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
-- rows added after the ranges were recorded, in new pages and in an old one's free space
DELETE FROM pr_t WHERE i BETWEEN 200 AND 260;
VACUUM pr_t;
INSERT INTO pr_t SELECT 100000 + k, '2024-01-05 06:00+00'::timestamptz + k * interval '1 second', 'late', NULL, 0.5 FROM generate_series(1, 40) k;
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i < 300$$);
-- a change that rolls back still clears the bit
BEGIN;
UPDATE pr_t SET ts = '2024-01-05 13:00+00' WHERE i = 150;
ROLLBACK;
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
-- the clause's values from a parameter, a stable expression and a generic plan, range after range
PREPARE pr_q(timestamptz, interval) AS
    SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= $1 AND ts < $1 + $2;
SET plan_cache_mode = force_generic_plan;
SELECT * FROM rt_compare($$EXECUTE pr_q('2024-01-02', '1 day')$$, replan => false);
SELECT * FROM rt_compare($$EXECUTE pr_q('2024-01-12', '2 hours')$$, replan => false);
SELECT * FROM rt_compare($$EXECUTE pr_q('2023-12-31', '1 hour')$$, replan => false);
SELECT * FROM rt_compare($$EXECUTE pr_q(NULL, '1 hour')$$, replan => false);
RESET plan_cache_mode;
DEALLOCATE pr_q;
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t
                           WHERE ts >= date_trunc('day', '2024-01-08 10:00+00'::timestamptz) AND ts < now()$$);
-- a stable function that raises raises in both plans, at the first row the ordinary plan evaluates it for
CREATE FUNCTION pr_raises(timestamptz) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
    RAISE EXCEPTION 'pr_raises(%)', $1 USING ERRCODE = 'data_exception';
END
$$;
SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= pr_raises('2024-01-05');
SET gpu_histogram.scan = off;
SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= pr_raises('2024-01-05');
RESET gpu_histogram.scan;

-- a column added with a default: tuples written before it hold the default without storing it
ALTER TABLE pr_t ADD COLUMN k int DEFAULT 7;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE k < 7$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE k < 7$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE k < 7$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE k = 7 AND ts < '2024-01-02'$$);

-- pages pinned in batches for the GPU, parsed on the CPU here: the ranges rule out blocks before any is pinned or probed
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT * FROM pr_pages($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-09' AND ts < '2024-01-10' GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-09' AND ts < '2024-01-10' GROUP BY 1$$);
RESET gpu_histogram.debug_pages_on_cpu;

-- parallel workers use and record the same ranges
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-03' AND ts < '2024-01-04'$$);
SELECT skipped > 0 AS skipped FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-03' AND ts < '2024-01-04'$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a serial scan asks once per 256 blocks whether the whole span is ruled out, every block all-visible under the
-- span's map LSN: a change to one page of a span sends the span back to the block-by-block check
CREATE TABLE pr_big (ts timestamptz, x float8) WITH (autovacuum_enabled = off);
INSERT INTO pr_big SELECT '2024-01-01 00:00+00'::timestamptz + i * interval '1 second', (i % 1000) / 1000.0
FROM generate_series(0, 149999) i;
VACUUM pr_big;
SELECT pg_relation_size('pr_big') / current_setting('block_size')::int AS blocks;
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-02 17:00' AND ts < '2024-01-02 18:00'$$);
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-02 17:00' AND ts < '2024-01-02 18:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-02 17:00' AND ts < '2024-01-02 18:00'$$);
UPDATE pr_big SET ts = '2024-01-02 17:30+00' WHERE ts = '2024-01-01 01:00+00';
SELECT pages > 14 AS changed_page_read FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-02 17:00' AND ts < '2024-01-02 18:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-02 17:00' AND ts < '2024-01-02 18:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-01 02:00'$$);
-- spans wholly inside the range are read without a check of each block; with pages batched as for the GPU,
-- their blocks are probes handed out by arithmetic over the map, up to the span's end
VACUUM pr_big;
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-02 12:00'$$);
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-02 12:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-02 12:00'$$);
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-02 12:00'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts < '2024-01-02 12:00'$$);
SELECT * FROM rt_compare($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-01 05:00' GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_big WHERE ts >= '2024-01-01 05:00' GROUP BY 1$$);
RESET gpu_histogram.debug_pages_on_cpu;

-- the planner prices the scan at the pages the recorded ranges leave: with a btree index on the time column a
-- short range goes to an Index Scan under the ordinary aggregate until a scan has recorded the column's ranges
CREATE TABLE pr_idx (ts timestamptz, x float8) WITH (autovacuum_enabled = off);
INSERT INTO pr_idx SELECT '2024-01-01 00:00+00'::timestamptz + i * interval '1 second', (i % 1000) / 1000.0
FROM generate_series(0, 299999) i;
CREATE INDEX pr_idx_ts ON pr_idx (ts);
VACUUM ANALYZE pr_idx;
SELECT rt_plan($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_idx WHERE ts >= '2024-01-03 10:00' AND ts < '2024-01-03 12:00' GROUP BY 1$$) LIKE '%GpuHistogramScan%' AS scan_planned;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT * FROM pr_pages($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_idx WHERE ts >= '2024-01-03 10:00' AND ts < '2024-01-03 12:00' GROUP BY 1$$);
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT rt_plan($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_idx WHERE ts >= '2024-01-03 10:00' AND ts < '2024-01-03 12:00' GROUP BY 1$$) LIKE '%GpuHistogramScan%' AS scan_planned;
SELECT * FROM pr_pages($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_idx WHERE ts >= '2024-01-03 10:00' AND ts < '2024-01-03 12:00' GROUP BY 1$$);
SELECT * FROM rt_compare($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) FROM pr_idx WHERE ts >= '2024-01-03 10:00' AND ts < '2024-01-03 12:00' GROUP BY 1$$);
-- a time column is the one ranges are kept for, where an integer clause comes first
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i > 100 AND ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE i > 100 AND ts >= '2024-01-05' AND ts < '2024-01-06'$$);

-- A time key compared with a value (Metabase's relative dates, `CAST(ts AS date) BETWEEN ...`, and
-- date_trunc's) bounds its column too: a date_trunc or ::date of ts lies within its bucket and the zone's
-- offset of ts, so ts lies within 15 days and a bucket of the value, in any zone, and within a day more
-- than the offsets of the zones it passes through near the value.  Four months of a row every 45
-- seconds, so that a few days' pages are passed over and the rest read; every answer the ordinary
-- plan's, in zones with daylight saving, odd offsets and offsets of days.
CREATE TABLE pr_days (i int, ts timestamptz, d date, x float8) WITH (autovacuum_enabled = off);
INSERT INTO pr_days SELECT i, t, (t AT TIME ZONE 'UTC')::date, (i % 1000) / 1000.0
FROM (SELECT i, '2024-01-01 00:00+00'::timestamptz + i * interval '45 seconds' AS t FROM generate_series(0, 230399) i) g;
VACUUM pr_days;
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ts < '2024-01-01 00:10'$$);
SELECT q, p.*
FROM (VALUES ($$CAST(ts AS date) BETWEEN '2024-02-10' AND '2024-02-12'$$),
             ($$ts::date = '2024-03-01'$$),
             ($$date_trunc('day', ts) >= '2024-04-20'$$),
             ($$date_trunc('month', ts) = '2024-02-01'$$),
             ($$date_trunc('week', ts AT TIME ZONE 'Asia/Kolkata') < '2024-01-08'$$),
             ($$date_trunc('hour', ts, 'Australia/Lord_Howe') > '2024-04-29 03:00'$$)) v(q),
     LATERAL pr_pages('SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ' || q) p;
-- the zone's own offsets: New York's five hours and its hour of daylight saving, a POSIX zone's 150 hours
SET TimeZone = 'America/New_York';
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ts::date = '2024-03-01'$$);
SET TimeZone = '<-150>+150';
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ts::date = '2024-03-01'$$);
SET TimeZone = 'UTC';
-- a list of dates (= ANY) bounds it between its least and greatest; NOT IN, a NULL or an infinity among them
-- does not bound it more than they allow
SELECT q, p.*
FROM (VALUES ($$ts::date IN ('2024-02-10', '2024-02-12')$$),
             ($$date_trunc('day', ts) = ANY (ARRAY['2024-03-01', '2024-03-03']::timestamptz[])$$),
             ($$ts::date IN ('2024-02-10', NULL)$$),
             ($$ts::date NOT IN ('2024-02-10', '2024-02-12')$$),
             ($$ts::date IN ('2024-02-10', 'infinity')$$)) v(q),
     LATERAL pr_pages('SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ' || q) p;
-- a date column, which date_trunc reads as its local midnight: not a key that bounds its column, every page read
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE d < '2024-01-02'$$);
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE date_trunc('month', d) = '2024-03-01'$$);
SELECT z, q, c.*
FROM (VALUES ('America/New_York'), ('Australia/Lord_Howe'), ('Asia/Kathmandu')) zone(z),
     (VALUES ($$CAST(ts AS date) BETWEEN '2024-02-10' AND '2024-02-12'$$),
             ($$ts::date = '2024-03-01'$$),
             ($$'2024-03-10' <= ts::date AND i % 3 = 0$$),
             ($$date_trunc('day', ts) >= '2024-04-20'$$),
             ($$date_trunc('month', ts) = '2024-02-01'$$),
             ($$date_trunc('week', ts AT TIME ZONE 'Asia/Kolkata') < '2024-01-08'$$),
             ($$date_trunc('hour', ts, 'Australia/Lord_Howe') > '2024-04-29 03:00'$$),
             ($$(ts::date = '2024-02-10' OR x < 0.001)$$),
             ($$ts::date >= CAST(now() AS date) - 36500$$),
             ($$ts::date > 'infinity'$$),
             ($$date_trunc('month', d) = '2024-03-01'$$),
             ($$date_trunc('week', d) < '2024-01-15'$$)) v(q),
     LATERAL rt_compare('SELECT date_trunc(''day'', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ' || q ||
                        ' GROUP BY 1', zone => z) c
ORDER BY z COLLATE "C", q COLLATE "C";
-- offsets at the ends of what zones have: fourteen hours ahead, twelve behind, 150 hours either way (a
-- POSIX zone's), and Newfoundland's half hour with daylight saving
SELECT z, q, c.*
FROM (VALUES ('Pacific/Kiritimati'), ('Etc/GMT+12'), ('<-150>+150'), ('<+150>-150'), ('America/St_Johns')) zone(z),
     (VALUES ($$CAST(ts AS date) BETWEEN '2024-02-10' AND '2024-02-12'$$),
             ($$ts::date = '2024-03-10'$$),
             ($$ts::date <= '2024-01-03'$$),
             ($$date_trunc('day', ts) >= '2024-04-20'$$),
             ($$date_trunc('week', ts) = '2024-02-05'$$),
             ($$(ts AT TIME ZONE 'Pacific/Kiritimati')::date = '2024-03-01'$$),
             ($$date_trunc('day', ts, 'Etc/GMT+12') < '2024-01-05'$$),
             ($$date_trunc('month', d) = '2024-03-01'$$),
             ($$ts::date IN ('2024-02-10', '2024-03-31', NULL)$$),
             ($$date_trunc('day', ts) = ANY (ARRAY['2024-03-01', '2024-03-03']::timestamptz[])$$),
             ($$ts::date NOT IN ('2024-02-10', '2024-02-12') AND ts < '2024-01-03'$$)) v(q),
     LATERAL rt_compare('SELECT date_trunc(''day'', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ' || q ||
                        ' GROUP BY 1', zone => z) c
ORDER BY z COLLATE "C", q COLLATE "C";
-- a clause that may raise, of the key's cost and written first, so evaluated first: the division by zero at
-- the first row, whose page the key's range would pass over, as the ordinary plan raises it
SELECT * FROM rt_try($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE 10 / i > 0 AND ts::date = '2024-03-01'$$);
-- the first time of the type, whose week in New York lies before it, on a first page of January's rows (room
-- made there): the key's range would pass over that page, but its values are not all ones whose key raises
-- nothing, so it is read, and date_trunc's error is the ordinary plan's
DELETE FROM pr_days WHERE i BETWEEN 10 AND 40;
VACUUM pr_days;
INSERT INTO pr_days VALUES (-1, '4714-11-24 00:00:00+00 BC', NULL, 0.5);
VACUUM pr_days;
SELECT ctid < '(1,0)' AS on_first_page FROM pr_days WHERE i = -1;
SELECT * FROM pr_pages($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ts < '2024-01-01 00:10'$$);
SET TimeZone = 'America/New_York';
SELECT * FROM rt_try($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE date_trunc('week', ts) >= '2024-04-01'$$);
SELECT * FROM rt_try($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_days WHERE ts::date >= '2024-04-01'$$);
SET TimeZone = 'UTC';
DROP TABLE pr_days;

-- off: every page is read
SET gpu_histogram.skip_pages_by_range = off;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
RESET gpu_histogram.skip_pages_by_range;

-- a new file (TRUNCATE, then the same rows) has no ranges until a scan records them
TRUNCATE pr_t;
INSERT INTO pr_t (i, ts, host, d, x)
SELECT i, '2024-01-01 00:00+00'::timestamptz + i * interval '1 minute', 'host-' || i % 7, NULL, (i % 1000) / 1000.0
FROM generate_series(0, 19999) i;
VACUUM pr_t;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM rt_compare($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_t WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);

-- tables whose pages change without a new map LSN keep no ranges: unlogged, temporary, and new in this transaction
CREATE UNLOGGED TABLE pr_u AS SELECT * FROM pr_t;
VACUUM pr_u;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_u WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_u WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
CREATE TEMP TABLE pr_tmp AS SELECT * FROM pr_t;
VACUUM pr_tmp;
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_tmp WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_tmp WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
BEGIN;
CREATE TABLE pr_new (LIKE pr_t);
COPY pr_new (i, ts, x) FROM stdin WITH (FREEZE);
1	2024-02-01 01:00:00+00	0.1
2	2024-02-01 02:00:00+00	0.2
\.
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_new WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
-- COPY FREEZE adds frozen rows to the all-visible page without a new map LSN: a recorded range would have missed it
COPY pr_new (i, ts, x) FROM stdin WITH (FREEZE);
3	2024-01-05 02:00:00+00	0.3
\.
SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pr_new WHERE ts >= '2024-01-05' AND ts < '2024-01-06';
SELECT * FROM pr_pages($$SELECT gpu_histogram(x, 0, 1, 8) FROM pr_new WHERE ts >= '2024-01-05' AND ts < '2024-01-06'$$);
COMMIT;

DROP TABLE pr_t, pr_u, pr_tmp, pr_new, pr_big, pr_idx;
DROP FUNCTION pr_pages(text), pr_raises(timestamptz);
