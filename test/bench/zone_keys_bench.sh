#!/usr/bin/env bash
# zone_keys_bench.sh: the dashboard keys issue 57 found evaluated row by
# row on the host, each beside its fast neighbour, on the metrics table
# (time timestamptz, device_id text, cpu float8), side by side in one
# session:
#   - Metabase's weeks from Sunday over three months, against
#     date_trunc('week', time);
#   - Grafana's five minutes as UTC's local time over two days, against
#     the same without AT TIME ZONE;
#   - the year of the local time in a named zone, against the quarter;
#   - a business day that starts at 6 am, (time - interval '6 hours')::date,
#     against time::date;
# each also in the ordinary plan (gpu_histogram.scan = off), and count(cpu)
# for the cost of reading the column.  The rows, evenly spread from August
# 1 to November 30, 2026, cross New York's fall-back of November 1, the
# session's zone.
#
#   bash test/bench/zone_keys_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 5)
#
# Serial, prewarmed.  GH_DEVICE (default cpu) sets gpu_histogram.device;
# GH_USE_EXISTING=1 uses the server PGHOST and PGPORT name and keeps its
# table.  Then the answers of each key, the scan's against the ordinary
# plan's, as md5s.  It prints; it does not assert.
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
t=ghb_zone_keys_v2_$rows
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" \
        -c "CREATE TABLE $t AS SELECT timestamptz '2026-08-01 00:00:00+00' + i * (interval '122 days' / $rows) AS time,
                'device-' || (i * 7 % 1000) AS device_id, random() AS cpu
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" >/dev/null
echo "table: $t, $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))"), device = $device"
months="time >= '2026-08-02 00:00:00-04' AND time < '2026-11-22 00:00:00-05'"
days="time >= '2026-10-31 00:00:00-04' AND time < '2026-11-02 00:00:00-05'"
shapes=(
    "count(cpu)|SELECT count(cpu) FROM $t"
    "weeks from Monday (neighbour)|SELECT date_trunc('week', time) AS w, gpu_histogram(cpu, 0, 1, 32) FROM $t WHERE $months GROUP BY 1"
    "Metabase weeks from Sunday|SELECT date_trunc('week', time + interval '1 day') - interval '1 day' AS w, gpu_histogram(cpu, 0, 1, 32) FROM $t WHERE $months GROUP BY 1"
    "five minutes (neighbour)|SELECT to_timestamp(floor(extract(epoch FROM time) / 300) * 300) AS t, gpu_histogram(cpu, 0, 1, 32) FROM $t WHERE $days GROUP BY 1"
    "five minutes AT TIME ZONE UTC|SELECT to_timestamp(floor(extract(epoch FROM time) / 300) * 300) AT TIME ZONE 'UTC' AS t, gpu_histogram(cpu, 0, 1, 32) FROM $t WHERE $days GROUP BY 1"
    "quarter (neighbour)|SELECT date_part('quarter', time) AS q, gpu_histogram(cpu, 0, 1, 32) FROM $t GROUP BY 1"
    "year at Asia/Kolkata|SELECT date_part('year', time AT TIME ZONE 'Asia/Kolkata') AS y, gpu_histogram(cpu, 0, 1, 32) FROM $t GROUP BY 1"
    "days (neighbour)|SELECT time::date AS d, gpu_histogram(cpu, 0, 1, 32) FROM $t GROUP BY 1"
    "days from 6 am|SELECT (time - interval '6 hours')::date AS d, gpu_histogram(cpu, 0, 1, 32) FROM $t GROUP BY 1"
)
queries=()
# a query's SET stays for the next ones: each says which plan it wants
for s in "${shapes[@]}"; do queries+=("${s%%|*}=SET gpu_histogram.scan = on; ${s#*|}"); done
for s in "${shapes[2]}" "${shapes[4]}" "${shapes[6]}" "${shapes[8]}"; do
    queries+=("${s%%|*}, ordinary plan=SET gpu_histogram.scan = off; ${s#*|}")
done
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 \
    --setup "SET max_parallel_workers_per_gather = 0" --setup "SET gpu_histogram.device = $device" \
    --setup "SET jit = off" --setup "SET TimeZone = 'America/New_York'" "${queries[@]}"
# where each key's pages were parsed, and its answer against the ordinary plan's
for s in "${shapes[@]:1}"; do
    sql=${s#*|}
    printf '  %-32s ' "${s%%|*}"
    psql -X -At -c "SET max_parallel_workers_per_gather = 0" -c "SET gpu_histogram.device = $device" -c "SET jit = off" \
        -c "SET TimeZone = 'America/New_York'" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sql" |
        grep -E "Key Computation|Pages Parsed on GPU|Values Binned on CPU|Kept off" | tr '\n' ' ' | sed 's/  */ /g'
    same=$(psql -X -q -At -c "SET max_parallel_workers_per_gather = 0" -c "SET gpu_histogram.device = $device" \
        -c "SET TimeZone = 'America/New_York'" \
        -c "SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($sql) r" -c "SET gpu_histogram.scan = off" \
        -c "SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($sql) r" | sort -u | wc -l)
    [ "$same" = 1 ] && echo " same answer as the ordinary plan" || echo " ANSWERS DIFFER"
done
