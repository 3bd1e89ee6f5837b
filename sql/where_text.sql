--
-- where_text: a text or varchar column compared for equality in the WHERE
-- clause (`host = 'a'`, `host <> 'a'`, `host IN (...)`, `host NOT IN
-- (...)`, `host = ANY($1)`), evaluated by the scan itself as bytes
-- (extension/scan/quals/native_quals.h) on the host's rows and on the page
-- path, as the metrics table's `device_id IN ($device)` needs.  texteq
-- compares lengths and bytes only under a deterministic collation, so a
-- nondeterministic one (case-insensitive ICU) is not compared as bytes,
-- nor are char(n) (blank-padded), ordering comparisons and user operators
-- that call texteq (a column of few values has them evaluated once per
-- value, where_computed.sql).  Every answer is compared with PostgreSQL's ordinary plan
-- (rt_compare), with values of every storage: short and 4-byte headers,
-- compressed inline, out of line in the TOAST table, NULLs, the empty
-- string, and a column added after the rows with a default.  A uuid
-- column is compared the same way, as its 16 bytes.
-- test/gpu/grouped_page_checks.sh runs these clauses on the GPU's pages.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS wt_t;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

-- the metrics table's shape: the text column before the values
CREATE TABLE wt_t (ts timestamptz, device_id text, v varchar(12), c char(6), g int4, note text, x float8)
    WITH (autovacuum_enabled = off);
INSERT INTO wt_t
SELECT '2024-05-01'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 41 = 0 THEN NULL WHEN i % 43 = 0 THEN '' ELSE 'dev-' || i % 12 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE 'v' || i % 5 END,
       'c' || i % 3,
       i % 20,
       -- a 200-byte value has a 4-byte header; most rows have a short one
       CASE WHEN i % 11 = 0 THEN repeat('n', 200) ELSE 'n' || i % 4 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END
FROM generate_series(1, 20000) i;
-- values stored compressed inline (repetitive) and out of line (incompressible), some of the same length as others
INSERT INTO wt_t (ts, device_id, g, note, x)
SELECT '2024-06-01'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 2 = 0 THEN repeat('z', 3000 + i % 3)
            ELSE (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 100) j) END,
       i % 20, repeat('n', 200), (i % 100) / 100.0
FROM generate_series(1, 60) i;
-- a column added after the rows, with a default the old rows hold
ALTER TABLE wt_t ADD COLUMN site text DEFAULT 'eu-1';
INSERT INTO wt_t (ts, device_id, g, site, x)
SELECT '2024-07-01'::timestamptz + i * interval '1 minute', 'dev-' || i % 3, i % 20,
       CASE WHEN i % 4 = 0 THEN NULL ELSE 'us-' || i % 2 END, (i % 100) / 100.0
FROM generate_series(1, 400) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE wt_t;
SELECT count(*) FILTER (WHERE pg_column_compression(device_id) IS NOT NULL) > 0 AS some_compressed,
       (SELECT reltoastrelid <> 0 FROM pg_class WHERE relname = 'wt_t') AS has_toast
FROM wt_t;

-- evaluated natively: the plan's account says so
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM wt_t WHERE device_id IN ('dev-1', 'dev-2')$$, true) line
WHERE line ~ 'Filter Evaluation|Custom Scan';
SELECT line FROM rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM wt_t WHERE v = 'v1' AND device_id <> 'dev-3'$$, true) line
WHERE line ~ 'Filter Evaluation';

-- the page path ran: its spec holds the list, each value a length word and its bytes
SET client_min_messages = debug1;
SELECT gpu_histogram(x, 0, 1, 8) FROM wt_t WHERE device_id IN ('dev-1', 'dev-2') AND v <> 'v3';
RESET client_min_messages;

CREATE TEMP TABLE wt_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO wt_queries (q) VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = 'dev-3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE 'dev-3' = device_id$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id <> 'dev-3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id IN ('dev-1', 'dev-10', 'dev-1')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id NOT IN ('dev-1', 'dev-10')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id IN ('dev-1', NULL)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id NOT IN ('dev-1', NULL)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = ''$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = 'DEV-3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = 'dev-3 '$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = ANY('{}'::text[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id <> ALL('{}'::text[])$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = repeat('z', 3001)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id IN (repeat('z', 3000), repeat('y', 3002))$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t
       WHERE device_id = (SELECT string_agg(md5((3 * 1000 + j)::text), '') FROM generate_series(1, 100) j)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id <> repeat('z', 3002)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE note = repeat('n', 200)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE note IN ('n1', 'n3') AND device_id = 'dev-5'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE v = 'v1'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE v IN ('v1', 'v4')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE v <> 'v1'::varchar$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = 'dev-3' COLLATE "C"$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE site = 'eu-1'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE site <> 'eu-1'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE site IN ('us-1', 'eu-2')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE site NOT IN ('us-1')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id IS NULL$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wt_t WHERE device_id IN ('dev-1', 'dev-2') GROUP BY g$$),
    ($$SELECT date_trunc('hour', ts) AS t, count(*), gpu_histogram(x, 0, 1, 8) AS h FROM wt_t
       WHERE ts >= '2024-05-02' AND ts < '2024-05-05' AND device_id IN ('dev-1', 'dev-7') GROUP BY 1$$),
    ($$SELECT device_id, gpu_histogram(x, 0, 1, 8) AS h FROM wt_t WHERE device_id IN ('dev-1', 'dev-2', '') GROUP BY 1$$);
SELECT n, c.* FROM wt_queries, LATERAL rt_compare(q) c ORDER BY n;
-- the same on the host's rows, which pages no longer all-visible give (native_quals.cpp: texteq's own
-- steps, detoasting where a length matches); the odd rows keep their stored form, the missing value too
UPDATE wt_t SET g = g WHERE g % 2 = 0;
SELECT n, c.* FROM wt_queries, LATERAL rt_compare(q) c WHERE NOT c.same OR NOT c.scan_planned ORDER BY n;

-- parameters: a generic plan's array and value
SET plan_cache_mode = force_generic_plan;
PREPARE wt_any(text[]) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = ANY($1);
PREPARE wt_eq(text) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = $1;
PREPARE wt_v(varchar) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE v <> $1;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE wt_any('{dev-3, dev-5}')$$),
    ($$EXECUTE wt_any('{}')$$),
    ($$EXECUTE wt_any(NULL)$$),
    ($$EXECUTE wt_any('{dev-3, NULL}')$$),
    ($$EXECUTE wt_eq('dev-4')$$),
    ($$EXECUTE wt_eq(NULL)$$),
    ($$EXECUTE wt_v('v2')$$)
) v(q), LATERAL rt_compare(q) c;
DEALLOCATE wt_any;
DEALLOCATE wt_eq;
DEALLOCATE wt_v;
RESET plan_cache_mode;

-- not compared as bytes: blank-padded char(n), an ordering, two columns, an operator that is not PostgreSQL's
-- own, a nondeterministic collation; those of one column with few values are evaluated once per value
-- (where_computed.sql), the others by the executor
CREATE COLLATION wt_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE FUNCTION wt_same(text, text) RETURNS bool LANGUAGE internal IMMUTABLE STRICT AS 'texteq';
CREATE OPERATOR === (LEFTARG = text, RIGHTARG = text, FUNCTION = wt_same);
SELECT q, (SELECT string_agg(line, ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS evaluation, c.*
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE c = 'c1'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id < 'dev-3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = note$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id === 'dev-3'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id = 'DEV-3' COLLATE wt_ci$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_t WHERE device_id COLLATE wt_ci IN ('DEV-3', 'Dev-4')$$)
) v(q), LATERAL rt_compare(q) c;
DROP COLLATION wt_ci;
DROP OPERATOR === (text, text);
DROP FUNCTION wt_same(text, text);

-- a uuid column (an IoT table's device), compared as its 16 bytes, as
-- uuid_eq and uuid_ne compare it: NULLs, a uuid column added after the rows
-- with a default, and a list of a prepared statement's generic plan; an
-- ordering, a cast to text and an operator that is not PostgreSQL's own stay
-- the executor's
CREATE TABLE wt_u (ts timestamptz, device uuid, x float8) WITH (autovacuum_enabled = off);
INSERT INTO wt_u
SELECT '2024-05-01'::timestamptz + i * interval '1 minute',
       CASE WHEN i % 29 = 0 THEN NULL ELSE md5('dev' || i % 12)::uuid END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END
FROM generate_series(1, 20000) i;
ALTER TABLE wt_u ADD COLUMN site uuid DEFAULT md5('eu')::uuid;
INSERT INTO wt_u (ts, device, site, x)
SELECT '2024-07-01'::timestamptz + i * interval '1 minute', md5('dev' || i % 3)::uuid,
       CASE WHEN i % 4 = 0 THEN NULL ELSE md5('us' || i % 2)::uuid END, (i % 100) / 100.0
FROM generate_series(1, 400) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE wt_u;
CREATE FUNCTION wt_same_uuid(uuid, uuid) RETURNS bool LANGUAGE internal IMMUTABLE STRICT AS 'uuid_eq';
CREATE OPERATOR === (LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = wt_same_uuid);
SELECT q, (SELECT string_agg(line, ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS evaluation, c.*
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device = md5('dev3')::uuid$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device <> 'f0e9a6d1-5bb3-fbd2-8a4f-f8e1c8b7a5b1'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device IN (md5('dev1')::uuid, md5('dev5')::uuid, NULL)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device NOT IN (md5('dev1')::uuid, md5('dev5')::uuid)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device NOT IN (md5('dev1')::uuid, NULL)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device IS DISTINCT FROM md5('dev2')::uuid$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device IS NOT DISTINCT FROM NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE site = md5('eu')::uuid$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE site <> md5('eu')::uuid$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM wt_u WHERE device = md5('dev7')::uuid AND ts < '2024-05-05' GROUP BY 1$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device > md5('dev7')::uuid$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device::text = md5('dev7')$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device === md5('dev7')::uuid$$)
) v(q), LATERAL rt_compare(q) c;
SET plan_cache_mode = force_generic_plan;
PREPARE wt_uany(uuid[]) AS SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wt_u WHERE device = ANY($1);
SELECT q, c.* FROM (VALUES
    ($$EXECUTE wt_uany(ARRAY[md5('dev4')::uuid, md5('dev9')::uuid])$$),
    ($$EXECUTE wt_uany('{}')$$),
    ($$EXECUTE wt_uany(NULL)$$)
) v(q), LATERAL rt_compare(q) c;
DEALLOCATE wt_uany;
RESET plan_cache_mode;
DROP OPERATOR === (uuid, uuid);
DROP FUNCTION wt_same_uuid(uuid, uuid);

RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE wt_t, wt_queries, wt_u;
