#!/usr/bin/env bash
# additions_bench.sh: what a dashboard adds to a fast query, beside the
# query without it, side by side in one session: a GROUP BY key that is an
# expression of an int column (g % 10, g::text, a CASE over g) beside the
# column itself, the mean line (avg and max beside the hourly heatmap)
# beside count(*), and a Grafana text variable (`host IN (...)`) beside an
# integer clause.
#
#   bash test/bench/additions_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# Such a key is evaluated once for each value a row holds and then looked
# up (extension/scan/keys/value_key.cpp); the neighbour, GROUP BY g, is a
# plain column, which the scan has always computed itself.  avg and max
# are the scan's own (scan/grouped/table/value_aggs.h), serial and on the
# host's pages, since a float sum is taken in the rows' order.  The table has
# a text column before its values, as users' tables do: (ts timestamptz,
# host text, g int, x float8), g in 0 .. 99.  Serial, prewarmed, TimeZone
# UTC; the warm-up round also fills the keys' values for the rounds after
# it, as a dashboard's earlier refresh does.  GH_CONFIGS lists
# device:workers pairs (default cpu:0; the GPU host runs "gpu:0 cpu:0").
# GH_USE_EXISTING=1 uses the server PGHOST and PGPORT name and keeps its
# table for the next run.  It prints; it does not assert.
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
t=ghb_additions_$rows
source test/lib/gpu_batches.sh
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" \
        -c "CREATE TABLE $t AS SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts,
                'host-' || (i * 7 % 1000) AS host, (i * 13 % 100)::int AS g, random() AS x
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" >/dev/null
echo "table size: $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))")"
week="ts >= '2026-02-01 00:00:00+00' AND ts < '2026-02-08 00:00:00+00'"
shapes=(
    "count(x)|SELECT count(x) FROM $t"
    "GROUP BY g|SELECT g, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "GROUP BY g % 10|SELECT g % 10, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "GROUP BY g::text|SELECT g::text, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "GROUP BY CASE over g|SELECT CASE WHEN g < 50 THEN 'low' ELSE 'high' END, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "g and hour, a week|SELECT g, date_trunc('hour', ts), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $week GROUP BY 1, 2"
    "g % 10 and hour, a week|SELECT g % 10, date_trunc('hour', ts), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $week GROUP BY 1, 2"
    "15 min, a week, g below 4|SELECT floor(extract(epoch FROM ts) / 900) * 900, gpu_histogram(x, 0, 1, 64) FROM $t WHERE $week AND g <= 3 GROUP BY 1"
    "15 min, a week, host IN|SELECT floor(extract(epoch FROM ts) / 900) * 900, gpu_histogram(x, 0, 1, 64) FROM $t WHERE $week AND host IN ('host-1', 'host-2', 'host-3') GROUP BY 1"
    "histogram, one host|SELECT gpu_histogram(x, 0, 1, 64) FROM $t WHERE host = 'host-7'"
    "heatmap, count(*)|SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "heatmap, avg and max|SELECT date_trunc('hour', ts), avg(x), max(x), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
)
queries=()
for s in "${shapes[@]}"; do
    queries+=("${s%%|*}=${s#*|}")
done
for config in $configs; do
    device=${config%:*}
    workers=${config#*:}
    echo "== device = $device, max_parallel_workers_per_gather = $workers"
    before=$(gpu_batches)
    python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 \
        --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET gpu_histogram.device = $device" \
        --setup "SET jit = off" --setup "SET TimeZone = 'UTC'" "${queries[@]}"
    echo "  $(gpu_batches_since "$before")"
    # where each query's pages were parsed: EXPLAIN ANALYZE after one run in the same session (which
    # meets a key's values, as the timed rounds' warm-up does)
    for s in "${shapes[@]:1}"; do
        printf '  %-26s ' "${s%%|*}"
        psql -X -At -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = $device" \
            -c "SET jit = off" -c "SET TimeZone = 'UTC'" -c "CREATE TEMP TABLE w AS ${s#*|}" \
            -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${s#*|}" |
            grep -E "Pages Parsed on GPU|Pages Left|Values Binned on CPU|Key Computation" | tr '\n' ' ' | sed 's/  */ /g'
        echo
    done
done
