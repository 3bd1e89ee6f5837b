-- gpu_histogram 1.0: the aggregates and functions of the extension.
-- Kept outside sql/ so that pg_regress never mistakes it for a test.

\echo Use "CREATE EXTENSION gpu_histogram" to load this file. \quit

-- gpu_histogram(value, lo, hi, nbins) -------------------------------------
-- Element k of the result counts the rows whose
-- width_bucket(value, lo, hi, nbins) is k - 1.  integer, smallint, bigint,
-- real and numeric values reach it through their implicit casts to float8,
-- exactly as width_bucket(value::float8, ...) would see them.

CREATE FUNCTION gpu_histogram_transfn(internal, float8, float8, float8, integer)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_finalfn(internal, float8, float8, float8, integer)
RETURNS bigint[] AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_combinefn(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_serializefn(internal)
RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_deserializefn(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE gpu_histogram(value float8, lo float8, hi float8, nbins integer) (
    SFUNC = gpu_histogram_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_finalfn,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_combinefn,
    SERIALFUNC = gpu_histogram_serializefn,
    DESERIALFUNC = gpu_histogram_deserializefn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_histogram(float8, float8, float8, integer) IS
'histogram of width_bucket(value, lo, hi, nbins): nbins + 2 bigint counts, element k for bucket k - 1';

-- gpu_histogram_merge(hist) ---------------------------------------------

CREATE FUNCTION gpu_histogram_merge_transfn(internal, bigint[])
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_merge_finalfn(internal)
RETURNS bigint[] AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_merge_combinefn(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_merge_serializefn(internal)
RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_merge_deserializefn(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE gpu_histogram_merge(hist bigint[]) (
    SFUNC = gpu_histogram_merge_transfn,
    STYPE = internal,
    FINALFUNC = gpu_histogram_merge_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_histogram_merge_combinefn,
    SERIALFUNC = gpu_histogram_merge_serializefn,
    DESERIALFUNC = gpu_histogram_merge_deserializefn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_histogram_merge(bigint[]) IS
'element-wise sum of histograms of one length';

-- gpu_histogram_buckets(hist, lo, hi) -------------------------------------

CREATE FUNCTION gpu_histogram_buckets(hist bigint[], lo float8, hi float8)
RETURNS TABLE(bucket integer, lower float8, upper float8, count bigint)
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_histogram_buckets(bigint[], float8, float8) IS
'one row per histogram element: bucket number as width_bucket numbers it, its bounds and its count';

-- Observability -----------------------------------------------------------

CREATE FUNCTION gpu_histogram_devices(
    OUT ordinal integer, OUT name text, OUT total_memory bigint, OUT free_memory bigint,
    OUT compute_capability text, OUT multiprocessors integer, OUT status text)
RETURNS SETOF record AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_histogram_devices() IS
'the CUDA devices this backend sees (starting CUDA in it), or one row saying why there is none';

CREATE FUNCTION gpu_histogram_stats(
    OUT values_cpu bigint, OUT values_gpu bigint, OUT gpu_batches bigint,
    OUT cuda_startup_ms float8, OUT cuda_started boolean,
    OUT pinned_bytes bigint, OUT pinned_buffers bigint, OUT device_histograms integer)
RETURNS record AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_histogram_stats() IS
'this backend''s counters: values binned on the CPU and the GPU, batches, CUDA start-up, pinned memory';
