-- setup.sql: dashboard_shapes.py's table and helpers.
--
-- ds_metrics is a metrics table as users have it, a text column before the
-- values: 250,000 rows 23 seconds apart from 2024-01-01 (about 67 days),
-- 13 devices, with NULLs in every column, infinite times, infinite cpu
-- values, NaN and infinite loads, an enum level (one label added BEFORE
-- another, so the labels' order is not their OIDs'), a uuid device and a
-- domain over float8; vacuumed (its pages all-visible, read
-- whole), then 20,000 rows more after ANALYZE: a new device, g values the
-- statistics never saw, later times, on pages that are not all-visible.
DROP TABLE IF EXISTS ds_metrics, ds_parts, ds_odd;
DROP TYPE IF EXISTS ds_level;
DROP DOMAIN IF EXISTS ds_percent;
-- a log level whose label 'trace', added BEFORE 'debug', has the largest OID
CREATE TYPE ds_level AS ENUM ('debug', 'info', 'warn', 'error');
ALTER TYPE ds_level ADD VALUE 'trace' BEFORE 'debug';
CREATE DOMAIN ds_percent AS float8;
CREATE TABLE ds_metrics (time timestamptz, device_id text, cpu float8, g int, flag bool, price numeric(10,2), load float8,
                         level ds_level, dev uuid, pct ds_percent);
INSERT INTO ds_metrics
SELECT CASE WHEN i % 997 = 0 THEN NULL WHEN i % 4999 = 0 THEN 'infinity' WHEN i % 5003 = 0 THEN '-infinity'
            ELSE timestamptz '2024-01-01 00:00+00' + i * interval '23 seconds' END,
       CASE WHEN i % 211 = 0 THEN NULL ELSE 'dev-' || (i % 13) END,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i % 3001 = 0 THEN 'infinity' WHEN i % 3011 = 0 THEN '-infinity'
            ELSE ((i * 0.6180339887498949) - floor(i * 0.6180339887498949)) * 110 - 5 END,
       CASE WHEN i % 307 = 0 THEN NULL ELSE (i * 7) % 100 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE ((i * 37) % 10000) / 100.0 END,
       CASE WHEN i % 1009 = 0 THEN 'NaN' WHEN i % 29 = 0 THEN NULL WHEN i % 4001 = 0 THEN '-infinity'
            ELSE (i % 1000) / 10.0 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE (enum_range(NULL::ds_level))[1 + (i * 3) % 5] END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE md5('dev' || i % 17)::uuid END,
       CASE WHEN i % 37 = 0 THEN NULL WHEN i % 4007 = 0 THEN 'NaN' ELSE (i % 997) / 9.97 END
FROM generate_series(1, 250000) i;
VACUUM ANALYZE ds_metrics;
INSERT INTO ds_metrics
SELECT timestamptz '2024-03-05 00:00+00' + i * interval '7 seconds', 'dev-new-' || (i % 3), i % 7 * 20.0, 100 + i % 50,
       i % 2 = 0, 99.99, i % 13, 'trace', md5('late' || i % 3)::uuid, i % 101
FROM generate_series(1, 20000) i;

-- ds_parts holds the same rows in a table partitioned by month, as
-- pg_partman and hand-made schemes have them (the NULL and infinite times
-- in its default partition), its late rows too added after ANALYZE.
DROP TABLE IF EXISTS ds_parts;
CREATE TABLE ds_parts (LIKE ds_metrics) PARTITION BY RANGE (time);
CREATE TABLE ds_parts_2024_01 PARTITION OF ds_parts FOR VALUES FROM ('2024-01-01 00:00+00') TO ('2024-02-01 00:00+00');
CREATE TABLE ds_parts_2024_02 PARTITION OF ds_parts FOR VALUES FROM ('2024-02-01 00:00+00') TO ('2024-03-01 00:00+00');
CREATE TABLE ds_parts_2024_03 PARTITION OF ds_parts FOR VALUES FROM ('2024-03-01 00:00+00') TO ('2024-04-01 00:00+00');
CREATE TABLE ds_parts_other PARTITION OF ds_parts DEFAULT;
INSERT INTO ds_parts SELECT * FROM ds_metrics WHERE device_id IS NULL OR device_id NOT LIKE 'dev-new-%';
VACUUM ANALYZE ds_parts;
INSERT INTO ds_parts SELECT * FROM ds_metrics WHERE device_id LIKE 'dev-new-%';

-- ds_odd holds the same rows in a table whose layout the page path must
-- walk as heap_deform_tuple does: a text and a jsonb column before every
-- value (some of the text out of line in TOAST, some jsonb compressed
-- inline), a dropped column between the values, device_id a varchar, and
-- load added by ALTER TABLE with a default after the first 150,000 rows,
-- so those rows' tuples are shorter than the table and read it from
-- attmissingval.
DROP TABLE IF EXISTS ds_odd;
CREATE TABLE ds_odd (note text, tags jsonb, time timestamptz, junk int, device_id varchar(24), cpu float8,
                     g int, flag bool, price numeric(10,2), level ds_level, dev uuid, pct ds_percent);
ALTER TABLE ds_odd ALTER COLUMN note SET STORAGE EXTERNAL;
INSERT INTO ds_odd
SELECT CASE WHEN n % 41 = 0 THEN repeat(md5(n::text), 80) WHEN n % 43 = 0 THEN NULL ELSE 'n' || n % 7 END,
       CASE WHEN n % 5 = 0 THEN NULL ELSE jsonb_build_object('rack', n % 9, 'row', repeat('r', (n % 150)::int)) END,
       time, n, device_id, cpu, g, flag, price, level, dev, pct
FROM (SELECT row_number() OVER () AS n, * FROM ds_metrics WHERE device_id IS NULL OR device_id NOT LIKE 'dev-new-%') m WHERE n <= 150000;
ALTER TABLE ds_odd DROP COLUMN junk;
ALTER TABLE ds_odd ADD COLUMN load float8 DEFAULT 42.5;
INSERT INTO ds_odd
SELECT CASE WHEN n % 41 = 0 THEN repeat('out of line ', 400) ELSE 'n' || n % 7 END,
       CASE WHEN n % 37 = 0 THEN jsonb_build_object('row', repeat('compressed inline ', 200)) END,
       time, device_id, cpu, g, flag, price, level, dev, pct, load
FROM (SELECT row_number() OVER () AS n, * FROM ds_metrics WHERE device_id IS NULL OR device_id NOT LIKE 'dev-new-%') m WHERE n > 150000 AND n <= 250000;
VACUUM ANALYZE ds_odd;
INSERT INTO ds_odd (time, device_id, cpu, g, flag, price, load, level, dev, pct)
SELECT time, device_id, cpu, g, flag, price, load, level, dev, pct FROM ds_metrics WHERE device_id LIKE 'dev-new-%';

-- Rows of ds_with and ds_without that the other lacks (EXCEPT ALL both ways),
-- float and numeric columns rounded to 6 places.
CREATE OR REPLACE FUNCTION ds_differing_rows() RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
    cols text;
    n bigint;
BEGIN
    SELECT string_agg(CASE WHEN atttypid IN ('float8'::regtype, 'float4'::regtype, 'numeric'::regtype)
                           THEN format('round(%I::numeric, 6)', attname) ELSE format('%I', attname) END,
                      ', ' ORDER BY attnum)
      INTO cols FROM pg_attribute WHERE attrelid = 'pg_temp.ds_with'::regclass AND attnum > 0 AND NOT attisdropped;
    EXECUTE format('SELECT count(*) FROM ((SELECT %1$s FROM ds_with EXCEPT ALL SELECT %1$s FROM ds_without) '
                   'UNION ALL (SELECT %1$s FROM ds_without EXCEPT ALL SELECT %1$s FROM ds_with)) d', cols) INTO n;
    RETURN n;
END
$f$;

-- The plan of query q, a line a row.
CREATE OR REPLACE FUNCTION ds_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        RETURN NEXT line;
    END LOOP;
END
$f$;
