--
-- parallel: partial aggregation in parallel workers (combine, serialize,
-- deserialize) gives the serial result, which is width_bucket's.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS par_t, par_serial, par_serial_g;
RESET client_min_messages;

-- 2,000,000 rows: a Weyl sequence in [-0.1, 1.1), 1,000 groups, each with
-- a spec of its own (lo > hi in the odd ones).
CREATE TABLE par_t AS
SELECT i, g,
       (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.2 - 0.1 AS x,
       CASE WHEN g % 2 = 0 THEN g / 2000.0 - 0.1 ELSE 1 - g / 2000.0 END::float8 AS lo,
       CASE WHEN g % 2 = 0 THEN 1 - g / 2000.0 ELSE g / 2000.0 - 0.1 END::float8 AS hi,
       1 + g % 17 AS n
FROM generate_series(1, 2000000) i, LATERAL (SELECT i % 1000 AS g) s;
ANALYZE par_t;

-- Serial results first.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE par_serial AS
SELECT gpu_histogram(x, 0, 1, 1000) AS up, gpu_histogram(x, 1, 0, 777) AS down,
       gpu_histogram(x, 0.25, 0.75, 1000000) AS wide, gpu_histogram(x, 0, 1, 10) FILTER (WHERE i % 3 = 0) AS filtered
FROM par_t;
CREATE TABLE par_serial_g AS
SELECT g, gpu_histogram(x, 0, 1, 20) AS h, gpu_histogram(x, lo, hi, n) AS hg
FROM par_t GROUP BY g;
-- the serial results are width_bucket's
SELECT up = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 1001) b
             LEFT JOIN (SELECT width_bucket(x, 0, 1, 1000) AS b, count(*) AS c FROM par_t GROUP BY 1) w USING (b)) AS up,
       down = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 778) b
               LEFT JOIN (SELECT width_bucket(x, 1, 0, 777) AS b, count(*) AS c FROM par_t GROUP BY 1) w USING (b)) AS down
FROM par_serial;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.hg[1] > 0) AS with_below,
       count(*) FILTER (WHERE s.hg IS DISTINCT FROM r.h) AS mismatches
FROM par_serial_g s
JOIN (SELECT g.g, array_agg(coalesce(w.c, 0) ORDER BY b.b) AS h
      FROM generate_series(0, 999) g(g)
      CROSS JOIN LATERAL generate_series(0, 2 + g.g % 17) b(b)
      LEFT JOIN (SELECT g, width_bucket(x, lo, hi, n) AS b, count(*) AS c
                 FROM par_t GROUP BY 1, 2) w ON w.g = g.g AND w.b = b.b
      GROUP BY g.g) r USING (g);

-- Now in parallel.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- With the custom scan (see scan.sql) each worker bins its blocks straight
-- from the pages; without it, Partial Aggregate over a Parallel Seq Scan.
-- Either way the workers' states are serialized and combined.  (The plan
-- names the device setting: auto here, whatever the session's default.)
SET gpu_histogram.device = auto;
EXPLAIN (COSTS OFF)
SELECT gpu_histogram(x, 0, 1, 1000) FROM par_t;
RESET gpu_histogram.device;
SET gpu_histogram.scan = off;
EXPLAIN (COSTS OFF)
SELECT gpu_histogram(x, 0, 1, 1000) FROM par_t;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM par_serial) AS up,
       gpu_histogram(x, 1, 0, 777) = (SELECT down FROM par_serial) AS down,
       gpu_histogram(x, 0.25, 0.75, 1000000) = (SELECT wide FROM par_serial) AS wide
FROM par_t;
RESET gpu_histogram.scan;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM par_serial) AS up,
       gpu_histogram(x, 1, 0, 777) = (SELECT down FROM par_serial) AS down,
       -- 1,000,002 counts (8 MB) per worker through the tuple queue
       gpu_histogram(x, 0.25, 0.75, 1000000) = (SELECT wide FROM par_serial) AS wide,
       gpu_histogram(x, 0, 1, 10) FILTER (WHERE i % 3 = 0) = (SELECT filtered FROM par_serial) AS filtered
FROM par_t;

-- GROUP BY: partial hash aggregates in the workers, combined in the leader.
SET gpu_histogram.device = auto;
EXPLAIN (COSTS OFF)
SELECT g, gpu_histogram(x, 0, 1, 20) FROM par_t GROUP BY g;
RESET gpu_histogram.device;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches,
       count(*) FILTER (WHERE p.hg IS DISTINCT FROM s.hg) AS mismatches_g
FROM (SELECT g, gpu_histogram(x, 0, 1, 20) AS h, gpu_histogram(x, lo, hi, n) AS hg
      FROM par_t GROUP BY g) p
FULL JOIN par_serial_g s USING (g);

-- Without HAVING, the processes merge their groups themselves, no
-- Finalize Aggregate above (Gather right over the scan): each leaves its
-- groups in shared memory, and once all have, each merges and emits a share
-- of them.  Here the statistics saw 10 keys of the 3,001 there are, and
-- work_mem is 64kB: each process leaves its groups several times, and
-- merges its share in passes of their hashes.  NULL keys, and text keys,
-- too.  Compared with the ordinary plan.
CREATE TABLE par_m (x float8, ts timestamptz, s text) WITH (autovacuum_enabled = off);
INSERT INTO par_m SELECT (i * 0.6180339887498949::float8) - floor(i * 0.6180339887498949::float8),
                         timestamptz '2026-01-01 00:00:00+00' + (i % 10) * interval '1 hour', 'k' || (i % 10)
FROM generate_series(1, 1000) i;
ANALYZE par_m;
INSERT INTO par_m SELECT (i * 0.7548776662466927::float8) - floor(i * 0.7548776662466927::float8),
                         timestamptz '2026-01-01 00:00:00+00' + (i % 3000) * interval '1 hour', 'k' || (i % 3000)
FROM generate_series(1, 30000) i;
INSERT INTO par_m SELECT NULL, NULL, NULL FROM generate_series(1, 10);
SET work_mem = '64kB';
SET gpu_histogram.device = auto;
EXPLAIN (COSTS OFF)
SELECT s, count(x), gpu_histogram(x, 0, 1, 16) FROM par_m GROUP BY 1;
RESET gpu_histogram.device;
CREATE TEMP TABLE par_m_scan AS
SELECT date_trunc('hour', ts) AS k, count(*) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
CREATE TEMP TABLE par_m_scan_s AS SELECT s AS k, count(x) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
-- no worker at all: the leader alone is the one share
SET max_parallel_workers = 0;
CREATE TEMP TABLE par_m_alone AS
SELECT date_trunc('hour', ts) AS k, count(*) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
RESET max_parallel_workers;
-- the workers without the leader
SET parallel_leader_participation = off;
CREATE TEMP TABLE par_m_workers AS
SELECT date_trunc('hour', ts) AS k, count(*) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
RESET parallel_leader_participation;
RESET work_mem;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE par_m_plain AS
SELECT date_trunc('hour', ts) AS k, count(*) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
CREATE TEMP TABLE par_m_plain_s AS SELECT s AS k, count(x) AS n, gpu_histogram(x, 0, 1, 16) AS h FROM par_m GROUP BY 1;
RESET gpu_histogram.scan;
SELECT (SELECT count(*) FROM par_m_scan) AS groups,
       (SELECT count(*) FROM ((TABLE par_m_scan EXCEPT ALL TABLE par_m_plain)
                              UNION ALL (TABLE par_m_plain EXCEPT ALL TABLE par_m_scan)) d) AS differences,
       (SELECT count(*) FROM ((TABLE par_m_alone EXCEPT ALL TABLE par_m_plain)
                              UNION ALL (TABLE par_m_plain EXCEPT ALL TABLE par_m_alone)) d) AS differences_alone,
       (SELECT count(*) FROM ((TABLE par_m_workers EXCEPT ALL TABLE par_m_plain)
                              UNION ALL (TABLE par_m_plain EXCEPT ALL TABLE par_m_workers)) d) AS differences_workers,
       (SELECT count(*) FROM ((TABLE par_m_scan_s EXCEPT ALL TABLE par_m_plain_s)
                              UNION ALL (TABLE par_m_plain_s EXCEPT ALL TABLE par_m_scan_s)) d) AS differences_text;
-- The Gather rescanned, on the inner side of a nested loop: each time anew.
SET enable_material = off;
SET gpu_histogram.device = auto;
EXPLAIN (COSTS OFF)
SELECT v.i, count(q.h), sum(q.h[2]) FROM (VALUES (1), (2), (3)) v(i)
LEFT JOIN (SELECT g, gpu_histogram(x, 0, 1, 4) AS h FROM par_t GROUP BY g) q ON q.h[2] > 123 + v.i GROUP BY v.i;
RESET gpu_histogram.device;
SELECT v.i, count(q.h), sum(q.h[2]) FROM (VALUES (1), (2), (3)) v(i)
LEFT JOIN (SELECT g, gpu_histogram(x, 0, 1, 4) AS h FROM par_t GROUP BY g) q ON q.h[2] > 123 + v.i GROUP BY v.i ORDER BY 1;
SET gpu_histogram.scan = off;
SELECT v.i, count(q.h), sum(q.h[2]) FROM (VALUES (1), (2), (3)) v(i)
LEFT JOIN (SELECT g, gpu_histogram(x, 0, 1, 4) AS h FROM par_t GROUP BY g) q ON q.h[2] > 123 + v.i GROUP BY v.i ORDER BY 1;
RESET gpu_histogram.scan;
RESET enable_material;
-- An error in one process while the others wait for it to finish: the query
-- fails, and the next one runs.
\set VERBOSITY sqlstate
SELECT g, gpu_histogram(CASE WHEN i = 1500000 THEN 'NaN' ELSE x END, 0, 1, 10) FROM par_t GROUP BY g;
\set VERBOSITY default
SELECT count(h) FROM (SELECT g, gpu_histogram(x, 0, 1, 10) AS h FROM par_t GROUP BY g) s;
DROP TABLE par_m;

-- Workers that see no row, or only NULLs, send no state.
SELECT gpu_histogram(x, 0, 1, 4) IS NULL AS no_rows FROM par_t WHERE i < 0;
SELECT gpu_histogram(x, 0, 1, 4) FROM par_t WHERE i = 1234567;
SELECT width_bucket(x, 0, 1, 4) FROM par_t WHERE i = 1234567;
SELECT gpu_histogram(CASE WHEN i = 1234567 THEN x END, 0, 1, 4) FROM par_t;
SELECT gpu_histogram(x, 0, 1, 4) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 5) b
                                    LEFT JOIN (SELECT width_bucket(x, 0, 1, 4) AS b, count(*) AS c FROM par_t
                                               WHERE i % 100000 = 7 GROUP BY 1) w USING (b)) AS sparse
FROM par_t WHERE i % 100000 = 7;

-- Counts of millions cross the wire in several bytes each (varints).
SELECT gpu_histogram(x, 5, 6, 1) AS h, (SELECT count(*) FROM par_t WHERE width_bucket(x, 5, 6, 1) = 0) * 3 AS below
FROM par_t, generate_series(1, 3);

-- A spec that differs between the rows of one group is an error, whether a
-- worker's transition function or the leader's combine function sees it.
\set VERBOSITY sqlstate
SELECT gpu_histogram(x, 0, CASE WHEN i = 1999999 THEN 2 ELSE 1 END, 10) FROM par_t;
SELECT gpu_histogram(x, 0, 1, CASE WHEN i < 1000000 THEN 10 ELSE 11 END) FROM par_t;
-- and a NaN in one worker fails the query
SELECT gpu_histogram(CASE WHEN i = 1500000 THEN 'NaN' ELSE x END, 0, 1, 10) FROM par_t;
\set VERBOSITY default

-- Forced into a worker: the same results.  16 renamed force_parallel_mode
-- to debug_parallel_query.
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT current_setting('server_version_num')::int >= 160000 AS pg16 \gset
SELECT set_config(CASE WHEN :'pg16' THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS forced;
SELECT gpu_histogram(x, 0, 1, 3) FROM (VALUES (0.1::float8), (0.5), (0.9), (1.5)) v(x);
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM par_serial) AS up FROM par_t WHERE i <= 2000000;
SELECT set_config(CASE WHEN :'pg16' THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) AS reset;
RESET max_parallel_workers_per_gather;

DROP TABLE par_t, par_serial, par_serial_g;
