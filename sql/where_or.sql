--
-- where_or: an OR of clauses the scan evaluates natively is native too
-- (native_quals.h): a row passes when it passes one of the OR's atoms.
-- An AND inside an OR is put in conjunctive form first.
-- NOT needs nothing of its own: the planner pushes it down onto the atoms
-- (NOT (g < 3) is g >= 3, NOT (a OR b) is NOT a AND NOT b, NOT (g IN ...)
-- is g <> ALL (...)), as the EXPLAIN lines show.  Every answer is compared
-- with the ordinary plan's, on the host's rows and on the page path (pages
-- parsed as the GPU parses them), with NULLs, NaN, infinities, lists with
-- NULL elements and empty arrays inside an OR; and the keys' windows,
-- which a clause of its own narrows, are not narrowed by an OR's atoms.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

CREATE TABLE wo_t (i int, g int, f float8, host text, flag bool, ts timestamptz, x float8) WITH (autovacuum_enabled = off);
INSERT INTO wo_t
SELECT i, CASE WHEN i % 53 = 0 THEN NULL ELSE i % 10 END,
       CASE WHEN i % 97 = 0 THEN 'NaN'::float8 WHEN i % 89 = 0 THEN 'Infinity' WHEN i % 83 = 0 THEN '-Infinity'
            WHEN i % 79 = 0 THEN NULL ELSE (i % 200) / 10.0 END,
       CASE WHEN i % 61 = 0 THEN NULL ELSE 'h' || i % 5 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END,
       '2024-01-01 00:00+00'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END
FROM generate_series(0, 19999) i;
ANALYZE wo_t;

-- where each clause runs: an OR of native atoms is one native clause; an OR
-- with an atom the scan cannot evaluate stays the executor's, whole
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE g = 1 OR g = 7$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE (host = 'h1' OR host IS NULL) AND (f < 2 OR f > 18)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE NOT (g < 3 OR g IN (5, 6)) AND NOT flag$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE g = 1 OR upper(host) = 'H' || (2 + 0 * g)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE (g = 1 OR g = 2) AND upper(host) = 'H' || (2 + 0 * g)$$)
) v(q);

-- the answers, against the ordinary plan, on the host's rows
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = 1 OR g = 7$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = 1 OR g = 7 GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g < 2 OR g > 8 OR g IS NULL GROUP BY g$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE f < 2 OR f > 18$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE f = 'NaN' OR f = '-Infinity' OR f IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT (f < 5 OR f >= 'Infinity')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (host = 'h1' OR host IS NULL) AND (f < 2 OR f > 18)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE host IN ('h1', 'h2') OR flag$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT flag OR flag IS NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT (g < 3 OR g IN (5, 6)) AND NOT flag$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT (g IN (1, NULL)) OR host = 'h3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g IN (1, NULL) OR g NOT IN (2, NULL) OR f = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = ANY('{}'::int[]) OR f = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g <> ALL('{}'::int[]) OR f = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = NULL::int OR f = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE ts < '2024-01-02' OR ts >= '2024-01-14'$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t
       WHERE ts < '2024-01-02' OR ts >= '2024-01-14' GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (g = 1 OR g = 2) AND upper(host) = 'H' || (2 + 0 * g) GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;

-- with workers: each process evaluates the OR itself on its share of the pages
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT bool_or(line ~ 'Gather') AS gather, string_agg(btrim(line), ' ') FILTER (WHERE line ~ 'Filter Evaluation') AS filter
FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE g < 2 OR f > 18 OR host IS NULL GROUP BY g$$) line;
SELECT q, c.* FROM (VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g < 2 OR f > 18 OR host IS NULL GROUP BY g$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t
       WHERE (ts < '2024-01-02' OR ts >= '2024-01-12') AND (flag OR g = 4) GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- a generic plan's parameters inside an OR: arrays with NULLs, empty, NULL
PREPARE wo_p(int[], text) AS
SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = ANY($1) OR host = $2;
SET plan_cache_mode = force_generic_plan;
SELECT a, c.* FROM (VALUES ('EXECUTE wo_p(''{1,2}'', ''h3'')'), ('EXECUTE wo_p(''{1,NULL}'', ''h3'')'),
                           ('EXECUTE wo_p(''{}'', ''h3'')'), ('EXECUTE wo_p(NULL, ''h3'')'),
                           ('EXECUTE wo_p(''{1}'', NULL)')) v(a), LATERAL rt_compare(a, false, NULL, false) c;
RESET plan_cache_mode;
DEALLOCATE wo_p;

-- an AND inside an OR: the clause is put in conjunctive form, (a AND b) OR
-- c being (a OR c) AND (b OR c), which passes the same rows under SQL's
-- three-valued logic; past 32 atoms so written it is the executor's
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE f BETWEEN 2 AND 4 OR f > 18$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE (g = 1 AND (x < 0.2 OR (f > 3 AND ts < '2024-01-05'))) OR host = 'h3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE (g = 1 AND f = 1) OR (g = 2 AND f = 2) OR (g = 3 AND f = 3)
         OR (g = 4 AND f = 4) OR (g = 5 AND f = 5) OR (g = 6 AND f = 6)$$)
) v(q);
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE f BETWEEN 2 AND 4 OR f > 18$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t
       WHERE (g = 1 AND (x < 0.2 OR (f > 3 AND ts < '2024-01-05'))) OR host = 'h3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t
       WHERE (ts >= '2024-01-02' AND ts < '2024-01-03') OR (ts >= '2024-01-09' AND ts < '2024-01-10')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT (g = 1 AND f < 5)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE NOT ((g = 1 OR g = 2) AND (f < 5 OR host = 'h1'))$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (x IS NULL AND g = 1) OR (f = 'NaN' AND flag IS NULL)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t
       WHERE (host = 'h1' AND g IN (1, 2, NULL)) OR (host = 'h2' AND g NOT IN (3, 4)) OR (f >= 'Infinity' AND NOT flag)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (g = 1 AND upper(host) = 'H1') OR g = 2$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (g = 1 AND f = 1) OR (g = 2 AND f = 2) OR (g = 3 AND f = 3)
         OR (g = 4 AND f = 4) OR (g = 5 AND f = 5) OR (g = 6 AND f = 6)$$)
) v(q), LATERAL rt_compare(q) c;

-- the page path: batches of all-visible pages parsed as the GPU parses them
VACUUM wo_t;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SET client_min_messages = debug1;
SELECT g, gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE g = 1 OR g = 7 GROUP BY g ORDER BY g;
RESET client_min_messages;
SELECT line FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM wo_t WHERE g = 1 OR g = 7 GROUP BY g$$, true) line
WHERE line ~ 'Filter Evaluation|Pages|Rows Removed';
SELECT q, c.* FROM (VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g = 1 OR g = 7 GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE g < 2 OR g > 8 OR g IS NULL GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE f = 'NaN' OR f = '-Infinity' OR f IS NULL GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE NOT (f < 5 OR f >= 'Infinity') GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE (host = 'h1' OR host IS NULL) AND (f < 2 OR f > 18) GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE host IN ('h1', 'h2') OR flag GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE NOT flag OR flag IS NULL GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE g IN (1, NULL) OR g NOT IN (2, NULL) OR f = 3 GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE g = ANY('{}'::int[]) OR f = 3 GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE g <> ALL('{}'::int[]) OR f = 3 GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t WHERE g = NULL::int OR f = 3 GROUP BY g$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t
       WHERE ts < '2024-01-02' OR ts >= '2024-01-14' GROUP BY 1$$),
    ($$SELECT date_trunc('hour', ts) AS t, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t
       WHERE (ts < '2024-01-02' OR ts >= '2024-01-13') AND (g = 3 OR host = 'h4') AND (f > 10 OR f IS NULL) GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE (g = 1 OR g = 2) AND upper(host) = 'H' || (2 + 0 * g) GROUP BY g$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t WHERE f BETWEEN 2 AND 4 OR f > 18 GROUP BY g$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM wo_t
       WHERE (ts >= '2024-01-02' AND ts < '2024-01-03') OR (ts >= '2024-01-09' AND ts < '2024-01-10' AND g IN (1, 2)) GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wo_t
       WHERE ts < '2024-01-06' AND (g = 1 OR g = 2 OR g = 3 OR f = 4 OR f = 5 OR f = 6 OR host = 'h1') GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;
-- a clause past the GPU's six comparisons is the host's: the GPU leaves
-- pages by the time range, and hands the host those with rows in it
SET client_min_messages = debug1;
SELECT g, gpu_histogram(x, 0, 1, 8) FROM wo_t
WHERE ts < '2024-01-06' AND (g = 1 OR g = 2 OR g = 3 OR f = 4 OR f = 5 OR f = 6 OR host = 'h1') AND g = 2 GROUP BY g;
RESET client_min_messages;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;

DROP TABLE wo_t;
RESET gpu_histogram.device;
RESET TimeZone;
