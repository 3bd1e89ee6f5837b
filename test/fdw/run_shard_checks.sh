#!/usr/bin/env bash
# run_shard_checks.sh: gpu_histogram scaled out over postgres_fdw, on one
# machine: three shard servers and a coordinator, all throwaway servers
# (test/pg_temp_server.sh) that listen on 127.0.0.1 only.
#
#   bash test/fdw/run_shard_checks.sh [--rows N] [--bench ROUNDS] [--json FILE]
#
# Every shard holds a third of the rows of one table (shard = i % 3 + 1) and
# the coordinator holds all of them, so that "the same rows on one server" is
# one table away.  Checks, each printed as ok or FAILED:
#   1. the coordinator's
#        SELECT gpu_histogram_merge(h) FROM (SELECT gpu_histogram(x, 0, 1, 256) h
#        FROM shard_1 UNION ALL ... shard_3) s
#      equals gpu_histogram over all rows on one server, and the histogram
#      that width_bucket and GROUP BY give there;
#   2. its EXPLAIN VERBOSE has an Async Foreign Scan for every shard, and
#      gpu_histogram( in every shard's Remote SQL (the aggregate is pushed
#      down); without the server option extensions 'gpu_histogram' it is not;
#   3. a partitioned table whose partitions are the shards' foreign tables:
#      PostgreSQL 15 does not push gpu_histogram down (it would have to push
#      a partial aggregate), so every row travels, and the answer is still
#      right; GROUP BY the partition key is pushed down, a whole aggregate per
#      shard, and merged;
#   4. a shard that is down: the query fails with SQLSTATE 08001 and returns
#      no row, both in a session that had a connection to it and in a fresh
#      one; once the shard is back, the same query gives the same answer.
# With --bench ROUNDS it then times, with test/bench/sql_timing.py on the
# coordinator, count(x) and gpu_histogram over all rows on the one server
# against the three-shard query with and without asynchronous execution, and
# the partitioned table.  Every server runs with
# max_parallel_workers_per_gather = 0: one core per server.
#
# GH_SHARD_SERVER_OPTIONS adds postgres options to every server (the GPU run
# uses "-c gpu_histogram.device=gpu").
# PG_BIN (default: pg_config --bindir, as test/pg_temp_server.sh) names the
# server; gpu_histogram must be installed there.  Exit status 0 if every
# check passed, 1 if one failed, 77 (with "SKIPPED") if postgres_fdw is not
# installed.  Run it as root or as any user: as root the servers run as an
# unprivileged user.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rows=300000 bench_rounds=0 json=""
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift ;;
        --bench) bench_rounds=$2; shift ;;
        --json) json=$2; shift ;;
        -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
PG_BIN=${PG_BIN:-$(pg_config --bindir)}
export PG_BIN PATH=$PG_BIN:$PATH
step() { printf '\n==> %s  (%s)\n' "$*" "$(date +%T)"; }
# Skip at once if postgres_fdw is plainly missing (checked again by the server).
if [ -x "$PG_BIN/pg_config" ] &&
        [ ! -f "$("$PG_BIN/pg_config" --sharedir)/extension/postgres_fdw.control" ]; then
    echo "SKIPPED: postgres_fdw is not installed in $("$PG_BIN/pg_config" --sharedir) (Debian: it comes with postgresql-15)"
    exit 77
fi

# The servers: 0 is the coordinator, 1 to 3 the shards ---------------------
DIRS=() PORTS=()
stop_all() {
    local dir
    for dir in "${DIRS[@]}"; do
        pg_as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
        rm -rf "$dir"
    done
}
trap stop_all EXIT
next_port=${GH_PGPORT:-54320}
start_server() {
    local rc=0
    # shellcheck source=../pg_temp_server.sh
    GH_PGPORT=$next_port source "$ROOT/test/pg_temp_server.sh" -c listen_addresses=127.0.0.1 \
        -c max_parallel_workers_per_gather=0 ${GH_SHARD_SERVER_OPTIONS:-} || rc=$?
    trap stop_all EXIT # replaces pg_temp_server.sh's, which knows only the last server
    DIRS+=("$PG_TEMP_DIR")
    [ $rc = 0 ] || { echo "FAILED: could not start a server"; exit 1; }
    PORTS+=("$PGPORT")
    next_port=$((PGPORT + 1))
}
step "starting a coordinator and three shards on 127.0.0.1"
for n in 0 1 2 3; do start_server; done
unset PGHOST PGPORT
echo "coordinator on port ${PORTS[0]}, shards on ports ${PORTS[*]:1}, user $PGUSER"
# psql on server N, over TCP on the loopback
on() {
    local n=$1
    shift
    psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${PORTS[$n]}" -U "$PGUSER" -d postgres "$@"
}

available=$(on 0 -c "SELECT string_agg(name, ',' ORDER BY name) FROM pg_available_extensions
                     WHERE name IN ('gpu_histogram', 'postgres_fdw')")
if [[ $available != *postgres_fdw* ]]; then
    echo "SKIPPED: postgres_fdw is not installed in $PG_BIN/.. (Debian: it comes with postgresql-15)"
    exit 77
fi
[[ $available == *gpu_histogram* ]] || { echo "FAILED: gpu_histogram is not installed in $PG_BIN/.."; exit 1; }

# The rows -------------------------------------------------------------------
# Deterministic: the same expression on every server gives the same doubles.
# Some are NULL, some below 0 or at or above 1.
ROWS_SQL="SELECT i, (i % 3)::integer + 1 AS shard,
       CASE WHEN i % 997 = 0 THEN NULL
            ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.2 - 0.1 END AS x
FROM generate_series(1, $rows) AS i"
step "loading $rows rows: a third on each shard, all of them on the coordinator"
for s in 1 2 3; do
    on $s -c "CREATE EXTENSION gpu_histogram" \
          -c "CREATE TABLE readings AS SELECT * FROM ($ROWS_SQL) r WHERE shard = $s" \
          -c "VACUUM ANALYZE readings" &
done
on 0 -c "CREATE TABLE readings_all AS $ROWS_SQL" -c "VACUUM ANALYZE readings_all"
wait
echo "rows per shard: $(for s in 1 2 3; do on $s -c 'SELECT count(*) FROM readings'; done | tr '\n' ' ')"

# The coordinator: one foreign server per shard ------------------------------
step "coordinator: postgres_fdw servers with extensions 'gpu_histogram' and async_capable 'true'"
setup_sql=$({
    echo "CREATE EXTENSION gpu_histogram;"
    echo "CREATE EXTENSION postgres_fdw;"
    echo "CREATE TABLE readings_parted (i bigint, shard integer, x float8) PARTITION BY LIST (shard);"
    for s in 1 2 3; do
        cat <<SQL
CREATE SERVER shard_$s FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '${PORTS[$s]}', dbname 'postgres',
             extensions 'gpu_histogram', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_$s OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE shard_$s (i bigint, shard integer, x float8)
    SERVER shard_$s OPTIONS (table_name 'readings');
CREATE FOREIGN TABLE readings_parted_$s PARTITION OF readings_parted FOR VALUES IN ($s)
    SERVER shard_$s OPTIONS (table_name 'readings');
SQL
    done
    cat <<SQL
-- the same shard without the extensions option, for comparison
CREATE SERVER shard_1_no_ext FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '${PORTS[1]}', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_1_no_ext OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE shard_1_no_ext (i bigint, shard integer, x float8)
    SERVER shard_1_no_ext OPTIONS (table_name 'readings');
SQL
})
echo "$setup_sql"
on 0 >/dev/null <<<"$setup_sql"

MERGE_SQL="SELECT gpu_histogram_merge(h) FROM (
    SELECT gpu_histogram(x, 0, 1, 256) AS h FROM shard_1
    UNION ALL SELECT gpu_histogram(x, 0, 1, 256) FROM shard_2
    UNION ALL SELECT gpu_histogram(x, 0, 1, 256) FROM shard_3) s"
PARTED_SQL="SELECT gpu_histogram(x, 0, 1, 256) FROM readings_parted"
PARTED_GROUPED_SQL="SELECT gpu_histogram_merge(h) FROM (
    SELECT gpu_histogram(x, 0, 1, 256) AS h FROM readings_parted GROUP BY shard) s"
ONE_SQL="SELECT gpu_histogram(x, 0, 1, 256) FROM readings_all"
REF_SQL="WITH g AS (SELECT width_bucket(x, 0, 1, 256) AS b, count(*) AS n FROM readings_all
                   WHERE x IS NOT NULL GROUP BY 1)
SELECT array_agg(coalesce(g.n, 0) ORDER BY b) FROM generate_series(0, 257) AS b LEFT JOIN g USING (b)"

FAILED=0
check() { # NAME, then ok or a reason
    if [ "$2" = ok ]; then
        printf '  ok      %s\n' "$1"
    else
        printf '  FAILED  %s: %s\n' "$1" "$2"
        FAILED=1
    fi
}
same() { # A B: ok, or why not
    if [ -z "$1" ]; then echo "no result"; elif [ "$1" = "$2" ]; then echo ok; else echo "differs: ${1:0:60}... against ${2:0:60}..."; fi
}
count_lines() { # PATTERN TEXT
    grep -c -E -- "$1" <<<"$2" || true
}

# 1. The answer ---------------------------------------------------------------
step "1. three shards merged against one server"
merged=$(on 0 -c "$MERGE_SQL" 2>&1) || true
one=$(on 0 -c "$ONE_SQL")
ref=$(on 0 -c "$REF_SQL")
nonnull=$(on 0 -c "SELECT count(x) FROM readings_all")
echo "merged: ${merged:0:100}..."
check "merge of the shards' histograms = gpu_histogram over all rows on one server" "$(same "$merged" "$one")"
check "= width_bucket ... GROUP BY on that server" "$(same "$merged" "$ref")"
total=$(on 0 -c "SELECT sum(c) FROM unnest('$merged'::bigint[]) AS c" 2>&1) || true
check "the counts add up to count(x) = $nonnull" "$(same "$total" "$nonnull")"

# 2. The plan -------------------------------------------------------------------
step "2. EXPLAIN VERBOSE of the three-shard query"
plan=$(on 0 -c "EXPLAIN (VERBOSE, COSTS OFF) $MERGE_SQL")
echo "$plan"
n_async=$(count_lines 'Async Foreign Scan' "$plan")
n_pushed=$(count_lines 'Remote SQL: SELECT public\.gpu_histogram\(x, ' "$plan")
n_remote=$(count_lines 'Remote SQL:' "$plan")
check "an Async Foreign Scan for every shard ($n_async of 3)" "$([ "$n_async" = 3 ] && echo ok || echo "found $n_async")"
check "gpu_histogram( in every shard's Remote SQL ($n_pushed of $n_remote)" \
    "$([ "$n_pushed" = 3 ] && [ "$n_remote" = 3 ] && echo ok || echo "found $n_pushed of $n_remote")"
plan=$(on 0 -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT gpu_histogram(x, 0, 1, 256) FROM shard_1_no_ext")
check "without extensions 'gpu_histogram' the shard sends its rows instead" \
    "$(grep -q 'Remote SQL: SELECT x FROM public\.readings$' <<<"$plan" && echo ok || echo "$plan")"

# 3. A partitioned table of foreign tables ------------------------------------
step "3. a partitioned table whose partitions are the shards"
plan=$(on 0 -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) $PARTED_SQL")
echo "$plan"
n_pushed=$(count_lines 'Remote SQL: .*gpu_histogram' "$plan")
n_remote=$(count_lines 'Remote SQL: SELECT x FROM public\.readings' "$plan")
check "not pushed down: every shard sends its rows ($n_remote of 3 Remote SQL fetch x, $n_pushed push the aggregate)" \
    "$([ "$n_pushed" = 0 ] && [ "$n_remote" = 3 ] && echo ok || echo "found $n_remote and $n_pushed")"
parted=$(on 0 -c "SET enable_partitionwise_aggregate = on" -c "$PARTED_SQL")
check "and still the right answer" "$(same "$parted" "$one")"
plan=$(on 0 -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) $PARTED_GROUPED_SQL")
echo "$plan"
n_pushed=$(count_lines 'Remote SQL: SELECT .*public\.gpu_histogram\(x, ' "$plan")
check "GROUP BY the partition key, partitionwise: pushed down to every shard ($n_pushed of 3)" \
    "$([ "$n_pushed" = 3 ] && echo ok || echo "found $n_pushed")"
grouped=$(on 0 -c "SET enable_partitionwise_aggregate = on" -c "$PARTED_GROUPED_SQL")
check "and merged, the right answer" "$(same "$grouped" "$one")"

# 4. A shard that is down ------------------------------------------------------
step "4. shard 2 down"
work=$(mktemp -d "${TMPDIR:-/tmp}/gh_shards.XXXXXX")
if [ "$(id -u)" = 0 ]; then as_server="runuser -u $PG_TEMP_USER --"; else as_server=""; fi
echo "$as_server $PG_BIN/pg_ctl -D ${DIRS[2]}/data -m fast -w stop" >"$work/stop_shard_2.sh"
# One session: the query works, shard 2 stops, the same query again.
on 0 -v ON_ERROR_STOP=0 -v VERBOSITY=verbose >"$work/cached.out" 2>&1 <<SQL || true
SELECT 'before: ' || (($MERGE_SQL) = '$one'::bigint[]);
\\! bash $work/stop_shard_2.sh >/dev/null
SELECT 'after: ' || ($MERGE_SQL)::text;
SQL
cat "$work/cached.out"
check "session with a cached connection: the query worked before" \
    "$(grep -q '^before: true$' "$work/cached.out" && echo ok || echo "no 'before: true'")"
check "and gives an error with SQLSTATE 08xxx afterwards, no histogram" \
    "$(grep -q -E '^ERROR: +08[0-9A-Z]{3}:' "$work/cached.out" && ! grep -q '^after:' "$work/cached.out" && echo ok ||
       echo "see the output above")"
set +e
fresh=$(on 0 -c '\set VERBOSITY verbose' -c "$MERGE_SQL" 2>&1)
rc=$?
set -e
echo "$fresh"
check "a fresh session: ERROR 08001, psql exit status $rc, no histogram" \
    "$([ $rc != 0 ] && grep -q -E '^ERROR: +08001: could not connect to server "shard_2"' <<<"$fresh" &&
       ! grep -q '^{' <<<"$fresh" && echo ok || echo "unexpected")"
# restart on a stopped server starts it with its last options (postmaster.opts)
pg_as_server_user "$PG_BIN/pg_ctl" -D "${DIRS[2]}/data" -l "${DIRS[2]}/server.log" -w restart >/dev/null 2>&1
again=$(on 0 -c "$MERGE_SQL" 2>&1) || true
check "shard 2 back: the same answer again" "$(same "$again" "$one")"
rm -rf "$work"

# Timing ---------------------------------------------------------------------
if [ "$bench_rounds" -gt 0 ]; then
    step "timing on the coordinator: $rows rows, nbins 256, $bench_rounds rounds (test/bench/sql_timing.py)"
    for n in 0 1 2 3; do on "$n" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1 || true; done
    on 0 -c "SELECT pg_prewarm('readings_all')" >/dev/null 2>&1 || true
    for s in 1 2 3; do on $s -c "SELECT pg_prewarm('readings')" >/dev/null 2>&1 || true; done
    json_args=()
    [ -z "$json" ] || json_args=(--json "$json")
    PGHOST=127.0.0.1 PGPORT=${PORTS[0]} PGDATABASE=postgres \
    python3 "$ROOT/test/bench/sql_timing.py" --rounds "$bench_rounds" --warmup 1 "${json_args[@]}" \
        --setup "SET jit = off" --setup "SET max_parallel_workers_per_gather = 0" \
        "count/256/0=SELECT count(x) FROM readings_all" \
        "gh_one/256/0=$ONE_SQL" \
        "gh_shards/256/0=SET enable_async_append = on; $MERGE_SQL" \
        "gh_shards_sync/256/0=SET enable_async_append = off; $MERGE_SQL" \
        "gh_parted/256/0=SET enable_partitionwise_aggregate = on; $PARTED_SQL"
fi

step "summary"
if [ $FAILED = 0 ]; then
    echo "all shard checks passed ($rows rows over 3 shards)"
else
    echo "SOME SHARD CHECKS FAILED"
fi
exit $FAILED
