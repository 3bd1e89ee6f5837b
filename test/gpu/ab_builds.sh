#!/usr/bin/env bash
# ab_builds.sh: two builds of the extension timed against each other on one
# server and one table, on the GPU machine, in one call.
#
#   bash test/gpu/ab_builds.sh [STAGE_A] [STAGE_B]     # default .gpu/stage-base .gpu/stage
#
# Each STAGE is a `make install DESTDIR=` tree for the PostgreSQL in
# .gpu/pg.tar.gz (test/gpu/stage_source_build.sh makes .gpu/stage; stage
# the other build the same way from another checkout and copy it beside).
# It makes the dashboards tables once (GH_AB_ROWS rows, default 100M; about
# 100 s for 100M), one per layout in GH_AB_LAYOUTS (default "text"): "text"
# is a user's table, (ts, device_id text, x, g), the text column before the
# values; "plain" is (x, g, ts), which the GPU's page kernels read today.
# Then A, B, A, B: each restarts the server with that build's library,
# fills the GPU's page cache with two scans, and for each table times the
# 8-worker heatmap (with and without its text), date_bin, GROUP BY g,
# 10-minute bins, serially the heatmap (with and without its text, also at
# work_mem 64MB) and 10-minute bins, and auto with
# test/bench/sql_timing.py (GH_AB_ROUNDS rounds, default 7), prints EXPLAIN
# ANALYZE's plan and each answer's md5, and last the ordinary plan's md5.
# GH_AB_SET=scans times instead what a scan's pages cost: the ungrouped
# histogram, GROUP BY g and the two-week range (ungrouped and as a
# heatmap), serially and with 8 workers, with the backend's CPU time, and
# the md5s of GROUP BY g and the two-week heatmap.  Log in $OUT/ab.log.
# Builds alternate because H100 hosts, and one host over a few minutes,
# differ by more than most changes measured.
set -u
BUILD_A=${1:-.gpu/stage-base}
BUILD_B=${2:-.gpu/stage}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee "$OUT/ab.log") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
id pgrun >/dev/null 2>&1 && { pkill -u pgrun postgres; for i in $(seq 30); do pgrep -u pgrun postgres >/dev/null || break; sleep 1; done; }
sysctl -w vm.nr_hugepages=13000 >/dev/null 2>&1 || true
OPTS="-c shared_buffers=24GB -c huge_pages=try -c max_worker_processes=16 -c shared_preload_libraries=gpu_histogram -c max_connections=100 -c max_parallel_workers=16 -c max_parallel_workers_per_gather=8 -c gpu_histogram.gpu_page_cache=8GB -c work_mem=4MB"
source .gpu/pg-up.sh .gpu/pg.tar.gz "$BUILD_A" -- $OPTS || exit 1
ROWS=${GH_AB_ROWS:-100000000}
LAYOUTS=${GH_AB_LAYOUTS:-text}
t0=$SECONDS
psql -X -q -c "CREATE EXTENSION gpu_histogram" -c "CREATE EXTENSION pg_prewarm" || exit 1
for layout in $LAYOUTS; do
    case $layout in
        text) cols="timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts, 'device-' || (i % 1000) AS device_id, random() AS x, (i % 100)::int AS g" ;;
        plain) cols="random() AS x, (i % 100)::int AS g, timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second' AS ts" ;;
        *) echo "unknown layout $layout" >&2; exit 2 ;;
    esac
    psql -X -q -c "CREATE TABLE ghb_ab_$layout AS SELECT $cols FROM generate_series(1, $ROWS) i" \
        -c "VACUUM (ANALYZE) ghb_ab_$layout" || exit 1
done
echo "table in $((SECONDS - t0)) s"
swap() {
    pg_down
    cp -a "$1"/. "$PGB/pg/" || exit 1
    as_pg pg_ctl -D "$PGDATA" -l /tmp/pg.log -w -o "-p $PGPORT -k /tmp -c jit=off $OPTS" start >/dev/null || { tail /tmp/pg.log; exit 1; }
    for layout in $LAYOUTS; do psql -X -q -c "SELECT pg_prewarm('ghb_ab_$layout')" >/dev/null; done
}
queries() { # table: the shapes' queries, as shell variables
    T=$1
    H="SELECT date_trunc('hour', ts) t, count(*) n, gpu_histogram(x, 0, 1, 64) h FROM $T GROUP BY 1"
    B="SELECT date_bin('1 hour', ts, timestamptz '2026-01-01') t, gpu_histogram(x, 0, 1, 64) h FROM $T GROUP BY 1"
    G="SELECT g, gpu_histogram(x, 0, 1, 64) h FROM $T GROUP BY 1"
    M="SELECT date_bin('10 minutes', ts, timestamptz '2026-01-01') t, gpu_histogram(x, 0, 1, 64) h FROM $T GROUP BY 1"
    P8="SET max_parallel_workers_per_gather = 8; SET gpu_histogram.device = gpu; SET work_mem = '4MB';"
    S0="SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = gpu; SET work_mem = '4MB';"
    S64="SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = gpu; SET work_mem = '64MB';"
    SETS=(--setup "SET max_parallel_workers_per_gather = 8" --setup "SET TimeZone = 'America/New_York'" --setup "SET gpu_histogram.device = gpu")
    R="ts >= '2026-02-01 00:00:00+00' AND ts < '2026-02-15 00:00:00+00'"
    U="SELECT gpu_histogram(x, 0, 1, 64) h FROM $T"
    WU="SELECT gpu_histogram(x, 0, 1, 64) h FROM $T WHERE $R"
    WH="SELECT date_trunc('hour', ts) t, count(*) n, gpu_histogram(x, 0, 1, 64) h FROM $T WHERE $R GROUP BY 1"
}
scans() {
    for w in 0 8; do
        timeout 100 python3 test/bench/sql_timing.py --rounds 7 --warmup 1 --cpu --setup "SET max_parallel_workers_per_gather = $w" \
            --setup "SET TimeZone = 'America/New_York'" --setup "SET gpu_histogram.device = gpu" \
            "ungrouped, $w workers=$U" "GROUP BY g=$G" "two weeks=$WU" "two weeks, heatmap=$WH"
    done
    psql -X -At -c "SET TimeZone = 'America/New_York'" -c "SELECT md5(string_agg(g || h::text, ',' ORDER BY g)) FROM ($G) s" \
        -c "SELECT md5(string_agg(t::text || n || h::text, ',' ORDER BY t)) FROM ($WH) s"
}
for build in "$BUILD_A" "$BUILD_B" "$BUILD_A" "$BUILD_B"; do
    echo "=== $build"
    swap "$build"
    for layout in $LAYOUTS; do
        queries ghb_ab_$layout
        echo "--- ghb_ab_$layout"
        if [ "${GH_AB_SET:-heatmaps}" = scans ]; then
            for i in 1 2; do psql -X -q -c "SET max_parallel_workers_per_gather = 8" -c "SELECT count(h) FROM ($U) s" >/dev/null; done
            scans
            continue
        fi
        # fill the GPU's page cache: the first scan after a start finds it empty
        for i in 1 2; do psql -X -q -c "SET max_parallel_workers_per_gather = 8" -c "SET TimeZone = 'America/New_York'" -c "SELECT count(h) FROM ($H) s" >/dev/null; done
        timeout 240 python3 test/bench/sql_timing.py --rounds "${GH_AB_ROUNDS:-7}" --warmup 1 "${SETS[@]}" \
            "heatmap=$P8 $H" "notext=$P8 SELECT count(h), count(t) FROM ($H) s" "date_bin=$P8 $B" "g=$P8 $G" "tenmin_notext=$P8 SELECT count(h) FROM ($M) s" "serial_heatmap=$S0 $H" "serial_notext=$S0 SELECT count(h), count(t) FROM ($H) s" "serial_tenmin_notext=$S0 SELECT count(h) FROM ($M) s" "serial_heatmap_64MB=$S64 $H" "serial_notext_64MB=$S64 SELECT count(h), count(t) FROM ($H) s" "heatmap_auto=SET max_parallel_workers_per_gather = 8; SET gpu_histogram.device = auto; SET work_mem = '4MB'; $H"
        psql -X -c "SET max_parallel_workers_per_gather = 8" -c "SET TimeZone = 'America/New_York'" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $H" | grep -E "Gather|Finalize|Custom|Workers|loops|Execution" 
        psql -X -At -c "SET max_parallel_workers_per_gather = 8" -c "SET TimeZone = 'America/New_York'" -c "SELECT md5(string_agg(t::text || n || h::text, ',' ORDER BY t)) FROM ($H) s" -c "SELECT md5(string_agg(t::text || h::text, ',' ORDER BY t)) FROM ($B) s"
    done
done
echo "=== ordinary plan"
for layout in $LAYOUTS; do
    queries ghb_ab_$layout
    echo "--- ghb_ab_$layout"
    [ "${GH_AB_SET:-heatmaps}" = scans ] && psql -X -At -c "SET TimeZone = 'America/New_York'" -c "SET gpu_histogram.scan = off" \
        -c "SELECT md5(string_agg(g || h::text, ',' ORDER BY g)) FROM ($G) s" \
        -c "SELECT md5(string_agg(t::text || n || h::text, ',' ORDER BY t)) FROM ($WH) s"
    psql -X -At -c "SET max_parallel_workers_per_gather = 8" -c "SET TimeZone = 'America/New_York'" -c "SET gpu_histogram.scan = off" -c "SET gpu_histogram.device = cpu" -c "SELECT md5(string_agg(t::text || n || h::text, ',' ORDER BY t)) FROM ($H) s" -c "SELECT md5(string_agg(t::text || h::text, ',' ORDER BY t)) FROM ($B) s"
done
grep -ciE "PANIC|terminated by signal" /tmp/pg.log
pg_down
