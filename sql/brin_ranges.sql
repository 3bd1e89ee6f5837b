--
-- brin_ranges: a time range over a table with a BRIN index on its time
-- column.  The scan asks the index which block ranges may hold matching
-- rows and reads only those (Block Ranges in EXPLAIN, Pages Skipped in
-- EXPLAIN ANALYZE), in serial and parallel plans, with constants,
-- parameters and stable values, after inserts the index has not summarized
-- and after updates.  Every answer is compared with the ordinary plan's
-- (gpu_histogram.scan = off).
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS br_t CASCADE;
DROP FUNCTION IF EXISTS br_compare;
DROP ROLE IF EXISTS regress_br_reader;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'America/New_York';

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql

-- whether the scan was planned, whether it skipped pages, and whether its
-- answer equals the ordinary plan's
CREATE FUNCTION br_compare(q text, OUT scan_planned boolean, OUT skipped_pages boolean, OUT same boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    skipped_pages := false;
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Pages Skipped: [1-9]' THEN
            skipped_pages := true;
        END IF;
    END LOOP;
    SELECT c.scan_planned, c.same INTO scan_planned, same FROM rt_compare(q) c;
END
$fn$;

-- 60 days of rows every 15 seconds, in time order, a BRIN index of 8
-- pages a range on ts; a few NULL values and NULL times
CREATE TABLE br_t (ts timestamptz, x float8, g int);
INSERT INTO br_t
SELECT CASE WHEN i % 5003 = 0 THEN NULL ELSE timestamptz '2026-01-01 00:00:00+00' + i * interval '15 seconds' END,
       CASE WHEN i % 911 = 0 THEN NULL ELSE (i * 0.6180339887498949) - floor(i * 0.6180339887498949) END,
       i % 7
FROM generate_series(1, 345600) i;
CREATE INDEX br_ts ON br_t USING brin (ts) WITH (pages_per_range = 8);
VACUUM ANALYZE br_t;

SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$);
SELECT rt_explain($$SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1$$);

SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$),
    ($$SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts BETWEEN '2026-01-10 06:00' AND '2026-01-10 18:00' GROUP BY g$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE '2026-02-20' < ts AND x > 0.25$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts = '2026-01-05 00:00:15+00'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01'::timestamp AND ts < '2026-02-02'::timestamp$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01'::date AND ts < '2026-02-02'::date$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts > now() - interval '1 day'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= (SELECT max(ts) - interval '6 hours' FROM br_t)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts < '2025-01-01' OR ts IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-01-15'$$)
) v(q), LATERAL br_compare(q) c;

-- Parameters of a prepared statement's generic plan, NULL among them (no row).
SET plan_cache_mode = force_generic_plan;
PREPARE br_range(timestamptz, timestamptz) AS
    SELECT date_trunc('day', ts), gpu_histogram(x, 0, 1, 8) FROM br_t WHERE ts >= $1 AND ts < $2 GROUP BY 1 ORDER BY 1;
SELECT rt_explain('EXECUTE br_range(''2026-02-01'', ''2026-02-03'')');
EXECUTE br_range('2026-02-01', '2026-02-03');
EXECUTE br_range(NULL, '2026-02-03');
SET gpu_histogram.scan = off;
EXECUTE br_range('2026-02-01', '2026-02-03');
RESET gpu_histogram.scan;
DEALLOCATE br_range;
RESET plan_cache_mode;

-- Rows the index has not summarized yet (their ranges are read whole), and
-- an update that moves a row's time into the range.
INSERT INTO br_t SELECT timestamptz '2026-03-05 00:00:00+00' + i * interval '1 minute', 0.5, 1 FROM generate_series(1, 5000) i;
UPDATE br_t SET ts = '2026-02-07 12:00:00+00', x = 0.99 WHERE ts = '2026-01-02 00:00:00+00';
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-03-04' AND ts < '2026-03-06'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-07' AND ts < '2026-02-08'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-01-02' AND ts < '2026-01-02 00:01'$$)
) v(q), LATERAL br_compare(q) c;

-- Parallel plans: each participant asks the index and reads its share of
-- the blocks left.  (Without probes: a shape whose pages the GPU found in
-- its page cache is planned serially, plan/cached_cost.h.)
SET gpu_histogram.page_probes = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rt_explain($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$),
    ($$SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1$$)
) v(q), LATERAL br_compare(q) c;
-- Workers are counted by the pages read, as for a Bitmap Heap Scan: the
-- table (about 15MB) gets one at min_parallel_table_scan_size = 8MB, the
-- two weeks the index leaves (under 4MB) none.
RESET min_parallel_table_scan_size;
SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$);
SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE x >= 0.5$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET gpu_histogram.page_probes;
SET max_parallel_workers_per_gather = 0;

-- A table without a BRIN index, or a clause the index cannot search, reads
-- every block (no Block Ranges line).
SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE x >= 0.5$$);

-- Row-level security: the index is asked about leakproof comparisons only
-- (it tests them on summaries of rows the policy hides, before the
-- policy's own qual), as PostgreSQL's own index conditions; the answer is
-- the policy's.  timestamptz's comparisons are leakproof.
CREATE ROLE regress_br_reader;
GRANT SELECT ON br_t TO regress_br_reader;
ALTER TABLE br_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY br_visible ON br_t USING (g <> 3);
SET ROLE regress_br_reader;
SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15'$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 16) FROM br_t WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY g$$)
) v(q), LATERAL br_compare(q) c;
RESET ROLE;
DROP TABLE br_t;
DROP ROLE regress_br_reader;
RESET TimeZone;
