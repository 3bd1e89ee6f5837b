--
-- basic: the SQL interface on small inputs whose answers can be read off,
-- each also checked against PostgreSQL's width_bucket.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS basic_t;
RESET client_min_messages;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- What was installed.
SELECT extname, extversion FROM pg_extension WHERE extname = 'gpu_histogram';
SELECT aggfnoid::regprocedure, aggtransfn, aggfinalfn, aggcombinefn, aggserialfn,
       aggdeserialfn, aggfinalextra, aggfinalmodify, aggtranstype::regtype,
       aggmtransfn, aggminvtransfn, aggmfinalfn, aggmfinalmodify, aggmtranstype::regtype
FROM pg_aggregate WHERE aggfnoid::regprocedure::text LIKE 'gpu_histogram%' ORDER BY aggfnoid::regprocedure::text COLLATE "C";
SELECT p.oid::regprocedure, p.prokind, p.proparallel, p.provolatile, p.proisstrict
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public' AND p.proname LIKE 'gpu_histogram%' ORDER BY p.oid::regprocedure::text COLLATE "C";

-- -1 .. 11 in 5 buckets of [0, 10): -1 below, two per bucket, 10 and 11 above.
SELECT gpu_histogram(x, 0, 10, 5) FROM generate_series(-1, 11) x;
SELECT gpu_histogram(x, 0, 10, 5) = wb_hist('SELECT generate_series(-1, 11)', 0, 10, 5)
FROM generate_series(-1, 11) x;
-- subscripts 1 .. nbins + 2: element k is bucket k - 1
SELECT array_lower(h, 1), array_upper(h, 1), array_ndims(h), pg_typeof(h)
FROM (SELECT gpu_histogram(x, 0, 10, 5) h FROM generate_series(-1, 11) x) s;

-- lo > hi numbers the buckets from lo downwards: 11 is bucket 0 (above lo),
-- 10 and 9 are bucket 1, ..., 0 and -1 are bucket 6 (at or below hi).
SELECT x, width_bucket(x, 10, 0, 5) FROM generate_series(-1, 11) x ORDER BY x;
SELECT gpu_histogram(x, 10, 0, 5) FROM generate_series(-1, 11) x;
SELECT gpu_histogram(x, 10, 0, 5) = wb_hist('SELECT generate_series(-1, 11)', 10, 0, 5)
FROM generate_series(-1, 11) x;

-- An uneven example: 0.0, 0.25, ..., 3.0 in 4 buckets of [0.5, 2.5).
SELECT gpu_histogram(x / 4.0, 0.5, 2.5, 4) FROM generate_series(0, 12) x;
SELECT gpu_histogram(x / 4.0, 0.5, 2.5, 4)
       = wb_hist('SELECT generate_series(0, 12) / 4.0', 0.5, 2.5, 4)
FROM generate_series(0, 12) x;

-- One bucket; a single row.
SELECT gpu_histogram(x, 0, 1, 1) FROM (VALUES (-1.0), (0.0), (0.5), (1.0), (2.0)) v(x);
SELECT gpu_histogram(0.5, 0, 1, 3);
SELECT gpu_histogram(0.5, 1, 0, 3);

-- From a table.
CREATE TABLE basic_t AS SELECT i, (i * 37 % 101) / 10.0 AS x FROM generate_series(1, 1000) i;
SELECT gpu_histogram(x, 0, 10, 10) FROM basic_t;
SELECT gpu_histogram(x, 0, 10, 10) = wb_hist('SELECT x FROM basic_t', 0, 10, 10),
       gpu_histogram(x, 10, 0, 10) = wb_hist('SELECT x FROM basic_t', 10, 0, 10),
       gpu_histogram(x, 2.5, 7.25, 19) = wb_hist('SELECT x FROM basic_t', 2.5, 7.25, 19),
       gpu_histogram(x, 7.25, 2.5, 19) = wb_hist('SELECT x FROM basic_t', 7.25, 2.5, 19)
FROM basic_t;
-- the counts add up to the number of rows
SELECT (SELECT sum(c) FROM unnest(gpu_histogram(x, 3, 4, 7)) c) FROM basic_t;

-- The three functions together: merge two halves, then unroll.
SELECT b.*
FROM (SELECT gpu_histogram_merge(h) h
      FROM (SELECT gpu_histogram(x, 0, 10, 4) h FROM basic_t GROUP BY i % 2) p) m,
     gpu_histogram_buckets(m.h, 0, 10) b;

-- Prepared statements with lo, hi and nbins as parameters; more than five
-- executions, so that the generic plan is used too.
PREPARE basic_p(float8, float8, integer) AS
    SELECT gpu_histogram(x, $1, $2, $3) FROM basic_t;
EXECUTE basic_p(0, 10, 5);
EXECUTE basic_p(10, 0, 5);
EXECUTE basic_p(2, 3, 1);
EXECUTE basic_p(0, 10, 5);
EXECUTE basic_p(-1, 11, 3);
EXECUTE basic_p(11, -1, 3);
EXECUTE basic_p(0, 10, 5);
PREPARE basic_q(float8, float8, integer) AS
    SELECT gpu_histogram(x, $1, $2, $3)
           = wb_hist('SELECT x FROM basic_t', $1, $2, $3) FROM basic_t;
EXECUTE basic_q(0, 10, 5);
EXECUTE basic_q(10, 0, 5);
EXECUTE basic_q(0.1, 9.9, 98);
EXECUTE basic_q(9.9, 0.1, 98);
EXECUTE basic_q(-100, 100, 1000);
EXECUTE basic_q(5, 5.5, 3);
EXECUTE basic_q(5.5, 5, 3);
SET plan_cache_mode = force_generic_plan;
EXECUTE basic_q(1, 2, 7);
EXECUTE basic_q(2, 1, 7);
RESET plan_cache_mode;
-- parameters inside the aggregate's arguments of a GROUP BY query
PREPARE basic_g(integer) AS
    SELECT i % 3 AS g, gpu_histogram(x, 0, 10, $1) FROM basic_t GROUP BY 1 ORDER BY 1;
EXECUTE basic_g(2);
EXECUTE basic_g(4);
DEALLOCATE basic_p;
DEALLOCATE basic_q;
DEALLOCATE basic_g;

DROP TABLE basic_t;
