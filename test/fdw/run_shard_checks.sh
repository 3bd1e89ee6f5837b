#!/usr/bin/env bash
# run_shard_checks.sh: gpu_histogram scaled out over postgres_fdw, on one
# machine: a coordinator and N shard servers (4 by default), all throwaway
# servers (test/pg_temp_server.sh) that listen on 127.0.0.1 only.
#
#   bash test/fdw/run_shard_checks.sh [--rows N] [--shards N] [--bench ROUNDS] [--json FILE]
#
# The rows are the metrics table's, (ts timestamptz, device_id text, g int,
# x float8): two weeks across both fall-back Sundays of 2026 (Europe's and
# the United States'), with NULLs, infinities, infinite timestamps and
# timestamps of 1850 (when New York's offset was -4:56:02).  The
# coordinator holds all of them in one table, r_all, the reference, and
# four partitioned tables of the same rows whose partitions are foreign
# tables on the shards: p_range (range on ts), p_hash (hash on g), p_list
# (list on device_id) and p_mixed (two foreign partitions and a local
# default one).  Each check is printed as ok or FAILED:
#   1. on each partitioned table, in America/New_York (and the hourly
#      heatmap also in Asia/Kolkata and Australia/Lord_Howe): the
#      ungrouped histogram, GROUP BY g with counts, the hourly heatmap,
#      Grafana's group, days, a periodic field and a cast to date, the time
#      form, the thresholds form, HAVING / ORDER BY / LIMIT, a bar chart's
#      rows (unnest of the histogram in the select list), and a prepared
#      statement's parameters, each equal to the ordinary plan over r_all;
#   2. their EXPLAIN VERBOSE: the GpuHistogramShards node, one Remote SQL
#      with gpu_histogram per foreign partition, no Partial Aggregate; a
#      range that prunes to one shard sends one; a shard runs the New York
#      hours and days it is sent through the custom scan's time keys;
#   3. the hand-written UNION ALL of the shards' histograms, merged with
#      gpu_histogram_merge (the fallback form), equal to one server;
#   4. a server without `extensions 'gpu_histogram'`, and a session zone
#      the shards might read otherwise (CET): the rows travel, the DEBUG1
#      line says why, and the answer is still right; a server whose
#      database lacks the extension: the remote error (42883), no answer;
#   5. a shard that is down: SQLSTATE 08001 naming it, no partial answer,
#      and the same answer once it is back; a cancel on the coordinator
#      (statement_timeout) cancels the shard's query too.
# With --bench ROUNDS (and --shards 3, as run_benchmarks.sh --sections
# shards does) it loads only p_range's shards, directly, and times with
# test/bench/sql_timing.py on the coordinator, in one session: the
# ungrouped histogram and the hourly heatmap of two weeks, each through the
# partitioned table and through the hand-written UNION ALL, and the heatmap
# as it was planned before (every row to the coordinator:
# gpu_histogram.scan = off there).  Every server runs with
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
rows=200000 nshards=4 bench_rounds=0 json=""
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift ;;
        --shards) nshards=$2; shift ;;
        --bench) bench_rounds=$2; shift ;;
        --json) json=$2; shift ;;
        -h|--help) sed -n '2,47p' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "$nshards" -ge 2 ] || { echo "--shards must be at least 2" >&2; exit 2; }
PG_BIN=${PG_BIN:-$(pg_config --bindir)}
export PG_BIN PATH=$PG_BIN:$PATH
step() { printf '\n==> %s  (%s)\n' "$*" "$(date +%T)"; }
# Skip at once if postgres_fdw is plainly missing (checked again by the server).
if [ -x "$PG_BIN/pg_config" ] &&
        [ ! -f "$("$PG_BIN/pg_config" --sharedir)/extension/postgres_fdw.control" ]; then
    echo "SKIPPED: postgres_fdw is not installed in $("$PG_BIN/pg_config" --sharedir) (Debian: it comes with postgresql-15)"
    exit 77
fi

# The servers: 0 is the coordinator, 1 to N the shards ----------------------
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
SHARDS=$(seq 1 "$nshards")
step "starting a coordinator and $nshards shards on 127.0.0.1"
for n in 0 $SHARDS; do start_server; done
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
COLUMNS_SQL="ts timestamptz, device_id text, g integer, x float8"
ROWS_SQL="SELECT CASE WHEN i % 5003 = 0 THEN timestamptz 'infinity'
                 WHEN i % 5009 = 0 THEN timestamptz '-infinity'
                 WHEN i % 4999 = 0 THEN timestamptz '1850-06-01 12:00+00' + i * interval '1 minute'
                 ELSE timestamptz '2026-10-24 00:00+00' + i * (1209600.0 / $rows) * interval '1 second' END AS ts,
       CASE WHEN i % 101 = 0 THEN NULL ELSE 'dev-' || (i % 7) END AS device_id,
       (i % 37)::integer AS g,
       CASE WHEN i % 997 = 0 THEN NULL WHEN i % 991 = 0 THEN '-Infinity'::float8 WHEN i % 983 = 0 THEN 'Infinity'
            ELSE (i * 0.6180339887498949::float8 - floor(i * 0.6180339887498949::float8)) * 1.2 - 0.1 END AS x
FROM generate_series(1, $rows) AS i"
# p_range's bounds: two weeks of hours cut into N ranges, the first from
# MINVALUE (-infinity, 1850), the last to MAXVALUE (infinity)
hour_at() { # H: the hour H hours after 2026-10-24 00:00 UTC
    date -u -d "2026-10-24 00:00 UTC + $1 hours" '+%Y-%m-%d %H:%M+00'
}
bound() { # K: the lower bound of shard K's range
    if [ "$1" = 1 ]; then echo MINVALUE; elif [ "$1" -gt "$nshards" ]; then echo MAXVALUE; else
        echo "'$(hour_at $(( (336 * ($1 - 1)) / nshards )))'"; fi
}
devices_of() { # K: the devices p_list puts on shard K (shard 1 also takes NULL)
    local d list=""
    [ "$1" = 1 ] && list="NULL"
    for d in 0 1 2 3 4 5 6; do
        [ $((d % nshards + 1)) = "$1" ] && list="${list:+$list, }'dev-$d'"
    done
    echo "${list:-'none'}"
}

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
    if [ -z "$1" ]; then echo "no result"; elif [ "$1" = "$2" ]; then echo ok; else echo "differs: ${1:0:80}... against ${2:0:80}..."; fi
}
count_lines() { # PATTERN TEXT
    grep -c -E -- "$1" <<<"$2" || true
}

step "the shards' tables, the coordinator's foreign servers and partitioned tables"
tables="r_range r_hash r_list r_mixed"
[ "$bench_rounds" -gt 0 ] && tables="r_range"
for s in $SHARDS; do
    {
        echo "CREATE EXTENSION gpu_histogram;"
        for t in $tables; do echo "CREATE TABLE $t ($COLUMNS_SQL);"; done
        echo "CREATE DATABASE bare;"
    } | on "$s" >/dev/null
done
setup_sql=$({
    echo "CREATE EXTENSION gpu_histogram;"
    echo "CREATE EXTENSION postgres_fdw;"
    for t in range hash list mixed; do
        case $t in range|mixed) key="RANGE (ts)" ;; hash) key="HASH (g)" ;; list) key="LIST (device_id)" ;; esac
        echo "CREATE TABLE p_$t ($COLUMNS_SQL) PARTITION BY $key;"
    done
    for s in $SHARDS; do
        cat <<SQL
CREATE SERVER shard_$s FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '${PORTS[$s]}', dbname 'postgres',
             extensions 'gpu_histogram', async_capable 'true', batch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_$s OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE shard_$s ($COLUMNS_SQL) SERVER shard_$s OPTIONS (table_name 'r_range');
CREATE FOREIGN TABLE p_range_$s PARTITION OF p_range FOR VALUES FROM ($(bound "$s")) TO ($(bound $((s + 1))))
    SERVER shard_$s OPTIONS (table_name 'r_range');
CREATE FOREIGN TABLE p_hash_$s PARTITION OF p_hash FOR VALUES WITH (MODULUS $nshards, REMAINDER $((s - 1)))
    SERVER shard_$s OPTIONS (table_name 'r_hash');
CREATE FOREIGN TABLE p_list_$s PARTITION OF p_list FOR VALUES IN ($(devices_of "$s"))
    SERVER shard_$s OPTIONS (table_name 'r_list');
SQL
    done
    cat <<SQL
CREATE FOREIGN TABLE p_mixed_1 PARTITION OF p_mixed FOR VALUES FROM ($(bound 1)) TO ($(bound 2))
    SERVER shard_1 OPTIONS (table_name 'r_mixed');
CREATE FOREIGN TABLE p_mixed_2 PARTITION OF p_mixed FOR VALUES FROM ($(bound 2)) TO ($(bound 3))
    SERVER shard_2 OPTIONS (table_name 'r_mixed');
CREATE TABLE p_mixed_local PARTITION OF p_mixed DEFAULT;
-- the shards without the extensions option: postgres_fdw sends them no gpu_histogram
CREATE TABLE p_noext ($COLUMNS_SQL) PARTITION BY HASH (g);
SQL
    for s in $SHARDS; do
        cat <<SQL
CREATE SERVER shard_${s}_noext FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '${PORTS[$s]}', dbname 'postgres', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_${s}_noext OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE p_noext_$s PARTITION OF p_noext FOR VALUES WITH (MODULUS $nshards, REMAINDER $((s - 1)))
    SERVER shard_${s}_noext OPTIONS (table_name 'r_hash');
SQL
    done
    cat <<SQL
-- a server that names the extension in a database that lacks it
CREATE SERVER shard_bare FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '127.0.0.1', port '${PORTS[$nshards]}', dbname 'bare', extensions 'gpu_histogram');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_bare OPTIONS (user '$PGUSER');
CREATE TABLE p_bare ($COLUMNS_SQL) PARTITION BY LIST (g);
CREATE TABLE p_bare_local PARTITION OF p_bare FOR VALUES IN (0);
CREATE FOREIGN TABLE p_bare_remote PARTITION OF p_bare DEFAULT SERVER shard_bare OPTIONS (table_name 'r_bare');
SQL
})
on 0 >/dev/null <<<"$setup_sql"
on "$nshards" -d bare -c "CREATE TABLE r_bare ($COLUMNS_SQL)" -c "INSERT INTO r_bare VALUES (now(), 'a', 1, 0.5)"
echo "p_range: $(for s in $SHARDS; do printf '%s..%s ' "$(bound "$s")" "$(bound $((s + 1)))"; done)"

if [ "$bench_rounds" -gt 0 ]; then
    step "loading $rows rows into p_range's shards, directly"
    for s in $SHARDS; do
        lo=$(bound "$s") hi=$(bound $((s + 1)))
        where="true"
        [ "$lo" = MINVALUE ] || where="$where AND ts >= $lo"
        [ "$hi" = MAXVALUE ] || where="$where AND ts < $hi"
        on "$s" -c "INSERT INTO r_range SELECT * FROM ($ROWS_SQL) r WHERE $where" -c "VACUUM ANALYZE r_range" &
    done
    wait
    on 0 -c "ANALYZE p_range"
else
    step "loading $rows rows: all of them into r_all, and through the partitioned tables into the shards"
    on 0 -c "CREATE TABLE r_all AS $ROWS_SQL" -c "VACUUM ANALYZE r_all"
    for t in range hash list mixed; do on 0 -c "INSERT INTO p_$t SELECT * FROM r_all"; done
    for s in $SHARDS; do on "$s" -c "VACUUM ANALYZE" & done
    wait
    on 0 -c "VACUUM ANALYZE p_mixed_local" -c "ANALYZE p_range" -c "ANALYZE p_hash" -c "ANALYZE p_list" \
        -c "ANALYZE p_mixed" -c "ANALYZE p_noext"
    for s in $SHARDS; do
        echo "shard $s: $(on "$s" -c "SELECT string_agg(n::text, ' ') FROM (SELECT count(*) n FROM r_range UNION ALL
            SELECT count(*) FROM r_hash UNION ALL SELECT count(*) FROM r_list UNION ALL SELECT count(*) FROM r_mixed) c") rows in r_range r_hash r_list r_mixed"
    done
fi

if [ "$bench_rounds" = 0 ]; then
# 1. and 2. The answers and the plans ------------------------------------------
NY="SET TimeZone = 'America/New_York'"
declare -A QUERIES=(
    [ungrouped]="SELECT gpu_histogram(x, 0, 1, 64) FROM {T}"
    [by_g]="SELECT g, count(*), count(x), min(x), max(ts), gpu_histogram(x, 0, 1, 16) FROM {T} GROUP BY g ORDER BY g"
    [heatmap]="SELECT date_trunc('hour', ts) AS t, gpu_histogram(x, 0, 1, 16) FROM {T}
               WHERE ts >= '2026-10-24' AND ts < '2026-11-07' GROUP BY 1 ORDER BY 1"
    [hours_all]="SELECT date_trunc('hour', ts) AS t, count(*), gpu_histogram(x, 0, 1, 4) FROM {T} GROUP BY 1 ORDER BY 1"
    [grafana]="SELECT floor(extract(epoch FROM ts)/300)*300 AS time, gpu_histogram(x, 0, 1, 16) FROM {T}
               WHERE ts BETWEEN '2026-10-31T00:00:00Z' AND '2026-11-02T12:00:00Z' GROUP BY 1 ORDER BY 1"
    [days]="SELECT date_trunc('day', ts), count(*), gpu_histogram(x, 0, 1, 8) FROM {T} GROUP BY 1 ORDER BY 1"
    [hour_of_day]="SELECT extract(hour FROM ts) AS h, gpu_histogram(x, 0, 1, 8) FROM {T} GROUP BY 1 ORDER BY 1"
    [dates]="SELECT ts::date AS d, gpu_histogram(x, 0, 1, 8) FROM {T} GROUP BY 1 ORDER BY 1"
    [time_form]="SELECT gpu_histogram(ts, '2026-10-24', '2026-11-07', 56) FROM {T}"
    [thresholds]="SELECT device_id, gpu_histogram(x, '{0.1,0.5,0.9}'::float8[]) FROM {T} GROUP BY 1 ORDER BY 1"
    [having]="SELECT g, gpu_histogram(x, 0, 1, 8) FROM {T} GROUP BY g HAVING count(*) > $((rows / 37))
              ORDER BY count(*) DESC, g LIMIT 5"
    [bar_rows]="SELECT g, generate_series(0, 9) AS bucket, unnest(gpu_histogram(x, 0, 1, 8)) AS n FROM {T}
                GROUP BY g ORDER BY 1, 2"
)
ORDER="ungrouped by_g heatmap hours_all grafana days hour_of_day dates time_form thresholds having bar_rows"
declare -A LEAVES=([p_range]=$nshards [p_hash]=$nshards [p_list]=$nshards [p_mixed]=2)
for table in p_range p_hash p_list p_mixed; do
    step "1. $table: each query against the ordinary plan over r_all, in America/New_York"
    for name in $ORDER; do
        zones="America/New_York"
        [ "$name" = heatmap ] && zones="America/New_York Asia/Kolkata Australia/Lord_Howe"
        for zone in $zones; do
            q=${QUERIES[$name]}
            set_zone="SET TimeZone = '$zone'"
            got=$(on 0 -c "$set_zone" -c "${q//\{T\}/$table}" 2>&1) || true
            want=$(on 0 -c "$set_zone" -c "SET gpu_histogram.scan = off" -c "${q//\{T\}/r_all}" 2>&1) || true
            check "$table $name ($zone, $(wc -l <<<"$want") rows)" "$(same "$got" "$want")"
        done
        plan=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${q//\{T\}/$table}")
        n_pushed=$(count_lines 'Remote SQL: SELECT .*public\.gpu_histogram\(' "$plan")
        n_remote=$(count_lines 'Remote SQL:' "$plan")
        # one remote aggregate for each partition that survives pruning (grafana's two days may prune)
        if [ "$n_remote" = 0 ] && grep -q 'Custom Scan (GpuHistogramScan) on public.p_mixed_local' <<<"$plan"; then
            check "$table $name: EXPLAIN: pruned to the local partition, through GpuHistogramScan" ok
        elif grep -q 'Custom Scan (GpuHistogramShards)' <<<"$plan" && ! grep -q 'Partial' <<<"$plan" &&
                [ "$n_pushed" = "$n_remote" ] && [ "$n_pushed" -ge 1 ] && [ "$n_pushed" -le "${LEAVES[$table]}" ]; then
            check "$table $name: EXPLAIN has GpuHistogramShards, $n_pushed remote aggregates, no Partial Aggregate" ok
        else
            check "$table $name: EXPLAIN" "$plan"
        fi
    done
done
plan=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${QUERIES[heatmap]//\{T\}/p_range}")
echo "$plan"
plan=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${QUERIES[by_g]//\{T\}/p_mixed}")
echo "$plan"
check "p_mixed: the local partition through GpuHistogramScan beside the shards" \
    "$(grep -q 'Custom Scan (GpuHistogramScan) on public.p_mixed_local' <<<"$plan" && echo ok || echo "no local scan")"
# pruning: an hour inside shard 2's range reads shard 2 alone
from=$(hour_at $(( 336 / nshards + 1 ))) to=$(hour_at $(( 336 / nshards + 3 )))
prune_sql="SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 16) FROM {T}
           WHERE ts >= '$from' AND ts < '$to' GROUP BY 1 ORDER BY 1"
plan=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${prune_sql//\{T\}/p_range}")
echo "$plan"
check "a range inside shard 2's pruned to one remote aggregate, on shard_2" \
    "$([ "$(count_lines 'Remote SQL: SELECT .*gpu_histogram' "$plan")" = 1 ] &&
       grep -q 'Aggregate on (public.p_range_2' <<<"$plan" && echo ok || echo "see the plan above")"
check "and its answer" "$(same "$(on 0 -c "$NY" -c "${prune_sql//\{T\}/p_range}")" \
    "$(on 0 -c "$NY" -c "SET gpu_histogram.scan = off" -c "${prune_sql//\{T\}/r_all}")")"
# DISTINCT inside an aggregate is not a sum of the shards' answers; FILTER is
q="SELECT device_id, count(DISTINCT g), gpu_histogram(x, 0, 1, 8) FROM {T} GROUP BY 1 ORDER BY 1"
plan=$(on 0 -c "EXPLAIN (VERBOSE, COSTS OFF) ${q//\{T\}/p_hash}")
check "count(DISTINCT g) beside: not pushed, and the right answer" \
    "$(! grep -q 'GpuHistogramShards' <<<"$plan" &&
       [ "$(on 0 -c "${q//\{T\}/p_hash}")" = "$(on 0 -c "SET gpu_histogram.scan = off" -c "${q//\{T\}/r_all}")" ] &&
       echo ok || echo "$plan")"
q="SELECT g, count(*) FILTER (WHERE x > 0.5), gpu_histogram(x, 0, 1, 8) FILTER (WHERE device_id <> 'dev-3')
   FROM {T} GROUP BY 1 ORDER BY 1"
plan=$(on 0 -c "EXPLAIN (VERBOSE, COSTS OFF) ${q//\{T\}/p_list}")
check "FILTER: pushed, and the right answer" \
    "$(grep -q 'GpuHistogramShards' <<<"$plan" &&
       [ "$(on 0 -c "${q//\{T\}/p_list}")" = "$(on 0 -c "SET gpu_histogram.scan = off" -c "${q//\{T\}/r_all}")" ] &&
       echo ok || echo "$plan")"
# the shard's own plan of what it was sent: the custom scan, with the time key it stands for
remote=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${QUERIES[heatmap]//\{T\}/p_range}" 2>&1 |
         sed -n 's/^ *Remote SQL: //p' | head -1)
shard_plan=$(on 1 -c "SET TimeZone = 'UTC'" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $remote" 2>&1) || true
echo "$shard_plan" | grep -E 'Custom Scan|Key Computation|Pages|Binned' || true
check "shard 1 runs the New York heatmap it was sent as GpuHistogramScan's date_trunc key" \
    "$(grep -q 'Custom Scan (GpuHistogramScan)' <<<"$shard_plan" &&
       grep -q 'Key Computation: date_trunc hour, America/New_York' <<<"$shard_plan" && echo ok || echo "$shard_plan")"
remote=$(on 0 -c "$NY" -c "EXPLAIN (VERBOSE, COSTS OFF) ${QUERIES[days]//\{T\}/p_range}" 2>&1 |
         sed -n 's/^ *Remote SQL: //p' | head -1)
shard_plan=$(on 1 -c "SET TimeZone = 'UTC'" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $remote" 2>&1) || true
check "and its days as date_trunc day in New York" \
    "$(grep -q 'Key Computation: date_trunc day, America/New_York' <<<"$shard_plan" && echo ok || echo "$shard_plan")"
# a prepared statement's parameters, past the planner's five custom plans to its generic one
generic_plan=$(on 0 -c "SET plan_cache_mode = force_generic_plan" \
    -c "PREPARE q(float8, float8, int) AS SELECT g, gpu_histogram(x, \$1, \$2, \$3) FROM p_hash GROUP BY g ORDER BY g" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q(0, 1, 8)")
check "a generic plan's parameters are sent to the shards" \
    "$(grep -q 'Remote SQL: SELECT g, public.gpu_histogram(x, \$1::double precision, \$2::double precision, \$3::integer)' <<<"$generic_plan" &&
       echo ok || echo "$generic_plan")"
for args in "0, 1, 8" "-0.5, 2, 3" "0.25, 0.75, 50"; do
    got=$(on 0 -c "SET plan_cache_mode = force_generic_plan" \
        -c "PREPARE q(float8, float8, int) AS SELECT g, gpu_histogram(x, \$1, \$2, \$3) FROM p_hash GROUP BY g ORDER BY g" \
        -c "EXECUTE q($args)")
    want=$(on 0 -c "SET gpu_histogram.scan = off" -c "SELECT g, gpu_histogram(x, $args) FROM r_all GROUP BY g ORDER BY g")
    check "EXECUTE q($args) of the generic plan" "$(same "$got" "$want")"
done

# 3. The hand-written form ------------------------------------------------------
step "3. the UNION ALL of the shards' histograms (the fallback form) against one server"
MERGE_SQL="SELECT gpu_histogram_merge(h) FROM ($(for s in $SHARDS; do
    [ "$s" = 1 ] || printf ' UNION ALL '; printf 'SELECT gpu_histogram(x, 0, 1, 256) AS h FROM shard_%s' "$s"; done)) s"
merged=$(on 0 -c "$MERGE_SQL" 2>&1) || true
one=$(on 0 -c "SET gpu_histogram.scan = off" -c "SELECT gpu_histogram(x, 0, 1, 256) FROM r_all")
check "gpu_histogram_merge over the shards = gpu_histogram over all rows" "$(same "$merged" "$one")"
plan=$(on 0 -c "EXPLAIN (VERBOSE, COSTS OFF) $MERGE_SQL")
check "an Async Foreign Scan with gpu_histogram( for every shard" \
    "$([ "$(count_lines 'Async Foreign Scan' "$plan")" = "$nshards" ] &&
       [ "$(count_lines 'Remote SQL: SELECT public\.gpu_histogram\(x, ' "$plan")" = "$nshards" ] && echo ok || echo "$plan")"

# 4. Servers that cannot take it ------------------------------------------------
step "4. a server without the extensions option, and a database without the extension"
q="SELECT g, gpu_histogram(x, 0, 1, 16) FROM {T} GROUP BY g ORDER BY g"
plan=$(on 0 -c "SET client_min_messages = debug1" -c "EXPLAIN (VERBOSE, COSTS OFF) ${q//\{T\}/p_noext}" 2>&1)
echo "$plan" | grep -E 'DEBUG|Remote SQL' || true
check "without extensions 'gpu_histogram': every shard sends its rows, and the DEBUG1 line says why" \
    "$([ "$(count_lines 'Remote SQL: SELECT g, x FROM public\.r_hash' "$plan")" = "$nshards" ] &&
       grep -q "foreign partition's server does not take the aggregate" <<<"$plan" && echo ok || echo "$plan")"
check "and the right answer" "$(same "$(on 0 -c "${q//\{T\}/p_noext}")" \
    "$(on 0 -c "SET gpu_histogram.scan = off" -c "${q//\{T\}/r_all}")")"
# a session zone the shards might read otherwise (CET is also an abbreviation, of a fixed offset)
q=${QUERIES[heatmap]}
plan=$(on 0 -c "SET TimeZone = 'CET'" -c "SET client_min_messages = debug1" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) ${q//\{T\}/p_range}" 2>&1)
check "in the session zone CET the hours are not sent, and the DEBUG1 line says why" \
    "$(! grep -q 'GpuHistogramShards' <<<"$plan" && grep -q "no form the shards compute the same way" <<<"$plan" &&
       echo ok || echo "$plan")"
check "and the right answer" "$(same "$(on 0 -c "SET TimeZone = 'CET'" -c "${q//\{T\}/p_range}")" \
    "$(on 0 -c "SET TimeZone = 'CET'" -c "SET gpu_histogram.scan = off" -c "${q//\{T\}/r_all}")")"
bare=$(on 0 -v VERBOSITY=verbose -c "SELECT gpu_histogram(x, 0, 1, 16) FROM p_bare" 2>&1) || true
echo "$bare" | head -4
check "a database without the extension: the shard's error 42883, no answer" \
    "$(grep -q -E '^ERROR: +42883: function public\.gpu_histogram\(double precision, double precision, double precision, integer\) does not exist' <<<"$bare" &&
       ! grep -q '^{' <<<"$bare" && echo ok || echo "unexpected")"

# 5. A shard down, and a cancel ---------------------------------------------------
step "5. shard 2 down"
want=$(on 0 -c "$NY" -c "${QUERIES[heatmap]//\{T\}/p_range}")
if [ "$(id -u)" = 0 ]; then as_server="runuser -u $PG_TEMP_USER --"; else as_server=""; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gh_shards.XXXXXX")
echo "$as_server $PG_BIN/pg_ctl -D ${DIRS[2]}/data -m fast -w stop" >"$work/stop_shard_2.sh"
# one session: the query works, shard 2 stops, the same query again
on 0 -v ON_ERROR_STOP=0 -v VERBOSITY=verbose >"$work/cached.out" 2>&1 <<SQL || true
$NY;
SELECT 'before: ' || ((SELECT string_agg(t || ' ' || coalesce(h::text, '-'), ',' ORDER BY t)
                       FROM (${QUERIES[heatmap]//\{T\}/p_range}) q(t, h)) IS NOT NULL);
\\! bash $work/stop_shard_2.sh >/dev/null
SELECT 'after: ' || count(*) FROM (${QUERIES[heatmap]//\{T\}/p_range}) q;
SQL
cat "$work/cached.out"
check "a session connected to shard 2 before it stopped: ERROR 08xxx afterwards, no row" \
    "$(grep -q '^before: true$' "$work/cached.out" && grep -q -E '^ERROR: +08[0-9A-Z]{3}:' "$work/cached.out" &&
       ! grep -q '^after:' "$work/cached.out" && echo ok || echo "see the output above")"
rm -rf "$work"
$as_server "$PG_BIN/pg_ctl" -D "${DIRS[2]}/data" -m fast -w stop >/dev/null 2>&1 || true # (stopped above)
set +e
down=$(on 0 -v VERBOSITY=verbose -c "$NY" -c "${QUERIES[heatmap]//\{T\}/p_range}" 2>&1)
rc=$?
set -e
echo "$down" | head -3
check "ERROR 08001 naming shard_2, psql exit status $rc, no row" \
    "$([ $rc != 0 ] && grep -q -E '^ERROR: +08001: could not connect to server "shard_2"' <<<"$down" &&
       ! grep -q '^20' <<<"$down" && echo ok || echo "unexpected")"
# restart on a stopped server starts it with its last options (postmaster.opts)
pg_as_server_user "$PG_BIN/pg_ctl" -D "${DIRS[2]}/data" -l "${DIRS[2]}/server.log" -w restart >/dev/null 2>&1
check "shard 2 back: the same answer again" "$(same "$(on 0 -c "$NY" -c "${QUERIES[heatmap]//\{T\}/p_range}")" "$want")"

step "5. a cancel on the coordinator while shard 1's table is locked"
on 1 -c "BEGIN" -c "LOCK TABLE r_range IN ACCESS EXCLUSIVE MODE" -c "SELECT pg_sleep(15)" -c "COMMIT" >/dev/null 2>&1 &
locker=$!
for _ in $(seq 1 50); do
    [ "$(on 1 -c "SELECT count(*) FROM pg_locks WHERE relation = 'r_range'::regclass AND mode = 'AccessExclusiveLock' AND granted")" = 1 ] && break
    sleep 0.1
done
cancelled=$(on 0 -v VERBOSITY=verbose -c "SET statement_timeout = '1s'" -c "SELECT gpu_histogram(x, 0, 1, 16) FROM p_range" 2>&1) || true
echo "$cancelled" | head -2
check "the coordinator's query: ERROR 57014 after its timeout" \
    "$(grep -q -E '^ERROR: +57014: canceling statement due to statement timeout' <<<"$cancelled" && echo ok || echo "unexpected")"
waiting=1
for _ in $(seq 1 30); do
    waiting=$(on 1 -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%gpu_histogram(x%' AND state = 'active'
                       AND pid <> pg_backend_pid()")
    [ "$waiting" = 0 ] && break
    sleep 0.1
done
check "the shard's query was cancelled too (none left waiting on shard 1)" \
    "$([ "$waiting" = 0 ] && echo ok || echo "$waiting still active")"
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true
fi

# Timing ---------------------------------------------------------------------
if [ "$bench_rounds" -gt 0 ]; then
    step "timing on the coordinator: $rows rows over $nshards shards, $bench_rounds rounds (test/bench/sql_timing.py)"
    for n in 0 $SHARDS; do on "$n" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1 || true; done
    for s in $SHARDS; do on "$s" -c "SELECT pg_prewarm('r_range')" >/dev/null 2>&1 || true; done
    union() { # the SELECT of one shard, with {S} for the shard's number
        local s out=""
        for s in $SHARDS; do out="${out:+$out UNION ALL }${1//\{S\}/$s}"; done
        echo "$out"
    }
    UNION_HIST="SELECT gpu_histogram_merge(h) FROM ($(union 'SELECT gpu_histogram(x, 0, 1, 256) AS h FROM shard_{S}')) s"
    PARTED_HIST="SELECT gpu_histogram(x, 0, 1, 256) FROM p_range"
    # date_bin: the hand-written form must be immutable for postgres_fdw to send it (date_trunc of a
    # timestamptz is stable); in UTC it gives date_trunc('hour', ts)'s hours
    WEEKS="ts >= '2026-10-24 00:00+00' AND ts < '2026-11-07 00:00+00'" # a dashboard's two weeks
    UNION_HEAT="SELECT t, gpu_histogram_merge(h) FROM ($(union "SELECT date_bin('1 hour', ts, '2000-01-01 00:00+00') AS t, gpu_histogram(x, 0, 1, 16) AS h FROM shard_{S} WHERE $WEEKS GROUP BY 1")) s GROUP BY t"
    PARTED_HEAT="SELECT date_trunc('hour', ts), gpu_histogram(x, 0, 1, 16) FROM p_range WHERE $WEEKS GROUP BY 1"
    same_heat=$(on 0 -c "SET TimeZone = 'UTC'" \
        -c "SELECT (SELECT string_agg(t || ' ' || coalesce(h::text, '-'), ',' ORDER BY t) FROM ($UNION_HEAT) u(t, h))
                 = (SELECT string_agg(t || ' ' || coalesce(h::text, '-'), ',' ORDER BY t) FROM ($PARTED_HEAT) p(t, h))")
    check "the two heatmaps are the same hours" "$([ "$same_heat" = t ] && echo ok || echo "$same_heat")"
    json_args=()
    [ -z "$json" ] || json_args=(--json "$json")
    PGHOST=127.0.0.1 PGPORT=${PORTS[0]} PGDATABASE=postgres \
    python3 "$ROOT/test/bench/sql_timing.py" --rounds "$bench_rounds" --warmup 1 "${json_args[@]}" \
        --setup "SET jit = off" --setup "SET max_parallel_workers_per_gather = 0" --setup "SET TimeZone = 'UTC'" \
        "union_hist/256/0=$UNION_HIST" \
        "parted_hist/256/0=SET gpu_histogram.scan = on; $PARTED_HIST" \
        "union_heatmap/16/0=$UNION_HEAT" \
        "parted_heatmap/16/0=SET gpu_histogram.scan = on; $PARTED_HEAT" \
        "parted_heatmap_rows_travel/16/0=SET gpu_histogram.scan = off; $PARTED_HEAT"
fi

step "summary"
if [ $FAILED = 0 ]; then
    echo "all shard checks passed ($rows rows over $nshards shards)"
else
    echo "SOME SHARD CHECKS FAILED"
fi
exit $FAILED
