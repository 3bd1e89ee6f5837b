--
-- enums_domains: a status column of an enum type and columns of domain
-- types, as real tables have them (`level log_level`, `cpu percent`).
--
-- An enum stores each label as its OID, a 4-byte word that enum_eq and
-- enum_ne compare: so `level = 'error'`, `<>`, `IN`, `NOT IN` and
-- `IS [NOT] DISTINCT FROM` are compared natively, and GROUP BY level is a
-- key by value (value_key.cpp), filled from the labels rows hold, on the
-- host's rows and on the page path.  The labels' order is their sort
-- order, not their OIDs' (a label added BEFORE another has a larger OID),
-- so ordering comparisons stay the executor's and ORDER BY level is
-- PostgreSQL's Sort above the scan.  A domain stores its base type's
-- values: a domain column is a value, a key, an aggregate's argument and
-- a WHERE column as its base type is (heap_stored_type), a time key of a
-- domain over timestamptz too.  Every answer is
-- compared with PostgreSQL's ordinary plan (rt_compare).  A uuid device
-- column as a key is kept as its 16 bytes (column_key.cpp), matched on
-- the page path against a dictionary of the values met.
-- test/gpu/grouped_page_checks.sh runs these shapes on the GPU's pages.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS ed_t;
DROP TYPE IF EXISTS ed_level;
DROP DOMAIN IF EXISTS ed_pct, ed_int, ed_money, ed_tag, ed_time, ed_device;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;
SET jit = off;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;

CREATE TYPE ed_level AS ENUM ('debug', 'info', 'warn', 'error');
CREATE DOMAIN ed_pct AS float8 CHECK (VALUE >= 0);
CREATE DOMAIN ed_int AS int4;
CREATE DOMAIN ed_money AS numeric(10, 2);
CREATE DOMAIN ed_tag AS varchar(16);
CREATE DOMAIN ed_time AS timestamptz;
CREATE DOMAIN ed_device AS uuid;
-- the text column before the values, as users' tables have it
CREATE TABLE ed_t (ts ed_time, host text, level ed_level, n ed_int, price ed_money, tag ed_tag, cpu ed_pct, device uuid, unit ed_device)
    WITH (autovacuum_enabled = off);
INSERT INTO ed_t
SELECT '2024-05-01'::timestamptz + i * interval '1 minute',
       'host-' || i % 7,
       CASE WHEN i % 41 = 0 THEN NULL ELSE (ARRAY['debug', 'info', 'warn', 'error'])[1 + i % 4]::ed_level END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE i % 25 END,
       (i % 1000) / 4.0,
       CASE WHEN i % 31 = 0 THEN NULL ELSE 'tag-' || i % 5 END,
       CASE WHEN i % 29 = 0 THEN NULL WHEN i % 499 = 0 THEN 'Infinity' ELSE ((i::bigint * 7919) % 10007) / 100.0 END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE md5('device-' || i % 9)::uuid END,
       md5('unit-' || i % 4)::uuid
FROM generate_series(1, 20000) i;
SELECT rt_await_snapshots() AS settled;
VACUUM ANALYZE ed_t;
-- labels added after the rows and the statistics: 'notice' sorts before
-- 'warn' but has a larger OID than every other label
ALTER TYPE ed_level ADD VALUE 'notice' BEFORE 'warn';
ALTER TYPE ed_level ADD VALUE 'fatal';
-- a column added after the rows, with a default the old rows hold
ALTER TABLE ed_t ADD COLUMN origin ed_level DEFAULT 'info';
INSERT INTO ed_t (ts, host, level, n, price, tag, cpu, origin)
SELECT '2024-07-01'::timestamptz + i * interval '1 minute', 'host-new',
       (CASE WHEN i % 2 = 0 THEN 'notice' ELSE 'fatal' END)::ed_level, 99, 1.5, 'tag-new', i % 100,
       CASE WHEN i % 3 = 0 THEN NULL ELSE 'error' END::ed_level
FROM generate_series(1, 400) i;
SELECT rt_await_snapshots() AS settled;

-- the page path ran for an enum key and an enum list
SET client_min_messages = debug1;
SELECT level, gpu_histogram(cpu, 0, 100, 4) FROM ed_t WHERE level IN ('warn', 'fatal') GROUP BY 1 ORDER BY 1;
RESET client_min_messages;

SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line
           WHERE line ~ 'Key Computation|Filter Evaluation') AS computed, c.*
FROM (VALUES
    -- enum keys: by value, ordered by the Sort above in the labels' order
    ($$SELECT level, gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t GROUP BY 1 ORDER BY 1$$),
    ($$SELECT level, date_trunc('day', ts) AS d, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1, 2$$),
    ($$SELECT origin, level, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1, 2$$),
    ($$SELECT level::text AS l, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1$$),
    ($$SELECT CASE WHEN level >= 'warn' THEN 'alert' ELSE 'fine' END AS l, gpu_histogram(cpu, 0, 100, 4) AS h
       FROM ed_t GROUP BY 1$$),
    -- enum quals: equality native, order the executor's
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level = 'error'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE 'notice' = level$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level <> 'error'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level IN ('warn', 'fatal', 'info')$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level NOT IN ('warn', 'error')$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level NOT IN ('warn', NULL)$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level = ANY ('{info,NULL}'::ed_level[])$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level IS DISTINCT FROM 'info'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level IS NOT DISTINCT FROM NULL$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE origin = 'info'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level = 'warn' OR origin = 'error'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level >= 'notice'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level = origin$$),
    ($$SELECT date_trunc('hour', ts) AS t, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t
       WHERE level IN ('warn', 'error') AND ts < '2024-05-03' GROUP BY 1$$),
    -- domains: values, aggregates, keys and quals as their base types
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, avg(cpu) AS a, sum(cpu) AS s, min(cpu) AS lo, max(cpu) AS hi FROM ed_t$$),
    ($$SELECT n, gpu_histogram(cpu, 0, 100, 4) AS h, sum(n) AS s, avg(n) AS a, max(n) AS m FROM ed_t GROUP BY 1$$),
    ($$SELECT gpu_histogram(n, 0, 30, 6) AS h, gpu_histogram(price::float8, 0, 300, 6) AS p FROM ed_t$$),
    ($$SELECT host, gpu_histogram(cpu, 0, 100, 4) AS h, sum(price) AS s, avg(price) AS a FROM ed_t GROUP BY 1$$),
    ($$SELECT tag, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1$$),
    ($$SELECT n % 5 AS k, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE cpu > 50$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE n IN (1, 2, 99) AND cpu IS NOT NULL$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE n::numeric > 20.5$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE tag = 'tag-2'$$),
    ($$SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE tag IN ('tag-1', 'tag-new')$$),
    ($$SELECT date_trunc('day', ts) AS d, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1$$),
    ($$SELECT extract(hour FROM ts) AS hr, ts::date AS d, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t
       WHERE ts >= '2024-05-02' AND ts < '2024-05-05' GROUP BY 1, 2$$),
    ($$SELECT date_bin('15 minutes', ts, '2024-01-01') AS b, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t
       WHERE ts < '2024-05-02' GROUP BY 1$$),
    ($$SELECT gpu_histogram(ts, '2024-05-01', '2024-08-01', 12) AS h, min(ts) AS lo, max(ts) AS hi FROM ed_t$$),
    -- a uuid device as the key: its 16 bytes
    ($$SELECT device, gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t GROUP BY 1 ORDER BY 1$$),
    ($$SELECT device, date_trunc('day', ts) AS d, gpu_histogram(cpu, 0, 100, 4) AS h, max(cpu) AS m FROM ed_t GROUP BY 1, 2$$),
    ($$SELECT unit, device, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t
       WHERE device IN (md5('device-1')::uuid, md5('device-2')::uuid, NULL) OR device IS NULL GROUP BY 1, 2$$),
    ($$SELECT device, level, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t WHERE level <> 'debug' GROUP BY 1, 2
       HAVING count(*) > 100$$),
    ($$SELECT level, tag, min(cpu) AS lo, count(cpu) AS c, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t
       WHERE level IN ('warn', 'error') AND n < 20 GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q) c;

-- a uuid key with workers: their groups merged by the bytes
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT q, c.* FROM (VALUES
    ($$SELECT device, gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t GROUP BY 1$$),
    ($$SELECT device, level, gpu_histogram(cpu, 0, 100, 4) AS h FROM ed_t GROUP BY 1, 2$$)
) v(q), LATERAL rt_compare(q) c;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a generic plan's list of labels
SET plan_cache_mode = force_generic_plan;
PREPARE ed_any(ed_level[]) AS SELECT gpu_histogram(cpu, 0, 100, 4) AS h, count(*) AS n FROM ed_t WHERE level = ANY($1);
SELECT q, c.* FROM (VALUES
    ($$EXECUTE ed_any(ARRAY['warn', 'notice']::ed_level[])$$),
    ($$EXECUTE ed_any('{}')$$),
    ($$EXECUTE ed_any(NULL)$$)
) v(q), LATERAL rt_compare(q) c;
DEALLOCATE ed_any;
RESET plan_cache_mode;

-- the ordinary plan's own errors: a domain's value past the histogram's
-- bounds is no error, an Infinity is counted past the last bucket, and a
-- NaN raises as width_bucket does
SELECT gpu_histogram(cpu, 0, 100, 4) FROM ed_t WHERE cpu = 'Infinity';
UPDATE ed_t SET cpu = 'NaN' WHERE ts = '2024-05-01 00:10:00+00';
SELECT level, gpu_histogram(cpu, 0, 100, 4) FROM ed_t GROUP BY 1;

RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE ed_t;
DROP TYPE ed_level;
DROP DOMAIN ed_pct, ed_int, ed_money, ed_tag, ed_time, ed_device;
