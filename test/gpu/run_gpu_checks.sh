#!/usr/bin/env bash
# run_gpu_checks.sh: the checks that need a real GPU, against whatever
# PostgreSQL the environment points at (PGHOST/PGPORT/PGUSER), with the
# extension installed there: a GPU server, or the GPU machine after
# ../shared/gpu/pg-up.sh.  Without a usable GPU it says so and exits 0: CI
# has none, and that is not a failure.
#
#   bash test/gpu/run_gpu_checks.sh [--leak-queries N] [--no-regress] [--leak-only]
#
# --leak-only runs 2 and 3 alone (a session that ran the other checks on
# their own, with their own time limits).
#
# 1. the whole pg_regress suite with gpu_histogram.device = gpu, same expected files;
# 2. gpu_histogram_stats() shows the values went through the GPU;
# 2b. grouped scans binned on the GPU equal the ordinary plan (grouped_checks.sh);
# 2c. pages parsed by the GPU equal the ordinary plan, also under concurrent
#     writers (page_checks.sh);
# 2d. many small groups (many_groups_checks.sh); 2e. grouped and filtered
#     pages counted on the GPU equal the ordinary plan (grouped_page_checks.sh);
# 2f. pages read from the GPUs' page cache only while unchanged (page_cache_checks.sh);
# 3. N (default 1000) queries in one backend, with ERRORs mid-aggregation,
#    statement_timeout cancels, NaN values and injected fatal CUDA failures
#    in the GPU service (each one restarts it) among them, leave the
#    service's slots, device histograms and device memory, and the backend's
#    own histograms, as they were.
set -uo pipefail
cd "$(dirname "$0")/../.."
leak_queries=1000
regress=yes
checks=yes
while [ $# -gt 0 ]; do
    case $1 in
    --leak-queries) leak_queries=$2; shift 2 ;;
    --no-regress) regress=no; shift ;;
    --leak-only) regress=no checks=no; shift ;;
    *) echo "usage: $0 [--leak-queries N] [--no-regress] [--leak-only]"; exit 2 ;;
    esac
done

psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
psql_q -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" || exit 1
source test/lib/gpu_status.sh
status=$(gh_gpu_status)
if [ "$status" != "usable" ]; then
    echo "GPU checks SKIPPED: this server's backends see no usable GPU ($status)"
    exit 0
fi
psql_q -c "SELECT 'GPU: ' || name || ', ' || total_memory / 1048576 || ' MiB, compute ' || compute_capability FROM gpu_histogram_devices()"
failures=0

# 1. pg_regress with device = gpu
regress_bin=${PG_REGRESS:-$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress}
[ -x "$regress_bin" ] || regress_bin=${PG_REGRESS_DIR:-}/pg_regress
tests=$(sed -n 's/^REGRESS *= *//p' Makefile)
outdir=$(mktemp -d /tmp/gh_gpu_regress.XXXXXX); chmod 777 "$outdir"
if [ $regress = no ]; then
    echo "pg_regress suite with gpu_histogram.device=gpu: not run (--no-regress)"
elif PGOPTIONS="-c gpu_histogram.device=gpu" "$regress_bin" --inputdir=. --outputdir="$outdir" \
       --bindir="$(dirname "$(command -v psql)")" --load-extension=gpu_histogram --dbname=gh_gpu_regress $tests; then
    echo "PASS: pg_regress suite with gpu_histogram.device=gpu"
else
    echo "FAIL: pg_regress suite with gpu_histogram.device=gpu"; cat "$outdir/regression.diffs"
    cp "$outdir/regression.diffs" "${OUT:-/tmp}/gpu_regression.diffs" 2>/dev/null
    failures=$((failures + 1))
fi
psql_q -c "DROP DATABASE IF EXISTS gh_gpu_regress" >/dev/null

if [ $checks = yes ]; then
    # 2b. grouped scans on the GPU
    if bash test/gpu/grouped_checks.sh; then :; else failures=$((failures + 1)); fi

    # 2c. pages parsed on the GPU: layouts, and MVCC under concurrent writers
    if bash test/gpu/page_checks.sh; then :; else failures=$((failures + 1)); fi

    # 2d. hundreds of thousands of small groups: no slower than twice the CPU
    if bash test/gpu/many_groups_checks.sh; then :; else failures=$((failures + 1)); fi
    # 2e. grouped and filtered pages parsed, grouped and counted on the GPU
    if bash test/gpu/grouped_page_checks.sh; then :; else failures=$((failures + 1)); fi
    # 2f. pages kept in the GPUs' page cache: hits only while a page is unchanged
    if bash test/gpu/page_cache_checks.sh; then :; else failures=$((failures + 1)); fi
fi

# 2 and 3 run in one backend: stats, then the leak loop
# x is numeric (the aggregate path); xf is float8, which the custom scan reads
# straight from the pages; gh_leak_nan has one NaN in the middle; gh_leak_pages
# is all-visible with nothing but fixed-width columns, so the GPU parses its pages.
psql_q -c "DROP TABLE IF EXISTS gh_leak, gh_leak_nan, gh_leak_pages; CREATE TABLE gh_leak AS SELECT (i % 1000) / 1000.0 AS x, ((i % 1000) / 1000.0)::float8 AS xf, i, i % 100 AS g FROM generate_series(1, 300000) i" \
       -c "VACUUM ANALYZE gh_leak" \
       -c "CREATE TABLE gh_leak_nan AS SELECT CASE WHEN i = 200000 THEN 'NaN' ELSE i / 300000.0 END::float8 AS xf FROM generate_series(1, 300000) i" \
       -c "VACUUM ANALYZE gh_leak_nan" \
       -c "CREATE TABLE gh_leak_pages AS SELECT ((i % 1000) / 1000.0)::float8 AS xf, i FROM generate_series(1, 600000) i" \
       -c "VACUUM ANALYZE gh_leak_pages"
sql=$(mktemp /tmp/gh_leak.XXXXXX.sql)
{
    echo "SET gpu_histogram.device = gpu; SET gpu_histogram.batch_size = 16384; SET max_parallel_workers_per_gather = 0;"
    echo "SELECT gpu_histogram(x, 0, 1, 256) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 257) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 256) b, count(*) c FROM gh_leak GROUP BY 1) w USING (b)) AS gpu_matches_width_bucket FROM gh_leak;"
    echo "SELECT values_gpu >= 300000 AND gpu_batches >= 18 AS values_went_through_gpu FROM gpu_histogram_stats();"
    # The baseline is a freshly started service that has run every kind of query of the loop
    # once: a CUDA context keeps what its kernels made it grow (local memory for the suite's
    # largest histograms, 64 MiB measured on the H100), and the loop's service is restarted anyway.
    echo "SET gpu_histogram.debug_fail_cuda_call = 1; SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM gh_leak; RESET gpu_histogram.debug_fail_cuda_call;"
    for _ in 1 2 3; do echo "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM gh_leak;"; echo "SELECT count(*) FROM (SELECT i % 100, gpu_histogram(x, 0, 1, 64) FROM gh_leak GROUP BY 1) s;"; echo "SELECT sum(cardinality(h)) FROM (SELECT g, gpu_histogram(xf, 0, 1, 1000) h FROM gh_leak GROUP BY g) s;"; done
    echo "SELECT gpu_histogram(xf, 0, 1, 256) IS NOT NULL FROM gh_leak; SELECT gpu_histogram(x, '{0.1,0.2,0.5,0.9}'::float8[]) IS NOT NULL FROM gh_leak;"
    echo "SELECT gpu_histogram(xf, 0, 1, 256) IS NOT NULL FROM gh_leak_pages;"
    echo "SELECT gpu_histogram(xf, 0, 1, 256) IS NOT NULL FROM gh_leak_pages WHERE i IN (1, 2, 3, 500000);"
    echo "SELECT count(*) FROM (SELECT i % 10, gpu_histogram(xf, 0, 1, 64) FROM gh_leak_pages WHERE i NOT IN (5, 6, 7) GROUP BY 1) s;"
    echo "SELECT gpu_histogram('2024-01-01'::timestamptz + i * interval '1 second', '2024-01-01', '2024-01-05', 1440) IS NOT NULL FROM gh_leak;"
    # the service trims its memory pools and reads free memory after a second idle
    echo "SELECT pg_sleep(1.5); SELECT 'before', device_histograms, service_slots_in_use, service_device_histograms, service_device_bytes, (SELECT string_agg(free_memory::text, ',' ORDER BY ordinal) FROM gpu_histogram_devices()) FROM gpu_histogram_stats();"
    for ((q = 0; q < leak_queries; q++)); do
        kind=$((q % 17))
        # an injected failure restarts the service (about half a second): one cycle in four injects
        if [ $((q % 60)) -ge 15 ] && { [ $kind = 4 ] || [ $kind = 9 ] || [ $kind = 10 ] || [ $kind = 14 ] || [ $kind = 16 ]; }; then kind=0; fi
        case $kind in
        0) echo "SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM gh_leak;" ;;
        1) echo "SELECT gpu_histogram(x / (CASE WHEN i = 250000 THEN 0 ELSE 1 END), 0, 1, 256) FROM gh_leak;" ;;
        2) echo "SET statement_timeout = '3ms'; SELECT gpu_histogram(x, 0, 1, 1000) IS NOT NULL FROM gh_leak; RESET statement_timeout;" ;;
        3) echo "SELECT gpu_histogram(CASE WHEN i = 200000 THEN 'NaN'::float8 ELSE x END, 0, 1, 256) FROM gh_leak;" ;;
        4) echo "SET gpu_histogram.debug_fail_cuda_call = $((q % 17 + 1)); SELECT gpu_histogram(x, 0, 1, 256) IS NOT NULL FROM gh_leak; RESET gpu_histogram.debug_fail_cuda_call;" ;;
        5) echo "SELECT count(*) FROM (SELECT i % 100, gpu_histogram(x, 0, 1, 64) FROM gh_leak GROUP BY 1) s;" ;;
        # the custom scan: an error in its WHERE clause mid-scan, a NaN, a cancel, a CUDA failure
        6) echo "SELECT gpu_histogram(xf, 0, 1, 256) FROM gh_leak WHERE 1 / (i - 250000) > -2;" ;;
        7) echo "SELECT gpu_histogram(xf, 0, 1, 256) FROM gh_leak_nan;" ;;
        8) echo "SET statement_timeout = '3ms'; SELECT gpu_histogram(xf, 0, 1, 1000) IS NOT NULL FROM gh_leak; RESET statement_timeout;" ;;
        9) echo "SET gpu_histogram.debug_fail_cuda_call = $((q % 17 + 1)); SELECT gpu_histogram(xf, 0, 1, 256) IS NOT NULL FROM gh_leak; RESET gpu_histogram.debug_fail_cuda_call;" ;;
        # the time and threshold forms: an injected CUDA failure, a division by zero mid-scan
        10) echo "SET gpu_histogram.debug_fail_cuda_call = $((q % 19 + 1)); SELECT gpu_histogram(x, '{0.1,0.2,0.5,0.9}'::float8[]) IS NOT NULL FROM gh_leak; RESET gpu_histogram.debug_fail_cuda_call;" ;;
        11) echo "SELECT gpu_histogram('2024-01-01'::timestamptz + i * interval '1 second' / (CASE WHEN i = 250000 THEN 0 ELSE 1 END), '2024-01-01', '2024-01-05', 1440) FROM gh_leak;" ;;
        # the grouped scan on the GPU: an error mid-scan, a cancel, a CUDA failure
        12) echo "SELECT sum(cardinality(h)) FROM (SELECT g, gpu_histogram(xf, 0, 1, 256) h FROM gh_leak WHERE 1 / (i - 250000) > -2 GROUP BY g) s;" ;;
        13) echo "SET statement_timeout = '3ms'; SELECT sum(cardinality(h)) FROM (SELECT g, gpu_histogram(xf, 0, 1, 1000) h FROM gh_leak GROUP BY g) s; RESET statement_timeout;" ;;
        14) echo "SET gpu_histogram.debug_fail_cuda_call = $((q % 13 + 1)); SELECT sum(cardinality(h)) FROM (SELECT g, gpu_histogram(xf, 0, 1, 256) h FROM gh_leak GROUP BY g) s; RESET gpu_histogram.debug_fail_cuda_call;" ;;
        # pages parsed on the GPU: a cancel while pages are pinned and in flight, a CUDA failure
        15) echo "SET statement_timeout = '2ms'; SELECT gpu_histogram(xf, 0, 1, 1000) IS NOT NULL FROM gh_leak_pages; RESET statement_timeout;" ;;
        16) echo "SET gpu_histogram.debug_fail_cuda_call = $((q % 11 + 1)); SELECT gpu_histogram(xf, 0, 1, 256) IS NOT NULL FROM gh_leak_pages; RESET gpu_histogram.debug_fail_cuda_call;" ;;
        esac
    done
    echo "SELECT pg_sleep(1.5); SELECT 'after', device_histograms, service_slots_in_use, service_device_histograms, service_device_bytes, (SELECT string_agg(free_memory::text, ',' ORDER BY ordinal) FROM gpu_histogram_devices()) FROM gpu_histogram_stats();"
    # each subquery plans alone: the numeric one through the aggregate, the float8 one through the scan
    echo "SELECT (SELECT gpu_histogram(x, 0, 1, 256) FROM gh_leak) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 257) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 256) b, count(*) c FROM gh_leak GROUP BY 1) w USING (b)) AND (SELECT gpu_histogram(xf, 0, 1, 256) FROM gh_leak) = (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 257) b LEFT JOIN (SELECT width_bucket(xf, 0, 1, 256) b, count(*) c FROM gh_leak GROUP BY 1) w USING (b)) AS still_correct;"
} >"$sql"
out=$(psql -X -q -At -F ' ' -f "$sql" 2>"$sql.err")
errors=$(grep -c ERROR "$sql.err")
echo "$out" | grep -v '^t$\|^[0-9]*$\|^$' | sed 's/^/  /'
[ "$(echo "$out" | sed -n 1p)" = t ] && echo "PASS: device=gpu matches width_bucket" || { echo "FAIL: device=gpu result differs"; failures=$((failures + 1)); }
[ "$(echo "$out" | sed -n 2p)" = t ] && echo "PASS: gpu_histogram_stats() shows the values went through the GPU" || { echo "FAIL: stats"; failures=$((failures + 1)); }
before=$(echo "$out" | sed -n 's/^before //p'); after=$(echo "$out" | sed -n 's/^after //p')
echo "  $leak_queries queries, $errors of them ended in an ERROR (division by zero, cancel, NaN, injected CUDA failure; aggregate and custom scan)"
echo "  backend's device histograms, service slots in use, service device histograms, service device bytes, device free bytes: before [$before] after [$after]"
psql_q -c "SELECT 'service: ' || service_state || ', pid ' || service_pid || ', started ' || service_starts || ' times' FROM gpu_histogram_stats()"
if [ -n "$before" ] && [ "$before" = "$after" ] && [ "$(echo "$out" | tail -1)" = t ]; then
    echo "PASS: nothing leaked, and the backend still answers correctly"
else
    echo "FAIL: leak check"; head -20 "$sql.err"; failures=$((failures + 1))
fi
sort "$sql.err" | sed 's/ \(at character\|LINE\).*//' | sort | uniq -c | sort -rn | head -8 | sed 's/^/  /'
rm -f "$sql" "$sql.err"
psql_q -c "DROP TABLE gh_leak, gh_leak_nan, gh_leak_pages"
[ $failures -eq 0 ] && echo "GPU checks: all passed" || echo "GPU checks: $failures FAILED"
exit $failures
