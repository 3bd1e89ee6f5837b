#!/usr/bin/env bash
# run_dashboard_shapes.sh: dashboard_shapes.py against the server PGHOST,
# PGPORT and PGUSER name (run_suite.sh's throwaway one), in a database of
# its own made from setup.sql and dropped after.
#
#   bash test/differential/run_dashboard_shapes.sh
#
# GH_SHAPES_QUERIES (300) and GH_SHAPES_SEED (1) change the run.  Exit
# status 1 where a query's answer or error differed from the ordinary plan's.
set -uo pipefail
cd "$(dirname "$0")/../.."
db=gh_dashboard_shapes
psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || exit 1
PGDATABASE=$db psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
    -c "CREATE EXTENSION gpu_histogram" -f test/differential/setup.sql >/dev/null || exit 1
PGDATABASE=$db python3 test/differential/dashboard_shapes.py --queries "${GH_SHAPES_QUERIES:-300}" \
    --seed "${GH_SHAPES_SEED:-1}"
rc=$?
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
exit $rc
