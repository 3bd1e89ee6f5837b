#!/usr/bin/env bash
# run_suite.sh: builds, installs and runs every test of gpu_histogram
# against one PostgreSQL major; test/run_all_tests.sh runs it for each.
#
#   GH_PG_MAJOR=18 bash test/run_suite.sh     # or PG_CONFIG=/path/to/pg_config
#
# 1. installs missing packages (or builds the server from source, for a
#    major Debian 12 lacks), `make`, `make install` (test/lib/prepare.sh)
# 2. `make unittest`: the engine's GoogleTest suite under CTest; its CUDA
#    tests skip themselves on a machine without a GPU.  The engine includes
#    no PostgreSQL header, so GH_SKIP_UNITTEST=1 skips it for a second major
# 3. `make installcheck`: the pg_regress suite (sql/, expected/) against a
#    throwaway server
# 4. test/gpu/run_gpu_checks.sh, with that server, when the file exists; it
#    skips itself without a GPU (reported as skipped when it exits 77, or
#    exits 0 having printed "SKIPPED"); then the page checks, and
#    test/differential/run_dashboard_shapes.sh: 300 random dashboard queries,
#    each with the scan and with the ordinary plan, the same answers or errors
# 5. test/fdw/run_shard_checks.sh: three shard servers and a coordinator of
#    its own, on 127.0.0.1, through postgres_fdw; skipped (exit 77) when
#    postgres_fdw is not installed
#    then test/scan/buffer_hint_checks.sh: pages pinned through the buffers
#    they were last seen in, after the pages moved, on a 16 MB buffer pool
# 6. test/service/run_preload_checks.sh: the GPU service from the outside, on
#    a server without the library preloaded and one with it
# 7. test/service/run_crash_isolation.sh: the CUDA process killed with
#    SIGSEGV, SIGABRT and SIGKILL under queries and an open transaction; the
#    server must not restart
# 8. test/sqlsmith/run_sqlsmith.sh: random queries (sqlsmith, installed when
#    missing) against a throwaway server of its own, 18,000 by default within
#    a few minutes; fails if the server crashed or the extension raised an
#    internal error (SQLSTATE class XX); skipped (exit 77) when sqlsmith
#    cannot be installed
#    then test/timescaledb/run_timescaledb_checks.sh: the scan over
#    TimescaleDB hypertables with time_bucket keys, on 17 (TimescaleDB built
#    from source) and 18 (in a sid chroot); skipped on other majors
#    then test/packaging/run_package_checks.sh: the Debian package
#    (dpkg-buildpackage), installed into a clean Debian 12 chroot with
#    Debian's PostgreSQL 15, passes pg_buildext installcheck there; on 18
#    the same inside the sid chroot, against sid's server; skipped on 17
# 9. test/check_doc_links.py: every relative link and #anchor of README.md
#    and docs/*.md points at a file and a heading that exist; then
#    test/check_release.py: LICENSE, CHANGELOG.md and META.json agree with
#    the control file's default_version
#
# Every step after the build runs even if an earlier one failed; the summary
# at the end lists each, and the exit status is non-zero if any failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source test/lib/prepare.sh

# The first GPU the driver lists; fails where there is none (or no driver).
gpu_visible() {
    local gpus
    gpus=$(nvidia-smi -L 2>/dev/null) && [ -n "$gpus" ] || return 1
    echo "${gpus%%$'\n'*}"
}

# Without a GPU the CUDA backend is only compiled here, never run.  Two
# targets reach each of its code paths: sm_90's machine code, and
# compute_75's PTX (no ptxas) for the branches of GPUs before sm_80 and
# sm_90.  The default six take ptxas most of the suite's build (on 2
# cores, 15.5 minutes for the library; 7 with these two, the unit tests
# included).  A GPU host builds them all, as `make` does for a user.
if [ -z "${GH_CUDA_ARCHITECTURES:-}" ] && ! gpu_visible >/dev/null; then
    export GH_CUDA_ARCHITECTURES="75-virtual;90-real"
    echo "no GPU here: the CUDA backend is compiled for sm_90 and compute_75's PTX only (GH_CUDA_ARCHITECTURES=$GH_CUDA_ARCHITECTURES)"
fi
gh_prepare

LOGS=$GH_ROOT/build/test-logs/pg$GH_PG_SERVER_MAJOR
mkdir -p "$LOGS"
SUMMARY=()
FAILED=0
record() { # record NAME RESULT [DETAIL]
    SUMMARY+=("$(printf '  %-26s %-8s %s' "$1" "$2" "${3:-}")")
    [ "$2" != FAILED ] || FAILED=1
}
record "build + install" ok "CUDA backend built: $(gh_cuda_backend_built)${GH_CUDA_ARCHITECTURES:+ ($GH_CUDA_ARCHITECTURES)}"

# -- 2. engine unit tests --------------------------------------------------
if [ "${GH_SKIP_UNITTEST:-0}" = 1 ]; then
    record "unit tests (CTest)" skipped "the engine has no PostgreSQL version: run with the first major"
else
    gh_step "make unittest (GoogleTest under CTest)"
    if make "${GH_MAKE_VARS[@]}" unittest 2>&1 | tee "$LOGS/unittest.log"; then
        result=ok
    else
        result=FAILED
    fi
    detail=$(grep -E 'tests passed|tests failed' "$LOGS/unittest.log" | tail -n 1 | sed 's/^ *//') || true
    skipped=$(grep -c -F '***Skipped' "$LOGS/unittest.log") || true
    [ "${skipped:-0}" = 0 ] || detail="$detail; $skipped skipped (no GPU?)"
    record "unit tests (CTest)" "$result" "$detail"
fi

# -- 3. regression tests ---------------------------------------------------
# shellcheck disable=SC2119  # no postgres options: the defaults
gh_start_server
gh_step "make installcheck (pg_regress)"
rm -f regression.diffs regression.out "$LOGS/regression.diffs"
if make "${GH_MAKE_VARS[@]}" installcheck 2>&1 | tee "$LOGS/installcheck.log"; then
    result=ok
else
    result=FAILED
    if [ -s regression.diffs ]; then
        gh_step "regression.diffs"
        cat regression.diffs
        cp regression.diffs "$LOGS/regression.diffs" # run_all_tests.sh repeats its changed lines last
    fi
    gh_step "last lines of the server log"
    tail -n 40 "$PG_TEMP_DIR/server.log" || true
fi
detail=$(grep -E 'tests? (passed|failed)|tests? .* failed' "$LOGS/installcheck.log" | tail -n 1 | sed 's/^ *//; s/ *$//') || true
if [ "$result" = FAILED ] && [ -z "$detail" ]; then
    detail="pg_regress did not finish; see the output above"
elif [ "$result" = FAILED ] && [ -s regression.diffs ]; then
    detail="$detail (diffs printed above, also in regression.diffs)"
fi
record "regression (pg_regress)" "$result" "$detail"

# -- 4. GPU checks -----------------------------------------------------------
if [ -f test/gpu/run_gpu_checks.sh ]; then
    gh_step "bash test/gpu/run_gpu_checks.sh"
    set +e
    bash test/gpu/run_gpu_checks.sh 2>&1 | tee "$LOGS/gpu_checks.log"
    rc=${PIPESTATUS[0]}
    set -e
    last=$(grep -v '^[[:space:]]*$' "$LOGS/gpu_checks.log" | tail -n 1 | cut -c1-110) || true
    case $rc in
        0) if grep -q -i 'skipped' "$LOGS/gpu_checks.log"; then
               record "GPU checks" skipped "$last"
           else
               record "GPU checks" ok "$last"
           fi ;;
        77) record "GPU checks" skipped "$last" ;;
        *) record "GPU checks" FAILED "exit status $rc: $last" ;;
    esac
else
    record "GPU checks" skipped "test/gpu/run_gpu_checks.sh does not exist"
fi

# Runs a check script and records it: exit 0 ok, 77 skipped, anything else
# FAILED with its first FAIL line.  The page checks use this section's
# server; the later scripts start their own.
run_checks() { # name, script, log, script arguments...
    gh_step "bash $2${4:+ ${*:4}}"
    set +e
    bash "$2" "${@:4}" 2>&1 | tee "$LOGS/$3"
    local rc=${PIPESTATUS[0]}
    set -e
    local last
    last=$(grep -v '^[[:space:]]*$' "$LOGS/$3" | tail -n 1 | cut -c1-110) || true
    case $rc in
        0) record "$1" ok "$last" ;;
        77) record "$1" skipped "$last" ;;
        *) record "$1" FAILED "exit status $rc: $(grep -m 1 'FAIL' "$LOGS/$3" | cut -c1-100)" ;;
    esac
}

# -- 4b. the scan's pages under concurrent writers (on the CPU path without a GPU) --
run_checks "pages under concurrent writers" test/gpu/page_checks.sh page_checks.log 20

# -- 4c. grouped and filtered pages (batched, and parsed on the CPU without a GPU) --
run_checks "grouped and filtered pages" test/gpu/grouped_page_checks.sh grouped_page_checks.log

# -- 4d. dashboards' shapes at random, with the scan and with the ordinary plan --
run_checks "dashboard shapes" test/differential/run_dashboard_shapes.sh dashboard_shapes.log

pg_temp_stop
trap - EXIT

# -- 5. scale-out over postgres_fdw --------------------------------------------
run_checks "shards (postgres_fdw)" test/fdw/run_shard_checks.sh shard_checks.log

# -- 5b. pages pinned through stale buffer hints, on a small buffer pool -------
run_checks "buffer hints" test/scan/buffer_hint_checks.sh buffer_hint_checks.log

# -- 6. the GPU service, with and without preloading ----------------------------
run_checks "GPU service (preload checks)" test/service/run_preload_checks.sh preload_checks.log

# -- 7. a dying CUDA process does not take the server down -----------------------
run_checks "GPU service (crash isolation)" test/service/run_crash_isolation.sh crash_isolation.log

# -- 8. random queries (sqlsmith) ----------------------------------------------
run_checks "random queries (sqlsmith)" test/sqlsmith/run_sqlsmith.sh sqlsmith.log

# -- 8b. TimescaleDB hypertables and time_bucket (17 and 18) -------------------
run_checks "TimescaleDB hypertables" test/timescaledb/run_timescaledb_checks.sh timescaledb.log "$GH_PG_SERVER_MAJOR"

# -- 8b. the Debian package, built and installed into a chroot (15, 18) --------
run_checks "Debian package" test/packaging/run_package_checks.sh package_checks.log "$GH_PG_SERVER_MAJOR"

# -- 9. the README's and the docs' links ---------------------------------------
gh_step "python3 test/check_doc_links.py"
if python3 test/check_doc_links.py 2>&1 | tee "$LOGS/doc_links.log"; then
    record "docs links" ok "$(tail -n 1 "$LOGS/doc_links.log")"
else
    record "docs links" FAILED "$(tail -n 1 "$LOGS/doc_links.log")"
fi

gh_step "python3 test/check_release.py"
if python3 test/check_release.py 2>&1 | tee "$LOGS/release.log"; then
    record "release metadata" ok "$(tail -n 1 "$LOGS/release.log")"
else
    record "release metadata" FAILED "$(tail -n 1 "$LOGS/release.log")"
fi

gh_step "summary"
if gpu=$(gpu_visible); then
    echo "  GPU: $gpu"
else
    echo "  GPU: none visible on this machine"
fi
echo "  PostgreSQL: $("$PG_CONFIG" --version) ($PG_CONFIG)"
printf '%s\n' "${SUMMARY[@]}" | tee "$LOGS/summary.txt"
echo "  logs: $LOGS"
if [ "$FAILED" = 0 ]; then
    echo "all tests passed on PostgreSQL $GH_PG_SERVER_MAJOR"
else
    echo "SOME TESTS FAILED on PostgreSQL $GH_PG_SERVER_MAJOR"
fi
exit "$FAILED"
