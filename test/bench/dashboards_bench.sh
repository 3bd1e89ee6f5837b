#!/usr/bin/env bash
# dashboards_bench.sh: the query shapes of dashboards, side by side in one
# session, against count(x) and against the plain SQL for the same answer.
#
#   bash test/bench/dashboards_bench.sh [ROWS] [ROUNDS]   (default 10,000,000 and 7)
#
# Issue 15's table: x float8 in [0,1), g int (100 values), ts timestamptz
# one row a second (16 weeks at 10M rows), the same rows as 10 range
# partitions on ts, and for the text key a table of x and s text (100
# values, rows about as wide).  Serial, device = cpu, prewarmed,
# TimeZone America/New_York; every time is a median over interleaved rounds
# (sql_timing.py) and the ratios are to count(x) over the whole table, the
# cost of just reading the column.  GH_CONFIGS lists device:workers pairs to
# run the queries under (default cpu:0; the GPU host runs "cpu:0 gpu:0 cpu:8
# gpu:8"), GH_PARTITIONS=0 leaves out the partitioned copy and the shapes
# beyond GROUP BY g and the heatmap, GH_PLAIN_CONFIGS limits the plain SQL to
# the configurations it lists, GH_SHARED_BUFFERS sizes the buffer pool.
# GH_USE_EXISTING=1 uses the server PGHOST and PGPORT name (the benchmark
# command's dashboards section, the GPU host) and keeps its tables
# (ghb_dash_ROWS, ghb_dash_parts_ROWS) for the next run.  After each
# configuration it prints the batches each GPU took.  It prints; it does
# not assert.
#
# Then DuckDB, what a user would pick instead (issue 28): the same rows,
# copied from the table, the same shapes, all cores (GH_DUCKDB_THREADS),
# timed alike and printed beside ours in one table with ratios, after
# checking its bucket counts against width_bucket (test/bench/duckdb_side.py;
# a mismatch fails the run).  GH_DUCKDB=node uses @duckdb/node-api (the dev
# VM: test/lib/duckdb_fetch.sh fetches it from npm into build/duckdb/ on
# first use), capi its libduckdb.so through the C API (the GPU host, no network:
# carry the folder .duckdb, 14.3 MiB), auto (default) node where installed, else
# capi, off none; without either it says "DuckDB side skipped".  The rows
# travel as CSV files under GH_DUCKDB_TMP (default /tmp; about 5 GB at 100M
# rows), removed once loaded.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
rounds=${2:-7}
configs=${GH_CONFIGS:-cpu:0}     # device:workers, space-separated
partitions=${GH_PARTITIONS:-1}   # 0: the GROUP BY g and heatmap figures only, no partitioned copy
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers="${GH_SHARED_BUFFERS:-3GB}" -c max_worker_processes=16 \
        -c max_parallel_workers=16 || exit 1
fi
t=ghb_dash_$rows
tp=ghb_dash_parts_$rows
tt=ghb_dash_text_$rows
source test/lib/gpu_batches.sh
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL AND to_regclass('$tp') IS NOT NULL
                          AND to_regclass('$tt') IS NOT NULL")" != t ]; then
    psql -X -q -v ON_ERROR_STOP=1 -c "DROP TABLE IF EXISTS $t, $tp, $tt" \
        -c "CREATE TABLE $t AS SELECT random() AS x, (i % 100)::int AS g,
                timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts
            FROM generate_series(1, $rows) i" \
        -c "CREATE TABLE $tt AS SELECT random() AS x, 'key ' || (i * 7 % 100) AS s
            FROM generate_series(1, $rows * $partitions) i" \
        -c "CREATE TABLE $tp (LIKE $t) PARTITION BY RANGE (ts)" \
        -c "DO \$\$
            DECLARE lo timestamptz := '2026-01-01 00:00:00+00'; span interval := ($rows / 10 + 1) * interval '1 second';
            BEGIN
                FOR p IN 0 .. 9 LOOP
                    EXECUTE format('CREATE TABLE %I PARTITION OF $tp FOR VALUES FROM (%L) TO (%L)', '${tp}_' || p,
                                   CASE WHEN p = 0 THEN '-infinity' ELSE (lo + p * span)::text END,
                                   CASE WHEN p = 9 THEN 'infinity' ELSE (lo + (p + 1) * span)::text END);
                END LOOP;
            END \$\$" \
        -c "INSERT INTO $tp SELECT * FROM $t WHERE $partitions = 1" \
        -c "VACUUM ANALYZE $t" -c "VACUUM ANALYZE $tp" -c "VACUUM ANALYZE $tt" >/dev/null
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT pg_prewarm('$t')" -c "SELECT pg_prewarm('$tt')" \
    -c "SELECT pg_prewarm(c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '$tp'::regclass" \
    >/dev/null
range="ts >= '2026-02-01 00:00:00+00' AND ts < '2026-02-15 00:00:00+00'"
days=$((rows / 86400 + 1))   # the time form, daily: as duckdb_side.py's time_form_days()
on="SET gpu_histogram.scan = on;"
off="SET gpu_histogram.scan = off;"
queries=(
    "count(x)=$on SELECT count(x) FROM $t"
    "ungrouped histogram=$on SELECT gpu_histogram(x, 0, 1, 64) FROM $t"
    "GROUP BY g=$on SELECT g, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY g"
    "GROUP BY g, plain SQL=$off SELECT g, width_bucket(x, 0, 1, 64), count(*) FROM $t GROUP BY 1, 2"
    "hourly heatmap, New York=$on SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "hourly heatmap, plain SQL=$off SELECT date_trunc('hour', ts), width_bucket(x, 0, 1, 64), count(*) FROM $t GROUP BY 1, 2"
    "date_bin 1 hour=$on SELECT date_bin('1 hour', ts, timestamptz '2026-01-01 00:00:00+00'), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "date_bin 1 hour, WHERE h IS NOT NULL outside=$on SELECT * FROM (SELECT date_bin('1 hour', ts, timestamptz '2026-01-01 00:00:00+00') AS b, gpu_histogram(x, 0, 1, 64) AS h FROM $t GROUP BY 1) s WHERE h IS NOT NULL"
    "2 weeks of 16, heatmap=$on SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range GROUP BY 1"
    "2 weeks of 16, native range=$on SELECT gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range"
    # issue 47: a step beside those shapes (Grafana's macro, periodic fields, minute buckets, the other forms)
    "Grafana 1 minute, 2 days=$on SELECT floor(extract(epoch FROM ts) / 60) * 60 AS \"time\", gpu_histogram(x, 0, 1, 64)
        FROM $t WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-03T00:00:00Z' GROUP BY 1"
    "hour of day=$on SELECT extract(hour FROM ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "day of week x hour=$on SELECT extract(dow FROM ts), extract(hour FROM ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1, 2"
    "minute buckets, 2 weeks=$on SELECT date_trunc('minute', ts), gpu_histogram(x, 0, 1, 64) FROM $t
        WHERE ts < '2026-01-15 00:00:00+00' GROUP BY 1"
    "time form, daily=$on SELECT gpu_histogram(ts, timestamptz '2026-01-01 00:00:00+00',
        timestamptz '2026-01-01 00:00:00+00' + $days * interval '1 day', $days) FROM $t"
    "thresholds, 8=$on SELECT gpu_histogram(x, '{0.05,0.1,0.25,0.5,0.75,0.9,0.95,0.99}'::float8[]) FROM $t"
)
if [ "$partitions" = 1 ]; then
    queries+=(
        "GROUP BY text key=$on SELECT s, gpu_histogram(x, 0, 1, 64) FROM $tt GROUP BY s"
        "10 partitions, ungrouped=$on SELECT gpu_histogram(x, 0, 1, 64) FROM $tp"
        "10 partitions, heatmap=$on SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 64) FROM $tp GROUP BY 1"
    )
fi
ours_dir=$(mktemp -d /tmp/ghb_dash_ours.XXXXXX)
ours=()   # duckdb_side.py's --ours CONFIG=JSON
for config in $configs; do
    device=${config%:*}
    workers=${config#*:}
    echo "== device = $device, max_parallel_workers_per_gather = $workers"
    # The plain SQL runs in a session of its own, with count(x) again as its
    # baseline: its hash aggregates spill to temporary files, whose write-back
    # would otherwise land on whichever query follows it in a round.
    scan=() plain=("${queries[0]}")
    for q in "${queries[@]}"; do
        if [[ $q == *"plain SQL="* ]]; then plain+=("$q"); else scan+=("$q"); fi
    done
    before=$(gpu_batches)
    sessions=(scan)
    # the plain SQL runs no gpu_histogram: its figures are the cpu run's
    if [ "$device" = cpu ] && [[ " ${GH_PLAIN_CONFIGS:-$config} " == *" $config "* ]]; then sessions+=(plain); fi
    for session in "${sessions[@]}"; do
        if [ "$session" = scan ]; then run=("${scan[@]}"); else run=("${plain[@]}"); fi
        ours+=(--ours "$config=$ours_dir/$config.$session.json")
        python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --json "$ours_dir/$config.$session.json" \
            --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET gpu_histogram.device = $device" \
            --setup "SET jit = off" --setup "SET TimeZone = 'America/New_York'" "${run[@]}"
    done
    echo "  $(gpu_batches_since "$before")"
done
# GH_BRIN=1: the ranges again with a BRIN index on ts (created here, dropped
# after), EXPLAIN ANALYZE's account of the block ranges read, and the answers
# of the two shapes with thousands of rows stored in tables and read back:
# what PostgreSQL's output of those rows costs alone (array_out for psql's
# text; array_send with --binary), with no scan at all.
if [ "${GH_BRIN:-0}" = 1 ]; then
    for q in "${queries[@]}"; do
        case $q in
            "Grafana 1 minute, 2 days="*) grafana=${q#*=} ;;
            "minute buckets, 2 weeks="*) minutes=${q#*=} ;;
        esac
    done
    psql -X -q -v ON_ERROR_STOP=1 -c "CREATE INDEX IF NOT EXISTS ${t}_brin ON $t USING brin (ts)" -c "ANALYZE $t" \
        -c "SET TimeZone = 'America/New_York'" \
        -c "DROP TABLE IF EXISTS ${t}_answer_grafana, ${t}_answer_minutes" \
        -c "CREATE TABLE ${t}_answer_grafana AS ${grafana#"$on "}" \
        -c "CREATE TABLE ${t}_answer_minutes AS ${minutes#"$on "}" \
        -c "VACUUM ANALYZE ${t}_answer_grafana, ${t}_answer_minutes" \
        -c "SELECT pg_prewarm('${t}_answer_grafana'), pg_prewarm('${t}_answer_minutes')" >/dev/null
    brin=(
        "${queries[0]}"
        "2 weeks of 16, BRIN, ungrouped=$on SELECT gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range"
        "2 weeks of 16, BRIN, heatmap=$on SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range GROUP BY 1"
        "Grafana 1 minute, 2 days, BRIN=$grafana"
        "minute buckets, 2 weeks, BRIN=$minutes"
        "Grafana's answer, stored=SELECT * FROM ${t}_answer_grafana"
        "minute buckets' answer, stored=SELECT * FROM ${t}_answer_minutes"
    )
    for config in $configs; do
        for client in text binary; do
            echo "== BRIN index on ts, $client results: device = ${config%:*}, max_parallel_workers_per_gather = ${config#*:}"
            python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 $([ $client = binary ] && echo --binary) \
                --setup "SET max_parallel_workers_per_gather = ${config#*:}" --setup "SET gpu_histogram.device = ${config%:*}" \
                --setup "SET jit = off" --setup "SET TimeZone = 'America/New_York'" "${brin[@]}"
        done
    done
    psql -X -q -c "DROP TABLE ${t}_answer_grafana, ${t}_answer_minutes" >/dev/null
    psql -X -q -c "SET max_parallel_workers_per_gather = 0" -c "SET TimeZone = 'America/New_York'" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range GROUP BY 1" |
        grep -E "Custom Scan|Block Ranges|Pages|Execution Time" | sed 's/^ */  /'
    psql -X -q -c "DROP INDEX ${t}_brin" >/dev/null
fi
duckdb=${GH_DUCKDB:-auto}
if [ "$duckdb" = off ]; then
    echo "DuckDB side skipped: GH_DUCKDB=off"
else
    if [ "$duckdb" != capi ] && command -v npm >/dev/null 2>&1; then
        bash test/lib/duckdb_fetch.sh || echo "fetching DuckDB from npm failed (above)"
    fi
    python3 test/bench/duckdb_side.py --engine "$duckdb" --table "$t" --rows "$rows" --rounds "$rounds" \
        --warmup 1 --threads "${GH_DUCKDB_THREADS:-$(nproc)}" "${ours[@]}" || duckdb_failed=$?
fi
rm -rf "$ours_dir"
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    pg_temp_stop
    trap - EXIT
fi
exit "${duckdb_failed:-0}"
