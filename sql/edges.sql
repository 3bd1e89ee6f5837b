--
-- edges: values on and one ulp either side of bucket edges and bounds, ±0,
-- denormals, ±infinity, PostgreSQL 15's rounding quirks, very small and
-- very large ranges, and 10,000,000 buckets.  Values are compared one by
-- one: each distinct value is its own group, so its histogram has a single
-- non-zero element, at width_bucket(x, lo, hi, nbins) + 1.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS edge_specs, edge_values, edge_big;
RESET client_min_messages;

-- PostgreSQL has no nextafter().  nextup(x) adds a little more than half an
-- ulp of x, which rounds to the next double up: for tiny normals, scaled by
-- 2^200 first (exact) so that the half ulp is not itself rounded; for
-- denormals and the smallest normal the ulp is 4.9e-324.  nextdown(x) = -nextup(-x).  f8bits() gives
-- the IEEE bits, to check them.
CREATE OR REPLACE FUNCTION f8bits(x float8) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT AS
$$ SELECT ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint $$;
CREATE OR REPLACE FUNCTION nextup(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN x = 'Infinity' THEN x
               WHEN abs(x) <= 2.2250738585072014e-308 THEN x + 4.9e-324
               WHEN abs(x) < 1e-280 THEN (x * power(2::float8, 200) + abs(x * power(2::float8, 200)) * 1.1102230246251568e-16)
                                         * power(2::float8, -200)
               ELSE x + abs(x) * 1.1102230246251568e-16 END $$;
CREATE OR REPLACE FUNCTION nextdown(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS
$$ SELECT -nextup(-x) $$;
-- the bucket of a histogram whose only non-zero element is n (else NULL)
CREATE OR REPLACE FUNCTION gh_bucket(h bigint[], n bigint = 1) RETURNS integer LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN array_remove(h, 0::bigint) = ARRAY[n] THEN array_position(h, n) - 1 END $$;

-- nextup and nextdown move by exactly one ulp: one step of the bit pattern
-- (sign and magnitude), across binade boundaries and among denormals.
SELECT count(*) AS nvalues,
       count(*) FILTER (WHERE f8bits(nextup(x)) - f8bits(x) <> 1) AS bad_up,
       count(*) FILTER (WHERE f8bits(x) - f8bits(nextdown(x)) <> 1) AS bad_down,
       count(*) FILTER (WHERE f8bits(nextup(-x)) - f8bits(-x) <> -1) AS bad_neg_up,
       count(*) FILTER (WHERE nextdown(nextup(x)) <> x OR nextup(nextdown(x)) <> x) AS bad_inverse
FROM (SELECT unnest(ARRAY[1, 2, 0.5, 0.1, 0.7, 1.5, 3, 10, 1e-300, 1e300, 1e-323, 1.5e-323,
                          2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623155e308,
                          0.99999999999999989, 1.0000000000000002]::float8[])
      UNION ALL SELECT power(2, k) FROM generate_series(-1022, 1000, 7) k
      UNION ALL SELECT power(2, k) * 1.9999999999999998 FROM generate_series(-1022, 1000, 13) k
      UNION ALL SELECT i * 0.6180339887498949::float8 * power(10, i % 40 - 20)
      FROM generate_series(1, 2000) i) v(x);
SELECT nextup(1), nextdown(1), nextup(-1), nextdown(-1), nextup(0), nextdown(0);

-- Specs with exact and inexact edges, both orders, ±0 bounds, denormal and
-- tiny ranges, wide ranges, huge magnitudes.
CREATE TABLE edge_specs(sid serial, lo float8, hi float8, nbins integer);
INSERT INTO edge_specs(lo, hi, nbins) VALUES
    (0, 1, 10), (-1, 1, 10), (0, 10, 3), (0.1, 0.7, 6), (-3.3, 7.9, 13), (0, 1, 1), (0, 1, 2),
    (0, 0.3, 3), (1, 2, 100), (1e-3, 1e3, 999), (-1e15, 1e15, 7), (1e15, 1e15 + 64, 32),
    (0, '-0', 1) /* swapped below */, ('-0', 1, 4), (0, 1, 4), (-1, '-0', 4), (-1, 0, 4),
    (0, 4.9e-324, 1), (0, 1e-323, 2), (-4.9e-324, 4.9e-324, 3), (0, 2.2250738585072014e-308, 1000),
    (2.225073858507201e-308, 2.2250738585072014e-308, 5), (1, 1.0000000000000009, 3),
    (1, 1.0000000000000002, 7), (-1e307, 1e307, 8), (-8.9e307, 8.9e307, 1), (1e300, 1e301, 77),
    (-5e-321, 5e-321, 100), (123456789, 123456790, 1000000);
-- (0, -0) is not a valid spec: make it (1, -0)
UPDATE edge_specs SET lo = 1 WHERE lo = 0 AND hi = 0;
-- and every spec again with lo and hi swapped
INSERT INTO edge_specs(lo, hi, nbins) SELECT hi, lo, nbins FROM edge_specs ORDER BY sid;
SELECT count(*) AS specs, count(*) FILTER (WHERE lo > hi) AS descending FROM edge_specs;

-- For every spec: the nominal edges lo + (hi - lo) * k / nbins, computed
-- two ways (at most 2,001 of them), the midpoints, lo and hi, each with its
-- neighbours one and two ulps below and above.  Ranges of denormals (where
-- float8 arithmetic would raise underflow errors) get every double from 3
-- ulps below to 3 ulps above the range instead.  And for all specs: ±0,
-- denormals, ±infinity, huge values.
CREATE TABLE edge_values AS
SELECT s.sid, s.lo, s.hi, s.nbins, e.x
FROM edge_specs s,
     LATERAL (SELECT s.lo + (s.hi - s.lo) * k / s.nbins FROM generate_series(0, least(s.nbins, 2000)) k
              UNION ALL SELECT s.lo + (s.hi - s.lo) * (k::float8 / s.nbins) FROM generate_series(0, least(s.nbins, 2000)) k
              UNION ALL SELECT s.lo + (s.hi - s.lo) * ((k + 0.5) / s.nbins) FROM generate_series(0, least(s.nbins, 2000) - 1) k
              UNION ALL SELECT s.hi - (s.hi - s.lo) * k / s.nbins FROM generate_series(1, least(s.nbins, 200)) k
              UNION ALL VALUES (s.lo), (s.hi)) e0(e),
     LATERAL (VALUES (e0.e), (nextup(e0.e)), (nextdown(e0.e)), (nextup(nextup(e0.e))), (nextdown(nextdown(e0.e)))) e(x)
WHERE abs(s.hi - s.lo) >= 1e-319
UNION ALL
SELECT s.sid, s.lo, s.hi, s.nbins, least(s.lo, s.hi) + j * 4.9e-324
FROM edge_specs s, generate_series(-3, (abs(s.hi - s.lo) / 4.9e-324)::integer + 3) j
WHERE abs(s.hi - s.lo) < 1e-319
UNION ALL
SELECT s.sid, s.lo, s.hi, s.nbins, v.x
FROM edge_specs s,
     unnest(ARRAY[0, '-0', 4.9e-324, -4.9e-324, 1e-323, 2.2250738585072014e-308,
                  -2.2250738585072014e-308, 2.225073858507201e-308,
                  'Infinity', '-Infinity', 1.7976931348623157e308,
                  -1.7976931348623157e308, 1e308, -1e308, 1, -1]::float8[]) v(x);
SELECT count(*) AS nvalues, count(DISTINCT sid) AS specs FROM edge_values;

-- each value alone against width_bucket (sorted grouping: one state at a
-- time; specs of at most 1,000 buckets)
SET enable_hashagg = off;
SELECT count(*) AS distinct_values,
       count(*) FILTER (WHERE gh IS DISTINCT FROM wb) AS mismatches,
       count(*) FILTER (WHERE wb = 0) AS below, count(*) FILTER (WHERE wb = nbins + 1) AS above,
       -- PG 15 puts some values just under the end of the range in nbins + 1
       count(*) FILTER (WHERE wb = nbins + 1 AND (lo < hi AND x < hi OR lo > hi AND x > hi)) AS rounded_over
FROM (SELECT sid, x, nbins, lo, hi, width_bucket(x, lo, hi, nbins) AS wb,
             gh_bucket(h, n) AS gh
      FROM (SELECT sid, x, nbins, lo, hi, gpu_histogram(x, lo, hi, nbins) AS h, count(*) AS n
            FROM edge_values WHERE nbins <= 1000 GROUP BY sid, x, lo, hi, nbins) g) s;
RESET enable_hashagg;

-- each spec's values together against the width_bucket histogram
WITH ref AS (
    SELECT s.sid, array_agg(coalesce(w.c, 0) ORDER BY g.b) AS h
    FROM edge_specs s CROSS JOIN LATERAL generate_series(0, s.nbins + 1) g(b)
    LEFT JOIN (SELECT sid, width_bucket(x, lo, hi, nbins) AS b, count(*) AS c FROM edge_values GROUP BY 1, 2) w
           ON w.sid = s.sid AND w.b = g.b
    GROUP BY s.sid
), got AS (
    SELECT sid, gpu_histogram(x, lo, hi, nbins) AS h FROM edge_values GROUP BY sid
)
SELECT count(*) AS specs, count(*) FILTER (WHERE ref.h IS DISTINCT FROM got.h) AS mismatches
FROM ref FULL JOIN got USING (sid);

-- The cases by name.  PG 15 rounding: 0.99999999999999989 (one ulp under
-- 1) - (-1) rounds to 2, so width_bucket gives 11 of 10 buckets, the last
-- element; one ulp over -1 for the mirrored spec likewise.
SELECT id, x, lo, hi, nbins, width_bucket(x, lo, hi, nbins) AS width_bucket,
       gpu_histogram(x, lo, hi, nbins) AS gpu_histogram
FROM (VALUES (1, 0.99999999999999989::float8, -1::float8, 1::float8, 10),
             (2, -0.99999999999999989, 1, -1, 10),
             (3, 0.99999999999999989, 0, 1, 10),
             (4, -1.0000000000000002, -1, 1, 10), (5, -1, -1, 1, 10), (6, -0.99999999999999989, -1, 1, 10),
             (7, 1, -1, 1, 10), (8, 1.0000000000000002, -1, 1, 10),
             (9, 1.0000000000000002, 1, -1, 10), (10, 1, 1, -1, 10), (11, 0.99999999999999989, 1, -1, 10),
             (12, -1, 1, -1, 10), (13, -1.0000000000000002, 1, -1, 10)) v(id, x, lo, hi, nbins)
GROUP BY id, x, lo, hi, nbins ORDER BY id;

-- ±0: -0 is not below a lower bound of 0, and 0 is not below -0.
SELECT id, x, lo, hi, width_bucket(x, lo, hi, 2), gh_bucket(gpu_histogram(x, lo, hi, 2)) AS gh
FROM (VALUES (1, 0::float8, 0::float8, 1::float8), (2, '-0', 0, 1), (3, 0, '-0', 1), (4, '-0', '-0', 1),
             (5, 0, -1, 0), (6, '-0', -1, 0), (7, 0, -1, '-0'), (8, '-0', -1, '-0'),
             (9, 0, 0, -1), (10, '-0', 0, -1), (11, 0, '-0', -1), (12, '-0', '-0', -1),
             (13, 0, 1, 0), (14, '-0', 1, 0), (15, 0, 1, '-0'), (16, '-0', 1, '-0')) v(id, x, lo, hi)
GROUP BY id, x, lo, hi ORDER BY id;

-- Denormals as values and bounds.
SELECT id, x, lo, hi, nbins, width_bucket(x, lo, hi, nbins), gh_bucket(gpu_histogram(x, lo, hi, nbins)) AS gh
FROM (VALUES (1, 4.9e-324::float8, 0::float8, 1::float8, 10), (2, 4.9e-324, 0, 1e-323, 2),
             (3, -4.9e-324, -4.9e-324, 4.9e-324, 3), (4, 0, -4.9e-324, 4.9e-324, 3), (5, '-0', -4.9e-324, 4.9e-324, 3),
             (6, 4.9e-324, -4.9e-324, 4.9e-324, 3), (7, -4.9e-324, 4.9e-324, -4.9e-324, 3),
             (8, 0, 4.9e-324, -4.9e-324, 3), (9, 4.9e-324, 4.9e-324, -4.9e-324, 3),
             (10, 1e-323, 0, 1.5e-323, 3), (11, 1e-308, 0, 2.2250738585072014e-308, 1000),
             (12, 2.225073858507201e-308, 0, 2.2250738585072014e-308, 1000),
             (13, 2.225073858507201e-308, 2.2250738585072014e-308, 0, 1000),
             (14, 2.2250738585072014e-308, 2.225073858507201e-308, 2.2250738585072014e-308, 2)) v(id, x, lo, hi, nbins)
GROUP BY id, x, lo, hi, nbins ORDER BY id;

-- ±infinity are values like any other: below or above.
SELECT x, lo, hi, gpu_histogram(x, lo, hi, 3), width_bucket(x, lo, hi, 3)
FROM (VALUES ('Infinity'::float8, 0::float8, 1::float8), ('-Infinity', 0, 1),
             ('Infinity', 1, 0), ('-Infinity', 1, 0)) v(x, lo, hi)
GROUP BY x, lo, hi ORDER BY lo, x;
SELECT gpu_histogram(x, -1e308, 7e307, 1) AS h, gpu_histogram(x, 7e307, -1e308, 1) AS h_down
FROM (VALUES ('-Infinity'::float8), (-1.7976931348623157e308), (-1e308), (7e307), (1.7976931348623157e308),
             ('Infinity')) v(x);

-- 10,000,000 buckets, the most there can be: 200,000 values plus the
-- edges, compared bucket by bucket (all 10,000,002 elements).
CREATE TABLE edge_big AS
SELECT (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.2 - 0.1 AS x
FROM generate_series(1, 200000) i
UNION ALL SELECT k / 1e7 FROM generate_series(0, 10000000, 9973) k
UNION ALL SELECT nextdown(k / 1e7) FROM generate_series(0, 10000000, 9973) k
UNION ALL VALUES (0.99999999999999989), (1), (nextdown(0)), ('-0');
-- the reference: array_fill(0) with the width_bucket counts written in
CREATE OR REPLACE FUNCTION wb_hist_sparse(lo float8, hi float8, nbins integer) RETURNS bigint[]
LANGUAGE plpgsql AS $fn$
DECLARE
    r bigint[] := array_fill(0::bigint, ARRAY[nbins + 2]);
    b integer;
    c bigint;
BEGIN
    FOR b, c IN SELECT width_bucket(x, lo, hi, nbins), count(*) FROM edge_big GROUP BY 1 LOOP
        r[b + 1] := c;
    END LOOP;
    RETURN r;
END
$fn$;
SELECT array_length(h, 1) AS len, (SELECT count(*) FROM edge_big) AS nvalues,
       (SELECT count(*) FROM unnest(h) c WHERE c > 0) AS nonzero,
       h = wb_hist_sparse(0, 1, 10000000) AS equal
FROM (SELECT gpu_histogram(x, 0, 1, 10000000) AS h FROM edge_big) s;
SELECT array_length(h, 1) AS len, h = wb_hist_sparse(1, 0, 10000000) AS equal
FROM (SELECT gpu_histogram(x, 1, 0, 10000000) AS h FROM edge_big) s;
SELECT array_length(h, 1) AS len, h = wb_hist_sparse(-0.25, 1.25, 9999999) AS equal
FROM (SELECT gpu_histogram(x, -0.25, 1.25, 9999999) AS h FROM edge_big) s;
-- and one more is refused
\set VERBOSITY sqlstate
SELECT gpu_histogram(x, 0, 1, 10000001) FROM edge_big;
\set VERBOSITY default

DROP TABLE edge_specs, edge_values, edge_big;
DROP FUNCTION gh_bucket(bigint[], bigint);
DROP FUNCTION wb_hist_sparse(float8, float8, integer);
DROP FUNCTION nextdown(float8);
DROP FUNCTION nextup(float8);
DROP FUNCTION f8bits(float8);
