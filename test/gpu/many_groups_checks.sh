#!/usr/bin/env bash
# many_groups_checks.sh: hundreds of thousands of small groups with device =
# gpu (issue 28).  run_gpu_checks.sh calls it; it can also run alone against
# whatever PostgreSQL the environment points at.
#
# 300,000 rows grouped by date_trunc('minute', ts) make 210,000 groups of
# one or two rows.  With the default work_mem the planner keeps the ordinary
# aggregate (one HistogramState per group); with a large one the custom scan
# takes the query.  Each shape runs with device = cpu, gpu and auto in one
# session, the second time also with NULL keys, NULL values and infinite
# timestamps among the rows.  Every answer must equal PostgreSQL's own
# width_bucket counts row for row, and device = gpu must take at most twice
# the time of device = cpu (it took 58 times as long, and with the NULLs
# and infinities did not finish in 240 s, before small remainders stayed on
# the CPU).
set -uo pipefail
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
failures=0

psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_many, gh_many_odd;
CREATE TABLE gh_many AS
SELECT '2024-01-01 00:00+00'::timestamptz + i * interval '42 seconds' AS ts,
       ((i::bigint * 7919) % 100003) / 100003.0::float8 AS x
FROM generate_series(1, 300000) i;
CREATE TABLE gh_many_odd AS
SELECT CASE WHEN i % 101 = 0 THEN NULL WHEN i % 997 = 0 THEN 'infinity' WHEN i % 991 = 0 THEN '-infinity'
            ELSE '2024-01-01 00:00+00'::timestamptz + i * interval '42 seconds' END AS ts,
       CASE WHEN i % 89 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0::float8 END AS x
FROM generate_series(1, 300000) i;
VACUUM ANALYZE gh_many; VACUUM ANALYZE gh_many_odd;
SQL

# check NAME TABLE WORK_MEM: device cpu, gpu and auto against width_bucket's counts, and the times
check() {
    local name=$1 table=$2 work_mem=$3
    local query="SELECT date_trunc('minute', ts) AS k, gpu_histogram(x, 0, 1, 64) AS h FROM $table GROUP BY 1"
    local out
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 2>&1 <<SQL
SET max_parallel_workers_per_gather = 0; SET work_mem = '$work_mem'; SET statement_timeout = '300s';
SET TimeZone = 'America/New_York';
CREATE TEMP TABLE r_ref AS
WITH keys AS (SELECT DISTINCT coalesce(date_trunc('minute', ts)::text, 'NULL') AS k FROM $table),
     w AS (SELECT coalesce(date_trunc('minute', ts)::text, 'NULL') AS k, width_bucket(x, 0, 1, 64) AS b, count(*) AS c
           FROM $table WHERE x IS NOT NULL GROUP BY 1, 2)
SELECT keys.k, CASE WHEN sum(coalesce(w.c, 0)) = 0 THEN NULL ELSE array_agg(coalesce(w.c, 0) ORDER BY s.b) END AS h
FROM keys CROSS JOIN generate_series(0, 65) s(b) LEFT JOIN w ON w.k = keys.k AND w.b = s.b GROUP BY keys.k;
SET gpu_histogram.device = cpu;
\timing on
CREATE TEMP TABLE r_cpu AS $query;
\timing off
SET gpu_histogram.device = gpu;
\timing on
CREATE TEMP TABLE r_gpu AS $query;
\timing off
SET gpu_histogram.device = auto;
\timing on
CREATE TEMP TABLE r_auto AS $query;
\timing off
EXPLAIN (COSTS OFF) $query;
SELECT 'rows ' || (SELECT count(*) FROM r_ref);
SELECT 'diff ' || string_agg(d::text, ' ') FROM (
  SELECT (SELECT count(*) FROM ((SELECT coalesce(k::text, 'NULL'), h FROM r_cpu EXCEPT ALL TABLE r_ref)
                                UNION ALL (TABLE r_ref EXCEPT ALL SELECT coalesce(k::text, 'NULL'), h FROM r_cpu)) a) AS d
  UNION ALL
  SELECT (SELECT count(*) FROM ((SELECT coalesce(k::text, 'NULL'), h FROM r_gpu EXCEPT ALL TABLE r_ref)
                                UNION ALL (TABLE r_ref EXCEPT ALL SELECT coalesce(k::text, 'NULL'), h FROM r_gpu)) b)
  UNION ALL
  SELECT (SELECT count(*) FROM ((SELECT coalesce(k::text, 'NULL'), h FROM r_auto EXCEPT ALL TABLE r_ref)
                                UNION ALL (TABLE r_ref EXCEPT ALL SELECT coalesce(k::text, 'NULL'), h FROM r_auto)) c)) d;
SQL
)
    local times rows diff plan cpu gpu auto
    times=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -3 | tr '\n' ' ')
    read -r _ cpu gpu auto <<<"x $times"
    rows=$(echo "$out" | sed -n 's/^rows //p')
    diff=$(echo "$out" | sed -n 's/^diff //p')
    plan=$(grep -q "Custom Scan (GpuHistogramScan)" <<<"$out" && echo "the custom scan" || echo "the ordinary aggregate")
    if [ -z "$diff" ] || [ -z "$gpu" ]; then
        echo "FAIL: $name: no answer"; echo "$out" | grep -E "ERROR|FATAL|canceling" | head -5; failures=$((failures + 1)); return
    fi
    local within
    within=$(awk -v c="$cpu" -v g="$gpu" 'BEGIN { print (g <= 2 * c || g <= 50) ? "yes" : "no" }')
    printf '  %s, through %s: %s groups; device=cpu %s ms, gpu %s ms (%sx), auto %s ms; rows differing from width_bucket (cpu gpu auto): %s\n' \
        "$name" "$plan" "$rows" "$cpu" "$gpu" "$(awk -v c="$cpu" -v g="$gpu" 'BEGIN { printf "%.2f", g / c }')" "$auto" "$diff"
    if [ "$diff" = "0 0 0" ] && [ "$within" = yes ]; then
        echo "PASS: $name"
    else
        echo "FAIL: $name"; failures=$((failures + 1))
    fi
}

check "210,000 minute groups" gh_many 4MB
check "210,000 minute groups with NULL keys, NULL values and infinities" gh_many_odd 4MB
check "210,000 minute groups, large work_mem" gh_many 1GB
check "210,000 minute groups with NULLs and infinities, large work_mem" gh_many_odd 1GB
psql_q -c "DROP TABLE IF EXISTS gh_many, gh_many_odd"
exit $((failures > 0))
