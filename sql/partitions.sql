--
-- partitions: GpuHistogramScan over partitioned tables and inheritance
-- trees.  Each live leaf after plan-time pruning is a partial scan under an
-- Append, and a Finalize Aggregate combines them.  Range partitions on a
-- timestamptz column (bounds at -infinity and infinity, a default partition
-- holding the NULL and infinite keys, an empty partition, one whose x is
-- all NULL, a sub-partitioned one with no partitions at all), list and hash
-- partitions, two levels (a range partition list-partitioned in turn);
-- leaves whose columns are in another order than the parent's or follow
-- dropped columns (the parent's too), so that attribute numbers differ
-- between parent and leaves, and columns added after the rows were written
-- (each leaf's own missing value); a traditional inheritance tree (a parent
-- with rows, a child with an extra column in its own order, a grandchild, a
-- CHECK constraint that excludes children) and ONLY.  Ungrouped and grouped
-- (plain keys, date_trunc, date_bin, ::date, width_bucket) with count(*)
-- and count(col) beside several histograms; plan-time pruning on the key
-- (some, all or none of the leaves), WHERE clauses off the key and on a
-- key's own expression (a HAVING clause, a view's qual on its key); prepared
-- statements whose key is compared with a parameter in generic plans (the
-- ordinary plan prunes at run time; the scan reads every leaf) and in
-- custom plans; leaves the scan cannot read (another table access method, a
-- foreign table) and shapes that keep the ordinary plan; many groups (the
-- scan's plan taken with enable_seqscan = off, its Finalize HashAggregate
-- spilling); a tight work_mem; parallel settings.  Every answer is compared
-- with the ordinary plan's (gpu_histogram.scan = off), and once per table
-- with width_bucket and count(*) in plain SQL.  rt_compare() prints one
-- line per query: scan_planned | same | rows (with the leaves that the
-- plan reads, where they matter).
--
LOAD 'gpu_histogram'; -- the planner hook, also without shared_preload_libraries
SET client_min_messages = warning;
DROP TABLE IF EXISTS pt_src, pt_range, pt_r_q1, pt_r_q2, pt_r_h2, pt_r_h2_e, pt_list, pt_l_34, pt_hash, pt_h2,
    pt_inh, pt_inh_c1, pt_inh_c2, pt_inh_gc, pt_miss, pt_miss_b, pt_empty, pt_none, pt_mixed, pt_shapes CASCADE;
DROP FUNCTION IF EXISTS pt_leaves;
DROP SERVER IF EXISTS pt_srv CASCADE;
DROP FOREIGN DATA WRAPPER IF EXISTS pt_nohandler CASCADE;
DROP ACCESS METHOD IF EXISTS pt_heap2;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- plans that do not depend on what ran before: a table the GPU's page cache holds (read through
-- probes) costs less to scan serially (cached_cost.h); page_cache_checks.sh covers that on the GPU
SET gpu_histogram.page_probes = off;
-- the data is made in UTC; the queries run in New York
SET TimeZone = 'UTC';
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql

-- the relations that the plan reads (with the scan on), in the plan's order
CREATE FUNCTION pt_leaves(q text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    plan text;
BEGIN
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    plan := rt_plan(q);
    RETURN coalesce((SELECT string_agg(m[1], ' ' ORDER BY n)
                     FROM regexp_matches(plan, 'Scan[^\n]* on (\w+)', 'g') WITH ORDINALITY r(m, n)), '(none)');
END
$fn$;

-- 20,000 rows, about ten an hour from December 10, 2025 to March 5, 2026,
-- with rows on the partition bounds, NULL and infinite times; NULLs in
-- every column; x with infinities, -0 and values outside [0, 1), NULL
-- whenever k = 5 and from March 1.  Every table below holds exactly these
-- rows.
CREATE TABLE pt_src (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8);
INSERT INTO pt_src
SELECT i, tz,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 23 END,
       CASE WHEN i % 97 = 0 THEN NULL ELSE i % 10 END,
       CASE i % 3 WHEN 0 THEN true WHEN 1 THEN false END,
       CASE i % 6 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east' WHEN 3 THEN 'west' WHEN 5 THEN 'North' END,
       CASE WHEN i % 29 = 0 OR i % 97 <> 0 AND i % 10 = 5 OR tz >= '2026-03-01 00:00+00' AND tz < 'infinity' THEN NULL
            WHEN i % 997 = 0 THEN 'Infinity' WHEN i % 991 = 0 THEN '-Infinity' WHEN i % 1009 = 0 THEN '-0'
            ELSE ((i * 0.6180339887498949) - floor(i * 0.6180339887498949)) * 1.2 - 0.1 END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 37 = 0 THEN 1 WHEN i % 41 = 0 THEN -1
            ELSE ((i * 1.4142135623730951) - floor(i * 1.4142135623730951)) * 2.6 - 1.3 END
FROM (SELECT i, CASE WHEN i % 397 = 0 THEN NULL WHEN i % 1000 = 1 THEN '-infinity' WHEN i % 1000 = 2 THEN 'infinity'
                     WHEN i % 1000 = 3 THEN ('{2026-01-01 00:00+00, 2026-01-20 00:00+00, 2026-02-01 00:00+00, 2026-03-01 00:00+00}'::timestamptz[])[i / 1000 % 4 + 1]
                     ELSE timestamptz '2025-12-10 00:00+00' + i * interval '6 minutes 7.7 seconds' END AS tz
      FROM generate_series(1, 20000) i) s;

-- Range partitions on tz: from -infinity; January 1-20 in reversed column
-- order; January 20-31, whose rows were written with three more columns,
-- since dropped; February, list-partitioned on s (NULL, a default and a
-- leaf in its own column order after a dropped column); from March 2026 to
-- 2028 (x all NULL); 2029, partitioned with no partition; from 2030 to
-- infinity (empty); the default (NULL and infinity).
CREATE TABLE pt_range (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8) PARTITION BY RANGE (tz);
CREATE TABLE pt_r_past PARTITION OF pt_range FOR VALUES FROM ('-infinity') TO ('2026-01-01 00:00+00');
CREATE TABLE pt_r_q1 (y float8, x float8, s text, b bool, k int4, g int4, tz timestamptz, id int4);
ALTER TABLE pt_range ATTACH PARTITION pt_r_q1 FOR VALUES FROM ('2026-01-01 00:00+00') TO ('2026-01-20 00:00+00');
CREATE TABLE pt_r_q2 (pad1 text, g int4, pad2 float8, tz timestamptz, x float8, pad3 int8, id int4, y float8, k int4, s text, b bool);
INSERT INTO pt_r_q2 SELECT repeat('p', id % 50), g, id, tz, x, id * 3, id, y, k, s, b FROM pt_src
WHERE tz >= '2026-01-20 00:00+00' AND tz < '2026-02-01 00:00+00';
ALTER TABLE pt_r_q2 DROP COLUMN pad1, DROP COLUMN pad2, DROP COLUMN pad3;
ALTER TABLE pt_range ATTACH PARTITION pt_r_q2 FOR VALUES FROM ('2026-01-20 00:00+00') TO ('2026-02-01 00:00+00');
CREATE TABLE pt_r_h2 (s text, x float8, tz timestamptz, id int4, g int4, y float8, b bool, k int4) PARTITION BY LIST (s);
CREATE TABLE pt_r_h2_ns PARTITION OF pt_r_h2 FOR VALUES IN ('north', 'south');
CREATE TABLE pt_r_h2_e (pad text, k int4, b bool, y float8, g int4, id int4, tz timestamptz, x float8, s text);
ALTER TABLE pt_r_h2_e DROP COLUMN pad;
ALTER TABLE pt_r_h2 ATTACH PARTITION pt_r_h2_e FOR VALUES IN ('east');
CREATE TABLE pt_r_h2_null PARTITION OF pt_r_h2 FOR VALUES IN (NULL);
CREATE TABLE pt_r_h2_def PARTITION OF pt_r_h2 DEFAULT;
ALTER TABLE pt_range ATTACH PARTITION pt_r_h2 FOR VALUES FROM ('2026-02-01 00:00+00') TO ('2026-03-01 00:00+00');
CREATE TABLE pt_r_future PARTITION OF pt_range FOR VALUES FROM ('2026-03-01 00:00+00') TO ('2029-01-01 00:00+00');
CREATE TABLE pt_r_2029 PARTITION OF pt_range FOR VALUES FROM ('2029-01-01 00:00+00') TO ('2030-01-01 00:00+00')
    PARTITION BY LIST (s);
CREATE TABLE pt_r_empty PARTITION OF pt_range FOR VALUES FROM ('2030-01-01 00:00+00') TO ('infinity');
CREATE TABLE pt_r_default PARTITION OF pt_range DEFAULT;
INSERT INTO pt_range SELECT * FROM pt_src WHERE NOT (tz >= '2026-01-20 00:00+00' AND tz < '2026-02-01 00:00+00') OR tz IS NULL;

-- List partitions on k, under a parent with a dropped column: a leaf in
-- its own column order, the leaf where x is all NULL, an empty leaf, the
-- NULL leaf and the default.
CREATE TABLE pt_list (k int4, junk text, id int4, tz timestamptz, g int4, b bool, s text, x float8, y float8) PARTITION BY LIST (k);
ALTER TABLE pt_list DROP COLUMN junk;
CREATE TABLE pt_l_012 PARTITION OF pt_list FOR VALUES IN (0, 1, 2);
CREATE TABLE pt_l_34 (x float8, y float8, id int4, k int4, s text, b bool, g int4, tz timestamptz);
ALTER TABLE pt_list ATTACH PARTITION pt_l_34 FOR VALUES IN (3, 4);
CREATE TABLE pt_l_5 PARTITION OF pt_list FOR VALUES IN (5);
CREATE TABLE pt_l_empty PARTITION OF pt_list FOR VALUES IN (100, 101);
CREATE TABLE pt_l_null PARTITION OF pt_list FOR VALUES IN (NULL);
CREATE TABLE pt_l_def PARTITION OF pt_list DEFAULT;
INSERT INTO pt_list (id, tz, g, k, b, s, x, y) SELECT * FROM pt_src;

-- Hash partitions on id, of moduli 4 and 8, one in its own column order.
CREATE TABLE pt_hash (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8) PARTITION BY HASH (id);
CREATE TABLE pt_h0 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE pt_h1 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE pt_h2 (b bool, s text, k int4, y float8, id int4, g int4, x float8, tz timestamptz);
ALTER TABLE pt_hash ATTACH PARTITION pt_h2 FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE pt_h3 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 8, REMAINDER 3);
CREATE TABLE pt_h7 PARTITION OF pt_hash FOR VALUES WITH (MODULUS 8, REMAINDER 7);
INSERT INTO pt_hash SELECT * FROM pt_src;

-- Inheritance: the parent has rows of its own; pt_inh_c1 (CHECK g < 12,
-- rows written with a column since dropped) and its child pt_inh_gc;
-- pt_inh_c2, made on its own with an extra column and the columns in
-- another order, then made a child.
CREATE TABLE pt_inh (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8);
CREATE TABLE pt_inh_c1 (CHECK (g < 12)) INHERITS (pt_inh);
CREATE TABLE pt_inh_c2 (extra text, y float8, x float8, s text, b bool, k int4, g int4, tz timestamptz, id int4);
ALTER TABLE pt_inh_c2 INHERIT pt_inh;
CREATE TABLE pt_inh_gc () INHERITS (pt_inh_c1);
ALTER TABLE pt_inh_c1 ADD COLUMN pad text;
INSERT INTO pt_inh SELECT * FROM pt_src WHERE id % 4 = 0 OR id % 2 = 1 AND (g IS NULL OR g >= 12);
INSERT INTO pt_inh_c1 SELECT *, 'padding ' || id FROM pt_src WHERE id % 4 = 1 AND g < 12;
ALTER TABLE pt_inh_c1 DROP COLUMN pad;
INSERT INTO pt_inh_gc SELECT * FROM pt_src WHERE id % 4 = 3 AND g < 12;
INSERT INTO pt_inh_c2 SELECT 'extra ' || id, y, x, s, b, k, g, tz, id FROM pt_src WHERE id % 4 = 2;

-- Columns added after rows were written: the rows do not store them, and
-- each leaf reads its own missing value (0.25 from the parent's ADD COLUMN,
-- 0.75 in pt_miss_b, whose column was added before it was attached; NULL
-- for v); the default partition's rows, written later, store them.
CREATE TABLE pt_miss (k int4, x float8) PARTITION BY LIST (k);
CREATE TABLE pt_miss_a PARTITION OF pt_miss FOR VALUES IN (1);
INSERT INTO pt_miss SELECT 1, (i % 10) / 10.0 FROM generate_series(1, 1000) i;
ALTER TABLE pt_miss ADD COLUMN w float8 DEFAULT 0.25;
CREATE TABLE pt_miss_b (x float8, k int4);
INSERT INTO pt_miss_b SELECT (i % 7) / 7.0, 2 FROM generate_series(1, 700) i;
ALTER TABLE pt_miss_b ADD COLUMN w float8 DEFAULT 0.75;
ALTER TABLE pt_miss ATTACH PARTITION pt_miss_b FOR VALUES IN (2);
ALTER TABLE pt_miss ADD COLUMN v float8;
CREATE TABLE pt_miss_c PARTITION OF pt_miss DEFAULT;
INSERT INTO pt_miss SELECT i % 5 + 3, (i % 4) / 4.0, (i % 3) / 3.0, i / 500.0 FROM generate_series(1, 500) i;
INSERT INTO pt_miss (k, x) VALUES (1, 0.5), (2, 0.5), (9, 0.5);

-- Two empty partitions (MINVALUE, MAXVALUE), and no partition at all.
CREATE TABLE pt_empty (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8) PARTITION BY RANGE (tz);
CREATE TABLE pt_empty_a PARTITION OF pt_empty FOR VALUES FROM (MINVALUE) TO ('2026-01-01 00:00+00');
CREATE TABLE pt_empty_b PARTITION OF pt_empty FOR VALUES FROM ('2026-01-01 00:00+00') TO (MAXVALUE);
CREATE TABLE pt_none (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8) PARTITION BY RANGE (tz);

-- Leaves the scan cannot read: a table of another access method (a second
-- name for heap's handler), and a foreign table whose wrapper has no
-- handler (any query that does not prune it fails, in either plan).
CREATE ACCESS METHOD pt_heap2 TYPE TABLE HANDLER heap_tableam_handler;
CREATE FOREIGN DATA WRAPPER pt_nohandler;
CREATE SERVER pt_srv FOREIGN DATA WRAPPER pt_nohandler;
CREATE TABLE pt_mixed (id int4, tz timestamptz, g int4, k int4, b bool, s text, x float8, y float8) PARTITION BY RANGE (tz);
CREATE TABLE pt_m_heap PARTITION OF pt_mixed FOR VALUES FROM ('-infinity') TO ('2026-02-01 00:00+00');
CREATE TABLE pt_m_am PARTITION OF pt_mixed FOR VALUES FROM ('2026-02-01 00:00+00') TO ('2030-01-01 00:00+00') USING pt_heap2;
CREATE FOREIGN TABLE pt_m_foreign PARTITION OF pt_mixed FOR VALUES FROM ('2030-01-01 00:00+00') TO (MAXVALUE) SERVER pt_srv;
INSERT INTO pt_mixed SELECT * FROM pt_src WHERE tz < '2030-01-01 00:00+00';

-- (ANALYZE of pt_mixed would need the foreign table's handler)
VACUUM ANALYZE pt_src, pt_range, pt_list, pt_hash, pt_inh, pt_inh_c1, pt_inh_c2, pt_inh_gc, pt_miss, pt_empty, pt_m_heap, pt_m_am;

-- The leaves: their rows, and where tz and x lie in each (attribute
-- numbers, and how many dropped columns there are).
SELECT r.tableoid::regclass AS leaf, count(*) AS rows, count(x) AS x, count(tz) AS tz,
       (SELECT attnum FROM pg_attribute WHERE attrelid = r.tableoid AND attname = 'tz') AS tz_attnum,
       (SELECT attnum FROM pg_attribute WHERE attrelid = r.tableoid AND attname = 'x') AS x_attnum,
       (SELECT count(*) FROM pg_attribute WHERE attrelid = r.tableoid AND attisdropped) AS dropped
FROM (SELECT tableoid, x, tz FROM pt_range UNION ALL SELECT tableoid, x, tz FROM pt_list
      UNION ALL SELECT tableoid, x, tz FROM pt_hash UNION ALL SELECT tableoid, x, tz FROM pt_inh
      UNION ALL SELECT tableoid, x, tz FROM pt_m_heap UNION ALL SELECT tableoid, x, tz FROM pt_m_am) r
GROUP BY r.tableoid ORDER BY r.tableoid::regclass::text;
SELECT c.relname AS parent, a.attnum AS tz_attnum, b.attnum AS x_attnum
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tz' JOIN pg_attribute b ON b.attrelid = c.oid AND b.attname = 'x'
WHERE c.relname IN ('pt_range', 'pt_r_h2', 'pt_list', 'pt_hash', 'pt_inh') ORDER BY 1;

SET TimeZone = 'America/New_York';

-- The plans, in EXPLAIN: the leaves left after pruning (two of them with
-- their own attribute numbers), two levels pruned at once, children
-- excluded by their CHECK constraint, and nothing left.
SELECT rt_explain($$SELECT date_trunc('day', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-10' AND tz < '2026-01-25' GROUP BY 1$$);
SELECT rt_explain($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-25' AND tz < '2026-02-10' AND s IN ('east', 'west')$$);
SELECT rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_inh WHERE g >= 12 GROUP BY g$$);
SELECT rt_explain($$SELECT gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz > '2026-01-01' AND tz < '2025-01-01'$$);

-- Every table, ungrouped and grouped by each key kind, with count(*),
-- count(col) and several histograms (of float8 and int4 columns); as_src:
-- the same answer as over pt_src, the unpartitioned table of the same rows.
CREATE TEMP TABLE pt_shapes (qn int, q text);
INSERT INTO pt_shapes SELECT n, q FROM unnest(ARRAY[
    $$SELECT gpu_histogram(x, 0, 1, 8) FROM %s$$,
    $$SELECT count(*), count(x), count(tz), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 5), gpu_histogram(g, 0, 23, 4) FROM %s$$,
    $$SELECT gpu_histogram(id, 0, 20000, 10), gpu_histogram(k, 10, 0, 5), gpu_histogram(x, 1, 0, 3), count(k) FROM %s$$,
    $$SELECT g, gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY g$$,
    $$SELECT k, count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY k$$,
    $$SELECT b, s, count(*), count(y), gpu_histogram(x, 0, 1, 4), gpu_histogram(y, 1, -1, 3) FROM %s GROUP BY b, s$$,
    $$SELECT tz, gpu_histogram(x, 0, 1, 4) FROM %s GROUP BY tz$$,
    $$SELECT date_trunc('hour', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1$$,
    $$SELECT date_trunc('day', tz), count(x), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM %s GROUP BY 1$$,
    $$SELECT date_trunc('month', tz), b, gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1, 2$$,
    $$SELECT date_bin('1 hour', tz, '2026-01-01 00:30'), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1$$,
    $$SELECT date_bin('1 day 3 hours', tz, '2026-03-08 02:30'), count(*), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1$$,
    $$SELECT tz::date, count(tz), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1$$,
    $$SELECT width_bucket(y, -1, 1, 5), count(*), gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY 1$$,
    $$SELECT g, width_bucket(y, -1, 1, 4), gpu_histogram(x, 0, 1, 8), gpu_histogram(id, 0, 20000, 4) FROM %s GROUP BY 1, 2$$,
    $$SELECT gpu_histogram(x, 0, 1, 8) FROM %s GROUP BY s$$
]) WITH ORDINALITY u(q, n);
SELECT qn, q FROM pt_shapes ORDER BY qn;
SELECT qn, tbl, c.*, rt_rows(format(q, tbl)) = rt_rows(format(q, 'pt_src')) AS as_src
FROM pt_shapes, unnest(ARRAY['pt_range', 'pt_list', 'pt_hash', 'pt_inh']) WITH ORDINALITY ts(tbl, tn),
     LATERAL rt_compare(format(q, tbl)) c
ORDER BY qn, tn;
-- ... over parts of the trees: the second level alone, an inheritance
-- subtree, ONLY (the parent's own rows; a child with an extra column), and
-- in another time zone.
SELECT qn, tbl, c.*
FROM pt_shapes, unnest(ARRAY['pt_r_h2', 'pt_inh_c1', 'ONLY pt_inh', 'ONLY pt_inh_c1', 'pt_inh_c2']) WITH ORDINALITY ts(tbl, tn),
     LATERAL rt_compare(format(q, tbl)) c
WHERE qn IN (2, 4, 9, 12, 15)
ORDER BY qn, tn;
SELECT q, c.* FROM (VALUES
    ($$SELECT g, count(extra), gpu_histogram(x, 0, 1, 8) FROM pt_inh_c2 WHERE extra LIKE 'extra 1%' GROUP BY g$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY 1$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM pt_inh GROUP BY 1$$)
) v(q), LATERAL rt_compare(q, zone => 'Asia/Kathmandu') c;

-- Values that the rows do not store: each leaf's missing value.
SELECT q, c.* FROM (VALUES
    ($$SELECT count(*), count(w), count(v), gpu_histogram(w, 0, 1, 4), gpu_histogram(v, 0, 1, 4), gpu_histogram(x, 0, 1, 4) FROM pt_miss$$),
    ($$SELECT k, count(w), gpu_histogram(w, 0, 1, 4), gpu_histogram(v, 0, 1, 4) FROM pt_miss GROUP BY k$$),
    ($$SELECT width_bucket(w, 0, 1, 4), count(*), gpu_histogram(x, 0, 1, 4) FROM pt_miss GROUP BY 1$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 4) FROM pt_miss WHERE w > 0.5 GROUP BY k$$),
    ($$SELECT gpu_histogram(w, 0, 1, 4) FROM pt_miss WHERE v IS NULL$$)
) v(q), LATERAL rt_compare(q) c;
SELECT k, count(*), gpu_histogram(w, 0, 1, 4) AS w, gpu_histogram(v, 0, 1, 4) AS v FROM pt_miss GROUP BY k ORDER BY k;

-- Against width_bucket and count(*) in plain SQL, once per table.
SELECT tbl, array_to_string(k, ', ') AS keys, c.* FROM (VALUES
    ('pt_range', ARRAY['date_trunc(''day'', tz)'], 'x', 0::float8, 1::float8, 8),
    ('pt_range', ARRAY['g', 'b'], 'y', -1, 1, 5),
    ('pt_r_h2', ARRAY['s'], 'x', 0, 1, 8),
    ('pt_list', ARRAY['k'], 'x', 0, 1, 8),
    ('pt_list', ARRAY['date_bin(''1 day'', tz, ''2026-01-01 06:00'')'], 'x', 1, 0, 4),
    ('pt_hash', ARRAY['width_bucket(y, -1, 1, 5)'], 'x', 0, 1, 8),
    ('pt_hash', ARRAY['tz::date'], 'id', 0, 20000, 7),
    ('pt_inh', ARRAY['g'], 'x', 0, 1, 8),
    ('pt_inh', ARRAY['date_trunc(''week'', tz)', 'b'], 'x', 0, 1, 8),
    ('ONLY pt_inh', ARRAY['s'], 'x', 0, 1, 8)
) v(tbl, k, val, lo, hi, nbins), LATERAL rt_against_width_bucket(tbl, k, val, lo, hi, nbins) c;

-- Plan-time pruning on the key: some leaves, one leaf, the default, all
-- of them pruned (no row: one row of NULL and 0 ungrouped, no row grouped);
-- then WHERE clauses off the key (on the second level's key, pruning only
-- there) and values the planner cannot prune with (now(), a subquery): the
-- scan reads every leaf and filters.  leaves: what the plan reads.
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz < '2026-01-10'$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-15' AND tz < '2026-01-25' GROUP BY 1$$),
    ($$SELECT g, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz BETWEEN '2026-01-01 00:00+00' AND '2026-02-01 00:00+00' GROUP BY g$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-02-10' AND tz < '2026-02-12' AND s = 'east' GROUP BY 1$$),
    ($$SELECT s, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-02-15' AND s IS NULL GROUP BY s$$),
    ($$SELECT tz, count(*), count(tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz IS NULL GROUP BY tz$$),
    ($$SELECT tz, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz = 'infinity' OR tz = '-infinity' GROUP BY tz$$),
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-03-01'$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2030-06-01' AND tz < 'infinity'$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2030-06-01' AND tz < 'infinity' GROUP BY 1$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz > '2026-01-01' AND tz < '2025-01-01'$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz > '2026-01-01' AND tz < '2025-01-01' GROUP BY g$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE s = 'east' GROUP BY b$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE g < 5 AND x * 2 < 1.5 GROUP BY g$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz < now() + interval '500 years' GROUP BY 1$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz < (SELECT timestamptz '2026-01-10 00:00+00')$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k IN (3, 4, 5) GROUP BY g$$),
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 5$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k > 6 GROUP BY k$$),
    ($$SELECT k, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k IS NULL GROUP BY k$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 100$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 100 GROUP BY k$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 3 AND k = 4$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_hash WHERE id = 77$$),
    ($$SELECT id, gpu_histogram(x, 0, 1, 8) FROM pt_hash WHERE id IN (1, 2, 3, 19999) GROUP BY id$$),
    ($$SELECT b, gpu_histogram(x, 0, 1, 8) FROM pt_hash WHERE g = 7 GROUP BY b$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_inh WHERE g >= 12 GROUP BY g$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_inh WHERE g < 0$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_inh_c1 WHERE g > 20 GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;

-- A WHERE clause on the key's own expression (which prunes nothing: it is
-- not the partition key), a HAVING clause on the key (which the planner
-- moves to WHERE), and a view's qual on its key column (pushed down into
-- the view's WHERE): each leaf's scan evaluates the key's expression, in
-- the leaf's own Vars, on each row as the ordinary plan does.
CREATE VIEW pt_daily AS SELECT date_trunc('day', tz) AS day, count(*) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM pt_range GROUP BY 1;
CREATE VIEW pt_inh_days AS SELECT tz::date AS day, gpu_histogram(x, 0, 1, 8) AS h FROM pt_inh GROUP BY 1;
SELECT rt_explain($$SELECT * FROM pt_inh_days WHERE day BETWEEN '2026-01-10' AND '2026-01-12'$$);
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 16) FROM pt_range WHERE date_trunc('day', tz) >= '2026-02-20' GROUP BY 1$$),
    ($$SELECT tz::date, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE tz::date > '2026-02-25' GROUP BY tz::date$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8) FROM pt_hash GROUP BY 1 HAVING date_trunc('hour', tz) < '2025-12-12'$$),
    ($$SELECT width_bucket(y, -1, 1, 5), gpu_histogram(x, 0, 1, 8) FROM pt_inh WHERE width_bucket(y, -1, 1, 5) IN (0, 3) GROUP BY 1$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-15' AND date_trunc('day', tz) < '2026-01-22' GROUP BY 1$$),
    ($$SELECT * FROM pt_daily WHERE day >= '2026-02-20'$$),
    ($$SELECT * FROM pt_daily WHERE day < '2025-12-13' OR day IS NULL$$),
    ($$SELECT * FROM pt_inh_days WHERE day BETWEEN '2026-01-10' AND '2026-01-12'$$)
) v(q), LATERAL rt_compare(q) c;

-- Empty tables and partitions, and all-NULL x.
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_empty$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_empty GROUP BY g$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_none$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_none GROUP BY 1$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM ONLY pt_range$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_r_2029$$),
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM pt_r_future$$),
    ($$SELECT date_trunc('month', tz), count(*), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM pt_range WHERE tz >= '2026-02-25' GROUP BY 1$$),
    ($$SELECT b, count(x), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k IN (5, 100) GROUP BY b$$)
) v(q), LATERAL rt_compare(q) c;
SELECT rt_rows($$SELECT date_trunc('month', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-02-25' GROUP BY 1$$) AS the_last_months;

-- Prepared statements: the key compared with parameters.  A generic plan
-- keeps every leaf (the ordinary plan removes the others when it starts;
-- the scan reads them all, its filter taking the parameters' values); a
-- custom plan prunes at plan time.
PREPARE pt_days(timestamptz, timestamptz) AS
    SELECT date_trunc('day', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= $1 AND tz < $2 GROUP BY 1;
PREPARE pt_before(timestamptz) AS
    SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM pt_range WHERE tz < $1;
PREPARE pt_region(text, timestamptz) AS
    SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE s = $1 AND tz >= $2 GROUP BY g;
PREPARE pt_k(int4) AS
    SELECT b, count(*), gpu_histogram(y, -1, 1, 4), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = $1 GROUP BY b;
PREPARE pt_ids(int4, int4) AS
    SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_hash WHERE id IN ($1, $2);
PREPARE pt_bounds(float8, float8, int4, timestamptz) AS
    SELECT date_bin('1 day', tz, '2026-01-01 06:00'), gpu_histogram(x, $1, $2, $3) FROM pt_range WHERE tz >= $4 GROUP BY 1;
PREPARE pt_inh_g(int4) AS
    SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_inh WHERE g >= $1 GROUP BY 1;
SET plan_cache_mode = force_generic_plan;
SELECT rt_explain($$EXECUTE pt_k(3)$$);
BEGIN;
SELECT rt_scan('off', $$EXECUTE pt_k(3)$$);
SELECT rt_explain($$EXECUTE pt_k(3)$$);
COMMIT;
DISCARD PLANS;
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$EXECUTE pt_days('2026-01-15', '2026-01-25')$$),
    ($$EXECUTE pt_days('2026-02-10', '2026-02-14')$$),
    ($$EXECUTE pt_days('-infinity', 'infinity')$$),
    ($$EXECUTE pt_days('2031-01-01', '2032-01-01')$$),
    ($$EXECUTE pt_days('2026-02-01', '2026-01-01')$$),
    ($$EXECUTE pt_days(NULL, '2026-02-01')$$),
    ($$EXECUTE pt_before('2026-01-01 00:00+00')$$),
    ($$EXECUTE pt_before('infinity')$$),
    ($$EXECUTE pt_region('east', '2026-01-25')$$),
    ($$EXECUTE pt_region('North', '-infinity')$$),
    ($$EXECUTE pt_region(NULL, '-infinity')$$),
    ($$EXECUTE pt_k(5)$$),
    ($$EXECUTE pt_k(3)$$),
    ($$EXECUTE pt_k(42)$$),
    ($$EXECUTE pt_k(7)$$),
    ($$EXECUTE pt_k(100)$$),
    ($$EXECUTE pt_k(NULL)$$),
    ($$EXECUTE pt_ids(1, 2)$$),
    ($$EXECUTE pt_ids(77, 77)$$),
    ($$EXECUTE pt_bounds(0, 1, 8, '2026-02-20')$$),
    ($$EXECUTE pt_bounds(1, 0, 3, '2026-01-19')$$),
    ($$EXECUTE pt_inh_g(12)$$),
    ($$EXECUTE pt_inh_g(0)$$)
) v(q), LATERAL rt_compare(q) c;
-- the same generic plan run again with other values (not planned again)
SELECT cardinality(rt_rows($$EXECUTE pt_days('2026-01-01', '2026-02-01')$$)) AS first_run;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE pt_days('2026-01-18', '2026-02-03')$$),
    ($$EXECUTE pt_days('2025-12-30', '2026-01-02')$$),
    ($$EXECUTE pt_k(0)$$),
    ($$EXECUTE pt_k(NULL)$$)
) v(q), LATERAL rt_compare(q, replan => false) c;
SELECT q, c.* FROM (VALUES
    ($$EXECUTE pt_bounds(0, 0, 8, '2026-02-20')$$),
    ($$EXECUTE pt_bounds(0, 1, 8, '2031-01-01')$$)
) v(q), LATERAL rt_try(q) c;
SET plan_cache_mode = force_custom_plan;
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$EXECUTE pt_days('2026-01-15', '2026-01-25')$$),
    ($$EXECUTE pt_days('-infinity', 'infinity')$$),
    ($$EXECUTE pt_days('2031-01-01', '2032-01-01')$$),
    ($$EXECUTE pt_before('2026-01-01 00:00+00')$$),
    ($$EXECUTE pt_region('east', '2026-01-25')$$),
    ($$EXECUTE pt_k(5)$$),
    ($$EXECUTE pt_k(NULL)$$),
    ($$EXECUTE pt_ids(1, 2)$$),
    ($$EXECUTE pt_bounds(1, 0, 3, '2026-01-19')$$),
    ($$EXECUTE pt_inh_g(12)$$)
) v(q), LATERAL rt_compare(q) c;
RESET plan_cache_mode;
DEALLOCATE pt_days;
DEALLOCATE pt_before;
DEALLOCATE pt_region;
DEALLOCATE pt_k;
DEALLOCATE pt_ids;
DEALLOCATE pt_bounds;
DEALLOCATE pt_inh_g;

-- Many groups (one or two rows each), one small leaf, empty leaves: the
-- ordinary plan costs less, and the planner keeps it.  With enable_seqscan
-- = off the ordinary plan's Seq Scans cost too much and the scan's plan is
-- taken (the scan is no Seq Scan), to check its answers; with thousands of
-- groups its Finalize HashAggregate spills partial states to disk, the
-- more so in 1MB of work_mem (where a leaf of too many groups keeps the
-- ordinary plan).  On 18 a table pruned to one leaf keeps a tiny leaf's
-- ordinary plan: 18's Append of a single child does not carry the child's
-- disabled Seq Scan, so the ordinary plan is not counted as disabled and
-- costs less (partitions_2.out).
SET enable_seqscan = off;
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT tz, gpu_histogram(x, 0, 1, 4) FROM pt_range GROUP BY tz$$),
    ($$SELECT date_trunc('hour', tz), count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY 1$$),
    ($$SELECT date_bin('15 minutes', tz, '2026-01-01'), gpu_histogram(x, 0, 1, 8) FROM pt_hash GROUP BY 1$$),
    ($$SELECT date_trunc('hour', tz), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_inh GROUP BY 1$$),
    ($$SELECT id, gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM pt_list GROUP BY id$$),
    ($$SELECT k, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k IS NULL GROUP BY k$$),
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 100$$),
    ($$SELECT k, gpu_histogram(x, 0, 1, 8) FROM pt_list WHERE k = 100 GROUP BY k$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2030-06-01' AND tz < 'infinity'$$),
    ($$SELECT count(*), count(x), gpu_histogram(x, 0, 1, 8) FROM pt_empty$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_empty GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;
SET work_mem = '1MB';
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT tz, gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY tz$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 8) FROM pt_inh GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
RESET work_mem;
RESET enable_seqscan;

-- Leaves the scan cannot read: with one of them left, the whole query
-- keeps the ordinary plan; pruned away, the scan reads the others; not
-- pruned, the foreign table fails in either plan.
SELECT q, pt_leaves(q) AS leaves, c.* FROM (VALUES
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_mixed WHERE tz < '2029-06-01'$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_mixed WHERE tz < '2029-06-01' GROUP BY g$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_mixed WHERE tz < '2026-01-15' GROUP BY 1$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_mixed WHERE tz >= '2026-02-10' AND tz < '2029-06-01'$$)
) v(q), LATERAL rt_compare(q) c;
SELECT q, c.* FROM (VALUES
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_mixed$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_mixed WHERE tz IS NULL$$)
) v(q), LATERAL rt_try(q) c;

-- HAVING over the leaves: the Finalize Aggregate above the Append
-- evaluates it on the combined states.
SELECT q, c.* FROM (VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY g HAVING count(*) > 860$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_inh GROUP BY g HAVING gpu_histogram(x, 0, 1, 8) IS NOT NULL$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM pt_list HAVING count(*) > 0$$)
) v(q), LATERAL rt_compare(q) c;

-- Shapes that keep the ordinary plan, with the same answer; and
-- PostgreSQL's own partitionwise aggregation, which the scan does not
-- take part in (the scan's plan competes with it).
SELECT q, c.* FROM (VALUES
    ($$SELECT y, gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY y$$),
    ($$SELECT g, stddev(x), gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY g$$),
    ($$SELECT stddev(y), gpu_histogram(x, 0, 1, 8) FROM pt_list$$),
    ($$SELECT g, b, gpu_histogram(x, 0, 1, 8) FROM pt_hash GROUP BY ROLLUP (g, b)$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FILTER (WHERE b) FROM pt_list GROUP BY g$$),
    ($$SELECT g, gpu_histogram(DISTINCT x, 0, 1, 8) FROM pt_inh GROUP BY g$$),
    ($$SELECT g % 5, gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x + 1, 1, 2, 8) FROM pt_hash GROUP BY g$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range TABLESAMPLE BERNOULLI (100)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM (SELECT x FROM pt_range UNION ALL SELECT x FROM pt_inh) u$$),
    ($$SELECT a.g, gpu_histogram(a.x, 0, 1, 8) FROM pt_range a JOIN pt_hash b ON a.id = b.id GROUP BY a.g$$)
) v(q), LATERAL rt_compare(q) c;
SET enable_partitionwise_aggregate = on;
SELECT q, rt_plan(q) LIKE '%Finalize%' AS finalize, c.* FROM (VALUES
    ($$SELECT k, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_list GROUP BY k$$),
    ($$SELECT tz, gpu_histogram(x, 0, 1, 4) FROM pt_range GROUP BY tz$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY g$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_hash$$),
    ($$SELECT id, gpu_histogram(x, 0, 1, 8) FROM pt_hash WHERE id < 100 GROUP BY id$$)
) v(q), LATERAL rt_compare(q) c;
RESET enable_partitionwise_aggregate;

-- The memory bound applies to each leaf: many groups in a tight work_mem
-- keep the ordinary plan (or the scan gives its answer, or a clear error:
-- this says which); a few groups still take the scan.
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT q, c.* FROM (VALUES
    ($$SELECT id, gpu_histogram(x, 0, 1, 64) FROM pt_range GROUP BY id$$),
    ($$SELECT date_trunc('hour', tz), gpu_histogram(x, 0, 1, 64) FROM pt_inh GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 64) FROM pt_hash GROUP BY g$$)
) v(q), LATERAL rt_memory(q) c;
RESET work_mem;
RESET hash_mem_multiplier;

-- Parallel settings: a Gather over a Parallel Append of parallel-aware
-- scans, the workers spread over the leaves and sharing a large one's
-- blocks; the leader joins in, and with no worker at all it reads every
-- leaf itself.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rt_explain($$SELECT g, count(x), gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-10' GROUP BY g$$);
SELECT rt_explain($$SELECT * FROM pt_inh_days WHERE day BETWEEN '2026-01-10' AND '2026-01-12'$$);
SELECT q, rt_plan(q) LIKE '%Gather%' AS gather, c.* FROM (VALUES
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_range$$),
    ($$SELECT g, count(x), gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY g$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 8) FROM pt_list GROUP BY 1$$),
    ($$SELECT b, s, gpu_histogram(x, 0, 1, 8), gpu_histogram(y, -1, 1, 4) FROM pt_hash GROUP BY b, s$$),
    ($$SELECT width_bucket(y, -1, 1, 4), gpu_histogram(x, 0, 1, 8) FROM pt_inh GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-10' AND tz < '2026-02-20' GROUP BY g$$),
    ($$SELECT date_trunc('day', tz), gpu_histogram(x, 0, 1, 16) FROM pt_range WHERE date_trunc('day', tz) >= '2026-02-20' GROUP BY 1$$),
    ($$SELECT tz::date, count(*), gpu_histogram(x, 0, 1, 8) FROM pt_inh GROUP BY 1 HAVING tz::date < '2026-01-01' OR tz::date IS NULL$$),
    ($$SELECT * FROM pt_daily WHERE day >= '2026-02-20'$$)
) v(q), LATERAL rt_compare(q) c;
SET max_parallel_workers = 0; -- Gather with no worker: the leader does everything
SELECT q, rt_plan(q) LIKE '%Gather%' AS gather, c.* FROM (VALUES
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_range WHERE tz >= '2026-01-10' AND tz < '2026-02-20' GROUP BY g$$),
    ($$SELECT g, count(x), gpu_histogram(x, 0, 1, 8) FROM pt_range GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;
RESET max_parallel_workers;
SET enable_partitionwise_aggregate = on;
SELECT q, rt_plan(q) LIKE '%Gather%' AS gather, c.* FROM (VALUES
    ($$SELECT k, gpu_histogram(x, 0, 1, 8) FROM pt_list GROUP BY k$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM pt_hash GROUP BY g$$),
    ($$SELECT count(*), gpu_histogram(x, 0, 1, 8) FROM pt_inh$$)
) v(q), LATERAL rt_compare(q) c;
RESET enable_partitionwise_aggregate;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET TimeZone;
