#!/usr/bin/env bash
# run_crash_isolation.sh: a dying CUDA process never takes the server down.
#
#   bash test/service/run_crash_isolation.sh
#
# On a throwaway server with gpu_histogram preloaded (with or without a GPU:
# without one, the CUDA process is the one that found none), the CUDA
# process is killed with SIGSEGV, SIGABRT and SIGKILL in turn, and then made
# to die by SIGSEGV while it holds the service's lock
# (gpu_histogram.debug_crash_cuda_process), while one
# session holds an open transaction that has written a row and another runs
# histogram queries (device auto, and gpu) and writes.  Then the server must
# not have restarted (same postmaster start time, no "terminating any other
# active server processes" in its log), the open transaction commits, every
# histogram the busy session got equals width_bucket's (or, for device gpu,
# failed with 38000), the CUDA process came back each time with a new pid
# and service_starts one higher, nothing is left held in the service, and
# later histograms equal width_bucket's.
#
# Environment: GH_KILL_LOAD_CLIENTS (default 0) adds that many pgbench
# clients running histogram queries and inserts during the kills (the H100
# session uses 32); their failures must be ERROR 38000 only, and no insert
# may fail.  Exits 0 when every check passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/checks.sh
source test/lib/checks.sh
load_clients=${GH_KILL_LOAD_CLIENTS:-0}

# shellcheck source=../pg_temp_server.sh
source test/pg_temp_server.sh -c max_connections=120 || exit 1
work=$PG_TEMP_DIR/work
mkdir -p "$work" && chmod 777 "$work"
q -c "CREATE EXTENSION gpu_histogram" \
  -c "CREATE TABLE pc AS SELECT (i * 0.6180339887498949::float8) - floor(i * 0.6180339887498949::float8) AS x
      FROM generate_series(1, 1000000) i" \
  -c "CREATE TABLE ledger (id bigserial PRIMARY KEY, who text, at timestamptz DEFAULT now())" \
  -c "VACUUM ANALYZE pc" >/dev/null
reference="(SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 11) b
            LEFT JOIN (SELECT width_bucket(x, 0, 1, 10) b, count(*) c FROM pc GROUP BY 1) w USING (b))"
q -c "CREATE TABLE expected AS SELECT $reference AS h" >/dev/null
# A histogram query's outcome: equal to width_bucket's, or ERROR 38000 (the
# GPU requests a dying CUDA process held, or no GPU), or, for device = gpu in
# a build without CUDA, 0A000; a wrong histogram or any other error is raised.
q -c "CREATE TABLE outcomes (device text, outcome text)" \
  -c "CREATE FUNCTION histogram_or_38000(device text) RETURNS text LANGUAGE plpgsql AS \$\$
      BEGIN
          PERFORM set_config('gpu_histogram.device', device, true);
          IF (SELECT gpu_histogram(x, 0, 1, 10) FROM pc) IS DISTINCT FROM (SELECT h FROM expected) THEN
              RAISE EXCEPTION 'wrong histogram with device %', device;
          END IF;
          RETURN 'equal';
      EXCEPTION WHEN SQLSTATE '38000' THEN
          RETURN '38000';
      WHEN SQLSTATE '0A000' THEN
          RETURN 'no CUDA backend'; -- device = gpu in a build without CUDA (WITH_CUDA=no)
      END \$\$" >/dev/null

wait_for_service() { # prints "pid starts" once the CUDA process is up (or found no GPU) and differs from $1
    local now=""
    for _ in $(seq 150); do
        now=$(q -c "SELECT service_pid || ' ' || service_starts FROM gpu_histogram_stats() WHERE service_state IN ('up', 'no GPU')")
        if [ -n "$now" ] && [ "$now" != "${1:-}" ]; then echo "$now"; return 0; fi
        sleep 0.2
    done
    echo "${now:-none}"
}
first=$(wait_for_service "")
state=$(q -c "SELECT service_state FROM gpu_histogram_stats()")
echo "CUDA process: pid ${first% *}, state $state"
started=$(q -c "SELECT pg_postmaster_start_time()")

# Session 2: a transaction that has written and stays open across the kills.
mkfifo "$work/tx.in"
psql -X -q -At -v ON_ERROR_STOP=1 <"$work/tx.in" >"$work/tx.out" 2>&1 &
tx_psql=$!
exec 3>"$work/tx.in"
echo "BEGIN; INSERT INTO ledger (who) VALUES ('open transaction'); SELECT 'tx backend ' || pg_backend_pid();" >&3

# Session 3: one backend running histogram queries and writes until told to stop.
cat >"$work/busy.sql" <<'EOF'
\set ON_ERROR_STOP 0
SET max_parallel_workers_per_gather = 2;
SELECT 'busy backend ' || pg_backend_pid();
EOF
for i in $(seq 3000); do
    cat >>"$work/busy.sql" <<EOF
SELECT 'auto ' || histogram_or_38000('auto');
INSERT INTO ledger (who) VALUES ('busy $i');
SELECT 'gpu ' || histogram_or_38000('gpu');
SELECT count(*) > 0 AS stop FROM pg_stat_activity WHERE application_name = 'gh_stop_busy' \\gset
\\if :stop
\\q
\\endif
EOF
done
psql -X -q -At -v VERBOSITY=verbose -f "$work/busy.sql" >"$work/busy.out" 2>&1 &
busy_psql=$!

# Optional load: pgbench clients with histogram queries and inserts.  A
# wrong histogram raises an error, which aborts the client (pgbench counts
# it); the GPU requests lost with the CUDA process (38000) are counted.
if [ "$load_clients" -gt 0 ]; then
    for device in auto gpu; do
        printf '%s\n' "INSERT INTO outcomes SELECT '$device', histogram_or_38000('$device');" \
            "INSERT INTO ledger (who) VALUES ('load');" \
            >"$work/load_$device.sql"
    done
    pgbench -n -c "$load_clients" -j 8 -T 25 -f "$work/load_auto.sql" -f "$work/load_gpu.sql" \
        >"$work/load.out" 2>&1 &
    load_pid=$!
fi
sleep 2

previous=$first
for sig in SEGV ABRT KILL SEGV-holding-the-lock; do
    pid=${previous% *}
    if [ "$sig" = SEGV-holding-the-lock ]; then
        # the worst moment: every client needs the lock the dead process held
        q -c "SET gpu_histogram.debug_crash_cuda_process = on" >/dev/null
    else
        kill -"$sig" "$pid"
    fi
    now=$(wait_for_service "$previous")
    check "SIG$sig to the CUDA process (pid $pid): a new one runs (pid, starts: $previous -> $now)" yes \
        "$( [ "$now" != none ] && [ "${now#* }" = $(( ${previous#* } + 1 )) ] && echo yes || echo no)"
    previous=$now
    sleep 2
done

if [ "$load_clients" -gt 0 ]; then
    wait "$load_pid"
fi
PGAPPNAME=gh_stop_busy psql -X -q -At -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
stopper=$!
wait "$busy_psql"
kill "$stopper" 2>/dev/null; wait "$stopper" 2>/dev/null

echo "INSERT INTO ledger (who) VALUES ('open transaction, after the kills'); COMMIT; SELECT 'committed';" >&3
exec 3>&-
wait "$tx_psql"

check "the open transaction committed on its original connection" "committed" "$(tail -n 1 "$work/tx.out")"
check "both of its rows are there" 2 "$(q -c "SELECT count(*) FROM ledger WHERE who LIKE 'open transaction%'")"
check "the server never restarted (postmaster start time)" "$started" "$(q -c "SELECT pg_postmaster_start_time()")"
check "no crash recovery in the server log" 0 \
    "$(grep -c -E 'terminating any other active server processes|all server processes terminated' "$PG_TEMP_DIR/server.log")"
check "the supervisor logged each death" 4 \
    "$(grep -c -E 'the CUDA process \(pid [0-9]+\) was terminated by signal (6|9|11)' "$PG_TEMP_DIR/server.log")"
busy_backends=$(grep -c '^busy backend ' "$work/busy.out")
auto_all=$(grep -c '^auto ' "$work/busy.out")
auto_equal=$(grep -c '^auto equal$' "$work/busy.out")
auto_38000=$(grep -c '^auto 38000$' "$work/busy.out")
gpu_equal=$(grep -c '^gpu equal$' "$work/busy.out")
gpu_38000=$(grep -c '^gpu 38000$' "$work/busy.out")
gpu_all=$(grep -c '^gpu ' "$work/busy.out")
gpu_no_cuda=$(grep -c '^gpu no CUDA backend$' "$work/busy.out")
errors=$(grep -c 'ERROR' "$work/busy.out")
echo "busy session: auto $auto_equal equal to width_bucket's, $auto_38000 ERROR 38000; gpu $gpu_equal equal, $gpu_38000 ERROR 38000, $gpu_no_cuda 0A000 (no CUDA backend); $errors other errors"
check "the busy session kept its one backend" 1 "$busy_backends"
check "it ran histograms through the kills" yes "$( [ "$auto_all" -ge 3 ] && echo yes || echo no)"
if [ "$state" = up ]; then
    check "every histogram equals width_bucket's or failed with 38000" "$auto_all" "$((auto_equal + auto_38000))"
else
    check "every auto histogram equals width_bucket's (binned on the CPU)" "$auto_all" "$auto_equal"
fi
check "every gpu histogram equals width_bucket's or failed as it should" "$gpu_all" "$((gpu_equal + gpu_38000 + gpu_no_cuda))"
check "no other error, no wrong histogram" 0 "$errors"
check "its inserts all committed" "$(grep -c '^auto ' "$work/busy.out")" \
    "$(q -c "SELECT count(*) FROM ledger WHERE who LIKE 'busy %'")"
if [ "$load_clients" -gt 0 ]; then
    echo "pgbench load ($load_clients clients):"
    grep -E 'number of (transactions|failed)|aborted|tps|ERROR' "$work/load.out" | head -20
    q -c "SELECT device || ': ' || outcome || ' ' || count(*) FROM outcomes GROUP BY device, outcome ORDER BY 1" | sed 's/^/    /'
    check "pgbench: no client aborted (no wrong histogram, no error but 38000)" 0 \
        "$(grep -c -E 'aborted|ERROR' "$work/load.out")"
    check "pgbench: every transaction's insert is there" \
        "$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/load.out")" \
        "$(q -c "SELECT count(*) FROM ledger WHERE who = 'load'")"
fi
sleep 1
check "nothing is left held in the service" "0|0" \
    "$(q -c "SELECT service_slots_in_use || '|' || service_device_histograms FROM gpu_histogram_stats()")"
check "afterwards, a histogram equals width_bucket's" t \
    "$(q -c "SELECT gpu_histogram(x, 0, 1, 10) = (SELECT h FROM expected) FROM pc")"
if [ "$state" = up ]; then
    check "and device = 'gpu' works again" t \
        "$(q -c "SET gpu_histogram.device = gpu" -c "SELECT gpu_histogram(x, 0, 1, 10) = (SELECT h FROM expected) FROM pc")"
fi
pg_temp_stop
trap - EXIT

if [ $failures = 0 ]; then echo "crash isolation checks: all passed"; else echo "crash isolation checks: $failures FAILED"; fi
exit $failures
