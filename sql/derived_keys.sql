--
-- derived_keys: a GROUP BY key that is an expression of one time key or
-- local date field the scan computes itself (keys/derived_key.cpp), as
-- Metabase writes its hour of the day, `CAST(extract(hour FROM ts) AS
-- integer)`, and day of the week, `CAST(extract(dow FROM ts) AS integer)
-- + 1`: the inner key computed natively, the whole key by the executor
-- once per inner value.  Every answer against the ordinary plan, in zones
-- with DST and odd offsets, with NULL and infinite times; an error the
-- key raises (the year of infinity made an integer) is raised as the
-- ordinary plan raises it (rt_try).
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

CREATE TABLE dk_t (ts timestamptz, host text, lts timestamp, g int4, x float8) WITH (autovacuum_enabled = off);
INSERT INTO dk_t
SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE '2024-03-01 00:00+00'::timestamptz + i * interval '37 minutes' END,
       'h' || i % 5,
       CASE WHEN i % 103 = 0 THEN NULL ELSE '2024-03-01 00:00'::timestamp + i * interval '37 minutes' END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 10 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END
FROM generate_series(0, 9999) i;
ANALYZE dk_t;

SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Key Computation') AS plan
FROM (VALUES
    ($$SELECT CAST(extract(hour FROM ts) AS integer), gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(dow FROM ts) AS integer) + 1, gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1$$),
    ($$SELECT extract(epoch FROM date_trunc('day', ts)), gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1$$),
    -- two inner keys, or a column beside the inner key: the executor's, row by row
    ($$SELECT extract(hour FROM ts) * 100 + extract(minute FROM ts), gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1$$),
    ($$SELECT extract(hour FROM ts) + g, gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1$$)
) v(q);

CREATE TEMP TABLE dk_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO dk_queries (q) VALUES
    ($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(dow FROM ts) AS integer) + 1 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(x) AS c, max(x) AS m FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(month FROM ts) AS integer) AS k, CAST(extract(day FROM ts) AS integer) AS d, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1, 2$$),
    ($$SELECT CAST(extract(quarter FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(week FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(doy FROM lts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(minute FROM ts) AS integer) / 15 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT extract(epoch FROM date_trunc('day', ts)) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT to_char(date_trunc('month', ts), 'YYYY-MM') AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CASE WHEN extract(hour FROM ts) BETWEEN 9 AND 17 THEN 'office' ELSE 'off' END AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(hour FROM ts AT TIME ZONE 'Asia/Kolkata') AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, g, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t WHERE ts >= '2024-03-05' AND ts < '2024-03-20' GROUP BY 1, 2$$),
    ($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1 HAVING count(*) > 400 ORDER BY 1$$);
SET TimeZone = 'UTC';
SELECT n, c.* FROM dk_queries, LATERAL rt_compare(q) c ORDER BY n;
SET TimeZone = 'America/New_York';
SELECT n, c.* FROM dk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;
SET TimeZone = 'Asia/Kathmandu';
SELECT n, c.* FROM dk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;
SET TimeZone = 'Australia/Lord_Howe';
SELECT n, c.* FROM dk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;

-- in the WHERE clause too, as Metabase filters by its hour of the day: the
-- derived key computed per row, each value's answer asked once
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS plan, c.*
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM dk_t WHERE CAST(extract(hour FROM ts) AS integer) BETWEEN 9 AND 17$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t WHERE CAST(extract(dow FROM ts) AS integer) + 1 IN (1, 7) GROUP BY g$$)
) v(q), LATERAL rt_compare(q) c;

-- with workers, and on the page path (the host's pages: the GPU has no table for such a key)
SET TimeZone = 'America/New_York';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT c.* FROM rt_compare($$SELECT CAST(extract(dow FROM ts) AS integer) + 1 AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM dk_t GROUP BY 1$$) c;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
VACUUM dk_t;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SET client_min_messages = debug1;
SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) FROM dk_t GROUP BY 1 ORDER BY 1 LIMIT 2;
RESET client_min_messages;
SELECT c.* FROM rt_compare($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$) c;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;

-- a reading a second: most pages lie in one hour, whose inner key the
-- scan computes once a page (a DST change in New York among them)
CREATE TABLE dk_s AS SELECT '2024-03-10 00:00-05'::timestamptz + i * interval '1 second' AS ts, ((i % 997) / 997.0)::float8 AS x
FROM generate_series(0, 4 * 3600) i;
VACUUM ANALYZE dk_s;
SELECT q, c.* FROM (VALUES
    ($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM dk_s GROUP BY 1$$),
    ($$SELECT CAST(extract(minute FROM ts) AS integer) / 10 AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_s GROUP BY 1$$),
    ($$SELECT extract(epoch FROM date_trunc('hour', ts)) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_s GROUP BY 1$$)
) v(q), LATERAL rt_compare(q) c;
DROP TABLE dk_s;

-- the year of an infinite time is infinity, which no integer holds: the
-- executor raises at its row, as the ordinary plan does; the hour of it is
-- NULL, a group of its own
INSERT INTO dk_t VALUES ('infinity', 'h1', NULL, 4, 0.5), ('-infinity', 'h2', NULL, 5, 0.25);
SELECT q, c.* FROM (VALUES
    ($$SELECT CAST(extract(year FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t GROUP BY 1$$),
    ($$SELECT CAST(extract(year FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h FROM dk_t WHERE ts < 'infinity' AND ts > '-infinity' GROUP BY 1$$),
    ($$SELECT CAST(extract(hour FROM ts) AS integer) AS k, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM dk_t GROUP BY 1$$)
) v(q), LATERAL rt_try(q) c;
RESET TimeZone;

DROP TABLE dk_t;
RESET gpu_histogram.device;
