#!/usr/bin/env bash
# additions_bench.sh: what a dashboard adds to a fast query, beside the
# query without it, side by side in one session (issue 57's second and
# third tables): a GROUP BY key that is an expression of an int column
# (g % 10, g::text, a CASE over g) beside the column itself, the mean line
# (avg and max beside the hourly heatmap) beside count(*), a Grafana
# multi-value variable (`g IN (1, 2, 3)`, `host IN (...)`) beside an
# integer range, Grafana's epoch in milliseconds, to_timestamp ... AT TIME
# ZONE 'UTC', Metabase's Sunday weeks, quarter hours written by hand
# (date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute
# FROM ts) / 15)) and five minutes as a minute less its remainder beside
# Grafana's, a WHERE clause and a key on the
# time form, a key on the thresholds form and a field of a named zone,
# each beside its neighbour without the addition.
#
#   bash test/bench/additions_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# The table has a text column before its values, as users' tables do:
# (ts timestamptz, host text, g int, x float8), ts one a second from 2026,
# g in 0 .. 99.  Serial, prewarmed, TimeZone America/New_York (DST); the
# warm-up round also fills the keys' values for the rounds after it, as a
# dashboard's earlier refresh does.  GH_CONFIGS lists device:workers pairs
# (default cpu:0; the GPU host runs "gpu:0").  GH_USE_EXISTING=1 uses the
# server PGHOST and PGPORT name and keeps its table for the next run.
#
# After the timings: where each query's pages were parsed (EXPLAIN
# ANALYZE), PostgreSQL's output alone for each answer (the answer stored in
# a table and read back: what any engine's answer costs the client), and
# DuckDB's time for the same answers (GH_DUCKDB as in dashboards_bench.sh:
# auto, node, capi or off; duckdb_additions.py checks every answer of
# DuckDB's against ours, cell by cell, before it times them).  It prints;
# it does not assert.  GH_EXPLAIN=0 and GH_OUTPUT=0 leave out the EXPLAIN
# lines and the output's figures.
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
grafana_week="ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-08T00:00:00Z'"
h64="gpu_histogram(x, 0, 1, 64)"
jan="timestamptz '2026-01-01 00:00:00+00', timestamptz '2026-02-01 00:00:00+00', 744"
thresholds="'{0.05,0.1,0.25,0.5,0.75,0.9,0.95,0.99}'::float8[]"
# label|SQL; a label that ends in "(+)" is an addition, the shape before it
# its neighbour.  duckdb_additions.py has DuckDB's SQL for each label.
shapes=(
    "count(x)|SELECT count(x) FROM $t"
    "GROUP BY g|SELECT g, $h64 FROM $t GROUP BY 1"
    "GROUP BY g % 10 (+)|SELECT g % 10, $h64 FROM $t GROUP BY 1"
    "GROUP BY g::text (+)|SELECT g::text, $h64 FROM $t GROUP BY 1"
    "GROUP BY CASE over g (+)|SELECT CASE WHEN g < 50 THEN 'low' ELSE 'high' END, $h64 FROM $t GROUP BY 1"
    "hour, 30 days|SELECT date_trunc('hour', ts), $h64 FROM $t WHERE ts >= '2026-02-01 00:00:00+00' AND ts < '2026-03-03 00:00:00+00' GROUP BY 1"
    "g % 10 and hour, a week (+)|SELECT g % 10, date_trunc('hour', ts), $h64 FROM $t WHERE $week GROUP BY 1, 2"
    "g and hour, a week|SELECT g, date_trunc('hour', ts), $h64 FROM $t WHERE $week GROUP BY 1, 2"
    "15 min, a week, g below 4|SELECT floor(extract(epoch FROM ts) / 900) * 900 AS \"time\", $h64 FROM $t WHERE $grafana_week AND g <= 3 GROUP BY 1"
    "15 min, a week, g IN (1, 2, 3) (+)|SELECT floor(extract(epoch FROM ts) / 900) * 900 AS \"time\", $h64 FROM $t WHERE $grafana_week AND g IN (1, 2, 3) GROUP BY 1"
    "15 min, a week, host IN (+)|SELECT floor(extract(epoch FROM ts) / 900) * 900 AS \"time\", $h64 FROM $t WHERE $grafana_week AND host IN ('host-1', 'host-2', 'host-3') GROUP BY 1"
    "15 min, a week|SELECT floor(extract(epoch FROM ts) / 900) * 900 AS \"time\", $h64 FROM $t WHERE $grafana_week GROUP BY 1"
    "quarter hours by hand, a week (+)|SELECT date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15), $h64 FROM $t WHERE $grafana_week GROUP BY 1"
    "Grafana 5 min, 30 days|SELECT floor(extract(epoch FROM ts) / 300) * 300 AS \"time\", $h64 FROM $t WHERE ts >= '2026-02-01 00:00:00+00' AND ts < '2026-03-03 00:00:00+00' GROUP BY 1"
    "5 min as a minute less its remainder, 30 days (+)|SELECT date_trunc('minute', ts) - (extract(minute FROM ts)::int % 5) * interval '1 minute', $h64 FROM $t WHERE ts >= '2026-02-01 00:00:00+00' AND ts < '2026-03-03 00:00:00+00' GROUP BY 1"
    "histogram, one host|SELECT $h64 FROM $t WHERE host = 'host-7'"
    "Grafana 1 minute, 2 days|SELECT floor(extract(epoch FROM ts) / 60) * 60 AS \"time\", $h64 FROM $t WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-03T00:00:00Z' GROUP BY 1"
    "Grafana epoch ms, 1 minute, a day (+)|SELECT (floor(extract(epoch FROM ts) * 1000 / 60000) * 60000)::bigint AS \"time\", $h64 FROM $t WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-02T00:00:00Z' GROUP BY 1"
    "to_timestamp 5 min, 2 days|SELECT to_timestamp(floor(extract(epoch FROM ts) / 300) * 300), $h64 FROM $t WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-03T00:00:00Z' GROUP BY 1"
    "to_timestamp 5 min AT TIME ZONE 'UTC', 2 days (+)|SELECT to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AT TIME ZONE 'UTC', $h64 FROM $t WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-03T00:00:00Z' GROUP BY 1"
    "weeks, 3 months|SELECT date_trunc('week', ts), $h64 FROM $t WHERE ts >= '2026-02-01 00:00:00+00' AND ts < '2026-05-01 00:00:00+00' GROUP BY 1"
    "Metabase Sunday weeks, 3 months (+)|SELECT date_trunc('week', ts + interval '1 day') - interval '1 day', $h64 FROM $t WHERE ts >= '2026-02-01 00:00:00+00' AND ts < '2026-05-01 00:00:00+00' GROUP BY 1"
    "time form, January hourly|SELECT gpu_histogram(ts, $jan) FROM $t"
    "time form, WHERE ts < (+)|SELECT gpu_histogram(ts, $jan) FROM $t WHERE ts < '2026-01-20 00:00:00+00'"
    "time form, GROUP BY g (+)|SELECT g, gpu_histogram(ts, $jan) FROM $t GROUP BY 1"
    "thresholds, 8|SELECT gpu_histogram(x, $thresholds) FROM $t"
    "thresholds by hour of day (+)|SELECT extract(hour FROM ts), gpu_histogram(x, $thresholds) FROM $t GROUP BY 1"
    "quarter|SELECT date_part('quarter', ts), $h64 FROM $t GROUP BY 1"
    "year in Kolkata (+)|SELECT date_part('year', ts AT TIME ZONE 'Asia/Kolkata'), $h64 FROM $t GROUP BY 1"
    "heatmap, count(*)|SELECT date_trunc('hour', ts), count(*), $h64 FROM $t GROUP BY 1"
    "heatmap, avg and max (+)|SELECT date_trunc('hour', ts), avg(x), max(x), $h64 FROM $t GROUP BY 1"
)
queries=()
for s in "${shapes[@]}"; do
    queries+=("${s%%|*}=${s#*|}")
done
settings=(--setup "SET jit = off" --setup "SET TimeZone = 'America/New_York'" --setup "SET work_mem = '256MB'")
ours_dir=$(mktemp -d /tmp/ghb_additions_ours.XXXXXX)
ours=()   # duckdb_additions.py's --ours CONFIG=JSON
for config in $configs; do
    device=${config%:*}
    workers=${config#*:}
    echo "== device = $device, max_parallel_workers_per_gather = $workers"
    before=$(gpu_batches)
    ours+=(--ours "$config=$ours_dir/$config.json")
    python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --json "$ours_dir/$config.json" \
        --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET gpu_histogram.device = $device" \
        "${settings[@]}" "${queries[@]}"
    echo "  $(gpu_batches_since "$before")"
    # where each query's pages were parsed: EXPLAIN ANALYZE after one run in the same session (which
    # meets a key's values, as the timed rounds' warm-up does); GH_EXPLAIN=0 leaves it out
    for s in "${shapes[@]:1}"; do
        [ "${GH_EXPLAIN:-1}" = 1 ] || break
        printf '  %-50s ' "${s%%|*}"
        psql -X -q -At -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = $device" \
            -c "SET jit = off" -c "SET TimeZone = 'America/New_York'" -c "SET work_mem = '256MB'" \
            -c "CREATE TEMP TABLE w AS ${s#*|}" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${s#*|}" |
            grep -E "Custom Scan|Pages Parsed on GPU|Pages Left|Values Binned on CPU|Key Computation|Filter Evaluation" |
            tr '\n' ' ' | sed 's/  */ /g' | cut -c1-300
    done
done
# PostgreSQL's output alone: each answer stored in a table, then read back
# as psql reads the query's (array_out's text for the histograms); GH_OUTPUT=0
# leaves it out.
output=()
if [ "${GH_OUTPUT:-1}" = 1 ]; then
    stored=("count(x)=SELECT count(x) FROM $t")
    k=0
    for s in "${shapes[@]:1}"; do
        psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "SET TimeZone = 'America/New_York'" \
            -c "SET work_mem = '256MB'" -c "DROP TABLE IF EXISTS ${t}_answer_$k" -c "CREATE TABLE ${t}_answer_$k AS ${s#*|}" >/dev/null
        stored+=("${s%%|*}=SELECT * FROM ${t}_answer_$k")
        k=$((k + 1))
    done
    echo "== PostgreSQL's output alone: each answer stored, then read back"
    python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --json "$ours_dir/output.json" \
        --setup "SET TimeZone = 'America/New_York'" "${stored[@]}"
    for ((k = 0; k < ${#shapes[@]} - 1; k++)); do
        psql -X -q -c "DROP TABLE ${t}_answer_$k" >/dev/null
    done
    output=(--output "$ours_dir/output.json")
fi
duckdb=${GH_DUCKDB:-auto}
if [ "$duckdb" = off ]; then
    echo "DuckDB side skipped: GH_DUCKDB=off"
else
    if [ "$duckdb" != capi ] && command -v npm >/dev/null 2>&1; then
        bash test/lib/duckdb_fetch.sh || echo "fetching DuckDB from npm failed (above)"
    fi
    pg_shapes=$ours_dir/shapes.tsv
    printf '%s\n' "${shapes[@]}" >"$pg_shapes"
    python3 test/bench/duckdb_additions.py --engine "$duckdb" --table "$t" --rows "$rows" --rounds "$rounds" \
        --warmup 1 --threads "${GH_DUCKDB_THREADS:-$(nproc)}" --shapes "$pg_shapes" \
        "${output[@]}" "${ours[@]}" || duckdb_failed=$?
fi
rm -rf "$ours_dir"
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    pg_temp_stop
    trap - EXIT
fi
exit "${duckdb_failed:-0}"
