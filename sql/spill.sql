-- Groups past the memory bound (scan/grouped/table/tuple_spill.h).  Statistics
-- taken when the table had one group, or a generic plan's nbins, let the
-- planner pick the scan for groups that do not fit work_mem x
-- hash_mem_multiplier.  The scan then does what HashAggregate does: it
-- keeps the groups it has, writes the tuples of the others to temporary
-- files once, and counts them a partition at a time.  Every answer is the
-- ordinary plan's, and temp_file_limit holds each query to a few times
-- what its tuples take: emitting every group and starting again whenever
-- the table filled wrote gigabytes for the first query below.
SET max_parallel_workers_per_gather = 0;
SET temp_file_limit = '16MB';
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql

-- The plan's lines that say what the scan did, numbers as N.
CREATE FUNCTION sp_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        IF line ~ 'Aggregate|GpuHistogramScan|Spilled|Spill|Groups:|Group Flushes' THEN
            RETURN NEXT regexp_replace(line, '\d+(\.\d+)?', 'N', 'g');
        END IF;
    END LOOP;
END
$fn$;

-- The rows of q with the scan and without it (the ordinary plan), compared as
-- multisets through temporary tables: rt_compare sorts the rows as text,
-- which for these 12,000-bucket arrays writes more than temp_file_limit.
CREATE FUNCTION sp_same(q text) RETURNS TABLE(scan_planned boolean, same boolean, rows bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    scan_planned := false;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        scan_planned := scan_planned OR line LIKE '%GpuHistogramScan%';
    END LOOP;
    EXECUTE 'CREATE TEMP TABLE sp_on AS ' || q;
    PERFORM set_config('gpu_histogram.scan', 'off', true);
    EXECUTE 'CREATE TEMP TABLE sp_off AS ' || q;
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    SELECT count(*) = 0 INTO same
    FROM ((TABLE sp_on EXCEPT ALL TABLE sp_off) UNION ALL (TABLE sp_off EXCEPT ALL TABLE sp_on)) d;
    SELECT count(*) INTO rows FROM sp_off;
    DROP TABLE sp_on, sp_off;
    RETURN NEXT;
END
$fn$;

-- The temporary files left: none once a query is over, whatever its end.
CREATE FUNCTION sp_temp_files() RETURNS bigint LANGUAGE sql AS
$$SELECT count(*) FROM pg_ls_tmpdir()$$;

-- 100 groups of 12,000 buckets (96 kB each) where the statistics saw one.
CREATE TABLE sp_stale (g int, x float8, s text) WITH (autovacuum_enabled = off);
INSERT INTO sp_stale SELECT 1, k % 100, 'a' FROM generate_series(1, 1000) k;
ANALYZE sp_stale;
INSERT INTO sp_stale SELECT k % 100, k % 100, 'label ' || (k % 7) FROM generate_series(1, 100000) k;
INSERT INTO sp_stale VALUES (NULL, 5, NULL), (NULL, NULL, 'label 1'), (7, NULL, NULL);

SELECT * FROM sp_lines($$SELECT g, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY g$$);
SELECT * FROM sp_same($$SELECT g, gpu_histogram(x, 0, 100, 12000) h FROM sp_stale GROUP BY g$$);
-- counts alongside, two keys, a text key
SELECT * FROM sp_same($$SELECT g, s, count(*) c, count(x) cx, gpu_histogram(x, 0, 100, 12000) h
                        FROM sp_stale GROUP BY g, s$$);
SELECT * FROM sp_same($$SELECT s, gpu_histogram(x, 0, 100, 12000) h FROM sp_stale GROUP BY s$$);
-- keys by value (g % 50, g::text), whose groups the scan finds by each
-- value's number in the key's memo: the numbers outlive the groups that
-- spill, and are looked up again when they come back
SET work_mem = '1MB';
SELECT * FROM sp_lines($$SELECT g % 50, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY 1$$);
SELECT * FROM sp_same($$SELECT g % 50 AS k, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY 1$$);
SELECT * FROM sp_same($$SELECT g::text AS k, gpu_histogram(x, 0, 100, 12000) h FROM sp_stale GROUP BY 1$$);
RESET work_mem;
-- a smaller bound: more partitions, some of them split again
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SELECT * FROM sp_lines($$SELECT g, s, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY g, s$$);
SELECT * FROM sp_same($$SELECT g, s, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY g, s$$);
RESET work_mem;
RESET hash_mem_multiplier;
-- HAVING on the finished rows, and a LIMIT that stops early
SELECT * FROM sp_same($$SELECT g, gpu_histogram(x, 0, 100, 12000) h FROM sp_stale GROUP BY g HAVING count(*) > 1000$$);
SELECT count(*) FROM (SELECT g, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY g LIMIT 3) q;
SELECT sp_temp_files();

-- A generic plan: nbins is a parameter, so the planner cannot know the groups' size.
CREATE TABLE sp_generic (s text, x float8) WITH (autovacuum_enabled = off);
INSERT INTO sp_generic SELECT 'label ' || (k % 501), (k::bigint * 7919 % 100003) / 100003.0
FROM generate_series(1, 30000) k;
VACUUM ANALYZE sp_generic;
SET plan_cache_mode = force_generic_plan;
PREPARE sp_q(int) AS SELECT s, gpu_histogram(x, 0, 1, $1) h FROM sp_generic GROUP BY s;
SELECT * FROM sp_lines('EXECUTE sp_q(5000)');
CREATE TEMP TABLE sp_gen_on AS EXECUTE sp_q(5000);
SET gpu_histogram.scan = off;
CREATE TEMP TABLE sp_gen_off AS EXECUTE sp_q(5000);
RESET gpu_histogram.scan;
SELECT count(*) AS groups, count(*) FILTER (WHERE h IS NULL) AS null_histograms FROM sp_gen_on;
SELECT count(*) AS differences
FROM ((TABLE sp_gen_on EXCEPT ALL TABLE sp_gen_off) UNION ALL (TABLE sp_gen_off EXCEPT ALL TABLE sp_gen_on)) d;
-- The same through the page path (the CPU standing in for the GPU): the
-- GPU's cells of these groups, past work_mem, would be written to temporary
-- files twice (16 MB and more), where the host spills 887 kB of rows; the
-- host takes the pages, and says why.
SET gpu_histogram.debug_pages_on_cpu = on;
SELECT line FROM rt_explain('EXECUTE sp_q(5000)', true) line WHERE line ~ 'Kept off|Group Flushes|Spill Passes';
CREATE TEMP TABLE sp_gen_pages AS EXECUTE sp_q(5000);
SELECT count(*) AS differences
FROM ((TABLE sp_gen_pages EXCEPT ALL TABLE sp_gen_off) UNION ALL (TABLE sp_gen_off EXCEPT ALL TABLE sp_gen_pages)) d;
RESET gpu_histogram.debug_pages_on_cpu;
DEALLOCATE sp_q;
RESET plan_cache_mode;

-- Partial states under a Finalize Aggregate: the leaves of a partitioned table.
CREATE TABLE sp_parts (g int, x float8, p int) PARTITION BY LIST (p);
CREATE TABLE sp_parts_0 PARTITION OF sp_parts FOR VALUES IN (0) WITH (autovacuum_enabled = off);
CREATE TABLE sp_parts_1 PARTITION OF sp_parts FOR VALUES IN (1) WITH (autovacuum_enabled = off);
INSERT INTO sp_parts SELECT 1, (k * 37) % 1000, k % 2 FROM generate_series(1, 2000) k;
ANALYZE sp_parts;
INSERT INTO sp_parts SELECT k % 300, (k * 37) % 1000, k % 2 FROM generate_series(1, 60000) k;
SET work_mem = '1MB';
SELECT * FROM sp_lines($$SELECT g, gpu_histogram(x, 0, 1000, 5000), count(*) FROM sp_parts GROUP BY g$$);
SELECT * FROM sp_same($$SELECT g, gpu_histogram(x, 0, 1000, 5000) h, count(*) c FROM sp_parts GROUP BY g$$);
RESET work_mem;

-- A cursor fetched in parts (no workers), and rescans under a nested loop.
BEGIN;
DECLARE sp_c CURSOR FOR SELECT g, gpu_histogram(x, 0, 100, 12000) h FROM sp_stale GROUP BY g;
MOVE 5 IN sp_c;
MOVE ALL IN sp_c;
COMMIT;
SELECT v.i, count(*)
FROM (VALUES (1), (2)) v(i),
     LATERAL (SELECT g, gpu_histogram(x, 0, 100, 12000 + i - i) h FROM sp_stale WHERE g >= i GROUP BY g) q
GROUP BY v.i ORDER BY v.i;

-- Workers: each keeps the groups it can, spills the rest of its share, and
-- leaves its groups for the merge (more temporary files: each process's
-- groups are written once).
SET temp_file_limit = '1GB';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT regexp_replace(line, 'Device: .*', 'Device: (setting)') AS plan
FROM rt_explain($$SELECT g, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY g$$) line;
CREATE TEMP TABLE sp_par_on AS SELECT g, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY g;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE sp_par_off AS SELECT g, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY g;
RESET gpu_histogram.scan;
SELECT count(*) AS rows, (SELECT count(*) FROM ((TABLE sp_par_on EXCEPT ALL TABLE sp_par_off)
                                              UNION ALL (TABLE sp_par_off EXCEPT ALL TABLE sp_par_on)) d) AS differences
FROM sp_par_on;
-- the same with a key by value: each worker's groups by number are its own, and go when it flushes
DROP TABLE sp_par_on, sp_par_off;
CREATE TEMP TABLE sp_par_on AS SELECT g::text k, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY 1;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE sp_par_off AS SELECT g::text k, gpu_histogram(x, 0, 100, 12000) h, count(*) c FROM sp_stale GROUP BY 1;
RESET gpu_histogram.scan;
SELECT count(*) AS rows, (SELECT count(*) FROM ((TABLE sp_par_on EXCEPT ALL TABLE sp_par_off)
                                              UNION ALL (TABLE sp_par_off EXCEPT ALL TABLE sp_par_on)) d) AS differences
FROM sp_par_on;
SET max_parallel_workers_per_gather = 0;
SET temp_file_limit = '16MB';

-- Keys that PostgreSQL's executor evaluates (an expression of two columns,
-- a text expression beside a key by value): a spilled tuple keeps the key
-- it had, as HashAggregate spills its projected input, so the executor
-- evaluates as many keys as where nothing spills, however many passes a
-- group waits.  NULL keys and text keys come back from the spill as they
-- went.
CREATE FUNCTION sp_key_evaluations(q text, mem text)
RETURNS TABLE(spilled boolean, evaluated bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    PERFORM set_config('work_mem', mem, true);
    spilled := false;
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        spilled := spilled OR line ~ 'Spilled Tuples: [1-9]';
        IF line ~ 'Keys Evaluated:.* executor \d+ rows' THEN
            evaluated := substring(line FROM 'executor (\d+) rows')::bigint;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$fn$;
-- A key by value of immutable functions evaluates each value once a session
-- (value_memo.h): a first run meets them, then the two are compared.
CREATE FUNCTION sp_keys_once(q text) RETURNS TABLE(spilled boolean, evaluations_as_unspilled boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    whole record;
    bounded record;
BEGIN
    PERFORM sp_key_evaluations(q, '256MB');
    SELECT * INTO whole FROM sp_key_evaluations(q, '256MB');
    SELECT * INTO bounded FROM sp_key_evaluations(q, '1MB');
    spilled := bounded.spilled AND NOT whole.spilled;
    evaluations_as_unspilled := bounded.evaluated = whole.evaluated;
    RETURN NEXT;
END
$fn$;
SET hash_mem_multiplier = 1;
SELECT * FROM sp_keys_once($$SELECT g + length(s) AS k, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY 1$$);
SELECT * FROM sp_keys_once($$SELECT lower(s) || g AS k, g % 3 AS m, gpu_histogram(x, 0, 100, 12000)
                             FROM sp_stale GROUP BY 1, 2$$);
SET work_mem = '1MB';
SELECT * FROM sp_same($$SELECT g + length(s) AS k, gpu_histogram(x, 0, 100, 12000) h, count(*) c, avg(x) a
                        FROM sp_stale GROUP BY 1$$);
SELECT * FROM sp_same($$SELECT lower(s) || g AS k, g % 3 AS m, gpu_histogram(x, 0, 100, 12000) h, count(x) c
                        FROM sp_stale GROUP BY 1, 2$$);
RESET work_mem;
RESET hash_mem_multiplier;

-- An error while the spilled tuples are counted (a NaN among them, which
-- width_bucket refuses): the same error as the ordinary plan's, and no
-- temporary file left behind.
INSERT INTO sp_stale SELECT 99, 'NaN' FROM generate_series(1, 3);
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SELECT g, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY g;
SET gpu_histogram.scan = off;
SELECT g, gpu_histogram(x, 0, 100, 12000) FROM sp_stale GROUP BY g;
RESET gpu_histogram.scan;
SELECT sp_temp_files();
RESET work_mem;
RESET hash_mem_multiplier;

-- Groups of more than a megabyte in all: past it the table carves them from
-- mappings of 2 MB of their own, which are zero when mapped and given back
-- when the table's memory is reset (group_table.cpp).  9,000 groups of 64
-- bins take about 5 MB: their counts, a rescan that resets the table for
-- each outer row, and an error raised once mappings exist, each as the
-- ordinary plan answers.
CREATE TABLE sp_many AS SELECT i % 9000 AS k, ((i % 997) / 997.0)::float8 AS x FROM generate_series(1, 27000) i;
ANALYZE sp_many;
SELECT * FROM rt_compare('SELECT k, gpu_histogram(x, 0, 1, 64), count(*) FROM sp_many GROUP BY k');
-- Groups the planner knows are past the bound: where no GPU counts, a
-- serial scan still emits finished rows, with no aggregate above it, each
-- group once, from the table or from one partition's pass; HAVING is its
-- Group Filter.
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SET gpu_histogram.device = cpu;
SELECT * FROM sp_lines('SELECT k, gpu_histogram(x, 0, 1, 64), count(*) FROM sp_many GROUP BY k');
SELECT * FROM rt_compare('SELECT k, gpu_histogram(x, 0, 1, 64), count(*), min(x), max(x) FROM sp_many GROUP BY k');
SELECT * FROM rt_compare('SELECT k % 4500 AS k2, gpu_histogram(x, 0, 1, 64) FROM sp_many GROUP BY 1 HAVING count(*) > 4');
RESET gpu_histogram.device;
RESET work_mem;
RESET hash_mem_multiplier;
SELECT * FROM rt_compare($q$SELECT n, (SELECT sum(h[2] + h[65]) || '/' || count(*) FROM (SELECT k, gpu_histogram(x, 0, 1, 64) AS h
                                       FROM sp_many WHERE k % n = 0 GROUP BY k) s) FROM generate_series(1, 3) n$q$);
INSERT INTO sp_many VALUES (8999, 'NaN');
SELECT k, gpu_histogram(x, 0, 1, 64) FROM sp_many GROUP BY k;
SET gpu_histogram.scan = off;
SELECT k, gpu_histogram(x, 0, 1, 64) FROM sp_many GROUP BY k;
RESET gpu_histogram.scan;
DELETE FROM sp_many WHERE x = 'NaN';
SELECT * FROM rt_compare('SELECT k, gpu_histogram(x, 0, 1, 64) FROM sp_many GROUP BY k');

RESET temp_file_limit;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE sp_many, sp_stale, sp_generic, sp_parts, sp_gen_on, sp_gen_off, sp_gen_pages, sp_par_on, sp_par_off;
DROP FUNCTION sp_lines(text), sp_same(text), sp_temp_files(), sp_keys_once(text), sp_key_evaluations(text, text);
