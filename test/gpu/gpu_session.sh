#!/usr/bin/env bash
# gpu_session.sh: everything that needs the GPU machine, in one call.
#
# Run from the repository root on the GPU machine, with .gpu/ staged as
# ../shared/gpu/README.md describes (pg.tar.gz, pg-up.sh, stage/ from
# `make install DESTDIR=$PWD/.gpu/stage`, bin/ with the test binaries and
# kernel_bench).  Writes its logs under $OUT (or /tmp/gh_out).
#
#   bash test/gpu/gpu_session.sh [unit] [sanitize] [kernels] [sql] [shards] [e2e] [scan] [bench] [service] [crash]
#                                 [gpuchecks] [pages] [gpus]
#
# gpuchecks: run_gpu_checks.sh without the pg_regress suite (grouped and page
# checks, the leak loop), log $OUT/gpu_checks.log.
# pages: test/bench/pages_bench.sh (issue 13) over GH_PAGES_ROWS (default
# 100M) rows, GH_PAGES_ROUNDS rounds, GH_PAGES_SECONDS of pgbench; log
# $OUT/pages_bench.log.
# gpus: one GPU against every GPU of the host (issue 29). For each of
# CUDA_VISIBLE_DEVICES=0 and every GPU, the server restarts with that in its
# environment (the data stays), and pages_bench.sh (serial and 8 workers,
# GH_PAGES_ROWS rows) and dashboards_bench.sh (gpu and auto, serial and 8
# workers, GH_DASH_ROWS rows, default 100M) run, each printing the batches
# every GPU took; logs $OUT/gpus_one.log and $OUT/gpus_all.log, the two
# runs' figures side by side in $OUT/gpus.txt.
# scan: the benchmark command's custom-scan section over 10M and 100M rows
# (serial, WHERE, text column, 8 workers), report under $OUT/bench.
# shards: test/fdw/run_shard_checks.sh with every server at device=gpu.
# bench: the benchmark command's forms and kernel sections (10M rows).
# service: test/gpu/service_checks.sh, the GPU service's checks (first-query
# latency, 8 workers over 100M rows, pgbench with 64 clients, a fatal CUDA
# error and the restart, several GPUs); log $OUT/service_checks.log, summary
# $OUT/service_checks.txt.
# The server gets huge pages (13,000 of 2 MB reserved when run as root) unless
# GH_HUGE_PAGES=off.
# crash: test/service/run_crash_isolation.sh on a server of its own, with
# GH_KILL_LOAD_CLIENTS (default 32) pgbench clients running histogram queries
# (device gpu and auto) and inserts while the CUDA process is killed with
# SIGSEGV, SIGABRT and SIGKILL; log $OUT/crash_isolation.log.
set -uo pipefail
OUT=${OUT:-/tmp/gh_out}; mkdir -p "$OUT"
steps=" ${*:-unit sanitize kernels sql service crash shards e2e scan bench} "
has() { [[ $steps == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
date -u +"%Y-%m-%dT%H:%MZ" >>"$OUT/device.txt"

if has unit; then
    echo "== unit tests"; .gpu/bin/engine_tests --gtest_brief=1 2>&1 | tail -3
    .gpu/bin/cuda_backend_tests >"$OUT/unit.log" 2>&1; echo "cuda_backend_tests exit $?"
    grep -E "^\[ +(PASSED|FAILED|SKIPPED) |FAILED|Failure" "$OUT/unit.log" | head -15
fi
if has sanitize; then
    filter='Cuda.SizesAndMisalignedStarts:Cuda.NaNSetsTheFlag:Cuda.FourAndOneByteSamples:Cuda.Pg15RoundingQuirkOnDevice:Cuda.InjectedFailureIsReportedAndRecovered:Cuda.TimeKernelOnConstantInputAndOddSizes:Cuda.ThresholdKernelFollowsTheServersSearchOnUnsortedAndNaN:Cuda.PipelineForTimeAndThresholds:Cuda.CallerHostMemoryRegistersAndFeedsBatches:Cuda.BatchBufferReusedAcrossSubmits:Cuda.ChunkedDrainsEqualAWholeDrain:Cuda.InterruptedDrainLosesNothing:Cuda.HistogramsOnEveryDevice:Cuda.LargeSharedMemoryOnEveryDevice:CudaEngine.RefusesUnknownDevicesAndOversizedBatches:KernelTest.NaNSetsTheFlagOnEveryPath:KernelTest.FewBlocksOddSizesAndMisalignedStarts:KernelTest.GroupedThroughThePipeline:ClusterTest.SeveralRoundsInEveryClusterSizeSmallEnoughForRacecheck:PageCache.*:Pages.EveryValueType:Pages.OnlyTheScansLinePointersAreRead'
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool"
        timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .gpu/bin/cuda_backend_tests \
            --gtest_filter="$filter" >"$OUT/sanitize_$tool.log" 2>&1
        echo "exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/sanitize_$tool.log" | tail -3
    done
fi
if has kernels; then
    echo "== kernel benchmark"; .gpu/bin/kernel_bench >"$OUT/kernel_bench.csv" 2>"$OUT/kernel_bench.txt"
    cat "$OUT/kernel_bench.txt"
fi
if has sql || has shards || has e2e || has scan || has bench || has service || has crash || has gpuchecks || has pages || has gpus; then
    # huge pages for the 24 GB pool, as PostgreSQL recommends (docs/operations.md#huge-pages): with 4 KB
    # pages every parallel worker page-faults each buffer it touches; GH_HUGE_PAGES=off runs without
    huge=${GH_HUGE_PAGES:-try}
    if [ "$huge" != off ] && [ "$(id -u)" = 0 ]; then
        sysctl -w vm.nr_hugepages=13000 >/dev/null 2>&1 || true
    fi
    grep -E "HugePages_(Total|Free)" /proc/meminfo | tr '\n' ' ' >>"$OUT/device.txt"; echo >>"$OUT/device.txt"
    # preloaded: the custom scan's planner hook is there for every session
    source .gpu/pg-up.sh .gpu/pg.tar.gz .gpu/stage -- -c shared_buffers=24GB -c huge_pages="$huge" -c max_worker_processes=16 \
        -c shared_preload_libraries=gpu_histogram -c max_connections=100 \
        -c max_parallel_workers=16 -c max_parallel_workers_per_gather=8 || exit 1
    export PG_REGRESS=$PG_REGRESS_DIR/pg_regress
fi
if has sql; then
    echo "== GPU checks"; bash test/gpu/run_gpu_checks.sh 2>&1 | tee "$OUT/gpu_checks.log"
    echo "== pg_regress with device=cpu"
    mkdir -p /tmp/regress_cpu && chmod 777 /tmp/regress_cpu
    PGOPTIONS="-c gpu_histogram.device=cpu" $PG_REGRESS --inputdir=. --outputdir=/tmp/regress_cpu \
        --bindir="$PG_BIN_DIR" --load-extension=gpu_histogram \
        --dbname=gh_cpu_regress $(sed -n 's/^REGRESS *= *//p' Makefile) 2>&1 | tail -3
fi
if has gpuchecks; then
    echo "== GPU checks (no pg_regress)"
    bash test/gpu/run_gpu_checks.sh --no-regress --leak-queries "${GH_LEAK_QUERIES:-170}" 2>&1 | tee "$OUT/gpu_checks.log"
fi
if has pages; then
    echo "== benchmark: pages parsed on the GPU"
    bash test/bench/pages_bench.sh "${GH_PAGES_ROWS:-100000000}" "${GH_PAGES_ROUNDS:-3}" "${GH_PAGES_SECONDS:-30}" 2>&1 |
        tee "$OUT/pages_bench.log"
fi
if has gpus; then
    # restart_with_gpus VISIBLE: the postmaster (and so the service) again, seeing the GPUs VISIBLE
    # names, every GPU when empty; then wait until the service is up (it maps the buffer pool first)
    restart_with_gpus() {
        local vis=(env -u CUDA_VISIBLE_DEVICES)
        [ -n "$1" ] && vis=(env CUDA_VISIBLE_DEVICES="$1")
        as_pg "${vis[@]}" pg_ctl -D "$PGDATA" -l /tmp/pg.log -w -m fast restart >/dev/null || return 1
        psql -X -q -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" || return 1
        for _ in $(seq 120); do
            [ "$(psql -X -At -c "SELECT coalesce(min(status), 'none') FROM gpu_histogram_devices()" 2>/dev/null)" = usable ] && break
            sleep 0.5
        done
        psql -X -At -c "SELECT 'GPUs: ' || string_agg(ordinal || ' ' || name || ' (' || status || ')', ', ') FROM gpu_histogram_devices()"
    }
    for run in one all; do
        [ $run = one ] && visible=0 || visible=
        {
            echo "== $run GPU(s): CUDA_VISIBLE_DEVICES=${visible:-(unset)}"
            restart_with_gpus "$visible" || { echo "restart failed"; tail -20 /tmp/pg.log; }
            GH_USE_EXISTING=1 GH_PAGES_SECTIONS="serial workers" bash test/bench/pages_bench.sh \
                "${GH_PAGES_ROWS:-100000000}" "${GH_PAGES_ROUNDS:-3}"
            GH_USE_EXISTING=1 GH_PARTITIONS=0 GH_PLAIN_CONFIGS=none GH_DUCKDB=off \
                GH_CONFIGS="${GH_GPUS_CONFIGS:-gpu:0 auto:0 gpu:8 auto:8}" \
                bash test/bench/dashboards_bench.sh "${GH_DASH_ROWS:-100000000}" "${GH_DASH_ROUNDS:-2}"
        } 2>&1 | grep -v NOTICE | tee "$OUT/gpus_$run.log"
    done
    restart_with_gpus "" >/dev/null
    # the figures side by side: each section's median under one GPU, under all, and their ratio
    awk 'FNR == 1 { run = (FILENAME ~ /_one/) ? "one" : "all" }
         /^== [0-9]\.|^== device/ { section = $0 }
         /^[A-Za-z0-9_].* +[0-9.]+ +[0-9.]+x +\(/ {
             name = $0; sub(/ +[0-9.]+ +[0-9.]+x.*/, "", name)
             rest = substr($0, length(name) + 1); split(rest, f, " ")
             key = section " | " name
             if (!(key in seen)) { seen[key] = 1; order[++n] = key }
             ms[run, key] = f[1]
         }
         END {
             print "section | query | one GPU ms | every GPU ms | one / every"
             for (i = 1; i <= n; i++) {
                 k = order[i]; o = ms["one", k]; a = ms["all", k]
                 printf "%s | %s | %s | %s\n", k, o, a, (o > 0 && a > 0) ? sprintf("%.2fx", o / a) : "?"
             }
         }' "$OUT/gpus_one.log" "$OUT/gpus_all.log" | tee "$OUT/gpus.txt"
fi
if has service; then
    echo "== GPU service checks"; OUT=$OUT bash test/gpu/service_checks.sh 2>&1 | tee "$OUT/service_checks.log"
fi
if has crash; then
    echo "== crash isolation under load"
    PG_BIN=$PG_BIN_DIR GH_KILL_LOAD_CLIENTS=${GH_KILL_LOAD_CLIENTS:-32} bash test/service/run_crash_isolation.sh 2>&1 |
        tee "$OUT/crash_isolation.log"
fi
if has shards; then
    echo "== shard checks, device=gpu"
    GH_SHARD_SERVER_OPTIONS="-c gpu_histogram.device=gpu -c gpu_histogram.batch_size=16384" \
        bash test/fdw/run_shard_checks.sh 2>&1 | tee "$OUT/shards.log" | tail -25
fi
if has e2e; then
    echo "== end to end"; bash test/bench/sql_gpu_bench.sh 2>&1 | tee "$OUT/e2e.log"
fi
if has scan; then
    echo "== benchmark: custom scan"
    bash test/bench/run_benchmarks.sh --use-existing --sections scan --sizes "${SCAN_SIZES:-10000000,100000000}" \
        --rounds 3 --workers 0,8 --label gpu-scan --out "$OUT/bench" 2>&1 | tee "$OUT/bench_scan.log"
fi
if has bench; then
    echo "== benchmark: forms, window, kernels"
    KERNEL_BENCH=$PWD/.gpu/bin/kernel_bench bash test/bench/run_benchmarks.sh --use-existing \
        --sections forms,kernel --sizes 10000000 --rounds 3 --label gpu-forms --out "$OUT/bench" 2>&1 |
        tee "$OUT/bench_issue9.log" | tail -40
fi
cp /tmp/pg.log "$OUT/server.log" 2>/dev/null
true
