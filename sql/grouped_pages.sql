--
-- grouped_pages: the grouped page path (extension/scan/grouped/offload/) in
-- pg_regress, on a machine without a GPU.  gpu_histogram.debug_pages_on_cpu
-- makes the scan pin its all-visible pages in batches as it would for the
-- GPU and parse every batch on the host, as if the GPU had handed it back,
-- so CI runs the grouped strategy's batching, its page parse, its quals and
-- its groups here too, not only in test/gpu/grouped_page_checks.sh.  The
-- keys are those the page path takes (an integer column with NULLs, a
-- boolean, date_trunc across New York's DST change, date_bin, ::date, a
-- second width_bucket, periodic fields such as the hour of day; up to four
-- of them in one query, as day of week x hour x g), with
-- WHERE comparisons and time ranges, rows the statistics never saw, pages
-- that are not all-visible, and workers.
--
-- Every answer is compared with PostgreSQL's ordinary plan
-- (gpu_histogram.scan = off, rt_compare) and, once per key kind, with
-- width_bucket and count(*) in plain SQL (rt_against_width_bucket); never
-- with a formula.  The serial runs print the scan's DEBUG lines, which say
-- that the page path ran ("grouped pages on the GPU": the strategy's name,
-- whoever parses the batch) and how many pages went through batches; small
-- batches (debug_pages_per_batch) make the count independent of
-- shared_buffers.  device = cpu keeps those lines the same when the suite
-- runs with device = gpu on a GPU host, where grouped_page_checks.sh covers
-- the GPU itself.
--
LOAD 'gpu_histogram'; -- the planner hook, also without shared_preload_libraries
SET client_min_messages = warning;
DROP TABLE IF EXISTS gp_t;
RESET client_min_messages;
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'America/New_York';
SET gpu_histogram.device = cpu;
-- the DEBUG lines below are the scan's: no JIT's of its own (a packaged server may have it on)
SET jit = off;
SET gpu_histogram.skip_pages_by_range = off; -- the DEBUG lines below count every page (page_ranges.sql skips some)
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

-- 20,000 rows every 30 seconds from March 8, 2024 in New York, across the
-- DST change of March 10; NULLs in every column, and x NULL where every
-- value of a group would be.  ANALYZE samples every row, so the statistics
-- the page path builds its key tables from are the same on every run;
-- autovacuum stays away, so that the pages stay as VACUUM left them, and
-- VACUUM waits for no older snapshot to be left (rt_await_snapshots), so
-- that it leaves every page all-visible.
CREATE TABLE gp_t (x float8, g int4, k int8, ts timestamptz, b bool) WITH (autovacuum_enabled = off);
INSERT INTO gp_t
SELECT CASE WHEN i % 37 = 0 OR i % 100 = 13 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 100 END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 7) * 1000000000000 - 3000000000000 END,
       CASE WHEN i % 211 = 0 THEN NULL ELSE '2024-03-08 00:00-05'::timestamptz + i * interval '30 seconds' END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 3 = 0 END
FROM generate_series(1, 20000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE gp_t;
SELECT relallvisible = relpages AS all_visible FROM pg_class WHERE oid = 'gp_t'::regclass;

-- the node and its keys
SELECT rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 16), count(*) FROM gp_t GROUP BY g$$);
SELECT rt_explain($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 16) FROM gp_t WHERE x > 0.25 AND g <= 70 GROUP BY 1$$);

-- every key kind, serially, against the ordinary plan; the DEBUG lines
-- come two per query, in the order of the list.  k's seven values spread
-- over six trillion: too wide a range for the page path's key tables, so
-- that scan reads its rows on the host ("grouped pages on the CPU").  Each
-- list runs once quietly first: PostgreSQL's own DEBUG1 lines (a catalog
-- cache that grows, in 18) come while the session's caches fill, and they
-- differ between majors.
CREATE TEMP TABLE gp_serial (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO gp_serial (q) VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n, count(x) AS nx FROM gp_t GROUP BY g$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY k$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY b$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1$$),
    ($$SELECT date_bin('1 hour', ts, '2024-01-01 00:20+00') AS bin, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1$$),
    ($$SELECT ts::date AS d, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1$$),
    ($$SELECT g, width_bucket(x, 0, 1, 4) AS y, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT b, g, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 10) AS h, count(*) AS n FROM gp_t WHERE x > 0.25 AND x <> 0.5 AND g <= 70 GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t WHERE ts >= '2024-03-09 12:00' AND ts < '2024-03-11' GROUP BY 1$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t WHERE ts >= '2024-03-09 12:00' AND ts < '2024-03-11'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) AS h FROM gp_t WHERE ts >= '2024-03-09 12:00' AND ts < '2024-03-11'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t WHERE ts >= '2030-03-20' AND ts < '2030-04-03'$$),
    ($$SELECT extract(dow FROM ts) AS dow, extract(hour FROM ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT date_part('minute', ts) AS minute, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t WHERE ts >= '2024-03-10 00:00' AND ts < '2024-03-10 06:00' GROUP BY 1$$),
    ($$SELECT extract(dow FROM ts) AS dow, extract(hour FROM ts) AS hour, b, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1, 2, 3$$),
    ($$SELECT b, extract(isodow FROM ts) AS dow, extract(hour FROM ts) AS hour, g, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gp_t WHERE g < 4 GROUP BY 1, 2, 3, 4$$),
    ($$SELECT extract(isodow FROM ts) AS dow, date_trunc('hour', ts) AS hour, b, g, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gp_t WHERE g IN (1, 2, 3, 50) OR g IS NULL GROUP BY 1, 2, 3, 4$$);
SELECT count(*) AS queries, bool_and(c.same) AS same FROM gp_serial, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_serial, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;

-- and against width_bucket and count(*) in plain SQL
SELECT k, c.* FROM (VALUES
    (ARRAY['g']),
    (ARRAY['b', 'g']),
    (ARRAY['date_trunc(''hour'', ts)']),
    (ARRAY['date_bin(''1 hour'', ts, ''2024-01-01 00:20+00'')']),
    (ARRAY['ts::date']),
    (ARRAY['g', 'width_bucket(x, 0, 1, 4)']),
    (ARRAY['extract(isodow FROM ts)', 'date_part(''hour'', ts)']),
    (ARRAY['extract(isodow FROM ts)', 'date_part(''hour'', ts)', 'b']),
    (ARRAY['b', 'extract(dow FROM ts)', 'date_part(''hour'', ts)', 'ts::date'])
) v(k), LATERAL rt_against_width_bucket('gp_t', k, 'x', 0, 1, 16) c;

-- periodic fields in zones with odd offsets: the key tables' intervals follow the local hour
SELECT z, q, c.* FROM (VALUES ('Asia/Kathmandu'), ('Australia/Lord_Howe'), ('UTC')) zones(z), (VALUES
    ($$SELECT extract(hour FROM ts) AS hour, extract(minute FROM ts) AS minute, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT extract(day FROM ts) AS day, extract(doy FROM ts) AS doy, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q, false, z) c ORDER BY 1, 2;

-- Rows the statistics never saw (keys outside the range the key tables
-- were built for) on new pages, and updated rows on pages that are no
-- longer all-visible: the page path leaves those to the host.
INSERT INTO gp_t SELECT 0.5, 1000 + i % 7, 9000000000000, '2030-01-01 00:00+00'::timestamptz + i * interval '1 minute', true
FROM generate_series(1, 2000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM gp_t;
SELECT relallvisible = relpages AS all_visible FROM pg_class WHERE oid = 'gp_t'::regclass;
UPDATE gp_t SET x = 0.75 WHERE g = 3 AND ts < '2024-03-09';
CREATE TEMP TABLE gp_unseen (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO gp_unseen (q) VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t WHERE x < 0.9 GROUP BY k$$),
    ($$SELECT extract(hour FROM ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1$$);
SELECT count(*) AS queries, bool_and(c.same) AS same FROM gp_unseen, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_unseen, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;

-- Parallel workers, each batching its share of the blocks; their DEBUG
-- lines would come in any order, so only the answers are shown.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 16), count(*) FROM gp_t GROUP BY g$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY g$$),
    ($$SELECT g, date_trunc('day', ts) AS day, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t WHERE ts >= '2024-03-09 12:00' AND ts < '2024-03-11'$$),
    ($$SELECT extract(dow FROM ts) AS dow, extract(hour FROM ts) AS hour, g, b, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gp_t GROUP BY 1, 2, 3, 4$$),
    ($$SELECT date_trunc('week', ts + interval '1 day') - interval '1 day' AS week, extract(year FROM ts) AS y, gpu_histogram(x, 0, 1, 16) AS h FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT (ts - interval '6 hours')::date AS d, g % 10 AS g10, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gp_t GROUP BY 1, 2$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h, gpu_histogram(g, 100, 0, 5) AS hg,
              gpu_histogram(ts, '2024-03-08'::timestamptz, '2024-03-16', 8) AS ht, max(k) AS top FROM gp_t GROUP BY 1$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) AS h, gpu_histogram(x, ARRAY[0.25, 0.5]::float8[]) AS hq FROM gp_t$$)
) v(q), LATERAL rt_compare(q) c;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- The time and thresholds forms on the page path: the value a
-- timestamptz's, a timestamp's or a date's stored integer, binned by
-- numeric width_bucket over it (both directions); or a float8 among
-- thresholds (repeated ones, NaN and infinities among the values); grouped
-- and filtered, NULLs and values outside both ends.
CREATE TABLE gp_time (g int4, d date, t timestamp, ts timestamptz, y float8) WITH (autovacuum_enabled = off);
INSERT INTO gp_time
SELECT i % 7,
       CASE WHEN i % 41 = 0 THEN NULL ELSE '2024-02-20'::date + i % 30 END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE '2024-03-09 00:00'::timestamp + i * interval '17 seconds' END,
       CASE WHEN i % 47 = 0 THEN NULL ELSE '2024-03-09 00:00-05'::timestamptz + i * interval '17 seconds' END,
       CASE WHEN i % 53 = 0 THEN NULL WHEN i % 59 = 0 THEN 'NaN' WHEN i % 61 = 0 THEN '-Infinity'
            ELSE (i % 1000) / 10.0 END
FROM generate_series(1, 20000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE gp_time;
CREATE TEMP TABLE gp_times (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO gp_times (q) VALUES
    ($$SELECT g, gpu_histogram(ts, '2024-03-09 00:00'::timestamptz, '2024-03-11 00:00', 48) AS h, count(*) AS n FROM gp_time GROUP BY g$$),
    ($$SELECT gpu_histogram(ts, '2024-03-12'::timestamptz, '2024-03-09', 72) AS h FROM gp_time WHERE ts < '2024-03-10 12:00' AND g < 5$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(t, '2024-03-09 00:00'::timestamp, '2024-03-12 00:00', 72) AS h FROM gp_time GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(d, '2024-03-01'::date, '2024-03-15'::date, 7) AS h, count(d) AS nd FROM gp_time GROUP BY g$$),
    ($$SELECT gpu_histogram(d, '2024-03-20'::date, '2024-02-25'::date, 5) AS h FROM gp_time WHERE d >= '2024-03-01'$$),
    ($$SELECT g, gpu_histogram(y, ARRAY[1, 5, 5, 10, 50, 90]::float8[]) AS h, count(*) AS n FROM gp_time GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(y, ARRAY[0, 25, 50, 75]::float8[]) AS h FROM gp_time WHERE g <> 3 GROUP BY 1$$);
SELECT count(*) AS queries, bool_and(c.same) AS same FROM gp_times, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_times, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;

-- Several histograms on the page path: the first is the spec's own, each
-- other one is binned beside it (grouped_page_spec.h's PageHist), of any
-- form and column; with count(*), a mean and a maximum beside them, a
-- NULL argument (that histogram is NULL), a WHERE clause without keys.
-- Six histograms are more than the spec holds: the host reads the pages.
-- A further histogram of a single threshold (two cells a group) runs
-- there too, as it does first.
-- A NaN under width_bucket raises in both plans.
TRUNCATE gp_times;
INSERT INTO gp_times (q) VALUES
    ($$SELECT g, gpu_histogram(g, 0, 7, 7) AS hg, gpu_histogram(ts, '2024-03-09 00:00'::timestamptz, '2024-03-11', 48) AS ht,
              gpu_histogram(y, ARRAY[1, 5, 50]::float8[]) AS hy, count(*) AS n FROM gp_time GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(t, '2024-03-09 00:00'::timestamp, '2024-03-12 00:00', 72) AS ht,
              gpu_histogram(d, '2024-03-20'::date, '2024-02-25'::date, 5) AS hd, avg(g) AS mean, max(y) AS top
       FROM gp_time WHERE g <> 3 GROUP BY 1$$),
    ($$SELECT gpu_histogram(g, 0, 7, 7) AS hg, gpu_histogram(y, ARRAY[0, 50]::float8[]) AS hy FROM gp_time WHERE ts < '2024-03-10'$$),
    ($$SELECT g, gpu_histogram(y, ARRAY[0, 50]::float8[]) AS hy, gpu_histogram(g, 0, NULL, 7) AS hnull FROM gp_time GROUP BY g$$),
    ($$SELECT g % 2 AS odd, gpu_histogram(g, 0, 7, 7) AS h1, gpu_histogram(g, 7, 0, 3) AS h2, gpu_histogram(d, '2024-03-01'::date, '2024-03-15'::date, 7) AS h3,
              gpu_histogram(y, ARRAY[10, 50]::float8[]) AS h4, gpu_histogram(t, '2024-03-09 00:00'::timestamp, '2024-03-10 00:00', 4) AS h5
       FROM gp_time GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(g, 0, 7, 7) AS h1, gpu_histogram(y, ARRAY[10]::float8[]) AS h2 FROM gp_time GROUP BY g$$),
    ($$SELECT g, gpu_histogram(y, ARRAY[10]::float8[]) AS h1, gpu_histogram(g, 0, 7, 7) AS h2 FROM gp_time GROUP BY g$$),
    ($$SELECT g, gpu_histogram(g, 0, 7, 7) AS h1, gpu_histogram(g, 7, 0, 3) AS h2, gpu_histogram(d, '2024-03-01'::date, '2024-03-15'::date, 7) AS h3,
              gpu_histogram(y, ARRAY[10]::float8[]) AS h4, gpu_histogram(t, '2024-03-09 00:00'::timestamp, '2024-03-10 00:00', 4) AS h5,
              gpu_histogram(g, 0, 100, 2) AS h6
       FROM gp_time GROUP BY g$$);
SELECT count(*) AS queries, bool_and(c.same) AS same FROM gp_times, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_times, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;
SELECT t.* FROM rt_try($$SELECT g, gpu_histogram(g, 0, 7, 7), gpu_histogram(y, 0, 100, 10) FROM gp_time GROUP BY g$$) t;
DROP TABLE gp_time, gp_times;

-- A text column as a key (scan/keys/column_key.cpp): a dictionary of its
-- values, whose bytes the GPU matches: those the statistics name and those
-- the backend met (text_memo.h).  A first scan of the column reads 128
-- pages on the host before the dictionary is built, and their values join
-- it (the first DEBUG lines: 502 groups, 9 pages batched); the values the
-- host met are remembered, and the next scan batches every page.  NULLs, a
-- long value (a 4-byte header), a compressed one (the host's), varchar,
-- text COLLATE "C", and the mean line beside them.
CREATE TABLE gp_text (host text, tag varchar, x float8) WITH (autovacuum_enabled = off);
INSERT INTO gp_text
SELECT CASE WHEN i % 53 = 0 THEN NULL WHEN i % 61 = 0 THEN repeat('long host ', 20)
            WHEN i % 1009 = 0 THEN repeat(md5(i::text), 200) ELSE 'host-' || (i * 7 % 500) END,
       'tag-' || i % 3, (i % 1000) / 1000.0
FROM generate_series(1, 20000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE gp_text;
CREATE TEMP TABLE gp_texts (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO gp_texts (q) VALUES
    ($$SELECT host, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM gp_text GROUP BY host$$),
    ($$SELECT host, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM gp_text GROUP BY host$$),
    ($$SELECT tag, host COLLATE "C" AS host, gpu_histogram(x, 0, 1, 8) AS h FROM gp_text WHERE x < 0.5 GROUP BY 1, 2$$),
    ($$SELECT host, round(avg(x)::numeric, 12) AS mean, max(x) AS top, gpu_histogram(x, 0, 1, 8) AS h FROM gp_text WHERE host IN ('host-7', 'host-14') OR host IS NULL GROUP BY host$$);
-- planned once first, which runs nothing (the dictionaries stay first scans'), so that the catalog
-- lookups behind the DEBUG lines below are cached already (PostgreSQL 17 logs a catalog cache's growth)
SELECT count(*) AS planned FROM gp_texts WHERE rt_plan(q) LIKE '%GpuHistogramScan%';
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_texts, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;
DROP TABLE gp_text, gp_texts;

-- The year's fields and the ISO week (extract and date_part of year,
-- isoyear, decade, century, millennium, week), which a report groups by
-- and which used to be an expression or the ordinary plan: a reading
-- every 3 days and 7 hours from 1845 (New York's local mean time until
-- 1883) to 2031, the microseconds around local New Year's midnights, days
-- BC (there is no year 0), the infinities (an infinity of their own sign
-- for the year's fields, NULL for the week) and a NULL.  Each key table's
-- days are checked against date_part at both ends; the rows are compared
-- with the ordinary plan in zones with daylight saving, a half-hour
-- fall-back (Lord Howe) and odd offsets, and of ts AT TIME ZONE a named
-- zone (issue 57's "date_part('year', ts AT TIME ZONE 'Asia/Kolkata')").
CREATE TABLE gp_years (ts timestamptz, x float8);
INSERT INTO gp_years
SELECT timestamptz '1845-01-01 00:00+00' + i * interval '3 days 7 hours', (i % 97) / 97.0
FROM generate_series(0, 22000) i;
INSERT INTO gp_years
SELECT (y || '-01-01 00:00:00')::timestamp AT TIME ZONE z + d * interval '1 microsecond', 0.5
FROM generate_series(1990, 2030, 5) y, unnest(ARRAY['America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC']) z,
     unnest(ARRAY[-1, 0]) d;
INSERT INTO gp_years VALUES ('0044-03-15 12:00+00 BC', 0.1), ('0001-12-31 23:00+00 BC', 0.2), ('0001-01-01 00:00+00', 0.3),
                            ('4000-06-01 00:00+00 BC', 0.4), ('infinity', 0.6), ('-infinity', 0.7), (NULL, 0.8);
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE gp_years;
SELECT rt_explain($$SELECT extract(year FROM ts), date_part('week', ts), gpu_histogram(x, 0, 1, 8) FROM gp_years GROUP BY 1, 2$$);
CREATE TEMP TABLE gp_year_keys (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO gp_year_keys (q) VALUES
    ($$SELECT extract(year FROM ts) AS y, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM gp_years GROUP BY 1$$),
    ($$SELECT date_part('year', ts) AS y, date_part('month', ts) AS m, gpu_histogram(x, 0, 1, 8) AS h FROM gp_years GROUP BY 1, 2$$),
    ($$SELECT extract(isoyear FROM ts) AS y, extract(week FROM ts) AS w, gpu_histogram(x, 0, 1, 8) AS h FROM gp_years GROUP BY 1, 2$$),
    ($$SELECT extract(decade FROM ts) AS d, extract(century FROM ts) AS c, extract(millennium FROM ts) AS m,
              gpu_histogram(x, 0, 1, 8) AS h FROM gp_years GROUP BY 1, 2, 3$$),
    ($$SELECT date_part('year', ts AT TIME ZONE 'Asia/Kolkata') AS y, gpu_histogram(x, 0, 1, 8) AS h FROM gp_years GROUP BY 1$$),
    ($$SELECT extract(year FROM ts::timestamp) AS y, extract(week FROM ts AT TIME ZONE 'Pacific/Chatham') AS w,
              count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM gp_years WHERE ts >= '1990-01-01' GROUP BY 1, 2$$);
SELECT z, q, c.* FROM (VALUES ('America/New_York'), ('Australia/Lord_Howe'), ('Asia/Kathmandu'), ('UTC')) zones(z),
    gp_year_keys, LATERAL rt_compare(q, false, z) c ORDER BY z, n;
-- the page path took them (serial, in the session's zone)
SET client_min_messages = debug1;
SELECT q, c.* FROM gp_year_keys, LATERAL rt_compare(q) c WHERE n IN (1, 3, 5) ORDER BY n;
RESET client_min_messages;
DROP TABLE gp_years, gp_year_keys;

-- What keeps a shape's pages off the GPU: EXPLAIN ANALYZE names it (and the DEBUG line)
SELECT line FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8), gpu_histogram(x, 0, 1, 16), gpu_histogram(x, 0, 1, 32),
                                     gpu_histogram(x, 0, 2, 8), gpu_histogram(x, 0, 2, 16), gpu_histogram(x, 0, 2, 32)
                              FROM gp_t GROUP BY g$$, true) line
WHERE line ~ 'Kept off';
SELECT line FROM rt_explain($$SELECT g, sum(x), avg(x), min(x), max(x), sum(g), gpu_histogram(x, 0, 1, 8) FROM gp_t GROUP BY g$$, true) line
WHERE line ~ 'Kept off';
SELECT line FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM gp_t WHERE g > 1000 GROUP BY g$$, true) line
WHERE line ~ 'Kept off';
SELECT count(*) AS lines FROM rt_explain($$SELECT g, avg(x), gpu_histogram(x, 0, 1, 8) FROM gp_t GROUP BY g$$, true) line
WHERE line ~ 'Kept off';

RESET max_parallel_workers_per_gather;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE gp_t, gp_serial, gp_unseen;
