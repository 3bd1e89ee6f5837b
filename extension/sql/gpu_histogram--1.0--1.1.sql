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

-- Time histograms and threshold bins (issue 9, parts 1 and 2) ---------------

-- The final function of the forms below: the state's counts.  The combine,
-- serialize and deserialize functions are the 1.0 ones, which serve every
-- kind of histogram state.
CREATE FUNCTION gpu_histogram_counts_finalfn(internal)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'gpu_histogram_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- gpu_histogram(ts, lo, hi, nbins) for timestamptz, timestamp and date ------
-- Element k counts the rows whose numeric width_bucket over the microsecond
-- (date: day) count is k - 1: nbins equal spans between lo and hi, plus the
-- rows below and above, numbered as width_bucket numbers them.  Infinite
-- values count in the outer buckets.

CREATE FUNCTION gpu_histogram_time_transfn(internal, timestamptz, timestamptz, timestamptz, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'gpu_histogram_time_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_time_transfn(internal, timestamp, timestamp, timestamp, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'gpu_histogram_time_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_time_transfn(internal, date, date, date, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'gpu_histogram_date_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_histogram(value timestamptz, lo timestamptz, hi timestamptz, nbins integer) (
    SFUNC = gpu_histogram_time_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_counts_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_histogram(value timestamp, lo timestamp, hi timestamp, nbins integer) (
    SFUNC = gpu_histogram_time_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_counts_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    PARALLEL = SAFE
);

CREATE AGGREGATE gpu_histogram(value date, lo date, hi date, nbins integer) (
    SFUNC = gpu_histogram_time_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_counts_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_histogram(timestamptz, timestamptz, timestamptz, integer) IS
'time histogram: nbins + 2 bigint counts of numeric width_bucket over the microseconds, element k for bucket k - 1';
COMMENT ON AGGREGATE gpu_histogram(timestamp, timestamp, timestamp, integer) IS
'time histogram: nbins + 2 bigint counts of numeric width_bucket over the microseconds, element k for bucket k - 1';
COMMENT ON AGGREGATE gpu_histogram(date, date, date, integer) IS
'date histogram: nbins + 2 bigint counts of numeric width_bucket over the day numbers, element k for bucket k - 1';

-- gpu_histogram(value, thresholds) ------------------------------------------
-- Element k counts the rows whose width_bucket(value, thresholds) is k - 1:
-- length(thresholds) + 1 counts, for bins of any widths.

CREATE FUNCTION gpu_histogram_thresholds_transfn(internal, float8, float8[])
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE gpu_histogram(value float8, thresholds float8[]) (
    SFUNC = gpu_histogram_thresholds_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_counts_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_histogram(float8, float8[]) IS
'histogram of width_bucket(value, thresholds): length(thresholds) + 1 bigint counts, element k for bin k - 1';

-- gpu_histogram_buckets for time histograms and thresholds -----------------

CREATE FUNCTION gpu_histogram_buckets(hist bigint[], lo timestamptz, hi timestamptz)
RETURNS TABLE(bucket integer, lower timestamptz, upper timestamptz, count bigint)
AS 'MODULE_PATHNAME', 'gpu_histogram_buckets_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_buckets(hist bigint[], lo timestamp, hi timestamp)
RETURNS TABLE(bucket integer, lower timestamp, upper timestamp, count bigint)
AS 'MODULE_PATHNAME', 'gpu_histogram_buckets_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_buckets(hist bigint[], lo date, hi date)
RETURNS TABLE(bucket integer, lower timestamp, upper timestamp, count bigint)
AS 'MODULE_PATHNAME', 'gpu_histogram_buckets_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_buckets(hist bigint[], thresholds float8[])
RETURNS TABLE(bucket integer, lower float8, upper float8, count bigint)
AS 'MODULE_PATHNAME', 'gpu_histogram_buckets_thresholds' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_histogram_buckets(bigint[], timestamptz, timestamptz) IS
'one row per time histogram element: bucket number, the first microsecond it counts, the first of the next, its count';
COMMENT ON FUNCTION gpu_histogram_buckets(bigint[], timestamp, timestamp) IS
'one row per time histogram element: bucket number, the first microsecond it counts, the first of the next, its count';
COMMENT ON FUNCTION gpu_histogram_buckets(bigint[], date, date) IS
'one row per date histogram element: bucket number, the first day it counts and the first of the next (as timestamps), its count';
COMMENT ON FUNCTION gpu_histogram_buckets(bigint[], float8[]) IS
'one row per threshold histogram element: bin number as width_bucket numbers it, its thresholds and its count';
