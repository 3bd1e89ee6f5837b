--
-- device: the settings, and results that do not depend on where values are
-- binned: device = cpu, auto (with small GPU batches too) and the session's
-- default all give the same histograms, which are width_bucket's.  The test
-- server preloads the library, so the GPU service runs (without a GPU, it
-- says so and everything is binned on the CPU).  This file never asks for the GPU; on a GPU
-- machine, run the suite with PGOPTIONS='-c gpu_histogram.device=gpu' to
-- test it (the expected output is the same).
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS dev_t, dev_cpu, dev_cpu_g, dev_cpu_w;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- The library loads with the first call; its settings exist from then on.
SELECT gpu_histogram(0.5, 0, 1, 1);
SELECT name, boot_val, unit, min_val, max_val, enumvals, context, vartype
FROM pg_settings
WHERE name LIKE 'gpu_histogram.%' AND name NOT LIKE 'gpu_histogram.debug%'
ORDER BY name COLLATE "C";

-- Invalid values.
SET gpu_histogram.device = 'tpu';
SET gpu_histogram.device = '';
SET gpu_histogram.batch_size = 16383;
SET gpu_histogram.batch_size = 67108865;
SET gpu_histogram.service_slots = 8;
-- the per-backend pinned pool of 1.1 is gone with the GPU service
SET gpu_histogram.pinned_memory_limit = '1GB';
SET gpu_histogram.no_such_setting = 1;

-- 1,500,000 rows in 10 groups of 150,000: more than a GPU batch of 16,384
-- values in every group.
CREATE TABLE dev_t AS
SELECT i, i % 10 AS g,
       (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.2 - 0.1 AS x
FROM generate_series(1, 1500000) i;

-- device = cpu: the reference results, checked against width_bucket.
SET gpu_histogram.device = cpu;
SHOW gpu_histogram.device;
SELECT values_cpu AS cpu_before, values_gpu AS gpu_before FROM gpu_histogram_stats() \gset
CREATE TABLE dev_cpu AS
SELECT gpu_histogram(x, 0, 1, 1000) AS up, gpu_histogram(x, 1, 0, 333) AS down,
       gpu_histogram(x, 0.3, 0.4, 100000) AS fine
FROM dev_t;
-- every value was binned on the CPU, none on the GPU
SELECT values_cpu - :cpu_before AS values_cpu, values_gpu - :gpu_before AS values_gpu FROM gpu_histogram_stats();
SELECT up = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 1001) b
             LEFT JOIN (SELECT width_bucket(x, 0, 1, 1000) AS b, count(*) AS c FROM dev_t GROUP BY 1) w USING (b)) AS up,
       down = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 334) b
               LEFT JOIN (SELECT width_bucket(x, 1, 0, 333) AS b, count(*) AS c FROM dev_t GROUP BY 1) w USING (b)) AS down,
       fine = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 100001) b
               LEFT JOIN (SELECT width_bucket(x, 0.3, 0.4, 100000) AS b, count(*) AS c FROM dev_t GROUP BY 1) w USING (b)) AS fine
FROM dev_cpu;
CREATE TABLE dev_cpu_g AS
SELECT g, gpu_histogram(x, 0, 1, 50) AS h FROM dev_t GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM dev_cpu_g
JOIN (SELECT g, array_agg(coalesce(c, 0) ORDER BY b) AS r
      FROM generate_series(0, 9) g CROSS JOIN generate_series(0, 51) b
      LEFT JOIN (SELECT g, width_bucket(x, 0, 1, 50) AS b, count(*) AS c FROM dev_t GROUP BY 1, 2) w USING (g, b)
      GROUP BY g) r USING (g);
-- a running total, the frame growing by 50,000 rows at a time: each
-- result sums to its number of rows
CREATE TABLE dev_cpu_w AS
SELECT i, h FROM (SELECT i, gpu_histogram(x, 0, 1, 1000) OVER (ORDER BY i / 50000) AS h FROM dev_t) s
WHERE i % 50000 = 49999 OR i = 1500000;
SELECT count(*) AS results, count(*) FILTER (WHERE (SELECT sum(c) FROM unnest(h) c) = i) AS sums_right,
       (SELECT h FROM dev_cpu_w WHERE i = 1500000) = (SELECT up FROM dev_cpu) AS last_is_whole
FROM dev_cpu_w;
-- the service is running, with or without a GPU, and this session holds nothing in it
SELECT service_state IN ('up', 'no GPU') AS service_running, service_pid IS NOT NULL AS has_pid,
       service_slots, device_histograms
FROM gpu_histogram_stats();

-- device = auto: the same results.
SET gpu_histogram.device = auto;
SHOW gpu_histogram.device;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM dev_cpu) AS up,
       gpu_histogram(x, 1, 0, 333) = (SELECT down FROM dev_cpu) AS down,
       gpu_histogram(x, 0.3, 0.4, 100000) = (SELECT fine FROM dev_cpu) AS fine
FROM dev_t;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM c.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, 0, 1, 50) AS h FROM dev_t GROUP BY g) a JOIN dev_cpu_g c USING (g);

-- auto with the smallest batches: every group goes through many batches.
SET gpu_histogram.batch_size = 16384;
SHOW gpu_histogram.batch_size;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM dev_cpu) AS up,
       gpu_histogram(x, 1, 0, 333) = (SELECT down FROM dev_cpu) AS down,
       gpu_histogram(x, 0.3, 0.4, 100000) = (SELECT fine FROM dev_cpu) AS fine
FROM dev_t;
-- ... and in groups
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM c.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, 0, 1, 50) AS h FROM dev_t GROUP BY g) a JOIN dev_cpu_g c USING (g);
-- ... sorted grouping, one group at a time
SET enable_hashagg = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM c.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, 0, 1, 50) AS h FROM dev_t GROUP BY g) a JOIN dev_cpu_g c USING (g);
RESET enable_hashagg;
-- ... a running total: the final function after every 50,000 rows
SELECT count(*) AS results, count(*) FILTER (WHERE a.h IS DISTINCT FROM c.h) AS mismatches
FROM (SELECT i, h FROM (SELECT i, gpu_histogram(x, 0, 1, 1000) OVER (ORDER BY i / 50000) AS h FROM dev_t) s
      WHERE i % 50000 = 49999 OR i = 1500000) a
FULL JOIN dev_cpu_w c USING (i);
RESET gpu_histogram.batch_size;

-- SET LOCAL lasts until the end of the transaction.
BEGIN;
SET LOCAL gpu_histogram.device = cpu;
SHOW gpu_histogram.device;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM dev_cpu) AS up FROM dev_t;
COMMIT;
SELECT current_setting('gpu_histogram.device') <> 'cpu' AS reverted;

-- The session's default device (auto, or whatever PGOPTIONS set): the same.
RESET gpu_histogram.device;
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM dev_cpu) AS up,
       gpu_histogram(x, 1, 0, 333) = (SELECT down FROM dev_cpu) AS down,
       gpu_histogram(x, 0.3, 0.4, 100000) = (SELECT fine FROM dev_cpu) AS fine
FROM dev_t;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.h IS DISTINCT FROM c.h) AS mismatches
FROM (SELECT g, gpu_histogram(x, 0, 1, 50) AS h FROM dev_t GROUP BY g) a JOIN dev_cpu_g c USING (g);
-- an error in the middle of a big group leaves nothing behind
\set VERBOSITY sqlstate
SELECT gpu_histogram(CASE WHEN i = 1400000 THEN 'NaN' ELSE x END, 0, 1, 10) FROM dev_t;
SELECT g, gpu_histogram(x, 0, CASE WHEN i = 1400000 THEN 2 ELSE 1 END, 10) FROM dev_t GROUP BY g;
\set VERBOSITY default
SELECT device_histograms AS open_device_histograms FROM gpu_histogram_stats();
SELECT gpu_histogram(x, 0, 1, 1000) = (SELECT up FROM dev_cpu) AS after_errors FROM dev_t;

-- Observability, without machine-dependent values.
SELECT count(*) >= 1 AS has_rows, count(*) FILTER (WHERE status IS NULL) AS null_status
FROM gpu_histogram_devices();
SELECT values_cpu + values_gpu >= 1500000 AS counted, gpu_batches >= 0 AS batches,
       device_histograms AS open_device_histograms
FROM gpu_histogram_stats();

RESET max_parallel_workers_per_gather;
DROP TABLE dev_t, dev_cpu, dev_cpu_g, dev_cpu_w;
