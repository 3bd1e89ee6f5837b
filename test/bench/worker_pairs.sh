#!/usr/bin/env bash
# worker_pairs.sh: each dashboard shape with no workers and with 8 allowed,
# side by side in every round of one session.
#
#   bash test/bench/worker_pairs.sh [ROWS]      (default 20,000,000)
#   GH_USE_EXISTING=1: the server in PGHOST/PGPORT, and its table w8 if there
#
# The question is whether allowing workers ever slows a query whose plan
# stays serial (pages in the GPU's cache: docs/custom-scan.md).  Timing
# each setting in a run of its own let the machine's drift between runs,
# and the count(x) over 8 workers that opened each round, look like the
# setting's cost; here both settings of a shape run back to back in each
# round (sql_timing.py), so drift hits both alike.  The table is the
# dashboards' rows (x uniform, ts one a second), device = gpu where the
# server has a GPU, auto otherwise.  It prints; it does not assert.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-20000000}
t=w8
if [ "${GH_USE_EXISTING:-0}" != 1 ]; then
    source test/lib/prepare.sh
    gh_find_pg_config
    gh_check_pg_config >/dev/null
    set --
    # shellcheck source=../pg_temp_server.sh
    source test/pg_temp_server.sh -c shared_buffers=2GB -c max_worker_processes=16 -c max_parallel_workers=16 || exit 1
fi
psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
if [ "$(psql -X -At -c "SELECT to_regclass('$t') IS NULL")" = t ]; then
    psql -X -q -v ON_ERROR_STOP=1 \
        -c "CREATE TABLE $t AS SELECT random() AS x, timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts
            FROM generate_series(1, $rows) i" \
        -c "VACUUM ANALYZE $t" -c "SELECT pg_prewarm('$t')" >/dev/null
fi
source test/lib/gpu_status.sh
device=auto
[ "$(gh_gpu_status)" = usable ] && device=gpu
shapes=(
    "heatmap=SELECT date_trunc('hour', ts), count(*), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "date_bin=SELECT date_bin('1 hour', ts, '2026-01-01'), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1"
    "minutes=SELECT date_trunc('minute', ts), gpu_histogram(x, 0, 1, 64) FROM $t WHERE ts < '2026-01-15 00:00:00+00' GROUP BY 1"
    "grafana=SELECT floor(extract(epoch FROM ts) / 60) * 60 AS t, gpu_histogram(x, 0, 1, 64) FROM $t
        WHERE ts BETWEEN '2026-02-01T00:00:00Z' AND '2026-02-03T00:00:00Z' GROUP BY 1"
    "dowhour=SELECT extract(dow FROM ts), extract(hour FROM ts), gpu_histogram(x, 0, 1, 64) FROM $t GROUP BY 1, 2"
    "thresholds=SELECT gpu_histogram(x, '{0.05,0.1,0.25,0.5,0.75,0.9,0.95,0.99}'::float8[]) FROM $t"
)
pairs=()
for s in "${shapes[@]}"; do
    pairs+=("${s%%=*} serial=SET max_parallel_workers_per_gather = 0; ${s#*=}")
    pairs+=("${s%%=*} 8 allowed=SET max_parallel_workers_per_gather = 8; ${s#*=}")
done
echo "== $rows rows, device = $device, each shape with 0 and 8 workers allowed in every round"
python3 test/bench/sql_timing.py --rounds "${GH_ROUNDS:-7}" --warmup 1 --setup "SET gpu_histogram.device = $device" \
    --setup "SET jit = off" --setup "SET TimeZone = 'America/New_York'" "${pairs[@]}"
