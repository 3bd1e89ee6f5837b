--
-- value_keys: GROUP BY keys that are expressions of one int2, int4, int8,
-- bool or date column (g % 10, g / 10, g::text, CASE over g, NOT flag,
-- d + 7, extract(dow FROM d)), computed by the scan once for each value a
-- row holds and looked up for every other row (extension/scan/keys/
-- value_key.cpp), on the host's rows and on the page path.  Every answer is
-- compared with PostgreSQL's ordinary plan (rt_compare), twice: the second
-- time an immutable key's values are remembered from the first, and the
-- page path's table of them is built (the DEBUG lines count its words).
-- Also: rows added after ANALYZE with values the statistics never saw, a
-- non-strict key (coalesce) whose NULL column is not a NULL key, a key that
-- raises an error for one value (the same error as the ordinary plan's, at
-- the same row), a parameter of a generic plan and an output setting
-- (extra_float_digits) that change between two queries, an immutable
-- function redefined between two queries (the remembered values are
-- dropped), and a function under row-level security that never sees a
-- hidden row's value.  Then keys of a text or varchar column (lower(h),
-- split_part), remembered by the value's bytes, whose page path is a
-- dictionary of the values met, each with its key's group.
-- test/gpu/grouped_page_checks.sh runs such keys on the GPU's pages.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS vk_t;
DROP ROLE IF EXISTS regress_vk_reader;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'America/New_York';
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.skip_pages_by_range = off; -- the DEBUG lines below count every page (page_ranges.sql skips some)
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

CREATE TABLE vk_t (ts timestamptz, host text, g int4, s int2, b int8, flag bool, d date, x float8)
    WITH (autovacuum_enabled = off);
INSERT INTO vk_t
SELECT '2024-03-01'::timestamptz + i * interval '3 minutes',
       'host-' || i % 7,
       CASE WHEN i % 97 = 0 THEN NULL ELSE i % 20 END,
       (i % 11 - 5)::int2,
       CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 6) * 3000000000 END,
       CASE i % 5 WHEN 0 THEN NULL ELSE i % 3 = 0 END,
       '2024-03-01'::date + i % 40,
       CASE WHEN i % 61 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END
FROM generate_series(1, 20000) i;
VACUUM ANALYZE vk_t;
-- after ANALYZE: values the statistics never saw
INSERT INTO vk_t (ts, host, g, s, b, flag, d, x)
SELECT '2024-04-15'::timestamptz + i * interval '1 minute', 'late', 100 + i % 6, 300, -1, true, '2025-01-01', i / 400.0
FROM generate_series(1, 400) i;
SELECT rt_await_snapshots() AS settled;
VACUUM vk_t;

-- the key is the scan's, by value
SELECT line FROM rt_explain($$SELECT g % 10 AS k, gpu_histogram(x, 0, 1, 8) FROM vk_t GROUP BY 1$$) line
WHERE line ~ 'Key Computation|Custom Scan';

CREATE TEMP TABLE vk_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO vk_queries (q) VALUES
    ($$SELECT g % 10 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM vk_t GROUP BY 1$$),
    ($$SELECT g / 10 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(x) AS n FROM vk_t GROUP BY 1$$),
    ($$SELECT g::text AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT CASE WHEN g < 5 THEN 'low' WHEN g < 15 THEN 'mid' END AS k, gpu_histogram(x, 0, 1, 8) AS h
       FROM vk_t GROUP BY 1$$),
    ($$SELECT s * 2 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT b % 7 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT NOT flag AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT d + 7 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT extract(dow FROM d) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT to_char(d, 'YYYY-MM') AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT coalesce(g, -1) % 3 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM vk_t GROUP BY 1$$),
    ($$SELECT g % 3 AS k, date_trunc('day', ts) AS day, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t
       WHERE ts >= '2024-03-05' AND ts < '2024-03-12' GROUP BY 1, 2$$),
    ($$SELECT g % 4 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t WHERE g IN (1, 2, 3, 101) GROUP BY 1$$),
    ($$SELECT g % 4 AS k, s % 2 AS m, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t WHERE x < 0.9 GROUP BY 1, 2$$),
    ($$SELECT g % 5 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t WHERE host <> 'host-3' GROUP BY 1$$);
SELECT count(*) AS queries, bool_and(c.same) AS same, bool_and(c.scan_planned) AS scans
FROM vk_queries, LATERAL rt_compare(q) c;
-- again: the immutable keys' values are remembered, and their table made at the start
SET client_min_messages = debug1;
SELECT n, c.* FROM vk_queries, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;

-- a key that raises for one value: the ordinary plan's error, at its row; none where WHERE drops the value
SELECT q, c.* FROM (VALUES
    ($$SELECT 100 / (g - 7) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT 100 / (g - 7) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t WHERE g <> 7 GROUP BY 1$$),
    ($$SELECT (s * 10000)::int2 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$),
    ($$SELECT (s * 10000)::int2 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t WHERE s BETWEEN -3 AND 3 GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;

-- what an immutable key remembers holds for one parameter value of a generic plan, and one output setting
SET plan_cache_mode = force_generic_plan;
PREPARE vk_mod(int) AS SELECT g % $1 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1;
SELECT q, c.* FROM (VALUES ($$EXECUTE vk_mod(3)$$), ($$EXECUTE vk_mod(4)$$), ($$EXECUTE vk_mod(3)$$)) v(q),
    LATERAL rt_compare(q) c;
DEALLOCATE vk_mod;
RESET plan_cache_mode;
SET extra_float_digits = 0;
SELECT c.* FROM rt_compare($$SELECT (g / 7.0)::float8::text AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$) c;
SET extra_float_digits = -3;
SELECT c.* FROM rt_compare($$SELECT (g / 7.0)::float8::text AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$) c;
SELECT (g / 7.0)::float8::text AS k FROM vk_t WHERE g = 1 LIMIT 1;
RESET extra_float_digits;

-- an immutable function redefined: the next query computes the new one
CREATE FUNCTION vk_band(v int) RETURNS int IMMUTABLE PARALLEL SAFE LANGUAGE plpgsql AS
$$BEGIN RETURN v % 4; END$$;
SELECT c.* FROM rt_compare($$SELECT vk_band(g) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$) c;
SELECT vk_band(g) AS k, count(*) FROM vk_t GROUP BY 1 ORDER BY 1;
CREATE OR REPLACE FUNCTION vk_band(v int) RETURNS int IMMUTABLE PARALLEL SAFE LANGUAGE plpgsql AS
$$BEGIN RETURN v % 3; END$$;
SELECT c.* FROM rt_compare($$SELECT vk_band(g) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_t GROUP BY 1$$) c;
SELECT vk_band(g) AS k, count(*) FROM vk_t GROUP BY 1 ORDER BY 1;

-- keys of a text or varchar column, remembered by value: lower(),
-- split_part(), a CASE, two keys, a WHERE clause; values that differ only in
-- case, the empty string, NULL, long values stored compressed in line and out
-- of line (TOAST), rows added after ANALYZE; a key that raises for one value
CREATE TABLE vk_txt (h text, v varchar(40), g int, x float8) WITH (autovacuum_enabled = off);
INSERT INTO vk_txt
SELECT CASE WHEN i % 53 = 0 THEN NULL WHEN i % 41 = 0 THEN '' WHEN i % 2 = 0 THEN 'Host-' || i % 9
            ELSE 'host-' || i % 9 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE 'Rack ' || i % 5 || '-' || i % 3 END,
       i % 20, (i % 97) / 97.0
FROM generate_series(1, 20000) i;
INSERT INTO vk_txt
SELECT repeat('compressible-' || i % 3, 400), NULL, i, 0.5 FROM generate_series(1, 30) i;
INSERT INTO vk_txt
SELECT (SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 200) j), 'toasted', i, 0.25
FROM generate_series(1, 30) i;
VACUUM ANALYZE vk_txt;
INSERT INTO vk_txt SELECT 'LATE-' || i % 4, 'late', i, i / 500.0 FROM generate_series(1, 400) i;
SELECT rt_await_snapshots() AS settled;
VACUUM vk_txt;
SELECT count(*) FILTER (WHERE pg_column_compression(h) IS NOT NULL) > 0 AS some_compressed,
       count(*) FILTER (WHERE pg_column_size(h) < octet_length(h)) > 0 AS some_smaller
FROM vk_txt;
SELECT line FROM rt_explain($$SELECT lower(h) AS k, gpu_histogram(x, 0, 1, 8) FROM vk_txt GROUP BY 1$$) line
WHERE line ~ 'Key Computation|Custom Scan';
CREATE TEMP TABLE vk_text_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO vk_text_queries (q) VALUES
    ($$SELECT lower(h) AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM vk_txt GROUP BY 1$$),
    ($$SELECT split_part(h, '-', 1) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$),
    ($$SELECT md5(h) AS k, count(x) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$),
    ($$SELECT length(h) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$),
    ($$SELECT CASE WHEN h LIKE 'h%' THEN 'lower' WHEN h = '' THEN 'empty' END AS k, gpu_histogram(x, 0, 1, 8) AS h
       FROM vk_txt GROUP BY 1$$),
    ($$SELECT upper(v) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$),
    ($$SELECT lower(h) AS k, g % 3 AS m, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1, 2$$),
    ($$SELECT coalesce(lower(h), 'none') AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt WHERE g < 15 GROUP BY 1$$),
    ($$SELECT nullif(lower(h), 'host-1') AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$);
SELECT n, c.* FROM vk_text_queries, LATERAL rt_compare(q) c ORDER BY n;
-- again: the values met are remembered, and the page path's dictionary of them made at the start
SET client_min_messages = debug1;
SELECT n, c.* FROM vk_text_queries, LATERAL rt_compare(q) c ORDER BY n;
RESET client_min_messages;
SELECT q, c.* FROM (VALUES
    ($$SELECT (regexp_replace(h, '\D', '', 'g'))::int AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt GROUP BY 1$$),
    ($$SELECT (regexp_replace(h, '\D', '', 'g'))::int AS k, gpu_histogram(x, 0, 1, 8) AS h FROM vk_txt
       WHERE octet_length(h) BETWEEN 1 AND 100 GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;
DROP TABLE vk_txt;

-- row-level security: the key's function sees only the values of rows the reader may see
CREATE FUNCTION vk_seen(v int) RETURNS int IMMUTABLE PARALLEL SAFE LANGUAGE plpgsql AS
$$BEGIN RAISE NOTICE 'vk_seen(%)', v; RETURN v; END$$;
CREATE ROLE regress_vk_reader;
GRANT SELECT ON vk_t TO regress_vk_reader;
ALTER TABLE vk_t ENABLE ROW LEVEL SECURITY;
CREATE POLICY vk_visible ON vk_t USING (g < 3);
SET ROLE regress_vk_reader;
SELECT line FROM rt_explain($$SELECT vk_seen(g) AS k, gpu_histogram(x, 0, 1, 8) FROM vk_t GROUP BY 1$$) line
WHERE line ~ 'Custom Scan';
SELECT vk_seen(g) AS k, gpu_histogram(x, 0, 1, 8) FROM vk_t GROUP BY 1 ORDER BY 1;
RESET ROLE;

ALTER TABLE vk_t DISABLE ROW LEVEL SECURITY;
DROP POLICY vk_visible ON vk_t;
REVOKE SELECT ON vk_t FROM regress_vk_reader;
DROP ROLE regress_vk_reader;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE vk_t, vk_queries;
DROP FUNCTION vk_band(int), vk_seen(int);
