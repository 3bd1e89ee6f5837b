--
-- grouping: GROUP BY with 100,000 groups (hashed, sorted, and hashed with
-- spilling to disk), each group with a spec of its own, against
-- width_bucket per group; FILTER, DISTINCT, ORDER BY inside the aggregate,
-- grouping sets, HAVING, several aggregates sharing one transition state.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS grp_t, grp_ref;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- 1,000,000 rows in 100,000 groups of 10; group g has its own lo, hi and
-- nbins (1 .. 9), lo > hi in every third group.
SELECT setseed(0.625);
CREATE TABLE grp_t AS
SELECT i, g,
       CASE WHEN g % 3 = 2 THEN b ELSE a END AS lo,
       CASE WHEN g % 3 = 2 THEN a ELSE b END AS hi,
       1 + g % 9 AS n,
       -- a value in or near the group's range, or exactly on one of its edges
       CASE WHEN i % 4 = 0 THEN a + (b - a) * ((i / 4) % 10) / (1 + g % 9)
            ELSE a - 0.5 + random() * (b - a + 1) END AS x
FROM generate_series(0, 999999) i,
     LATERAL (SELECT i % 100000 AS g) s1,
     LATERAL (SELECT (g % 7) - 3.5::float8 AS a, (g % 7) - 3.5 + 0.5 + (g % 5) AS b) s2;
ANALYZE grp_t;

-- The reference, per group, from width_bucket.
CREATE TABLE grp_ref AS
SELECT s.g, array_agg(coalesce(w.c, 0) ORDER BY b.b) AS h
FROM (SELECT DISTINCT g, n FROM grp_t) s
CROSS JOIN LATERAL generate_series(0, s.n + 1) b(b)
LEFT JOIN (SELECT g, width_bucket(x, lo, hi, n) AS b, count(*) AS c FROM grp_t GROUP BY 1, 2) w
       ON w.g = s.g AND w.b = b.b
GROUP BY s.g;
SELECT count(*) AS groups, sum(cardinality(h)) AS elements, sum(h[1]) AS below,
       (SELECT count(*) FROM grp_t WHERE lo > hi) AS descending_rows FROM grp_ref;

-- hashed, all groups in memory
SET work_mem = '256MB';
EXPLAIN (COSTS OFF) SELECT g, gpu_histogram(x, lo, hi, n) FROM grp_t GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, lo, hi, n) AS h FROM grp_t GROUP BY g) a FULL JOIN grp_ref r USING (g);
RESET work_mem;
-- sorted
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, gpu_histogram(x, lo, hi, n) FROM grp_t GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, lo, hi, n) AS h FROM grp_t GROUP BY g) a FULL JOIN grp_ref r USING (g);
RESET enable_hashagg;
-- hashed, with too little work_mem: the hash table spills to disk (in over
-- a hundred batches)
SET work_mem = '256kB';
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, gpu_histogram(x, lo, hi, n) FROM grp_t GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, lo, hi, n) AS h FROM grp_t GROUP BY g) a FULL JOIN grp_ref r USING (g);
RESET enable_sort;
RESET work_mem;

-- FILTER: the histogram of the rows that pass, per group and overall.
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM r.h) AS mismatches,
       count(*) FILTER (WHERE a.h IS NULL) AS null_groups
FROM (SELECT g, gpu_histogram(x, lo, hi, n) FILTER (WHERE i % 3 = 0 AND g % 10 <> 0) AS h
      FROM grp_t GROUP BY g) a
FULL JOIN (SELECT s.g, CASE WHEN count(w.c) > 0 THEN array_agg(coalesce(w.c, 0) ORDER BY b.b) END AS h
           FROM (SELECT DISTINCT g, n FROM grp_t) s
           CROSS JOIN LATERAL generate_series(0, s.n + 1) b(b)
           LEFT JOIN (SELECT g, width_bucket(x, lo, hi, n) AS b, count(*) AS c FROM grp_t
                      WHERE i % 3 = 0 AND g % 10 <> 0 GROUP BY 1, 2) w
                  ON w.g = s.g AND w.b = b.b
           GROUP BY s.g) r USING (g);
SELECT gpu_histogram(x, 0, 1, 4) FILTER (WHERE x >= 0.5) AS upper_half,
       gpu_histogram(x, 0, 1, 4) FILTER (WHERE x < 0.5) AS lower_half,
       gpu_histogram(x, 0, 1, 4) FILTER (WHERE x > 100) IS NULL AS none,
       gpu_histogram(x, 0, 1, 4) AS all_rows
FROM (VALUES (0.1::float8), (0.3), (0.6), (0.7), (0.8), (1.2)) v(x);

-- DISTINCT and ORDER BY inside the aggregate.
SELECT gpu_histogram(DISTINCT x, 0, 1, 4) AS distinct_values,
       gpu_histogram(x, 0, 1, 4 ORDER BY x DESC) AS ordered
FROM (VALUES (0.1::float8), (0.1), (0.1), (0.6), (0.6), (2)) v(x);
SELECT gpu_histogram(DISTINCT x, -1, 1, 8)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 9) b
          LEFT JOIN (SELECT width_bucket(x, -1, 1, 8) AS b, count(*) AS c
                     FROM (SELECT DISTINCT x FROM grp_t WHERE g < 1000) d GROUP BY 1) w USING (b)) AS equal
FROM grp_t WHERE g < 1000;

-- Grouping sets: the per-group histograms and the total in one query.
SELECT g % 3 AS k, grouping(g % 3) AS total, gpu_histogram(x, -4, 4, 16)
FROM grp_t GROUP BY ROLLUP (g % 3) ORDER BY 2, 1;
SELECT count(*) AS sets, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT g % 3 AS k, gpu_histogram(x, -4, 4, 16) AS h
      FROM grp_t GROUP BY ROLLUP (g % 3)) a
JOIN LATERAL (SELECT array_agg(coalesce(c, 0) ORDER BY b) AS r FROM generate_series(0, 17) b
              LEFT JOIN (SELECT width_bucket(x, -4, 4, 16) AS b, count(*) AS c FROM grp_t
                         WHERE a.k IS NULL OR g % 3 = a.k GROUP BY 1) w USING (b)) r ON true;
SELECT count(*) AS sets, count(*) FILTER (WHERE h IS NULL) AS null_sets
FROM (SELECT gpu_histogram(x, -4, 4, 16) AS h FROM grp_t WHERE g < 10
      GROUP BY CUBE (g % 2, g % 5)) s;

-- HAVING on the histogram; the histogram inside expressions.
SELECT count(*) AS groups_with_none_below
FROM (SELECT g FROM grp_t GROUP BY g HAVING (gpu_histogram(x, lo, hi, n))[1] = 0) s;
SELECT count(*) AS groups_with_none_below FROM grp_ref WHERE h[1] = 0;

-- Identical calls share one transition state; all must see every row.
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h1 IS DISTINCT FROM r.h OR h2 IS DISTINCT FROM r.h OR h3 IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, lo, hi, n) AS h1, gpu_histogram(x, lo, hi, n) AS h2,
             (gpu_histogram(x, lo, hi, n))[1:1000] AS h3
      FROM grp_t WHERE g < 5000 GROUP BY g) a
JOIN grp_ref r USING (g);

-- Groups from a join and from a subquery in FROM.
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT k.g, gpu_histogram(t.x, t.lo, t.hi, t.n) AS h
      FROM (SELECT generate_series(0, 99999, 7) AS g) k JOIN grp_t t USING (g) GROUP BY k.g) a
JOIN grp_ref r USING (g);

RESET max_parallel_workers_per_gather;
DROP TABLE grp_t, grp_ref;
