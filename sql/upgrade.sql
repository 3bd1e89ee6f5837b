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
