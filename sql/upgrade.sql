--
-- upgrade: CREATE EXTENSION gpu_histogram installs 1.0 and applies
-- 1.0--1.1; ALTER EXTENSION gpu_histogram UPDATE on an installed 1.0 must
-- give exactly the same objects and aggregate definitions.  Runs first, when
-- nothing else depends on the extension, and leaves it at the default version.
--
SELECT extversion FROM pg_extension WHERE extname = 'gpu_histogram';

-- What the extension is made of, as text (OIDs change on reinstall).
CREATE FUNCTION up_members() RETURNS SETOF text LANGUAGE sql AS $$
    SELECT pg_describe_object(classid, objid, objsubid)
    FROM pg_depend
    WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
      AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpu_histogram')
$$;
CREATE FUNCTION up_aggregates() RETURNS SETOF text LANGUAGE sql AS $$
    SELECT format('%s: %s %s %s', a.aggfnoid::regprocedure,
                  row(a.aggkind, a.aggnumdirectargs, a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                      a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn, a.aggfinalextra,
                      a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify, a.aggtranstype::regtype,
                      a.aggmtranstype::regtype, a.agginitval, a.aggminitval),
                  p.proparallel, obj_description(a.aggfnoid, 'pg_proc'))
    FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
    WHERE p.proname LIKE 'gpu_histogram%'
$$;
CREATE TEMP TABLE up_fresh AS
SELECT 'member' AS kind, m AS what FROM up_members() AS m
UNION ALL SELECT 'aggregate', a FROM up_aggregates() AS a;

SELECT up_aggregates FROM up_aggregates() ORDER BY up_aggregates COLLATE "C";

-- Back to 1.0: no moving-aggregate functions.
DROP EXTENSION gpu_histogram;
CREATE EXTENSION gpu_histogram VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'gpu_histogram';
SELECT aggmtransfn, aggminvtransfn, aggmfinalfn FROM pg_aggregate
WHERE aggfnoid = 'gpu_histogram(float8, float8, float8, integer)'::regprocedure;

-- Every function of 1.0 under the 1.2 library: the histograms as 1.0
-- declared them; the observability functions, whose columns 1.2 changed,
-- refuse to fill 1.0's with 1.2's and ask for the update.
CREATE FUNCTION up_calls() RETURNS TABLE(call text, result text) LANGUAGE plpgsql AS $fn$
DECLARE
    q text;
    r text;
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT gpu_histogram(x / 10.0, 0, 1, 4)::text FROM generate_series(0, 12) x',
        'SELECT gpu_histogram_merge(h)::text FROM (VALUES (ARRAY[1,2,3]::bigint[]), (ARRAY[4,5,6]::bigint[])) v(h)',
        'SELECT string_agg(b::text, '' '') FROM gpu_histogram_buckets(ARRAY[1,2,3,4]::bigint[], 0, 1) b',
        'SELECT (count(*) > 0)::text FROM gpu_histogram_devices()',
        'SELECT count(*)::text FROM gpu_histogram_stats()',
        'SELECT gpu_histogram(t, ''2024-01-01'', ''2024-01-02'', 2)::text FROM (VALUES (''2024-01-01 12:00''::timestamptz)) v(t)',
        'SELECT gpu_histogram(x, ARRAY[0.5]::float8[])::text FROM (VALUES (0.1::float8), (0.7)) v(x)',
        'SELECT string_agg(w::text, '' '') FROM (SELECT gpu_histogram(i / 4.0, 0, 1, 2) OVER (ORDER BY i ROWS 1 PRECEDING) w FROM generate_series(1, 3) i) q'
    ] LOOP
        BEGIN
            EXECUTE q INTO r;
        EXCEPTION WHEN OTHERS THEN
            r := 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
        END;
        call := substring(q FROM 'gpu_histogram[a-z_]*\([^)]*\)?');
        result := r;
        RETURN NEXT;
    END LOOP;
END
$fn$;
SELECT * FROM up_calls();
ALTER EXTENSION gpu_histogram UPDATE TO '1.1';
SELECT * FROM up_calls();
ALTER EXTENSION gpu_histogram UPDATE TO '1.2';
SELECT * FROM up_calls();
-- 1.3 adds the quantile functions and changes nothing else.
SELECT count(*) AS quantile_functions FROM pg_proc WHERE proname LIKE 'gpu_histogram_quantile%';
ALTER EXTENSION gpu_histogram UPDATE TO '1.3';
SELECT * FROM up_calls();
SELECT count(*) AS quantile_functions FROM pg_proc WHERE proname LIKE 'gpu_histogram_quantile%';
SELECT gpu_histogram_quantile('{0,2,2,0}', 0, 1, 0.5);
DROP FUNCTION up_calls();
DROP EXTENSION gpu_histogram;
CREATE EXTENSION gpu_histogram VERSION '1.0';

-- A view that uses the aggregate blocks the update, which then changes nothing.
CREATE VIEW up_view AS SELECT gpu_histogram(x, 0, 1, 4) AS h FROM generate_series(1, 3) AS x;
\set VERBOSITY terse
ALTER EXTENSION gpu_histogram UPDATE;
\set VERBOSITY default
SELECT extversion FROM pg_extension WHERE extname = 'gpu_histogram';
DROP VIEW up_view;

ALTER EXTENSION gpu_histogram UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'gpu_histogram';

-- The same objects and the same definitions as a fresh install.
SELECT * FROM up_fresh
EXCEPT SELECT 'member', m FROM up_members() AS m EXCEPT SELECT 'aggregate', a FROM up_aggregates() AS a;
(SELECT 'member', m FROM up_members() AS m UNION ALL SELECT 'aggregate', a FROM up_aggregates() AS a)
EXCEPT SELECT * FROM up_fresh;

-- And the updated aggregate works, on the moving path too.
SELECT i, gpu_histogram(i / 10.0, 0, 1, 4) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM generate_series(1, 5) AS i;

DROP FUNCTION up_members, up_aggregates;
DROP TABLE up_fresh;
