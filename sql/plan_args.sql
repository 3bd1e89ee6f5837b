--
-- plan_args: an argument of gpu_histogram other than the value that does
-- not depend on the row (no column, nothing volatile) but that the planner
-- cannot fold to a constant is evaluated once per query, as an InitPlan
-- (extension/plan_args.cpp).  The answers must be those of the ordinary
-- per-row evaluation, which PostgreSQL's width_bucket over the same
-- expression gives, GROUP BY; EXPLAIN shows which arguments moved.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS pa_t, pa_edges, pa_empty;
DROP SCHEMA IF EXISTS pa_other CASCADE;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- GpuHistogramScan computes most of these queries, and EXPLAIN names its
-- device: the same line on every host (the GPU checks run with device = gpu)
SET gpu_histogram.device = cpu;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
CREATE TABLE pa_t AS
SELECT i, CASE WHEN i % 101 = 0 THEN NULL
               ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 120 - 10 END AS x,
       date '2024-01-01' + (i % 400) - 20 AS d
FROM generate_series(1, 20000) i;
-- 41 numeric thresholds 0, 2.5, ..., 100 (not float8: a cast is needed)
CREATE TABLE pa_edges AS SELECT (i * 2.5)::numeric AS v FROM generate_series(0, 40) i;
CREATE TABLE pa_empty (x float8);
ANALYZE pa_t, pa_edges, pa_empty;

-- The issue's case: thresholds computed by a cast over a sub-select.  The
-- cast moves into an InitPlan of its own (a Result over the sub-select's
-- InitPlan), and the counts are width_bucket's over the same expression.
\set edges '(SELECT array_agg(v ORDER BY v) FROM pa_edges)::float8[]'
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, :edges) FROM pa_t;
SELECT gpu_histogram(x, :edges) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 41) b
                                   LEFT JOIN (SELECT width_bucket(x, :edges) AS b, count(*) AS c
                                              FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b))
       AS same_as_width_bucket,
       (SELECT sum(c) FROM unnest(gpu_histogram(x, :edges)) c) = count(x) AS sum_is_count
FROM pa_t;
-- the same with integer thresholds, and with the implicit cast of numeric[]
\set int_edges '(SELECT array_agg(v::integer ORDER BY v) FROM pa_edges)::float8[]'
SELECT gpu_histogram(x, :int_edges) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 41) b
                                       LEFT JOIN (SELECT width_bucket(x, :int_edges) AS b, count(*) AS c
                                                  FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b))
       AS int_same_as_width_bucket,
       gpu_histogram(x, (SELECT array_agg(v ORDER BY v) FROM pa_edges)) = gpu_histogram(x, :edges) AS implicit_cast_same
FROM pa_t;
-- grouped: every group gets the same thresholds
SELECT count(*) AS groups,
       count(*) FILTER (WHERE g.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT i % 7 AS k, gpu_histogram(x, :edges) AS h FROM pa_t GROUP BY 1) g
JOIN (SELECT k, array_agg(coalesce(c, 0) ORDER BY b) AS h
      FROM generate_series(0, 6) k CROSS JOIN generate_series(0, 41) b
      LEFT JOIN (SELECT i % 7 AS k, width_bucket(x, :edges) AS b, count(*) AS c
                 FROM pa_t WHERE x IS NOT NULL GROUP BY 1, 2) w USING (k, b)
      GROUP BY k) r USING (k);

-- A stable function in lo, hi or nbins (to_number and to_date are stable):
-- each moves, the float8 form stays in the custom scan.
SELECT rt_explain($$SELECT gpu_histogram(x, 0, to_number('100', '999')::float8, 20) FROM pa_t$$);
SELECT gpu_histogram(x, 0, to_number('100', '999')::float8, 20)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 21) b
          LEFT JOIN (SELECT width_bucket(x, 0, to_number('100', '999')::float8, 20) AS b, count(*) AS c
                     FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b)) AS same_as_width_bucket
FROM pa_t;
EXPLAIN (COSTS OFF)
SELECT gpu_histogram(d, to_date('2024-01-01', 'YYYY-MM-DD'), to_date('2024-12-31', 'YYYY-MM-DD'), 12) FROM pa_t;
SELECT gpu_histogram(d, to_date('2024-01-01', 'YYYY-MM-DD'), to_date('2024-12-31', 'YYYY-MM-DD'), 12)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 13) b
          LEFT JOIN (SELECT width_bucket((d - date '2000-01-01')::numeric,
                                         (to_date('2024-01-01', 'YYYY-MM-DD') - date '2000-01-01')::numeric,
                                         (to_date('2024-12-31', 'YYYY-MM-DD') - date '2000-01-01')::numeric, 12) AS b,
                            count(*) AS c
                     FROM pa_t GROUP BY 1) w USING (b)) AS same_as_width_bucket
FROM pa_t;

-- What does not move: constants (also folded ones), a sub-select that is an
-- InitPlan already, a column, an outer reference, anything volatile, and
-- aggregates with DISTINCT or ORDER BY.
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, '{0,50,100}') FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, ARRAY[0, 50, 100]::float8[]), gpu_histogram(x, 0, 1e2::numeric, 2 + 3) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, (SELECT array_agg(v::float8) FROM pa_edges)) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, ARRAY(SELECT v::float8 FROM pa_edges ORDER BY v)) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, i % 3 + 100, 4) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 100 + 0 * random(), 4) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, (SELECT array_agg(v + 0 * random()::numeric ORDER BY v) FROM pa_edges)::float8[]) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(DISTINCT x, :edges) FROM pa_t;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, :edges ORDER BY x) FROM pa_t;
-- ... and they still count what width_bucket counts
SELECT gpu_histogram(x, 0, 100 + 0 * random(), 4)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 5) b
          LEFT JOIN (SELECT width_bucket(x, 0, 100, 4) AS b, count(*) AS c FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w
          USING (b)) AS volatile_same,
       gpu_histogram(DISTINCT x, :edges) = gpu_histogram(x, :edges) AS distinct_same  -- no x twice
FROM pa_t;
SELECT o.n, (SELECT gpu_histogram(x, 0, o.n * 50.0, 4) FROM pa_t)
            = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 5) b
               LEFT JOIN (SELECT width_bucket(x, 0, o.n * 50.0, 4) AS b, count(*) AS c
                          FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b)) AS outer_reference_same
FROM generate_series(1, 2) o(n);
SELECT rt_explain('SELECT o.n, (SELECT gpu_histogram(x, 0, o.n * 50.0, 4) FROM pa_t) FROM generate_series(1, 2) o(n)');
-- an aggregate named gpu_histogram that is not the extension's
CREATE SCHEMA pa_other;
CREATE FUNCTION pa_other.add_one(bigint, float8, float8[]) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE AGGREGATE pa_other.gpu_histogram(float8, float8[]) (SFUNC = pa_other.add_one, STYPE = bigint, INITCOND = '0');
EXPLAIN (COSTS OFF) SELECT pa_other.gpu_histogram(x, :edges) FROM pa_t;
SELECT pa_other.gpu_histogram(x, :edges) FROM pa_t;

-- Every query level: a sub-select in FROM, a CTE, a sub-link, the
-- branches of a UNION, and thresholds read from a CTE of an outer level
-- (one level further away once moved).
EXPLAIN (COSTS OFF)
WITH c AS MATERIALIZED (SELECT gpu_histogram(x, :edges) AS h FROM pa_t)
SELECT (SELECT h FROM c), s.h, (SELECT gpu_histogram(x, :edges) FROM pa_t)
FROM (SELECT gpu_histogram(x, :edges) AS h FROM pa_t) s
UNION ALL
SELECT NULL, NULL, gpu_histogram(x, :edges) FROM pa_t;
WITH c AS MATERIALIZED (SELECT gpu_histogram(x, :edges) AS h FROM pa_t)
SELECT count(DISTINCT h) AS distinct_results, count(*) AS results,
       bool_and(h = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 41) b
                     LEFT JOIN (SELECT width_bucket(x, :edges) AS b, count(*) AS c
                                FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b))) AS all_width_bucket
FROM (SELECT (SELECT h FROM c) AS h
      UNION ALL SELECT s.h FROM (SELECT gpu_histogram(x, :edges) AS h FROM pa_t) s
      UNION ALL SELECT (SELECT gpu_histogram(x, :edges) FROM pa_t)
      UNION ALL SELECT gpu_histogram(x, :edges) FROM pa_t) u;
EXPLAIN (COSTS OFF)
WITH e AS MATERIALIZED (SELECT array_agg(v ORDER BY v) AS a FROM pa_edges)
SELECT gpu_histogram(x, (SELECT a FROM e)::float8[]), (SELECT gpu_histogram(x, (SELECT a FROM e)::float8[]) FROM pa_t)
FROM pa_t;
WITH e AS (SELECT array_agg(v ORDER BY v) AS a FROM pa_edges)
SELECT gpu_histogram(x, (SELECT a FROM e)::float8[]) = gpu_histogram(x, :edges) AS outer_cte,
       (SELECT gpu_histogram(x, (SELECT a FROM e)::float8[]) FROM pa_t) = gpu_histogram(x, :edges) AS outer_cte_two_levels
FROM pa_t;

-- Prepared statements: a generic plan evaluates the cast of $1 once; a
-- custom plan folds $1 into a constant, as without the extension.
PREPARE pa_prep(numeric[]) AS SELECT gpu_histogram(x, $1::float8[]) FROM pa_t;
PREPARE pa_check(numeric[]) AS
SELECT gpu_histogram(x, $1::float8[])
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, cardinality($1)) b
          LEFT JOIN (SELECT width_bucket(x, $1::float8[]) AS b, count(*) AS c
                     FROM pa_t WHERE x IS NOT NULL GROUP BY 1) w USING (b)) AS same_as_width_bucket
FROM pa_t;
PREPARE pa_scan(integer) AS SELECT gpu_histogram(x, 0, $1::float8, 4) FROM pa_t;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE pa_prep('{0,25,50,75,100}');
EXECUTE pa_check('{0,25,50,75,100}');
EXECUTE pa_check('{-5,1.5,99}');
SELECT rt_explain('EXECUTE pa_scan(100)');
EXECUTE pa_scan(100);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE pa_prep('{0,25,50,75,100}');
EXECUTE pa_check('{0,25,50,75,100}');
SELECT rt_explain('EXECUTE pa_scan(100)');
EXECUTE pa_scan(100);
RESET plan_cache_mode;
DEALLOCATE pa_prep;
DEALLOCATE pa_check;
DEALLOCATE pa_scan;

-- An argument that fails fails the same way as width_bucket's per-row
-- evaluation: the same SQLSTATE and message.
\set bad '(SELECT array_agg(s ORDER BY s) FROM (VALUES (''1''), (''x'')) v(s))::float8[]'
SELECT try_sql('SELECT gpu_histogram(x, ' || :'bad' || ') FROM pa_t') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, ' || :'bad' || ')) FROM pa_t') AS width_bucket;
SELECT try_sql($$SELECT gpu_histogram(x, 0, 100 / (SELECT count(*) FROM pa_empty), 4) FROM pa_t$$) AS gpu_histogram,
       try_sql($$SELECT count(width_bucket(x, 0, 100 / (SELECT count(*) FROM pa_empty), 4)) FROM pa_t$$) AS width_bucket;
-- (width_bucket's own error: thresholds of two dimensions)
\set two_dims 'ARRAY[(SELECT array_agg(v ORDER BY v) FROM pa_edges)]::float8[]'
SELECT try_sql('SELECT gpu_histogram(x, ' || :'two_dims' || ') FROM pa_t') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, ' || :'two_dims' || ')) FROM pa_t') AS width_bucket;

-- No input rows: NULL, and the argument is never evaluated (so a failing
-- one fails nothing), as per row.
SELECT gpu_histogram(x, :edges) IS NULL AS empty_table FROM pa_empty;
SELECT gpu_histogram(x, :edges) IS NULL AS no_row_passes FROM pa_t WHERE i < 0;
SELECT count(*) AS groups FROM (SELECT i, gpu_histogram(x, :edges) FROM pa_t WHERE i < 0 GROUP BY i) s;
SELECT try_sql('SELECT gpu_histogram(x, ' || :'bad' || ') FROM pa_empty') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, ' || :'bad' || ')) FROM pa_empty') AS width_bucket;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT gpu_histogram(x, :edges) FROM pa_empty;
-- ... also in the custom scan, which evaluates lo, hi and nbins at the
-- first row that passes the WHERE clause
\set fails '100 / (SELECT count(*) FROM pa_empty)'
SELECT rt_explain('SELECT gpu_histogram(x, 0, ' || :'fails' || ', 4) FROM pa_t WHERE i < 0');
SELECT try_sql('SELECT gpu_histogram(x, 0, ' || :'fails' || ', 4) FROM pa_t WHERE i < 0') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, 0, ' || :'fails' || ', 4)) FROM pa_t WHERE i < 0') AS width_bucket;
SELECT try_sql('SELECT gpu_histogram(x, 0, ' || :'fails' || ', 4) FROM pa_empty') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, 0, ' || :'fails' || ', 4)) FROM pa_empty') AS width_bucket;
SELECT try_sql('SELECT gpu_histogram(x, 0, ' || :'fails' || ', 4) FROM pa_t WHERE i < 2') AS gpu_histogram,
       try_sql('SELECT count(width_bucket(x, 0, ' || :'fails' || ', 4)) FROM pa_t WHERE i < 2') AS width_bucket;

-- In parallel: the InitPlan's value reaches the workers (Params Evaluated),
-- and the parallel answer is the serial one.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, :edges) FROM pa_t;
SELECT gpu_histogram(x, :edges) = gpu_histogram(x, '{0,2.5,5,7.5,10,12.5,15,17.5,20,22.5,25,27.5,30,32.5,35,37.5,40,42.5,45,47.5,50,52.5,55,57.5,60,62.5,65,67.5,70,72.5,75,77.5,80,82.5,85,87.5,90,92.5,95,97.5,100}')
       AS parallel_same
FROM pa_t;
SELECT rt_explain($$SELECT gpu_histogram(x, 0, to_number('100', '999')::float8, 20) FROM pa_t$$);
SELECT gpu_histogram(x, 0, to_number('100', '999')::float8, 20) = gpu_histogram(x, 0, 100, 20) AS parallel_scan_same FROM pa_t;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- Where the extension is not created, the hook (still loaded) leaves every
-- aggregate alone, one named gpu_histogram too.
DROP EXTENSION gpu_histogram;
EXPLAIN (COSTS OFF) SELECT pa_other.gpu_histogram(x, :edges) FROM pa_t;
SELECT pa_other.gpu_histogram(x, :edges) FROM pa_t;
CREATE EXTENSION gpu_histogram;

DROP TABLE pa_t, pa_edges, pa_empty;
DROP SCHEMA pa_other CASCADE;
