#!/usr/bin/env bash
# metrics_bench.sh: the canonical metrics table, (time timestamptz,
# device_id text, cpu float8), against the same rows with the text column
# last, side by side in one session.
#
#   bash test/bench/metrics_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# Most users' tables have a text column before their values.  The page
# path walks it by its header (issue 57); this shows what that costs
# against a table where every column the scan reads has a fixed offset:
# the ungrouped histogram, the hourly heatmap, Grafana's five-minute group
# over two days and a text key, each beside count(cpu), the cost of just
# reading the column.  device_id holds 'device-0' .. 'device-999' (1-byte
# headers), and one row in 1,000 a 200-byte name (a 4-byte header).  Serial,
# prewarmed, TimeZone UTC; GH_CONFIGS lists device:workers pairs (default
# cpu:0; the GPU host runs "gpu:0 cpu:0").  GH_USE_EXISTING=1 uses the
# server PGHOST and PGPORT name and keeps its tables for the next run.
# Last, PostgreSQL's output of each answer alone (GH_OUTPUT=0 leaves it
# out).  It prints; it does not assert.
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
tm=ghb_metrics_$rows      # (time, device_id, cpu)
tl=ghb_metrics_last_$rows # (time, cpu, device_id)
source test/lib/gpu_batches.sh
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$tm') IS NOT NULL AND to_regclass('$tl') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $tm, $tl" \
        -c "CREATE TABLE $tm AS SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS time,
                CASE WHEN i % 1000 = 0 THEN repeat('a long device name ', 10) ELSE 'device-' || (i * 7 % 1000) END AS device_id,
                random() AS cpu
            FROM generate_series(1, $rows) i" \
        -c "CREATE TABLE $tl AS SELECT time, cpu, device_id FROM $tm" \
        -c "VACUUM ANALYZE $tm" -c "VACUUM ANALYZE $tl" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$tm')" -c "SELECT pg_prewarm('$tl')" >/dev/null
echo "table sizes: $(psql -X -At -c "SELECT string_agg(relname || ' ' || pg_size_pretty(pg_relation_size(oid)), ', ')
                                        FROM pg_class WHERE relname IN ('$tm', '$tl')")"
range="time >= '2026-02-01 00:00:00+00' AND time < '2026-02-03 00:00:00+00'"
shapes=(
    "count(cpu)|SELECT count(cpu) FROM TBL"
    "histogram|SELECT gpu_histogram(cpu, 0, 1, 64) FROM TBL"
    "hourly heatmap|SELECT date_trunc('hour', time), count(*), gpu_histogram(cpu, 0, 1, 64) FROM TBL GROUP BY 1"
    "Grafana 5 minutes, 2 days|SELECT floor(extract(epoch FROM time) / 300) * 300 AS \"time\", gpu_histogram(cpu, 0, 1, 64)
        FROM TBL WHERE $range GROUP BY 1"
    "GROUP BY device_id|SELECT device_id, gpu_histogram(cpu, 0, 1, 64) FROM TBL GROUP BY 1"
)
queries=()
for s in "${shapes[@]}"; do
    name=${s%%|*} sql=${s#*|}
    queries+=("$name, text first=${sql//TBL/$tm}" "$name, text last=${sql//TBL/$tl}")
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
    # where each query's pages were parsed, from one EXPLAIN ANALYZE each
    for s in "${shapes[@]:1}"; do
        for t in $tm $tl; do
            sql=${s#*|}
            printf '  %-28s %-24s ' "${s%%|*}" "$t"
            psql -X -At -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = $device" \
                -c "SET jit = off" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql//TBL/$t}" |
                grep -E "Pages Parsed on GPU|Values Binned on CPU" | tr '\n' ' ' | sed 's/  */ /g'
            echo
        done
    done
done
# PostgreSQL's output alone: each answer of the text-first table stored,
# then read back as psql reads the query's (array_out's text for the
# histograms), beside count(cpu); GH_OUTPUT=0 leaves it out.  What a
# query's time is above this is the scan's.
if [ "${GH_OUTPUT:-1}" = 1 ]; then
    stored=("count(cpu)=SELECT count(cpu) FROM $tm")
    k=0
    for s in "${shapes[@]:1}"; do
        sql=${s#*|}
        psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "SET TimeZone = 'UTC'" \
            -c "DROP TABLE IF EXISTS ${tm}_answer_$k" -c "CREATE TABLE ${tm}_answer_$k AS ${sql//TBL/$tm}" >/dev/null
        stored+=("${s%%|*}, output alone=SELECT * FROM ${tm}_answer_$k")
        k=$((k + 1))
    done
    echo "== PostgreSQL's output alone: each answer stored, then read back"
    python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --setup "SET TimeZone = 'UTC'" "${stored[@]}"
    for ((k = 0; k < ${#shapes[@]} - 1; k++)); do
        psql -X -q -c "DROP TABLE ${tm}_answer_$k" >/dev/null
    done
fi
