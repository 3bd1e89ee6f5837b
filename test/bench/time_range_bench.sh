#!/usr/bin/env bash
# time_range_bench.sh: a dashboard's time range, side by side in one session.
#
#   bash test/bench/time_range_bench.sh [ROWS]     (default 10,000,000)
#
# The table of issue 15's measurements: x float8 in [0,1), g int (100
# values), ts timestamptz one row a second (ROWS seconds: 16 weeks at 10M).
# Serial, device = cpu, prewarmed; every time is a median over interleaved
# rounds (sql_timing.py), and the ratios are to count(x) over the whole table,
# the cost of just reading the column.  The range is two weeks of the 16:
#   - the custom scan with the range as constants, and as a stable expression
#     (timestamptz - interval), both evaluated natively;
#   - the custom scan with the same range as timestamp values, which compare
#     across types and so are left to the executor, as every time range was
#     before the scan evaluated them itself;
#   - the aggregate over the ordinary plan, and GROUP BY width_bucket.
# It prints; it does not assert (speed is shown by ratios, not timed tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000}
source test/lib/prepare.sh
gh_find_pg_config
gh_check_pg_config >/dev/null
set --
# shellcheck source=../pg_temp_server.sh
source test/pg_temp_server.sh -c shared_buffers=2GB || exit 1
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION gpu_histogram" -c "CREATE EXTENSION pg_prewarm" \
    -c "CREATE TABLE t AS SELECT random() AS x, (i % 100)::int AS g,
            timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts
        FROM generate_series(1, $rows) i" \
    -c "VACUUM ANALYZE t" -c "SELECT pg_prewarm('t')" >/dev/null
range="ts >= '2026-02-01 00:00:00+00' AND ts < '2026-02-15 00:00:00+00'"
on="SET gpu_histogram.scan = on;"
off="SET gpu_histogram.scan = off;"
python3 test/bench/sql_timing.py --rounds 7 --warmup 1 \
    --setup "SET max_parallel_workers_per_gather = 0" --setup "SET gpu_histogram.device = cpu" --setup "SET jit = off" \
    "count(x), whole table=$on SELECT count(x) FROM t" \
    "scan, whole table=$on SELECT gpu_histogram(x, 0, 1, 64) FROM t" \
    "scan, 2 weeks, constants (native)=$on SELECT gpu_histogram(x, 0, 1, 64) FROM t WHERE $range" \
    "scan, 2 weeks, now()-style expression (native)=$on SELECT gpu_histogram(x, 0, 1, 64) FROM t
        WHERE ts >= timestamptz '2026-02-15 00:00:00+00' - interval '2 weeks' AND ts < timestamptz '2026-02-15 00:00:00+00'" \
    "scan, 2 weeks, timestamp values (executor)=$on SELECT gpu_histogram(x, 0, 1, 64) FROM t
        WHERE ts >= timestamp '2026-02-01 00:00:00' AND ts < timestamp '2026-02-15 00:00:00'" \
    "ordinary plan, 2 weeks=$off SELECT gpu_histogram(x, 0, 1, 64) FROM t WHERE $range" \
    "GROUP BY width_bucket, 2 weeks=$off SELECT width_bucket(x, 0, 1, 64), count(*) FROM t WHERE $range GROUP BY 1"
pg_temp_stop
trap - EXIT
