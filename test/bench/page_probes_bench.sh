#!/usr/bin/env bash
# page_probes_bench.sh: the scan with and without probes (gpu_histogram.page_probes), side by side.
#
#   bash test/bench/page_probes_bench.sh [ROWS] [ROUNDS]
#
# Against the server the environment points at, with a GPU and its page
# cache; the dashboards table of ROWS rows (default 100000000) must exist
# and be prewarmed (test/bench/dashboards_bench.sh makes it).  For serial
# and 8-worker plans, device = gpu, page_probes on and off: the ungrouped
# histogram, GROUP BY g, the New York heatmap and the two-week range
# (ungrouped and as a heatmap), medians in ms with the backend's CPU time,
# then EXPLAIN ANALYZE's account of the pages and each answer's md5 with
# the scan on and off.  With page_probes on, a scan of cached pages whose
# visibility map bits stayed set pins none of them (gpu/specs/page_cache.h).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-100000000}
rounds=${2:-5}
t=ghb_dash_$rows
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NOT NULL")" != t ]; then
    echo "no table $t: run test/bench/dashboards_bench.sh $rows first (GH_USE_EXISTING=1 keeps its server)" >&2
    exit 1
fi
range="ts >= '2026-02-01 00:00:00+00' AND ts < '2026-02-15 00:00:00+00'"
queries=(
    "ungrouped=SELECT gpu_histogram(x, 0, 1, 64) FROM $t"
    "GROUP BY g=SELECT g, gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY g"
    "heatmap=SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "two weeks ungrouped=SELECT gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range"
    "two weeks heatmap=SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t WHERE $range GROUP BY 1"
)
for workers in 0 8; do
    for probes in on off; do
        echo "== max_parallel_workers_per_gather = $workers, page_probes = $probes"
        python3 test/bench/sql_timing.py --rounds "$rounds" --warmup 1 --cpu \
            --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET gpu_histogram.device = gpu" \
            --setup "SET gpu_histogram.page_probes = $probes" --setup "SET jit = off" \
            --setup "SET TimeZone = 'America/New_York'" "${queries[@]}"
    done
done
for workers in 0 8; do
    echo "== EXPLAIN ANALYZE, two weeks ungrouped, max_parallel_workers_per_gather = $workers"
    psql -X -q -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = gpu" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${queries[3]#*=}" |
        grep -E "Gather|Workers|Custom Scan|Pages|Execution Time" | sed 's/^ */  /'
done
echo "== md5 of each answer, scan on / off (8 workers)"
for q in "${queries[@]}"; do
    sums=()
    for scan in on off; do
        sums+=("$(psql -X -At -c "SET max_parallel_workers_per_gather = 8" -c "SET TimeZone = 'America/New_York'" \
            -c "SET gpu_histogram.device = gpu" -c "SET gpu_histogram.scan = $scan" \
            -c "SELECT md5(string_agg(s::text, ',' ORDER BY s::text)) FROM (${q#*=}) s" | tail -n 1)")
    done
    [ "${sums[0]}" = "${sums[1]}" ] && same=equal || same=DIFFERENT
    echo "  ${q%%=*}: ${sums[0]} / ${sums[1]} ($same)"
    [ "$same" = equal ]
done
