#!/usr/bin/env bash
# setup_and_demo.sh: installs what is missing, builds and installs
# gpu_histogram, then shows it at work on a throwaway server.
#
#   bash test/setup_and_demo.sh        # PostgreSQL 15, Debian 12's own
#   bash test/setup_and_demo.sh 18     # 17 or 18: built from source once
#
# Safe to run again: it installs only missing packages, rebuilds only what
# changed, and every run uses a fresh server that is removed at the end.
# Run as root (or as a user with sudo): apt-get and `make install` need it.
# The server itself runs as an unprivileged user (see pg_temp_server.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# = 0 ] || GH_PG_MAJOR=$1
source test/lib/prepare.sh

gh_prepare
# shellcheck disable=SC2119  # no postgres options: the defaults
gh_start_server

gh_step "demo"
# UTF8 so that psql measures the bar characters' width right in any locale.
PGCLIENTENCODING=UTF8 psql -X -q -v ON_ERROR_STOP=1 --pset=footer=off <<'SQL'
CREATE EXTENSION gpu_histogram;

\echo
\echo '-- 1,000,000 rows: two overlapping normal distributions (60% around 30, 40% around 70)'
SELECT setseed(0.42) \g /dev/null
CREATE TABLE demo AS
SELECT CASE WHEN random() < 0.6
            THEN 30 + 8 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
            ELSE 70 + 6 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
       END AS x
FROM generate_series(1, 1000000);
ANALYZE demo;

\echo
\echo '-- the whole histogram in one aggregate: 20 buckets over [0, 100),'
\echo '-- plus one element for x < 0 (first) and one for x >= 100 (last)'
\echo 'SELECT gpu_histogram(x, 0, 100, 20) FROM demo;'
SELECT gpu_histogram(x, 0, 100, 20) FROM demo;

\echo
\echo '-- its plan: a custom scan that reads the pages of the table itself (gpu_histogram.scan)'
EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 100, 20) FROM demo;

\echo
\echo '-- the same histogram, one row per bucket (gpu_histogram_buckets), drawn'
WITH h AS (SELECT gpu_histogram(x, 0, 100, 20) AS hist FROM demo)
SELECT b.bucket,
       format('[%s, %s)', b.lower::real, b.upper::real) AS range,  -- rounded for display
       b.count,
       repeat('█', round(60.0 * b.count / max(b.count) OVER ())::int) AS bar
FROM h, gpu_histogram_buckets(h.hist, 0, 100) AS b
ORDER BY b.bucket;

\echo
\echo '-- what it replaces: width_bucket and GROUP BY, one row per non-empty bucket;'
\echo '-- with the missing buckets filled in as 0 the two agree element for element'
WITH ours AS (
    SELECT gpu_histogram(x, 0, 100, 20) AS hist FROM demo
), grouped AS (
    SELECT width_bucket(x, 0, 100, 20) AS bucket, count(*) AS n FROM demo GROUP BY 1
)
SELECT (SELECT hist FROM ours) =
       (SELECT array_agg(coalesce(g.n, 0) ORDER BY b)
        FROM generate_series(0, 21) AS b LEFT JOIN grouped AS g ON g.bucket = b)
       AS same_as_width_bucket_group_by;

\echo
\echo '-- the GPUs this backend sees (without one: a single row saying why)'
SELECT * FROM gpu_histogram_devices();

\echo
\echo '-- where this backend binned its values (parallel workers count theirs in their own backends)'
\x on
SELECT * FROM gpu_histogram_stats();
\x off
SQL

pg_temp_stop
trap - EXIT
gh_step "done: the demo server is stopped and removed; run the tests with: bash test/run_all_tests.sh"
