--
-- buckets: gpu_histogram_buckets unrolls a histogram into one row per
-- element: the bucket number as width_bucket numbers it, the bucket's
-- bounds (lower < upper, ±infinity for the end buckets, mirrored when
-- lo > hi) and its count.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS bk_t, bk_specs;
RESET client_min_messages;

CREATE TABLE bk_t AS
SELECT i, (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 14 - 2 AS x
FROM generate_series(1, 100000) i;

-- Ascending: bucket 0 is (-inf, lo), bucket nbins + 1 is [hi, inf).
SELECT b.* FROM (SELECT gpu_histogram(x, 0, 10, 5) AS h FROM bk_t) s, gpu_histogram_buckets(s.h, 0, 10) b;
-- Descending: bucket 0 is above lo, bucket nbins + 1 is at or below hi;
-- lower < upper in every row still.
SELECT b.* FROM (SELECT gpu_histogram(x, 10, 0, 5) AS h FROM bk_t) s, gpu_histogram_buckets(s.h, 10, 0) b;
-- the counts are width_bucket's, row by row
SELECT b.bucket, b.count, w.c AS width_bucket_count
FROM (SELECT gpu_histogram(x, 10, 0, 5) AS h FROM bk_t) s, gpu_histogram_buckets(s.h, 10, 0) b
LEFT JOIN (SELECT width_bucket(x, 10, 0, 5) AS bucket, count(*) AS c FROM bk_t GROUP BY 1) w USING (bucket)
ORDER BY b.bucket;
-- both sum to the number of rows
SELECT (SELECT sum(count) FROM gpu_histogram_buckets(up, 0, 10)) AS sum_up,
       (SELECT sum(count) FROM gpu_histogram_buckets(down, 10, 0)) AS sum_down
FROM (SELECT gpu_histogram(x, 0, 10, 5) AS up, gpu_histogram(x, 10, 0, 5) AS down FROM bk_t) s;

-- Inexact edges, one bucket, negative ranges.
SELECT * FROM gpu_histogram_buckets('{1,2,3,4,5}', 0.1, 0.4);
SELECT * FROM gpu_histogram_buckets('{1,2,3,4,5}', 0.4, 0.1);
SELECT * FROM gpu_histogram_buckets('{7,8,9}', -1, -2);
-- any one-dimensional bigint[] of at least 3 elements, whatever its subscripts
SELECT * FROM gpu_histogram_buckets('[0:2]={1,2,3}', 0, 1);

-- Many specs, both orders, 1 to 10,000 buckets: for every spec,
--   rows = nbins + 2, numbered 0 .. nbins + 1, counts = the histogram's
--   elements = width_bucket's, sum = rows of bk_t;
--   lower < upper, the end buckets open to ±infinity, neighbours sharing
--   a bound (upper of one = lower of the next, in the numbering's
--   direction), lo and hi among the bounds;
--   width_bucket of each inner bucket's midpoint is its number.
SELECT setseed(0.875);
CREATE TABLE bk_specs AS
SELECT id, CASE WHEN id % 2 = 0 THEN hi ELSE lo END AS lo, CASE WHEN id % 2 = 0 THEN lo ELSE hi END AS hi, nbins
FROM (SELECT id, lo, lo + 0.001 + random() * 20 AS hi, nbins
      FROM (SELECT id, random() * 20 - 10 AS lo, 1 + floor(power(random(), 2) * 10000)::integer AS nbins
            FROM generate_series(1, 60) id) s) t;
WITH h AS (
    SELECT s.id, s.lo, s.hi, s.nbins, gpu_histogram(x, s.lo, s.hi, s.nbins) AS h
    FROM bk_specs s CROSS JOIN bk_t GROUP BY s.id, s.lo, s.hi, s.nbins
), b AS (
    SELECT h.id, h.lo, h.hi, h.nbins, b.*,
           lead(b.lower) OVER w AS next_lower, lead(b.upper) OVER w AS next_upper
    FROM h, gpu_histogram_buckets(h.h, h.lo, h.hi) b
    WINDOW w AS (PARTITION BY h.id ORDER BY b.bucket)
), wb AS (
    SELECT s.id, width_bucket(x, s.lo, s.hi, s.nbins) AS bucket, count(*) AS c
    FROM bk_specs s CROSS JOIN bk_t GROUP BY 1, 2
)
SELECT count(DISTINCT b.id) AS specs, count(*) FILTER (WHERE b.lo > b.hi) AS descending_rows, count(*) AS nrows,
       count(*) FILTER (WHERE b.count <> coalesce(wb.c, 0)) AS count_not_width_bucket,
       count(*) FILTER (WHERE NOT b.lower < b.upper) AS lower_not_below_upper,
       count(*) FILTER (WHERE b.bucket = 0 AND (b.lo < b.hi AND b.lower <> '-Infinity' OR b.lo > b.hi AND b.upper <> 'Infinity'))
       + count(*) FILTER (WHERE b.bucket = b.nbins + 1 AND (b.lo < b.hi AND b.upper <> 'Infinity' OR b.lo > b.hi AND b.lower <> '-Infinity'))
       AS open_ends_wrong,
       count(*) FILTER (WHERE b.bucket <= b.nbins AND (b.lo < b.hi AND b.upper <> b.next_lower OR b.lo > b.hi AND b.lower <> b.next_upper))
       AS neighbours_apart,
       count(*) FILTER (WHERE b.bucket = 0 AND (b.lo < b.hi AND b.upper <> b.lo OR b.lo > b.hi AND b.lower <> b.lo))
       + count(*) FILTER (WHERE b.bucket = b.nbins + 1 AND (b.lo < b.hi AND b.lower <> b.hi OR b.lo > b.hi AND b.upper <> b.hi))
       AS bounds_not_lo_hi,
       count(*) FILTER (WHERE b.bucket BETWEEN 1 AND b.nbins
                        AND width_bucket(b.lower / 2 + b.upper / 2, b.lo, b.hi, b.nbins) <> b.bucket) AS midpoint_elsewhere
FROM b LEFT JOIN wb USING (id, bucket);
SELECT count(*) AS specs,
       count(*) FILTER (WHERE (SELECT count(*) FROM gpu_histogram_buckets(h, lo, hi)) <> nbins + 2) AS wrong_rows,
       count(*) FILTER (WHERE (SELECT sum(count) FROM gpu_histogram_buckets(h, lo, hi)) <> 100000) AS wrong_sum,
       count(*) FILTER (WHERE (SELECT array_agg(count ORDER BY bucket) FROM gpu_histogram_buckets(h, lo, hi)) <> h)
       AS counts_not_elements,
       count(*) FILTER (WHERE (SELECT array_agg(bucket ORDER BY bucket) FROM gpu_histogram_buckets(h, lo, hi))
                              <> (SELECT array_agg(k) FROM generate_series(0, nbins + 1) k)) AS wrong_numbers
FROM (SELECT s.id, s.lo, s.hi, s.nbins, gpu_histogram(x, s.lo, s.hi, s.nbins) AS h
      FROM bk_specs s CROSS JOIN bk_t GROUP BY s.id, s.lo, s.hi, s.nbins) h;

-- Buckets of a histogram with the most buckets.
SELECT count(*) AS nrows, min(bucket), max(bucket), sum(count) AS total,
       count(*) FILTER (WHERE NOT lower < upper) AS lower_not_below_upper
FROM gpu_histogram_buckets((SELECT gpu_histogram(x, -2, 12, 10000000) FROM bk_t), -2, 12);

-- The unrolled counts re-aggregate to the histogram.
SELECT array_agg(count ORDER BY bucket) = h AS round_trip
FROM (SELECT gpu_histogram(x, 3, -1, 17) AS h FROM bk_t) s, gpu_histogram_buckets(s.h, 3, -1)
GROUP BY h;

DROP TABLE bk_t, bk_specs;
