--
-- types: integer, smallint, bigint, real and numeric values (and bounds)
-- reach gpu_histogram through their implicit casts to float8, and give what
-- width_bucket(value::float8, lo::float8, hi::float8, nbins) gives.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS types_t;
RESET client_min_messages;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- The aggregate resolves for every numeric type without an explicit cast.
SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2)
FROM (VALUES (5::integer)) a(v) GROUP BY 1
UNION ALL SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2) FROM (VALUES (5::smallint)) a(v) GROUP BY 1
UNION ALL SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2) FROM (VALUES (5::bigint)) a(v) GROUP BY 1
UNION ALL SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2) FROM (VALUES (5::real)) a(v) GROUP BY 1
UNION ALL SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2) FROM (VALUES (5::numeric)) a(v) GROUP BY 1
UNION ALL SELECT pg_typeof(v), gpu_histogram(v, 0, 10, 2) FROM (VALUES (5::float8)) a(v) GROUP BY 1;
-- nbins may be a smallint; bounds of any numeric type
SELECT gpu_histogram(5::smallint, 0::smallint, 10::bigint, 2::smallint),
       gpu_histogram(5::bigint, 0::real, 10::numeric, 2);
-- a bigint nbins has no implicit cast to integer
\set VERBOSITY terse
SELECT gpu_histogram(5, 0, 10, 2::bigint);
\set VERBOSITY default

-- 200,000 rows of each type; values chosen so that the conversion to float8
-- matters: reals are not the decimals they look like, bigints above 2^53
-- round, numerics with more digits than a double holds.
CREATE TABLE types_t AS
SELECT i,
       (i % 20001 - 10000)::integer AS i4,
       (i % 65536 - 32768)::smallint AS i2,
       (9007199254740992 + (i % 1000) * 3 - 1500)::bigint AS i8,          -- around 2^53
       ((i % 2000) / 100.0 - 10)::real AS f4,                             -- 0.01 steps as real
       ((i % 3001) / 300.0 - 5)::numeric(30, 25) AS num,                  -- 1/300 steps, 25 digits
       ((i % 1001) * 0.1)::numeric AS num_dec                             -- exact decimals 0.0 .. 100.0
FROM generate_series(1, 200000) i;

SELECT count(*) AS nrows,
       gpu_histogram(i4, -10000, 10000, 40) = wb_hist('SELECT i4 FROM types_t', -10000, 10000, 40) AS i4,
       gpu_histogram(i4, 9000, -9000, 7) = wb_hist('SELECT i4 FROM types_t', 9000, -9000, 7) AS i4_down,
       gpu_histogram(i2, -32768, 32767, 1000) = wb_hist('SELECT i2 FROM types_t', -32768, 32767, 1000) AS i2,
       gpu_histogram(i2, 100, -100, 200) = wb_hist('SELECT i2 FROM types_t', 100, -100, 200) AS i2_down,
       gpu_histogram(i8, 9007199254740000, 9007199254744000, 4000)
       = wb_hist('SELECT i8 FROM types_t', 9007199254740000, 9007199254744000, 4000) AS i8,
       gpu_histogram(i8, 9007199254744000, 9007199254740000, 333)
       = wb_hist('SELECT i8 FROM types_t', 9007199254744000, 9007199254740000, 333) AS i8_down
FROM types_t;
SELECT count(*) AS nrows,
       gpu_histogram(f4, -10, 10, 2000) = wb_hist('SELECT f4 FROM types_t', -10, 10, 2000) AS f4,
       gpu_histogram(f4, 9.99, -9.99, 1998) = wb_hist('SELECT f4 FROM types_t', 9.99, -9.99, 1998) AS f4_down,
       gpu_histogram(num, -5, 5, 3000) = wb_hist('SELECT num FROM types_t', -5, 5, 3000) AS num,
       gpu_histogram(num, 5, -5, 3000) = wb_hist('SELECT num FROM types_t', 5, -5, 3000) AS num_down,
       gpu_histogram(num_dec, 0, 100, 1000) = wb_hist('SELECT num_dec FROM types_t', 0, 100, 1000) AS num_dec,
       gpu_histogram(num_dec, 100, 0, 1000) = wb_hist('SELECT num_dec FROM types_t', 100, 0, 1000) AS num_dec_down
FROM types_t;

-- Bounds of other types, converted the same way.
SELECT gpu_histogram(f4, (-0.1)::real, 0.3::real, 4) = wb_hist('SELECT f4 FROM types_t', (-0.1)::real, 0.3::real, 4) AS real_bounds,
       gpu_histogram(num, (-1/3.0)::numeric, (2/3.0)::numeric, 3)
       = wb_hist('SELECT num FROM types_t', (-1/3.0)::numeric, (2/3.0)::numeric, 3) AS numeric_bounds,
       gpu_histogram(i8, 9007199254740993::bigint, 9007199254740001::bigint, 3)
       = wb_hist('SELECT i8 FROM types_t', 9007199254740993::bigint, 9007199254740001::bigint, 3) AS bigint_bounds,
       gpu_histogram(i2, (-7)::smallint, 7::smallint, 7::smallint)
       = wb_hist('SELECT i2 FROM types_t', -7, 7, 7) AS smallint_bounds
FROM types_t;

-- Where the conversion decides the bucket.  0.7::real is 0.699999988...,
-- just below the edge at 0.7 between the buckets of [0, 1.4) in two, where
-- 0.7::float8 and 0.7::numeric sit exactly.
SELECT pg_typeof(v), v::float8 AS as_float8, width_bucket(v::float8, 0, 1.4, 2) AS wb,
       gpu_histogram(v, 0, 1.4, 2)
FROM (VALUES (0.7::real)) a(v) GROUP BY v;
SELECT pg_typeof(v), v::float8 AS as_float8, width_bucket(v::float8, 0, 1.4, 2) AS wb,
       gpu_histogram(v, 0, 1.4, 2)
FROM (VALUES (0.7::numeric)) a(v) GROUP BY v;
-- 2^53 + 1 as bigint becomes 2^53 as float8: the same bucket as 2^53.
SELECT gpu_histogram(v, 9007199254740992, 9007199254740994, 2)
FROM (VALUES (9007199254740992::bigint), (9007199254740993), (9007199254740994)) a(v);
SELECT width_bucket(v::float8, 9007199254740992, 9007199254740994, 2)
FROM (VALUES (9007199254740992::bigint), (9007199254740993), (9007199254740994)) a(v);
-- A numeric that rounds up to the upper bound as float8 is above the range
-- (width_bucket's numeric variant, which the aggregate does not use, says 2).
SELECT gpu_histogram(v, 0, 1, 2) AS h,
       width_bucket(v::float8, 0, 1, 2) AS wb_float8,
       width_bucket(v, 0, 1, 2) AS wb_numeric
FROM (VALUES (0.99999999999999999999::numeric)) a(v) GROUP BY v;
-- numeric NaN and infinities convert to float8 NaN and infinities
SELECT gpu_histogram(v, 0, 1, 2) FROM (VALUES ('Infinity'::numeric), ('-Infinity'), (0.5)) a(v);
SELECT gpu_histogram(v, 0, 1, 2) FROM (VALUES ('Infinity'::real), ('-Infinity'), (0.5)) a(v);
\set VERBOSITY terse
SELECT gpu_histogram(v, 0, 1, 2) FROM (VALUES ('NaN'::numeric), (0.5)) a(v);
\set VERBOSITY default

-- Per group, 100 groups.
SELECT count(*) AS groups, count(*) FILTER (WHERE h IS DISTINCT FROM r) AS mismatches
FROM (SELECT i % 100 AS g, gpu_histogram(i2, -32768, 32767, 16) AS h FROM types_t GROUP BY 1) t
JOIN (SELECT g, array_agg(coalesce(c, 0) ORDER BY b) AS r
      FROM generate_series(0, 99) g CROSS JOIN generate_series(0, 17) b
      LEFT JOIN (SELECT i % 100 AS g, width_bucket(i2::float8, -32768, 32767, 16) AS b, count(*) AS c
                 FROM types_t GROUP BY 1, 2) w USING (g, b)
      GROUP BY g) r USING (g);

DROP TABLE types_t;

-- numeric columns on the scan, where their typmod keeps every value inside
-- float8's range (so that reading one can never raise where the ordinary
-- plan's cast would): each value as numeric_float8 converts it, by the fast
-- path (at most 2^53 units and a power of ten of at most 22) or by
-- numeric_float8 itself (17 digits, 10^250), NULLs, NaN, short and long
-- stored forms, a negative scale; thresholds at the values' own float8s,
-- so that a value one ulp off would land in the next bucket.  An
-- unconstrained numeric stays with the ordinary plan.
CREATE TABLE types_num (g int, p numeric(12, 2), q numeric(40, 20), s numeric(300, 0), t numeric(4, -3), u numeric)
    WITH (autovacuum_enabled = off);
INSERT INTO types_num
SELECT i % 10,
       CASE WHEN i % 97 = 0 THEN NULL ELSE ((i::bigint * 7919) % 2000001 - 1000000) / 100.0 END,
       ((i::bigint * 104729) % 99999999999999999) * 10::numeric ^ (-(i % 21)),
       CASE WHEN i % 3 = 0 THEN (10::numeric ^ 250) * (i % 10) + i ELSE i END,
       (i % 9000) * 1000 - 4000000,
       i / 7.0
FROM generate_series(1, 20000) i;
INSERT INTO types_num VALUES (11, 'NaN', 'NaN', 'NaN', 'NaN', 'NaN'), (11, 9999999999.99, 9007199254740993, 1e22, 9999000, 1e400),
    (11, -0.01, 0.00000000000000000001, 12345678901234567890123, -9999000, -1e-400), (11, 0, 0, 0, 0, 0);
VACUUM ANALYZE types_num;
SELECT array_agg(v ORDER BY v)::text AS q_thresholds
FROM (SELECT DISTINCT q::float8 AS v FROM types_num WHERE q <> 'NaN' ORDER BY 1 LIMIT 600) s \gset
CREATE TEMP TABLE types_num_q (n int, q text);
INSERT INTO types_num_q VALUES
    (1, $$SELECT g, gpu_histogram(p, -10000, 10000, 50) AS h FROM types_num WHERE g < 10 GROUP BY g$$),
    (2, $$SELECT gpu_histogram(q, 0, 1e17, 64) AS hq, gpu_histogram(s, 0, 1e251, 16) AS hs,
                 gpu_histogram(t, -4e6, 5e6, 9) AS ht FROM types_num WHERE g < 10$$),
    (3, $$SELECT g, gpu_histogram(q, '$$ || :'q_thresholds' || $$'::float8[]) AS h FROM types_num GROUP BY g$$),
    (4, $$SELECT g, gpu_histogram(p, '{-5000, 0, 0.01, 9999999999.99}'::float8[]) AS h FROM types_num GROUP BY g$$),
    (5, $$SELECT gpu_histogram(u, 0, 3000, 10) AS h FROM types_num WHERE g < 10$$),
    (6, $$SELECT gpu_histogram(q, '$$ || :'q_thresholds' || $$'::float8[]) AS h FROM types_num$$),
    (7, $$SELECT gpu_histogram(p, -10000, 10000, 50) AS h FROM types_num WHERE g < 10 OR p IS NULL$$),
    (8, $$SELECT gpu_histogram(t, -4e6, 5e6, 9) AS h FROM types_num WHERE g < 10$$);
SELECT n, c.* FROM types_num_q, LATERAL rt_compare(q) c ORDER BY n;
-- The same on the GPU's page path: debug_pages_on_cpu pins the pages in
-- batches as for the GPU and parses each as if the GPU had handed it back.
-- A histogram of a numeric column takes the grouped page path with or
-- without keys, since the GPU converts a value as numeric_float8 does only
-- where numeric_float8.h's fast path reaches it (every value of p and t,
-- some of q and s) and hands the page of any other back; on a GPU host
-- (device = gpu) these queries run there.  A column added later with a
-- default gives the tuples stored before it the default's value.
ALTER TABLE types_num ADD COLUMN v numeric(8, 3) DEFAULT 12.345;
INSERT INTO types_num (g, p, v) SELECT i % 10, i / 8.0, i / 1000.0 - 5 FROM generate_series(1, 3000) i;
VACUUM ANALYZE types_num;
INSERT INTO types_num_q VALUES
    (9, $$SELECT gpu_histogram(v, -10, 20, 15) AS h FROM types_num$$),
    (10, $$SELECT g, gpu_histogram(v, -10, 20, 15) AS h, gpu_histogram(p, '{-5000, 0, 0.01, 9999999999.99}'::float8[]) AS hp
          FROM types_num WHERE g < 10 GROUP BY g$$);
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT n, c.* FROM types_num_q, LATERAL rt_compare(q) c ORDER BY n;
-- each numeric histogram's pages on the page path: none kept off it
SELECT n, count(*) FILTER (WHERE line ~ 'Pages Kept off the GPU by') AS kept_off,
       count(*) FILTER (WHERE line ~ 'Pages Parsed') AS parsed
FROM types_num_q, LATERAL rt_explain(q, true) line WHERE n IN (6, 8, 9, 10) GROUP BY n ORDER BY n;
RESET gpu_histogram.debug_pages_on_cpu;
-- numerics stored out of line (TOAST), read with their page unlocked (631 digits: numeric(631, 323)
-- is the widest whose cast to float8 cannot raise)
CREATE TABLE types_num_toast (a numeric(631, 323), b numeric(631, 323), c numeric(631, 323), d numeric(631, 323),
                              e numeric(631, 323), f numeric(631, 323), g numeric(631, 323), h numeric(631, 323))
    WITH (autovacuum_enabled = off);
ALTER TABLE types_num_toast ALTER COLUMN a SET STORAGE EXTERNAL, ALTER COLUMN b SET STORAGE PLAIN,
    ALTER COLUMN c SET STORAGE PLAIN, ALTER COLUMN d SET STORAGE PLAIN, ALTER COLUMN e SET STORAGE PLAIN,
    ALTER COLUMN f SET STORAGE PLAIN, ALTER COLUMN g SET STORAGE PLAIN, ALTER COLUMN h SET STORAGE PLAIN;
INSERT INTO types_num_toast
SELECT v, v, v, v, v, v, v, v
FROM (SELECT (i::numeric * 1e300 + 1 / 3.0 ^ 600)::numeric(631, 323) AS v FROM generate_series(1, 40) i) s;
INSERT INTO types_num_toast (a, b) SELECT (repeat('1', 290)::numeric / 7)::numeric(631, 323), i FROM generate_series(1, 40) i;
VACUUM ANALYZE types_num_toast;
SELECT pg_relation_size(reltoastrelid) > 0 AS some_out_of_line FROM pg_class WHERE oid = 'types_num_toast'::regclass;
SELECT n, c.* FROM (VALUES
    (1, $$SELECT gpu_histogram(a, 0, 4.1e301, 8) AS ha, gpu_histogram(b, 0, 4.1e301, 8) AS hb FROM types_num_toast$$),
    (2, $$SELECT gpu_histogram(a, 0, 4.1e301, 8) AS h FROM types_num_toast WHERE b > 0$$),
    (3, $$SELECT b > 100 AS k, gpu_histogram(a, 0, 4.1e301, 8) AS h FROM types_num_toast GROUP BY 1$$)
) v(n, q), LATERAL rt_compare(q) c ORDER BY n;
DROP TABLE types_num_toast;
-- the NaN row: width_bucket's error, as the ordinary plan raises it
SELECT c.* FROM rt_try($$SELECT gpu_histogram(p, -10000, 10000, 50) AS h FROM types_num$$) c;
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT c.* FROM rt_try($$SELECT gpu_histogram(p, -10000, 10000, 50) AS h FROM types_num$$) c;
RESET gpu_histogram.debug_pages_on_cpu;
DROP TABLE types_num;
