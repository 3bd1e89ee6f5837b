#!/usr/bin/env bash
# heatmap_demo.sh: the README's latency heatmap, drawn from a real query.
#
#   bash test/bench/heatmap_demo.sh [OUT.png]     (default docs/latency-heatmap.png)
#
# Uses the server that PGHOST/PGPORT/PGUSER name (with gpu_histogram
# installed): creates a table of 1,000,000 requests over six hours
# (deterministic: setseed), runs the README's query, one histogram of
# latencies per 5 minutes, and draws it with heatmap_png.py.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$ROOT/docs/latency-heatmap.png}
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION IF NOT EXISTS gpu_histogram;
DROP TABLE IF EXISTS requests;
SELECT setseed(0.3);
-- a slow wave over two hours, a log-normal spread, a 3 % slow path near
-- 700 ms, and an incident from 02:00 to 02:30 that makes everything 4x slower
CREATE TABLE requests AS
SELECT ts, CASE WHEN random() < 0.03 THEN 600 + 200 * random()
                ELSE (60 + 40 * sin(2 * pi() * t / 7200)) * exp(0.6 * z)
                     * CASE WHEN t BETWEEN 7200 AND 9000 THEN 4 ELSE 1 END END AS latency
FROM (SELECT '2024-01-01 00:00:00+00'::timestamptz + t * interval '1 second' AS ts, t,
             sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS z
      FROM (SELECT i * 0.0216 AS t FROM generate_series(0, 999999) i) s) s;
SQL
psql -X -At -F '|' -v ON_ERROR_STOP=1 -c "
SELECT date_bin('5 min', ts, '2024-01-01 00:00:00+00'), gpu_histogram(latency, 0, 1000, 50)
FROM requests GROUP BY 1 ORDER BY 1" | python3 "$ROOT/test/bench/heatmap_png.py" "$OUT" --lo 0 --hi 1000 --tick-rows 10 --tick-cols 12
