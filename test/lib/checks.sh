#!/usr/bin/env bash
# checks.sh: the few helpers that the service check scripts share, sourced.
#
#   check NAME EXPECTED ACTUAL   prints "ok" or "FAILED" and counts failures
#   q ARGS...                    psql, unaligned, tuples only, stopping at an error
#   sqlstate_of ARGS...          the SQLSTATE of the error psql ARGS raises, or "none"
failures=0
check() { # name, expected, actual
    if [ "$2" = "$3" ]; then echo "  ok      $1"; else echo "  FAILED  $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@" 2>&1; }
sqlstate_of() {
    local out
    out=$(psql -X -q -At -v VERBOSITY=verbose "$@" 2>&1 >/dev/null | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -1)
    echo "${out:-none}"
}
