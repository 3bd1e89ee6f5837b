--
-- equality: gpu_histogram against width_bucket on many rows: uniform and
-- skewed data, and 200 deterministic random (lo, hi, nbins) specs, half of
-- them with lo > hi.  Every check prints a count of rows and of mismatches.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS eq_data, eq_specs;
RESET client_min_messages;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- 1. Ten million values of a Weyl sequence (i * golden ratio, mod 1),
-- stretched over [-2, 12): uniform, no table needed.
SELECT count(*) AS nrows,
       gpu_histogram(x, 0, 10, 1000)
       = wb_hist('SELECT (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 14 - 2
                  FROM generate_series(1, 10000000) i', 0, 10, 1000) AS equal
FROM (SELECT (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 14 - 2
      FROM generate_series(1, 10000000) i) s(x);

-- 2. One million rows, five distributions.
SELECT setseed(0.25);
CREATE TABLE eq_data AS
SELECT i,
       random() AS u,                                       -- uniform [0, 1)
       power(random(), 4) AS p4,                            -- piled up near 0
       exp(20 * random() - 10) AS e,                        -- log-uniform, e^-10 .. e^10
       (random() + random() + random() + random() - 2) * 3 AS bell,
       floor(random() * 64) / 8 - 2 AS grid                 -- exact multiples of 1/8
FROM generate_series(1, 1000000) i;

SELECT count(*) AS nrows,
       gpu_histogram(u, 0, 1, 100) = wb_hist('SELECT u FROM eq_data', 0, 1, 100) AS u_up,
       gpu_histogram(u, 1, 0, 100) = wb_hist('SELECT u FROM eq_data', 1, 0, 100) AS u_down,
       gpu_histogram(u, 0.1, 0.7, 7) = wb_hist('SELECT u FROM eq_data', 0.1, 0.7, 7) AS u_up7,
       gpu_histogram(p4, 0, 1, 1000) = wb_hist('SELECT p4 FROM eq_data', 0, 1, 1000) AS p4_up,
       gpu_histogram(p4, 0.5, 1e-6, 333) = wb_hist('SELECT p4 FROM eq_data', 0.5, 1e-6, 333) AS p4_down,
       gpu_histogram(e, 0, 100, 50) = wb_hist('SELECT e FROM eq_data', 0, 100, 50) AS e_up,
       gpu_histogram(e, 20000, 1e-4, 4096) = wb_hist('SELECT e FROM eq_data', 20000, 1e-4, 4096) AS e_down
FROM eq_data;
SELECT count(*) AS nrows,
       gpu_histogram(bell, -6, 6, 24) = wb_hist('SELECT bell FROM eq_data', -6, 6, 24) AS bell_up,
       gpu_histogram(bell, 4, -4, 17) = wb_hist('SELECT bell FROM eq_data', 4, -4, 17) AS bell_down,
       -- the edges of these specs are exact multiples of 1/8: every value of
       -- grid sits on an edge
       gpu_histogram(grid, -2, 6, 64) = wb_hist('SELECT grid FROM eq_data', -2, 6, 64) AS grid_up,
       gpu_histogram(grid, 6, -2, 64) = wb_hist('SELECT grid FROM eq_data', 6, -2, 64) AS grid_down,
       gpu_histogram(grid, -1, 1, 16) = wb_hist('SELECT grid FROM eq_data', -1, 1, 16) AS grid_up16,
       gpu_histogram(grid, 1, -1, 16) = wb_hist('SELECT grid FROM eq_data', 1, -1, 16) AS grid_down16,
       -- decimal edges that are not exact in binary
       gpu_histogram(grid, -1.3, 4.1, 27) = wb_hist('SELECT grid FROM eq_data', -1.3, 4.1, 27) AS grid_dec_up,
       gpu_histogram(grid, 4.1, -1.3, 27) = wb_hist('SELECT grid FROM eq_data', 4.1, -1.3, 27) AS grid_dec_down
FROM eq_data;

-- 3. 200 (lo, hi, nbins) specs: widths from 1e-10 to 1e10, centres on
-- both sides of 0 up to 5e11 widths away (a few thousand ulps wide), nbins from 1 to 5000, lo > hi for the even ids; 50,000
-- values for each, a tenth of them below and a tenth above the range.
SELECT setseed(0.5);
CREATE TABLE eq_specs AS
SELECT id,
       CASE WHEN id % 2 = 0 THEN b ELSE a END AS lo,
       CASE WHEN id % 2 = 0 THEN a ELSE b END AS hi,
       nbins
FROM (SELECT id, r * w - w * (0.1 + random()) AS a, r * w + w * (0.1 + random()) AS b, nbins
      FROM (SELECT id,
                   power(10, 20 * random() - 10) AS w,
                   (random() - 0.5) * power(10, 12 * random()) AS r,   -- centre / width
                   1 + floor(power(random(), 3) * 5000)::integer AS nbins
            FROM generate_series(1, 200) id) s) t;
SELECT count(*) AS specs, count(*) FILTER (WHERE lo < hi) AS ascending,
       count(*) FILTER (WHERE lo > hi) AS descending,
       min(nbins) AS min_nbins, max(nbins) AS max_nbins,
       min(abs(hi - lo)) < 1e-8 AS narrow, max(abs(hi - lo)) > 1e8 AS wide
FROM eq_specs;

WITH d AS NOT MATERIALIZED (
    SELECT s.id, s.lo, s.hi, s.nbins, s.lo + (s.hi - s.lo) * (e.u * 1.25 - 0.125) AS x
    FROM eq_specs s CROSS JOIN eq_data e WHERE e.i <= 50000
), ref AS (
    SELECT s.id, array_agg(coalesce(w.c, 0) ORDER BY g.b) AS h
    FROM eq_specs s CROSS JOIN LATERAL generate_series(0, s.nbins + 1) g(b)
    LEFT JOIN (SELECT id, width_bucket(x, lo, hi, nbins) AS b, count(*) AS c FROM d GROUP BY 1, 2) w
           ON w.id = s.id AND w.b = g.b
    GROUP BY s.id
), got AS (
    SELECT id, gpu_histogram(x, lo, hi, nbins) AS h, count(*) AS nrows FROM d GROUP BY id
)
SELECT count(*) AS specs, sum(nrows) AS nrows,
       sum(h_below) AS below, sum(h_above) AS above,
       count(*) FILTER (WHERE ref.h IS DISTINCT FROM got.h) AS mismatches
FROM ref FULL JOIN got USING (id),
     LATERAL (SELECT got.h[1] AS h_below, got.h[array_upper(got.h, 1)] AS h_above) e;

-- 4. The same 200 specs, skewed data: p4 and bell squeezed into the range.
WITH d AS NOT MATERIALIZED (
    SELECT s.id, s.lo, s.hi, s.nbins, s.lo + (s.hi - s.lo) * CASE WHEN e.i % 2 = 0 THEN e.p4 ELSE e.bell / 5 + 0.5 END AS x
    FROM eq_specs s CROSS JOIN eq_data e WHERE e.i > 950000
), ref AS (
    SELECT s.id, array_agg(coalesce(w.c, 0) ORDER BY g.b) AS h
    FROM eq_specs s CROSS JOIN LATERAL generate_series(0, s.nbins + 1) g(b)
    LEFT JOIN (SELECT id, width_bucket(x, lo, hi, nbins) AS b, count(*) AS c FROM d GROUP BY 1, 2) w
           ON w.id = s.id AND w.b = g.b
    GROUP BY s.id
), got AS (
    SELECT id, gpu_histogram(x, lo, hi, nbins) AS h, count(*) AS nrows FROM d GROUP BY id
)
SELECT count(*) AS specs, sum(nrows) AS nrows,
       count(*) FILTER (WHERE ref.h IS DISTINCT FROM got.h) AS mismatches
FROM ref FULL JOIN got USING (id);

DROP TABLE eq_data, eq_specs;
