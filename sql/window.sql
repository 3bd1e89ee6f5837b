--
-- window: gpu_histogram as a window aggregate over many kinds of frame,
-- against references that do not use it: correlated width_bucket
-- subqueries, and per-bucket count(*) FILTER (...) OVER the same window.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS win_t, win_big;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- 3,000 rows in 3 partitions; k has four peers per value.
CREATE TABLE win_t AS
SELECT i, i % 3 AS p, i / 4 AS k,
       (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.4 - 0.2 AS x
FROM generate_series(1, 3000) i;

-- width_bucket's histogram of the rows of win_t a condition selects, NULL
-- if there are none
CREATE OR REPLACE FUNCTION win_ref(cond text) RETURNS bigint[] LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    r bigint[];
BEGIN
    EXECUTE format($q$
        SELECT CASE WHEN count(w.c) > 0 THEN array_agg(coalesce(w.c, 0) ORDER BY b) END
        FROM generate_series(0, 6) b
        LEFT JOIN (SELECT width_bucket(x, 0, 1, 5) AS b, count(*) AS c FROM win_t t2 WHERE %s GROUP BY 1) w
        USING (b) $q$, cond) INTO r;
    RETURN r;
END
$fn$;

-- A small sliding window, shown.
SELECT i, x, gpu_histogram(x, 0, 1, 5) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS h
FROM win_t WHERE i <= 8 ORDER BY i;

-- ROWS BETWEEN 2 PRECEDING AND CURRENT ROW, per partition (rows of one
-- partition are 3 apart in i)
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM
           win_ref(format('t2.p = %s AND t2.i BETWEEN %s AND %s', p, i - 6, i))) AS mismatches
FROM (SELECT i, p, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS h
      FROM win_t) s;
-- running totals: the default frame (RANGE UNBOUNDED PRECEDING .. CURRENT
-- ROW), peers included
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM
           win_ref(format('t2.p = %s AND t2.k <= %s', p, k))) AS mismatches
FROM (SELECT p, k, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p ORDER BY k) AS h FROM win_t) s;
-- the same without PARTITION BY, lo > hi
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT k, gpu_histogram(x, 1, 0, 5) OVER (ORDER BY k) AS h FROM win_t) s,
     LATERAL (SELECT array_agg(coalesce(c, 0) ORDER BY b) AS r FROM generate_series(0, 6) b
              LEFT JOIN (SELECT width_bucket(x, 1, 0, 5) AS b, count(*) AS c FROM win_t t2 WHERE t2.k <= s.k GROUP BY 1) w
              USING (b)) r;
-- frames after the current row, empty at the end of a partition (NULL)
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS NULL) AS empty_frames,
       count(*) FILTER (WHERE h IS DISTINCT FROM
           win_ref(format('t2.p = %s AND t2.i BETWEEN %s AND %s', p, i + 3, i + 9))) AS mismatches
FROM (SELECT i, p, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p ORDER BY i ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS h
      FROM win_t) s;
-- GROUPS mode with EXCLUDE CURRENT ROW
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM
           win_ref(format('t2.p = %s AND t2.k BETWEEN %s AND %s AND t2.i <> %s', p, k - 1, k + 1, i))) AS mismatches
FROM (SELECT i, p, k, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING
                                                      EXCLUDE CURRENT ROW) AS h
      FROM win_t) s;
-- RANGE with an offset, ordered by the value itself
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM
           win_ref(format('t2.x >= %s::float8 - 0.05::float8 AND t2.x <= %s::float8 + 0.05::float8', x, x))) AS mismatches
FROM (SELECT x, gpu_histogram(x, 0, 1, 5) OVER (ORDER BY x RANGE BETWEEN 0.05 PRECEDING AND 0.05 FOLLOWING) AS h
      FROM win_t) s;
-- the whole partition, and FILTER inside the window aggregate
SELECT count(*) AS nrows,
       count(*) FILTER (WHERE h IS DISTINCT FROM win_ref(format('t2.p = %s', p))) AS mismatches,
       count(*) FILTER (WHERE hf IS DISTINCT FROM win_ref(format('t2.p = %s AND t2.i %% 2 = 0 AND t2.i <= %s', p, i)))
       AS mismatches_filter
FROM (SELECT i, p, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p) AS h,
             gpu_histogram(x, 0, 1, 5) FILTER (WHERE i % 2 = 0) OVER (PARTITION BY p ORDER BY i) AS hf
      FROM win_t) s;
-- the window aggregate summed again with gpu_histogram_merge over the
-- partitions equals the whole table
SELECT gpu_histogram_merge(h) = win_ref('true') AS merged
FROM (SELECT DISTINCT p, gpu_histogram(x, 0, 1, 5) OVER (PARTITION BY p) AS h FROM win_t) s;

-- 30,000 rows: running totals, and a sliding window of 101 rows, against
-- count(*) FILTER (WHERE width_bucket(...) = b) over the same window for
-- every bucket b.  The final function runs after every row (ORDER BY i),
-- or after every 9,000 rows, more than the engine's chunk (ORDER BY i / 9000).
CREATE TABLE win_big AS
SELECT i, x, width_bucket(x, 0, 1, 4) AS wb
FROM (SELECT i, (i * 0.7548776662466927::float8 - floor(i * 0.7548776662466927::float8)) * 1.2 - 0.1 AS x
      FROM generate_series(1, 30000) i) s;
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches, max(h[3]) AS max_bucket_2
FROM (SELECT gpu_histogram(x, 0, 1, 4) OVER w AS h,
             ARRAY[count(*) FILTER (WHERE wb = 0) OVER w, count(*) FILTER (WHERE wb = 1) OVER w,
                   count(*) FILTER (WHERE wb = 2) OVER w, count(*) FILTER (WHERE wb = 3) OVER w,
                   count(*) FILTER (WHERE wb = 4) OVER w, count(*) FILTER (WHERE wb = 5) OVER w] AS r
      FROM win_big WINDOW w AS (ORDER BY i)) s;
SELECT count(*) AS nrows, count(DISTINCT h) AS distinct_results, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT gpu_histogram(x, 0, 1, 4) OVER w AS h,
             ARRAY[count(*) FILTER (WHERE wb = 0) OVER w, count(*) FILTER (WHERE wb = 1) OVER w,
                   count(*) FILTER (WHERE wb = 2) OVER w, count(*) FILTER (WHERE wb = 3) OVER w,
                   count(*) FILTER (WHERE wb = 4) OVER w, count(*) FILTER (WHERE wb = 5) OVER w] AS r
      FROM win_big WINDOW w AS (ORDER BY i / 9000)) s;
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT gpu_histogram(x, 0, 1, 4) OVER w AS h,
             ARRAY[count(*) FILTER (WHERE wb = 0) OVER w, count(*) FILTER (WHERE wb = 1) OVER w,
                   count(*) FILTER (WHERE wb = 2) OVER w, count(*) FILTER (WHERE wb = 3) OVER w,
                   count(*) FILTER (WHERE wb = 4) OVER w, count(*) FILTER (WHERE wb = 5) OVER w] AS r
      FROM win_big WHERE i <= 10000 WINDOW w AS (ORDER BY i ROWS BETWEEN 100 PRECEDING AND CURRENT ROW)) s;
-- and backwards: the frame from the current row to the end
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT gpu_histogram(x, 0, 1, 4) OVER w AS h,
             ARRAY[count(*) FILTER (WHERE wb = 0) OVER w, count(*) FILTER (WHERE wb = 1) OVER w,
                   count(*) FILTER (WHERE wb = 2) OVER w, count(*) FILTER (WHERE wb = 3) OVER w,
                   count(*) FILTER (WHERE wb = 4) OVER w, count(*) FILTER (WHERE wb = 5) OVER w] AS r
      FROM win_big WINDOW w AS (ORDER BY i DESC)) s;

RESET max_parallel_workers_per_gather;
DROP TABLE win_t, win_big;
DROP FUNCTION win_ref(text);
