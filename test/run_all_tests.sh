#!/usr/bin/env bash
# run_all_tests.sh: every test of gpu_histogram, on every PostgreSQL major it
# supports that this machine can run.
#
#   bash test/run_all_tests.sh                    # 15, 17 and 18
#   bash test/run_all_tests.sh 18                 # or GH_PG_VERSIONS="17 18"
#   PG_CONFIG=/path/to/pg_config bash test/run_all_tests.sh   # that server only
#
# For each major, test/run_suite.sh installs what is missing (Debian's
# packages for 15; 17 and 18 built from source the first time, about two
# minutes each), builds the extension against that server and runs the whole
# suite: the engine's unit tests (once: the engine has no PostgreSQL
# version), pg_regress, the GPU checks, the pages under concurrent writers,
# postgres_fdw shards, buffer hints, the GPU service's checks and sqlsmith.
# 16 compiles by the same rules but is not run: Debian's archive has neither
# its packages for Debian 12 nor its source.
#
# Every major runs even if an earlier one failed; the summary at the end
# lists each step of each, and the exit status is non-zero if any failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -n "${PG_CONFIG:-}" ]; then
    versions=(user)
elif [ $# -gt 0 ]; then
    versions=("$@")
else
    read -r -a versions <<<"${GH_PG_VERSIONS:-15 17 18}"
fi

failed=0
first=1
rm -f build/test-logs/pg*/regression.diffs # an earlier run's
summaries=()
for major in "${versions[@]}"; do
    printf '\n######## PostgreSQL %s ########\n' "$major"
    started=$SECONDS
    set +e
    if [ "$major" = user ]; then
        GH_SKIP_UNITTEST=$((1 - first)) bash test/run_suite.sh
    else
        GH_PG_MAJOR=$major GH_SKIP_UNITTEST=$((1 - first)) bash test/run_suite.sh
    fi
    rc=$?
    set -e
    first=0
    if [ "$major" = user ]; then
        label=$("$PG_CONFIG" --version)
        major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
    else
        label="PostgreSQL $major"
    fi
    [ "$rc" = 0 ] || failed=1
    summaries+=("$label: $([ "$rc" = 0 ] && echo ok || echo FAILED) in $((SECONDS - started)) s")
    if [ -f "build/test-logs/pg$major/summary.txt" ]; then
        while IFS= read -r line; do summaries+=("  $line"); done <"build/test-logs/pg$major/summary.txt"
    fi
done

printf '\n==> summary of every PostgreSQL major\n'
printf '%s\n' "${summaries[@]}"
# A failed pg_regress's changed lines once more, last: a CI log that keeps
# only its head and tail still shows them.
for diffs in build/test-logs/pg*/regression.diffs; do
    [ -f "$diffs" ] || continue
    printf '\n==> changed lines of %s (the first 60)\n' "$diffs"
    grep -E '^([-+@]|diff )' "$diffs" | grep -vE '^(\+\+\+|---) ' | head -n 60 || true
done
if [ "$failed" = 0 ]; then
    echo "all tests passed on: ${versions[*]}"
else
    echo "SOME TESTS FAILED"
fi
exit "$failed"
