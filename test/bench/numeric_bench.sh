#!/usr/bin/env bash
# numeric_bench.sh: histograms of a numeric(10, 2) column against its
# float8 neighbour in the same rows, side by side in one session.
#
#   bash test/bench/numeric_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# Prices and measurements are often declared numeric(p, s).  The table is
# (time timestamptz, device_id text, price numeric(10, 2), cpu float8): a
# text column before the values, as users' tables have.  For each device of
# GH_CONFIGS (device:workers pairs, default cpu:0; the GPU host runs
# "gpu:0 cpu:0"): count(price), the cost of just reading the column; the
# histogram and the hourly heatmap of price, and the same of cpu; the
# price histogram under the ordinary plan (gpu_histogram.scan = off).  Then
# where each query's pages were parsed, from EXPLAIN ANALYZE.  Serial,
# prewarmed, TimeZone UTC.  GH_USE_EXISTING=1 uses the server PGHOST and
# PGPORT name and keeps its table for the next run.  It prints; it does not
# assert.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-7}
configs=${GH_CONFIGS:-cpu:0}
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" || exit 1
fi
t=ghb_numeric_$rows
source test/lib/gpu_batches.sh
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
        -c "CREATE TABLE $t AS SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS time,
                'device-' || (i * 7 % 1000) AS device_id, (random() * 100)::numeric(10, 2) AS price, random() AS cpu
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" >/dev/null
echo "table size: $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))")"
shapes=(
    "count(price)|SET gpu_histogram.scan = on; SELECT count(price) FROM $t"
    "histogram of price|SELECT gpu_histogram(price, 0, 100, 64) FROM $t"
    "histogram of cpu (float8)|SELECT gpu_histogram(cpu, 0, 1, 64) FROM $t"
    "hourly heatmap of price|SELECT date_trunc('hour', time), gpu_histogram(price, 0, 100, 64) FROM $t GROUP BY 1"
    "hourly heatmap of cpu|SELECT date_trunc('hour', time), gpu_histogram(cpu, 0, 1, 64) FROM $t GROUP BY 1"
    "price thresholds by device|SELECT device_id, gpu_histogram(price, '{10, 50, 90}'::float8[]) FROM $t GROUP BY 1"
)
queries=()
for s in "${shapes[@]}"; do
    queries+=("${s%%|*}=${s#*|}")
done
queries+=("histogram of price, ordinary plan=SET gpu_histogram.scan = off; SELECT gpu_histogram(price, 0, 100, 64) FROM $t")
for config in $configs; do
    device=${config%:*}
    workers=${config#*:}
    echo "== device = $device, max_parallel_workers_per_gather = $workers"
    before=$(gpu_batches)
    python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 \
        --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET gpu_histogram.device = $device" \
        --setup "SET jit = off" --setup "SET TimeZone = 'UTC'" "${queries[@]}"
    echo "  $(gpu_batches_since "$before")"
    for s in "${shapes[@]:1}"; do
        printf '  %-28s ' "${s%%|*}"
        psql -X -At -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = $device" \
            -c "SET jit = off" -c "SET TimeZone = 'UTC'" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${s#*|}" |
            grep -E "Pages Parsed on GPU|Pages Kept off|Values Binned on CPU" | tr '\n' ' ' | sed 's/  */ /g'
        echo
    done
done
