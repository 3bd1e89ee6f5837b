#!/usr/bin/env bash
# service_checks.sh: what the GPU service (a background worker that owns every
# CUDA context; backends hand it batches through shared memory) has to deliver,
# measured on the GPU machine against an already running server (PGHOST,
# PGPORT, PGUSER from the environment; psql, pgbench and nvidia-smi on PATH)
# with gpu_histogram in shared_preload_libraries, PGUSER a superuser (fatal sets
# gpu_histogram.debug_fail_cuda_call).  Without a usable GPU it says so and
# exits 0.
#
#   bash test/gpu/service_checks.sh [latency] [workers] [pgbench] [fatal] [multigpu] [firstuse] [--drop]
#
# No step named: all of them.  Tables svc_2m, svc_10m, svc_100m (x float8,
# values in [0,1)) are kept for the next run unless --drop is given, and built
# again only when missing or of the wrong row count.
#
# 1. latency: a fresh session's first query must not pay for CUDA any more
#    (a backend used to create its own context: 100-300 ms).  Five fresh
#    sessions per device, alternating; PASS if median(gpu) - median(cpu)
#    <= 5 ms and a gpu session really binned its 2,000,000 values on the GPU.
# 2. workers: 8 parallel workers over 100M rows all feed the one service; it
#    must not become the bottleneck.  PASS if median(gpu) / median(cpu) <= 1.10,
#    EXPLAIN ANALYZE shows 8 workers launched and values binned on the GPU, and
#    the gpu result equals the cpu result.
# 3. pgbench: 64 clients at once, device=gpu, share the service instead of
#    holding 64 contexts.  PASS if no transaction failed, pgbench exited 0,
#    peak GPU memory over all processes <= 2048 MiB and the page cache
#    (gpu_histogram.gpu_page_cache), tps >= 12.6, only one
#    process (the service) ever used the GPU, and the result afterwards equals
#    width_bucket's.  The same load with device=cpu is reported alongside.
# 4. fatal: an injected fatal CUDA error (gpu_histogram.debug_fail_cuda_call)
#    gives the query in flight an ERROR naming the service, the postmaster
#    restarts the service, and a new session's device=gpu query succeeds on a
#    new service process with the right answer.  A device=auto query right
#    after another injected failure is reported without a criterion.
# 5. multigpu: with two or more usable GPUs, 8 concurrent sessions must give
#    every GPU batches.
# 6. firstuse: with two or more usable GPUs, the pattern that once failed on
#    2x H200 ("invalid argument" at the first concurrent use of the second
#    GPU): three times, a fresh CUDA process (SIGTERM to service_pid; the
#    server runs here), one device=gpu query, then 8 concurrent sessions over
#    svc_10m with kernels that need more than 48 KB of shared memory (20,000
#    buckets, 10,000 thresholds) and 256 buckets.  PASS if every result equals
#    width_bucket's, no session failed, the CUDA process did not restart
#    during the round, and every GPU got batches.
#
# Human-readable log on stdout; one PASS/FAIL/SKIPPED line per check, with its
# figures on indented lines, in ${OUT:-/tmp}/service_checks.txt.  The exit
# status is the number of failed checks.
set -uo pipefail
export LC_ALL=C # psql's "Time: 1.234 ms" and pgbench's figures with a '.', messages in English

usage() { echo "usage: bash test/gpu/service_checks.sh [latency] [workers] [pgbench] [fatal] [multigpu] [firstuse] [--drop]"; }
all_steps="latency workers pgbench fatal multigpu firstuse"
steps=""
drop=no
for arg in "$@"; do
    case $arg in
    latency | workers | pgbench | fatal | multigpu | firstuse) steps+=" $arg" ;;
    --drop) drop=yes ;;
    -h | --help) usage; exit 0 ;;
    *) echo "service_checks.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done
[ -n "$steps" ] || steps=" $all_steps"
steps+=" "
has() { [[ $steps == *" $1 "* ]]; }

out_dir=${OUT:-/tmp}
mkdir -p "$out_dir"
summary=$out_dir/service_checks.txt
: >"$summary"
tmp=$(mktemp -d /tmp/gh_service_checks.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
failures=0

log() { printf '%s\n' "$*"; }
# result PASS|FAIL|SKIPPED CHECK TEXT: the check's line, on stdout and in the summary
result() {
    printf '%s %s: %s\n' "$1" "$2" "$3" | tee -a "$summary"
    [ "$1" = FAIL ] && failures=$((failures + 1))
    return 0
}
# figure TEXT: an indented line under the last result, on stdout and in the summary
figure() { printf '  %s\n' "$*" | tee -a "$summary"; }

psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
# in_session DEVICE "OPTIONS": a fresh session runs the SQL on stdin; stdout and stderr together
in_session() {
    PGOPTIONS="-c gpu_histogram.device=$1 $2" psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 2>&1
}
serial_opts="-c max_parallel_workers_per_gather=0"
parallel_opts="-c max_parallel_workers_per_gather=8 -c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0"

# timed DEVICE "OPTIONS" QUERY: one fresh session runs QUERY once, timed inside
# the session; sets TIMED_MS (empty if it failed), TIMED_RESULT and TIMED_OUT.
timed() {
    TIMED_OUT=$(printf '\\timing on\n%s;\n' "$3" | in_session "$1" "$2")
    TIMED_MS=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$TIMED_OUT" | tail -1)
    TIMED_RESULT=$(grep -m1 '^{' <<<"$TIMED_OUT")
    if [ -z "$TIMED_MS" ] || [ -z "$TIMED_RESULT" ]; then
        TIMED_MS=""
        log "  device=$1 session failed:"
        head -5 <<<"$TIMED_OUT" | sed 's/^/    /'
    fi
    return 0
}
# median N...: the median of the numbers given (empty if none)
median() {
    printf '%s\n' "$@" | sed '/^$/d' | sort -g |
        awk '{ a[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# list V...: the values with '-' for an empty one (a failed run)
list() {
    local v out=""
    for v in "$@"; do out+="${v:--} "; done
    printf '%s' "${out% }"
}
# calc EXPR: floating-point arithmetic, 3 decimals
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
# holds A OP B: numeric comparison, false when either side is empty
holds() { [ -n "$1" ] && [ -n "$3" ] && awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; }
# array_sum '{1,2,3}': the sum of a bigint[] result
array_sum() { tr -d '{}' <<<"$1" | tr ',' '\n' | awk '{ s += $1 } END { printf "%d", s }'; }
# reference TABLE: width_bucket's histogram of TABLE.x, as gpu_histogram(x, 0, 1, 256) returns it
reference() {
    psql_q -c "SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 257) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 256) b, count(*) c FROM $1 GROUP BY 1) w USING (b)"
}
query() { printf 'SELECT gpu_histogram(x, 0, 1, 256) FROM %s' "$1"; }
service_field() { psql_q -c "SELECT $1 FROM gpu_histogram_stats()"; }
# gpu_batches: "ordinal:batches ..." of every usable GPU
source "$(dirname "$0")/../lib/gpu_batches.sh"
# every_device_rose BEFORE AFTER: yes if each GPU of BEFORE has more batches in AFTER (and none is missing)
every_device_rose() {
    local b a rose=yes
    [ -n "$1" ] || rose=no
    for b in $1; do
        a=$(tr ' ' '\n' <<<"$2" | sed -n "s/^${b%%:*}://p")
        holds "$a" '>' "${b#*:}" || rose=no
    done
    [ "$(wc -w <<<"$2")" = "$(wc -w <<<"$1")" ] || rose=no
    echo $rose
}
# wait_service [SECONDS]: wait while the service is down or (re)starting; prints its state
wait_service() {
    local state waited=0 limit=$((${1:-60} * 5))
    while :; do
        state=$(service_field service_state 2>/dev/null)
        case $state in down | starting) ;; *) break ;; esac
        [ $waited -ge $limit ] && break
        sleep 0.2
        waited=$((waited + 1))
    done
    printf '%s' "$state"
}

# ensure_table NAME ROWS CHUNKS: NAME(x float8) with ROWS random values in
# [0,1), inserted by CHUNKS sessions at once, VACUUM ANALYZE'd; kept if it
# already has ROWS rows.
ensure_table() {
    local t=$1 rows=$2 chunks=$3 have=-1 rc=0 started=$SECONDS p
    local pids=()
    if [ -n "$(psql_q -c "SELECT to_regclass('$t')")" ]; then have=$(psql_q -c "SELECT count(*) FROM $t"); fi
    if [ "$have" = "$rows" ]; then
        log "table $t: $rows rows, kept"
        return 0
    fi
    [ "$have" = -1 ] && have="no table" || have="$have rows"
    log "table $t: building $rows rows with $chunks concurrent INSERTs (there was $have)"
    psql_q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" -c "CREATE TABLE $t (x float8)" || return 1
    for ((p = 0; p < chunks; p++)); do
        psql_q -c "INSERT INTO $t SELECT random() FROM generate_series(1, $((rows / chunks)))" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    psql_q -c "VACUUM ANALYZE $t" -c "CHECKPOINT" || rc=1 # no checkpoint of the build during the timings
    have=$(psql_q -c "SELECT count(*) FROM $t")
    log "table $t: $have rows in $((SECONDS - started)) s"
    [ "$rc" = 0 ] && [ "$have" = "$rows" ]
}

# ---------------------------------------------------------------- preliminaries
log "== GPU service checks:$steps(drop tables at the end: $drop)"
if ! psql_q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram"; then
    result FAIL setup "cannot reach the server or create the extension (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-})"
    exit 1
fi
psql_q -c "ALTER EXTENSION gpu_histogram UPDATE" 2>/dev/null # an older installed version: the 1.2 functions
state=$(wait_service 60)
usable=$(psql_q -c "SELECT count(*) FROM gpu_histogram_devices() WHERE status = 'usable'")
if ! [ "${usable:-0}" -ge 1 ] 2>/dev/null; then
    why=$(psql_q -c "SELECT string_agg(status, '; ') FROM gpu_histogram_devices()")
    log "GPU service checks SKIPPED: gpu_histogram_devices() has no usable GPU (service state '$state'): $why"
    echo "SKIPPED all: no usable GPU (service state '$state'): $why" >>"$summary"
    exit 0
fi
{
    echo "# service_checks.sh $(date -u +%Y-%m-%dT%H:%MZ):$steps"
    psql_q -c "SELECT '# ' || version()"
    psql_q -c "SELECT '# GPU ' || ordinal || ': ' || name || ', ' || total_memory / 1048576 || ' MiB, compute ' || compute_capability || ', ' || multiprocessors || ' SMs' FROM gpu_histogram_devices() ORDER BY ordinal"
    psql_q -c "SELECT '# service: ' || service_state || ', pid ' || service_pid || ', starts ' || service_starts || ', CUDA start-up ' || round(service_cuda_startup_ms::numeric, 1) || ' ms, ' || service_devices || ' devices, ' || service_slots || ' slots' FROM gpu_histogram_stats()"
} | tee -a "$summary"

need_2m=no need_10m=no
{ has latency || has fatal; } && need_2m=yes
{ has pgbench || { { has multigpu || has firstuse; } && [ "$usable" -ge 2 ]; }; } && need_10m=yes
ok_2m=no ok_10m=no ok_100m=no
if [ $need_2m = yes ]; then ensure_table svc_2m 2000000 1 && ok_2m=yes; fi
if [ $need_10m = yes ]; then ensure_table svc_10m 10000000 5 && ok_10m=yes; fi
if has workers; then
    ensure_table svc_100m 100000000 10 && psql_q -c "ALTER TABLE svc_100m SET (parallel_workers = 8)" && ok_100m=yes
fi

# ---------------------------------------------------------------- 1. latency
if has latency; then
    log ""
    log "== 1. first-query latency of a fresh session, svc_2m (2,000,000 rows), 5 sessions per device"
    if [ $ok_2m = no ]; then
        result FAIL latency "table svc_2m could not be built"
    else
        q=$(query svc_2m)
        timed gpu "$serial_opts" "$q" # warm-up: the table in shared buffers, the service warm
        log "  warm-up query (device=gpu): ${TIMED_MS:-failed} ms"
        cpu_ms=() gpu_ms=()
        for i in 1 2 3 4 5; do
            for d in cpu gpu; do
                timed "$d" "$serial_opts" "$q"
                log "  session $i device=$d: ${TIMED_MS:-failed} ms"
                if [ $d = cpu ]; then cpu_ms+=("$TIMED_MS"); else gpu_ms+=("$TIMED_MS"); fi
            done
        done
        stats_out=$(printf '%s;\nSELECT values_gpu FROM gpu_histogram_stats();\n' "$q" | in_session gpu "$serial_opts")
        values_gpu=$(tail -1 <<<"$stats_out" | grep -E '^[0-9]+$')
        [ -z "$values_gpu" ] && head -5 <<<"$stats_out" | sed 's/^/    stats session: /'
        cpu_med=$(median "${cpu_ms[@]}") gpu_med=$(median "${gpu_ms[@]}")
        diff_ms=""
        [ -n "$cpu_med" ] && [ -n "$gpu_med" ] && diff_ms=$(calc "$gpu_med - $cpu_med")
        ok=FAIL
        timed_ok=$(printf '%s\n' "${cpu_ms[@]}" "${gpu_ms[@]}" | grep -c .)
        if [ "$timed_ok" -eq 10 ] && holds "$diff_ms" '<=' 5 && [ "$values_gpu" = 2000000 ]; then ok=PASS; fi
        result $ok latency "median first query cpu ${cpu_med:-?} ms, gpu ${gpu_med:-?} ms, gpu-cpu ${diff_ms:-?} ms (limit 5); values_gpu in a gpu session ${values_gpu:-?} (want 2000000); sessions timed $timed_ok of 10"
        figure "cpu ms: $(list "${cpu_ms[@]}")"
        figure "gpu ms: $(list "${gpu_ms[@]}")"
    fi
fi

# ---------------------------------------------------------------- 2. workers
if has workers; then
    log ""
    log "== 2. 8 parallel workers over svc_100m (100,000,000 rows), 3 rounds per device"
    if [ $ok_100m = no ]; then
        result FAIL workers "table svc_100m could not be built"
    else
        q=$(query svc_100m)
        for d in cpu gpu; do
            timed $d "$parallel_opts" "$q"
            log "  warm-up device=$d: ${TIMED_MS:-failed} ms"
        done
        cpu_ms=() gpu_ms=() cpu_res="" mismatch=0 failed_runs=0
        for r in 1 2 3; do
            for d in cpu gpu; do
                timed $d "$parallel_opts" "$q"
                log "  round $r device=$d: ${TIMED_MS:-failed} ms"
                [ -z "$TIMED_MS" ] && failed_runs=$((failed_runs + 1))
                if [ $d = cpu ]; then
                    cpu_ms+=("$TIMED_MS")
                    [ -z "$cpu_res" ] && cpu_res=$TIMED_RESULT
                    [ -n "$TIMED_RESULT" ] && [ "$TIMED_RESULT" != "$cpu_res" ] && mismatch=$((mismatch + 1))
                else
                    gpu_ms+=("$TIMED_MS")
                    [ -n "$TIMED_MS" ] && { [ -z "$cpu_res" ] || [ "$TIMED_RESULT" != "$cpu_res" ]; } && mismatch=$((mismatch + 1))
                fi
            done
        done
        plan=$(printf 'EXPLAIN (ANALYZE, COSTS OFF) %s;\n' "$q" | in_session gpu "$parallel_opts")
        log "  EXPLAIN (ANALYZE, COSTS OFF), device=gpu:"
        printf '    %s\n' "${plan//$'\n'/$'\n'    }"
        launched=$(sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' <<<"$plan" | head -1)
        on_gpu=$(sed -n 's/.*Values Binned on GPU: \([0-9]*\).*/\1/p' <<<"$plan" | sort -n | tail -1)
        on_cpu=$(sed -n 's/.*Values Binned on CPU: \([0-9]*\).*/\1/p' <<<"$plan" | sort -n | tail -1)
        grep -q GpuHistogramScan <<<"$plan" && node=yes || node=no
        cpu_med=$(median "${cpu_ms[@]}") gpu_med=$(median "${gpu_ms[@]}")
        ratio=""
        holds "$cpu_med" '>' 0 && [ -n "$gpu_med" ] && ratio=$(calc "$gpu_med / $cpu_med")
        ok=FAIL
        if [ $failed_runs -eq 0 ] && [ $mismatch -eq 0 ] && holds "$ratio" '<=' 1.10 &&
            [ "$launched" = 8 ] && holds "${on_gpu:-0}" '>' 0; then ok=PASS; fi
        result $ok workers "median cpu ${cpu_med:-?} ms, gpu ${gpu_med:-?} ms, gpu/cpu ${ratio:-?} (limit 1.10); Workers Launched ${launched:-?} (want 8); Values Binned on GPU ${on_gpu:-?}, on CPU ${on_cpu:-?}; GpuHistogramScan in plan: $node; gpu results equal to cpu: $([ $mismatch -eq 0 ] && [ -n "$cpu_res" ] && echo yes || echo "no ($mismatch differ)")"
        figure "cpu ms: $(list "${cpu_ms[@]}")"
        figure "gpu ms: $(list "${gpu_ms[@]}")"
        figure "sum of the cpu histogram: $(array_sum "$cpu_res") (rows 100000000); failed runs: $failed_runs"
    fi
fi

# ---------------------------------------------------------------- 3. pgbench
# run_pgbench DEVICE SECONDS TAG: pgbench -c 64 -j 16 over svc_10m, sampling
# nvidia-smi every second; sets PB_RC, PB_TPS, PB_FAILED, PB_LAT, PB_ABORTED and, from the
# samples, GPU_SAMPLES, GPU_PEAK_MIB, GPU_PIDS, GPU_PID_LIST, GPU_USED_PEAK_MIB, GPU_NA.
run_pgbench() {
    local d=$1 secs=$2 tag=$3 bpid raw=$tmp/nvsmi_$3.txt
    : >"$raw"
    log "  pgbench -n -c 64 -j 16 -T $secs, device=$d"
    PGOPTIONS="-c gpu_histogram.device=$d $serial_opts" "$pgbench_bin" -n -c 64 -j 16 -T "$secs" \
        -f "$tmp/svc_10m.sql" >"$tmp/pgbench_$tag.out" 2>&1 &
    bpid=$!
    while kill -0 "$bpid" 2>/dev/null; do
        {
            echo "# $(date +%s)"
            nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null | sed 's/^/A /'
            nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | sed 's/^/G /'
        } >>"$raw"
        sleep 1
    done
    wait "$bpid"
    PB_RC=$?
    PB_TPS=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/pgbench_$tag.out" | tail -1)
    PB_FAILED=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$tmp/pgbench_$tag.out" | tail -1)
    PB_LAT=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$tmp/pgbench_$tag.out" | tail -1)
    PB_ABORTED=$(grep -c 'aborted in command' "$tmp/pgbench_$tag.out")
    grep -E '^(number of|latency|initial|tps)' "$tmp/pgbench_$tag.out" | sed 's/^/    /'
    if [ "$PB_ABORTED" -gt 0 ] || [ "$PB_RC" != 0 ]; then
        log "    $PB_ABORTED clients aborted; the first errors:"
        grep -v -E '^(pgbench \(|transaction type|scaling|query mode|number of|maximum|duration|latency|initial|tps|$)' \
            "$tmp/pgbench_$tag.out" | head -6 | sed 's/^/      /'
    fi
    read -r GPU_SAMPLES GPU_PEAK_MIB GPU_PIDS GPU_PID_LIST GPU_USED_PEAK_MIB GPU_NA < <(awk '
        function flush() { if (tot > peak) peak = tot; if (used > used_peak) used_peak = used; tot = 0; used = 0 }
        /^# / { flush(); samples++; next }
        /^A / { sub(/^A /, ""); n = split($0, f, / *, */)
                if (f[1] ~ /^[0-9]+$/) pids[f[1]] = 1
                if (n >= 2 && f[2] ~ /^[0-9]+$/) tot += f[2]; else na++
                next }
        /^G / { if ($2 ~ /^[0-9]+$/) used += $2; next }
        END { flush(); np = 0; list = ""
              for (p in pids) { np++; list = list (list == "" ? "" : ",") p }
              print samples + 0, peak + 0, np, (list == "" ? "-" : list), used_peak + 0, na + 0 }' "$raw")
    log "  device=$d: exit $PB_RC, tps ${PB_TPS:-?}, failed ${PB_FAILED:-?}, clients aborted $PB_ABORTED; nvidia-smi: $GPU_SAMPLES samples, peak ${GPU_PEAK_MIB} MiB over compute processes (pids $GPU_PID_LIST), peak memory.used ${GPU_USED_PEAK_MIB} MiB"
}

if has pgbench; then
    log ""
    log "== 3. pgbench: 64 clients, device=gpu, over svc_10m (10,000,000 rows)"
    pgbench_bin=$(dirname "$(command -v psql)")/pgbench
    [ -x "$pgbench_bin" ] || pgbench_bin=$(command -v pgbench)
    max_conn=$(psql_q -c "SHOW max_connections")
    if [ $ok_10m = no ]; then
        result FAIL pgbench "table svc_10m could not be built"
    elif [ -z "$pgbench_bin" ] || [ ! -x "$pgbench_bin" ]; then
        result FAIL pgbench "no pgbench next to psql ($(command -v psql)) or on PATH"
    elif ! command -v nvidia-smi >/dev/null; then
        result FAIL pgbench "no nvidia-smi on PATH: cannot measure GPU memory and processes"
    elif ! [ "${max_conn:-0}" -ge 70 ] 2>/dev/null; then
        result FAIL pgbench "max_connections is ${max_conn:-?}: 64 clients need at least 70 (start the server with -c max_connections=100)"
    else
        printf '%s;\n' "$(query svc_10m)" >"$tmp/svc_10m.sql"
        chmod 644 "$tmp/svc_10m.sql"
        service_pid=$(service_field service_pid)
        run_pgbench gpu 40 gpu
        gpu_rc=$PB_RC gpu_tps=$PB_TPS gpu_failed=$PB_FAILED gpu_lat=$PB_LAT gpu_aborted=$PB_ABORTED
        gpu_na=$GPU_NA peak=$GPU_PEAK_MIB npids=$GPU_PIDS pid_list=$GPU_PID_LIST used_peak=$GPU_USED_PEAK_MIB samples=$GPU_SAMPLES
        after=$(printf '%s;\n' "$(query svc_10m)" | in_session gpu "$serial_opts")
        ref_10m=$(reference svc_10m)
        [ -n "$ref_10m" ] && [ "$after" = "$ref_10m" ] && correct=yes || correct=no
        [ "$correct" = no ] && head -3 <<<"$after" | sed 's/^/    after: /'
        log "  then device=cpu for comparison"
        run_pgbench cpu 20 cpu
        ok=FAIL
        # the service's own 2 GB, and the page cache it allocates at its start (gpu_histogram.gpu_page_cache, in MB)
        cache_mib=$(psql_q -c "SELECT coalesce((SELECT setting FROM pg_settings WHERE name = 'gpu_histogram.gpu_page_cache'), '0')")
        mem_limit=$((2048 + ${cache_mib:-0}))
        if [ "$gpu_rc" = 0 ] && [ "$gpu_failed" = 0 ] && [ "$samples" -gt 0 ] && [ "$gpu_na" = 0 ] &&
            holds "$peak" '<=' $mem_limit && holds "$gpu_tps" '>=' 12.6 && [ "$npids" = 1 ] && [ "$correct" = yes ]; then ok=PASS; fi
        result $ok pgbench "device=gpu tps ${gpu_tps:-?} (want >= 12.6), failed transactions ${gpu_failed:-?} (want 0), pgbench exit $gpu_rc; peak GPU memory $peak MiB over all processes (limit $mem_limit: 2048 and the page cache's ${cache_mib:-0}); distinct GPU pids $npids (want 1); result afterwards equals width_bucket: $correct"
        figure "device=gpu: latency average ${gpu_lat:-?} ms, clients aborted $gpu_aborted; GPU pids seen: $pid_list, service_pid $service_pid; peak memory.used $used_peak MiB; $samples nvidia-smi samples$([ "$gpu_na" != 0 ] && echo ", $gpu_na process rows without a memory figure")"
        figure "device=cpu (20 s, no criterion): tps ${PB_TPS:-?}, latency average ${PB_LAT:-?} ms, failed ${PB_FAILED:-?}, clients aborted $PB_ABORTED, exit $PB_RC"
        figure "max_connections $max_conn; pgbench $pgbench_bin"
    fi
fi

# ---------------------------------------------------------------- 4. fatal
# inject: a device=gpu session makes the service's 3rd CUDA call from now fail,
# runs the query, and takes the setting back; prints the session's output.
inject() {
    printf '\\set VERBOSITY verbose\nSET gpu_histogram.debug_fail_cuda_call = 3;\n%s;\nRESET gpu_histogram.debug_fail_cuda_call;\n' "$(query svc_2m)" |
        PGOPTIONS="-c gpu_histogram.device=gpu $serial_opts" psql -X -q -At -v ON_ERROR_STOP=0 2>&1
}
if has fatal; then
    log ""
    log "== 4. a fatal CUDA error in the service"
    if [ $ok_2m = no ]; then
        result FAIL fatal "table svc_2m could not be built"
    else
        ref_2m=$(reference svc_2m)
        state=$(wait_service 60)
        pid_before=$(service_field service_pid) starts_before=$(service_field service_starts)
        log "  service before: state $state, pid $pid_before, starts $starts_before"
        err_out=$(inject)
        log "  the session with gpu_histogram.debug_fail_cuda_call = 3:"
        grep -E '^(ERROR|DETAIL|HINT|psql:)' <<<"$err_out" | sed 's/^/    /'
        grep -q '^{' <<<"$err_out" && log "    (the query returned a result)"
        err_line=$(grep -m1 'ERROR' <<<"$err_out")
        grep -q 'the GPU service failed' <<<"$err_line" && got_error=yes || got_error=no
        sqlstate=$(sed -n 's/.*ERROR: *\([0-9A-Z]\{5\}\): .*/\1/p' <<<"$err_line")
        detail=$(grep -m1 'DETAIL' <<<"$err_out" | sed 's/.*DETAIL: *//')
        new_out=$(printf '%s;\nSELECT values_gpu, service_pid, service_starts, service_state FROM gpu_histogram_stats();\n' "$(query svc_2m)" |
            in_session gpu "$serial_opts")
        new_res=$(grep -m1 '^{' <<<"$new_out")
        read -r values_gpu pid_after starts_after state_after <<<"$(tail -1 <<<"$new_out" | grep -E '^[0-9]+ [0-9]+ [0-9]+ ')"
        [ -z "$new_res" ] && head -5 <<<"$new_out" | sed 's/^/    new session: /'
        [ -n "$new_res" ] && [ "$new_res" = "$ref_2m" ] && correct=yes || correct=no
        log "  a new session, device=gpu: result equals width_bucket: $correct; values_gpu ${values_gpu:-?}; service pid ${pid_after:-?}, starts ${starts_after:-?}, state ${state_after:-?}"

        # device=auto right after another injected failure: reported, no criterion
        auto_err=$(inject)
        auto_out=$(printf '\\set VERBOSITY verbose\n\\set ON_ERROR_STOP off\n%s;\nSELECT values_cpu, values_gpu, service_state FROM gpu_histogram_stats();\n' "$(query svc_2m)" |
            in_session auto "$serial_opts")
        if grep -q ERROR <<<"$auto_out"; then
            auto_what="ERROR: $(grep -m1 ERROR <<<"$auto_out" | sed 's/.*ERROR: *//')"
        else
            auto_res=$(grep -m1 '^{' <<<"$auto_out")
            read -r a_cpu a_gpu a_state <<<"$(tail -1 <<<"$auto_out" | grep -E '^[0-9]+ [0-9]+ ')"
            auto_what="a result, equal to width_bucket: $([ -n "$auto_res" ] && [ "$auto_res" = "$ref_2m" ] && echo yes || echo no); values_cpu ${a_cpu:-?}, values_gpu ${a_gpu:-?}, service state then ${a_state:-?}"
        fi
        grep -q 'the GPU service failed' <<<"$auto_err" && auto_inject="the injected failure gave an ERROR" || auto_inject="the injected failure gave no ERROR"
        state=$(wait_service 60)
        log "  device=auto right after another injected failure ($auto_inject): $auto_what; service afterwards: $state, starts $(service_field service_starts)"

        ok=FAIL
        if [ "$got_error" = yes ] && [ "$correct" = yes ] && [ "$values_gpu" = 2000000 ] &&
            holds "$starts_after" '>' "$starts_before" && [ -n "$pid_after" ] && [ "$pid_after" != "$pid_before" ]; then ok=PASS; fi
        result $ok fatal "injected failure gave the GPU-service ERROR: $got_error (SQLSTATE ${sqlstate:-?}); next session device=gpu correct: $correct, values_gpu ${values_gpu:-?} (want 2000000), service_starts $starts_before -> ${starts_after:-?}, service_pid $pid_before -> ${pid_after:-?}"
        # shellcheck disable=SC2001
        figure "ERROR: $(sed 's/.*ERROR: *//' <<<"${err_line:-none}")"
        figure "DETAIL: ${detail:-none}"
        figure "device=auto right after another injected failure (no criterion): $auto_inject; then $auto_what"
    fi
fi

# ---------------------------------------------------------------- 5. multigpu
if has multigpu; then
    log ""
    log "== 5. spreading over several GPUs"
    state=$(wait_service 60)
    usable=$(psql_q -c "SELECT count(*) FROM gpu_histogram_devices() WHERE status = 'usable'")
    if ! [ "${usable:-0}" -ge 2 ] 2>/dev/null; then
        log "SKIPPED: one GPU"
        result SKIPPED multigpu "one GPU (${usable:-0} usable, service $state)"
    elif [ $ok_10m = no ]; then
        result FAIL multigpu "table svc_10m could not be built"
    else
        before=$(gpu_batches)
        pids=() session_failures=0
        for s in 1 2 3 4 5 6 7 8; do
            printf '%s;\n%s;\n' "$(query svc_10m)" "$(query svc_10m)" | in_session gpu "$serial_opts" >"$tmp/multi_$s.out" &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p" || session_failures=$((session_failures + 1)); done
        after=$(gpu_batches)
        grep -h ERROR "$tmp"/multi_*.out | sort | uniq -c | head -5 | sed 's/^/    /'
        increased=$(every_device_rose "$before" "$after")
        ok=FAIL
        [ $increased = yes ] && [ $session_failures -eq 0 ] && ok=PASS
        result $ok multigpu "every device's batches increased: $increased; sessions that failed: $session_failures of 8"
        figure "batches per device (ordinal:batches) before: $before"
        figure "after: $after"
    fi
fi

# ---------------------------------------------------------------- 6. firstuse
if has firstuse; then
    log ""
    log "== 6. a fresh CUDA process, then concurrent sessions over every GPU, large shared memory"
    state=$(wait_service 60)
    usable=$(psql_q -c "SELECT count(*) FROM gpu_histogram_devices() WHERE status = 'usable'")
    if ! [ "${usable:-0}" -ge 2 ] 2>/dev/null; then
        result SKIPPED firstuse "one GPU (${usable:-0} usable, service $state)"
    elif [ $ok_10m = no ]; then
        result FAIL firstuse "table svc_10m could not be built"
    else
        thresholds="(SELECT array_agg(i / 10000.0::float8 ORDER BY i) FROM generate_series(0, 9999) i)"
        queries=("$(query svc_10m)" "SELECT gpu_histogram(x, 0, 1, 20000) FROM svc_10m"
            "SELECT gpu_histogram(x, $thresholds) FROM svc_10m")
        refs=("$(reference svc_10m)"
            "$(psql_q -c "SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 20001) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 20000) b, count(*) c FROM svc_10m GROUP BY 1) w USING (b)")"
            "$(psql_q -c "SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 10000) b LEFT JOIN (SELECT width_bucket(x, $thresholds) b, count(*) c FROM svc_10m GROUP BY 1) w USING (b)")")
        ok=PASS
        for round in 1 2 3; do
            old=$(service_field service_pid)
            kill -TERM "$old" 2>/dev/null || { ok=FAIL; log "  cannot signal the CUDA process $old (is the server local?)"; }
            for _ in $(seq 300); do
                [ "$(psql_q -c "SELECT service_state = 'up' AND service_pid <> $old FROM gpu_histogram_stats()")" = t ] && break
                sleep 0.1
            done
            starts=$(service_field service_starts)
            first=$(printf '%s;\n' "$(query svc_10m)" | in_session gpu "$serial_opts")
            before=$(gpu_batches)
            pids=()
            for s in 0 1 2 3 4 5 6 7; do
                k=$((s % 3))
                printf '%s;\n%s;\n' "${queries[$k]}" "${queries[$k]}" | in_session gpu "$serial_opts" >"$tmp/first_$s.out" &
                pids+=($!)
            done
            failed=0 wrong=0
            for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
            for s in 0 1 2 3 4 5 6 7; do
                k=$((s % 3))
                [ "$(grep -c -x -F "${refs[$k]}" "$tmp/first_$s.out")" = 2 ] || wrong=$((wrong + 1))
            done
            after=$(gpu_batches)
            every=$(every_device_rose "$before" "$after")
            starts_after=$(service_field service_starts)
            grep -h ERROR "$tmp"/first_*.out | sort | uniq -c | head -5 | sed 's/^/    /'
            log "  round $round: CUDA process $old -> $(service_field service_pid); first query right: $([ "$first" = "${refs[0]}" ] && echo yes || echo no); sessions failed $failed, wrong results $wrong, every GPU got batches: $every, restarts during the round: $((starts_after - starts)); batches $before -> $after"
            if [ "$first" != "${refs[0]}" ] || [ $failed != 0 ] || [ $wrong != 0 ] || [ $every = no ] || [ "$starts_after" != "$starts" ]; then ok=FAIL; fi
        done
        result $ok firstuse "3 fresh CUDA processes, each then 8 concurrent sessions (256 buckets; 20,000 buckets and 10,000 thresholds, over 48 KB of shared memory) on $usable GPUs"
    fi
fi

# ---------------------------------------------------------------- the end
if [ $drop = yes ]; then
    psql_q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS svc_2m, svc_10m, svc_100m" && log "dropped svc_2m, svc_10m, svc_100m"
fi
log ""
log "summary in $summary:"
grep -E '^(PASS|FAIL|SKIPPED) ' "$summary"
if [ $failures -eq 0 ]; then log "service checks: all passed"; else log "service checks: $failures FAILED"; fi
exit $failures
