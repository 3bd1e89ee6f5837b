--
-- where_lists: IN and NOT IN lists in the WHERE clause (`col IN (...)`,
-- `col = ANY(array)`, `col NOT IN (...)`, `col <> ALL(array)`), and NULL
-- tests (`col IS [NOT] NULL`, of columns added after the rows too), the
-- null-safe comparisons (`IS [NOT] DISTINCT FROM`), a bool
-- column as a clause (`flag`, `NOT flag`, `IS TRUE`, `IS FALSE`), evaluated
-- by the scan itself (extension/scan/quals/native_quals.h) rather than by
-- the executor, on the host's rows and on the page path: a Grafana
-- multi-value variable makes such a list.  Every answer is compared with
-- PostgreSQL's ordinary plan (rt_compare), with the cases where
-- ScalarArrayOpExpr's answer is not the obvious one: NULL elements (which
-- make NOT IN pass no row), empty arrays (= ANY passes nothing, <> ALL
-- everything, NULL columns too), a NULL array, NaN, -0 and infinities in a
-- float8 list, cross-type lists (an int4 column against bigints), lists of
-- dates and timestamps, and lists that are parameters of a prepared
-- statement.  gpu_histogram.debug_pages_on_cpu batches the pages as for
-- the GPU and parses them on the host; the DEBUG lines show the page path
-- ran, and EXPLAIN ANALYZE that the lists were evaluated natively.
-- test/gpu/grouped_page_checks.sh runs lists on the GPU's pages.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS wl_t;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.skip_pages_by_range = off; -- the DEBUG lines below count every page (page_ranges.sql skips some)
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

CREATE TABLE wl_t (ts timestamptz, host text, g int4, k int8, f float8, d date, x float8)
    WITH (autovacuum_enabled = off);
INSERT INTO wl_t
SELECT '2024-05-01'::timestamptz + i * interval '1 minute',
       'host-' || i % 9,
       CASE WHEN i % 97 = 0 THEN NULL ELSE i % 20 END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 7) * 10000000000 END,
       CASE i % 50 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN '-0'
                   WHEN 4 THEN NULL ELSE (i % 10) / 4.0 END,
       '2024-05-01'::date + i % 30,
       CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END
FROM generate_series(1, 20000) i;
-- columns added after the rows: one with a default (the old rows hold it, not NULL), one without
ALTER TABLE wl_t ADD COLUMN late int4 DEFAULT 7, ADD COLUMN later float8;
INSERT INTO wl_t (ts, host, g, k, f, d, x, late, later)
SELECT '2024-06-01'::timestamptz + i * interval '1 minute', NULL, i % 20, i, i / 10.0, '2024-06-01', (i % 100) / 100.0,
       CASE WHEN i % 2 = 0 THEN NULL ELSE i END, CASE WHEN i % 3 = 0 THEN NULL ELSE i / 10.0 END
FROM generate_series(1, 500) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE wl_t;

-- evaluated natively: the plan's account says so
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM wl_t WHERE g IN (1, 2, 3)$$, true) line
WHERE line ~ 'Filter Evaluation|Custom Scan';

CREATE TEMP TABLE wl_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO wl_queries (q) VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IN (1, 2, 3)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g NOT IN (1, 2, 3)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IN (1, NULL, 3)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g NOT IN (1, NULL, 3)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g = ANY('{}'::int[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g <> ALL('{}'::int[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g = ANY(NULL::int[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g <> ALL('{NULL}'::int[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g = ANY('{NULL, 4, 4, 19}'::int[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IN (5::int8, 6000000000, -1)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k IN (10000000000, 30000000000::int8)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k = ANY(ARRAY[1, 2, 3]::int2[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f IN ('NaN', 0, 'Infinity')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f NOT IN ('NaN', '-Infinity', 1.25)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f = ANY(ARRAY[0.5, 2]::float4[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE d IN ('2024-05-03', '2024-05-29')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE ts IN ('2024-05-01 00:10+00', '2024-05-02 00:00+00', '2024-06-01 00:00+00')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IN (1, 2, 3) AND ts >= '2024-05-03' AND ts < '2024-05-10' AND x > 0.25$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IN (1, 2, 3, 17) GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE g IN (1, 2, 3) AND ts >= '2024-05-02' AND ts < '2024-05-05' GROUP BY 1$$),
    ($$SELECT floor(extract(epoch FROM ts) / 900) * 900 AS t, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE g = ANY(string_to_array('2,4,6', ',')::int[]) AND ts >= '2024-05-04' AND ts < '2024-05-06' GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE g NOT IN (0, 1) AND k NOT IN (0) GROUP BY g$$),
    -- NULL tests, of a column of any type (the GPU's pages take those of the comparisons' types)
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f IS NOT NULL AND g IN (1, 2)$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE host IS NOT NULL AND k IS NOT NULL GROUP BY g$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE host IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE late IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE late IS NOT NULL AND later IS NULL$$),
    ($$SELECT date_trunc('day', ts) AS day, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE later IS NOT NULL GROUP BY 1$$),
    -- comparisons of one column merged into one range (native_quals_filter): empty ones, the type's ends, <> beside
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k > 9223372036854775807$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k < -9223372036854775807 - 1$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k >= -9223372036854775807 - 1 AND k <= 9223372036854775807$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE k >= 20000000000 AND k <= 40000000000 AND k <> 30000000000$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g >= 5 AND g < 5$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g > 3 AND g >= 2 AND g <= 7 AND g < 9 AND g = 6$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g >= 3::int8 AND g < 4000000000 AND (g < 5 OR g > 15)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE late > 6 AND late <= 7$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE d >= '2024-05-03' AND d < '2024-05-05' AND ts > '2024-05-02' AND ts <= '2024-06-01 03:00+00' GROUP BY d$$);
SELECT count(*) AS queries, bool_and(c.same) AS same, bool_and(c.scan_planned) AS scans
FROM wl_queries, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT n, c.* FROM wl_queries, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;
-- the same on the host's own page path (native_quals_filter), where no page goes to the GPU
SET gpu_histogram.debug_pages_on_cpu = off;
SELECT count(*) AS queries, bool_and(c.same) AS same, bool_and(c.scan_planned) AS scans
FROM wl_queries, LATERAL rt_compare(q) c;
SET gpu_histogram.debug_pages_on_cpu = on;

-- lists that are parameters of a generic plan, given at EXECUTE: evaluated once per scan
SET plan_cache_mode = force_generic_plan;
PREPARE wl_any(int[]) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g = ANY($1);
PREPARE wl_in(int, int) AS SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE g IN ($1, $2) GROUP BY g;
PREPARE wl_not(float8[]) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f <> ALL($1);
SELECT q, c.* FROM (VALUES
    ($$EXECUTE wl_any('{3, 5, 7}')$$),
    ($$EXECUTE wl_any('{}')$$),
    ($$EXECUTE wl_any(NULL)$$),
    ($$EXECUTE wl_in(2, NULL)$$),
    ($$EXECUTE wl_in(8, 9)$$),
    ($$EXECUTE wl_not('{NaN, 0}')$$),
    ($$EXECUTE wl_not('{}')$$),
    ($$EXECUTE wl_not('{1, NULL}')$$)
) v(q), LATERAL rt_compare(q) c;

DEALLOCATE wl_any;
DEALLOCATE wl_in;
DEALLOCATE wl_not;
RESET plan_cache_mode;

-- IS DISTINCT FROM and IS NOT DISTINCT FROM, the null-safe comparisons:
-- native, of a constant or a parameter, NULL or not, NULL columns and
-- columns added after the rows among those compared
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM wl_t WHERE g IS DISTINCT FROM 3 AND host IS NOT DISTINCT FROM 'host-2'$$, true) line
WHERE line ~ 'Filter Evaluation';
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS DISTINCT FROM 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS NOT DISTINCT FROM 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS DISTINCT FROM NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS NOT DISTINCT FROM NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE host IS DISTINCT FROM 'host-2'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE host IS NOT DISTINCT FROM 'host-2'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f IS DISTINCT FROM 'NaN'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE f IS NOT DISTINCT FROM 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE late IS DISTINCT FROM 7$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE later IS NOT DISTINCT FROM NULL AND late IS DISTINCT FROM 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE ts IS DISTINCT FROM '2024-05-02'::date$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE d IS DISTINCT FROM '2024-05-03 00:01'::timestamp$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS DISTINCT FROM 2.5 OR k IS NOT DISTINCT FROM 1e10$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE g IS DISTINCT FROM 4 AND k IS DISTINCT FROM 0 GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;
SET plan_cache_mode = force_generic_plan;
PREPARE wl_distinct(int, text) AS
SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE g IS DISTINCT FROM $1 AND host IS NOT DISTINCT FROM $2 GROUP BY g;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE wl_distinct(3, 'host-1')$$),
    ($$EXECUTE wl_distinct(NULL, 'host-1')$$),
    ($$EXECUTE wl_distinct(3, NULL)$$),
    ($$EXECUTE wl_distinct(NULL, NULL)$$)
) v(q), LATERAL rt_compare(q) c;
DEALLOCATE wl_distinct;
RESET plan_cache_mode;

-- a bool column as a clause: `flag`, `NOT flag`, `IS TRUE`, `IS FALSE` (NULL fails each) are native;
-- `IS NOT TRUE` and `IS UNKNOWN` (NULL passes) stay the executor's
ALTER TABLE wl_t ADD COLUMN ok bool;
UPDATE wl_t SET ok = CASE g % 3 WHEN 0 THEN true WHEN 1 THEN false END;
VACUUM ANALYZE wl_t;
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM wl_t WHERE NOT ok AND g IN (1, 4)$$, true) line
WHERE line ~ 'Filter Evaluation';
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE ok$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wl_t WHERE NOT ok$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE ok IS TRUE GROUP BY g$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE ok IS FALSE AND g <> 4 GROUP BY d$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE ok = true GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE ok IS NOT TRUE GROUP BY g$$),
    ($$SELECT ok, gpu_histogram(x, 0, 1, 8) AS h FROM wl_t WHERE NOT ok OR g = 2 GROUP BY ok$$)
) v(q), LATERAL rt_compare(q) c;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE wl_t, wl_queries;
