--
-- where_mixed: a WHERE clause of which only some clauses are the scan's
-- own (native_quals.h).  Those run first, natively, and the executor
-- evaluates the others on the rows that pass them, in the order a
-- sequential scan would (native_quals_build): the executor's work follows
-- the rows that pass, not the table.  A native clause runs first only
-- where each executor clause the ordinary plan evaluates before it may
-- lose rows without another answer: leakproof (it raises nothing that
-- depends on the row) and not volatile.  So a cheap function that raises,
-- or has an effect, before a native clause sees every row it would have
-- seen, and the query raises (or answers) as the ordinary plan does
-- (rt_try).  EXPLAIN says how many clauses ran where.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET gpu_histogram.skip_pages_by_range = off; -- the DEBUG lines below count every page (page_ranges.sql skips some)
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

CREATE TABLE wm_t (i int, g int, host text, ts timestamptz, x float8) WITH (autovacuum_enabled = off);
INSERT INTO wm_t
SELECT i, CASE WHEN i % 53 = 0 THEN NULL ELSE i % 10 END, 'h' || i % 5,
       '2024-01-01 00:00+00'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END
FROM generate_series(0, 19999) i;
ANALYZE wm_t;
CREATE COLLATION wm_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
-- cheaper than an operator, so that the planner runs it before the native clause; it raises for i = 0
CREATE FUNCTION wm_raises(int) RETURNS bool LANGUAGE plpgsql IMMUTABLE COST 0.001 AS $$
BEGIN
    IF $1 = 0 THEN
        RAISE EXCEPTION 'wm_raises: row %', $1 USING ERRCODE = '22012';
    END IF;
    RETURN true;
END $$;
-- the same, counting the rows it sees
CREATE SEQUENCE wm_seen;
CREATE FUNCTION wm_counts(int) RETURNS bool LANGUAGE plpgsql VOLATILE COST 0.001 AS $$
BEGIN
    RETURN nextval('wm_seen') > 0;
END $$;

-- where each clause ran
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE g = 3 AND upper(host) = 'H' || (3 + 0 * g)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE host COLLATE wm_ci = 'H3' AND g IN (3, 8)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_raises(i) AND g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_counts(i) AND g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE g = 3 AND wm_raises(i) AND i % 7 = 0 AND ts < '2024-01-05'$$)
) v(q);

-- the answers, against the ordinary plan
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE g = 3 AND upper(host) = 'H' || (3 + 0 * g)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE host COLLATE wm_ci = 'H3' AND g IN (3, 8)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE host ~ '[13]' AND x > 0.5 AND i % 3 = 0$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE g < 5 AND i % 3 = 0 GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS t, gpu_histogram(x, 0, 1, 8) AS h FROM wm_t
       WHERE ts >= '2024-01-03' AND ts < '2024-01-06' AND host LIKE 'h_' AND g IS NOT NULL GROUP BY 1$$),
    ($$SELECT g % 3 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) FROM wm_t WHERE g <> 4 AND (i % 11 = 0 OR g = 2) GROUP BY 1$$),
    ($$SELECT g, avg(i) AS mean, max(x) AS top, gpu_histogram(x, 0, 1, 8) AS h FROM wm_t WHERE host = 'h2' AND x::text LIKE '0.1%' GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;

-- the page path (batches of all-visible pages, parsed as the GPU parses them): a page with a row that
-- passes the native clauses goes back to the host for the executor's; the others are done without it
VACUUM wm_t;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SET client_min_messages = debug1;
SELECT gpu_histogram(x, 0, 1, 8) AS h FROM wm_t WHERE ts >= '2024-01-03' AND ts < '2024-01-04' AND upper(host) = 'H' || (3 + 0 * g);
RESET client_min_messages;
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) AS h FROM wm_t
    WHERE ts >= '2024-01-03' AND ts < '2024-01-04' AND upper(host) = 'H' || (3 + 0 * g)$$, true) line
WHERE line ~ 'Filter Evaluation|Pages|Rows Removed';
-- EXPLAIN ANALYZE's Filter Evaluated: the executor's clause ran on the rows
-- that passed the native ones, and only on those (its pages' split
-- between the GPU and the CPU depends on the device)
CREATE FUNCTION wm_evaluated(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Evaluated' THEN
            RETURN NEXT regexp_replace(line, '(GPU|CPU) [0-9]+ pages', '\1 N pages', 'g');
        END IF;
    END LOOP;
END
$fn$;
SELECT line, substring(line FROM 'executor ([0-9]+) rows')::bigint =
       (SELECT count(*) FROM wm_t WHERE ts >= '2024-01-03' AND ts < '2024-01-04') AS rows_that_passed_the_native_clauses
FROM wm_evaluated($$SELECT gpu_histogram(x, 0, 1, 8) AS h FROM wm_t
    WHERE ts >= '2024-01-03' AND ts < '2024-01-04' AND upper(host) = 'H' || (3 + 0 * g)$$) line;
SELECT line FROM wm_evaluated($$SELECT g, date_trunc('hour', ts), gpu_histogram(x, 0, 1, 8) AS h FROM wm_t
    WHERE upper(host) = 'H' || (3 + 0 * g) GROUP BY 1, 2$$) line;
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE g = 3 AND upper(host) = 'H' || (3 + 0 * g)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE host ~ '[13]' AND x > 0.5 AND i % 3 = 0$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wm_t WHERE g < 5 AND i % 3 = 0 GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS t, gpu_histogram(x, 0, 1, 8) AS h FROM wm_t
       WHERE ts >= '2024-01-03' AND ts < '2024-01-06' AND host LIKE 'h_' AND g IS NOT NULL GROUP BY 1$$),
    ($$SELECT g % 3 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) FROM wm_t WHERE g <> 4 AND (i % 11 = 0 OR g = 2) GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
SELECT q, t.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_raises(i) AND g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE g = 3 AND 10 / i > 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE host = 'h0' AND 10 / i > 0$$)
) v(q), LATERAL rt_try(q) t;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;

-- errors: a clause that raises, before or after a native one, raises as in the ordinary plan; one behind a
-- native clause that filters its row does not
SELECT q, t.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_raises(i) AND g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE g = 3 AND wm_raises(i)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE g = 3 AND 10 / i > 0$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE 10 / i > 0 AND g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE host COLLATE wm_ci = 'H0' AND 10 / i > 0 AND g = 0$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_raises(i) AND g IN (1, 2) GROUP BY g$$)
) v(q), LATERAL rt_try(q) t;

-- a volatile clause before a native one sees every row, as in the ordinary plan
SELECT setval('wm_seen', 1, false) IS NOT NULL AS reset;
SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_counts(i) AND g = 3;
SELECT nextval('wm_seen') - 1 AS rows_seen_with_the_scan;
SELECT setval('wm_seen', 1, false) IS NOT NULL AS reset;
SET gpu_histogram.scan = off;
SELECT gpu_histogram(x, 0, 1, 8) FROM wm_t WHERE wm_counts(i) AND g = 3;
RESET gpu_histogram.scan;
SELECT nextval('wm_seen') - 1 AS rows_seen_by_the_ordinary_plan;

DROP TABLE wm_t;
DROP FUNCTION wm_raises(int);
DROP FUNCTION wm_counts(int);
DROP SEQUENCE wm_seen;
DROP COLLATION wm_ci;
RESET gpu_histogram.device;
RESET TimeZone;
