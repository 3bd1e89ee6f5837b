-- setup.sql: what run_sqlsmith.sh gives sqlsmith to work on (run as a
-- superuser in a fresh database): the extension; tables of every type that
-- gpu_histogram takes, with NULLs, infinities, NaN and extreme values;
-- stored histograms and thresholds, well-formed and malformed; views and a
-- materialized view over them; the role sqlsmith connects as; and the
-- catalog view that points sqlsmith at the extension's functions.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION gpu_histogram;

CREATE TABLE sm_values (
    id integer, f8 float8, f4 float4, i2 int2, i4 int4, i8 int8, n numeric,
    ts timestamp, tstz timestamptz, d date, lo float8, hi float8, nbins integer);
INSERT INTO sm_values
SELECT i,
       CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN 'NaN'
                   WHEN 4 THEN 1e308 WHEN 5 THEN -1e308 WHEN 6 THEN '-0' WHEN 7 THEN 5e-324
                   ELSE (i * 0.6180339887498949 - floor(i * 0.6180339887498949)) * 120 - 10 END,
       CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN 'NaN'
                   WHEN 4 THEN 3.4e38 WHEN 5 THEN -3.4e38 ELSE i % 97 END,
       CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 32767 WHEN 2 THEN -32768 ELSE i % 200 - 100 END,
       CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN 2147483647 WHEN 2 THEN -2147483648 ELSE i - 250 END,
       CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN 9223372036854775807 WHEN 2 THEN -9223372036854775808
                   WHEN 3 THEN 9007199254740993 ELSE i * 1000 END,
       CASE i % 12 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
                   WHEN 4 THEN 1e400 WHEN 5 THEN 0.1 ELSE i / 7.0 END,
       CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN '-infinity' WHEN 2 THEN 'infinity'
                  WHEN 3 THEN '294276-12-31 23:59:59.999999' WHEN 4 THEN '4713-01-01 00:00:00 BC'
                  ELSE timestamp '2024-01-01' + i * interval '97 minutes' END,
       CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN '-infinity' WHEN 2 THEN 'infinity'
                  WHEN 3 THEN '294276-12-31 23:59:59.999999+00' WHEN 4 THEN '4713-01-01 00:00:00+00 BC'
                  ELSE timestamptz '2024-01-01 00:00+00' + i * interval '97 minutes' END,
       CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN '-infinity' WHEN 2 THEN 'infinity'
                  WHEN 3 THEN '5874897-12-31' WHEN 4 THEN '4713-01-01 BC' ELSE date '2024-01-01' + i END,
       CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 100 WHEN 3 THEN -1e308 ELSE 0 END,
       CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'Infinity' WHEN 2 THEN 0 WHEN 3 THEN 1e308 ELSE 100 END,
       CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN -1 WHEN 3 THEN 10000000 WHEN 4 THEN 10000001
                  ELSE i % 20 + 1 END
FROM generate_series(1, 500) i;

-- larger: the custom scan, batches, parallel workers
CREATE TABLE sm_big AS
SELECT i AS id, (i * 0.6180339887498949 - floor(i * 0.6180339887498949)) AS x, (i % 1000)::float4 AS y,
       i % 10 AS k, timestamptz '2024-01-01 00:00+00' + i * interval '1 minute' AS t
FROM generate_series(1, 20000) i;

-- stored histograms and thresholds, well-formed and not
CREATE TABLE sm_hists (id integer, h bigint[], th float8[], lo float8, hi float8,
                       tlo timestamptz, thi timestamptz, dlo date, dhi date);
INSERT INTO sm_hists VALUES
    (1, '{1,2,3}', '{1,2}', 0, 1, '2024-01-01', '2024-01-02', '2024-01-01', '2024-01-08'),
    (2, '{0,0,0,0,0}', '{0,10,20,30}', 10, 0, '2024-01-02', '2024-01-01', '2024-01-08', '2024-01-01'),
    (3, '{}', '{}', 0, 0, '-infinity', 'infinity', '-infinity', 'infinity'),
    (4, '{7}', '{NaN}', 'NaN', 1, '2024-01-01', '2024-01-01', '2024-01-01', '2024-01-01'),
    (5, '{1,NULL,3}', '{1,NULL}', NULL, 1, NULL, '2024-01-01', NULL, '2024-01-01'),
    (6, '{{1,2},{3,4}}', '{{1},{2}}', 0, 1e308, '4713-01-01 BC', '294276-12-31', '4713-01-01 BC', '5874897-12-31'),
    (7, '{-1,2,3}', '{5,1,3}', -1e308, 1e308, '2024-01-01', '2024-01-01 00:00:00.000001', '2000-01-01', '2000-01-02'),
    (8, '{9223372036854775807,1,1}', '{-Infinity,Infinity}', '-Infinity', 0, '1970-01-01', '2038-01-19', '1970-01-01', '2038-01-19'),
    (9, '[5:7]={1,2,3}', '[0:1]={1,2}', 0, 5e-324, '2024-03-10', '2024-03-11', '2024-03-10', '2024-03-11'),
    (10, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO sm_hists (id, h, th, lo, hi)
SELECT 10 + g, gpu_histogram(x, 0, 1, 16), (SELECT array_agg(v ORDER BY v) FROM generate_series(0, 16 * g) v), 0, 1
FROM sm_big, generate_series(1, 3) g GROUP BY g;

-- Views that call every function of the extension: sqlsmith picks
-- relations as often as it picks functions, and builds joins, filters and
-- sub-selects around them.
CREATE VIEW sm_hist_all AS
SELECT gpu_histogram(x, 0, 1, 16) AS h, gpu_histogram(y, 1000, 0, 7) AS hy FROM sm_big;
CREATE VIEW sm_hist_grouped AS
SELECT k, gpu_histogram(x, 0, 1, 8) AS h, gpu_histogram(t, '2024-01-01', '2024-01-15', 14) AS ht,
       gpu_histogram(x, '{0.1,0.5,0.9}') AS hth
FROM sm_big GROUP BY k;
CREATE VIEW sm_hist_types AS
SELECT id % 4 AS g, gpu_histogram(f8, 0, 100, 10) AS hf8, gpu_histogram(f4, -50, 50, 5) AS hf4,
       gpu_histogram(i2, -100, 100, 4) AS hi2, gpu_histogram(i8, 0, 1e6, 3) AS hi8,
       gpu_histogram(n, 0, 100, 6) AS hn, gpu_histogram(ts, '2024-01-01', '2024-02-01', 31) AS hts,
       gpu_histogram(tstz, '2024-02-01', '2024-01-01', 31) AS htstz,
       gpu_histogram(d, '2024-01-01', '2025-01-01', 12) AS hd
FROM sm_values WHERE f8 <> 'NaN' AND f4 <> 'NaN' AND n <> 'NaN' AND n < 1e300 GROUP BY 1;
CREATE VIEW sm_hist_thresholds AS
SELECT h.id, gpu_histogram(v.f8, h.th) AS hth FROM sm_hists h, sm_values v WHERE h.id IN (1, 2, 7, 8, 11, 12, 13)
GROUP BY h.id;
CREATE VIEW sm_hist_buckets AS
SELECT h.id, b.* FROM sm_hists h, gpu_histogram_buckets(h.h, h.lo, h.hi) b WHERE h.id IN (1, 2, 11, 12, 13);
CREATE VIEW sm_hist_merged AS
SELECT id % 2 AS g, gpu_histogram_merge(h) AS h FROM sm_hists WHERE id > 10 GROUP BY 1;
CREATE VIEW sm_hist_moving AS
SELECT id, gpu_histogram(x, 0, 1, 4) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS h
FROM sm_big WHERE id <= 2000;
CREATE MATERIALIZED VIEW sm_mv AS SELECT id, f8, i4, d FROM sm_values;
ANALYZE;

-- the role sqlsmith connects as: not a superuser, so that it cannot call
-- functions that stop backends or touch files
CREATE ROLE smith LOGIN;
GRANT ALL ON ALL TABLES IN SCHEMA public TO smith;
ALTER ROLE smith SET gpu_histogram.batch_size = 16384;

-- sqlsmith has no option to prefer some functions: it reads pg_proc by its
-- unqualified name.  Its connection puts this schema before pg_catalog, so
-- it sees only the extension's functions (set-returning ones shown as
-- scalar, so that they are called too) and the non-volatile built-ins over
-- the types those take and give.  A table, not a view, with no parallel
-- scans: sqlsmith reads it once per function, also in the run whose
-- parallel plans are free.  (sqlsmith lists it among the tables too; it can
-- only read it.)
CREATE SCHEMA smith_focus;
CREATE TABLE smith_focus.pg_proc WITH (parallel_workers = 0) AS
WITH ours AS (
    SELECT objid FROM pg_catalog.pg_depend
    WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
      AND refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND deptype = 'e'
      AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'gpu_histogram')
), types(t) AS (
    SELECT t::pg_catalog.regtype::pg_catalog.oid
    FROM pg_catalog.unnest('{float8,float4,int2,int4,int8,numeric,timestamp,timestamptz,date,interval,bool,float8[],int8[],int4[]}'::text[]) t
)
SELECT p.oid, p.proname, p.pronamespace, p.prorettype, p.prokind, p.proargtypes,
       p.proretset AND p.oid NOT IN (SELECT objid FROM ours) AS proretset
FROM pg_catalog.pg_proc p
WHERE p.oid IN (SELECT objid FROM ours)
   OR (p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND p.provolatile <> 'v'
       AND p.prorettype IN (SELECT t FROM types)
       AND NOT EXISTS (SELECT FROM pg_catalog.unnest(p.proargtypes) a WHERE a NOT IN (SELECT t FROM types))
       -- built-in aggregates of two result types only, so that the extension's
       -- (bigint[]) are a third of the aggregates sqlsmith calls
       AND (p.prokind <> 'a' OR p.prorettype IN ('int8'::pg_catalog.regtype, 'float8'::pg_catalog.regtype))
       -- not the built-in aggregates' support functions, which trust their state
       AND p.oid NOT IN (SELECT pg_catalog.unnest(ARRAY[aggtransfn, aggfinalfn, aggcombinefn, aggmtransfn,
                                                       aggminvtransfn, aggmfinalfn]::pg_catalog.oid[])
                         FROM pg_catalog.pg_aggregate));
CREATE INDEX ON smith_focus.pg_proc (oid);
ANALYZE smith_focus.pg_proc;
GRANT USAGE ON SCHEMA smith_focus TO smith;
GRANT SELECT ON smith_focus.pg_proc TO smith;
