--
-- errors: every error gpu_histogram, gpu_histogram_merge and
-- gpu_histogram_buckets raise, with its SQLSTATE.  Where width_bucket has
-- the same error, the aggregate must raise it with the same SQLSTATE and
-- message: try_sql() runs a query and answers "SQLSTATE: message" (or "ok:"
-- and the result), so the two can be compared.
--
SET client_min_messages = warning;
DROP TABLE IF EXISTS err_t;
RESET client_min_messages;

-- the helpers the topics share (rt_*, try_sql, wb_hist): sql/include/helpers.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/helpers.sql
-- Bad arguments, on the first row of a group: gpu_histogram next to
-- width_bucket on the same row.
CREATE TABLE err_t(id integer, x float8, lo float8, hi float8, n integer);
INSERT INTO err_t VALUES
    (1, 0.5, 0, 1, 0),                         -- count <= 0
    (2, 0.5, 0, 1, -5),
    (3, 'NaN', 0, 1, 10),                      -- NaN operand
    (4, 0.5, 'NaN', 1, 10),                    -- NaN bound
    (5, 0.5, 0, 'NaN', 10),
    (6, 0.5, '-Infinity', 1, 10),              -- infinite bound
    (7, 0.5, 0, 'Infinity', 10),
    (8, 0.5, 1, 1, 10),                        -- equal bounds
    (9, 0.5, '-0', '0', 10),                   -- -0 = 0
    (10, 'NaN', 1, 1, 0),                      -- the order of the checks:
    (11, 'NaN', 1, 1, 10),                     --   count, then NaN,
    (12, 0.5, 'NaN', 'Infinity', 10),          --   then infinite,
    (13, 'Infinity', 1, 1, 10),                --   then equal bounds
    (14, 'NaN', 'Infinity', 1, 10),
    (15, 0.5, 1, 1, 10000001);
SELECT id,
       try_sql(format('SELECT gpu_histogram(%L::float8, %L, %L, %s)', x, lo, hi, n)) AS gpu_histogram,
       try_sql(format('SELECT gpu_histogram(%L::float8, %L, %L, %s)', x, lo, hi, n))
       = try_sql(format('SELECT width_bucket(%L::float8, %L, %L, %s)', x, lo, hi, n)) AS same_as_width_bucket
FROM err_t ORDER BY id;

-- The same errors as plain errors, as psql shows them.
\set VERBOSITY sqlstate
SELECT gpu_histogram(0.5, 0, 1, 0);
SELECT gpu_histogram('NaN', 0, 1, 10);
SELECT gpu_histogram(0.5, 0, 'NaN', 10);
SELECT gpu_histogram(0.5, 0, 'Infinity', 10);
SELECT gpu_histogram(0.5, 1, 1, 10);
\set VERBOSITY default
SELECT gpu_histogram(0.5, 0, 1, 0);
SELECT gpu_histogram('NaN', 0, 1, 10);
SELECT gpu_histogram(0.5, 0, 'NaN', 10);
SELECT gpu_histogram(0.5, 0, 'Infinity', 10);
SELECT gpu_histogram(0.5, 1, 1, 10);

-- A NaN value after many good rows fails the aggregate, as it fails the
-- width_bucket GROUP BY query over the same rows.
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, 10)
                 FROM (SELECT i / 100000.0 FROM generate_series(1, 100000) i
                       UNION ALL SELECT 'NaN'
                       UNION ALL SELECT i / 100000.0 FROM generate_series(1, 50000) i) s(x)$$);
SELECT try_sql($$SELECT count(*) FROM (SELECT width_bucket(x, 0, 1, 10), count(*)
                 FROM (SELECT i / 100000.0 FROM generate_series(1, 100000) i
                       UNION ALL SELECT 'NaN'
                       UNION ALL SELECT i / 100000.0 FROM generate_series(1, 50000) i) s(x)
                 GROUP BY 1) w$$);
-- ... at any position: first, last, and in a small group
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, 10) FROM (VALUES ('NaN'::float8), (0.5)) v(x)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, 10) FROM (VALUES (0.5::float8), ('NaN')) v(x)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 10, 0, 10)
                 FROM (SELECT i::float8 FROM generate_series(1, 9000) i UNION ALL SELECT 'NaN') s(x)$$);
SELECT try_sql($$SELECT g, gpu_histogram(x, 0, 1, 10) FROM (VALUES (1, 0.5::float8), (2, 'NaN'), (3, 0.5)) v(g, x) GROUP BY g$$);
-- NaN as a numeric and a real value
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, 10) FROM (VALUES (1::numeric), ('NaN')) v(x)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, 10) FROM (VALUES (1::real), ('NaN')) v(x)$$);
-- an infinite value is no error
SELECT gpu_histogram(x, 0, 1, 2) FROM (VALUES ('Infinity'::float8), ('-Infinity')) v(x);

-- Bounds so far apart that nbins * (hi - lo) overflows: PostgreSQL 15's
-- width_bucket returns garbage there (INT_MIN), gpu_histogram refuses.
SELECT width_bucket(1::float8, -1e308, 1e308, 10);
SELECT width_bucket(0.999e307::float8, -1e307, 1e307, 9);
SELECT try_sql('SELECT gpu_histogram(1, -1e308, 1e308, 10)');
SELECT try_sql('SELECT gpu_histogram(1, 1e308, -1e308, 10)');
SELECT try_sql('SELECT gpu_histogram(1, -1e307, 1e307, 9)');
SELECT try_sql('SELECT gpu_histogram(1, 1e307, -1e307, 9)');
SELECT try_sql('SELECT gpu_histogram(1, 0, 1.7976931348623157e308, 2)');
SELECT try_sql('SELECT gpu_histogram(1, -1e308, 1e308, 1)');
\set VERBOSITY sqlstate
SELECT gpu_histogram(1, -1e308, 1e308, 10);
\set VERBOSITY default
SELECT gpu_histogram(1, -1e308, 1e308, 10);
-- one bucket fewer fits, and agrees with width_bucket
SELECT gpu_histogram(x, -1e307, 1e307, 8) AS h,
       gpu_histogram(x, -1e307, 1e307, 8)
       = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 9) b
          LEFT JOIN (SELECT width_bucket(x, -1e307, 1e307, 8) b, count(*) c
                     FROM (VALUES (-1e307::float8), (0), (0.99e307), (0.9999999999999999e307), (1e307)) v(x)
                     GROUP BY 1) w USING (b)) AS same
FROM (VALUES (-1e307::float8), (0), (0.99e307), (0.9999999999999999e307), (1e307)) v(x);
SELECT try_sql('SELECT gpu_histogram(1, 0, 1.7976931348623157e308, 1)');

-- More than 10,000,000 buckets (width_bucket has no such limit).
SELECT width_bucket(0.5::float8, 0, 1, 10000001);
SELECT try_sql('SELECT gpu_histogram(0.5, 0, 1, 10000001)');
SELECT try_sql('SELECT gpu_histogram(0.5, 0, 1, 2147483647)');
\set VERBOSITY sqlstate
SELECT gpu_histogram(0.5, 0, 1, 10000001);
\set VERBOSITY default
SELECT gpu_histogram(0.5, 0, 1, 10000001);

-- lo, hi or nbins changing between the rows of a group: 22023.
SELECT try_sql($$SELECT gpu_histogram(x, lo, 1, 10) FROM (VALUES (0.5::float8, 0::float8), (0.5, 0.25)) v(x, lo)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 0, hi, 10) FROM (VALUES (0.5::float8, 1::float8), (0.5, 2)) v(x, hi)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, n) FROM (VALUES (0.5::float8, 10), (0.5, 11)) v(x, n)$$);
SELECT try_sql($$SELECT gpu_histogram(x, lo, hi, 10) FROM (VALUES (0.5::float8, 0::float8, 1::float8), (0.5, 1, 0)) v(x, lo, hi)$$);
-- after 20,000 rows
SELECT try_sql($$SELECT gpu_histogram(i, 0, CASE WHEN i < 20000 THEN 100 ELSE 101 END, 10)
                 FROM generate_series(1, 30000) i$$);
-- in one group of several
SELECT try_sql($$SELECT g, gpu_histogram(x, 0, hi, 4)
                 FROM (VALUES (1, 0.5::float8, 1::float8), (2, 0.5, 2), (2, 0.7, 3)) v(g, x, hi) GROUP BY g$$);
SELECT g, gpu_histogram(x, 0, hi, 4)   -- each group constant: fine
FROM (VALUES (1, 0.5::float8, 1::float8), (2, 0.5, 2), (2, 0.7, 2)) v(g, x, hi) GROUP BY g ORDER BY g;
-- a changed row that is invalid in itself raises width_bucket's error
SELECT try_sql($$SELECT gpu_histogram(x, 0, hi, 10) FROM (VALUES (0.5::float8, 1::float8), (0.5, 'NaN')) v(x, hi)$$);
SELECT try_sql($$SELECT gpu_histogram(x, 0, 1, n) FROM (VALUES (0.5::float8, 10), (0.5, 0)) v(x, n)$$);
SELECT try_sql($$SELECT gpu_histogram(x, lo, 1, 10) FROM (VALUES (0.5::float8, 0::float8), (0.5, 1)) v(x, lo)$$);
-- ... checked in width_bucket's order: a NaN operand before equal bounds
SELECT try_sql($$SELECT gpu_histogram(x, lo, 1, 10) FROM (VALUES (0.5::float8, 0::float8), ('NaN', 1)) v(x, lo)$$)
     = try_sql($$SELECT width_bucket('NaN'::float8, 1, 1, 10)$$) AS same_error_as_width_bucket;
-- -0 and 0 are the same bound
SELECT gpu_histogram(x, lo, 1, 2) FROM (VALUES (0::float8, '-0'::float8), (0.5, '0')) v(x, lo);
\set VERBOSITY default
SELECT gpu_histogram(x, lo, 1, 10) FROM (VALUES (0.5::float8, 0::float8), (0.5, 0.25)) v(x, lo);

-- gpu_histogram_merge: histograms of different lengths, NULL elements,
-- not one-dimensional.
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,2,3,4}')) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,NULL,3}')) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,NULL,3}'::bigint[])) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{{1,2},{3,4}}'::bigint[])) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{9223372036854775807,0,0}'::bigint[]), ('{1,0,0}')) v(h)$$);
\set VERBOSITY sqlstate
SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,2,3,4}')) v(h);
\set VERBOSITY default
SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,2,3,4}')) v(h);

-- gpu_histogram_merge: a negative count is malformed input (issue 14):
-- 22000 in the first histogram, in a later one, as the smallest bigint, and
-- where it would cancel a positive count; in a window and in a group.  (A
-- parallel worker's share: merge.sql.)  NULLs are reported first; zeros are
-- counts.
SELECT try_sql($$SELECT gpu_histogram_merge('{-5,0,3}'::bigint[])$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,-1,3}')) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{1,2,-9223372036854775808}')) v(h)$$);
SELECT try_sql($$SELECT gpu_histogram_merge(h) FROM (VALUES ('{5,0}'::bigint[]), ('{-5,0}')) v(h)$$);
SELECT try_sql($$SELECT array_agg(m)::text FROM (SELECT gpu_histogram_merge(h) OVER (ORDER BY i) AS m
                                            FROM (VALUES (1, '{1,2}'::bigint[]), (2, '{0,-2}')) v(i, h)) s$$);
SELECT try_sql($$SELECT array_agg(m)::text FROM (SELECT g, gpu_histogram_merge(h) AS m
                                            FROM (VALUES (1, '{1,2}'::bigint[]), (2, '{0,-2}')) v(g, h) GROUP BY g) s$$);
SELECT try_sql($$SELECT gpu_histogram_merge('{-1,NULL,3}'::bigint[])$$);
SELECT gpu_histogram_merge(h) FROM (VALUES ('{0,0,0}'::bigint[]), ('{0,1,0}')) v(h);
\set VERBOSITY sqlstate
SELECT gpu_histogram_merge('{-5,0,7}'::bigint[]);
\set VERBOSITY default
SELECT gpu_histogram_merge('{-5,0,7}'::bigint[]);

-- gpu_histogram_buckets: too short, NULL elements, two dimensions, and the
-- bounds errors of width_bucket.
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,NULL,3}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{{1,2,3},{4,5,6}}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', 1, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', 0, 'NaN')$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', '-Infinity', 0)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3,4,5,6,7,8,9,10,11,12}', -1e308, 1e308)$$);
-- ... and of the thresholds form: at least one element, and one more than
-- there are thresholds (messages in the singular where a count is 1)
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{{1},{2}}', '{0.5}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', '{}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', '{0.5}'::float8[])$$);
-- An empty array is no histogram: one error, 2202E, whichever function and
-- form gets it, the code with which array_agg refuses an empty array.
SELECT f, try_sql(q) FROM (VALUES
    ('merge', $$SELECT gpu_histogram_merge('{}'::bigint[])$$),
    ('merge, later row', $$SELECT gpu_histogram_merge(h) FROM (VALUES ('{1,2,3}'::bigint[]), ('{}')) v(h)$$),
    ('merge, window', $$SELECT array_agg(m)::text FROM (SELECT gpu_histogram_merge(h) OVER () AS m FROM (VALUES ('{}'::bigint[])) v(h)) s$$),
    ('buckets', $$SELECT count(*) FROM gpu_histogram_buckets('{}', 0, 1)$$),
    ('buckets, timestamptz', $$SELECT count(*) FROM gpu_histogram_buckets('{}', '2024-01-01'::timestamptz, '2024-01-02'::timestamptz)$$),
    ('buckets, date', $$SELECT count(*) FROM gpu_histogram_buckets('{}', '2024-01-01'::date, '2024-01-08'::date)$$),
    ('buckets, thresholds', $$SELECT count(*) FROM gpu_histogram_buckets('{}', '{}'::float8[])$$),
    ('array_agg', $$SELECT array_agg(a)::text FROM (VALUES ('{}'::bigint[])) v(a)$$)
) v(f, q);
\set VERBOSITY sqlstate
SELECT gpu_histogram_merge('{}'::bigint[]);
\set VERBOSITY default
SELECT gpu_histogram_merge('{}'::bigint[]);
-- An array longer than any histogram (10,000,002 elements: 10,000,000
-- buckets and the two outer ones) is refused by both functions with one
-- error, 54000 as for too many buckets or thresholds, so that a group's
-- merged state has the aggregates' bound; the longest histogram is taken.
SELECT f, try_sql(q) FROM (VALUES
    ('merge', $$SELECT array_length(gpu_histogram_merge(h), 1) FROM (SELECT array_fill(1::bigint, ARRAY[20000000]) h) s$$),
    ('merge, later row', $$SELECT array_length(gpu_histogram_merge(h), 1) FROM (VALUES ('{1,2,3}'::bigint[]), (array_fill(1::bigint, ARRAY[10000003]))) v(h)$$),
    ('merge, longest', $$SELECT array_length(m, 1) || ', last ' || m[10000002] FROM (SELECT gpu_histogram_merge(h) AS m FROM (VALUES (array_fill(1::bigint, ARRAY[10000002])), (array_fill(2::bigint, ARRAY[10000002]))) v(h)) s$$),
    ('buckets', $$SELECT count(*) FROM gpu_histogram_buckets(array_fill(1::bigint, ARRAY[10000003]), 0, 1)$$),
    ('buckets, date', $$SELECT count(*) FROM gpu_histogram_buckets(array_fill(1::bigint, ARRAY[10000003]), '2024-01-01'::date, '2024-01-08'::date)$$),
    ('buckets, thresholds', $$SELECT count(*) FROM gpu_histogram_buckets(array_fill(1::bigint, ARRAY[10000003]), '{0.5}'::float8[])$$),
    ('buckets, longest', $$SELECT count(*) FROM gpu_histogram_buckets(array_fill(1::bigint, ARRAY[10000002]), 0, 1)$$),
    ('gpu_histogram', $$SELECT gpu_histogram(0.5, 0, 1, 10000001)$$)
) v(f, q);
-- A negative count (issue 14): 22000 in every form, after the shape and
-- NULL checks and before the bounds' (equal bounds here) or thresholds'.
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,-2,3}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,-9223372036854775808}', 10, 0)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1,2,3}', '2024-01-01'::timestamptz, '2024-01-02'::timestamptz)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,2,-3}', '2024-01-01'::timestamp, '2024-01-02'::timestamp)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,-2,3}', '2024-01-01'::date, '2024-01-08'::date)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{1,-2}', '{0.5}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1}', '{}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1,2}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1,NULL,3}', 0, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1,2,3}', 1, 1)$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{-1,2}', '{{0.5}}'::float8[])$$);
SELECT try_sql($$SELECT count(*) FROM gpu_histogram_buckets('{0,0,0}', 0, 1)$$);
\set VERBOSITY sqlstate
SELECT * FROM gpu_histogram_buckets('{1,-2,3}', 0, 1);
\set VERBOSITY default
SELECT * FROM gpu_histogram_buckets('{1,-2,3}', 0, 1);
-- STRICT: a NULL argument gives no rows
SELECT count(*) FROM gpu_histogram_buckets(NULL, 0, 1);
SELECT count(*) FROM gpu_histogram_buckets('{1,2,3}', NULL, 1);
\set VERBOSITY sqlstate
SELECT * FROM gpu_histogram_buckets('{1,2}', 0, 1);
\set VERBOSITY default
SELECT * FROM gpu_histogram_buckets('{1,2}', 0, 1);

-- The session is still fine.
SELECT gpu_histogram(x, 0, 1, 2) FROM (VALUES (0.25::float8), (0.75)) v(x);

DROP TABLE err_t;
