--
-- merge: gpu_histogram_merge is the element-wise sum; the merge of
-- per-partition histograms is the histogram of the whole, which is
-- width_bucket's; serially, in parallel and as a window aggregate.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS merge_t, merge_parts, merge_many;
RESET client_min_messages;

-- Small sums that can be read off.
SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{10,20,30}'), ('{100,200,300}')) v(h);
SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[])) v(h);
SELECT gpu_histogram_merge(h) FROM (VALUES ('{5}'::bigint[]), ('{6}')) v(h);
-- NULL histograms are skipped; only NULLs or no rows give NULL
SELECT gpu_histogram_merge(h) FROM (VALUES (NULL::bigint[]), ('{1,2,3}'), (NULL), ('{1,1,1}')) v(h);
SELECT gpu_histogram_merge(h) IS NULL AS all_null FROM (VALUES (NULL::bigint[]), (NULL)) v(h);
SELECT gpu_histogram_merge(h) IS NULL AS no_rows FROM (VALUES ('{1,2,3}'::bigint[])) v(h) WHERE false;
-- subscripts of the input do not matter; the result starts at 1
SELECT h, array_lower(h, 1) FROM (SELECT gpu_histogram_merge(h) AS h
                                  FROM (VALUES ('[0:2]={1,2,3}'::bigint[]), ('[5:7]={1,1,1}')) v(h)) s;
-- large counts add exactly
SELECT gpu_histogram_merge(h)
FROM (VALUES ('{4611686018427387904,1,0}'::bigint[]), ('{4611686018427387903,0,1}')) v(h);

-- 1,000,000 rows in 37 partitions.
SELECT setseed(0.375);
CREATE TABLE merge_t AS
SELECT i, i % 37 AS part, i % 5 AS region, power(random(), 2) * 120 - 10 AS x
FROM generate_series(1, 1000000) i;
CREATE TABLE merge_parts AS
SELECT part, region, gpu_histogram(x, 0, 100, 50) AS h, count(*) AS nrows
FROM merge_t GROUP BY part, region;
ANALYZE merge_parts;
SELECT count(*) AS parts, sum(nrows) AS nrows FROM merge_parts;

-- merge of the parts = histogram of the whole = width_bucket's histogram
SELECT (SELECT gpu_histogram_merge(h) FROM merge_parts) = (SELECT gpu_histogram(x, 0, 100, 50) FROM merge_t) AS merge_is_whole,
       (SELECT gpu_histogram_merge(h) FROM merge_parts)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 51) b
          LEFT JOIN (SELECT width_bucket(x, 0, 100, 50) AS b, count(*) AS c FROM merge_t GROUP BY 1) w USING (b))
       AS merge_is_width_bucket;
-- merged per region = per-region histogram = per-region width_bucket
SELECT count(*) AS regions,
       count(*) FILTER (WHERE m.h IS DISTINCT FROM d.h) AS merge_vs_direct,
       count(*) FILTER (WHERE m.h IS DISTINCT FROM r.h) AS merge_vs_width_bucket
FROM (SELECT region, gpu_histogram_merge(h) AS h FROM merge_parts GROUP BY region) m
JOIN (SELECT region, gpu_histogram(x, 0, 100, 50) AS h FROM merge_t GROUP BY region) d USING (region)
JOIN (SELECT region, array_agg(coalesce(c, 0) ORDER BY b) AS h
      FROM generate_series(0, 4) region CROSS JOIN generate_series(0, 51) b
      LEFT JOIN (SELECT region, width_bucket(x, 0, 100, 50) AS b, count(*) AS c FROM merge_t GROUP BY 1, 2) w
      USING (region, b)
      GROUP BY region) r USING (region);
-- a merge of merges
SELECT gpu_histogram_merge(h) = (SELECT gpu_histogram_merge(h) FROM merge_parts) AS merge_of_merges
FROM (SELECT gpu_histogram_merge(h) AS h FROM merge_parts GROUP BY part % 4) s;
-- the element sums equal the row counts
SELECT sum(c) = 1000000 AS total FROM unnest((SELECT gpu_histogram_merge(h) FROM merge_parts)) c;

-- As a window aggregate: the running merge over the parts in order equals
-- the histogram of the rows of parts 0 .. p.
SELECT count(*) AS parts,
       count(*) FILTER (WHERE running IS DISTINCT FROM
                        (SELECT gpu_histogram(x, 0, 100, 50) FROM merge_t t WHERE t.part <= s.part)) AS mismatches
FROM (SELECT part, gpu_histogram_merge(h) OVER (ORDER BY part) AS running
      FROM (SELECT part, gpu_histogram_merge(h) AS h FROM merge_parts GROUP BY part) p) s;

-- In parallel: 100,000 stored histograms, merged by a parallel plan,
-- equal the serial merge and the sum computed by unnest.
CREATE TABLE merge_many AS
SELECT i, i % 10 AS g, ARRAY[i % 7, i % 11, 1, i, 0, i % 3]::bigint[] AS h FROM generate_series(1, 100000) i;
ANALYZE merge_many;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE merge_serial AS SELECT gpu_histogram_merge(h) AS h FROM merge_many;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gpu_histogram_merge(h) FROM merge_many;
SELECT h FROM merge_serial;
SELECT gpu_histogram_merge(h) = (SELECT h FROM merge_serial) AS parallel_is_serial,
       gpu_histogram_merge(h) = (SELECT array_agg(s ORDER BY k)
                                 FROM (SELECT k, sum(c)::bigint AS s FROM merge_many, unnest(h) WITH ORDINALITY u(c, k)
                                       GROUP BY k) t) AS is_sum
FROM merge_many;
-- grouped, in parallel
EXPLAIN (COSTS OFF) SELECT g, gpu_histogram_merge(h) FROM merge_many GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE m.h IS DISTINCT FROM r.h) AS mismatches
FROM (SELECT g, gpu_histogram_merge(h) AS h FROM merge_many GROUP BY g) m
JOIN (SELECT g, array_agg(s ORDER BY k) AS h
      FROM (SELECT g, k, sum(c)::bigint AS s FROM merge_many, unnest(h) WITH ORDINALITY u(c, k)
            GROUP BY 1, 2) t GROUP BY g) r USING (g);
-- parallel merge of gpu_histogram results
EXPLAIN (COSTS OFF) SELECT gpu_histogram_merge(h) FROM merge_parts;
SELECT gpu_histogram_merge(h) = (SELECT gpu_histogram(x, 0, 100, 50) FROM merge_t) AS parallel_merge_is_whole
FROM merge_parts;
-- different lengths in different workers: still an error
\set VERBOSITY sqlstate
SELECT gpu_histogram_merge(CASE WHEN i = 77777 THEN h || 0::bigint ELSE h END) FROM merge_many;
-- a negative count in one process's share (issue 14): 22000, as serially
SELECT gpu_histogram_merge(CASE WHEN i = 77777 THEN array_fill(-1::bigint, ARRAY[6]) ELSE h END) FROM merge_many;
\set VERBOSITY default
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE merge_t, merge_parts, merge_many, merge_serial;
