#!/usr/bin/env bash
# quantiles_bench.sh: a latency dashboard's p50, p95 and p99 lines over its
# hourly heatmap, read from the heatmap's own histograms
# (gpu_histogram_quantile), beside the same heatmap with the lines from
# percentile_cont, which sorts every hour's rows; side by side in one
# session, then how far apart the two lines are, in bucket widths.
#
#   bash test/bench/quantiles_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 5)
#
# The table has a text column before its values, as users' tables do:
# (ts timestamptz, host text, latency float8), 30 days, latency
# log-normal around 55 ms with a long tail, binned in 100 buckets of 10 ms
# over [0, 1000).  Serial, device = cpu, prewarmed, TimeZone UTC.
# GH_USE_EXISTING=1 uses the server PGHOST and PGPORT name and keeps its
# table for the next run.  It prints; it does not assert.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-5}
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" || exit 1
fi
t=ghb_latency_$rows
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" \
        -c "SELECT setseed(0.5)" \
        -c "CREATE TABLE $t AS SELECT timestamptz '2026-01-01 00:00:00+00' + i * (interval '30 days' / $rows) AS ts,
                'host-' || (i * 7 % 1000) AS host,
                exp(4 + 0.8 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) AS latency
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" >/dev/null
echo "table size: $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))"), $rows rows"
hist="gpu_histogram(latency, 0, 1000, 100)"
lines="ARRAY[0.5, 0.95, 0.99]"
settings=(--setup "SET max_parallel_workers_per_gather = 0" --setup "SET gpu_histogram.device = cpu"
          --setup "SET jit = off" --setup "SET TimeZone = 'UTC'" --setup "SET work_mem = '1GB'")
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 "${settings[@]}" \
    "count(latency)=SELECT count(latency) FROM $t" \
    "heatmap alone=SELECT date_trunc('hour', ts), $hist FROM $t GROUP BY 1" \
    "heatmap + gpu_histogram_quantile lines=SELECT date_trunc('hour', ts), $hist, gpu_histogram_quantile($hist, 0, 1000, $lines) FROM $t GROUP BY 1" \
    "heatmap + percentile_cont lines=SELECT date_trunc('hour', ts), $hist, percentile_cont($lines) WITHIN GROUP (ORDER BY latency) FROM $t GROUP BY 1"
echo "== the lines, compared hour by hour (in 10 ms bucket widths)"
psql -X -c "SET max_parallel_workers_per_gather = 0" -c "SET TimeZone = 'UTC'" -c "SET work_mem = '1GB'" -c "
    WITH est AS (SELECT date_trunc('hour', ts) AS hour, $hist AS h FROM $t GROUP BY 1),
    truth AS (SELECT date_trunc('hour', ts) AS hour, percentile_cont($lines) WITHIN GROUP (ORDER BY latency) AS c
              FROM $t GROUP BY 1),
    pairs AS (SELECT k.q, t.c[k.i] AS cont, gpu_histogram_quantile(e.h, 0, 1000, k.q) AS estimate, b.lower, b.upper
              FROM est e JOIN truth t USING (hour), unnest($lines::float8[]) WITH ORDINALITY k(q, i),
                   gpu_histogram_quantile_bounds(e.h, 0, 1000, k.q) b)
    SELECT q, count(*) AS hours, round((max(abs(estimate - cont)) / 10)::numeric, 3) AS max_diff_buckets,
           round((avg(abs(estimate - cont)) / 10)::numeric, 3) AS mean_diff_buckets,
           count(*) FILTER (WHERE NOT (lower <= cont AND cont <= upper)) AS cont_outside_bounds,
           round(min(cont)::numeric, 1) AS min_line_ms, round(max(cont)::numeric, 1) AS max_line_ms
    FROM pairs GROUP BY q ORDER BY q"
