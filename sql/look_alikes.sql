--
-- look_alikes: what GpuHistogramScan computes by its own means (a key's
-- arithmetic, its casts, date_trunc and the like, a native WHERE
-- comparison, gpu_histogram itself) is PostgreSQL's built-in function,
-- recognised by its OID; docs/custom-scan.md lists each recogniser.  A
-- role may create an operator or function of the same name in a schema of
-- its own, or in pg_temp, that does anything: each look-alike below is the
-- built-in's answer except on a few values, so where the scan took it for
-- the built-in its answer would differ from the ordinary plan's.  Every
-- query runs with the scan on and off (rt_try): the same rows, or the
-- same error.  Then row-level security: a role's own function, as a key or
-- a WHERE clause, is never called on a value the policy hides from it.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET TimeZone = 'UTC';
-- a group per row fits: the look-alike keys, which the executor computes, are the scan's too
SET work_mem = '256MB';

CREATE TABLE lk_t (e bigint, i int, x float8, n numeric, ts timestamptz, d date);
INSERT INTO lk_t
SELECT g, g % 1000, (g % 997) / 997.0, g / 7.0, timestamptz '2024-01-01 00:00+00' + g * interval '37 seconds',
       date '2024-01-01' + g % 500
FROM generate_series(0, 29999) g;
ANALYZE lk_t;

-- Each look-alike answers as the built-in, but for operands whose last digits are 7.
-- Their own search_path keeps their bodies on the built-ins.
CREATE SCHEMA lk;
CREATE FUNCTION lk.bdiv(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 / $2 + CASE WHEN $1 % 1000 = 7 THEN 1000 ELSE 0 END; END $$;
CREATE FUNCTION lk.bmul(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 * $2 - CASE WHEN $1 % 1000 = 7 THEN 100000 ELSE 0 END; END $$;
CREATE FUNCTION lk.badd(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 + $2 - CASE WHEN $1 % 1000 = 7 THEN 100000 ELSE 0 END; END $$;
CREATE FUNCTION lk.bsub(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 - $2 + CASE WHEN $1 % 1000 = 7 THEN 100000 ELSE 0 END; END $$;
CREATE FUNCTION lk.idiv(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 / $2 + CASE WHEN $1 % 10 = 7 THEN 50 ELSE 0 END; END $$;
CREATE FUNCTION lk.fdiv(float8, float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 / $2 + CASE WHEN floor($1)::bigint % 1000 = 7 THEN 1e6 ELSE 0 END; END $$;
CREATE FUNCTION lk.fmul(float8, float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 * $2 - CASE WHEN floor($1)::bigint % 1000 = 7 THEN 1e9 ELSE 0 END; END $$;
-- numeric: the right sum, at scale 1 or 2 by parity (equal values, different bytes)
CREATE FUNCTION lk.nadd(numeric, numeric) RETURNS numeric LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN round($1 + $2, CASE WHEN $1 % 2 = 0 THEN 1 ELSE 2 END); END $$;
CREATE FUNCTION lk.nmul(numeric, numeric) RETURNS numeric LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN round($1 * $2, CASE WHEN $1 % 2 = 0 THEN 1 ELSE 2 END); END $$;
-- a time shifted by an interval, but an hour back for every seventh day
CREATE FUNCTION lk.tsplus(timestamptz, interval) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ BEGIN RETURN $1 + $2 - CASE WHEN extract(day FROM $1 AT TIME ZONE 'UTC')::int % 7 = 0
                                    THEN interval '1 hour' ELSE interval '0' END; END $$;
CREATE OPERATOR lk./ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = lk.bdiv);
CREATE OPERATOR lk.* (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = lk.bmul);
CREATE OPERATOR lk.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = lk.badd);
CREATE OPERATOR lk.- (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = lk.bsub);
CREATE OPERATOR lk./ (LEFTARG = int, RIGHTARG = int, FUNCTION = lk.idiv);
CREATE OPERATOR lk./ (LEFTARG = float8, RIGHTARG = float8, FUNCTION = lk.fdiv);
CREATE OPERATOR lk.* (LEFTARG = float8, RIGHTARG = float8, FUNCTION = lk.fmul);
CREATE OPERATOR lk.+ (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = lk.nadd);
CREATE OPERATOR lk.* (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = lk.nmul);
CREATE OPERATOR lk.+ (LEFTARG = timestamptz, RIGHTARG = interval, FUNCTION = lk.tsplus);

-- Look-alike functions, in lk; the same names come first on search_path below.
CREATE FUNCTION lk.floor(float8) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.floor($1) + CASE WHEN pg_catalog.floor($1)::bigint % 10 = 7 THEN 3 ELSE 0 END $$;
CREATE FUNCTION lk.floor(numeric) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.floor($1) + CASE WHEN pg_catalog.floor($1) % 10 = 7 THEN 3 ELSE 0 END $$;
CREATE FUNCTION lk.date_trunc(text, timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.date_trunc($1, $2) + CASE WHEN extract(hour FROM $2 AT TIME ZONE 'UTC') = 7
                                                    THEN interval '1 day' ELSE interval '0' END $$;
CREATE FUNCTION lk.date_part(text, timestamptz) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.date_part($1, $2) * 2 $$;
CREATE FUNCTION lk.to_timestamp(float8) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.to_timestamp(-$1) $$;
CREATE FUNCTION lk.width_bucket(float8, float8, float8, int) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT $4 + 1 - pg_catalog.width_bucket($1, $2, $3, $4) $$;
CREATE FUNCTION lk.float8(int) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT -$1::float8 $$;
CREATE FUNCTION lk.date(timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT ($1 AT TIME ZONE 'UTC')::date + 1 $$;
CREATE FUNCTION lk.timezone(text, timestamptz) RETURNS timestamp LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.timezone($1, $2) + interval '5 hours' $$;
CREATE FUNCTION lk.date_bin(interval, timestamptz, timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT pg_catalog.date_bin($1, $2, $3) + $1 $$;
-- count(*) that starts at 100
CREATE AGGREGATE lk.count(*) (SFUNC = int8inc, STYPE = int8, INITCOND = '100');
-- an aggregate of gpu_histogram's name and signature: the scan must not take it for ours
CREATE FUNCTION lk.hstep(bigint[], float8, float8, float8, int) RETURNS bigint[] LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$ SELECT $1 || pg_catalog.width_bucket($2, $3, $4, $5)::bigint $$;
CREATE AGGREGATE lk.gpu_histogram(float8, float8, float8, int) (SFUNC = lk.hstep, STYPE = bigint[], INITCOND = '{}');
-- not equal, but it names the built-in = as its negator (17 and later refuse the link: then no negator)
CREATE FUNCTION lk.ine(int, int) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog AS $$ SELECT $1 < $2 $$;
DO $$
BEGIN
    CREATE OPERATOR lk.<> (LEFTARG = int, RIGHTARG = int, FUNCTION = lk.ine, NEGATOR = OPERATOR(pg_catalog.=));
EXCEPTION WHEN OTHERS THEN
    CREATE OPERATOR lk.<> (LEFTARG = int, RIGHTARG = int, FUNCTION = lk.ine);
END
$$;

-- The built-ins first: each shape is the scan's, and its answer the ordinary plan's.
SELECT q, t.*
FROM (VALUES
  ($$SELECT e / 2000, count(*), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT (e - 5) / 1000 * 3, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts) / 3600) * 3600, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(n) + 1, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts + interval '7 hours'), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE i <> 7$$)
) v(q), rt_try(q) t;

-- Each look-alike, by schema: the ordinary plan's answer, whether the scan
-- computes the key through the executor or leaves the query alone.
SELECT q, t.*
FROM (VALUES
  -- a non-monotone division of bigint (where the scan placed rows by intervals checked only at their ends)
  ($$SELECT e OPERATOR(lk./) 2000::bigint AS k, count(*), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT (e OPERATOR(lk.*) 3::bigint) / 1000, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT (e OPERATOR(lk.+) 5::bigint) / 1000, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT (e OPERATOR(lk.-) 5::bigint) / 1000, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT i OPERATOR(lk./) 100, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  -- Grafana's minute group, with a look-alike division or multiplication of float8
  ($$SELECT floor(extract(epoch FROM ts)::float8 OPERATOR(lk./) 3600::float8) * 3600, gpu_histogram(x, 0, 1, 4)
     FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts)::float8 / 3600) OPERATOR(lk.*) 3600::float8, gpu_histogram(x, 0, 1, 4)
     FROM lk_t GROUP BY 1$$),
  -- numeric sums at two display scales: PostgreSQL's equality makes one group of 2.0 and 2.00
  ($$SELECT floor(n) OPERATOR(lk.+) 0::numeric, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(n) OPERATOR(lk.*) 1::numeric, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts) OPERATOR(lk.+) 0::numeric / 60), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  -- a time shifted by a look-alike +
  ($$SELECT date_trunc('day', ts OPERATOR(lk.+) interval '7 hours'), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  -- the look-alike functions, schema-qualified
  ($$SELECT lk.floor(extract(epoch FROM ts)::float8 / 3600), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.floor(n), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.date_trunc('day', ts), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.date_part('hour', ts), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_trunc('day', lk.to_timestamp(e::float8)), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.width_bucket(x, 0, 1, 3), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(lk.float8(i) / 10), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.date(ts), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT lk.gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE e < 20$$),
  ($$SELECT i % 3, lk.gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE e < 20 GROUP BY 1$$),
  -- a comparison whose negator is the built-in =, in the WHERE clause the scan would compare natively
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE i OPERATOR(lk.<>) 7$$),
  ($$SELECT i / 100, gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE i OPERATOR(lk.<>) 7 GROUP BY 1$$)
) v(q), rt_try(q) t;

-- The same names, unqualified, with lk ahead of pg_catalog on search_path.
SET search_path = lk, pg_catalog, public;
SELECT q, t.*
FROM (VALUES
  ($$SELECT e / 2000::bigint, gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(extract(epoch FROM ts)::float8 / 3600::float8) * 3600::float8, gpu_histogram(x, 0, 1, 4)
     FROM lk_t GROUP BY 1$$),
  ($$SELECT floor(n), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_trunc('day', ts), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_part('hour', ts), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT width_bucket(x, 0, 1, 3), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT extract(hour FROM timezone('UTC', ts)), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_trunc('day', timezone('UTC', ts)), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT date_bin('1 day', ts, '2000-01-01 00:00+00'), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT i % 3, count(*), gpu_histogram(x, 0, 1, 4) FROM lk_t GROUP BY 1$$),
  ($$SELECT count(*), gpu_histogram(x, 0, 1, 4) FROM lk_t$$),
  ($$SELECT gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE e < 20$$),
  ($$SELECT public.gpu_histogram(x, 0, 1, 4) FROM lk_t WHERE i <> 7$$)
) v(q), rt_try(q) t;
RESET search_path;

-- Row-level security: a role that sees 400 rows groups by its own
-- division, made in pg_temp, which says so whenever it is called on a
-- value outside the rows it may see (they lie far above).  No NOTICE may
-- come: not from the key, not from a WHERE clause, not in a generic plan.
CREATE ROLE regress_gh_viewer;
CREATE TABLE lk_rls (owner text, ep bigint, x float8);
INSERT INTO lk_rls SELECT 'regress_gh_viewer', g * 1000, 0.5 FROM generate_series(1, 400) g;
INSERT INTO lk_rls SELECT 'someone else', 2000000000 + g * 997, 0.25 FROM generate_series(1, 50000) g;
ANALYZE lk_rls;
ALTER TABLE lk_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY lk_rls_own ON lk_rls FOR SELECT USING (owner = current_user);
GRANT SELECT ON lk_rls TO regress_gh_viewer;
SET ROLE regress_gh_viewer;
SELECT count(*) AS visible, max(ep) AS highest FROM lk_rls;
CREATE FUNCTION pg_temp.peek(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF $1 > 400000 OR $1 < 1000 THEN
        RAISE NOTICE 'peek was called on %', $1;
    END IF;
    RETURN $1 / $2;
END $$;
CREATE FUNCTION pg_temp.peek_mul(bigint, bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF $1 > 400000 OR $1 < 1000 THEN
        RAISE NOTICE 'peek_mul was called on %', $1;
    END IF;
    RETURN $1 * $2;
END $$;
CREATE OPERATOR pg_temp./ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = pg_temp.peek);
CREATE OPERATOR pg_temp.* (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = pg_temp.peek_mul);
SELECT rt_plan($$SELECT ep OPERATOR(pg_temp./) 100000::bigint, gpu_histogram(x, 0, 1, 4) FROM lk_rls GROUP BY 1$$)
       LIKE '%GpuHistogramScan%' AS scan_planned;
SELECT ep OPERATOR(pg_temp./) 100000::bigint AS k, gpu_histogram(x, 0, 1, 4) FROM lk_rls GROUP BY 1 ORDER BY 1;
SELECT (ep OPERATOR(pg_temp.*) 2::bigint) / 100000 AS k, gpu_histogram(x, 0, 1, 4) FROM lk_rls GROUP BY 1 ORDER BY 1;
SELECT floor((ep OPERATOR(pg_temp./) 1000::bigint) / 100.0) AS k, gpu_histogram(x, 0, 1, 4)
FROM lk_rls GROUP BY 1 ORDER BY 1;
SELECT gpu_histogram(x, 0, 1, 4) FROM lk_rls WHERE pg_temp.peek(ep, 1) > 0;
SELECT ep / 100000 AS k, gpu_histogram(x, 0, 1, 4) FROM lk_rls WHERE pg_temp.peek(ep, 1) > 0 GROUP BY 1 ORDER BY 1;
SELECT gpu_histogram(x, 0, 1, 4) FROM lk_rls HAVING sum(pg_temp.peek(ep, 1)) > 0;
SET plan_cache_mode = force_generic_plan;
PREPARE lk_peek(bigint) AS
  SELECT ep OPERATOR(pg_temp./) $1 AS k, gpu_histogram(x, 0, 1, 4) FROM lk_rls GROUP BY 1 ORDER BY 1;
EXECUTE lk_peek(100000);
DEALLOCATE lk_peek;
RESET plan_cache_mode;
DROP OPERATOR pg_temp./ (bigint, bigint);
DROP OPERATOR pg_temp.* (bigint, bigint);
DROP FUNCTION pg_temp.peek(bigint, bigint);
DROP FUNCTION pg_temp.peek_mul(bigint, bigint);
RESET ROLE;
DROP TABLE lk_rls;
DROP ROLE regress_gh_viewer;
SET client_min_messages = warning;
DROP SCHEMA lk CASCADE;
RESET client_min_messages;
DROP TABLE lk_t;
