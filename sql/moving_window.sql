--
-- moving_window: gpu_histogram over window frames whose start moves.  There
-- PostgreSQL adds the rows that enter the frame (MSFUNC) and removes the
-- rows that leave it (MINVFUNC) instead of aggregating every frame again.
-- Every frame kind is compared with a reference built from PostgreSQL's own
-- width_bucket over the same window: array_agg(width_bucket(...)) OVER w,
-- turned into counts.  `binned` is how many values were binned (CPU and GPU
-- together): once per row on the moving path, once per row and frame on the
-- plain one.
--
SET max_parallel_workers_per_gather = 0;

-- The counts of bucket numbers 0 .. nbins + 1 in an array of width_bucket
-- results, or NULL if it holds no number: what gpu_histogram must return.
CREATE FUNCTION mw_counts(b integer[], nbins integer) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN count(e) > 0 THEN
        (SELECT array_agg((SELECT count(*) FROM unnest(b) AS e2 WHERE e2 = k) ORDER BY k)
         FROM generate_series(0, nbins + 1) AS k) END
    FROM unnest(b) AS e
$$;

-- Values binned by this backend so far.
CREATE FUNCTION mw_binned() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT values_cpu + values_gpu FROM gpu_histogram_stats()
$$;

-- The plain aggregate of version 1.0, without the moving functions: the
-- "before" that the moving path must agree with.
CREATE AGGREGATE mw_plain_histogram(float8, float8, float8, integer) (
    SFUNC = gpu_histogram_transfn, STYPE = internal, FINALFUNC = gpu_histogram_finalfn,
    FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY);

-- 2,000 rows in 4 partitions; k has three peers per value; NULLs every 7th
-- row and a run of 40 NULLs (frames with no value), infinities, values
-- outside [0, 1).
CREATE TABLE mw_t AS
SELECT i, i % 4 AS p, i / 3 AS k,
       CASE WHEN i % 7 = 0 OR i BETWEEN 1001 AND 1040 THEN NULL
            WHEN i % 101 = 0 THEN 'Infinity'::float8
            WHEN i % 103 = 0 THEN '-Infinity'::float8
            ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.4 - 0.2 END AS x
FROM generate_series(1, 2000) AS i;

-- Runs gpu_histogram(x, lo, hi, nbins) [agg_filter] OVER (win) on mw_t, and
-- array_agg(width_bucket(x, lo, hi, nbins)) [agg_filter] over the same window
-- (mismatches), then, not counted in binned, the same against the 1.0
-- aggregate (plain_mismatches).
CREATE FUNCTION mw_check(win text, lo float8 DEFAULT 0, hi float8 DEFAULT 1, nbins integer DEFAULT 5,
                         agg_filter text DEFAULT '', agg text DEFAULT 'gpu_histogram',
                         OUT nrows bigint, OUT null_frames bigint, OUT mismatches bigint, OUT binned bigint,
                         OUT plain_mismatches bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    before bigint := mw_binned();
BEGIN
    EXECUTE format($q$
        SELECT count(*), count(*) FILTER (WHERE h IS NULL), count(*) FILTER (WHERE h IS DISTINCT FROM mw_counts(r, %3$s))
        FROM (SELECT %6$s(x, %1$s, %2$s, %3$s) %5$s OVER w AS h,
                     array_agg(width_bucket(x, %1$s, %2$s, %3$s)) %5$s OVER w AS r
              FROM mw_t WINDOW w AS (%4$s)) s $q$, lo, hi, nbins, win, agg_filter, agg)
        INTO nrows, null_frames, mismatches;
    binned := mw_binned() - before;
    EXECUTE format($q$
        SELECT count(*) FILTER (WHERE h IS DISTINCT FROM p)
        FROM (SELECT %5$s(x, %1$s, %2$s, %3$s) %4$s OVER w AS h,
                     mw_plain_histogram(x, %1$s, %2$s, %3$s) %4$s OVER w AS p
              FROM mw_t WINDOW w AS (%6$s)) s $q$, lo, hi, nbins, agg_filter, agg, win)
        INTO plain_mismatches;
END
$fn$;

-- A small sliding window, shown: NULL rows are skipped on the way in and on
-- the way out, and a frame of NULLs only gives NULL.
SELECT i, x, gpu_histogram(x, 0, 1, 5) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS h
FROM (VALUES (1, 0.1), (2, NULL), (3, 0.5), (4, NULL), (5, NULL), (6, NULL), (7, 0.9), (8, 2), (9, -1)) AS v(i, x)
ORDER BY i;

-- Every kind of frame.  The moving path is taken when the frame start can
-- move; with EXCLUDE, PostgreSQL aggregates every frame afresh through it;
-- with UNBOUNDED PRECEDING it uses the plain transition function.
SELECT win, c.*
FROM (VALUES
    ('ORDER BY i ROWS BETWEEN 3 PRECEDING AND CURRENT ROW'),
    ('PARTITION BY p ORDER BY i ROWS BETWEEN 5 PRECEDING AND 2 PRECEDING'),
    ('ORDER BY i ROWS BETWEEN 2 FOLLOWING AND 6 FOLLOWING'),
    ('ORDER BY i DESC ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING'),
    ('PARTITION BY p ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING'),
    ('ORDER BY i ROWS BETWEEN CURRENT ROW AND CURRENT ROW'),
    ('ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING'),
    ('PARTITION BY p ORDER BY k RANGE BETWEEN CURRENT ROW AND 4 FOLLOWING'),
    ('ORDER BY x RANGE BETWEEN 0.05 PRECEDING AND 0.05 FOLLOWING'),
    ('ORDER BY x DESC RANGE BETWEEN 0.1 PRECEDING AND CURRENT ROW'),
    ('PARTITION BY p ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING'),
    ('ORDER BY k GROUPS BETWEEN 3 PRECEDING AND 1 PRECEDING'),
    ('ORDER BY k GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW'),
    ('ORDER BY k ROWS BETWEEN 4 PRECEDING AND 4 FOLLOWING EXCLUDE GROUP'),
    ('PARTITION BY p ORDER BY k RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING EXCLUDE TIES'),
    ('ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE NO OTHERS'),
    ('ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'),
    ('PARTITION BY p ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW'),
    ('PARTITION BY p ORDER BY k'),
    ('PARTITION BY p')) AS v(win), LATERAL mw_check(win) AS c;

-- Descending bounds, more buckets, and FILTER, which the moving path must
-- also skip on the way out.
SELECT * FROM mw_check('PARTITION BY p ORDER BY i ROWS BETWEEN 6 PRECEDING AND CURRENT ROW', 1.1, -0.1, 9);
SELECT * FROM mw_check('ORDER BY i ROWS BETWEEN 20 PRECEDING AND 5 FOLLOWING', -0.1, 1.1, 40);
SELECT * FROM mw_check('ORDER BY k GROUPS BETWEEN 4 PRECEDING AND CURRENT ROW', 0, 1, 5, 'FILTER (WHERE i % 3 <> 0)');

-- The same sliding window through the 1.0 aggregate: the same answer,
-- each frame binned again (about four values a row instead of one).
SELECT * FROM mw_check('ORDER BY i ROWS BETWEEN 3 PRECEDING AND CURRENT ROW', agg => 'mw_plain_histogram');
SELECT count(*) AS nrows, count(*) FILTER (WHERE a IS DISTINCT FROM b) AS mismatches
FROM (SELECT gpu_histogram(x, 0, 1, 5) OVER w AS a, mw_plain_histogram(x, 0, 1, 5) OVER w AS b
      FROM mw_t WINDOW w AS (ORDER BY k GROUPS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE TIES)) s;

-- Bounds that change within a frame: the error of the plain aggregate.
SELECT i, gpu_histogram(x, 0, hi, 5) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (VALUES (1, 0.5, 1), (2, 0.5, 1), (3, 0.5, 2)) AS v(i, x, hi);
SELECT i, mw_plain_histogram(x, 0, hi, 5) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (VALUES (1, 0.5, 1), (2, 0.5, 1), (3, 0.5, 2)) AS v(i, x, hi);
-- Bounds that change once the earlier values have left the frame (a NULL
-- row keeps the state alive): the new frame takes the new bounds, as the
-- plain aggregate does.
SELECT i, gpu_histogram(x, 0, hi, 5) OVER w AS h, mw_plain_histogram(x, 0, hi, 5) OVER w AS plain,
       array_agg(width_bucket(x, 0, hi, 5)) OVER w AS buckets
FROM (VALUES (1, 0.5, 1), (2, NULL, 1), (3, 0.5, 2), (4, 1.5, 2)) AS v(i, x, hi)
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
ORDER BY i;
-- NaN raises width_bucket's error on the moving path too.
SELECT gpu_histogram(x, 0, 1, 5) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (VALUES (1, 0.5), (2, 'NaN'::float8)) AS v(i, x);
SELECT width_bucket('NaN'::float8, 0, 1, 5);
-- Invalid bounds on the first row of a frame: width_bucket's errors.
SELECT gpu_histogram(x, 1, 1, 5) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (VALUES (0.5)) AS v(x);
SELECT gpu_histogram(x, 0, 1, 0) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (VALUES (0.5)) AS v(x);

-- 100,000 rows, a sliding window of 1,001 rows: each value is binned once,
-- and the frames hold what count(*) FILTER over the same window counts.
CREATE TABLE mw_big AS
SELECT i, x, width_bucket(x, 0, 1, 4) AS wb
FROM (SELECT i, (i * 0.7548776662466927::float8 - floor(i * 0.7548776662466927::float8)) * 1.2 - 0.1 AS x
      FROM generate_series(1, 100000) AS i) s;
SELECT mw_binned() AS before \gset
SELECT count(*) AS nrows, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches, max(h[1] + h[6]) AS max_outside
FROM (SELECT gpu_histogram(x, 0, 1, 4) OVER w AS h,
             ARRAY[count(*) FILTER (WHERE wb = 0) OVER w, count(*) FILTER (WHERE wb = 1) OVER w,
                   count(*) FILTER (WHERE wb = 2) OVER w, count(*) FILTER (WHERE wb = 3) OVER w,
                   count(*) FILTER (WHERE wb = 4) OVER w, count(*) FILTER (WHERE wb = 5) OVER w] AS r
      FROM mw_big WINDOW w AS (ORDER BY i ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW)) s;
SELECT mw_binned() - :before AS binned;

RESET max_parallel_workers_per_gather;
DROP TABLE mw_t, mw_big;
DROP FUNCTION mw_check, mw_counts, mw_binned;
DROP AGGREGATE mw_plain_histogram(float8, float8, float8, integer);
