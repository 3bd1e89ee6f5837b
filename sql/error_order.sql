--
-- error_order: where the ordinary plan raises, the scan raises the same
-- error, and where it answers, the scan answers (docs/errors.md).  Serially
-- a sequential scan under an aggregate takes the rows in line-pointer
-- order, and each row through its WHERE clause (cheapest first, after
-- row-level security's), then its GROUP BY keys, then each aggregate's
-- arguments and value, before the next row: the first row that raises
-- decides the error.  Each case below puts two errors in two rows, or an
-- error behind a clause that filters its row, and runs with the scan on
-- and off (rt_try): the same rows, or the same SQLSTATE and message.  Then
-- the ends of the timestamp range for each key family, where PostgreSQL's
-- functions raise "out of range", and the same through the page path
-- (debug_pages_on_cpu).
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
-- rt_try in a zone
CREATE FUNCTION eo_try(zone text, q text, OUT scan_planned boolean, OUT outcome text, OUT same boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM set_config('TimeZone', zone, false);
    SELECT * INTO scan_planned, outcome, same FROM rt_try(q);
END
$fn$;

-- A clause the planner runs first because it is cheaper filters the row
-- that the other would raise on.
CREATE TABLE eo_a (i int, s text, ts timestamptz, x float8);
INSERT INTO eo_a VALUES (1, NULL, '2024-01-01 10:00+00', 0.5), (0, 'a', '2024-01-01 11:00+00', 0.5);
CREATE TABLE eo_web (s text, ts timestamptz, x float8);
INSERT INTO eo_web VALUES ('web', '2024-01-01 10:00+00', 0.5);
ANALYZE eo_a, eo_web;
SELECT q, t.*
FROM (VALUES
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM eo_a WHERE 10 / i > 1 AND s IS NULL$$),
  ($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 4) FROM eo_a WHERE 10 / i > 1 AND s IS NULL GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM eo_a WHERE (10 / i)::text <> 'x' AND s IS NULL$$),
  -- HAVING on a key, which the planner moves into WHERE behind the user's own clause
  ($$SELECT ts::timestamp, gpu_histogram(x, 0, 1, 4) FROM eo_web WHERE s = 'db' GROUP BY 1
     HAVING extract(timezone FROM ts::timestamp) IS NOT NULL$$),
  ($$SELECT ts, gpu_histogram(x, 0, 1, 4) FROM eo_web WHERE s = 'web' GROUP BY 1
     HAVING extract(timezone FROM ts::timestamp) IS NOT NULL$$)
) v(q), rt_try(q) t;

-- Two rows, two errors: the first row's is the one raised, whichever the
-- page's order, whether the error comes from a key, a clause or a value.
CREATE TABLE eo_b (i int, j int, x float8, d date, y float8);
INSERT INTO eo_b VALUES (0, 1, 0.5, '2024-01-01', 1), (1, -2147483648, 0.5, '5874897-12-31', 1);
CREATE TABLE eo_b2 (i int, j int, x float8, d date, y float8);
INSERT INTO eo_b2 VALUES (1, -2147483648, 0.5, '5874897-12-31', 1), (0, 1, 0.5, '2024-01-01', 1);
CREATE TABLE eo_c (i int, j int, x float8, y float8);
INSERT INTO eo_c VALUES (1, 1, 0.5, 0.5), (1, -2147483648, 'NaN', 0.5), (0, 1, 0.25, 'NaN');
ANALYZE eo_b, eo_b2, eo_c;
SELECT q, tbl, t.*
FROM (VALUES
  -- a key the executor computes, over two rows that raise differently
  ($$SELECT 10 / i + abs(j), gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT abs(j) + 10 / i, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  -- the first row's invalid bound against the second row's key
  ($$SELECT d + 1, gpu_histogram(y, 'NaN', 1, 7) FROM %s GROUP BY 1$$),
  ($$SELECT d + 1, count(*), gpu_histogram(y, 0, 1, 0) FROM %s GROUP BY 1$$),
  -- a key and a WHERE clause of different rows
  ($$SELECT 10 / i, gpu_histogram(x, 0, 1, 4) FROM %s WHERE abs(j) > 0 GROUP BY 1$$),
  ($$SELECT abs(j), gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0 GROUP BY 1$$),
  -- a WHERE clause against a value, without keys
  ($$SELECT gpu_histogram(y, 'NaN', 1, 4) FROM %s WHERE abs(j) > 0$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 0) FROM %s$$),
  ($$SELECT count(*), gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 0) FROM %s$$)
) v(q), (VALUES ('eo_b'), ('eo_b2')) tables(tbl), rt_try(format(q, tbl)) t;

-- NaN values and invalid thresholds: the first row's error, across histograms and counts.
SELECT q, t.*
FROM (VALUES
  ($$SELECT count(*), gpu_histogram(x, 0, 1, 4), gpu_histogram(y, '{1, NULL}'::float8[]) FROM eo_c$$),
  ($$SELECT count(*), gpu_histogram(y, '{1, NULL}'::float8[]), gpu_histogram(x, 0, 1, 4) FROM eo_c$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4), gpu_histogram(y, '{1, NULL}'::float8[]) FROM eo_c$$),
  ($$SELECT gpu_histogram(y, 0, 1, 4), gpu_histogram(x, 0, 1, 4) FROM eo_c$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM eo_c WHERE abs(j) > 0$$),
  ($$SELECT gpu_histogram(y, 0, 1, 4) FROM eo_c WHERE abs(j) > 0$$),
  ($$SELECT i, gpu_histogram(x, 0, 1, 4) FROM eo_c WHERE abs(j) > 0 GROUP BY 1$$),
  ($$SELECT 10 / i, gpu_histogram(y, 0, 1, 4) FROM eo_c GROUP BY 1$$),
  ($$SELECT 10 / i, gpu_histogram(x, 0, 1, 4) FROM eo_c GROUP BY 1$$)
) v(q), rt_try(q) t;

-- Two histograms grouped: a page where both may raise goes row by row,
-- one where only one may keeps that histogram's own order.
CREATE TABLE eo_c5 (i int, x float8, y float8);
INSERT INTO eo_c5 VALUES (1, 0.5, NULL), (1, 'NaN', NULL), (2, 'NaN', NULL), (2, 0.5, 0.5);
CREATE TABLE eo_c6 (i int, x float8, y float8);
INSERT INTO eo_c6 VALUES (2, 0.5, 0.5), (1, 0.5, NULL), (1, 'NaN', NULL), (2, 'NaN', NULL);
CREATE TABLE eo_c7 (i int, x float8, y float8);
INSERT INTO eo_c7 VALUES (1, 0.5, 0.5), (1, 'NaN', 'NaN'), (2, 0.5, 0.5), (0, 0.25, 'NaN');
ANALYZE eo_c5, eo_c6, eo_c7;
SELECT q, tbl, t.*
FROM (VALUES
  ($$SELECT i, gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 0) FROM %s GROUP BY 1$$),
  ($$SELECT i, gpu_histogram(y, 0, 1, 0), gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT i, gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT i, gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 4), gpu_histogram(y, 0, 2, 3) FROM %s
     WHERE i > 0 GROUP BY 1$$)
) v(q), (VALUES ('eo_c5'), ('eo_c6'), ('eo_c7')) tables(tbl), rt_try(format(q, tbl)) t;

-- A NaN: the first value of its group or a later one, it raises at its
-- row, before the keys and clauses of the rows after it.
CREATE TABLE eo_n (i int, x float8, s text);
INSERT INTO eo_n VALUES (1, 0.5, 'a'), (1, 'NaN', 'a'), (0, 0.5, 'b'), (2, 'NaN', 'c'), (0, 0.25, 'd');
CREATE TABLE eo_n2 (i int, x float8, s text);
INSERT INTO eo_n2 VALUES (2, 'NaN', 'c'), (1, 0.5, 'a'), (0, 0.5, 'b');
ANALYZE eo_n, eo_n2;
SELECT q, tbl, t.*
FROM (VALUES
  ($$SELECT i, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT 10 / i, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT 10 / i, count(*), gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT i, gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0 GROUP BY 1$$),
  ($$SELECT s, gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0 GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0$$),
  ($$SELECT i, gpu_histogram(x, 0, 1, 4) FROM %s WHERE i < 2 GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM %s WHERE i < 2$$)
) v(q), (VALUES ('eo_n'), ('eo_n2')) tables(tbl), rt_try(format(q, tbl)) t;

-- A NaN raises at its row, as width_bucket raises it, whether it is its
-- group's first value or not: a key, a native clause over a key by value or
-- an executor clause that raises at a later row, on a later page (eo_late:
-- the NaN at row 10, n = 100 at row 15,000, after the aggregate's batch of
-- 8,192 values) or on the same page (eo_page: the NaN at row 10, k = 100 at
-- row 15, n = 100 at row 20), does not win over it.  Each query beside
-- width_bucket's own GROUP BY over the same rows, on the host's row path
-- and on the page path (debug_pages_on_cpu).  With device = cpu: a page the
-- GPU parses raises its NaN when its batch comes back (docs/errors.md).
CREATE TABLE eo_late (n int, k int, x float8);
INSERT INTO eo_late
SELECT CASE WHEN i = 15000 THEN 100 ELSE i % 50 END, i % 7, CASE WHEN i = 10 THEN 'NaN' ELSE (i % 100) / 100.0 END
FROM generate_series(1, 20000) i;
CREATE TABLE eo_page (n int, k int, x float8);
INSERT INTO eo_page
SELECT CASE WHEN i = 20 THEN 100 ELSE i % 50 END, CASE WHEN i = 15 THEN 100 ELSE i % 7 END,
       CASE WHEN i = 10 THEN 'NaN' ELSE (i % 100) / 100.0 END
FROM generate_series(1, 20000) i;
VACUUM ANALYZE eo_late, eo_page;
CREATE FUNCTION eo_nan(pages text, tbl text)
RETURNS TABLE (q text, scan_planned boolean, outcome text, same boolean, as_width_bucket boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    device text := current_setting('gpu_histogram.device');
    pair text[];
BEGIN
    PERFORM set_config('gpu_histogram.debug_pages_on_cpu', pages, true);
    PERFORM set_config('gpu_histogram.device', 'cpu', true);
    FOREACH pair SLICE 1 IN ARRAY ARRAY[
      [$$SELECT 1 / (n - 100), gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$,
       $$SELECT 1 / (n - 100), width_bucket(x, 0, 1, 4), count(*) FROM %s GROUP BY 1, 2$$],
      [$$SELECT gpu_histogram(x, 0, 1, 4) FROM %s WHERE 1 / (n - 100) > -1$$,
       $$SELECT width_bucket(x, 0, 1, 4), count(*) FROM %s WHERE 1 / (n - 100) > -1 GROUP BY 1$$],
      [$$SELECT mod(k, 3), gpu_histogram(x, 0, 1, 4) FROM %s WHERE 1 / (n - 100) > -1 GROUP BY 1$$,
       $$SELECT mod(k, 3), width_bucket(x, 0, 1, 4), count(*) FROM %s WHERE 1 / (n - 100) > -1 GROUP BY 1, 2$$],
      [$$SELECT k * 30000000, gpu_histogram(x, 0, 1, 4) FROM %s WHERE 1 / (n - 100) > -1 GROUP BY 1$$,
       $$SELECT k * 30000000, width_bucket(x, 0, 1, 4), count(*) FROM %s WHERE 1 / (n - 100) > -1 GROUP BY 1, 2$$],
      [$$SELECT k * 30000000, gpu_histogram(x, 0, 1, 4) FROM %s WHERE 1 / (n - 100) > -1 AND x < 2 GROUP BY 1$$,
       $$SELECT k * 30000000, width_bucket(x, 0, 1, 4), count(*) FROM %s WHERE 1 / (n - 100) > -1 AND x < 2 GROUP BY 1, 2$$],
      [$$SELECT gpu_histogram(x, 0, 1, 4) FROM %s WHERE (10 / (n - 100))::text <> 'x'$$,
       $$SELECT width_bucket(x, 0, 1, 4), count(*) FROM %s WHERE (10 / (n - 100))::text <> 'x' GROUP BY 1$$]]
    LOOP
        RETURN QUERY SELECT pair[1], t.*, t.outcome = (rt_outcome(format(pair[2], tbl))).outcome
            FROM rt_try(format(pair[1], tbl)) t;
    END LOOP;
    PERFORM set_config('gpu_histogram.device', device, true);
END
$fn$;
SELECT pages, tbl, s.* FROM (VALUES ('off'), ('on')) c(pages), (VALUES ('eo_late'), ('eo_page')) tables(tbl),
    eo_nan(pages, tbl) s;

-- A GroupAggregate over a Sort, which PostgreSQL plans for GROUP BY 1
-- ORDER BY 1 even over four rows, and for groups past work_mem, computes
-- every row's WHERE clause and keys before its aggregates see a value:
-- there a key or a clause that raises at a late row wins over a NaN or an
-- invalid argument at the first, and the scan holds the values' errors
-- back until its input's end.  Without ORDER BY, HashAggregate's order:
-- the first row's error.  Then the same through the page path.
CREATE TABLE eo_s (i int, ts timestamptz, x float8);
INSERT INTO eo_s VALUES (1, '2024-01-01 00:00:01+00', 'NaN'), (0, 'infinity', 0.5), (2, '2024-01-01 00:00:05+00', 'NaN'),
                        (3, '2024-01-01 01:00:00+00', 0.5);
CREATE TABLE eo_s2 AS
SELECT i, timestamptz '2024-01-01 00:00+00' + i * interval '1 minute' AS ts, CASE WHEN i = 1 THEN 'NaN' ELSE 0.5 END::float8 AS x
FROM generate_series(1, 20000) i;
INSERT INTO eo_s2 VALUES (0, 'infinity', 0.5);
VACUUM ANALYZE eo_s, eo_s2;
-- The same rows partitioned by time: the row that raises in a key or a
-- clause (at infinity) is in the second leaf, the NaN in the first.  Under
-- the Sort every leaf's keys come before any value, so the first leaf
-- holds its error until the last has read its rows (leaf_errors.h).
CREATE TABLE eo_sp (i int, ts timestamptz, x float8) PARTITION BY RANGE (ts);
CREATE TABLE eo_sp_a PARTITION OF eo_sp FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE eo_sp_b PARTITION OF eo_sp FOR VALUES FROM ('2025-01-01') TO (MAXVALUE);
INSERT INTO eo_sp SELECT * FROM eo_s;
CREATE TABLE eo_sp2 (LIKE eo_sp) PARTITION BY RANGE (ts);
CREATE TABLE eo_sp2_a PARTITION OF eo_sp2 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE eo_sp2_b PARTITION OF eo_sp2 FOR VALUES FROM ('2025-01-01') TO (MAXVALUE);
INSERT INTO eo_sp2 SELECT * FROM eo_s2;
VACUUM ANALYZE eo_sp, eo_sp2;
-- Without ORDER BY the GPU's pages are the exception of docs/errors.md (a
-- NaN of theirs raises when their batch comes back, after the host's next
-- rows): those queries run with device = cpu.
CREATE FUNCTION eo_sorted(pages text, mem text, tbl text) RETURNS TABLE (q text, scan_planned boolean, outcome text, same boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    device text := current_setting('gpu_histogram.device');
BEGIN
    PERFORM set_config('gpu_histogram.debug_pages_on_cpu', pages, true);
    PERFORM set_config('work_mem', mem, true);
    FOREACH q IN ARRAY ARRAY[
      $$SELECT (floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1 ORDER BY 1$$,
      $$SELECT (floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$,
      $$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0 GROUP BY 1 ORDER BY 1$$,
      $$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 4) FROM %s WHERE 10 / i > 0 GROUP BY 1$$,
      $$SELECT (floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint, gpu_histogram(x, 1, 1, 4) FROM %s
         GROUP BY 1 ORDER BY 1 DESC$$,
      $$SELECT date_trunc('minute', ts), count(*), gpu_histogram(x, 0.5, 1, 0) FROM %s WHERE 10 / i > 0 GROUP BY 1 ORDER BY 1$$,
      $$SELECT date_trunc('minute', ts), count(*), gpu_histogram(x, 0.5, 1, 0) FROM %s WHERE 10 / i > 0 GROUP BY 1$$]
    LOOP
        PERFORM set_config('gpu_histogram.device', CASE WHEN q LIKE '%ORDER BY%' THEN device ELSE 'cpu' END, true);
        RETURN QUERY SELECT q, t.* FROM rt_try(format(q, tbl)) t;
    END LOOP;
    PERFORM set_config('gpu_histogram.device', device, true);
END
$fn$;
SELECT pages, mem, tbl, s.* FROM (VALUES ('off', '4MB'), ('off', '64kB'), ('on', '4MB')) c(pages, mem),
    (VALUES ('eo_s'), ('eo_s2'), ('eo_sp'), ('eo_sp2')) tables(tbl), eo_sorted(pages, mem, tbl) s;

-- The ends of the range, for each key family.  A row at the last
-- microsecond, behind rows an hour or a day before it, in zones ahead of
-- UTC: its local time lies past the range, where PostgreSQL raises
-- "timestamp out of range", even once an earlier row has cached the
-- zone's offset.  The first microsecond, in zones behind UTC.
CREATE TABLE eo_end (ts timestamptz, lts timestamp, d date, ep float8, x float8);
INSERT INTO eo_end
SELECT '2024-01-01 00:00+00'::timestamptz + g * interval '1 minute', '2024-01-01'::timestamp + g * interval '1 minute',
       date '2024-01-01' + g % 30, g * 60.0, 0.5
FROM generate_series(1, 300) g;
INSERT INTO eo_end VALUES ('294276-12-31 22:59:59+00', '294276-12-31 22:59:59', '5874897-12-30', 9224318015999, 0.5);
INSERT INTO eo_end VALUES ('294276-12-31 23:59:59.999999+00', '294276-12-31 23:59:59.999999', '5874897-12-31',
                           9224318016000, 0.5);
CREATE TABLE eo_start (ts timestamptz, lts timestamp, d date, ep float8, x float8);
INSERT INTO eo_start
SELECT '2024-01-01 00:00+00'::timestamptz + g * interval '1 minute', '2024-01-01'::timestamp + g * interval '1 minute',
       date '2024-01-01' + g % 30, g * 60.0, 0.5
FROM generate_series(1, 300) g;
INSERT INTO eo_start VALUES ('4714-11-24 00:00:00+00 BC', '4714-11-24 00:00:00 BC', '4714-11-24 BC', -210866803200, 0.5);
ANALYZE eo_end, eo_start;
SELECT z, q, tbl, t.*
FROM (VALUES
  -- periodic fields of the local time
  ($$SELECT extract(hour FROM ts AT TIME ZONE '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT extract(quarter FROM ts AT TIME ZONE '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_part('dow', ts::timestamp), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT extract(minute FROM ts), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  -- time keys: date_trunc, ::date and date_bin, of the stored time and of the local time
  ($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts AT TIME ZONE '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_trunc('month', ts, '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT (ts AT TIME ZONE '%1$s')::date, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT ts::date, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_bin('1 hour', ts, '2000-01-01 00:30+00'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_bin('1 hour', lts, '2000-01-01 00:30'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  -- monotone keys: to_timestamp, an epoch's steps, a date's casts
  ($$SELECT to_timestamp(ep), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts) / 60) * 60, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT d::timestamp, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_trunc('month', d), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT ts + interval '2 hours', gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  -- keys the executor computes
  ($$SELECT d + 1, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT to_char(ts AT TIME ZONE '%1$s', 'YYYY-MM'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  -- width_bucket of the epoch, and a plain column: nothing to raise
  ($$SELECT width_bucket(ep, 0, 1e13, 10), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT ts, gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$)
) v(q),
(VALUES ('Asia/Kathmandu', 'eo_end'), ('Pacific/Kiritimati', 'eo_end'), ('America/Sitka', 'eo_start'),
        ('Pacific/Pago_Pago', 'eo_start')) cases(z, tbl),
LATERAL eo_try(z, format(q, z, tbl)) t
ORDER BY z COLLATE "C", tbl COLLATE "C", q COLLATE "C";
SET TimeZone = 'UTC';

-- The same through the page path: all-visible pages gathered in batches as
-- for the GPU and parsed on the host, with their rows in page order.
VACUUM eo_end, eo_start, eo_b, eo_b2, eo_c, eo_n, eo_n2;
SET gpu_histogram.device = cpu;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SELECT z, q, tbl, t.*
FROM (VALUES
  ($$SELECT extract(hour FROM ts AT TIME ZONE '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts AT TIME ZONE '%1$s'), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 4) FROM %2$s GROUP BY 1$$),
  ($$SELECT gpu_histogram(ts, '2024-01-01', '2024-01-02', 24) FROM %2$s$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM %2$s$$)
) v(q),
(VALUES ('Asia/Kathmandu', 'eo_end'), ('America/Sitka', 'eo_start')) cases(z, tbl),
LATERAL eo_try(z, format(q, z, tbl)) t
ORDER BY z COLLATE "C", tbl COLLATE "C", q COLLATE "C";
SET TimeZone = 'UTC';
SELECT q, tbl, t.*
FROM (VALUES
  ($$SELECT d + 1, gpu_histogram(y, 'NaN', 1, 7) FROM %s GROUP BY 1$$),
  ($$SELECT 10 / i + abs(j), gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 0) FROM %s$$),
  ($$SELECT j, count(*), gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 1, 0) FROM %s GROUP BY 1$$)
) v(q), (VALUES ('eo_b'), ('eo_b2')) tables(tbl), rt_try(format(q, tbl)) t;
SELECT q, tbl, t.*
FROM (VALUES
  ($$SELECT i, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT 10 / i, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM %s WHERE i < 2$$)
) v(q), (VALUES ('eo_n'), ('eo_n2')) tables(tbl), rt_try(format(q, tbl)) t;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;

DROP TABLE eo_a, eo_web, eo_b, eo_b2, eo_c, eo_n, eo_n2, eo_end, eo_start;
DROP FUNCTION eo_try(text, text);
