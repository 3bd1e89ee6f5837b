#!/usr/bin/env bash
# run_preload_checks.sh: the GPU service from the outside, on two throwaway
# servers (test/pg_temp_server.sh): one without gpu_histogram in
# shared_preload_libraries, one with it.  Runs with or without a GPU.
#
#   bash test/service/run_preload_checks.sh
#
# Without preloading, CREATE EXTENSION works, values are binned on the CPU
# and equal width_bucket's, gpu_histogram_devices() says why there is no GPU,
# device = 'gpu' fails with SQLSTATE 55000, and the service's settings do not
# exist.  With preloading, the service runs (with a GPU, or saying it found
# none), device = 'gpu' either works or fails with 38000, a CUDA process
# killed with SIGTERM (as `kill` by an administrator; it is not in
# pg_stat_activity, having no database) is started again by the supervisor,
# and a supervisor killed with SIGTERM is started again by the postmaster,
# with a CUDA process of its own.  (Deaths by other signals:
# run_crash_isolation.sh.)
# An extension installed at 1.1 updates to the control file's default version.  Each check prints ok or FAILED.
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/checks.sh
source test/lib/checks.sh
reference="(SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 11) b
            LEFT JOIN (SELECT width_bucket(x, 0, 1, 10) b, count(*) c FROM pc GROUP BY 1) w USING (b))"
make_table="CREATE TABLE pc AS SELECT (i * 0.6180339887498949::float8) - floor(i * 0.6180339887498949::float8) AS x
            FROM generate_series(1, 3000000) i"

echo "== without gpu_histogram in shared_preload_libraries"
# shellcheck source=../pg_temp_server.sh
source test/pg_temp_server.sh -c shared_preload_libraries= || exit 1
q -c "CREATE EXTENSION gpu_histogram" -c "$make_table" -c "VACUUM ANALYZE pc" >/dev/null
check "CREATE EXTENSION, and a 3M-row histogram equal to width_bucket's" t \
    "$(q -c "SELECT gpu_histogram(x, 0, 1, 10) = $reference FROM pc")"
check "every value binned on the CPU; the service is not preloaded" "3000000|0|not preloaded" \
    "$(q -c "SET max_parallel_workers_per_gather = 0" -c "SELECT gpu_histogram(x, 0, 1, 10) IS NOT NULL FROM pc" -c "SELECT values_cpu, values_gpu, service_state FROM gpu_histogram_stats()" | tail -1)"
check "gpu_histogram_devices() says there is no service, and what happens instead" t \
    "$(q -c "SELECT count(*) = 1 AND bool_and(status LIKE 'no GPU: gpu_histogram is not in shared_preload_libraries%binned on the CPU') FROM gpu_histogram_devices()")"
check "device = 'gpu' fails with 55000 (object not in prerequisite state)" 55000 \
    "$(sqlstate_of -c "SET gpu_histogram.device = gpu" -c "SELECT gpu_histogram(x, 0, 1, 10) FROM pc")"
check "the service's settings do not exist without it" 42704 \
    "$(sqlstate_of -c "LOAD 'gpu_histogram'" -c "SHOW gpu_histogram.service_slots")"
q -c "DROP EXTENSION gpu_histogram" -c "CREATE EXTENSION gpu_histogram VERSION '1.1'" >/dev/null
default_version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" gpu_histogram.control)
check "ALTER EXTENSION UPDATE from 1.1 gives $default_version and 1.2's gpu_histogram_stats()" "$default_version|not preloaded" \
    "$(q -c "ALTER EXTENSION gpu_histogram UPDATE" -c "SELECT extversion, (SELECT service_state FROM gpu_histogram_stats()) FROM pg_extension WHERE extname = 'gpu_histogram'")"
pg_temp_stop
trap - EXIT

echo "== with gpu_histogram in shared_preload_libraries"
source test/pg_temp_server.sh || exit 1
q -c "CREATE EXTENSION gpu_histogram" -c "$make_table" -c "VACUUM ANALYZE pc" >/dev/null
state=starting
for _ in $(seq 60); do
    state=$(q -c "SELECT service_state FROM gpu_histogram_stats()")
    [ "$state" = starting ] || [ "$state" = down ] || break
    sleep 1
done
check "the GPU service is running, with a GPU or saying it has none" yes \
    "$( [ "$state" = up ] || [ "$state" = "no GPU" ] && echo yes || echo "state $state")"
pid=$(q -c "SELECT service_pid FROM gpu_histogram_stats()")
check "service_pid is the CUDA process" "postgres: gpu_histogram CUDA process" \
    "$(ps -o args= -p "$pid" 2>/dev/null | sed 's/ *$//')"
supervisor=$(ps -o ppid= -p "$pid" | tr -d ' ')
check "its parent is the supervisor, a background worker of this server" \
    "postgres: gpu_histogram GPU service|$(head -1 "$PG_TEMP_DIR/data/postmaster.pid")" \
    "$(ps -o args= -p "$supervisor" | sed 's/ *$//')|$(ps -o ppid= -p "$supervisor" | tr -d ' ')"
check "auto: a 3M-row histogram equal to width_bucket's" t "$(q -c "SELECT gpu_histogram(x, 0, 1, 10) = $reference FROM pc")"
if [ "$state" = up ]; then
    check "device = 'gpu' equals width_bucket's, through the service" t \
        "$(q -c "SET gpu_histogram.device = gpu" -c "SELECT gpu_histogram(x, 0, 1, 10) = $reference FROM pc")"
else
    # 0A000 (feature not supported) instead where the build has no CUDA backend at all
    expected_state=38000
    grep -q 'without CUDA' <<<"$(q -c "SELECT service_message FROM gpu_histogram_stats()")" && expected_state=0A000
    check "device = 'gpu' without a GPU fails with $expected_state" $expected_state \
        "$(sqlstate_of -c "SET gpu_histogram.device = gpu" -c "SELECT gpu_histogram(x, 0, 1, 10) FROM pc")"
    check "gpu_histogram_devices() says the service found no GPU" t \
        "$(q -c "SELECT count(*) = 1 AND bool_and(status LIKE 'no GPU: the GPU service found none (%') FROM gpu_histogram_devices()")"
    if ! grep -q 'libcuda\.so\.1' <<<"$(ldconfig -p 2>/dev/null)"; then
        message=$(q -c "SELECT service_message FROM gpu_histogram_stats()")
        check "with no NVIDIA driver on the machine, the message says so (not CUDA's 'driver version is insufficient')" yes \
            "$(grep -q -E 'no NVIDIA driver found|without CUDA|no CUDA backend' <<<"$message" && echo yes || echo "no: $message")"
    fi
fi
# prints "pid starts" once a CUDA process other than $1 is up (or found no GPU)
next_cuda_process() {
    local now=""
    for _ in $(seq 60); do
        now=$(q -c "SELECT service_pid || ' ' || service_starts FROM gpu_histogram_stats() WHERE service_state IN ('up', 'no GPU')")
        [ -n "$now" ] && [ "$now" != "$1" ] && break
        sleep 1
    done
    echo "$now"
}
old=$(q -c "SELECT service_pid || ' ' || service_starts FROM gpu_histogram_stats()")
kill -TERM "${old% *}"
new=$(next_cuda_process "$old")
check "SIGTERM to the CUDA process: the supervisor starts a new one (pid, starts: $old -> $new)" yes \
    "$( [ -n "$new" ] && [ "${new#* }" = $(( ${old#* } + 1 )) ] && echo yes || echo no)"
check "the same supervisor" "$supervisor" "$(ps -o ppid= -p "${new% *}" | tr -d ' ')"
kill -TERM "$supervisor"
newer=$(next_cuda_process "$new")
new_supervisor=$(ps -o ppid= -p "${newer% *}" | tr -d ' ')
check "SIGTERM to the supervisor: the postmaster starts a new one, with a new CUDA process ($new -> $newer)" yes \
    "$( [ -n "$newer" ] && [ "${newer#* }" = $(( ${new#* } + 1 )) ] && [ -n "$new_supervisor" ] &&
        [ "$new_supervisor" != "$supervisor" ] && echo yes || echo no)"
check "the old CUDA process is gone with its supervisor" no \
    "$(kill -0 "${new% *}" 2>/dev/null && echo yes || echo no)"
check "and the next query is still right" t "$(q -c "SELECT gpu_histogram(x, 0, 1, 10) = $reference FROM pc")"
pg_temp_stop
trap - EXIT

if [ $failures = 0 ]; then echo "preload checks: all passed"; else echo "preload checks: $failures FAILED"; fi
exit $failures
