-- gpu_histogram 1.2 -> 1.3: quantiles read from histograms.  CREATE EXTENSION
-- installs 1.0 and applies every update; ALTER EXTENSION gpu_histogram
-- UPDATE runs this on an installed 1.2.  Nothing earlier changes.

\echo Use "ALTER EXTENSION gpu_histogram UPDATE TO '1.3'" to load this file. \quit

-- gpu_histogram_quantile(hist, <the histogram's layout>, q) estimates the
-- q-quantile of the rows a histogram counted, as Prometheus's
-- histogram_quantile does: the bucket holding the ceil(q * N)-th row, and
-- linear interpolation between its edges.  A rank in an outer bucket gives
-- that bucket's finite edge, which is then only a bound.  No rows: NULL.
-- q outside [0, 1] or NaN: percentile_cont's error, 22003.
--
-- gpu_histogram_quantile_bounds(hist, <layout>, q) gives the edges between
-- which percentile_cont(q) and percentile_disc(q) over the same rows lie.
--
-- The layouts are those gpu_histogram_buckets takes: lo and hi (float8,
-- timestamptz, timestamp or date; nbins is the array's length - 2) or the
-- thresholds.  A date histogram's answers are timestamps.

-- width_bucket form
CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo float8, hi float8, q float8)
RETURNS float8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo float8, hi float8, q float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile_bounds(hist bigint[], lo float8, hi float8, q float8,
                                              OUT lower float8, OUT upper float8)
RETURNS record AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- time form: timestamptz
CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo timestamptz, hi timestamptz, q float8)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo timestamptz, hi timestamptz, q float8[])
RETURNS timestamptz[] AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_time_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile_bounds(hist bigint[], lo timestamptz, hi timestamptz, q float8,
                                              OUT lower timestamptz, OUT upper timestamptz)
RETURNS record AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_bounds_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- time form: timestamp
CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo timestamp, hi timestamp, q float8)
RETURNS timestamp AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo timestamp, hi timestamp, q float8[])
RETURNS timestamp[] AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_time_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile_bounds(hist bigint[], lo timestamp, hi timestamp, q float8,
                                              OUT lower timestamp, OUT upper timestamp)
RETURNS record AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_bounds_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- time form: date (answers at a time of day, so timestamps)
CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo date, hi date, q float8)
RETURNS timestamp AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile(hist bigint[], lo date, hi date, q float8[])
RETURNS timestamp[] AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_date_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile_bounds(hist bigint[], lo date, hi date, q float8,
                                              OUT lower timestamp, OUT upper timestamp)
RETURNS record AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_bounds_date' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- thresholds form
CREATE FUNCTION gpu_histogram_quantile(hist bigint[], thresholds float8[], q float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_thresholds' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile(hist bigint[], thresholds float8[], q float8[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_thresholds_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpu_histogram_quantile_bounds(hist bigint[], thresholds float8[], q float8,
                                              OUT lower float8, OUT upper float8)
RETURNS record AS 'MODULE_PATHNAME', 'gpu_histogram_quantile_bounds_thresholds' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
