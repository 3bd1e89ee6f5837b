--
-- scan: GpuHistogramScan, the custom scan that bins columns straight from
-- heap pages.  Every query runs twice, with gpu_histogram.scan on and off:
-- the ordinary plan (Aggregate over a Seq Scan, which the other topics check
-- against width_bucket) is the reference, and the answers must be equal.
-- scan_compare() says whether the scan was planned and whether they were.
--
LOAD 'gpu_histogram'; -- the planner hook, also without shared_preload_libraries
SET client_min_messages = warning;
DROP VIEW IF EXISTS sc_view;
DROP MATERIALIZED VIEW IF EXISTS sc_mv;
DROP TABLE IF EXISTS sc_t, sc_q, sc_slow, sc_types, sc_nan, sc_empty, sc_part, sc_inh, sc_idx, sc_rls CASCADE;
DROP FUNCTION IF EXISTS scan_compare, try_sql(text, text), scan_counters;
DROP ROLE IF EXISTS regress_sc_reader;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- plans that do not depend on what ran before: a table the GPU's page cache holds (read through
-- probes) costs less to scan serially (cached_cost.h); page_cache_checks.sh covers that on the GPU
SET gpu_histogram.page_probes = off;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
CREATE FUNCTION scan_compare(q text, OUT scan_planned boolean, OUT same boolean)
LANGUAGE plpgsql AS $fn$
BEGIN
    SELECT c.scan_planned, c.same INTO scan_planned, same FROM rt_compare(q) c;
END
$fn$;

-- "SQLSTATE: message" or "ok: result" of q, with the scan on or off.
CREATE FUNCTION try_sql(q text, scan text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    r text;
BEGIN
    PERFORM set_config('gpu_histogram.scan', scan, false);
    BEGIN
        EXECUTE q INTO r;
        RETURN 'ok: ' || coalesce(r, 'NULL');
    EXCEPTION WHEN OTHERS THEN
        RETURN SQLSTATE || ': ' || SQLERRM;
    END;
END
$fn$;

-- What EXPLAIN ANALYZE says the scan read.
CREATE FUNCTION scan_counters(q text, OUT pages bigint, OUT all_visible bigint, OUT tuples bigint, OUT binned bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
    plan := plan -> 0 -> 'Plan';
    pages := plan ->> 'Pages';
    all_visible := plan ->> 'All-Visible Pages';
    tuples := plan ->> 'Visible Tuples';
    binned := (plan ->> 'Values Binned on CPU')::bigint + (plan ->> 'Values Binned on GPU')::bigint;
END
$fn$;

SHOW gpu_histogram.scan;
-- what the setting covers, as pg_settings (and SHOW ALL) describe it
SELECT short_desc, extra_desc FROM pg_settings WHERE name = 'gpu_histogram.scan';

-- A table that makes the column hard to find: a varlena column before it,
-- NULLs, a dropped column, a column added later with a default (older rows
-- do not store it: it comes from the attribute's missing value), and then
-- deleted rows, HOT and non-HOT updates, and only part of it all-visible.
CREATE TABLE sc_t (id integer, label text, dropme float8, x float8, k integer) WITH (fillfactor = 70);
INSERT INTO sc_t
SELECT i, repeat('w', i % 37),
       i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 0.6180339887498949) - floor(i * 0.6180339887498949) END,
       i % 10
FROM generate_series(1, 200000) i;
ALTER TABLE sc_t DROP COLUMN dropme;
ALTER TABLE sc_t ADD COLUMN y float8 DEFAULT 0.25;
ALTER TABLE sc_t ADD COLUMN z integer;
INSERT INTO sc_t (id, label, x, k, y, z)
SELECT i, NULL, i / 300000.0, i % 10, i / 100000.0, i % 1000
FROM generate_series(200001, 300000) i;
CREATE INDEX sc_t_id ON sc_t (id);
SELECT rt_await_snapshots() AS settled; -- every page all-visible (sql/include/helpers.sql)
VACUUM ANALYZE sc_t;
-- changes to the second half only, so that the first stays all-visible
DELETE FROM sc_t WHERE id % 11 = 0 AND id > 150000;
UPDATE sc_t SET k = k + 100 WHERE id % 13 = 0 AND id > 150000;  -- HOT: k is not indexed, pages have room
UPDATE sc_t SET id = -id, x = x / 2 WHERE id % 17 = 0 AND id > 150000; -- not HOT: id is indexed
SELECT count(*) AS rows, count(x) AS x_values, count(z) AS z_values FROM sc_t;
SELECT pg_stat_force_next_flush();
SELECT n_tup_hot_upd > 0 AS hot_updates, n_tup_upd > n_tup_hot_upd AS other_updates
FROM pg_stat_user_tables WHERE relname = 'sc_t';
SELECT all_visible > 0 AND all_visible < pages AS partly_all_visible, tuples, binned
FROM scan_counters('SELECT gpu_histogram(x, 0, 1, 16) FROM sc_t');

-- The plan, in EXPLAIN.
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 16) FROM sc_t');
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 16), gpu_histogram(z, 1000, 0, 7) FROM sc_t WHERE label LIKE ''ww%''');
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 16)::text AS h, 1 AS one FROM sc_t');
SET gpu_histogram.scan = off;
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 16) FROM sc_t');
RESET gpu_histogram.scan;
-- EXPLAIN ANALYZE counts what the scan read and binned (the page cache's
-- lines, there on a GPU host once the cache holds the table, aside).
SELECT line AS rt_explain FROM rt_explain('SELECT gpu_histogram(x, 0, 1, 16) FROM sc_t WHERE k < 5', true) line
WHERE line !~ 'GPU Page Cache|Never Pinned';

-- Every shape the scan covers gives the ordinary plan's answer.
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(x, 0, 1, 16) FROM sc_t'),
    ('SELECT gpu_histogram(x, 1, 0, 16) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0.25, 0.75, 100000) FROM sc_t'),
    ('SELECT gpu_histogram(y, 0, 3, 12) FROM sc_t'),
    ('SELECT gpu_histogram(z, 0, 1000, 10) FROM sc_t'),
    ('SELECT gpu_histogram(id, 0, 300000, 9) FROM sc_t'),
    ('SELECT gpu_histogram(k, 0, 110, 11) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 0, 3, 5), gpu_histogram(x, 1, 0, 3), gpu_histogram(z, 0, 999, 2) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4), gpu_histogram(x, 0, 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4)::text || ''!'', 42 AS answer FROM sc_t'),
    ('SELECT gpu_histogram(x, 0.1 * 2, sqrt(0.81), 3 + 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, NULL, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE k = 3'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE label LIKE ''www%'' OR z > 500'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE y IS NULL OR y > 0.3'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE x > 0.5'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE length(label) BETWEEN 3 AND 9 AND k <> 1'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE ctid > ''(100,0)'''),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t t WHERE t IS NOT NULL'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE x > (SELECT avg(x) FROM sc_t)'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE random() >= 0'),
    ('SELECT gpu_histogram(x, 0, (SELECT max(x) FROM sc_t), 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE k = -1'),
    ('SELECT o.g, (SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE sc_t.k = o.g) FROM generate_series(0, 3) o(g)'),
    ('SELECT o.g, (SELECT gpu_histogram(x, 0, o.g + 1, 4) FROM sc_t WHERE k = 2) FROM generate_series(0, 2) o(g)'),
    ('SELECT * FROM (SELECT gpu_histogram(x, 0, 1, 4) h FROM sc_t) s, LATERAL unnest(s.h) WITH ORDINALITY u'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM ONLY sc_t')
) v(q);

-- Shapes the scan does not cover keep the ordinary plan, with the same answer.
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT k, gpu_histogram(x, 0, 1, 4) FROM sc_t GROUP BY k'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t GROUP BY ()'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t GROUP BY GROUPING SETS ((), (k))'),
    ('SELECT DISTINCT gpu_histogram(x, 0, 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(DISTINCT x, 0, 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4 ORDER BY x) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FILTER (WHERE k = 1) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4), count(*) FROM sc_t'),
    ('SELECT gpu_histogram(x + 1, 1, 2, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x::numeric, 0, 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, id * 0 + 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, k * 0 + 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, floor(random()) + 1, 4) FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE false'),
    ('SELECT gpu_histogram(a.x, 0, 1, 4) FROM sc_t a JOIN sc_t b ON a.id = b.id'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE id IN (SELECT g * 7 FROM generate_series(1, 1000) g)'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t TABLESAMPLE SYSTEM (100)'),
    ('SELECT gpu_histogram(x, 0, 1, 4), array_agg(1) OVER () FROM sc_t'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM (SELECT x FROM sc_t UNION ALL SELECT x FROM sc_t) u')
) v(q);

-- Window functions and DISTINCT are evaluated above the grouped rows, which
-- the scan makes: a running total, a share of the whole, a rank, the
-- change from the previous group, a window's error, and DISTINCT over
-- groups, each with the native page path and without.
SELECT q, pages, (scan_compare(q)).* FROM (VALUES
    ('SELECT k, gpu_histogram(x, 0, 1, 4), sum(count(*)) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) FROM sc_t GROUP BY k'),
    ('SELECT k, gpu_histogram(x, 0, 1, 4), count(*) * 100.0 / sum(count(*)) OVER () FROM sc_t WHERE x < 0.5 GROUP BY k'),
    ('SELECT k % 3, k, gpu_histogram(x, 0, 1, 4), rank() OVER (PARTITION BY k % 3 ORDER BY max(x) DESC) FROM sc_t GROUP BY k'),
    ('SELECT k, h, h[2] - lag(h[2]) OVER (ORDER BY k) FROM (SELECT k, gpu_histogram(x, 0, 1, 4) h FROM sc_t GROUP BY k) s'),
    ('SELECT k, lag(gpu_histogram(x, 0, 1, 4)) OVER (ORDER BY k), avg(avg(x)) OVER () FROM sc_t GROUP BY k'),
    ('SELECT gpu_histogram(x, 0, 1, 4), count(*) OVER () FROM sc_t WHERE k > 100'),
    ('SELECT k, gpu_histogram(x, 0, 1, 4), 1 / (count(*) OVER () - 10) FROM sc_t GROUP BY k'),
    ('SELECT DISTINCT gpu_histogram(x, 0, 1, 2) FROM sc_t WHERE x < 0.5 GROUP BY k % 2'),
    ('SELECT DISTINCT ON (k % 2) k % 2, k, gpu_histogram(x, 0, 1, 2) FROM sc_t GROUP BY k ORDER BY k % 2, k DESC'),
    ('SELECT DISTINCT k % 2 FROM sc_t GROUP BY k HAVING (gpu_histogram(x, 0, 1, 2))[2] > 9000')
) v(q), (VALUES ('off'), ('on')) p(pages)
WHERE set_config('gpu_histogram.debug_pages_on_cpu', p.pages, false) IS NOT NULL
ORDER BY q COLLATE "C", pages;
RESET gpu_histogram.debug_pages_on_cpu;
-- (PostgreSQL 18 also names the window: that line is left out)
SELECT line AS rt_explain FROM rt_explain('SELECT k, gpu_histogram(x, 0, 1, 4), sum(count(*)) OVER (ORDER BY k) FROM sc_t GROUP BY k') line
WHERE line !~ '^ *Window: ';

-- HAVING: the scan emits its state, partial, and a Finalize Aggregate above
-- it evaluates the clause, on an empty input too.
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t HAVING count(*) > 0'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t HAVING gpu_histogram(x, 0, 1, 4) IS NOT NULL'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE x > 2 HAVING count(*) > 0'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE x > 2 HAVING gpu_histogram(x, 0, 1, 4) IS NULL')
) v(q);

-- WHERE clauses of the form column op constant on integer and float columns
-- are evaluated by the scan itself (Filter Evaluation: native), with
-- PostgreSQL's semantics: NaN sorts above every number and equals itself,
-- a NULL column or constant passes nothing, cross-type integer comparisons
-- are exact.  Anything else goes through the executor.
CREATE TABLE sc_q (i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, v float8);
INSERT INTO sc_q
SELECT (i % 200 - 100)::int2, i - 50000, i::int8 * 100000 - 2500000000,
       CASE WHEN i % 1000 = 0 THEN 'NaN' ELSE (i % 997) / 997.0 END,
       CASE i % 5000 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN NULL
                     WHEN 4 THEN '-0' ELSE (i % 991) / 991.0 END,
       (i % 1009) / 1009.0
FROM generate_series(1, 100000) i;
INSERT INTO sc_q VALUES (NULL, NULL, NULL, NULL, NULL, 0.5);
SELECT rt_explain('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 > 0.5 AND 10 >= i2');
SELECT rt_explain('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 > 0.5 AND i2 + 1 > 10');
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 > 0.5'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 <= 0.5'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 = ''NaN'''),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 <> ''NaN'''),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 >= ''NaN'''),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 < ''Infinity'''),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f8 = 0'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE 0.5 < f8'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f4 >= 0.25::float4'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f4 < 0.3'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE f4 > ''NaN''::float4'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i2 = 7'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i2 > 7::int8'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i4 <= 5::int2'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i8 > 3000000000'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i8 <> 2500000000'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE 40000 > i4 AND i2 >= -3 AND f8 <> 0.25'),
    ('SELECT gpu_histogram(v, 0, 1, 8) FROM sc_q WHERE i4 < NULL'),
    ('SELECT gpu_histogram(v, 0, 1, 8), gpu_histogram(f8, 0, 1, 4) FROM sc_q WHERE i2 BETWEEN -10 AND 10')
) v(q);

-- Every column type the scan reads: int2, int4, int8, float4 and float8,
-- through their casts to float8 (the extremes of int8 lose digits in the
-- cast, exactly as in width_bucket(value::float8, ...)).
CREATE TABLE sc_types (a int2, b int4, c int8, d float4, e float8);
INSERT INTO sc_types
SELECT (i % 65536 - 32768)::int2, i * 10000 - 1000000000, i::int8 * 46116860184273 - 4611686018427387904, i / 7.0, i / 7.0
FROM generate_series(0, 200000) i;
INSERT INTO sc_types VALUES (NULL, NULL, NULL, NULL, NULL), (-32768, -2147483648, -9223372036854775808, 'Infinity', '-Infinity'),
                            (32767, 2147483647, 9223372036854775807, '-Infinity', 'Infinity');
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(a, -32768, 32767, 100) FROM sc_types'),
    ('SELECT gpu_histogram(b, -1000000000, 1100000000, 1000) FROM sc_types'),
    ('SELECT gpu_histogram(c, -4611686018427387904, 9223372036854775807, 1000) FROM sc_types'),
    ('SELECT gpu_histogram(d, 0, 30000, 999) FROM sc_types'),
    ('SELECT gpu_histogram(e, 30000, 0, 999) FROM sc_types'),
    ('SELECT gpu_histogram(a, 0, 1, 5), gpu_histogram(b, 0, 1, 5), gpu_histogram(c, 0, 1, 5), gpu_histogram(d, 0, 1, 5) FROM sc_types')
) v(q);
-- ... and the answers are width_bucket's.
SELECT gpu_histogram(d, 0, 30000, 999) = (
    SELECT array_agg(coalesce(n, 0) ORDER BY b)
    FROM generate_series(0, 1000) b
    LEFT JOIN (SELECT width_bucket(d, 0, 30000, 999) AS b, count(*) AS n FROM sc_types GROUP BY 1) w USING (b))
    AS float4_is_width_bucket
FROM sc_types;

-- Prepared statements: bounds as parameters, custom and generic plans.
PREPARE sc_prep(float8, float8, integer, integer) AS
SELECT gpu_histogram(x, $1, $2, $3) FROM sc_t WHERE k = $4;
SET plan_cache_mode = force_generic_plan;
SELECT rt_explain('EXECUTE sc_prep(0, 1, 8, 5)');
EXECUTE sc_prep(0, 1, 8, 5);
SET plan_cache_mode = force_custom_plan;
EXECUTE sc_prep(0, 1, 8, 5);
EXECUTE sc_prep(1, 0, 3, 6);
EXECUTE sc_prep(NULL, 0, 3, 6);
EXECUTE sc_prep(1, 1, 3, 6);
RESET plan_cache_mode;
SET gpu_histogram.scan = off;
EXECUTE sc_prep(1, 0, 3, 6);
RESET gpu_histogram.scan;
DEALLOCATE sc_prep;

-- Errors: the same error, whichever plan runs.  An empty table, or one whose
-- rows are all filtered out, raises none: the aggregate sees no row.
CREATE TABLE sc_nan (v float8, w float4, k integer);
INSERT INTO sc_nan SELECT i, i, i FROM generate_series(1, 5000) i;
INSERT INTO sc_nan VALUES ('NaN', 1, -1), (1, 'NaN', -2);
CREATE TABLE sc_empty (v float8);
SELECT q, try_sql(q, 'on') AS with_scan, try_sql(q, 'on') = try_sql(q, 'off') AS same
FROM (VALUES
    ('SELECT gpu_histogram(v, 0, 6000, 10) FROM sc_nan'),
    ('SELECT gpu_histogram(w, 0, 6000, 10) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 0, 6000, 10) FROM sc_nan WHERE k > 0'),
    ('SELECT gpu_histogram(v, 0, 6000, 10) FROM sc_nan WHERE k = -2'),
    ('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 0, 1, 0) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 0, 1, 10000001) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 0, ''Infinity'', 10) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 0, 1.5e308, 10) FROM sc_nan'),
    ('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan WHERE k > 10000'),
    ('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_empty'),
    ('SELECT gpu_histogram(v, 0, 1, 10) FROM sc_empty'),
    ('SELECT gpu_histogram(v, 0, 6000, 10) FROM sc_nan WHERE 1 / (k - 77) > -10')
) v(q);
-- The first row decides between two errors, as it does for the aggregate.
TRUNCATE sc_nan;
INSERT INTO sc_nan VALUES ('NaN', 0, 1), (2, 0, 2);
SELECT try_sql('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan', 'on') AS with_scan,
       try_sql('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan', 'off') AS without_scan;
SELECT rt_await_snapshots() AS settled;
VACUUM sc_nan; -- all-visible: the scan reads the page in one pass
SELECT try_sql('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan', 'on') AS with_scan;
TRUNCATE sc_nan;
INSERT INTO sc_nan VALUES (2, 0, 2), ('NaN', 0, 1);
SELECT rt_await_snapshots() AS settled;
VACUUM sc_nan;
SELECT try_sql('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan', 'on') AS with_scan,
       try_sql('SELECT gpu_histogram(v, 1, 1, 10) FROM sc_nan', 'off') AS without_scan;
RESET gpu_histogram.scan;

-- A cancel stops the scan (here statement_timeout, while the executor
-- evaluates its WHERE clause), and the session goes on.
CREATE TABLE sc_slow AS SELECT i / 1000.0::float8 AS x FROM generate_series(1, 1000) i;
SET statement_timeout = '300ms';
SELECT gpu_histogram(x, 0, 1, 4) FROM sc_slow WHERE pg_sleep(0.01) IS NOT NULL; -- 10 s uncancelled
RESET statement_timeout;
SELECT gpu_histogram(x, 0, 1, 4) FROM sc_slow;

-- Tables the scan reads and tables it leaves alone.
CREATE MATERIALIZED VIEW sc_mv AS SELECT x FROM sc_t;
CREATE TABLE sc_part (x float8, p integer) PARTITION BY RANGE (p);
CREATE TABLE sc_part_1 PARTITION OF sc_part FOR VALUES FROM (0) TO (5);
CREATE TABLE sc_part_2 PARTITION OF sc_part FOR VALUES FROM (5) TO (10);
INSERT INTO sc_part SELECT x, k FROM sc_t WHERE k < 10;
CREATE TABLE sc_inh (x float8);
CREATE TABLE sc_inh_child () INHERITS (sc_inh);
INSERT INTO sc_inh SELECT x FROM sc_t WHERE k = 1;
INSERT INTO sc_inh_child SELECT x FROM sc_t WHERE k = 2;
CREATE TEMP TABLE sc_temp AS SELECT x FROM sc_t;
CREATE VIEW sc_view AS SELECT x, k FROM sc_t WHERE k < 5;
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_mv'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_temp'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_view'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_part'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_part_1'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_inh'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM ONLY sc_inh')
) v(q);

-- A selective indexed predicate: an index scan under the ordinary Aggregate
-- is cheaper than reading every page, and the planner keeps it.
CREATE TABLE sc_idx AS SELECT i AS id, (i % 1000) / 1000.0::float8 AS x FROM generate_series(1, 200000) i;
CREATE INDEX ON sc_idx (id);
VACUUM ANALYZE sc_idx;
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_idx WHERE id < 100');
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_idx WHERE id < 100')).*;

-- Row-level security: the policy's quals are evaluated before the query's.
CREATE TABLE sc_rls AS SELECT i AS id, i % 5 AS owner, (i % 100) / 100.0::float8 AS x FROM generate_series(1, 50000) i;
ALTER TABLE sc_rls ENABLE ROW LEVEL SECURITY;
ALTER TABLE sc_rls FORCE ROW LEVEL SECURITY;
CREATE POLICY sc_rls_owner ON sc_rls USING (owner = 2);
CREATE ROLE regress_sc_reader;
GRANT SELECT ON sc_rls TO regress_sc_reader;
SET ROLE regress_sc_reader;
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_rls WHERE x < 0.5')).*;
SELECT gpu_histogram(x, 0, 1, 4) FROM sc_rls WHERE x < 0.5;
RESET ROLE;
SELECT gpu_histogram(x, 0, 1, 4) FROM sc_rls WHERE x < 0.5 AND owner = 2;
DROP TABLE sc_rls;
DROP ROLE regress_sc_reader;

-- Own uncommitted changes are seen; another session's are not (dblink),
-- until they commit; a REPEATABLE READ snapshot keeps seeing what it saw.
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('other', format('host=%s port=%s dbname=%s',
       split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()));
CREATE TEMP TABLE sc_before AS SELECT gpu_histogram(x, 0, 1, 8) AS h FROM sc_t;
SELECT dblink_exec('other', 'BEGIN');
SELECT dblink_exec('other', 'INSERT INTO sc_t (id, x) SELECT -i, 0.01 FROM generate_series(1, 1000) i');
SELECT dblink_exec('other', 'DELETE FROM sc_t WHERE id % 5 = 0');
SELECT dblink_exec('other', 'UPDATE sc_t SET x = 0.99 WHERE id % 7 = 0');
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t')).*,
       (SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t) = (SELECT h FROM sc_before) AS unchanged;
BEGIN;
INSERT INTO sc_t (id, x) SELECT -i, 0.5 FROM generate_series(1, 500) i;
DELETE FROM sc_t WHERE id % 3 = 0 AND id % 5 <> 0 AND id % 7 <> 0 AND id > 0;
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t')).*,
       (SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t) = (SELECT h FROM sc_before) AS unchanged;
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT (SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t) = (SELECT h FROM sc_before) AS unchanged;
SELECT dblink_exec('other', 'COMMIT');
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t')).*,
       (SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t) = (SELECT h FROM sc_before) AS unchanged;
COMMIT;
SELECT (scan_compare('SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t')).*,
       (SELECT gpu_histogram(x, 0, 1, 8) FROM sc_t) = (SELECT h FROM sc_before) AS unchanged;
SELECT dblink_disconnect('other');

-- Parallel: the scan is the partial aggregation under a Gather, each
-- process reads its share of the blocks, and the leader combines.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rt_explain('SELECT gpu_histogram(x, 0, 1, 16), gpu_histogram(z, 0, 1000, 3) FROM sc_t WHERE k < 50');
SELECT q, (scan_compare(q)).* FROM (VALUES
    ('SELECT gpu_histogram(x, 0, 1, 16), gpu_histogram(z, 0, 1000, 3) FROM sc_t WHERE k < 50'),
    ('SELECT gpu_histogram(x, 0.25, 0.75, 1000000) FROM sc_t'),
    ('SELECT gpu_histogram(c, 0, 1e18, 7) FROM sc_types'),
    ('SELECT gpu_histogram(x, 0, 1, 4) FROM sc_t WHERE k = -1')
) v(q);
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE sc_serial AS SELECT gpu_histogram(x, 0, 1, 16) AS h FROM sc_t;
SET max_parallel_workers_per_gather = 2;
SELECT gpu_histogram(x, 0, 1, 16) = (SELECT h FROM sc_serial) AS parallel_equals_serial FROM sc_t;
SET max_parallel_workers = 0; -- Gather with no worker: the leader reads every block
SELECT gpu_histogram(x, 0, 1, 16) = (SELECT h FROM sc_serial) AS leader_alone_equals_serial FROM sc_t;
RESET max_parallel_workers;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- The statistics count the scan as a sequential scan.
SELECT pg_stat_force_next_flush();
SELECT seq_scan > 0 AS counted, seq_tup_read > 0 AS tuples_counted FROM pg_stat_user_tables WHERE relname = 'sc_types';
