--
-- wide_rows: tables as users have them, with variable-width columns
-- (text, numeric, jsonb) before the values and keys, on the page path.
-- The page kernel walks a varlena by its header (1-byte, 4-byte, compressed
-- inline, a TOAST pointer) to reach the columns after it; here
-- gpu_histogram.debug_pages_on_cpu batches the pinned pages as for the GPU
-- and parses each batch on the host, so CI checks that such tables take
-- the page path at all (the DEBUG lines) and that every answer equals the
-- ordinary plan (rt_compare).  test/gpu/page_checks.sh and
-- grouped_page_checks.sh run the same layouts on the GPU, and the unit
-- tests (PageParse) the kernel's walk itself over every header kind.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS wr_metrics;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.skip_pages_by_range = off; -- the DEBUG lines below count every page (page_ranges.sql skips some)
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

-- The canonical metrics table with more beside it: a text column with
-- short values, long ones (4-byte headers), one compressed inline, one
-- TOASTed out of line, and NULLs; numeric and jsonb; a column dropped
-- between them, and one added with a default after the first rows.
CREATE TABLE wr_metrics (time timestamptz, device_id text, note text, gone int8, load numeric, tags jsonb,
                         cpu float8, g int4) WITH (autovacuum_enabled = off);
INSERT INTO wr_metrics
SELECT '2024-03-01'::timestamptz + i * interval '30 seconds',
       CASE WHEN i % 501 = 0 THEN NULL ELSE 'device-' || i % 50 END,
       CASE i % 400 WHEN 0 THEN NULL
                    WHEN 1 THEN repeat('ab', 3000)
                    WHEN 2 THEN (SELECT string_agg(md5((i * k)::text), '') FROM generate_series(1, 80) k)
                    ELSE repeat('n', i % 180) END,
       i, (i % 977)::numeric / 7, jsonb_build_object('rack', i % 13),
       CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 40 END
FROM generate_series(1, 12000) i;
ALTER TABLE wr_metrics DROP COLUMN gone;
ALTER TABLE wr_metrics ADD COLUMN mem float4 DEFAULT 0.375;
INSERT INTO wr_metrics (time, device_id, note, load, tags, cpu, g, mem)
SELECT '2024-03-06'::timestamptz + i * interval '30 seconds', 'device-' || i % 7, repeat('m', i % 150),
       i, '{}', (i % 1000) / 1000.0, i % 40, CASE WHEN i % 9 = 0 THEN NULL ELSE (i % 100) / 100.0 END
FROM generate_series(1, 4000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE wr_metrics;
SELECT relallvisible = relpages AS all_visible FROM pg_class WHERE oid = 'wr_metrics'::regclass;
-- the note column really holds every storage: values compressed inline, 4-byte headers, and the TOAST table's
SELECT count(*) FILTER (WHERE pg_column_size(note) < octet_length(note)) AS compressed,
       count(*) FILTER (WHERE octet_length(note) BETWEEN 127 AND 2000) AS long_headers
FROM wr_metrics;
SELECT (SELECT reltoastrelid FROM pg_class WHERE oid = 'wr_metrics'::regclass) <> 0 AS has_toast,
       (SELECT relpages FROM pg_class
        WHERE oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'wr_metrics'::regclass)) > 0 AS toast_used;

SELECT rt_explain($$SELECT gpu_histogram(cpu, 0, 1, 16) FROM wr_metrics$$);

-- each shape serially against the ordinary plan, the scan's DEBUG lines
-- after it (two for a grouped scan); run once quietly first, so that the
-- session's caches are warm and PostgreSQL prints nothing of its own
CREATE TEMP TABLE wr_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO wr_queries (q) VALUES
    ($$SELECT gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM wr_metrics$$),
    ($$SELECT gpu_histogram(cpu, 0, 1, 16) AS h, gpu_histogram(mem, 0, 1, 4) AS hm, gpu_histogram(g, 0, 40, 8) AS hg FROM wr_metrics$$),
    ($$SELECT gpu_histogram(cpu, 0, 1, 16) AS h FROM wr_metrics WHERE g < 20 AND cpu > 0.125$$),
    ($$SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM wr_metrics GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(cpu, 0, 1, 8) AS h, count(cpu) AS n FROM wr_metrics WHERE time >= '2024-03-02' AND time < '2024-03-05' GROUP BY g$$),
    ($$SELECT floor(extract(epoch FROM time) / 300) * 300 AS t, gpu_histogram(cpu, 0, 1, 8) AS h FROM wr_metrics WHERE time >= '2024-03-03' AND time < '2024-03-04' GROUP BY 1$$),
    -- text keys read in place: short and 4-byte headers, compressed, out of line, NULL
    ($$SELECT note, gpu_histogram(cpu, 0, 1, 8) AS h, count(*) AS n FROM wr_metrics GROUP BY note$$),
    ($$SELECT device_id, g % 3 AS k, gpu_histogram(cpu, 0, 1, 8) AS h FROM wr_metrics GROUP BY 1, 2$$);
SELECT count(*) AS queries, bool_and(c.same) AS same FROM wr_queries, LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT q, c.* FROM wr_queries, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;

-- the same with every page parsed by the host's own loops
SET gpu_histogram.debug_pages_on_cpu = off;
SELECT count(*) AS queries, bool_and(c.same) AS same FROM wr_queries, LATERAL rt_compare(q) c;
SET gpu_histogram.debug_pages_on_cpu = on;

-- and against width_bucket and count(*) in plain SQL
SELECT k, c.* FROM (VALUES (ARRAY['g']), (ARRAY['date_trunc(''day'', time)'])) v(k),
    LATERAL rt_against_width_bucket('wr_metrics', k, 'cpu', 0, 1, 16) c;

RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE wr_metrics, wr_queries;
