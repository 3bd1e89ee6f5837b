--
-- where_convert: comparisons the scan evaluates natively although the value
-- is of another type than the column (native_qual.h): a timestamptz column
-- against a date or a timestamp (`ts >= '2024-01-05'::date`, midnight in
-- the session's zone), a timestamp column against a date, a date column
-- against a timestamp, and an integer column under the cast a numeric or
-- float8 literal puts on it (`bytes > 1e8` is `bytes::numeric > 1e8`).
-- PostgreSQL's own cross-type comparison places each value among the
-- column's stored words once per scan; every answer is compared with the
-- ordinary plan's, in zones with DST and odd offsets, with infinities,
-- values beyond the other type's range, NULLs, lists and parameters.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

CREATE TABLE wc_t (ts timestamptz, host text, lts timestamp, d date, i2 int2, i4 int4, i8 int8, x float8)
WITH (autovacuum_enabled = off);
INSERT INTO wc_t
SELECT CASE WHEN i % 101 = 0 THEN NULL WHEN i = 7 THEN '-infinity' WHEN i = 8 THEN 'infinity'
            ELSE '2024-03-08 00:00+00'::timestamptz + i * interval '15 minutes' END,
       'h' || i % 5,
       CASE WHEN i % 103 = 0 THEN NULL WHEN i = 9 THEN '-infinity' WHEN i = 10 THEN 'infinity'
            ELSE '2024-03-08 00:00'::timestamp + i * interval '15 minutes' END,
       CASE WHEN i % 107 = 0 THEN NULL WHEN i = 11 THEN '-infinity' WHEN i = 12 THEN 'infinity'
            WHEN i = 13 THEN '5874897-12-31'::date ELSE '2024-03-01'::date + i % 40 END,
       CASE WHEN i % 109 = 0 THEN NULL WHEN i = 14 THEN -32768 WHEN i = 15 THEN 32767 ELSE i % 50 - 25 END,
       CASE WHEN i % 113 = 0 THEN NULL WHEN i = 16 THEN -2147483648 WHEN i = 17 THEN 2147483647 ELSE i % 10 END,
       CASE WHEN i % 127 = 0 THEN NULL WHEN i = 18 THEN -9223372036854775808 WHEN i = 19 THEN 9223372036854775807
            ELSE (i::int8 * 104729) % 1000003 * 10000 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END
FROM generate_series(0, 7999) i;
ANALYZE wc_t;

-- each of these is native: the EXPLAIN line says so
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE ts >= '2024-03-10'::date AND ts < '2024-03-12'::date$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE ts > '2024-03-10 02:30'::timestamp$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE lts < '2024-03-10'::date$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE d >= '2024-03-10 12:00'::timestamp$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE i8 > 1e8$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE i4 IN (1.5, 2, 3.0)$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE i4 > 2.5::float8$$)
) v(q);

-- not compared as stored words: a date or timestamp column against a
-- timestamptz (the column would be converted by the zone, which may go
-- back), an int8 under a cast to float8 (many int8s become one float8);
-- the first, of a column of few values, is evaluated once per value
-- (where_computed.sql), the others by the executor
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE d >= '2024-03-10 00:00+05'::timestamptz$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE lts < '2024-03-10 00:00+05'::timestamptz$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wc_t WHERE i8::float8 > 1e8::float8$$)
) v(q);

-- the answers, against the ordinary plan, in four zones (New York's DST
-- starts on 2024-03-10, Lord Howe's half hour ends on 2024-04-07)
CREATE TEMP TABLE wc_queries (q text);
INSERT INTO wc_queries
SELECT format($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t WHERE %s$$, c)
FROM (VALUES
    ('ts < ''2024-03-10''::date'), ('ts <= ''2024-03-10''::date'), ('ts = ''2024-03-10''::date'),
    ('ts >= ''2024-03-10''::date'), ('ts > ''2024-03-10''::date'), ('ts <> ''2024-03-10''::date'),
    ('''2024-03-10''::date <= ts'), ('''2024-03-10''::date > ts'),
    ('ts >= ''2024-03-10''::date AND ts < ''2024-03-12''::date'),
    ('ts < ''-infinity''::date'), ('ts <= ''-infinity''::date'), ('ts = ''infinity''::date'), ('ts >= ''infinity''::date'),
    ('ts > ''-infinity''::date'), ('ts <> ''infinity''::date'),
    ('ts < ''5874897-12-31''::date'), ('ts = ''5874897-12-31''::date'), ('ts > ''4713-01-01 BC''::date'),
    ('ts IN (''2024-03-09''::date, ''2024-03-10''::date, NULL)'), ('ts NOT IN (''2024-03-09''::date, ''infinity''::date)'),
    ('ts NOT IN (''2024-03-09''::date, NULL)'),
    ('ts >= ''2024-03-10 02:30''::timestamp'), ('ts < ''2024-11-03 01:30''::timestamp'), ('ts = ''2024-03-09 00:15''::timestamp'),
    ('ts <> ''2024-03-09 00:15''::timestamp'), ('ts > ''infinity''::timestamp'), ('ts >= ''infinity''::timestamp'),
    ('lts < ''2024-03-10''::date'), ('lts = ''2024-03-09''::date'), ('lts >= ''-infinity''::date'), ('lts > ''5874897-12-31''::date'),
    ('lts IN (''2024-03-09''::date, ''2024-03-11''::date)'),
    ('d >= ''2024-03-10 12:00''::timestamp'), ('d > ''2024-03-10 00:00''::timestamp'), ('d = ''2024-03-10 00:00''::timestamp'),
    ('d = ''2024-03-10 00:01''::timestamp'), ('d <> ''2024-03-10 00:01''::timestamp'), ('d < ''infinity''::timestamp'),
    ('d >= ''infinity''::timestamp'), ('d > ''294276-12-31''::timestamp'), ('d <= ''-infinity''::timestamp')
) v(c);
INSERT INTO wc_queries
SELECT format($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t WHERE %s$$, c)
FROM (VALUES
    ('i8 > 1e8'), ('i8 >= 9223372036854775807.5'), ('i8 <= 9223372036854775807.5'), ('i8 = 9223372036854775808'),
    ('i8 < -9223372036854775808.5'), ('i8 > -1e30'), ('i8 < 1e30'), ('i8 <> 1e30'),
    ('i4 < 2.5'), ('i4 <= 2.5'), ('i4 = 2.5'), ('i4 <> 2.5'), ('i4 >= 2.5'), ('i4 > 2.5'), ('i4 = 3.0'), ('i4 <> 3.000'),
    ('2.5 < i4'), ('i4 < ''NaN''::numeric'), ('i4 = ''NaN''::numeric'), ('i4 > ''Infinity''::numeric'),
    ('i4 > ''-Infinity''::numeric'), ('i4 IN (1.5, 2, 3.0, NULL)'), ('i4 NOT IN (1.5, 2)'), ('i4 NOT IN (1.5, NULL)'),
    ('i2 >= -32768.5'), ('i2 < -32767.5'), ('i2 > 32766.9'), ('i2 BETWEEN -3.5 AND 3.5'),
    ('i4 > 2.5::float8'), ('i4 = 2::float8'), ('i4 < ''NaN''::float8'), ('i4 = ''NaN''::float8'), ('i2 < ''-Infinity''::float8'),
    ('i2 >= 3.5::float4'), ('i4 IN (1::float8, 2.5::float8)')
) v(c);
SET TimeZone = 'UTC';
SELECT substr(q, 70) AS clause, c.scan_planned, c.same, (rt_rows(q))[1] AS answer
FROM wc_queries, LATERAL rt_compare(q) c;
SET TimeZone = 'America/New_York';
SELECT q, c.* FROM wc_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same);
SELECT count(*) AS compared FROM wc_queries, LATERAL rt_compare(q) c;
SET TimeZone = 'Asia/Kathmandu';
SELECT q, c.* FROM wc_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same);
SET TimeZone = 'Australia/Lord_Howe';
SELECT q, c.* FROM wc_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same);
SET TimeZone = 'UTC';

-- the value from a parameter, a generic plan's, and from a sub-select
PREPARE wc_p(date, numeric) AS
SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t WHERE ts >= $1 AND i8 > $2;
SET plan_cache_mode = force_generic_plan;
SELECT a, c.* FROM (VALUES ('EXECUTE wc_p(''2024-03-10'', 1e8)'), ('EXECUTE wc_p(''infinity'', 0)'),
                           ('EXECUTE wc_p(NULL, 0)'), ('EXECUTE wc_p(''2024-03-10'', ''NaN'')'),
                           ('EXECUTE wc_p(''2024-03-10'', -1e40)')) v(a), LATERAL rt_compare(a, false, NULL, false) c;
RESET plan_cache_mode;
DEALLOCATE wc_p;
SELECT c.* FROM rt_compare($$SELECT gpu_histogram(x, 0, 1, 8) AS h FROM wc_t
    WHERE ts < (SELECT max(d) FROM wc_t WHERE d < '2024-04-01') AND i4 > (SELECT 2.5)$$) c;

-- grouped, on the page path: batches of all-visible pages parsed as the GPU parses them
VACUUM wc_t;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SELECT line FROM rt_explain($$SELECT date_trunc('day', ts), gpu_histogram(x, 0, 1, 8) FROM wc_t
    WHERE ts >= '2024-03-09'::date AND ts < '2024-03-12'::date AND i8 > 5e9 GROUP BY 1$$, true) line
WHERE line ~ 'Filter Evaluation|Pages|Rows Removed';
SET TimeZone = 'America/New_York';
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('day', ts) AS t, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t
       WHERE ts >= '2024-03-09'::date AND ts < '2024-03-12'::date AND i8 > 5e9 GROUP BY 1$$),
    ($$SELECT i4, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t WHERE i4 > 2.5 AND i2 <= 3::float8 GROUP BY 1$$),
    ($$SELECT host, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wc_t
       WHERE (host = 'h1' AND i4 IN (1.0, 2)) OR (lts >= '2024-03-10'::date AND i2 < 0.5) GROUP BY 1$$),
    ($$SELECT d, gpu_histogram(x, 0, 1, 8) AS h FROM wc_t WHERE d <> '2024-03-03 00:00'::timestamp AND ts <> 'infinity'::date GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
RESET TimeZone;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;

DROP TABLE wc_t;
RESET gpu_histogram.device;
