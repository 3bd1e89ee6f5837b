#!/usr/bin/env bash
# timescaledb_bench.sh: dashboards over a TimescaleDB hypertable, side by side
# in one session: gpu_histogram through the scan, TimescaleDB's histogram(),
# and count(x), the cost of just reading the column.
#
#   bash test/bench/timescaledb_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 5)
#
# The dashboards table of dashboards_bench.sh (x float8 in [0,1), g int of
# 100 values, ts one row a second) as a hypertable of 7-day chunks, on
# PostgreSQL 17 with TimescaleDB built from source (test/lib/timescaledb_source.sh),
# serial, device = cpu, prewarmed, TimeZone America/New_York.  Every time is
# a median over interleaved rounds (sql_timing.py); the ratios are to
# count(x).  TimescaleDB's histogram(x, lo, hi, n) returns the same layout of
# n + 2 counts but counts a NULL input as 0.0 (the table has no NULLs, so the
# answers are equal here, which the script checks).  It prints; it does not
# assert.  The last query turns the scan off for itself; the first turns it
# back on, since every round runs in the same session.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-5}
export GH_PG_MAJOR=${GH_PG_MAJOR:-17}
source test/lib/prepare.sh
gh_prepare >/dev/null
gh_timescaledb_install "$GH_PG_MAJOR"
set --
# shellcheck source=SCRIPTDIR/../pg_temp_server.sh
source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" \
    -c shared_preload_libraries=timescaledb,gpu_histogram -c timescaledb.max_background_workers=0 \
    -c timescaledb.telemetry_level=off -c max_parallel_workers_per_gather=0 || exit 1

t=tsb_dash
psql -X -q -v ON_ERROR_STOP=1 \
    -c "SET client_min_messages = warning" \
    -c "CREATE EXTENSION timescaledb" -c "CREATE EXTENSION gpu_histogram" -c "CREATE EXTENSION pg_prewarm" \
    -c "CREATE TABLE $t (ts timestamptz NOT NULL, x float8, g int)" \
    -c "SELECT create_hypertable('$t', 'ts', chunk_time_interval => interval '7 days')" \
    -c "INSERT INTO $t SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second', random(), (i % 100)::int
        FROM generate_series(1, $rows) i" \
    -c "VACUUM ANALYZE $t" >/dev/null
psql -X -q -At -c "SELECT count(*) || ' chunks, ' || pg_size_pretty(hypertable_size('$t')) FROM show_chunks('$t')"
psql -X -q -At -c "SELECT sum(pg_prewarm(c)) || ' blocks prewarmed' FROM show_chunks('$t') c"

same=$(psql -X -q -At -c "SET TimeZone = 'America/New_York'" -c "
    SELECT bool_and(h::int[] = th) FROM
      (SELECT time_bucket('1 hour', ts) b, gpu_histogram(x, 0, 1, 64) h, histogram(x, 0, 1, 64) th FROM $t GROUP BY 1) s")
echo "gpu_histogram equals histogram() per hour: $same"
psql -X -q -c "SET TimeZone = 'America/New_York'" -c "SET gpu_histogram.device = cpu" \
    -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1" |
    sed -n '1,16p;/Execution Time/p'

python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 \
    --setup "SET TimeZone = 'America/New_York'" --setup "SET gpu_histogram.device = cpu" \
    "count=SET gpu_histogram.scan = on; SELECT count(x) FROM $t" \
    "ungrouped=SELECT gpu_histogram(x, 0, 1, 64) FROM $t" \
    "ungrouped_tsdb_histogram=SELECT histogram(x, 0, 1, 64) FROM $t" \
    "time_bucket_1h=SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1" \
    "time_bucket_1h_tsdb_histogram=SELECT time_bucket('1 hour', ts), histogram(x, 0, 1, 64) FROM $t GROUP BY 1" \
    "time_bucket_1h_ny=SELECT time_bucket('1 hour', ts, 'America/New_York'), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1" \
    "time_bucket_1h_ny_tsdb_histogram=SELECT time_bucket('1 hour', ts, 'America/New_York'), histogram(x, 0, 1, 64) FROM $t GROUP BY 1" \
    "time_bucket_1d_g=SELECT time_bucket('1 day', ts), g, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1, 2" \
    "time_bucket_1d_g_tsdb_histogram=SELECT time_bucket('1 day', ts), g, histogram(x, 0, 1, 64) FROM $t GROUP BY 1, 2" \
    "two_weeks_15min=SELECT time_bucket('15 minutes', ts), gpu_histogram(x, 0, 1, 64) FROM $t
        WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1" \
    "two_weeks_15min_tsdb_histogram=SELECT time_bucket('15 minutes', ts), histogram(x, 0, 1, 64) FROM $t
        WHERE ts >= '2026-02-01' AND ts < '2026-02-15' GROUP BY 1" \
    "time_bucket_1h_scan_off=SET gpu_histogram.scan = off; SELECT time_bucket('1 hour', ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
pg_temp_stop
