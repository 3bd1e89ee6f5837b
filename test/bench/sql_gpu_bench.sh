#!/usr/bin/env bash
# sql_gpu_bench.sh: gpu_histogram end to end on a GPU server, against the
# PostgreSQL on PATH (PGHOST etc.), side by side in one session:
#   - 100M float8 rows (ROWS=...), serial: count(x), device=gpu, device=cpu,
#     GROUP BY width_bucket;
#   - the same with 8 parallel workers, whose batches go to the GPU service
#     like the leader's (no process but the service starts CUDA).
set -euo pipefail
cd "$(dirname "$0")"
rows=${ROWS:-100000000}
workers=${WORKERS:-8}
psql -X -q -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
if [ "$(psql -X -At -c "SELECT count(*) FROM pg_class WHERE relname = 'bench_$rows'")" = 0 ]; then
    psql -X -q -c "SET max_parallel_workers_per_gather = 0" \
         -c "CREATE UNLOGGED TABLE bench_$rows AS SELECT random() AS x FROM generate_series(1, $rows)" \
         -c "VACUUM ANALYZE bench_$rows"
fi
psql -X -q -At -c "SELECT pg_prewarm('bench_$rows')" >/dev/null
t=bench_$rows
echo "table $t: $(psql -X -At -c "SELECT pg_size_pretty(pg_relation_size('$t'))")"
echo "-- serial, CUDA context already up (the first setup query starts it)"
python3 sql_timing.py --rounds 5 --warmup 1 --setup "SET jit = off" --setup "SET max_parallel_workers_per_gather = 0" \
    --setup "SET gpu_histogram.device = gpu" --setup "SELECT gpu_histogram(1.0, 0, 1, 1)" \
    "count(x)=SELECT count(x) FROM $t" \
    "gpu_histogram (gpu)=SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t" \
    "gpu_histogram (cpu)=SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t" \
    "GROUP BY width_bucket=SELECT width_bucket(x, 0, 1, 256), count(*) FROM $t GROUP BY 1"
echo "-- $workers parallel workers; each worker is a fresh process and starts CUDA"
python3 sql_timing.py --rounds 5 --warmup 1 --setup "SET jit = off" \
    --setup "SET max_parallel_workers_per_gather = $workers" --setup "SET parallel_setup_cost = 0" \
    --setup "SET min_parallel_table_scan_size = 0" --setup "ALTER TABLE $t SET (parallel_workers = $workers)" \
    "count(x)=SELECT count(x) FROM $t" \
    "gpu_histogram (gpu)=SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t" \
    "gpu_histogram (cpu)=SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t" \
    "GROUP BY width_bucket=SELECT width_bucket(x, 0, 1, 256), count(*) FROM $t GROUP BY 1"
echo "-- a fresh session's first device=gpu query against device=cpu (CUDA started once, in the GPU service)"
for mode in cpu gpu cpu gpu; do
    psql -X -q -At -c "SET gpu_histogram.device = $mode" -c "\\timing on" \
         -c "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM (SELECT x FROM $t LIMIT 2000000) s" \
         -c "SELECT 'cuda_startup_ms=' || round(coalesce(service_cuda_startup_ms, 0)::numeric, 1) FROM gpu_histogram_stats()" |
        grep -E "Time|cuda" | tr '\n' ' ' | sed "s/^/fresh session, device=$mode: /"; echo
done
echo "-- $workers workers, a session's first and second parallel query with device=gpu"
psql -X -q -c "SET max_parallel_workers_per_gather = $workers" \
     -c "SET gpu_histogram.device = gpu" -c "\\timing on" \
     -c "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM $t" \
     -c "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM $t" 2>&1 | grep -E "Time"
psql -X -q -c "SET max_parallel_workers_per_gather = $workers" -c "SET gpu_histogram.device = gpu" \
     -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT gpu_histogram(x, 0, 1, 256) FROM $t" |
    grep -E "Workers|Gather|Aggregate|Execution"
