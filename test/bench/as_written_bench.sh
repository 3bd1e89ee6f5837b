#!/usr/bin/env bash
# as_written_bench.sh: WHERE clauses and GROUP BY keys as dashboards write
# them, which the scan used to leave to the executor, row by row, beside
# the neighbour the scan always computed natively, and beside the ordinary
# plan, side by side in one session: an AND inside an OR (`x BETWEEN 0.2 AND 0.4 OR x > 0.9`), a
# time column against a date (`ts >= '2026-02-01'::date`), an integer
# against a numeric literal (`g > 2.5`), IS DISTINCT FROM, business hours
# and weekdays (`extract(hour FROM ts) BETWEEN 9 AND 17`, `extract(isodow
# FROM ts) < 6`), Metabase's local date (`CAST(ts AS date) BETWEEN`), and
# Metabase's hour of the day and day of the week as keys
# (`CAST(extract(hour FROM ts) AS integer)`).
#
#   bash test/bench/as_written_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# The table is additions_bench.sh's, (ts timestamptz, host text, g int,
# x float8) with a text column before its values; GH_USE_EXISTING=1 uses
# the server PGHOST and PGPORT name and keeps the table.  Serial,
# prewarmed, TimeZone America/New_York, gpu_histogram.device from
# GH_DEVICE (default cpu).  Each query is timed with the scan and, for the
# additions, with `gpu_histogram.scan = off` (the ordinary plan) in the
# same rounds; after the timings, where each one's WHERE clause ran
# (EXPLAIN's Filter Evaluation).  It prints; it does not assert.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-7}
device=${GH_DEVICE:-cpu}
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" || exit 1
fi
t=ghb_additions_$rows
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
h="gpu_histogram(x, 0, 1, 64)"
hour="SELECT date_trunc('hour', ts), $h FROM $t"
# label|SQL; a label that ends in "(+)" is an addition, the shape before it its neighbour
shapes=(
    "count(x)|SELECT count(x) FROM $t"
    "x BETWEEN 0.2 AND 0.4|SELECT $h FROM $t WHERE x BETWEEN 0.2 AND 0.4"
    "... OR x > 0.9 (+)|SELECT $h FROM $t WHERE x BETWEEN 0.2 AND 0.4 OR x > 0.9"
    "hourly, a week of timestamptz|$hour WHERE ts >= '2026-02-01' AND ts < '2026-02-08' GROUP BY 1"
    "hourly, a week of dates (+)|$hour WHERE ts >= '2026-02-01'::date AND ts < '2026-02-08'::date GROUP BY 1"
    "g > 2|SELECT g, $h FROM $t WHERE g > 2 GROUP BY 1"
    "g > 2.5 (+)|SELECT g, $h FROM $t WHERE g > 2.5 GROUP BY 1"
    "g IS DISTINCT FROM 3 (+)|SELECT g, $h FROM $t WHERE g IS DISTINCT FROM 3 GROUP BY 1"
    "hourly|$hour GROUP BY 1"
    "hourly, hours 9 to 17 (+)|$hour WHERE extract(hour FROM ts) BETWEEN 9 AND 17 GROUP BY 1"
    "hourly, weekdays (+)|$hour WHERE extract(isodow FROM ts) < 6 GROUP BY 1"
    "hourly, local dates (+)|$hour WHERE CAST(ts AS date) BETWEEN '2026-02-01' AND '2026-02-07' GROUP BY 1"
    "host IN (three)|SELECT $h FROM $t WHERE host IN ('host-1', 'host-10', 'host-100')"
    "host LIKE (+)|SELECT $h FROM $t WHERE host LIKE 'host-1%'"
    "lower(host) equality (+)|SELECT $h FROM $t WHERE lower(host) = 'host-1'"
    "hour of the day|SELECT extract(hour FROM ts), $h FROM $t GROUP BY 1"
    "Metabase's hour of the day (+)|SELECT CAST(extract(hour FROM ts) AS integer), $h FROM $t GROUP BY 1"
    "Metabase's day of the week (+)|SELECT CAST(extract(dow FROM ts) AS integer) + 1, $h FROM $t GROUP BY 1"
)
queries=()
for s in "${shapes[@]}"; do
    queries+=("${s%%|*}=SET gpu_histogram.scan = on; ${s#*|}")
    case "${s%%|*}" in
    *"(+)") queries+=("${s%%|*} ordinary=SET gpu_histogram.scan = off; ${s#*|}") ;;
    esac
done
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --setup "SET max_parallel_workers_per_gather = 0" \
    --setup "SET gpu_histogram.device = $device" --setup "SET jit = off" \
    --setup "SET TimeZone = 'America/New_York'" --setup "SET work_mem = '256MB'" "${queries[@]}"
for s in "${shapes[@]:1}"; do
    printf '  %-32s %s\n' "${s%%|*}" "$(psql -X -q -At -c "SET TimeZone = 'America/New_York'" \
        -c "SET max_parallel_workers_per_gather = 0" -c "EXPLAIN ${s#*|}" |
        grep -E "Filter Evaluation|Key Computation" | sed 's/^ *//' | tr '\n' ' ')"
done
