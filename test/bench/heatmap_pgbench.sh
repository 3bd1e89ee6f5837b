#!/usr/bin/env bash
# heatmap_pgbench.sh: many sessions each running a dashboard's hourly
# heatmap at once (issue 28): pgbench, CLIENTS clients for SECONDS s, each
# transaction the New York hourly heatmap with count(*) over a 10M-row
# table, device = cpu against device = auto, against whatever PostgreSQL
# the environment points at.
#
#   bash test/bench/heatmap_pgbench.sh [SECONDS] [CLIENTS]   (default 30 s, 64 clients)
#
# Every transaction checks its whole answer (an md5 of its rows in order)
# against the ordinary plan's, computed once with gpu_histogram.scan off: a
# wrong answer divides by zero and fails the transaction.  The heatmap runs
# inside a MATERIALIZED CTE, so that the check around it leaves its plan
# (the scan) alone.  It prints tps, failures and the host's CPU time; it
# asserts nothing.  GH_PGBENCH_DEVICES (default "cpu auto") picks the runs.
set -uo pipefail
seconds=${1:-30}
clients=${2:-64}
t=ghb_heatmap_10m
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
psql_q -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" || exit 1
if [ "$(psql_q -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    psql_q -c "CREATE TABLE $t AS SELECT random() AS x, (i % 100)::int AS g,
                   timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts
               FROM generate_series(1, 10000000) i" \
           -c "VACUUM ANALYZE $t" || exit 1
fi
psql_q -o /dev/null -c "SELECT count(x) FROM $t" -c "SELECT count(x) FROM $t"
query="SELECT date_trunc('hour', ts) AS hour, count(*) AS n, gpu_histogram(x, 0, 1, 64) AS h FROM $t GROUP BY 1"
psql_q -c "DROP TABLE IF EXISTS ghb_heatmap_expected" \
       -c "SET TimeZone = 'America/New_York'" -c "SET gpu_histogram.scan = off" \
       -c "CREATE TABLE ghb_heatmap_expected AS
           WITH r AS MATERIALIZED ($query) SELECT md5(string_agg(r::text, ';' ORDER BY r.hour)) AS digest, count(*) AS groups FROM r" || exit 1
echo "== pgbench, $clients clients, $seconds s, each transaction the hourly heatmap of 10M rows ($(psql_q -c "SELECT groups FROM ghb_heatmap_expected") groups), New York"
script=$(mktemp /tmp/gh_heatmap_bench.XXXXXX.sql)
cat >"$script" <<SQL
WITH r AS MATERIALIZED ($query)
SELECT 1 / (md5(string_agg(r::text, ';' ORDER BY r.hour)) = (SELECT digest FROM ghb_heatmap_expected))::int FROM r;
SQL
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
for device in ${GH_PGBENCH_DEVICES:-cpu auto}; do
    read -r busy0 total0 < <(cpu_ticks)
    out=$(PGOPTIONS="-c gpu_histogram.device=$device -c max_parallel_workers_per_gather=0 -c TimeZone=America/New_York" \
          pgbench -n -c "$clients" -j 16 -T "$seconds" -f "$script" 2>&1)
    read -r busy1 total1 < <(cpu_ticks)
    tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1)
    done_tx=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
    failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
    aborted=$(echo "$out" | grep -c "aborted")
    busy=$(awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.0f", (t > 0 ? 100 * b / t : 0) }')
    echo "  device=$device: tps ${tps:-?}, transactions ${done_tx:-?}, failed ${failed:-0}, clients aborted $aborted, host CPU busy $busy%"
    [ "$aborted" -gt 0 ] && echo "$out" | grep -m 3 -i "error\|abort" | sed 's/^/    /'
done
rm -f "$script"
