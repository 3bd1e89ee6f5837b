--
-- matrix: issue 57's crossing of the scan's shapes, every pair of them at
-- least once, each against PostgreSQL's ordinary plan.  Six histogram
-- forms (float8, float4, integer and numeric values through the float8
-- form, the time form, the thresholds form), eleven GROUP BY keys (none,
-- an int column, a text column, date_trunc, a periodic field, Grafana's
-- epoch group, an expression of an int column, to_char, the year,
-- Metabase's weeks from Sunday, width_bucket), ten WHERE clauses (none, a
-- time range, IN lists of ints and of texts, IS NOT NULL, an OR, a LIKE
-- evaluated once per value of its column, a boolean, NOT IN, a LIKE of two
-- columns the executor evaluates) and five sets of aggregates
-- beside the histogram (none, count(*), counts of columns with a second
-- histogram of the time form, a sum and a mean, min and max with a
-- second histogram of thresholds).  Query (k, q) has key k and clause q, form
-- (k + q) mod 6 and aggregates (3k + q) mod 5: every key meets every
-- clause, form and aggregate set, and every form every clause and
-- aggregate set.  The table is the metrics table's shape, a text column
-- before the values, with NULLs and infinities, across New York's
-- fall-back, and rows added after ANALYZE (values the statistics never
-- saw); the queries run in three zones.
--
-- The page path runs on the CPU here (debug_pages_on_cpu, as the GPU would
-- be handed each batch back); the last column names what kept a grouped
-- query's pages off that path (EXPLAIN ANALYZE's "Pages Kept off the GPU
-- by"), empty where none did: the matrix of where each shape runs.
-- test/gpu/run_gpu_checks.sh runs this topic with device = gpu.
--
LOAD 'gpu_histogram';
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

CREATE TABLE mx (ts timestamptz, device_id text, g int, x float8, f4 float4, n numeric(6,2), flag bool);
INSERT INTO mx
SELECT timestamptz '2026-10-25 00:00+00' + i * interval '53 seconds',
       CASE WHEN i % 97 = 0 THEN NULL ELSE 'dev-' || (i % 23) END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE i % 100 END,
       CASE WHEN i % 83 = 0 THEN NULL WHEN i % 1009 = 0 THEN 'infinity' WHEN i % 1013 = 0 THEN '-infinity'
            ELSE (i % 1000) / 1000.0 END,
       ((i * 7) % 1000) / 1000.0,
       (i % 50) / 4.0,
       i % 3 = 0
FROM generate_series(1, 30000) i;
INSERT INTO mx VALUES (NULL, 'dev-1', 1, 0.5, 0.5, 1, true), ('infinity', 'dev-2', 2, 0.25, 0.25, 2, false),
                      ('-infinity', 'dev-3', 3, 0.75, 0.75, 3, NULL);
ANALYZE mx;
-- rows the statistics never saw: later times, new devices, larger g
INSERT INTO mx
SELECT timestamptz '2026-11-15 00:00+00' + i * interval '61 seconds', 'dev-new-' || (i % 3), 1000 + i % 7,
       (i % 100) / 100.0, (i % 10) / 10.0, i % 9, true
FROM generate_series(1, 2000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM mx;

CREATE TEMP TABLE mx_forms (f int, expr text);
INSERT INTO mx_forms VALUES
    (0, $$gpu_histogram(x, 0, 1, 8)$$),
    (1, $$gpu_histogram(f4, 0, 1, 8)$$),
    (2, $$gpu_histogram(g, 0, 100, 10)$$),
    (3, $$gpu_histogram(n, 0, 12.5, 5)$$),
    (4, $$gpu_histogram(ts, '2026-10-25', '2026-11-20', 26)$$),
    (5, $$gpu_histogram(x, ARRAY[0.1, 0.25, 0.5, 0.9])$$);
CREATE TEMP TABLE mx_keys (k int, expr text);
INSERT INTO mx_keys VALUES
    (0, NULL),
    (1, $$g$$),
    (2, $$device_id$$),
    (3, $$date_trunc('hour', ts)$$),
    (4, $$extract(dow FROM ts)$$),
    (5, $$floor(extract(epoch FROM ts) / 900) * 900$$),
    (6, $$g % 10$$),
    (7, $$to_char(ts, 'YYYY-MM-DD')$$),
    (8, $$extract(year FROM ts)$$),
    (9, $$date_trunc('week', ts + interval '1 day') - interval '1 day'$$),
    (10, $$width_bucket(x, 0, 1, 4)$$);
CREATE TEMP TABLE mx_quals (q int, expr text);
INSERT INTO mx_quals VALUES
    (0, NULL),
    (1, $$ts >= '2026-10-31' AND ts < '2026-11-03'$$),
    (2, $$g IN (1, 2, 3, 1001)$$),
    (3, $$device_id IN ('dev-1', 'dev-2', 'dev-new-1')$$),
    (4, $$x IS NOT NULL$$),
    (5, $$(g < 5 OR device_id = 'dev-7')$$),
    (6, $$device_id LIKE 'dev-1%'$$),
    (7, $$NOT flag$$),
    (8, $$g NOT IN (1, 2)$$),
    (9, $$device_id || g LIKE 'dev-1%1'$$);
CREATE TEMP TABLE mx_aggs (a int, expr text);
INSERT INTO mx_aggs VALUES
    (0, NULL),
    (1, $$count(*)$$),
    (2, $$count(x), count(device_id), gpu_histogram(ts, '2026-10-25', '2026-11-20', 13) AS h2$$),
    -- float means are summed exactly by the scan, in row order by the ordinary plan: compared to 9 places
    (3, $$sum(g), round(avg(x)::numeric, 9)$$),
    (4, $$min(ts), max(x), max(g), gpu_histogram(f4, ARRAY[0.5]) AS h2$$);
CREATE TEMP TABLE mx_queries AS
SELECT k.k, q.q, f.f, a.a,
       (ARRAY['America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe'])[(k.k + 2 * q.q) % 3 + 1] AS zone,
       format('SELECT %s%s%s FROM mx%s%s',
              coalesce(k.expr || ' AS k, ', ''), coalesce(a.expr || ', ', ''), f.expr,
              coalesce(' WHERE ' || q.expr, ''), CASE WHEN k.expr IS NULL THEN '' ELSE ' GROUP BY 1' END) AS sql
FROM mx_keys k, mx_quals q, mx_forms f, mx_aggs a
WHERE f.f = (k.k + q.q) % 6 AND a.a = (3 * k.k + q.q) % 5;
-- every pair of dimensions is covered
SELECT count(*) AS queries,
       count(DISTINCT (k, f)) AS key_form, count(DISTINCT (k, a)) AS key_aggs, count(DISTINCT (q, f)) AS qual_form,
       count(DISTINCT (q, a)) AS qual_aggs, count(DISTINCT (f, a)) AS form_aggs, count(DISTINCT (k, q)) AS key_qual
FROM mx_queries;

-- What kept a query's pages off the page path, from EXPLAIN ANALYZE (in the query's zone)
CREATE FUNCTION mx_kept_off(q text, zone text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    PERFORM set_config('TimeZone', zone, true);
    FOR line IN SELECT * FROM rt_explain(q, true) LOOP
        IF line ~ 'Pages Kept off the GPU by: ' THEN
            RETURN substring(line FROM 'Pages Kept off the GPU by: (.*)$');
        END IF;
    END LOOP;
    RETURN '';
END
$fn$;

SET work_mem = '32MB';
CREATE TEMP TABLE mx_results AS
SELECT m.k, m.q, m.f, m.a, c.scan_planned AS planned, c.same, c.rows,
       CASE WHEN c.scan_planned THEN mx_kept_off(m.sql, m.zone) END AS kept_off
FROM mx_queries m, LATERAL rt_compare(m.sql, false, m.zone) c;
SELECT * FROM mx_results ORDER BY k, q;
SELECT count(*) AS queries, count(*) FILTER (WHERE planned) AS planned,
       count(*) FILTER (WHERE kept_off = '') AS on_pages, bool_and(same) AS all_same
FROM mx_results;
RESET work_mem;

RESET TimeZone;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
DROP FUNCTION mx_kept_off(text, text);
DROP TABLE mx;
