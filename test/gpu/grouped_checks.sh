#!/usr/bin/env bash
# grouped_checks.sh: grouped custom scans binned on the GPU (issue 15, part
# 5), against whatever PostgreSQL the environment points at, with a usable
# GPU service.  run_gpu_checks.sh calls it; it can also run alone.
#
# Each query runs three ways in one session: the ordinary plan
# (gpu_histogram.scan = off, the reference), the scan with device = gpu and
# the scan with device = auto.  The answers must be equal row for row, and
# EXPLAIN ANALYZE must show the values binned on the GPU where the device
# should have taken them.  The shapes: GROUP BY a column with count(*), an
# hourly heatmap in a DST zone with two histograms, NULL values, more groups
# than the device histogram holds (the rest binned on the CPU), a memory
# bound small enough to flush the groups many times, parallel workers, and
# a partitioned table (one scan per partition, one after the other).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/three_answers.sh"
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
failures=0

psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_grp, gh_grp_parts;
CREATE TABLE gh_grp AS
SELECT CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END::float8 AS x,
       i % 100 AS g, (i * 13) % 100000 AS big,
       '2024-03-09 00:00+00'::timestamptz + i * interval '1 second' AS ts
FROM generate_series(1, 1200000) i;
VACUUM ANALYZE gh_grp;
CREATE TABLE gh_grp_parts (x float8, g int, ts timestamptz) PARTITION BY RANGE (ts);
CREATE TABLE gh_grp_parts_1 PARTITION OF gh_grp_parts FOR VALUES FROM ('2024-03-09') TO ('2024-03-12');
CREATE TABLE gh_grp_parts_2 PARTITION OF gh_grp_parts FOR VALUES FROM ('2024-03-12') TO ('2024-03-15');
CREATE TABLE gh_grp_parts_3 PARTITION OF gh_grp_parts FOR VALUES FROM ('2024-03-15') TO ('2024-03-30');
INSERT INTO gh_grp_parts SELECT x, g, ts FROM gh_grp;
VACUUM ANALYZE gh_grp_parts;
SQL

# check NAME SETTINGS QUERY: the three answers, and where the values went
check() {
    local name=$1 settings=$2 query=$3
    local out rows diff_gpu diff_auto on_gpu flushes ok=no
    out=$(gh_three_answers "SET gpu_histogram.batch_size = 65536;
$settings" "SET gpu_histogram.device = gpu;" "$query")
    rows=$(gh_field "$out" rows)
    diff_gpu=$(gh_field "$out" diff_gpu)
    diff_auto=$(gh_field "$out" diff_auto)
    on_gpu=$(gh_explain_sum "$out" "Values Binned on GPU")
    flushes=$(sed -n 's/.*Group Flushes: //p' <<<"$out" | head -1)
    [ -n "$rows" ] && [ "$rows" -gt 0 ] && [ "$diff_gpu" = 0 ] && [ "$diff_auto" = 0 ] && [ "$on_gpu" -gt 0 ] && ok=yes
    gh_verdict "$name" $ok \
        "$rows rows, gpu and auto equal the ordinary plan; $on_gpu values binned on the GPU${flushes:+, $flushes group flushes}" \
        "rows ${rows:-?}, differences gpu ${diff_gpu:-?} auto ${diff_auto:-?}, on GPU $on_gpu, scans $(grep -c "Custom Scan (GpuHistogramScan)" <<<"$out")" \
        "$out"
}

check "GROUP BY g, count(*)" "SET max_parallel_workers_per_gather = 0;" \
    "SELECT g, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_grp GROUP BY g"
check "hourly heatmap, America/New_York across the DST change, two histograms" \
    "SET max_parallel_workers_per_gather = 0; SET TimeZone = 'America/New_York';" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 64) AS h, gpu_histogram(x, 0.25, 0.75, 10) AS h2, count(x) AS n FROM gh_grp GROUP BY 1"
check "100,000 groups of 258 cells, work_mem 1GB (more than the device histogram holds)" \
    "SET max_parallel_workers_per_gather = 0; SET work_mem = '1GB';" \
    "SELECT big, gpu_histogram(x, 0, 1, 256) AS h FROM gh_grp GROUP BY big"
check "20,000 minutes in physical order, work_mem 64kB (the groups flush many times)" \
    "SET max_parallel_workers_per_gather = 0; SET work_mem = '64kB';" \
    "SELECT date_trunc('minute', ts) AS minute, gpu_histogram(x, 0, 1, 16) AS h FROM gh_grp GROUP BY 1"
check "4 workers, GROUP BY g and date_bin" \
    "SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;" \
    "SELECT g, date_bin('6 hours', ts, '2024-01-01 00:00+00') AS bin, gpu_histogram(x, 0, 1, 32) AS h FROM gh_grp GROUP BY 1, 2"
check "3 partitions, GROUP BY g, one pruned by the time range" \
    "SET max_parallel_workers_per_gather = 0;" \
    "SELECT g, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_grp_parts WHERE ts >= '2024-03-12' GROUP BY g"
check "ungrouped, count(*) beside the histogram" "SET max_parallel_workers_per_gather = 0;" \
    "SELECT gpu_histogram(x, 0, 1, 100) AS h, count(*) AS n FROM gh_grp"

# a NaN in the middle: the same ERROR as the ordinary plan, and nothing left in the service
out=$(psql -X -q -At 2>&1 <<'SQL'
SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = gpu;
CREATE TEMP TABLE nan AS SELECT CASE WHEN i = 500000 THEN 'NaN' ELSE i / 1e6 END::float8 AS x, i % 10 AS g FROM generate_series(1, 1000000) i;
VACUUM ANALYZE nan;
SELECT g, gpu_histogram(x, 0, 1, 10) FROM nan GROUP BY g;
SELECT pg_sleep(0.5);
SELECT 'held ' || device_histograms || ' ' || service_slots_in_use FROM gpu_histogram_stats();
SQL
)
if grep -q 'ERROR:.*NaN' <<<"$out" && grep -q '^held 0 0$' <<<"$out"; then
    echo "PASS: a NaN in a grouped scan on the GPU raises width_bucket's error and leaves nothing held"
else
    echo "FAIL: NaN in a grouped scan on the GPU"; echo "$out" | sed 's/^/  /'; failures=$((failures + 1))
fi

psql_q -c "DROP TABLE gh_grp, gh_grp_parts"
[ $failures -eq 0 ] && echo "grouped GPU checks: all passed" || echo "grouped GPU checks: $failures FAILED"
exit $failures
