#!/usr/bin/env bash
# pages_bench.sh: the GPU parsing heap pages (issue 13), side by side in one
# run, against whatever PostgreSQL the environment points at (a server on
# this machine: the backend's CPU time is read from /proc).
#
#   bash test/bench/pages_bench.sh [ROWS] [ROUNDS] [PGBENCH_SECONDS]
#
# Defaults: 100M rows, 5 rounds, 30 s.  A table of one float8 column,
# all-visible (VACUUM FREEZE) and read once to warm the buffer pool
# (shared_buffers must hold it), then:
#   1. serial: count(x), and gpu_histogram(x, 0, 1, 256) through the scan
#      with device = cpu, with device = gpu sending values (pages_on_gpu
#      off, the earlier path), with device = gpu sending pages, and with
#      device = auto; median time, ratio to count(x), and the backend's CPU
#      time per query;
#   2. the same with 8 workers;
#   3. pgbench, 64 clients, each transaction one histogram over a 10M-row
#      table, device = cpu against device = auto; every transaction checks
#      its answer against width_bucket's (computed once, by the ordinary
#      plan), and a wrong one fails the client.
# After each section it prints the batches each GPU took (two GPUs: both
# should have some). It prints; it asserts nothing.  Set GH_USE_EXISTING=1 to keep tables from
# an earlier run, GH_PGBENCH_CLIENTS (default 64) and GH_PGBENCH_DEVICES
# (default "cpu auto") to vary the load, GH_PAGES_SECTIONS (default
# "serial workers pgbench") to run fewer sections.
set -uo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-100000000}
rounds=${2:-5}
seconds=${3:-30}
export LC_ALL=C
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
source test/lib/gpu_batches.sh
t=gh_pages_$rows
small=gh_pages_10m

make_table() { # name rows
    if [ "${GH_USE_EXISTING:-0}" = 1 ] && [ "$(psql_q -c "SELECT to_regclass('$1') IS NOT NULL")" = t ]; then
        return
    fi
    psql_q -c "DROP TABLE IF EXISTS $1" \
           -c "CREATE TABLE $1 (x float8) WITH (autovacuum_enabled = off)" \
           -c "INSERT INTO $1 SELECT ((i::bigint * 7919) % 1000003) / 1000003.0 FROM generate_series(1, $2) i" \
           -c "VACUUM (FREEZE, ANALYZE) $1" || exit 1
}
echo "== setup: $rows rows (and 10M for pgbench)"
# a new server's database has no extension yet; dashboards_bench.sh and run_benchmarks.sh create it alike
psql_q -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" || exit 1
make_table "$t" "$rows"
make_table "$small" 10000000
psql_q -c "ALTER TABLE $t SET (parallel_workers = 8)"
psql_q -c "SELECT 'table ' || pg_size_pretty(pg_relation_size('$t')) || ', shared_buffers ' || current_setting('shared_buffers')"
psql_q -c "SELECT 'service: ' || service_state || ', pool mapped for the GPU: ' || coalesce(current_setting('gpu_histogram.service_map_buffers', true), '?') FROM gpu_histogram_stats()"
psql_q -o /dev/null -c "SELECT count(x) FROM $t" -c "SELECT count(x) FROM $t" -c "SELECT count(x) FROM $small"

queries() {
    echo "count=SELECT count(x) FROM $t"
    echo "scan_cpu=SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t"
    echo "scan_gpu_values=SET gpu_histogram.device = gpu; SET gpu_histogram.pages_on_gpu = off; SELECT gpu_histogram(x, 0, 1, 256) FROM $t"
    echo "scan_gpu_pages=SET gpu_histogram.device = gpu; SET gpu_histogram.pages_on_gpu = on; SELECT gpu_histogram(x, 0, 1, 256) FROM $t"
    echo "scan_auto=SET gpu_histogram.device = auto; SELECT gpu_histogram(x, 0, 1, 256) FROM $t"
}
mapfile -t q < <(queries)
sections=" ${GH_PAGES_SECTIONS:-serial workers pgbench} "
clients=${GH_PGBENCH_CLIENTS:-64}
if [[ $sections == *" serial "* ]]; then
echo "== 1. serial"
before=$(gpu_batches)
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --cpu \
    --setup "SET max_parallel_workers_per_gather = 0" "${q[@]}"
echo "  $(gpu_batches_since "$before")"
fi
if [[ $sections == *" workers "* ]]; then
echo "== 2. 8 workers"
before=$(gpu_batches)
python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --cpu \
    --setup "SET max_parallel_workers_per_gather = 8" --setup "SET parallel_setup_cost = 0" \
    --setup "SET parallel_tuple_cost = 0" "${q[@]}"
echo "  $(gpu_batches_since "$before")"
psql -X -c "SET gpu_histogram.device = gpu" -c "SET max_parallel_workers_per_gather = 8" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT gpu_histogram(x, 0, 1, 256) FROM $t" |
    grep -E "Workers|Pages|Values|Execution" | sed 's/^/  /'
# where each participant's pages went (DEBUG1 of page_batches.cpp; workers' messages reach the leader's client)
psql -X -c "SET gpu_histogram.device = gpu" -c "SET max_parallel_workers_per_gather = 8" -c "SET client_min_messages = debug1" \
    -c "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM $t" 2>&1 | grep -o "batches on the GPU hold.*" | sed 's/^/  /'
fi
[[ $sections == *" pgbench "* ]] || exit 0

echo "== 3. pgbench, $clients clients, $seconds s, one 10M-row histogram per transaction"
psql_q -c "DROP TABLE IF EXISTS gh_pages_expected" \
       -c "SET gpu_histogram.scan = off" \
       -c "CREATE TABLE gh_pages_expected AS SELECT (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 257) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 256) b, count(*) c FROM $small GROUP BY 1) w USING (b))::text AS h"
script=$(mktemp /tmp/gh_pages_bench.XXXXXX.sql)
# the comparison must not wrap the histogram (that would leave the scan): fetch it, then compare
cat >"$script" <<SQL
SELECT gpu_histogram(x, 0, 1, 256) AS h FROM $small \gset
SELECT 1 / (h = ':h')::int FROM gh_pages_expected;
SQL
# the host's CPU time, busy and all, from /proc/stat
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
service_batches() { psql_q -c "SELECT coalesce(service_batches, 0) FROM gpu_histogram_stats()"; }
for device in ${GH_PGBENCH_DEVICES:-cpu auto}; do
    read -r busy0 total0 < <(cpu_ticks)
    batches0=$(service_batches)
    before=$(gpu_batches)
    # each page scan says at DEBUG1 where its batches went (extension/scan/offload/page_batches.cpp)
    out=$(PGOPTIONS="-c gpu_histogram.device=$device -c max_parallel_workers_per_gather=0 -c client_min_messages=debug1" \
          pgbench -n -c "$clients" -j 16 -T "$seconds" -f "$script" 2>&1)
    read -r busy1 total1 < <(cpu_ticks)
    batches1=$(service_batches)
    tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1)
    done_tx=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
    failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
    aborted=$(echo "$out" | grep -c "aborted")
    # where the pages went: a transaction's 10M rows make about 22 full batches of pages
    per_tx=$(awk -v b=$((batches1 - batches0)) -v t="${done_tx:-0}" 'BEGIN { printf "%.1f", (t > 0 ? b / t : 0) }')
    busy=$(awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.0f", (t > 0 ? 100 * b / t : 0) }')
    echo "  device=$device: tps ${tps:-?}, transactions ${done_tx:-?}, failed ${failed:-0}, clients aborted $aborted;" \
         "GPU batches a transaction $per_tx, host CPU busy $busy%"
    echo "    $(gpu_batches_since "$before")"
    [ "$aborted" -gt 0 ] && echo "$out" | grep -m 3 -i "error\|abort" | sed 's/^/    /'
    echo "$out" | sed -n 's/.*batches on the GPU hold \([0-9]*\) pages; \([0-9]*\) batches found the GPUs. queue full, \([0-9]*\) no lease or slot; \([0-9]*\) batched.*/\1 \2 \3 \4/p' |
        awk -v t="${done_tx:-0}" 'NF == 4 { g += $1; r += $2; n += $3; c += $4; k++ }
             END { if (k > 0 && t > 0) printf "    a transaction: %.0f pages in GPU batches, %.1f batches that found the GPUs' queue full, %.1f without a lease or slot, %.0f batched pages parsed on the CPU (%d scans)\n", g / k, r / k, n / k, c / k, k }'
done
rm -f "$script"
