--
-- where_computed: WHERE clauses over an expression the scan computes
-- natively as a GROUP BY key (keys/key_quals.h): the local hour or weekday
-- (`extract(hour FROM ts) BETWEEN 9 AND 17`, `extract(dow FROM ts) NOT IN
-- (0, 6)`), the local date (`CAST(ts AS date) BETWEEN ...`, Metabase's),
-- date_trunc and date_bin compared with a value fixed for the scan.  Each
-- row's key is computed as the GROUP BY keys compute it; whether a key
-- passes is asked of the operator itself once per key value and
-- remembered.  Every answer is compared with the ordinary plan's, in
-- zones with DST and odd offsets, with NULLs, infinities, lists with
-- NULLs and empty ones, and parameters; times at the end of the range,
-- where the key raises PostgreSQL's error, raise it as the ordinary plan
-- does, in its order (rt_try).  Such an atom runs natively only where no
-- clause before it stays the executor's, and not inside an OR that must
-- be distributed: it may raise, so it sees only the rows the ordinary
-- plan's Filter would show it.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
SET gpu_histogram.device = cpu;

CREATE TABLE wk_t (ts timestamptz, host text, lts timestamp, g int4, x float8) WITH (autovacuum_enabled = off);
INSERT INTO wk_t
SELECT CASE WHEN i % 101 = 0 THEN NULL WHEN i = 7 THEN '-infinity' WHEN i = 8 THEN 'infinity'
            ELSE '2024-03-01 00:00+00'::timestamptz + i * interval '17 minutes' END,
       'h' || i % 5,
       CASE WHEN i % 103 = 0 THEN NULL WHEN i = 9 THEN 'infinity'
            ELSE '2024-03-01 00:00'::timestamp + i * interval '17 minutes' END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 10 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END
FROM generate_series(0, 9999) i;
ANALYZE wk_t;

-- native: the EXPLAIN line says so; an executor clause before the computed
-- one (a function the planner costs below it) keeps it the executor's, as
-- does an AND with it inside an OR
CREATE FUNCTION wk_cheap(int) RETURNS bool LANGUAGE plpgsql IMMUTABLE COST 0.001 AS $$BEGIN RETURN $1 > 0; END$$;
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(hour FROM ts) BETWEEN 9 AND 17$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(dow FROM ts) NOT IN (0, 6) AND g < 5$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE CAST(ts AS date) BETWEEN '2024-03-05' AND '2024-03-10'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE upper(host) = 'H1' AND extract(hour FROM ts) < 12$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE wk_cheap(g) AND extract(hour FROM ts) < 12$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE (g = 1 AND extract(hour FROM ts) < 12) OR g = 2$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(hour FROM ts) < 6 OR g = 3$$)
) v(q);

CREATE TEMP TABLE wk_queries (n int GENERATED ALWAYS AS IDENTITY, q text);
INSERT INTO wk_queries (q)
SELECT format($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_t WHERE %s$$, c)
FROM (VALUES
    ('extract(hour FROM ts) BETWEEN 9 AND 17'), ('extract(hour FROM ts) >= 9 AND extract(hour FROM ts) < 17'),
    ('date_part(''hour'', ts) > 8.5'), ('extract(minute FROM ts) = 0'),
    ('extract(dow FROM ts) NOT IN (0, 6)'), ('extract(isodow FROM ts) < 6'), ('extract(dow FROM ts) IN (0, 6, NULL)'),
    ('extract(dow FROM ts) NOT IN (1, NULL)'), ('extract(dow FROM ts) = ANY(''{}''::numeric[])'),
    ('extract(dow FROM ts) <> ALL(''{}''::numeric[])'), ('extract(month FROM ts) = 3'), ('extract(year FROM ts) >= 2024'),
    ('extract(day FROM ts) IN (1, 15, 31)'), ('extract(hour FROM ts AT TIME ZONE ''Asia/Tokyo'') < 9'),
    ('extract(hour FROM lts) BETWEEN 9 AND 17'), ('extract(dow FROM lts) IN (6, 0)'),
    ('CAST(ts AS date) BETWEEN ''2024-03-05'' AND ''2024-03-10'''), ('ts::date = ''2024-03-10'''),
    ('ts::date <> ''2024-03-10'''), ('ts::date IN (''2024-03-09'', ''2024-03-31'')'), ('ts::date >= ''infinity'''),
    ('ts::date < ''2024-03-09''::timestamptz'),
    ('date_trunc(''day'', ts) = ''2024-03-10'''), ('date_trunc(''week'', ts) < ''2024-03-11'''),
    ('date_trunc(''month'', ts) > ''2024-03-01''::date'), ('date_trunc(''hour'', lts) >= ''2024-03-10 02:00'''),
    ('date_bin(''15 minutes'', ts, ''2000-01-01'') = ''2024-03-10 12:00+00'''),
    ('extract(hour FROM ts) < 6 OR g = 3'), ('extract(hour FROM ts) < 6 OR extract(hour FROM ts) > 20'),
    ('g < 5 AND extract(hour FROM ts) BETWEEN 9 AND 17 AND x > 0.5'),
    ('ts >= ''2024-03-05'' AND ts < ''2024-03-08'' AND extract(dow FROM ts) NOT IN (0, 6)'),
    ('upper(host) = ''H1'' AND extract(hour FROM ts) < 12'), ('(g = 1 AND extract(hour FROM ts) < 12) OR g = 2'),
    ('wk_cheap(g) AND extract(hour FROM ts) < 12')
) v(c);
SET TimeZone = 'UTC';
SELECT n, substr(q, 70) AS clause, c.scan_planned, c.same, (rt_rows(q))[1] AS answer
FROM wk_queries, LATERAL rt_compare(q) c ORDER BY n;
SET TimeZone = 'America/New_York';
SELECT n, c.* FROM wk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;
SET TimeZone = 'Asia/Kathmandu';
SELECT n, c.* FROM wk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;
SET TimeZone = 'Australia/Lord_Howe';
SELECT n, c.* FROM wk_queries, LATERAL rt_compare(q) c WHERE NOT (c.scan_planned AND c.same) ORDER BY n;

-- grouped, with a parameter, and with workers
SET TimeZone = 'America/New_York';
PREPARE wk_p(date, int) AS
SELECT date_trunc('day', ts) AS d, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_t
WHERE ts::date >= $1 AND extract(hour FROM ts) < $2 GROUP BY 1;
SET plan_cache_mode = force_generic_plan;
SELECT a, c.* FROM (VALUES ('EXECUTE wk_p(''2024-03-09'', 12)'), ('EXECUTE wk_p(NULL, 12)'),
                           ('EXECUTE wk_p(''2024-03-20'', NULL)')) v(a), LATERAL rt_compare(a, false, NULL, false) c;
RESET plan_cache_mode;
DEALLOCATE wk_p;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT bool_or(line ~ 'Gather') AS gather, string_agg(btrim(line), ' ') FILTER (WHERE line ~ 'Filter Evaluation') AS filter
FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(isodow FROM ts) < 6 GROUP BY g$$) line;
SELECT c.* FROM rt_compare($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_t
    WHERE extract(isodow FROM ts) < 6 AND extract(hour FROM ts) BETWEEN 9 AND 17 GROUP BY g$$) c;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- the page path: the GPU's pages leave out rows by the native time range,
-- and hand the host the pages with rows it must finish; without such a
-- clause the host takes the pages itself
VACUUM wk_t;
SET gpu_histogram.debug_pages_on_cpu = on;
SET gpu_histogram.debug_pages_per_batch = 8;
SELECT q, c.* FROM (VALUES
    ($$SELECT date_trunc('hour', ts) AS t, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_t
       WHERE ts >= '2024-03-05' AND ts < '2024-03-12' AND extract(hour FROM ts) BETWEEN 9 AND 17 GROUP BY 1$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wk_t WHERE extract(dow FROM ts) NOT IN (0, 6) GROUP BY g$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_t
       WHERE g IN (1, 2) AND CAST(ts AS date) BETWEEN '2024-03-05' AND '2024-03-10'$$)
) v(q), LATERAL rt_compare(q) c;
SET client_min_messages = debug1;
SELECT g, gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(dow FROM ts) NOT IN (0, 6) GROUP BY g ORDER BY g LIMIT 1;
SELECT g, gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(dow FROM ts) NOT IN (0, 6) AND g = 3 GROUP BY g;
SELECT g, gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(dow FROM ts) NOT IN (0, 6) AND ts >= '2024-03-05' AND g = 3 GROUP BY g;
RESET client_min_messages;
RESET gpu_histogram.debug_pages_per_batch;
RESET gpu_histogram.debug_pages_on_cpu;

-- a time at the range's start, whose month in New York PostgreSQL cannot
-- truncate (date_trunc raises): the same error as the ordinary plan, or
-- the same answer where a clause before it leaves that row out
INSERT INTO wk_t VALUES ('4714-11-24 00:00:00+00 BC', 'h1', NULL, 4, 0.5);
SET TimeZone = 'America/New_York';
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE date_trunc('month', ts) >= '2024-03-01'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE g <> 4 AND date_trunc('month', ts) >= '2024-03-01'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE ts > '2024-01-01' AND date_trunc('month', ts) >= '2024-03-01'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE g = 4 OR date_trunc('month', ts) >= '2024-03-01'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE g <> 4 OR date_trunc('month', ts) >= '2024-03-01'$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) FROM wk_t WHERE extract(hour FROM ts) < 12 GROUP BY g$$)
) v(q), LATERAL rt_try(q) c;
RESET TimeZone;

-- a boolean clause of one integer-like or text column with few values, by
-- its statistics: the clause itself evaluated by the executor once per
-- value, at the first row holding it (a key by value); a column of unique
-- values, or one without statistics, stays the executor's row by row
CREATE TABLE wk_v (host text, code text, g int4, u int8, x float8) WITH (autovacuum_enabled = off);
INSERT INTO wk_v
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE 'web-' || i % 40 END,
       CASE WHEN i % 500 = 0 THEN 'x' || i ELSE (i % 30)::text END,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 10 END, i, (i % 1000) / 1000.0
FROM generate_series(1, 20000) i;
-- long values, stored compressed, and out of line
INSERT INTO wk_v SELECT 'web-' || repeat('z', 3000 + i % 3), '1', 1, -i, 0.5 FROM generate_series(1, 30) i;
INSERT INTO wk_v SELECT 'web-' || string_agg(md5(i::text || j::text), ''), '2', 2, -1000 - i, 0.25
FROM generate_series(1, 3) i, generate_series(1, 300) j GROUP BY i;
ANALYZE wk_v;
SELECT q, (SELECT string_agg(btrim(line), ' ') FROM rt_explain(q) line WHERE line ~ 'Filter Evaluation') AS plan
FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_v WHERE host LIKE 'web-1%'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_v WHERE u % 10 = 3$$)
) v(q);
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE host LIKE 'web-1%'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE host NOT LIKE 'web-1%'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE host ~ '^web-(1|22)$'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE upper(host) = 'WEB-7' OR g = 3$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE length(host) > 3000$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE coalesce(host, 'none') = 'none'$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE g % 3 = 1 AND host ILIKE 'WEB-2%'$$),
    ($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE host LIKE '%1' GROUP BY g$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) AS h, count(*) AS n FROM wk_v WHERE u % 10 = 3$$)
) v(q), LATERAL rt_compare(q) c;
-- a cast that raises at its first row holding a value it cannot read, as
-- the ordinary plan's does; a clause before it may take that row away
SELECT q, c.* FROM (VALUES
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_v WHERE code::int < 10$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_v WHERE code NOT LIKE 'x%' AND code::int < 10$$),
    ($$SELECT gpu_histogram(x, 0, 1, 8) FROM wk_v WHERE g = 4 AND code::int < 10$$)
) v(q), LATERAL rt_try(q) c;
-- the page path: the GPU leaves pages by the native clause, the host applies the other
VACUUM wk_v;
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT c.* FROM rt_compare($$SELECT g, gpu_histogram(x, 0, 1, 8) AS h FROM wk_v WHERE g < 5 AND host LIKE 'web-1%' GROUP BY g$$) c;
RESET gpu_histogram.debug_pages_on_cpu;
DROP TABLE wk_v;

DROP TABLE wk_t;
DROP FUNCTION wk_cheap(int);
RESET gpu_histogram.device;
