#!/usr/bin/env bash
# status_bench.sh: a log table's enum status column (`level`) as a key and
# in the WHERE clause, and an IoT table's uuid device as a key, with the
# custom scan and with PostgreSQL's ordinary plan, side by side in one
# session.
#
#   bash test/bench/status_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 5)
#
# The table is the metrics table with a status and a uuid after its text
# column: (time timestamptz, device_id text, level log_level, device uuid,
# cpu float8), device the uuid of device_id's number, level one of five
# labels, the last added later with ALTER TYPE ... ADD VALUE BEFORE (a
# larger OID than its neighbours, as real enums grow).  An enum
# stores its label's OID, which the scan compares and groups as a 4-byte
# word (enums_domains.sql); before, `GROUP BY level` sent the query to
# the ordinary plan and `level IN (...)` to the executor, and so did
# `GROUP BY device` (a uuid is matched as its 16 bytes).  count(cpu) is
# the cost of reading the column; `GROUP BY device_id` a text key of the
# same table.  Serial, prewarmed, TimeZone UTC; GH_DEVICE is the scan's
# device (default cpu; the GPU host runs gpu).  GH_USE_EXISTING=1 uses the
# server PGHOST and PGPORT name and keeps the table for the next run.  It
# prints; it does not assert.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-5}
device=${GH_DEVICE:-cpu}
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" || exit 1
fi
t=ghb_status2_$rows
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" >/dev/null
    if [ "$(psql -X -At -c "SELECT to_regtype('ghb_log_level') IS NULL")" = t ]; then
        psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TYPE ghb_log_level AS ENUM ('debug', 'info', 'warn', 'error')" \
            -c "ALTER TYPE ghb_log_level ADD VALUE 'notice' BEFORE 'warn'" >/dev/null
    fi
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
        -c "CREATE TABLE $t AS SELECT timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS time,
                'device-' || (i * 7 % 1000) AS device_id,
                (ARRAY['debug', 'info', 'info', 'notice', 'warn', 'error'])[1 + (i * 13 % 6)]::ghb_log_level AS level,
                md5('device-' || (i * 7 % 1000))::uuid AS device,
                random() AS cpu
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" >/dev/null
echo "table size: $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))")"
range="time >= '2026-02-01 00:00:00+00' AND time < '2026-02-03 00:00:00+00'"
shapes=(
    "GROUP BY level|SELECT level, gpu_histogram(cpu, 0, 1, 64) FROM $t GROUP BY 1 ORDER BY 1"
    "hourly heatmap, level IN (warn, error)|SELECT date_trunc('hour', time), gpu_histogram(cpu, 0, 1, 64) FROM $t
        WHERE level IN ('warn', 'error') GROUP BY 1"
    "GROUP BY device (uuid)|SELECT device, gpu_histogram(cpu, 0, 1, 64) FROM $t GROUP BY 1"
    "Grafana 5 minutes, 2 days, level error|SELECT floor(extract(epoch FROM time) / 300) * 300 AS \"time\", gpu_histogram(cpu, 0, 1, 64)
        FROM $t WHERE $range AND level = 'error' GROUP BY 1"
)
settings=(--setup "SET max_parallel_workers_per_gather = 0" --setup "SET gpu_histogram.device = $device"
    --setup "SET jit = off" --setup "SET TimeZone = 'UTC'")
queries=("count(cpu)=SELECT count(cpu) FROM $t"
    "GROUP BY device_id (text)=SELECT device_id, gpu_histogram(cpu, 0, 1, 64) FROM $t GROUP BY 1")
for s in "${shapes[@]}"; do
    queries+=("${s%%|*}=${s#*|}")
done
echo "== the scan, device = $device"
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 "${settings[@]}" "${queries[@]}"
for s in "${shapes[@]}"; do
    printf '  %-42s ' "${s%%|*}"
    psql -X -At -c "SET max_parallel_workers_per_gather = 0" -c "SET gpu_histogram.device = $device" -c "SET jit = off" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${s#*|}" |
        grep -E "Key Computation|Filter Evaluation|Pages Parsed on GPU|Values Binned on CPU" | tr '\n' ' ' | sed 's/  */ /g'
    echo
done
# the ordinary plan: fewer rounds, it takes seconds
echo "== the ordinary plan (gpu_histogram.scan = off)"
ordinary=("count(cpu)=SELECT count(cpu) FROM $t")
for s in "${shapes[@]}"; do
    ordinary+=("${s%%|*}=${s#*|}")
done
python3 test/bench/sql_timing.py --rounds "${GH_ORDINARY_ROUNDS:-2}" --warmup 1 "${settings[@]}" \
    --setup "SET gpu_histogram.scan = off" "${ordinary[@]}"
