\set ECHO none
--
-- helpers.sql: the plpgsql helpers that several pg_regress topics share,
-- written once.  A topic reads it with
--
--     \getenv abs_srcdir PG_ABS_SRCDIR
--     \i :abs_srcdir/sql/include/helpers.sql
--
-- pg_regress feeds each topic to psql on stdin and sets PG_ABS_SRCDIR to
-- its input directory (the repository root under `make installcheck`,
-- pg_buildext installcheck and the GPU scripts alike), so the path does
-- not depend on where psql happens to run.  pg_regress also runs psql with
-- -a, which would echo this whole file into every topic's expected output;
-- echo is off while it is read and back on at its end, so a topic's
-- output shows the include and nothing else.
--
-- Every function is CREATE OR REPLACE: topics run one after another in
-- one database, and each includes the file again.  The rt_ prefix keeps
-- them apart from each topic's own helpers.
--

-- EXPLAIN (COSTS OFF) as one text
CREATE OR REPLACE FUNCTION rt_plan(q text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
    plan text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        plan := plan || line || E'\n';
    END LOOP;
    RETURN plan;
END
$fn$;

-- EXPLAIN's lines, with the custom scan's device setting masked (the GPU
-- checks run the suite again with device = gpu) and, for ANALYZE, every
-- number as N (18 shows rows=1.00)
CREATE OR REPLACE FUNCTION rt_explain(q text, with_analyze boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $fn$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF' ||
            CASE WHEN with_analyze THEN ', ANALYZE, TIMING OFF, SUMMARY OFF, BUFFERS OFF' ELSE '' END || ') ' || q LOOP
        line := regexp_replace(line, 'Device: \w+', 'Device: (setting)');
        IF with_analyze THEN
            line := regexp_replace(line, '[0-9]+(\.[0-9]+)?', 'N', 'g');
        END IF;
        RETURN NEXT line;
    END LOOP;
END
$fn$;

-- q's rows as text, sorted unless the order is part of the answer; q runs
-- as it is (no subquery around it), so EXECUTE of a prepared statement works
CREATE OR REPLACE FUNCTION rt_rows(q text, ordered boolean DEFAULT false) RETURNS text[] LANGUAGE plpgsql AS $fn$
DECLARE
    rec record;
    acc text[] := '{}';
BEGIN
    FOR rec IN EXECUTE q LOOP
        acc := acc || rec::text;
    END LOOP;
    IF NOT ordered THEN
        SELECT coalesce(array_agg(e ORDER BY e COLLATE "C"), '{}') INTO acc FROM unnest(acc) e;
    END IF;
    RETURN acc;
END
$fn$;

-- gpu_histogram.scan for the rest of the transaction.  A prepared
-- statement's cached plan does not follow a change of setting (no plan
-- does), so for an EXECUTE the cached plans are discarded: its next
-- execution is planned again, with the scan on or off.
CREATE OR REPLACE FUNCTION rt_scan(setting text, q text, replan boolean DEFAULT true) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM set_config('gpu_histogram.scan', setting, true);
    IF replan AND q ~* '^\s*EXECUTE\s' THEN
        DISCARD PLANS;
    END IF;
END
$fn$;

-- whether the scan was planned, whether its answer equals the ordinary
-- plan's, and how many rows; zone, if given, is the TimeZone of both runs;
-- replan => false runs an EXECUTE with the scan on in the plan it has
-- cached (the ordinary plan's run is planned afresh)
CREATE OR REPLACE FUNCTION rt_compare(q text, ordered boolean DEFAULT false, zone text DEFAULT NULL, replan boolean DEFAULT true)
RETURNS TABLE(scan_planned boolean, same boolean, rows bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    with_scan text[];
    without_scan text[];
BEGIN
    IF zone IS NOT NULL THEN
        PERFORM set_config('TimeZone', zone, true);
    END IF;
    PERFORM rt_scan('on', q, replan);
    scan_planned := rt_plan(q) LIKE '%GpuHistogramScan%';
    with_scan := rt_rows(q, ordered);
    PERFORM rt_scan('off', q);
    IF rt_plan(q) LIKE '%GpuHistogramScan%' THEN
        RAISE EXCEPTION 'GpuHistogramScan planned with gpu_histogram.scan = off';
    END IF;
    without_scan := rt_rows(q, ordered);
    PERFORM rt_scan('on', q);
    same := with_scan = without_scan;
    rows := cardinality(without_scan);
    RETURN NEXT;
END
$fn$;

-- The grouped histogram of val over tbl by keys (each an expression), with
-- the scan on and off, against plain SQL: width_bucket and count(*) per key
-- and bucket, made into one bigint[] per group of nbins + 2 counts (bucket 0
-- .. nbins + 1, zero-filled, NULL values not counted), NULL for a group
-- whose every value is NULL.
CREATE OR REPLACE FUNCTION rt_against_width_bucket(tbl text, keys text[], val text, lo float8, hi float8, nbins integer)
RETURNS TABLE(scan_planned boolean, same boolean, rows bigint) LANGUAGE plpgsql AS $fn$
DECLARE
    key_list text;
    key_names text;
    positions text;
    q text;
    reference text;
    with_scan text[];
    without_scan text[];
    expected text[];
BEGIN
    SELECT string_agg(format('%s AS k%s', k, n), ', ' ORDER BY n),
           string_agg('k' || n, ', ' ORDER BY n),
           string_agg(n::text, ', ' ORDER BY n)
      INTO key_list, key_names, positions
      FROM unnest(keys) WITH ORDINALITY u(k, n);
    q := format('SELECT %s, gpu_histogram(%s, %L::float8, %L::float8, %s) AS h FROM %s GROUP BY %s',
                key_list, val, lo, hi, nbins, tbl, positions);
    reference := format(
        'SELECT %1$s, CASE WHEN m IS NOT NULL THEN ARRAY(SELECT coalesce((m ->> b::text)::bigint, 0)'
        '                                             FROM generate_series(0, %6$s + 1) b ORDER BY b) END AS h'
        ' FROM (SELECT %1$s, jsonb_object_agg(b, c) FILTER (WHERE b IS NOT NULL) AS m'
        '       FROM (SELECT %2$s, width_bucket(%3$s, %4$L::float8, %5$L::float8, %6$s) AS b, count(*) AS c'
        '             FROM %7$s GROUP BY %8$s, %9$s) w'
        '       GROUP BY %8$s) g',
        key_names, key_list, val, lo, hi, nbins, tbl, positions, cardinality(keys) + 1);
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    scan_planned := rt_plan(q) LIKE '%GpuHistogramScan%';
    with_scan := rt_rows(q);
    PERFORM set_config('gpu_histogram.scan', 'off', true);
    without_scan := rt_rows(q);
    expected := rt_rows(reference);
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    same := with_scan = expected AND without_scan = expected;
    rows := cardinality(expected);
    RETURN NEXT;
END
$fn$;

-- Waits, for at most a minute, until no other session of this database
-- holds a snapshot, and says whether it got there.  VACUUM marks a page
-- all-visible only when its rows are visible to every snapshot; an
-- autovacuum ANALYZE of an earlier topic's table that began before a topic
-- inserted its rows keeps them from that, and the page path then reads
-- none of those pages (seen in CI as "0 pages pinned in batches").  A
-- snapshot taken after the insert committed sees its rows, so once none of
-- the older ones is left a VACUUM marks every page.  A plain autovacuum
-- VACUUM holds no snapshot that counts and is not waited for.
CREATE OR REPLACE FUNCTION rt_await_snapshots() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    FOR attempt IN 1 .. 600 LOOP
        PERFORM pg_stat_clear_snapshot();
        IF NOT EXISTS (SELECT FROM pg_stat_activity
                       WHERE pid <> pg_backend_pid()
                         AND (datname = current_database() OR datname IS NULL)
                         AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
                         AND NOT (backend_type = 'autovacuum worker'
                                  AND query LIKE 'autovacuum: VACUUM%' AND query NOT LIKE '%ANALYZE%')) THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END
$fn$;

-- 'ok: N rows' or 'SQLSTATE: message' of q, and a digest of the rows
CREATE OR REPLACE FUNCTION rt_outcome(q text, OUT outcome text, OUT digest text) LANGUAGE plpgsql AS $fn$
DECLARE
    r text[];
BEGIN
    r := rt_rows(q);
    outcome := format('ok: %s rows', cardinality(r));
    digest := md5(array_to_string(r, E'\n'));
EXCEPTION WHEN OTHERS THEN
    outcome := SQLSTATE || ': ' || SQLERRM;
END
$fn$;

-- for queries that may fail: the ordinary plan's outcome, and whether the
-- scan's is the same (the same rows, or the same error); scan_planned is
-- NULL where planning itself fails
CREATE OR REPLACE FUNCTION rt_try(q text, OUT scan_planned boolean, OUT outcome text, OUT same boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    with_scan record;
    without_scan record;
BEGIN
    PERFORM rt_scan('on', q);
    BEGIN
        scan_planned := rt_plan(q) LIKE '%GpuHistogramScan%';
    EXCEPTION WHEN OTHERS THEN
        scan_planned := NULL;
    END;
    with_scan := rt_outcome(q);
    PERFORM rt_scan('off', q);
    without_scan := rt_outcome(q);
    PERFORM rt_scan('on', q);
    outcome := without_scan.outcome;
    same := with_scan.outcome = without_scan.outcome AND with_scan.digest IS NOT DISTINCT FROM without_scan.digest;
END
$fn$;

-- for a tight memory bound: which plan was chosen, and what the scan did:
-- the ordinary plan's answer, another answer, or an error (its SQLSTATE)
CREATE OR REPLACE FUNCTION rt_memory(q text, OUT scan_planned boolean, OUT outcome text) LANGUAGE plpgsql AS $fn$
DECLARE
    with_scan text[];
    without_scan text[];
BEGIN
    PERFORM set_config('gpu_histogram.scan', 'off', true);
    without_scan := rt_rows(q);
    PERFORM set_config('gpu_histogram.scan', 'on', true);
    scan_planned := rt_plan(q) LIKE '%GpuHistogramScan%';
    BEGIN
        with_scan := rt_rows(q);
        outcome := CASE WHEN with_scan = without_scan THEN 'the ordinary plan''s answer'
                        ELSE 'ANOTHER ANSWER than the ordinary plan' END;
    EXCEPTION WHEN OTHERS THEN
        outcome := 'error ' || SQLSTATE;
    END;
END
$fn$;

-- "SQLSTATE: message" or "ok: result" of a query that returns one value
CREATE OR REPLACE FUNCTION try_sql(q text) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    r text;
BEGIN
    EXECUTE q INTO r;
    RETURN 'ok: ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$fn$;

-- The reference histogram: width_bucket and count(*) over q's one column,
-- zero-filled into nbins + 2 counts, NULL where q has no non-NULL value
CREATE OR REPLACE FUNCTION wb_hist(q text, lo float8, hi float8, nbins integer) RETURNS bigint[]
LANGUAGE plpgsql AS $fn$
DECLARE
    r bigint[];
BEGIN
    EXECUTE format($q$
        SELECT array_agg(coalesce(w.c, 0) ORDER BY g.b)
        FROM generate_series(0, $3 + 1) g(b)
        LEFT JOIN (SELECT width_bucket(x::float8, $1, $2, $3) AS b, count(*) AS c
                   FROM (%s) s(x) GROUP BY 1) w USING (b)
        HAVING count(w.c) > 0 $q$, q)
    INTO r USING lo, hi, nbins;
    RETURN r;
END
$fn$;
\set ECHO all
