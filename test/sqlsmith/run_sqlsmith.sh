#!/usr/bin/env bash
# run_sqlsmith.sh: random queries against gpu_histogram (sqlsmith), to find
# queries that crash the server or make the extension fail with an internal
# error.
#
#   bash test/sqlsmith/run_sqlsmith.sh
#
# Installs sqlsmith (Debian package `sqlsmith`) if it is missing, starts a
# throwaway server of its own (test/pg_temp_server.sh, the library
# preloaded), and fills a database from setup.sql: tables of every type the
# aggregate takes (NULLs, infinities, NaN, extreme values), stored histograms
# and thresholds (malformed ones too), and views that call every function of
# the extension.  Then sqlsmith runs twice, as a role that is not a superuser
# and with a fixed seed: serially, and with parallel plans made free.  Each
# run stops after a number of queries or a time limit, whichever comes first.
# setup.sql also points sqlsmith at the extension: see its last section.
#
# Passes when the server never crashed (no backend or worker terminated by a
# signal, no PANIC, no restart of all processes; pg_postmaster_start_time()
# unchanged and the server still answering) and the extension's code raised
# no internal error (SQLSTATE class XX, with its LOCATION in one of our .cpp
# files).  Ordinary errors are expected (sqlsmith's queries are random); the
# extension's are counted by SQLSTATE and message.  An internal error from
# PostgreSQL's own code is printed as a warning.
#
# Exit status: 0 passed, 77 skipped (sqlsmith is not installed and cannot be),
# anything else failed.  Settings (environment):
#   GH_SQLSMITH_QUERIES           queries of the serial run (15000)
#   GH_SQLSMITH_PARALLEL_QUERIES  queries of the parallel run (3000)
#   GH_SQLSMITH_SECONDS           time limit of each run, in seconds (120)
#   GH_SQLSMITH_SEED              seed of the serial run; the parallel run
#                                 uses the next one (1)
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/prepare.sh
source test/lib/prepare.sh

QUERIES=${GH_SQLSMITH_QUERIES:-15000}
PARALLEL_QUERIES=${GH_SQLSMITH_PARALLEL_QUERIES:-3000}
SECONDS_PER_RUN=${GH_SQLSMITH_SECONDS:-120}
SEED=${GH_SQLSMITH_SEED:-1}
LOGS=$GH_ROOT/build/test-logs/sqlsmith
mkdir -p "$LOGS"

if ! command -v sqlsmith >/dev/null 2>&1; then
    ( gh_apt_install sqlsmith ) || true
fi
if ! command -v sqlsmith >/dev/null 2>&1; then
    echo "SKIPPED: sqlsmith is not installed and could not be installed (Debian package sqlsmith)"
    exit 77
fi

if [ -z "${PG_BIN:-}" ]; then
    PG_BIN=$("${PG_CONFIG:-pg_config}" --bindir) || { echo "FAILED: no pg_config (set PG_CONFIG)"; exit 1; }
    export PG_BIN PATH=$PG_BIN:$PATH
fi

echo "== a throwaway server, and sqlsmith's database"
# log_error_verbosity=verbose: each error's SQLSTATE and source location in the log
# shellcheck source=../pg_temp_server.sh
source test/pg_temp_server.sh -c log_error_verbosity=verbose -c track_activity_query_size=32768 \
    -c gpu_histogram.service_slots=2 || exit 1
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE sqlsmith" >/dev/null || { echo "FAILED: CREATE DATABASE"; exit 1; }
psql -X -q -d sqlsmith -f test/sqlsmith/setup.sql >"$LOGS/setup.log" 2>&1 ||
    { cat "$LOGS/setup.log"; echo "FAILED: test/sqlsmith/setup.sql"; exit 1; }
started=$(psql -X -At -c "SELECT pg_postmaster_start_time()")
target="host=$PGHOST port=$PGPORT dbname=sqlsmith user=smith options='-c search_path=smith_focus,pg_catalog,public"

total=0
run_failed=0
begin=$(date +%s)
run_sqlsmith() { # name, queries, seed, extra options
    local log=$LOGS/$1.log rc queries start=$SECONDS
    echo "== sqlsmith, $1: up to $2 queries or ${SECONDS_PER_RUN} s, seed $3"
    timeout -s INT "$SECONDS_PER_RUN" sqlsmith --verbose --exclude-catalog --seed="$3" --max-queries="$2" \
        --target="$target $4'" >/dev/null 2>"$log"
    rc=$?
    # --verbose ends with a report, also when the time limit interrupts it
    queries=$(sed -n 's/^queries: \([0-9]*\)$/\1/p' "$log" | tail -n 1)
    echo "   ${queries:-0} queries in $((SECONDS - start)) s, $(grep -m 1 '^error rate' "$log" || echo 'no report')," \
         "exit status $rc (log: $log)"
    total=$((total + ${queries:-0}))
    if { [ "$rc" != 0 ] && [ "$rc" != 124 ]; } || [ -z "$queries" ]; then
        echo "   FAILED: sqlsmith itself failed:"; grep -v '^[.eSCt]*$' "$log" | tail -n 5
        run_failed=1
    fi
}
run_sqlsmith serial "$QUERIES" "$SEED" ""
run_sqlsmith parallel "$PARALLEL_QUERIES" "$((SEED + 1))" \
    "-c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0"
elapsed=$(($(date +%s) - begin))

echo "== the server after $total queries"
failures=$run_failed
alive=$(psql -X -At -c "SELECT pg_postmaster_start_time()" 2>&1)
if [ "$alive" != "$started" ]; then
    echo "  FAILED  the server restarted or does not answer: started $started, now: $alive"
    failures=$((failures + 1))
fi
cp "$PG_TEMP_DIR/server.log" "$LOGS/server.log"

# The log's entries: each ERROR with its LOCATION (verbose) and STATEMENT,
# and each crash with the query that was running (continuation lines kept).
python3 - "$LOGS/server.log" <<'PY' >"$LOGS/errors.txt"
import collections, re, sys
prefixed = re.compile(r"^\d{4}-\d\d-\d\d \S+ \S+ \[\d+\] ([A-Z]+):  (.*)")
entries, last = [], None
for line in open(sys.argv[1], errors="replace"):
    m = prefixed.match(line)
    if not m:
        if last is not None:
            last[1] += line  # a statement's later lines
        continue
    last = [m.group(1), m.group(2)]
    if last[0] in ("ERROR", "LOG", "WARNING", "FATAL", "PANIC", "NOTICE"):
        entries.append({"kind": last[0], "line": last, "fields": {}})
    elif entries:
        entries[-1]["fields"][last[0]] = last
text = lambda e: e["line"][1].rstrip()
field = lambda e, name: e["fields"].get(name, ["", ""])[1].rstrip()
crash = re.compile(r"terminated by signal|was terminated by exception|all server processes terminated")
errors = [e for e in entries if e["kind"] == "ERROR"]
ours = [e for e in errors if re.search(r"\.cpp:\d+$", field(e, "LOCATION"))]
print(f"errors {len(errors)} ours {len(ours)}")
for e in entries:
    if e["kind"] == "PANIC" or crash.search(text(e)):
        print(f"CRASH {e['kind']}: {text(e)}\n{field(e, 'DETAIL')[:5000]}\n--")
for e in errors:
    if text(e).startswith("XX"):
        where = "OURS" if e in ours else "postgres"
        print(f"INTERNAL {where} {text(e)} at {field(e, 'LOCATION')}\n{field(e, 'STATEMENT')[:5000]}\n--")
def kind_of(e):  # "SQLSTATE: message", numbers in the message as N
    code, _, message = text(e).partition(": ")
    return f"{code}: {re.sub(r'[0-9]+', 'N', message)}"
for message, n in collections.Counter(kind_of(e) for e in ours).most_common():
    print(f"OURS {n:6d}  {message}")
PY
if grep -q '^CRASH ' "$LOGS/errors.txt"; then
    echo "  FAILED  crashes in the server log ($LOGS/server.log):"
    sed -n '/^CRASH /,/^--$/p' "$LOGS/errors.txt" | cut -c1-2000
    failures=$((failures + 1))
else
    echo "  ok      no process crashed"
fi
read -r _ nerrors _ nours < <(head -n 1 "$LOGS/errors.txt")
echo "  $nerrors errors in the log, $nours of them raised by gpu_histogram's code:"
grep '^OURS ' "$LOGS/errors.txt" | sed 's/^OURS /    /' | head -n 30
if grep -q '^INTERNAL OURS' "$LOGS/errors.txt"; then
    echo "  FAILED  internal errors (XX) raised by gpu_histogram's code:"
    sed -n '/^INTERNAL OURS/,/^--$/p' "$LOGS/errors.txt" | cut -c1-2000
    failures=$((failures + 1))
else
    echo "  ok      no internal error (XX) from gpu_histogram's code"
fi
if grep -q '^INTERNAL postgres' "$LOGS/errors.txt"; then
    echo "  warning internal errors (XX) from PostgreSQL's own code, not counted as failures" \
         "(statements in $LOGS/errors.txt):"
    grep '^INTERNAL postgres' "$LOGS/errors.txt" | sed 's/^INTERNAL postgres /    /' | cut -c1-300
fi

pg_temp_stop
trap - EXIT
if [ "$failures" != 0 ]; then
    echo "sqlsmith: FAILED ($failures problems in $total random queries; logs in $LOGS)"
    exit 1
fi
echo "sqlsmith: $total random queries in ${elapsed} s, no crash, no internal error from gpu_histogram"
