--
-- value_aggs: sum, avg, min and max beside the histograms, computed by the
-- scan (extension/scan/grouped/table/value_aggs.h) rather than sending the
-- query to the ordinary plan: a dashboard's mean line over its heatmap.
-- Integer sums and means, min and max are compared with PostgreSQL's
-- ordinary serial plan (rt_compare) to the bit: integer sums beyond bigint
-- are exact numerics (int8's 128-bit state), means are numeric_div's.
-- Float sums and means are summed exactly and rounded once, so they do not
-- depend on the rows' order or on how processes split them; PostgreSQL's
-- sequential float8_pl may differ in the last bits.  They are compared
-- with the ordinary plan to 12 places (8 for sums of thousands), and, on
-- values whose numeric cast is exact (multiples of 1/64 and +-1e20), equal
-- to the numeric sum rounded once, where the sequential sum loses every
-- small value beside 1e20: serial, in another physical order, and with
-- workers, to the bit.  NaN, infinities and -0 as float8_pl gives them; an
-- overflow raises float8_pl's error when the exact sum is past float8's
-- range, not when a partial sum was.  Also: an empty table (one row of
-- NULLs ungrouped, none grouped), HAVING and ORDER BY on the aggregates, a
-- partitioned table (partial states: int4's avg as {count, sum}, float8's
-- as {N, Sx, NaN}; bigint's sum keeps the ordinary plan), and workers,
-- which merge their groups in the scan.
--
LOAD 'gpu_histogram';
SET client_min_messages = warning;
DROP TABLE IF EXISTS va_t, va_empty, va_parts, va_edge, va_exact, va_exact_shuffled, va_exact_by_group, va_wide, va_wide_by_group, va_num, va_num_parts, va_spill, va_spill_parts, va_par, va_par3;
DROP FUNCTION IF EXISTS va_rows_from_workers(text);
DROP FUNCTION IF EXISTS va_par3_exact(text), va_leaf_rows(text);
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;
SET jit = off;

CREATE TABLE va_t (ts timestamptz, host text, g int4, s int2, b int8, f4 float4, d date, x float8)
    WITH (autovacuum_enabled = off);
INSERT INTO va_t
SELECT '2024-05-01'::timestamptz + i * interval '1 minute',
       'host-' || i % 9,
       CASE WHEN i % 97 = 0 THEN NULL ELSE i % 20 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 200 - 100)::int2 END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 7 - 3) * 3000000000000000000 END,
       CASE i % 301 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' ELSE ((i * 37) % 1000) / 7.0 END,
       '2024-05-01'::date + i % 30,
       CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END
FROM generate_series(1, 20000) i;
VACUUM ANALYZE va_t;

-- the scan computes them: EXPLAIN names them
SELECT line FROM rt_explain($$SELECT date_trunc('hour', ts), avg(x), max(x), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY 1$$) line
WHERE line ~ 'Custom Scan|Aggregates|Counts';

CREATE TEMP TABLE va_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO va_queries (q) VALUES
    -- the mean line
    ($$SELECT date_trunc('hour', ts) AS hour, round(avg(x)::numeric, 12) AS mean, max(x) AS top, gpu_histogram(x, 0, 1, 8) AS h FROM va_t GROUP BY 1$$),
    ($$SELECT round(avg(x)::numeric, 12), round(sum(x)::numeric, 8), min(x), max(x), count(*), gpu_histogram(x, 0, 1, 8) FROM va_t$$),
    ($$SELECT g, sum(g), avg(g), min(g), max(g), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    ($$SELECT g, sum(s), avg(s), min(s), max(s), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    -- bigint: sums past 2^63, as numerics
    ($$SELECT g, sum(b), avg(b), min(b), max(b), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    ($$SELECT sum(b), avg(b), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE b > 0$$),
    -- float4: its own sum in single precision; NaN and -0 in min and max
    ($$SELECT g, sum(f4), avg(f4), min(f4), max(f4), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    ($$SELECT min(f4), max(f4), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE f4 <= 0$$),
    -- dates and timestamps: min and max
    ($$SELECT g, min(d), max(d), min(ts), max(ts), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    -- HAVING and ORDER BY on them
    ($$SELECT g, round(avg(x)::numeric, 12) AS a, gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g HAVING avg(x) > 0.5 ORDER BY a DESC$$),
    ($$SELECT host, max(x), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY host ORDER BY max(x) LIMIT 3$$),
    -- a WHERE clause, native and not
    ($$SELECT d, round(avg(x)::numeric, 12), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE g IN (1, 2, 3) GROUP BY d$$),
    ($$SELECT d, round(avg(x)::numeric, 12), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE host <> 'host-4' GROUP BY d$$),
    -- no row passes: ungrouped, one row of NULLs
    ($$SELECT avg(x), sum(g), max(ts), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE g > 1000$$);
SELECT n, c.* FROM va_queries, LATERAL rt_compare(q) c ORDER BY n;

-- NaN and infinities in float8 sums and means; a sum past float8's range raises float8_pl's overflow error
CREATE TABLE va_edge (g int, x float8);
INSERT INTO va_edge VALUES (1, 1), (1, 'Infinity'), (1, 2), (2, '-Infinity'), (2, 'Infinity'), (3, 'NaN'), (3, 5),
    (4, 1e308), (4, 1e308), (5, -0.0), (5, 0.0), (6, NULL), (7, -0.0), (7, -0.0),
    (8, 1e308), (8, 1e308), (8, -1e308);
SELECT q, c.* FROM (VALUES
    ($$SELECT g, sum(x), avg(x), min(x), max(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g < 8 AND g <> 4 GROUP BY g$$),
    ($$SELECT g, sum(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 4 GROUP BY g$$),
    ($$SELECT g, avg(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 4 GROUP BY g$$),
    ($$SELECT g, max(x)::text, min(x)::text, gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 5 GROUP BY g$$)
) v(q), LATERAL rt_try(q) c;
-- 1e308 + 1e308 - 1e308: the exact sum is 1e308, where the sequential sum overflowed on the way
SELECT g, sum(x), avg(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 8 GROUP BY g;
SELECT rt_plan($$SELECT g, sum(x), avg(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 8 GROUP BY g$$)
    LIKE '%GpuHistogramScan%' AS scan_planned;
SET gpu_histogram.scan = off;
SELECT g, sum(x), gpu_histogram(g, 0, 10, 4) FROM va_edge WHERE g = 8 GROUP BY g;
RESET gpu_histogram.scan;

-- exactly rounded: values whose numeric casts are exact, so that sum(x::numeric) is the exact sum;
-- each group's 1e20 and -1e20 swallow the small values before them in a sequential float8 sum
CREATE TABLE va_exact (g int, x float8, f4 float4) WITH (autovacuum_enabled = off);
INSERT INTO va_exact
SELECT i % 7,
       CASE WHEN i % 1000 = 500 THEN 1e20 WHEN i % 1000 = 999 THEN -1e20
            ELSE ((i::bigint * 7919) % 2000003 - 1000000) / 64.0 END,
       CASE WHEN i % 1000 = 500 THEN 1e10 WHEN i % 1000 = 999 THEN -1e10
            ELSE ((i * 37) % 8000 - 4000) / 8.0 END
FROM generate_series(1, 70000) i;
CREATE TABLE va_exact_shuffled WITH (autovacuum_enabled = off) AS SELECT * FROM va_exact ORDER BY md5(x::text || g);
VACUUM ANALYZE va_exact;
VACUUM ANALYZE va_exact_shuffled;
CREATE TEMP TABLE va_reference AS
SELECT g, sum(x::numeric)::float8 AS sum_x, (sum(x::numeric)::float8 / count(x)) AS avg_x,
       sum(f4::numeric)::float4 AS sum_f4, (sum(f4::numeric)::float8 / count(f4)) AS avg_f4,
       sum(x) AS sequential_sum_x
FROM va_exact GROUP BY g;
CREATE FUNCTION va_exact_check(q text) RETURNS TABLE(scan_planned boolean, gathered boolean, groups bigint,
    exact_sums bigint, sequential_differs bigint) LANGUAGE plpgsql AS $fn$
BEGIN
    scan_planned := rt_plan(q) LIKE '%GpuHistogramScan%';
    gathered := rt_plan(q) LIKE '%Gather%';
    EXECUTE format($q$SELECT count(*),
        count(*) FILTER (WHERE s.sx::text = r.sum_x::text AND s.ax::text = r.avg_x::text AND
                               s.sf::text = r.sum_f4::text AND s.af::text = r.avg_f4::text AND s.h IS NOT NULL),
        count(*) FILTER (WHERE r.sequential_sum_x <> r.sum_x)
        FROM (%s) s(g, sx, ax, sf, af, h) JOIN va_reference r USING (g)$q$, q)
        INTO groups, exact_sums, sequential_differs;
    RETURN NEXT;
END
$fn$;
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact GROUP BY g$$);
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact_shuffled GROUP BY g$$);
-- each page one group's, as a table in time order grouped by hour has them: summed a page at a time
CREATE TABLE va_exact_by_group WITH (autovacuum_enabled = off) AS SELECT * FROM va_exact ORDER BY g, md5(x::text);
VACUUM ANALYZE va_exact_by_group;
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact_by_group GROUP BY g$$);
-- values over 400 binades, m * 2^k, whose float8 sums need more than two passes of a page's exact
-- summation: equal to PostgreSQL's numeric sum of m * 2^(k + 200) scaled back, with each page one
-- group's and with the groups mixed
CREATE TABLE va_wide WITH (autovacuum_enabled = off) AS
SELECT i % 7 AS g, m, k, m * 2::float8 ^ k AS x
FROM generate_series(1, 14000) i, LATERAL (SELECT (i::bigint * 7919) % 1000003 - 500000 AS m, (i * 13) % 400 - 200 AS k) v;
CREATE TABLE va_wide_by_group WITH (autovacuum_enabled = off) AS SELECT * FROM va_wide ORDER BY g, md5(x::text);
VACUUM ANALYZE va_wide;
VACUUM ANALYZE va_wide_by_group;
CREATE TEMP TABLE va_wide_reference AS
SELECT g, sum(m::numeric * 2::numeric ^ (k + 200))::float8 * 2::float8 ^ (-200) AS sum_x, sum(x) AS sequential_sum_x
FROM va_wide GROUP BY g;
SELECT t, count(*) AS groups, count(*) FILTER (WHERE s.s = r.sum_x AND s.h IS NOT NULL) AS exact_sums,
       count(*) FILTER (WHERE r.sequential_sum_x <> r.sum_x) AS sequential_differs
FROM (SELECT 'mixed' AS t, g, sum(x) s, gpu_histogram(x, -1, 1, 4) h FROM va_wide GROUP BY g
      UNION ALL SELECT 'by group', g, sum(x) s, gpu_histogram(x, -1, 1, 4) h FROM va_wide_by_group GROUP BY g) s
JOIN va_wide_reference r USING (g) GROUP BY t ORDER BY t;
SELECT rt_plan($$SELECT g, sum(x) s, gpu_histogram(x, -1, 1, 4) h FROM va_wide_by_group GROUP BY g$$) LIKE '%GpuHistogramScan%' AS scan_planned;
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact_shuffled GROUP BY g$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;

-- an empty table: ungrouped, one row of NULLs and zero counts; grouped, no row
CREATE TABLE va_empty (g int, x float8, b int8);
SELECT c.* FROM rt_compare($$SELECT avg(x), sum(b), min(g), count(*), gpu_histogram(x, 0, 1, 4) FROM va_empty$$) c;
SELECT c.* FROM rt_compare($$SELECT g, avg(x), gpu_histogram(x, 0, 1, 4) FROM va_empty GROUP BY g$$) c;

-- a partitioned table: each leaf's partial states, combined by PostgreSQL's Finalize Aggregate (float
-- sums combined leaf by leaf round differently from one sequential sum: compared to ten places)
CREATE TABLE va_parts (d date, g int, b int8, x float8) PARTITION BY RANGE (d);
CREATE TABLE va_parts_1 PARTITION OF va_parts FOR VALUES FROM ('2024-05-01') TO ('2024-05-16');
CREATE TABLE va_parts_2 PARTITION OF va_parts FOR VALUES FROM ('2024-05-16') TO ('2024-06-01');
INSERT INTO va_parts SELECT d, g, b, x FROM va_t;
ANALYZE va_parts;
SELECT q, c.* FROM (VALUES
    ($$SELECT g, avg(g), sum(g), round(avg(x)::numeric, 10), round(sum(x)::numeric, 8), min(x), max(d), gpu_histogram(x, 0, 1, 4) FROM va_parts GROUP BY g$$),
    ($$SELECT round(avg(x)::numeric, 10), avg(g), gpu_histogram(x, 0, 1, 4) FROM va_parts$$),
    ($$SELECT g, sum(b), gpu_histogram(x, 0, 1, 4) FROM va_parts GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;

-- on the GPU's grouped pages, which CI parses on the CPU (gpu_histogram.debug_pages_on_cpu): the DEBUG
-- line says the pages were batched; the same exact sums, serially and with workers
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SET client_min_messages = debug1;
SELECT count(*) AS hours FROM (SELECT date_trunc('hour', ts), avg(x), max(x), gpu_histogram(x, 0, 1, 8) AS h FROM va_t GROUP BY 1) s
WHERE h IS NOT NULL;
RESET client_min_messages;
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact GROUP BY g$$);
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('hour', ts) AS hour, round(avg(x)::numeric, 12) AS mean, max(x) AS top, min(x), gpu_histogram(x, 0, 1, 8) AS h FROM va_t GROUP BY 1$$),
    ($$SELECT g, sum(g), min(d), max(ts), avg(b), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    ($$SELECT g, avg(s), sum(b), min(f4), max(f4), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$),
    ($$SELECT d, round(avg(x)::numeric, 12), max(s), gpu_histogram(x, 0, 1, 8) FROM va_t WHERE g IN (1, 2, 3) GROUP BY d$$)
) v(q), LATERAL rt_compare(q) c;
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM va_exact_check($$SELECT g, sum(x), avg(x), sum(f4), avg(f4), gpu_histogram(x, -1e6, 1e6, 8) FROM va_exact_shuffled GROUP BY g$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpu_histogram.debug_pages_on_cpu;
RESET gpu_histogram.debug_pages_per_batch;

-- workers: each process's groups are merged in the scan, exactly (no Finalize Aggregate's float8_combine)
-- The ordinary plan's means with workers follow the order its partial
-- states arrive in, in the last bits: one hourly mean of va_t is 3e-16
-- from a 12th-digit rounding boundary, none is within 2e-12 of a 9th's.
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT line FROM rt_explain($$SELECT g, avg(x), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$) line
WHERE line ~ 'Custom Scan|Gather|Aggregate';
SELECT c.* FROM rt_compare($$SELECT g, round(avg(x)::numeric, 9), min(x), max(b), sum(g), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY g$$) c;
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), round(avg(x)::numeric, 9), max(x), min(f4), gpu_histogram(x, 0, 1, 8) FROM va_t GROUP BY 1$$) c;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- numeric(p, s) columns with p at most 18: sums in whole units of 10^-s (past 2^64 units here), their
-- display scale s; means numeric_div's; NaN above every number (max NaN where any is, min only where
-- all are); NULLs; workers.  numeric(20, 2), a negative scale and an unconstrained numeric keep the
-- ordinary plan, as does a partitioned table (numeric's partial states are PostgreSQL's internal ones).
CREATE TABLE va_num (ts timestamptz, g int, p numeric(10, 2), big numeric(18, 6), z numeric(4, 0), wide numeric(20, 2),
                     neg numeric(4, -2), free numeric, x float8) WITH (autovacuum_enabled = off);
INSERT INTO va_num
SELECT '2024-05-01'::timestamptz + i * interval '1 minute', i % 5,
       CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 OR g4 THEN 'NaN' ELSE ((i::bigint * 7919) % 20001 - 10000) / 100.0 END,
       ((i::bigint * 104729) % 1999999999999) - 999999999999 + (i % 1000000) / 1e6,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 9999 - 5000 END,
       i / 100.0, (i % 90) * 100, i / 7.0, (i % 100) / 100.0
FROM generate_series(1, 30000) i, LATERAL (SELECT i % 5 = 4 AND i % 3 = 0 AS g4) v;
INSERT INTO va_num (ts, g, p, x) SELECT '2024-05-01', 9, 'NaN', 0.5 FROM generate_series(1, 3);
VACUUM ANALYZE va_num;
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('hour', ts) AS hour, sum(p) AS s, avg(p) AS a, min(p) AS lo, max(p) AS hi, gpu_histogram(x, 0, 1, 8) AS h FROM va_num GROUP BY 1$$),
    ($$SELECT g, sum(p) AS s, avg(p) AS a, min(p) AS lo, max(p) AS hi, count(p) AS n, gpu_histogram(x, 0, 1, 8) AS h FROM va_num GROUP BY g$$),
    ($$SELECT g, sum(big) AS s, avg(big) AS a, min(big) AS lo, max(big) AS hi, sum(z), avg(z), gpu_histogram(x, 0, 1, 8) AS h FROM va_num GROUP BY g$$),
    ($$SELECT sum(big) AS s, avg(big) AS a, min(z), max(z), gpu_histogram(x, 0, 1, 8) AS h FROM va_num$$),
    ($$SELECT g, sum(z) AS s, avg(z) AS a, gpu_histogram(x, 0, 1, 8) AS h FROM va_num WHERE g < 3 AND z > 0 GROUP BY g HAVING avg(z) > 2000 ORDER BY a DESC$$),
    ($$SELECT sum(wide), gpu_histogram(x, 0, 1, 8) AS h FROM va_num$$),
    ($$SELECT avg(neg), gpu_histogram(x, 0, 1, 8) AS h FROM va_num$$),
    ($$SELECT max(free), gpu_histogram(x, 0, 1, 8) AS h FROM va_num$$)
) v(q), LATERAL rt_compare(q) c;
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT c.* FROM rt_compare($$SELECT g, sum(big) AS s, avg(p) AS a, min(p) AS lo, max(big) AS hi, gpu_histogram(x, 0, 1, 8) AS h FROM va_num GROUP BY g$$) c;
SELECT rt_plan($$SELECT g, sum(big), gpu_histogram(x, 0, 1, 8) FROM va_num GROUP BY g$$) LIKE '%Gather%' AS gathered;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
CREATE TABLE va_num_parts (d date, p numeric(10, 2), x float8) PARTITION BY RANGE (d);
CREATE TABLE va_num_parts_1 PARTITION OF va_num_parts FOR VALUES FROM ('2024-05-01') TO ('2024-05-16');
CREATE TABLE va_num_parts_2 PARTITION OF va_num_parts FOR VALUES FROM ('2024-05-16') TO ('2024-06-01');
INSERT INTO va_num_parts SELECT ts::date, p, x FROM va_num WHERE ts < '2024-06-01';
ANALYZE va_num_parts;
SELECT c.* FROM rt_compare($$SELECT d, sum(p) AS s, avg(p) AS a, gpu_histogram(x, 0, 1, 8) AS h FROM va_num_parts GROUP BY d$$) c;
-- Groups past the memory bound, where a GPU may count and the table is
-- large for its groups: finished rows still, as the scan emits no partial
-- state of a numeric or bigint sum or mean, which a Finalize Aggregate
-- would read as PostgreSQL's internal one (it raised "insufficient data
-- left in message" with device = gpu).  Then the answer on the host.
SET work_mem = '64kB';
SET gpu_histogram.device = gpu;
SELECT rt_plan($$SELECT date_trunc('hour', ts), g, sum(p), avg(big), gpu_histogram(x, 0, 1, 8) FROM va_num GROUP BY 1, 2$$)
       LIKE 'Custom Scan (GpuHistogramScan)%' AS finished_rows;
SET gpu_histogram.device = cpu;
SELECT c.* FROM rt_compare($$SELECT date_trunc('hour', ts), g, sum(p), avg(big), gpu_histogram(x, 0, 1, 8) FROM va_num GROUP BY 1, 2$$) c;
-- The same for a float sum or mean: past the bound a group's GPU cells and
-- its host's spilled rows may go out in different rounds, and a Finalize
-- Aggregate would add their rounded sums, so the last bits would follow
-- which pages the GPU took.  Finished rows merge the exact sums in the
-- scan, rounded once.  va_spill's 1,000 groups have every value a
-- multiple of 1/16 (so the numeric reference is exact), 1e15 beside
-- them in some (whose float8 neighbours are 1/8 apart, so the sums
-- round), and a quarter of their rows on pages added after VACUUM, which
-- the host reads while the GPU, where there is one, reads the rest.
CREATE TABLE va_spill (ts timestamptz, host text, g int, x float8) WITH (autovacuum_enabled = off);
INSERT INTO va_spill
SELECT '2024-05-01'::timestamptz + i * interval '20 seconds', 'h' || i % 7, i % 3,
       CASE WHEN i % 50 = 1 THEN 1e15 ELSE (i % 1000) * 0.0625 END
FROM generate_series(1, 60000) i;
VACUUM ANALYZE va_spill;
INSERT INTO va_spill
SELECT '2024-05-01'::timestamptz + i * interval '1 minute', 'late', i % 3, (i % 999) * 0.0625 + 0.0625
FROM generate_series(1, 20000) i;
CREATE TEMP TABLE va_spill_reference AS
SELECT date_trunc('hour', ts) AS hour, g, sum(x::numeric)::float8 AS sum_x, sum(x::numeric)::float8 / count(x) AS avg_x,
       sum(x) AS sequential_sum_x
FROM va_spill GROUP BY 1, 2;
SET gpu_histogram.device = gpu;
SELECT rt_plan($$SELECT date_trunc('hour', ts), g, sum(x), avg(x), gpu_histogram(x, 0, 1, 8) FROM va_spill GROUP BY 1, 2$$)
       LIKE 'Custom Scan (GpuHistogramScan)%' AS finished_rows;
-- with count(*) and max(x) beside instead, partial states still, which combine exactly
SELECT rt_plan($$SELECT date_trunc('hour', ts), g, count(*), max(x), gpu_histogram(x, 0, 1, 8) FROM va_spill GROUP BY 1, 2$$)
       LIKE 'Finalize HashAggregate%' AS partial_states;
-- the answer on whatever device this server has, against the numeric sum
RESET gpu_histogram.device;
CREATE TEMP TABLE va_spill_answer AS
SELECT date_trunc('hour', ts) AS hour, g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 1, 8) AS h FROM va_spill GROUP BY 1, 2;
SELECT rt_plan($$SELECT date_trunc('hour', ts), g, sum(x), avg(x), gpu_histogram(x, 0, 1, 8) FROM va_spill GROUP BY 1, 2$$)
       LIKE '%GpuHistogramScan%' AS scan_planned;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.sx::text = r.sum_x::text AND s.ax::text = r.avg_x::text) AS exact,
       count(*) FILTER (WHERE r.sequential_sum_x <> r.sum_x) > 100 AS sequential_differs
FROM va_spill_answer s JOIN va_spill_reference r USING (hour, g);
-- The same rows partitioned by time, each hour in one leaf: a serial leaf
-- merges its groups past the bound before they go to the Finalize
-- Aggregate, so each hour's sum is rounded once.
CREATE TABLE va_spill_parts (LIKE va_spill) PARTITION BY RANGE (ts);
CREATE TABLE va_spill_parts_1 PARTITION OF va_spill_parts FOR VALUES FROM ('2024-05-01') TO ('2024-05-08');
CREATE TABLE va_spill_parts_2 PARTITION OF va_spill_parts FOR VALUES FROM ('2024-05-08') TO ('2024-06-01');
INSERT INTO va_spill_parts SELECT * FROM va_spill WHERE host <> 'late';
VACUUM ANALYZE va_spill_parts;
INSERT INTO va_spill_parts SELECT * FROM va_spill WHERE host = 'late';
SET max_parallel_workers_per_gather = 0;
SELECT rt_plan($$SELECT date_trunc('hour', ts), g, sum(x), avg(x), gpu_histogram(x, 0, 1, 8) FROM va_spill_parts GROUP BY 1, 2$$)
       LIKE 'Finalize HashAggregate%' AS partial_states;
CREATE TEMP TABLE va_spill_parts_answer AS
SELECT date_trunc('hour', ts) AS hour, g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 1, 8) AS h FROM va_spill_parts GROUP BY 1, 2;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.sx::text = r.sum_x::text AND s.ax::text = r.avg_x::text) AS exact
FROM va_spill_parts_answer s JOIN va_spill_reference r USING (hour, g);
RESET work_mem;
-- With workers, the processes that read a leaf merge its groups before
-- they go to the Finalize Aggregate, so each group leaves each leaf once,
-- its exact sum rounded once, however the leaf's blocks were split among
-- the processes.  Every row of va_par is in its first leaf, and each of
-- its 200 groups holds 1e16 (whose float8 neighbours are 2 apart) and 499
-- ones: sums of a group's parts rounded and then added would be off.
CREATE TABLE va_par (g int, x float8) PARTITION BY RANGE (g);
CREATE TABLE va_par_1 PARTITION OF va_par FOR VALUES FROM (0) TO (1000);
CREATE TABLE va_par_2 PARTITION OF va_par FOR VALUES FROM (1000) TO (2000);
INSERT INTO va_par SELECT i % 200, CASE WHEN i <= 200 THEN 1e16 ELSE 1 END FROM generate_series(1, 100000) i;
VACUUM ANALYZE va_par;
CREATE FUNCTION va_rows_from_workers(q text) RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Gather \(actual rows=' THEN
            RETURN substring(line from 'rows=([0-9.]+)')::numeric::bigint; -- 18 shows rows=200.00
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$;
SET max_parallel_workers_per_gather = 3;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SELECT rt_plan($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par GROUP BY g$$)
       LIKE 'Finalize HashAggregate%Gather%Parallel Append%Parallel Custom Scan (GpuHistogramScan) on va_par_1%' AS parallel_partial_states;
SELECT va_rows_from_workers($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par GROUP BY g$$) AS rows_from_workers;
CREATE TEMP TABLE va_par_answer AS SELECT g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par GROUP BY g;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.sx::text = r.sx::text AND a.ax::text = r.ax::text) AS exact
FROM va_par_answer a JOIN (SELECT g, sum(x::numeric)::float8 AS sx, sum(x::numeric)::float8 / count(x) AS ax
                           FROM va_par GROUP BY g) r USING (g);
-- Without keys, on the one leaf pruning leaves: each process leaves its
-- part for the last to end, which emits the one row.
SELECT va_rows_from_workers($$SELECT sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par WHERE g = 7$$) AS rows_from_workers;
SELECT s.sx = r.sx AS sum_exact, s.ax = r.ax AS avg_exact, s.h
FROM (SELECT sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par WHERE g = 7) s,
     (SELECT sum(x::numeric)::float8 AS sx, sum(x::numeric)::float8 / count(x) AS ax FROM va_par WHERE g = 7) r;
-- Over several leaves, every leaf leaves its groups for the Append's last
-- leaf to end, which emits each group once (leaf_merge.h): a group in
-- three leaves is rounded once, serially and with workers, with keys or
-- without.  Each of va_par3's 200 groups holds 1e16 in the first leaf
-- and a 1 in each of the other two: rounded per leaf and then added,
-- 1e16 + 1 + 1 is 1e16 (a tie, to even, twice); exactly, it is 1e16 + 2.
CREATE TABLE va_par3 (p int, g int, x float8) PARTITION BY RANGE (p);
CREATE TABLE va_par3_1 PARTITION OF va_par3 FOR VALUES FROM (0) TO (1);
CREATE TABLE va_par3_2 PARTITION OF va_par3 FOR VALUES FROM (1) TO (2);
CREATE TABLE va_par3_3 PARTITION OF va_par3 FOR VALUES FROM (2) TO (3);
INSERT INTO va_par3 SELECT 0, i % 200, CASE WHEN i <= 200 THEN 1e16 ELSE 0 END FROM generate_series(1, 20000) i;
INSERT INTO va_par3 SELECT p, i % 200, 1 FROM generate_series(1, 2) p, generate_series(1, 200) i;
VACUUM ANALYZE va_par3;
CREATE TEMP TABLE va_par3_reference AS
SELECT g, sum(x::numeric)::float8 AS sx, sum(x::numeric)::float8 / count(x) AS ax FROM va_par3 GROUP BY g;
-- the answer of q (g, sx, ax) against the numeric reference
CREATE FUNCTION va_par3_exact(q text) RETURNS TABLE (groups bigint, exact bigint) LANGUAGE plpgsql AS $fn$
BEGIN
    DROP TABLE IF EXISTS va_par3_answer;
    EXECUTE 'CREATE TEMP TABLE va_par3_answer AS ' || q;
    RETURN QUERY SELECT count(*), count(*) FILTER (WHERE a.sx::text = r.sx::text AND a.ax::text = r.ax::text)
                 FROM va_par3_answer a JOIN va_par3_reference r USING (g);
END
$fn$;
SET max_parallel_workers_per_gather = 0;
SELECT line FROM rt_explain($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par3 GROUP BY g$$) line
WHERE line ~ 'Append|Custom Scan|Groups Merged';
SELECT * FROM va_par3_exact($$SELECT g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 GROUP BY g$$);
SELECT count(*) FILTER (WHERE sequential_sum::text <> sx::text) AS sequential_differs
FROM (SELECT g, sum(x) AS sequential_sum FROM va_par3 GROUP BY g) s JOIN va_par3_reference USING (g);
-- the last leaf alone emits rows
CREATE FUNCTION va_leaf_rows(q text) RETURNS TABLE (leaf text, rows bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'Custom Scan' THEN
            leaf := substring(line from 'on (\w+)');
            rows := substring(line from 'actual rows=([0-9.]+)')::numeric::bigint; -- 18 shows rows=200.00
            RETURN NEXT;
        END IF;
    END LOOP;
END
$fn$;
SELECT * FROM va_leaf_rows($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par3 GROUP BY g$$);
-- the GPU's grouped pages (parsed on the CPU here), each leaf's groups collected from them
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT * FROM va_par3_exact($$SELECT g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 GROUP BY g$$);
RESET gpu_histogram.debug_pages_on_cpu;
-- without keys; and each leaf scanned again for each outer row (a rescan's round)
SELECT s.sx = r.sx AS sum_exact, s.ax = r.ax AS avg_exact, s.h
FROM (SELECT sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 WHERE g = 7) s,
     (SELECT sum(x::numeric)::float8 AS sx, (sum(x::numeric) / count(x))::float8 AS ax FROM va_par3 WHERE g = 7) r;
SELECT o.g, s.sx = r.sx AS sum_exact, s.ax = r.ax AS avg_exact, s.h
FROM (VALUES (1), (2), (1)) o(g),
     LATERAL (SELECT sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 WHERE va_par3.g = o.g) s,
     va_par3_reference r
WHERE r.g = o.g
ORDER BY o.g;
-- with workers, no leader: the one process that ends the last leaf emits all 200 groups
SET max_parallel_workers_per_gather = 3;
SELECT rt_plan($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par3 GROUP BY g$$)
       LIKE '%Gather%Parallel Append%' AS parallel_leaves;
SELECT va_rows_from_workers($$SELECT g, sum(x), avg(x), gpu_histogram(x, 0, 2, 4) FROM va_par3 GROUP BY g$$) AS rows_from_workers;
SELECT * FROM va_par3_exact($$SELECT g, sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 GROUP BY g$$);
SELECT s.sx = r.sx AS sum_exact, s.ax = r.ax AS avg_exact, s.h
FROM (SELECT sum(x) AS sx, avg(x) AS ax, gpu_histogram(x, 0, 2, 4) AS h FROM va_par3 WHERE g = 7) s,
     (SELECT sum(x::numeric)::float8 AS sx, (sum(x::numeric) / count(x))::float8 AS ax FROM va_par3 WHERE g = 7) r;
DROP FUNCTION va_par3_exact(text), va_leaf_rows(text);
DROP TABLE va_par3, va_par3_reference, va_par3_answer;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET gpu_histogram.device = cpu;
DROP FUNCTION va_rows_from_workers(text);
DROP TABLE va_num, va_num_parts, va_spill, va_spill_reference, va_spill_answer, va_spill_parts, va_spill_parts_answer, va_par, va_par_answer;

RESET gpu_histogram.device;
RESET TimeZone;
DROP TABLE va_t, va_empty, va_edge, va_parts, va_queries, va_exact, va_exact_shuffled, va_exact_by_group, va_wide, va_wide_by_group, va_reference, va_wide_reference;
DROP FUNCTION va_exact_check(text);
