--
-- nulls_empty: rows with a NULL argument are skipped (width_bucket is
-- STRICT: it returns NULL for them, and NULL is no bucket); a group without
-- a row left, or an empty input, gives NULL.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS ne_t, ne_empty;
RESET client_min_messages;

-- NULL values are skipped.
SELECT gpu_histogram(x, 0, 1, 2) FROM (VALUES (0.25::float8), (NULL), (0.75), (NULL)) v(x);
SELECT gpu_histogram(x, 0, 1, 2) FROM (VALUES (NULL::float8), (0.25), (0.75)) v(x);
-- NULL lo, hi or nbins: the row is skipped, even where the other
-- arguments would be an error (width_bucket returns NULL there too).
SELECT gpu_histogram(x, lo, hi, n)
FROM (VALUES (0.25::float8, 0::float8, 1::float8, 2),
             (0.25, NULL, 1, 2), (0.25, 0, NULL, 2), (0.25, 0, 1, NULL),
             (0.75, 0, 1, 2),
             ('NaN', NULL, 1, 2), (0.5, 1, NULL, 0), (0.5, NULL, 'Infinity', 2), (0.5, 5, 5, NULL),
             (0.5, NULL, 2, 3) /* a different spec, but skipped */) v(x, lo, hi, n);
SELECT width_bucket(x, lo, hi, n)
FROM (VALUES ('NaN'::float8, NULL::float8, 1::float8, 2), (0.5, 1, NULL, 0), (0.5, NULL, 'Infinity', 2),
             (0.5, 5, 5, NULL)) v(x, lo, hi, n);
-- a NULL value with invalid bounds is no error either
SELECT gpu_histogram(NULL::float8, 1, 1, 0), gpu_histogram(NULL::float8, 'NaN', 1, 2),
       width_bucket(NULL::float8, 1, 1, 0), width_bucket(NULL::float8, 'NaN', 1, 2);
-- rows skipped for a NULL argument do not fix the group's spec
SELECT gpu_histogram(x, lo, 1, 2)
FROM (VALUES (1, NULL::float8, 0::float8), (2, 0.5, NULL), (3, 0.5, 0), (4, 0.9, 0)) v(i, x, lo);

-- Only NULLs, or nothing: NULL (not an array of zeros).
SELECT gpu_histogram(x, 0, 1, 2) IS NULL AS all_null FROM (VALUES (NULL::float8), (NULL)) v(x);
SELECT gpu_histogram(x, lo, 1, 2) IS NULL AS all_skipped
FROM (VALUES (0.5::float8, NULL::float8), (0.5, NULL)) v(x, lo);
SELECT gpu_histogram(x, 0, 1, 2) IS NULL AS no_rows FROM (VALUES (0.5::float8)) v(x) WHERE false;
SELECT gpu_histogram(x, 0, 1, 2) IS NULL AS no_rows FROM generate_series(1, 0) x;
SELECT coalesce(gpu_histogram(x, 0, 1, 2), '{0,0,0,0}') AS zeros FROM (VALUES (NULL::float8)) v(x);

CREATE TABLE ne_empty(x float8, lo float8, hi float8, n integer);
SELECT gpu_histogram(x, 0, 1, 10) IS NULL AS empty_table FROM ne_empty;
SELECT gpu_histogram(x, lo, hi, n) IS NULL AS empty_table FROM ne_empty;
SELECT count(*) AS groups FROM (SELECT gpu_histogram(x, 0, 1, 10) FROM ne_empty GROUP BY lo) s;
SELECT gpu_histogram_merge(h) IS NULL AS empty_merge
FROM (SELECT gpu_histogram(x, 0, 1, 10) h FROM ne_empty) s;

-- A table with NULLs in every column: per group, the histogram of the rows
-- without NULLs equals width_bucket's; groups with none give NULL.
SELECT setseed(0.125);
CREATE TABLE ne_t AS
SELECT i, i % 1000 AS g,
       CASE WHEN random() < 0.2 THEN NULL ELSE random() * 12 - 1 END AS x,
       CASE WHEN random() < 0.05 THEN NULL ELSE 0::float8 END AS lo,
       CASE WHEN random() < 0.05 THEN NULL ELSE 10::float8 END AS hi,
       CASE WHEN random() < 0.05 THEN NULL ELSE 7 END AS n
FROM generate_series(1, 200000) i;
-- groups 0 .. 9 have only NULL values
UPDATE ne_t SET x = NULL WHERE g < 10;
-- groups 10 .. 19 have a NULL bound in every row
UPDATE ne_t SET lo = NULL WHERE g BETWEEN 10 AND 19;
SELECT count(*) FILTER (WHERE x IS NULL) AS null_x,
       count(*) FILTER (WHERE x IS NOT NULL AND lo IS NOT NULL AND hi IS NOT NULL AND n IS NOT NULL) AS complete
FROM ne_t;

WITH got AS (
    SELECT g, gpu_histogram(x, lo, hi, n) AS h FROM ne_t GROUP BY g
), ref AS (
    SELECT g, CASE WHEN count(w.c) > 0 THEN array_agg(coalesce(w.c, 0) ORDER BY b) END AS h
    FROM generate_series(0, 999) g CROSS JOIN generate_series(0, 8) b
    LEFT JOIN (SELECT g, width_bucket(x, lo, hi, n) AS b, count(*) AS c FROM ne_t GROUP BY 1, 2) w
    USING (g, b)
    GROUP BY g
)
SELECT count(*) AS groups, count(got.h) AS non_null, count(*) FILTER (WHERE got.h IS NULL AND g < 20) AS null_0_19,
       count(*) FILTER (WHERE got.h IS DISTINCT FROM ref.h) AS mismatches
FROM got FULL JOIN ref USING (g);
-- the whole table, and by sorted grouping
SELECT gpu_histogram(x, lo, hi, n)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 8) b
          LEFT JOIN (SELECT width_bucket(x, lo, hi, n) AS b, count(*) AS c FROM ne_t GROUP BY 1) w USING (b)) AS equal
FROM ne_t;
SET enable_hashagg = off;
SELECT count(*) AS groups, count(h) AS non_null
FROM (SELECT g, gpu_histogram(x, lo, hi, n) AS h FROM ne_t GROUP BY g) s;
RESET enable_hashagg;

-- An empty histogram is not NULL: bins that no value fell in are zeros.
SELECT gpu_histogram(x, 0, 1, 3) FROM (VALUES (5::float8)) v(x);

DROP TABLE ne_t, ne_empty;
