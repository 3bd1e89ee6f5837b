--
-- thresholds: gpu_histogram(value, thresholds float8[]) against the
-- server's own width_bucket(value, thresholds) on millions of rows: sorted,
-- unsorted, duplicate and NaN thresholds, an empty array, 100,000
-- thresholds; values on the thresholds, ±0, infinities, NaN and NULLs;
-- width_bucket's errors with their SQLSTATE; GROUP BY, parallel plans,
-- small GPU batches, thresholds that are not constants.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS th_t, th_sets, th_big;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- A histogram from a query that returns one bin number per row, as GROUP BY
-- width_bucket gives it, with the empty bins as zeros.
CREATE FUNCTION ref_hist(bins text, nslots integer) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
DECLARE
    r bigint[];
BEGIN
    EXECUTE format($q$SELECT array_agg(coalesce(w.c, 0) ORDER BY s.b) FROM generate_series(0, %s) s(b)
                      LEFT JOIN (SELECT b, count(*) AS c FROM (%s) q(b) WHERE b IS NOT NULL GROUP BY b) w
                      USING (b)$q$, nslots - 1, bins) INTO r;
    RETURN r;
END
$fn$;
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- Latency bins of 1, 2, 5 ... 100 ms: element k counts width_bucket k - 1.
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100}') FROM generate_series(0, 120) x;
SELECT width_bucket(x, '{1,2,5,10,20,50,100}'::float8[]) AS bin, count(*)
FROM generate_series(0, 120) x GROUP BY 1 ORDER BY 1;
-- an integer array literal is cast, as for width_bucket
SELECT gpu_histogram(x, ARRAY[1, 2, 5]) FROM generate_series(0, 10) x;

-- 2,000,000 values from -100 to 1,100, in ten groups, with NULLs, NaN,
-- both infinities and both zeros.
CREATE TABLE th_t AS
SELECT i, i % 10 AS g,
       CASE WHEN i % 100000 = 1 THEN NULL
            WHEN i % 100000 = 2 THEN 'NaN'
            WHEN i % 100000 = 3 THEN 'Infinity'
            WHEN i % 100000 = 4 THEN '-Infinity'
            WHEN i % 100000 = 5 THEN '-0'
            WHEN i % 100000 = 6 THEN '0'
            WHEN i % 7 = 0 THEN round((i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1200 - 100)
            ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1200 - 100 END AS x
FROM generate_series(1, 2000000) i;
ANALYZE th_t;

-- Threshold sets: sorted; with duplicates and both zeros; unsorted (the
-- server does not check: the result is whatever its binary search finds,
-- and gpu_histogram runs the same search); NaN thresholds (above every
-- value); none; one.
CREATE TABLE th_sets(id integer, t float8[]);
INSERT INTO th_sets VALUES
    (1, '{1,2,5,10,20,50,100,200,500,1000}'),
    (2, '{-0,0,0,1,1,1,100,100,1000.5}'),
    (3, '{500,1,100,5,1000,2,-50,20}'),
    (4, '{1,NaN,3,NaN}'),
    (5, '{-100,0,NaN}'),
    (6, '{}'),
    (7, '{0}'),
    (8, '{-Infinity,Infinity}');
SELECT id, t,
       (SELECT gpu_histogram(x, s.t) FROM th_t)
       = ref_hist(format('SELECT width_bucket(x, %L::float8[]) FROM th_t', s.t), cardinality(s.t) + 1)
       AS same_as_width_bucket
FROM th_sets s ORDER BY id;
SELECT id, (SELECT gpu_histogram(x, s.t) FROM th_t) AS hist FROM th_sets s WHERE id IN (1, 3, 4, 6) ORDER BY id;

-- Values on and next to the thresholds, zeros, infinities, NaN: next to
-- width_bucket on each.
SELECT x, gpu_histogram(x, '{-0,1,2,NaN}') AS hist, width_bucket(x, '{-0,1,2,NaN}'::float8[]) AS wb
FROM (VALUES ('-Infinity'::float8), (-1), ('-0'), (0), (0.9999999999999999), (1), (1.0000000000000002),
             (2), (3), ('Infinity'), ('NaN')) v(x)
GROUP BY x ORDER BY x;
-- NULL values and NULL arrays are skipped (width_bucket is strict)
SELECT gpu_histogram(x, t)
FROM (VALUES (1::float8, '{0,2}'::float8[]), (NULL, '{0,2}'), (5, NULL), (-1, '{0,2}')) v(x, t);
SELECT gpu_histogram(x, NULL::float8[]) IS NULL AS all_skipped FROM generate_series(1, 3) x;

-- 100,000 thresholds, from a scalar subquery (a parameter: not compared
-- row by row), in global memory on a GPU.  The subquery takes a slice, a
-- detoasted copy: the stored 800 kB array would be detoasted again by
-- width_bucket on every row.
CREATE TABLE th_big AS SELECT array_agg((k * 0.012 - 100)::float8 ORDER BY k) AS t FROM generate_series(1, 100000) k;
SELECT cardinality(t), pg_typeof(t) FROM th_big;
SELECT (SELECT gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) FROM th_t)
       = ref_hist('SELECT width_bucket(x, (SELECT t[1:100000] FROM th_big)) FROM th_t', 100001) AS same_as_width_bucket;
-- ... unsorted
UPDATE th_big SET t = (SELECT array_agg(e ORDER BY (k * 7919) % 100000) FROM unnest(t) WITH ORDINALITY u(e, k));
SELECT (SELECT gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) FROM th_t)
       = ref_hist('SELECT width_bucket(x, (SELECT t[1:100000] FROM th_big)) FROM th_t', 100001) AS same_as_width_bucket;
-- ... from a column, so compared on every row (the same on each)
SELECT gpu_histogram(x, b.t) = (SELECT array_agg(coalesce(c, 0) ORDER BY k) FROM generate_series(0, 100000) k
                                LEFT JOIN (SELECT width_bucket(x, b.t) AS k, count(*) AS c
                                           FROM th_t, th_big b WHERE i <= 1000 GROUP BY 1) w USING (k)) AS same
FROM th_t, th_big b WHERE i <= 1000;

-- Errors: width_bucket's, with its SQLSTATE and message, in its order.
SELECT t,
       try_sql(format('SELECT gpu_histogram(0.5::float8, %L::float8[])', t)) AS gpu_histogram,
       try_sql(format('SELECT gpu_histogram(0.5::float8, %L::float8[])', t))
       = try_sql(format('SELECT width_bucket(0.5::float8, %L::float8[])', t)) AS same_as_width_bucket
FROM (VALUES ('{{1,2},{3,4}}'), ('{1,NULL,3}'), ('{{1,NULL},{3,4}}'), ('{NULL}'), ('{{{0}}}')) v(t);
-- no error for an empty array (one bin holds everything) or NaN thresholds
SELECT gpu_histogram(0.5, '{}'), width_bucket(0.5, '{}'::float8[]),
       gpu_histogram(0.5, '{NaN}'), width_bucket(0.5, '{NaN}'::float8[]);
-- a NaN value is no error in this form: it is at or above every threshold
SELECT try_sql($$SELECT gpu_histogram('NaN'::float8, '{1,2}'::float8[])$$),
       try_sql($$SELECT width_bucket('NaN'::float8, '{1,2}'::float8[])$$);
-- thresholds that change within a group
SELECT try_sql($$SELECT gpu_histogram(x, t) FROM (VALUES (1::float8, '{0,2}'::float8[]), (1, '{0,3}')) v(x, t)$$);
SELECT try_sql($$SELECT gpu_histogram(x, t) FROM (VALUES (1::float8, '{0,2}'::float8[]), (1, '{0,2,3}')) v(x, t)$$);
-- ... and a later row's invalid array gets width_bucket's error
SELECT try_sql($$SELECT gpu_histogram(x, t) FROM (VALUES (1::float8, '{0,2}'::float8[]), (1, '{0,NULL}')) v(x, t)$$);
-- each group may have thresholds of its own
SELECT g, gpu_histogram(x, t)
FROM (VALUES (1, 1::float8, '{0,2}'::float8[]), (2, 1, '{0,0.5,3}'), (2, 2.5, '{0,0.5,3}')) v(g, x, t)
GROUP BY g ORDER BY g;
\set VERBOSITY sqlstate
SELECT gpu_histogram(1, '{{1,2},{3,4}}'::float8[]);
SELECT gpu_histogram(1, '{1,NULL}'::float8[]);
\set VERBOSITY default
SELECT gpu_histogram(1, '{1,NULL}'::float8[]);

-- GROUP BY, against width_bucket per group.
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h = ref_hist(format('SELECT width_bucket(x, ''{1,2,5,10,20,50,100,200,500,1000}''::float8[])
                                                   FROM th_t WHERE g = %s', g), 11)) AS same_as_width_bucket
FROM (SELECT g, gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS h FROM th_t GROUP BY g) s;

-- Parallel plans give the serial result: the aggregate's own partial states
-- (the scan off), then GpuHistogramScan's (scan_forms covers it too).
SET gpu_histogram.scan = off;
CREATE TEMP TABLE th_serial AS
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS lat,
       gpu_histogram(x, '{500,1,100,5,1000,2,-50,20}') AS unsorted,
       gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) AS big
FROM th_t;
CREATE TEMP TABLE th_serial_g AS
SELECT g, gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS h FROM th_t GROUP BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') FROM th_t;
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') = (SELECT lat FROM th_serial) AS lat,
       gpu_histogram(x, '{500,1,100,5,1000,2,-50,20}') = (SELECT unsorted FROM th_serial) AS unsorted,
       gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) = (SELECT big FROM th_serial) AS big
FROM th_t;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS h FROM th_t GROUP BY g) p
FULL JOIN th_serial_g s USING (g);
RESET gpu_histogram.scan;
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') = (SELECT lat FROM th_serial) AS lat,
       gpu_histogram(x, '{500,1,100,5,1000,2,-50,20}') = (SELECT unsorted FROM th_serial) AS unsorted,
       gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) = (SELECT big FROM th_serial) AS big
FROM th_t;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS h FROM th_t GROUP BY g) p
FULL JOIN th_serial_g s USING (g);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- Small batches (16,384 values): on a GPU, every group goes through many
-- device batches (run the suite with gpu_histogram.device = gpu).
SET gpu_histogram.batch_size = 16384;
SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') = (SELECT lat FROM th_serial) AS lat,
       gpu_histogram(x, '{500,1,100,5,1000,2,-50,20}') = (SELECT unsorted FROM th_serial) AS unsorted,
       gpu_histogram(x, (SELECT t[1:100000] FROM th_big)) = (SELECT big FROM th_serial) AS big
FROM th_t;
SELECT count(*) AS groups, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') AS h FROM th_t GROUP BY g) p
FULL JOIN th_serial_g s USING (g);
RESET gpu_histogram.batch_size;

-- As a window aggregate.
SELECT i, gpu_histogram(x, '{0,500}') OVER (ORDER BY i) FROM th_t WHERE i % 400000 = 17 ORDER BY i;

-- gpu_histogram_buckets: each bin's thresholds, the outer ones to ±Infinity.
SELECT * FROM gpu_histogram_buckets((SELECT gpu_histogram(x, '{1,2,5,10,20,50,100,200,500,1000}') FROM th_t),
                                    '{1,2,5,10,20,50,100,200,500,1000}'::float8[]);
SELECT * FROM gpu_histogram_buckets('{7}', '{}'::float8[]);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', '{1,2,3}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', '{{1},{2}}'::float8[])$$);

DROP TABLE th_t, th_sets, th_big, th_serial, th_serial_g;
DROP FUNCTION ref_hist(text, integer);
