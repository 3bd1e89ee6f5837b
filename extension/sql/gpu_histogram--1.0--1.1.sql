-- gpu_histogram 1.0 -> 1.1.  CREATE EXTENSION gpu_histogram installs 1.0
-- and then runs this script; ALTER EXTENSION gpu_histogram UPDATE runs it on
-- an existing 1.0.  Each section below is self-contained.

\echo Use "ALTER EXTENSION gpu_histogram UPDATE TO '1.1'" to load this file. \quit

-- Moving window frames (issue 9, part 3) -------------------------------------
-- gpu_histogram() gains a moving-aggregate implementation: a window frame
-- whose start moves adds the rows that enter it and removes the rows that
-- leave it, O(1) per row, instead of aggregating the frame again for every
-- row.  CREATE AGGREGATE cannot be altered to add MSFUNC, so the aggregate is
-- dropped and created again, with the plain part exactly as in 1.0.  A view
-- that uses gpu_histogram() makes the DROP, and so the update, fail (and
-- nothing changes): drop such views first and create them again afterwards.

CREATE FUNCTION gpu_histogram_moving_transfn(internal, float8, float8, float8, integer)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_moving_invfn(internal, float8, float8, float8, integer)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_moving_finalfn(internal)
RETURNS bigint[] AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

DROP AGGREGATE gpu_histogram(float8, float8, float8, integer);

CREATE AGGREGATE gpu_histogram(value float8, lo float8, hi float8, nbins integer) (
    SFUNC = gpu_histogram_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_finalfn,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    MSFUNC = gpu_histogram_moving_transfn,
    MINVFUNC = gpu_histogram_moving_invfn,
    MSTYPE = internal,
    MFINALFUNC = gpu_histogram_moving_finalfn,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_histogram(float8, float8, float8, integer) IS
'histogram of width_bucket(value, lo, hi, nbins): nbins + 2 bigint counts, element k for bucket k - 1';
