--
-- time_range: WHERE clauses on date, timestamp and timestamptz columns that
-- the custom scan answers itself (Filter Evaluation: native), the time
-- ranges of dashboards: a constant, a parameter of a prepared statement, a
-- stable expression such as now() - interval '1 day', an InitPlan's result,
-- BETWEEN.  Every answer is compared with the ordinary plan's
-- (gpu_histogram.scan = off), in one transaction so that now() is the same.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS tr_t CASCADE;
DROP FUNCTION IF EXISTS tr_compare;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'America/New_York';

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql

-- whether the scan was planned, how it filtered, and whether its answer equals the ordinary plan's
CREATE FUNCTION tr_compare(q text, OUT scan_planned boolean, OUT filter text, OUT same boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    filter := '';
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        IF line LIKE '%Filter Evaluation:%' THEN
            filter := btrim(split_part(line, ':', 2));
        END IF;
    END LOOP;
    SELECT c.scan_planned, c.same INTO scan_planned, same FROM rt_compare(q) c;
END
$fn$;

-- ten days of rows every 37 seconds across the November DST change, with
-- NULLs and infinities in every time column
CREATE TABLE tr_t (ts timestamptz, t timestamp, d date, x float8);
INSERT INTO tr_t
SELECT ts, ts AT TIME ZONE 'UTC', (ts AT TIME ZONE 'UTC')::date, (i * 0.6180339887498949) - floor(i * 0.6180339887498949)
FROM (SELECT i, timestamptz '2026-10-28 00:00:00+00' + i * interval '37 seconds' AS ts
      FROM generate_series(1, 23000) i) s;
INSERT INTO tr_t VALUES (NULL, NULL, NULL, 0.5), ('infinity', 'infinity', 'infinity', 0.25),
    ('-infinity', '-infinity', '-infinity', 0.75), (NULL, '2026-11-01 06:00', NULL, 0.125);
VACUUM ANALYZE tr_t;

BEGIN;
-- constants, each operator and both ways round
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= '2026-11-01 01:30-04'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts < '2026-11-01 01:30-05'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE '2026-11-03' > d$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE d = '2026-11-01'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE d <> '2026-11-01'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE t <= '2026-11-01 06:00'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE t BETWEEN '2026-10-30' AND '2026-11-02 12:00'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts > '-infinity' AND ts < 'infinity'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts = 'infinity'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE d >= '-infinity'::date$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= NULL::timestamptz$$);
-- stable expressions, evaluated once per scan
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= now() - interval '100 years'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts < '2026-11-01'::timestamptz + interval '1 day 2 hours'$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= date_trunc('day', '2026-11-01 12:00'::timestamptz)$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE d < current_date$$);
-- an InitPlan's result
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts > (SELECT max(ts) FROM tr_t WHERE ts < 'infinity') - interval '2 days'$$);
-- a timestamp column against a timestamptz converts the column by the
-- zone, which may go back, so the executor answers; a date column against
-- a timestamp converts it without one, and is native (where_convert.sql)
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE t >= '2026-11-01 01:30-04'::timestamptz$$);
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE d < '2026-11-01 12:00'::timestamp$$);
-- a volatile value is for the executor too
SELECT * FROM tr_compare($$SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= clock_timestamp() - interval '100 years'$$);
COMMIT;

-- parameters of a prepared statement, in a generic plan
SET plan_cache_mode = force_generic_plan;
PREPARE tr_range(timestamptz, timestamptz) AS
    SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= $1 AND ts < $2;
SELECT rt_explain($$EXECUTE tr_range('2026-10-30', '2026-11-02')$$);
CREATE TABLE tr_answers AS
SELECT lo, hi, (SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= lo AND ts < hi) AS expected
FROM (VALUES (timestamptz '2026-10-30', timestamptz '2026-11-02'), ('2026-11-01 01:00-04', '2026-11-01 01:00-05'),
             ('-infinity', 'infinity'), (NULL, 'infinity'), ('2026-11-05', '2026-11-01')) v(lo, hi);
SET gpu_histogram.scan = off;
UPDATE tr_answers SET expected = (SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= lo AND ts < hi);
RESET gpu_histogram.scan;
-- each execution of the prepared statement, and a correlated subquery that rescans with new values
EXECUTE tr_range('2026-10-30', '2026-11-02');
SELECT lo, hi, expected = (SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= lo AND ts < hi) AS same_in_subquery
FROM tr_answers ORDER BY lo NULLS FIRST, hi;
SELECT bool_and(expected IS NOT DISTINCT FROM (SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= lo AND ts < hi)) AS all_same
FROM tr_answers;
DO $$
DECLARE
    a record;
    got bigint[];
BEGIN
    FOR a IN SELECT * FROM tr_answers LOOP
        EXECUTE format('EXECUTE tr_range(%L, %L)', a.lo, a.hi) INTO got;
        IF got IS DISTINCT FROM a.expected THEN
            RAISE EXCEPTION 'tr_range(%, %) gave %, the ordinary plan %', a.lo, a.hi, got, a.expected;
        END IF;
    END LOOP;
END
$$;
SELECT rt_explain('SELECT lo, (SELECT gpu_histogram(x, 0, 1, 16) FROM tr_t WHERE ts >= lo AND ts < hi) FROM tr_answers');
DEALLOCATE tr_range;
RESET plan_cache_mode;
RESET TimeZone;
