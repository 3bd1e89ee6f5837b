--
-- time: gpu_histogram(ts, lo, hi, nbins) for timestamptz, timestamp and
-- date against PostgreSQL's own exact numeric width_bucket over the
-- microsecond count, width_bucket((extract(epoch FROM ts) * 1000000)::numeric,
-- ...), and over the day number for dates: millions of rows, every bucket
-- edge, both orders of bounds, infinities, NULLs, the values where the
-- server's numeric division rounds its quotient up, errors with their
-- SQLSTATE, GROUP BY, parallel plans, small GPU batches.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS tm_t, tm_specs, tm_round, tm_d;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- The reference's operand: microseconds since 1970 as an exact numeric.
CREATE FUNCTION us(ts timestamptz) RETURNS numeric LANGUAGE sql STABLE
AS $$ SELECT (extract(epoch FROM ts) * 1000000)::numeric $$;
CREATE FUNCTION us(ts timestamp) RETURNS numeric LANGUAGE sql IMMUTABLE
AS $$ SELECT (extract(epoch FROM ts) * 1000000)::numeric $$;
-- ... and the day number of a date, with its infinities.
CREATE FUNCTION day_number(d date) RETURNS numeric LANGUAGE sql IMMUTABLE
AS $$ SELECT CASE WHEN d = 'infinity' THEN 'Infinity'::numeric WHEN d = '-infinity' THEN '-Infinity'
                  ELSE (d - date '2000-01-01')::numeric END $$;
-- The timestamp that many microseconds after 2000-01-01 UTC, exactly (an
-- interval times a float8 is exact below 2^53 in each part).
CREATE FUNCTION ts_at(us bigint) RETURNS timestamptz LANGUAGE sql STABLE
AS $$ SELECT '2000-01-01 00:00:00+00'::timestamptz + (us / 1000000000000) * interval '1000000 seconds'
             + (us % 1000000000000) * interval '1 microsecond' $$;
-- A histogram from a query that returns one bucket number per row: what
-- GROUP BY width_bucket gives, with the empty buckets as zeros.
CREATE FUNCTION ref_hist(buckets text, nslots integer) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
DECLARE
    r bigint[];
BEGIN
    EXECUTE format($q$SELECT array_agg(coalesce(w.c, 0) ORDER BY s.b) FROM generate_series(0, %s) s(b)
                      LEFT JOIN (SELECT b, count(*) AS c FROM (%s) q(b) WHERE b IS NOT NULL GROUP BY b) w
                      USING (b)$q$, nslots - 1, buckets) INTO r;
    RETURN r;
END
$fn$;
-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- A small example: hours of a day, the rows below and above it at both ends.
SELECT gpu_histogram(ts, '2024-01-01', '2024-01-02', 24)
FROM generate_series('2023-12-31 23:00'::timestamptz, '2024-01-02 01:00', '30 min') ts;
SELECT gpu_histogram(d, '2024-01-01', '2024-01-08', 7)
FROM generate_series('2023-12-30'::date, '2024-01-09', '1 day') d;

-- 2,000,000 timestamps over a day and a bit, microsecond-irregular, in ten
-- sensors, with NULLs and both infinities; then every minute edge of the
-- day, one microsecond below and above it.
CREATE TABLE tm_t AS
SELECT i, i % 10 AS sensor,
       CASE WHEN i % 100000 = 1 THEN NULL
            WHEN i % 100000 = 2 THEN 'infinity'
            WHEN i % 100000 = 3 THEN '-infinity'
            ELSE '2024-03-01 00:00:00'::timestamptz
                 + ((i::bigint * 2654435761) % 100000000000 - 5000000000) * interval '1 microsecond' END AS ts
FROM generate_series(1, 2000000) i;
INSERT INTO tm_t
SELECT 2000000 + 3 * k + j, k % 10, '2024-03-01 00:00:00'::timestamptz + k * interval '1 minute' + (j - 1) * interval '1 microsecond'
FROM generate_series(0, 1440) k, generate_series(0, 2) j;
ANALYZE tm_t;
SELECT count(*) AS rows, count(ts) AS not_null, count(*) FILTER (WHERE NOT isfinite(ts)) AS infinite FROM tm_t;

-- Specs: minutes of the day, both orders; an odd span with a prime number
-- of buckets; a quarter in 99,991 buckets; nearly the whole timestamp
-- range (extract(epoch ...) itself is off by a few microseconds at the
-- very end of it, where the microseconds since 1970 no longer fit 64 bits).
CREATE TABLE tm_specs(id integer, lo timestamptz, hi timestamptz, n integer);
INSERT INTO tm_specs VALUES
    (1, '2024-03-01 00:00:00', '2024-03-02 00:00:00', 1440),
    (2, '2024-03-02 00:00:00', '2024-03-01 00:00:00', 1440),
    (3, '2024-03-01 00:00:00.000001', '2024-03-01 23:59:59.999997', 997),
    (4, '2024-02-01 00:00:00', '2024-05-01 00:00:00', 99991),
    (5, '4714-11-24 00:00:00+00 BC', '294246-12-31 23:59:59.999999+00', 7),
    (6, '294246-12-31 23:59:59.999999+00', '4714-11-24 00:00:00+00 BC', 3);
SELECT id,
       (SELECT gpu_histogram(ts, s.lo, s.hi, s.n) FROM tm_t)
       = ref_hist(format('SELECT width_bucket(us(ts), %s, %s, %s) FROM tm_t', us(s.lo), us(s.hi), s.n), s.n + 2)
       AS same_as_width_bucket
FROM tm_specs s ORDER BY id;
-- the day in minutes, as psql shows it: the first and last few buckets
SELECT h[1:4] AS first, h[1439:1442] AS last, cardinality(h) AS elements, (SELECT sum(c) FROM unnest(h) c) AS total
FROM (SELECT gpu_histogram(ts, '2024-03-01 00:00:00', '2024-03-02 00:00:00', 1440) AS h FROM tm_t) s;

-- timestamp without time zone: the same values, the same reference.
SELECT id,
       (SELECT gpu_histogram(ts::timestamp, s.lo::timestamp, s.hi::timestamp, s.n) FROM tm_t)
       = ref_hist(format('SELECT width_bucket(us(ts::timestamp), %s, %s, %s) FROM tm_t',
                         us(s.lo::timestamp), us(s.hi::timestamp), s.n), s.n + 2) AS same_as_width_bucket
FROM tm_specs s WHERE id <= 4 ORDER BY id;

-- Where the server's numeric division rounds: values whose exact quotient
-- count * (x - lo) / (hi - lo) lies within a few units of its last place
-- below an integer (found offline, 9 per spec).  width_bucket puts them in
-- the bucket above the exact one, and so does gpu_histogram.
CREATE TABLE tm_round(spec integer, lo bigint, hi bigint, n integer, x bigint);
INSERT INTO tm_round VALUES
(1, 0, 100000000000000003, 20000, 33335000000000001),
(1, 0, 100000000000000003, 20000, 66670000000000002),
(1, 0, 100000000000000003, 20000, 5000000000000),
(1, 0, 100000000000000003, 20000, 33340000000000001),
(1, 0, 100000000000000003, 20000, 66675000000000002),
(1, 0, 100000000000000003, 20000, 10000000000000),
(1, 0, 100000000000000003, 20000, 33345000000000001),
(1, 0, 100000000000000003, 20000, 66680000000000002),
(1, 0, 100000000000000003, 20000, 15000000000000),
(2, -211813487999999999, 9222424646399999995, 7, 6526928036571428568),
(2, -211813487999999999, 9222424646399999995, 7, 3831431426742857141),
(2, -211813487999999999, 9222424646399999995, 7, 1135934816914285714),
(2, -211813487999999999, 9222424646399999995, 7, 7874676341485714281),
(2, -211813487999999999, 9222424646399999995, 7, 5179179731657142854),
(2, -211813487999999999, 9222424646399999995, 7, 2483683121828571427),
(2, -211813487999999999, 9222424646399999995, 7, 9222424646399999994),
(2, -211813487999999999, 9222424646399999995, 7, 6526928036571428567),
(2, -211813487999999999, 9222424646399999995, 7, 3831431426742857140),
(3, 5, 2000000000006, 99999, 646766467670),
(3, 5, 2000000000006, 99999, 1313433134337),
(3, 5, 2000000000006, 99999, 1980099801004),
(3, 5, 2000000000006, 99999, 626866268668),
(3, 5, 2000000000006, 99999, 1293532935335),
(3, 5, 2000000000006, 99999, 1960199602002),
(3, 5, 2000000000006, 99999, 606966069666),
(3, 5, 2000000000006, 99999, 1273632736333),
(3, 5, 2000000000006, 99999, 1940299403000),
(4, 8999999999999999999, -199999999999999993, 12345, 8266682867557715674),
(4, 8999999999999999999, -199999999999999993, 12345, 5200016200891049010),
(4, 8999999999999999999, -199999999999999993, 12345, 2133349534224382346),
(4, 8999999999999999999, -199999999999999993, 12345, 7533365735115431349),
(4, 8999999999999999999, -199999999999999993, 12345, 4466699068448764685),
(4, 8999999999999999999, -199999999999999993, 12345, 1400032401782098021),
(4, 8999999999999999999, -199999999999999993, 12345, 6800048602673147024),
(4, 8999999999999999999, -199999999999999993, 12345, 3733381936006480360),
(4, 8999999999999999999, -199999999999999993, 12345, 666715269339813696),
(5, 23587200000000, 31449600000000, 99991, 27635520988889),
(5, 23587200000000, 31449600000000, 99991, 23821441977778),
(5, 23587200000000, 31449600000000, 99991, 27869762966667),
(5, 23587200000000, 31449600000000, 99991, 24055683955556),
(5, 23587200000000, 31449600000000, 99991, 28104004944445),
(5, 23587200000000, 31449600000000, 99991, 24289925933334),
(5, 23587200000000, 31449600000000, 99991, 28338246922223),
(5, 23587200000000, 31449600000000, 99991, 24524167911112),
(5, 23587200000000, 31449600000000, 99991, 28572488900001),
(6, 172800000000, -7883827200000007, 3000001, -6955247361526619),
(6, 172800000000, -7883827200000007, 3000001, -6026667523053231),
(6, 172800000000, -7883827200000007, 3000001, -5098087684579843),
(6, 172800000000, -7883827200000007, 3000001, -4169507846106455),
(6, 172800000000, -7883827200000007, 3000001, -3240928007633067),
(6, 172800000000, -7883827200000007, 3000001, -2312348169159679),
(6, 172800000000, -7883827200000007, 3000001, -1383768330686291),
(6, 172800000000, -7883827200000007, 3000001, -455188492212903),
(6, 172800000000, -7883827200000007, 3000001, -7410608653739522);
-- the timestamps are exactly those microseconds
SELECT count(*) AS values, count(*) FILTER (WHERE us(ts_at(x)) = x::numeric + 946684800000000) AS exact FROM tm_round;
SELECT spec, count(*) AS values,
       count(*) FILTER (WHERE width_bucket(us(ts_at(x)), us(ts_at(lo)), us(ts_at(hi)), n)
                              <> div(abs(x::numeric - lo) * n, abs(hi::numeric - lo)) + 1) AS rounded_up_by_the_server
FROM tm_round GROUP BY spec ORDER BY spec;
SELECT r.spec, r.h = w.h AS same_as_width_bucket
FROM (SELECT spec, gpu_histogram(ts_at(x), ts_at(lo), ts_at(hi), n) AS h FROM tm_round GROUP BY spec) r
JOIN (SELECT spec, array_agg(coalesce(c, 0) ORDER BY b) AS h
      FROM (SELECT DISTINCT spec, n FROM tm_round) s CROSS JOIN LATERAL generate_series(0, s.n + 1) b
      LEFT JOIN (SELECT spec, width_bucket(us(ts_at(x)), us(ts_at(lo)), us(ts_at(hi)), n) AS b, count(*) AS c
                 FROM tm_round GROUP BY 1, 2) w USING (spec, b)
      GROUP BY spec) w USING (spec)
ORDER BY r.spec;

-- Dates, over their day numbers: 2,000,000 days around a century, and
-- both infinities.
CREATE TABLE tm_d AS
SELECT i, CASE WHEN i % 100000 = 1 THEN NULL
               WHEN i % 100000 = 2 THEN 'infinity'
               WHEN i % 100000 = 3 THEN '-infinity'
               ELSE date '2000-01-01' + ((i::bigint * 7919) % 40000 - 2000)::integer END AS d
FROM generate_series(1, 2000000) i;
SELECT lo, hi, n,
       (SELECT gpu_histogram(d, s.lo, s.hi, s.n) FROM tm_d)
       = ref_hist(format('SELECT width_bucket(day_number(d), %s, %s, %s) FROM tm_d',
                         day_number(s.lo), day_number(s.hi), s.n), s.n + 2) AS same_as_width_bucket
FROM (VALUES (date '2000-01-01', date '2100-01-01', 1200), (date '2100-01-01', date '2000-01-01', 1200),
             (date '2000-01-01', date '2000-01-02', 1), (date '2024-01-01', date '2031-01-01', 5003)) s(lo, hi, n);

-- Edges: the bounds themselves, a microsecond either side, infinities and
-- NULLs, next to width_bucket on each value.
SELECT v, gpu_histogram(v, '2024-01-01', '2024-01-02', 4) AS up,
       width_bucket(us(v), us('2024-01-01'), us('2024-01-02'), 4) AS wb_up,
       gpu_histogram(v, '2024-01-02', '2024-01-01', 4) AS down,
       width_bucket(us(v), us('2024-01-02'), us('2024-01-01'), 4) AS wb_down
FROM (VALUES ('2024-01-01 00:00:00'::timestamptz), ('2023-12-31 23:59:59.999999'), ('2024-01-01 00:00:00.000001'),
             ('2024-01-01 05:59:59.999999'), ('2024-01-01 06:00:00'), ('2024-01-02 00:00:00'),
             ('2024-01-01 23:59:59.999999'), ('infinity'), ('-infinity')) x(v)
GROUP BY v ORDER BY v;
SELECT gpu_histogram(v, '2024-01-01', '2024-01-02', 4)
FROM (VALUES (NULL::timestamptz), ('2024-01-01 12:00')) x(v);
SELECT gpu_histogram(v, NULL, '2024-01-02', 4) IS NULL AS all_skipped
FROM (VALUES ('2024-01-01 12:00'::timestamptz)) x(v);
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 4) IS NULL AS no_rows FROM tm_t WHERE i < 0;

-- Errors: numeric width_bucket's, with its SQLSTATE and message, checked in
-- its order (count, then infinite bounds, then equal bounds).
SELECT q,
       try_sql(format('SELECT gpu_histogram(%L::timestamptz, %L::timestamptz, %L::timestamptz, %s)', v, lo, hi, n)) AS gpu_histogram,
       try_sql(format('SELECT gpu_histogram(%L::timestamptz, %L::timestamptz, %L::timestamptz, %s)', v, lo, hi, n))
       = try_sql(format('SELECT width_bucket(us(%L::timestamptz), us(%L::timestamptz), us(%L::timestamptz), %s)', v, lo, hi, n))
       AS same_as_width_bucket
FROM (VALUES (1, '2024-01-01', '2024-01-01', '2024-01-02', 0),
             (2, '2024-01-01', '2024-01-01', '2024-01-02', -3),
             (3, '2024-01-01', 'infinity', '2024-01-02', 4),
             (4, '2024-01-01', '2024-01-01', '-infinity', 4),
             (5, '2024-01-01', '2024-01-01', '2024-01-01', 4),
             (6, '2024-01-01', 'infinity', 'infinity', 4),
             (7, '2024-01-01', 'infinity', 'infinity', 0),
             (8, 'infinity', '2024-01-01', '2024-01-01', 4)) v(q, v, lo, hi, n)
ORDER BY q;
SELECT try_sql($$SELECT gpu_histogram(d, 'infinity', '2024-01-01', 3) FROM (VALUES (date '2024-01-01')) v(d)$$) AS date_bound,
       try_sql($$SELECT gpu_histogram(d, '2024-01-01', '2024-01-01', 3) FROM (VALUES (date '2024-01-01')) v(d)$$) AS date_equal;
-- more buckets than gpu_histogram allows (numeric width_bucket has no limit)
SELECT try_sql($$SELECT gpu_histogram(now(), now() - interval '1 day', now(), 10000001)$$);
-- bounds that change within a group
SELECT try_sql($$SELECT gpu_histogram(ts, lo, '2024-01-02', 4)
                 FROM (VALUES ('2024-01-01 12:00'::timestamptz, '2024-01-01'::timestamptz),
                              ('2024-01-01 13:00', '2024-01-01 01:00')) v(ts, lo)$$);
SELECT try_sql($$SELECT gpu_histogram(d, '2024-01-01', '2024-02-01', n)
                 FROM (VALUES (date '2024-01-05', 4), ('2024-01-06', 5)) v(d, n)$$);
\set VERBOSITY sqlstate
SELECT gpu_histogram(now(), 'infinity', now(), 3);
SELECT gpu_histogram(now(), now(), now(), 3);
SELECT gpu_histogram(now(), now() - interval '1 day', now(), 0);
\set VERBOSITY default
SELECT gpu_histogram(now(), 'infinity', now(), 3);

-- GROUP BY: a histogram of the last day per sensor, in minutes, the issue's
-- query with now() replaced by a fixed instant, and with now() itself
-- (one value for the whole statement).
SELECT count(*) AS sensors,
       count(*) FILTER (WHERE g.h = ref_hist(format('SELECT width_bucket(us(ts), %s, %s, 1440) FROM tm_t WHERE sensor = %s',
                                                    us('2024-03-01 18:00'::timestamptz - interval '1 day'),
                                                    us('2024-03-01 18:00'::timestamptz), g.sensor), 1442)) AS same_as_width_bucket
FROM (SELECT sensor, gpu_histogram(ts, '2024-03-01 18:00'::timestamptz - interval '1 day', '2024-03-01 18:00', 1440) AS h
      FROM tm_t GROUP BY sensor) g;
SELECT count(*) AS sensors, sum((SELECT sum(c) FROM unnest(h) c)) = (SELECT count(ts) FROM tm_t) AS all_counted
FROM (SELECT sensor, gpu_histogram(ts, now() - interval '1 day', now(), 1440) AS h FROM tm_t GROUP BY sensor) g;

-- Parallel plans give the serial result: the aggregate's own partial states
-- (the scan off), then GpuHistogramScan's (scan_forms covers it too).
SET gpu_histogram.scan = off;
CREATE TEMP TABLE tm_serial AS
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 1440) AS day,
       gpu_histogram(ts::timestamp, '2024-03-02', '2024-03-01', 1000) AS down,
       gpu_histogram(ts::date, '2024-02-28', '2024-03-04', 5) AS days
FROM tm_t;
CREATE TEMP TABLE tm_serial_g AS
SELECT sensor, gpu_histogram(ts, '2024-03-01', '2024-03-02', 96) AS h FROM tm_t GROUP BY sensor;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 1440) FROM tm_t;
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 1440) = (SELECT day FROM tm_serial) AS day,
       gpu_histogram(ts::timestamp, '2024-03-02', '2024-03-01', 1000) = (SELECT down FROM tm_serial) AS down,
       gpu_histogram(ts::date, '2024-02-28', '2024-03-04', 5) = (SELECT days FROM tm_serial) AS days
FROM tm_t;
SELECT count(*) AS sensors, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT sensor, gpu_histogram(ts, '2024-03-01', '2024-03-02', 96) AS h FROM tm_t GROUP BY sensor) p
FULL JOIN tm_serial_g s USING (sensor);
RESET gpu_histogram.scan;
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 1440) = (SELECT day FROM tm_serial) AS day,
       gpu_histogram(ts::timestamp, '2024-03-02', '2024-03-01', 1000) = (SELECT down FROM tm_serial) AS down,
       gpu_histogram(ts::date, '2024-02-28', '2024-03-04', 5) = (SELECT days FROM tm_serial) AS days
FROM tm_t;
SELECT count(*) AS sensors, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT sensor, gpu_histogram(ts, '2024-03-01', '2024-03-02', 96) AS h FROM tm_t GROUP BY sensor) p
FULL JOIN tm_serial_g s USING (sensor);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- Small batches (16,384 values): on a GPU, every group goes through many
-- device batches (run the suite with gpu_histogram.device = gpu); the
-- results stay the same.
SET gpu_histogram.batch_size = 16384;
SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 1440) = (SELECT day FROM tm_serial) AS day,
       gpu_histogram(ts::timestamp, '2024-03-02', '2024-03-01', 1000) = (SELECT down FROM tm_serial) AS down,
       gpu_histogram(ts::date, '2024-02-28', '2024-03-04', 5) = (SELECT days FROM tm_serial) AS days
FROM tm_t;
SELECT count(*) AS sensors, count(*) FILTER (WHERE p.h IS DISTINCT FROM s.h) AS mismatches
FROM (SELECT sensor, gpu_histogram(ts, '2024-03-01', '2024-03-02', 96) AS h FROM tm_t GROUP BY sensor) p
FULL JOIN tm_serial_g s USING (sensor);
RESET gpu_histogram.batch_size;

-- As a window aggregate: a running histogram by quarter of the day.
SELECT i, h FROM (SELECT i, gpu_histogram(ts, '2024-03-01', '2024-03-02', 4) OVER (ORDER BY i) AS h
                  FROM tm_t WHERE i % 200000 = 17) s ORDER BY i;

-- gpu_histogram_buckets: the first microsecond each bucket counts, for
-- timestamptz, timestamp and date bounds (dates: timestamp bounds out).
SELECT * FROM gpu_histogram_buckets((SELECT gpu_histogram(ts, '2024-03-01', '2024-03-02', 4) FROM tm_t),
                                    '2024-03-01'::timestamptz, '2024-03-02'::timestamptz);
SELECT * FROM gpu_histogram_buckets('{1,2,3,4,5}', '2024-01-02'::timestamp, '2024-01-01 00:00:00.000001'::timestamp);
SELECT * FROM gpu_histogram_buckets('{1,2,3,4,5}', '2024-01-01'::date, '2024-01-11'::date);
-- Date bounds whose edges pass the last timestamp: the error of the date's
-- cast to timestamp, as PostgreSQL raises it, ascending and descending; the
-- last and first dates that are timestamps are edges like any other.
SELECT try_sql($$SELECT '5874897-12-31'::date::timestamp$$) AS date_cast,
       try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{0,5,7,0}'::bigint[], '2000-01-01'::date, '5874897-12-31'::date)$$) AS ascending,
       try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{0,5,7,0}'::bigint[], '294277-01-01'::date, '2000-01-01'::date)$$) AS descending;
SELECT try_sql($$SELECT '294277-01-01'::date::timestamp$$) AS date_cast;
\set VERBOSITY sqlstate
SELECT * FROM gpu_histogram_buckets('{0,5,7,0}'::bigint[], '2000-01-01'::date, '5874897-12-31'::date);
\set VERBOSITY default
SELECT * FROM gpu_histogram_buckets('{0,5,7,0}'::bigint[], '2000-01-01'::date, '294276-12-31'::date);
SELECT * FROM gpu_histogram_buckets('{0,5,7,0}'::bigint[], '2000-01-01'::date, '4714-11-24 BC'::date);
-- every value lies in the bucket that counts it: the rows of each bucket's
-- [lower, upper) are its count (the last one holds infinity too)
SELECT count(*) AS buckets,
       count(*) FILTER (WHERE b.count = (SELECT count(*) FROM tm_t
                                         WHERE ts >= b.lower AND (ts < b.upper OR b.upper = 'infinity'))) AS exact
FROM gpu_histogram_buckets((SELECT gpu_histogram(ts, '2024-03-01 00:00:00.000001', '2024-03-01 23:59:59.999997', 97) FROM tm_t),
                           '2024-03-01 00:00:00.000001'::timestamptz, '2024-03-01 23:59:59.999997'::timestamptz) b;
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', 'infinity'::timestamptz, now())$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2}', now(), now() + interval '1 day')$$);

DROP TABLE tm_t, tm_specs, tm_round, tm_d, tm_serial, tm_serial_g;
DROP FUNCTION us(timestamptz), us(timestamp), day_number(date), ts_at(bigint), ref_hist(text, integer);
