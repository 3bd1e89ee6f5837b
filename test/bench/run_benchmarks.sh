#!/usr/bin/env bash
# run_benchmarks.sh: the one benchmark command.  Measures in one run what a
# PostgreSQL user and a GPU engineer would compare, and writes
# records/bench/<date>-<label>-<cpu|h100|...>.{md,csv} and a few PNGs.
#
#   bash test/bench/run_benchmarks.sh [--sizes 1000000,10000000] [--rounds 5]
#        [--workers 0,2,8] [--label NAME] [--quick] [--use-existing]
#        [--shared-buffers 4GB] [--work-mem 256MB] [--out DIR]
#        [--sections distributions,nbins,workers,groups,scan,dashboards,metrics,probes,window,shards,forms,kernel,startup]
#        (timescaledb: only when named)
#
# Without --use-existing it starts a throwaway server (test/pg_temp_server.sh)
# with shared_buffers sized to hold every table; with it, it uses the server
# that PGHOST/PGPORT/PGUSER name (the GPU machine, where .gpu/pg-up.sh started
# one) and leaves its tables there (ghb_*) for the next run.
#
# Why this design: the full matrix (sizes x distributions x nbins x workers x
# devices) would take hours on a small machine, so each question is asked on
# the smallest set of runs that answers it:
#   distributions  every size x {uniform, normal, constant}, nbins 256, serial:
#                  does the data, or the table size, change the ratios?
#   nbins          uniform table of the largest size, serial, nbins 16, 256,
#                  65536, 1000000: what do many buckets cost?
#   workers        uniform table of the largest size, nbins 256, workers from
#                  --workers that this machine has cores for (nproc): how does
#                  each query scale, and what do parallel GPU workers pay?
#   groups         100,000 groups (g = i % 100000) over the largest size,
#                  nbins 256: one histogram per group against GROUP BY g, bucket.
#   scan           the custom scan (GpuHistogramScan) against the aggregate
#                  over the ordinary plan (gpu_histogram.scan = off), nbins
#                  256: serial and with the most workers at the largest size;
#                  with a WHERE clause on another column, and with x after a
#                  text column, at the smallest.  The other sections run with the scan on (the
#                  default), so their gpu_histogram figures are the scan's.
#   dashboards     test/bench/dashboards_bench.sh over the largest size: GROUP BY
#                  g, the hourly heatmap in New York's time zone, date_bin, a
#                  text key, 10 range partitions and a two-week range, each
#                  against count(x) and the plain SQL; serial, and with the
#                  most workers, on the CPU and (with a GPU) device=gpu.  Its
#                  table is printed into the report as it comes.
#   metrics        test/bench/metrics_bench.sh over the largest size: the
#                  canonical metrics table (time, device_id text, cpu) against
#                  the same rows with the text column last; device = cpu, and
#                  with a GPU device = gpu first.
#   probes         with a GPU, after dashboards: its table's scans with and
#                  without page probes (test/bench/page_probes_bench.sh).
#   timescaledb    only when named: the dashboards over a TimescaleDB
#                  hypertable on PostgreSQL 17, on a server of its own
#                  (test/bench/timescaledb_bench.sh, the smallest size),
#                  against TimescaleDB's histogram() and count(x).
#   window         the smallest size, ordered by i, nbins 64, the moving frame
#                  ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW: gpu_histogram
#                  (adds and removes one row per row) against the same
#                  aggregate without its moving functions, as version 1.0
#                  defined it (aggregates all 1,001 rows of every frame), and
#                  count(x) over the same window as the base.
#   shards         the largest size spread over three shard servers and a
#                  coordinator on this machine (test/fdw/run_shard_checks.sh
#                  --shards 3 --bench, which starts its own four servers):
#                  the histogram and the hourly heatmap of a partitioned
#                  table of foreign partitions against the hand-written
#                  UNION ALL of the shards, and the heatmap with every row
#                  sent to the coordinator, as it was planned before.
#   forms          the time and threshold forms over the largest size, serial:
#                  gpu_histogram(ts, lo, hi, 1440) against GROUP BY numeric
#                  width_bucket over extract(epoch ...) microseconds, and
#                  gpu_histogram(x, thresholds) against GROUP BY
#                  width_bucket(x, thresholds), for 10 and 100,000 thresholds.
# Each group of queries is timed in ONE sql_timing.py call (interleaved
# rounds, 1 warm-up, median of --rounds), so its ratios come from one run; the
# ratio base is count(x) over the same table with the same workers: the cost
# of just reading the column.  device=gpu queries are added only where
# gpu_histogram_devices() says 'usable'.  Queries return their rows to psql,
# which discards them (\o /dev/null): times are what a client sees, including
# sending a GROUP BY's many rows.
#
# GPU-only parts, skipped with a line in the report when there is no GPU:
# the kernel benchmark (kernel_bench: engine vs CUB vs read ceiling, and the
# published uint8 workload), and CUDA start-up costs measured in fresh psql
# sessions.  make_report.py turns the raw files into the report.
#
# Run time: about 7 minutes with the defaults on 2 slow cores, plus about 5
# for window (1.0's aggregate takes 50 s a round over 1M rows) and 2 to 3 for
# shards at 10M rows.  A size of 100M rows takes far longer (GROUP BY over 1M buckets, 100M rows to psql in
# the groups query): where one command has a time limit, run fewer --sections
# per call, each with its own --label.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/../.." && pwd)
COMMAND="bash test/bench/run_benchmarks.sh"
for arg in "$@"; do  # quoted only where the shell needs it
    if [[ $arg =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then COMMAND+=" $arg"; else COMMAND+=" $(printf '%q' "$arg")"; fi
done

sizes="" rounds=5 workers_wanted="0,2,8" label="" quick=no use_existing=no
shared_buffers="" work_mem=256MB out_dir=$ROOT/records/bench
sections=distributions,nbins,workers,groups,scan,dashboards,metrics,probes,window,shards,forms,kernel,startup
while [ $# -gt 0 ]; do
    case $1 in
        --sizes) sizes=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --workers) workers_wanted=$2; shift ;;
        --label) label=$2; shift ;;
        --quick) quick=yes ;;
        --use-existing) use_existing=yes ;;
        --shared-buffers) shared_buffers=$2; shift ;;
        --work-mem) work_mem=$2; shift ;;
        --out) out_dir=$2; shift ;;
        --sections) sections=$2; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
# --quick checks the plumbing in about a minute; its numbers mean little.
if [ $quick = yes ]; then
    sizes=${sizes:-100000}
    if [ "$rounds" -gt 3 ]; then rounds=3; fi
fi
sizes=${sizes:-1000000,10000000}
want() { [[ ",$sections," == *",$1,"* ]]; }
IFS=, read -r -a SIZES <<<"$sizes"
largest=$(printf '%s\n' "${SIZES[@]}" | sort -n | tail -1)
smallest=$(printf '%s\n' "${SIZES[@]}" | sort -n | head -1)
cores=$(nproc)
# Worker counts beyond the cores would time the scheduler, not the query.
WORKERS=()
for w in ${workers_wanted//,/ }; do
    if [ "$w" -le "$cores" ]; then WORKERS+=("$w"); fi
done
max_workers=$(printf '%s\n' "${WORKERS[@]}" | sort -n | tail -1)
label=${label:-$(hostname -s 2>/dev/null || hostname)}
label=${label//[^A-Za-z0-9._-]/_}

# Python: sql_timing.py needs only the standard library; the report wants
# matplotlib, which Debian's /usr/bin/python3 may have when the python3 on
# PATH (pyenv) does not.
PY=${PYTHON:-python3}
REPORT_PY=$PY
if ! "$PY" -c 'import matplotlib' 2>/dev/null && [ -x /usr/bin/python3 ] &&
        /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    REPORT_PY=/usr/bin/python3
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gh_bench.XXXXXX")
echo "raw results in $WORK"
meta() { printf '%s\t%s\n' "$1" "$2" >>"$WORK/meta.tsv"; }
step() { printf '\n==> %s  (%s)\n' "$*" "$(date +%T)"; }
started=$(date +%s)

# The server ------------------------------------------------------------
if [ $use_existing = no ]; then
    # Room for every table: float8 rows take about 36 bytes, (int, float8)
    # rows about 44; plus a quarter and 256 MB for everything else.
    if [ -z "$shared_buffers" ]; then
        total=0
        for n in "${SIZES[@]}"; do total=$((total + 3 * 36 * n)); done
        total=$((total + 44 * largest))
        shared_buffers=$((total * 5 / 4 / 1048576 + 256))MB
    fi
    step "starting a throwaway server (shared_buffers=$shared_buffers)"
    PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
    [ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
    PG_BIN=$("$PG_CONFIG" --bindir)
    export PATH=$PG_BIN:$PATH
    # shellcheck source=../pg_temp_server.sh disable=SC1091
    source "$ROOT/test/pg_temp_server.sh" -c shared_buffers="$shared_buffers" \
        -c max_worker_processes=$((max_workers + 8)) -c max_parallel_workers="$max_workers" \
        -c max_parallel_workers_per_gather="$max_workers"
fi
cd "$ROOT"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS gpu_histogram" >/dev/null
prewarm=yes
psql -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1 || prewarm=no
q1() { psql -X -At -v ON_ERROR_STOP=1 -c "$1"; }

# What ran where: the report's header.
meta date "$(date +%F)"
meta started "$(date '+%F %T %Z')"
meta command "$COMMAND"
meta label "$label"
meta host "$(hostname)"
meta nproc "$cores"
meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
meta ram "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
meta postgres "$(q1 'SELECT version()')"
meta server "$([ $use_existing = yes ] && echo "existing (PGHOST=${PGHOST:-})" || echo throwaway)"
meta shared_buffers "$(q1 'SHOW shared_buffers')"
meta max_parallel_workers "$(q1 'SHOW max_parallel_workers')"
meta work_mem "$work_mem"
meta rounds "$rounds"
meta sizes "${SIZES[*]}"
meta workers "${WORKERS[*]}"
meta prewarm "$prewarm"
meta quick "$quick"
meta sections "$sections"

gpu_name=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
fi
meta gpu "${gpu_name:-none}"
# Is the GPU usable from SQL?  (A fresh session: this starts CUDA in it.)
gpu_status=$(q1 "SELECT string_agg(DISTINCT status, '; ') FROM gpu_histogram_devices()" 2>&1 || true)
if [ "$(q1 "SELECT coalesce(bool_or(status = 'usable'), false) FROM gpu_histogram_devices()" 2>/dev/null)" = t ]; then
    sql_gpu=yes
else
    sql_gpu=no
fi
meta sql_gpu "$sql_gpu"
meta gpu_status "$gpu_status"
echo "GPU: ${gpu_name:-none}; from SQL: $gpu_status"
if [ -n "$gpu_name" ]; then
    device=$(tr '[:upper:]' '[:lower:]' <<<"$gpu_name" | grep -oE '\b[a-z]+[0-9]{2,4}\b' | grep -v '^nvidia' | head -1 || true)
    device=${device:-gpu}
else
    device=cpu
fi
meta device "$device"

# The tables --------------------------------------------------------------
# Unlogged (no WAL to write), VACUUMed (hint bits set, so the first timed
# scan writes nothing), and kept if they exist: the names carry the size.
make_table() {  # NAME SELECT-LIST ROWS
    if [ "$(q1 "SELECT count(*) FROM pg_class WHERE relname = '$1'")" = 0 ]; then
        echo "creating $1"
        psql -X -q -v ON_ERROR_STOP=1 -c "SET max_parallel_workers_per_gather = 0" -c "SELECT setseed(0.42)" \
            -c "CREATE UNLOGGED TABLE $1 AS SELECT $2 FROM generate_series(1, $3) AS i" \
            -c "VACUUM ANALYZE $1" >/dev/null
    fi
}
step "tables"
TABLES=()
for n in "${SIZES[@]}"; do
    # window and shards make tables of their own
    if want distributions || want nbins || want workers || want scan || want startup; then
        make_table "ghb_uniform_$n" "random() AS x" "$n"
        TABLES+=("ghb_uniform_$n")
    fi
    if want distributions; then
        # Box-Muller: mean 0.5, sd 0.125, so nearly all of it lies in [0, 1).
        make_table "ghb_normal_$n" "0.5 + 0.125 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS x" "$n"
        make_table "ghb_constant_$n" "0.5::float8 AS x" "$n"
        TABLES+=("ghb_normal_$n" "ghb_constant_$n")
    fi
done
t=ghb_uniform_$largest
tg=ghb_groups_$largest
if want groups; then
    make_table "$tg" "i % 100000 AS g, random() AS x" "$largest"
    TABLES+=("$tg")
fi
tf=ghb_forms_$largest
if want forms; then
    # a day of timestamps, microsecond-irregular; latencies from 0 to 1,200 ms
    make_table "$tf" "'2024-01-01 00:00:00+00'::timestamptz + random() * interval '1 day' AS ts, 1200 * random() ^ 3 AS x" "$largest"
    TABLES+=("$tf")
fi
tw=ghb_wide_$smallest
if want scan; then
    # x after a text column (md5: 32 characters) and an int to filter on; at
    # the smallest size, which keeps a 100M-row run within one call's limit
    make_table "$tw" "md5(i::text) AS s, i % 1000 AS k, random() AS x" "$smallest"
    TABLES+=("$tw")
fi
tmw=ghb_window_$smallest
if want window; then
    make_table "$tmw" "i, random() AS x" "$smallest"
    TABLES+=("$tmw")
fi
in_list=$(printf "'%s'," "${TABLES[@]}")
meta table_bytes "$(q1 "SELECT sum(pg_relation_size(oid)) FROM pg_class WHERE relname IN (${in_list%,})")"
meta shared_buffers_bytes "$(q1 "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'")"
prewarm_all() {
    local table
    [ $prewarm = yes ] || return 0
    for table in "${TABLES[@]}"; do q1 "SELECT pg_prewarm('$table')" >/dev/null; done
}

# The SQL groups ----------------------------------------------------------
SETUP=(--setup "SET jit = off" --setup "SET work_mem = '$work_mem'"
       --setup "SET parallel_setup_cost = 0" --setup "SET parallel_tuple_cost = 0"
       --setup "SET min_parallel_table_scan_size = 0" --setup "SET max_parallel_workers_per_gather = 0")
# Labels are METHOD/NBINS/WORKERS; make_report.py reads them back.
hist_queries() {  # TABLE NBINS WORKERS PREFIX: the three or four queries of one comparison
    local t=$1 nb=$2 w=$3 pre=$4
    echo "count/$nb/$w=${pre}SELECT count(x) FROM $t"
    echo "width_bucket/$nb/$w=${pre}SELECT width_bucket(x, 0, 1, $nb), count(*) FROM $t GROUP BY 1"
    echo "gh_cpu/$nb/$w=${pre}SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, $nb) FROM $t"
    if [ $sql_gpu = yes ]; then echo "gh_gpu/$nb/$w=${pre}SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, 0, 1, $nb) FROM $t"; fi
}
group_no=0
run_group() {  # SECTION TABLE ROWS DISTRIBUTION, then LABEL=QUERY lines on stdin
    local json
    group_no=$((group_no + 1))
    json=$(printf 'group%02d.json' $group_no)
    local -a queries
    mapfile -t queries
    echo "-- $1: $2"
    "$PY" "$BENCH_DIR/sql_timing.py" --rounds "$rounds" --warmup 1 "${SETUP[@]}" --json "$WORK/$json" "${queries[@]}"
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$json" >>"$WORK/groups.tsv"
}

if want distributions; then
    step "SQL: distributions (nbins 256, serial)"
    prewarm_all
    for n in "${SIZES[@]}"; do
        for dist in uniform normal constant; do
            run_group distributions "ghb_${dist}_$n" "$n" $dist < <(hist_queries "ghb_${dist}_$n" 256 0 "")
        done
    done
fi

if want nbins; then
    step "SQL: nbins (uniform, $largest rows, serial)"
    prewarm_all
    run_group nbins "$t" "$largest" uniform < <(
        echo "count/0/0=SELECT count(x) FROM $t"
        for nb in 16 256 65536 1000000; do hist_queries "$t" $nb 0 "" | grep -v '^count/'; done)
fi

if want workers; then
    step "SQL: workers ${WORKERS[*]} (uniform, $largest rows, nbins 256)"
    prewarm_all
    # ALTER TABLE ... parallel_workers makes the planner use exactly W workers.
    run_group workers "$t" "$largest" uniform < <(
        for w in "${WORKERS[@]}"; do
            hist_queries "$t" 256 "$w" "SET max_parallel_workers_per_gather = $w; ALTER TABLE $t SET (parallel_workers = $w); "
        done)
    # Whether the workers were really launched (max_parallel_workers may say no).
    for w in "${WORKERS[@]}"; do
        launched=$(psql -X -At -c "SET max_parallel_workers_per_gather = $w" -c "SET parallel_setup_cost = 0" \
            -c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
            -c "ALTER TABLE $t SET (parallel_workers = $w)" \
            -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(x) FROM $t" |
            sed -n 's/.*Workers Launched: //p')
        meta "workers_launched_$w" "${launched:-0}"
    done
    q1 "ALTER TABLE $t RESET (parallel_workers)" >/dev/null
fi

if want groups; then
    step "SQL: 100,000 groups ($largest rows, nbins 256, serial)"
    prewarm_all
    run_group groups "$tg" "$largest" uniform < <(
        echo "count/256/0=SELECT count(x) FROM $tg"
        echo "width_bucket/256/0=SELECT g, width_bucket(x, 0, 1, 256), count(*) FROM $tg GROUP BY 1, 2"
        echo "gh_cpu/256/0=SET gpu_histogram.device = cpu; SELECT g, gpu_histogram(x, 0, 1, 256) FROM $tg GROUP BY g"
        if [ $sql_gpu = yes ]; then
            echo "gh_gpu/256/0=SET gpu_histogram.device = gpu; SELECT g, gpu_histogram(x, 0, 1, 256) FROM $tg GROUP BY g"
        fi)
fi

if want window; then
    step "SQL: moving window ($smallest rows, ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW, nbins 64, serial)"
    prewarm_all
    # "Before": gpu_histogram as 1.0 defined it, without MSFUNC/MINVFUNC, so
    # PostgreSQL aggregates every frame from scratch.  max(...) over the
    # results keeps a million arrays from going to psql.
    psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP AGGREGATE IF EXISTS ghb_plain_histogram(float8, float8, float8, integer);
CREATE AGGREGATE ghb_plain_histogram(float8, float8, float8, integer) (
    SFUNC = gpu_histogram_transfn, STYPE = internal, FINALFUNC = gpu_histogram_finalfn,
    FINALFUNC_EXTRA, FINALFUNC_MODIFY = READ_ONLY);
SQL
    win="OVER (ORDER BY i ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW)"
    run_group window "$tmw" "$smallest" uniform <<QUERIES
count/64/0=SELECT max(c) FROM (SELECT count(x) $win AS c FROM $tmw) s
gh_moving/64/0=SELECT max(h[33]) FROM (SELECT gpu_histogram(x, 0, 1, 64) $win AS h FROM $tmw) s
gh_plain/64/0=SELECT max(h[33]) FROM (SELECT ghb_plain_histogram(x, 0, 1, 64) $win AS h FROM $tmw) s
QUERIES
fi

if want shards; then
    step "SQL: three shards over postgres_fdw, partitioned and UNION ALL ($largest rows)"
    group_no=$((group_no + 1))
    json=$(printf 'group%02d.json' $group_no)
    set +e
    ( if [ -n "${PG_BIN:-}" ]; then export PG_BIN; fi
      bash "$ROOT/test/fdw/run_shard_checks.sh" --rows "$largest" --shards 3 --bench "$rounds" --json "$WORK/$json" ) \
        >"$WORK/shards.log" 2>&1
    rc=$?
    set -e
    sed -n '/^==> timing/,$p' "$WORK/shards.log"
    if [ $rc = 0 ] && [ -s "$WORK/$json" ]; then
        printf '%s\t%s\t%s\t%s\t%s\n' shards "p_range" "$largest" golden-ratio "$json" >>"$WORK/groups.tsv"
        meta shards "test/fdw/run_shard_checks.sh: all checks passed"
    else
        meta shards "test/fdw/run_shard_checks.sh exited with $rc: $(tail -n 1 "$WORK/shards.log")"
        echo "shards: exit $rc; see $WORK/shards.log"
    fi
fi

if want scan; then
    step "SQL: the custom scan ($largest rows, nbins 256)"
    prewarm_all
    scan_queries() {  # TABLE WORKERS PREFIX WHERE: scan vs aggregate vs count(x) vs GROUP BY
        local t=$1 w=$2 pre=$3 where=$4
        echo "count/256/$w=${pre}SELECT count(x) FROM $t$where"
        echo "width_bucket/256/$w=${pre}SELECT width_bucket(x, 0, 1, 256), count(*) FROM $t$where GROUP BY 1"
        echo "gh_agg_cpu/256/$w=${pre}SET gpu_histogram.scan = off; SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t$where"
        echo "gh_cpu/256/$w=${pre}SET gpu_histogram.scan = on; SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t$where"
        if [ $sql_gpu = yes ]; then
            echo "gh_agg_gpu/256/$w=${pre}SET gpu_histogram.scan = off; SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t$where"
            echo "gh_gpu/256/$w=${pre}SET gpu_histogram.scan = on; SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, 0, 1, 256) FROM $t$where"
        fi
    }
    if [ $sql_gpu = yes ]; then  # the session's CUDA context is up before the first timed query
        SETUP+=(--setup "SET gpu_histogram.device = gpu" --setup "SELECT gpu_histogram(1.0, 0, 1, 1)")
    fi
    run_group scan "$t" "$largest" "serial" < <(scan_queries "$t" 0 "" "")
    run_group scan "$tw" "$smallest" "serial, WHERE k < 500 (half the rows)" < <(scan_queries "$tw" 0 "" " WHERE k < 500")
    run_group scan "$tw" "$smallest" "serial, x after a text column" < <(scan_queries "$tw" 0 "" "")
    if [ "$max_workers" -gt 0 ]; then
        run_group scan "$t" "$largest" "$max_workers workers" < <(scan_queries "$t" "$max_workers" \
            "SET max_parallel_workers_per_gather = $max_workers; ALTER TABLE $t SET (parallel_workers = $max_workers); " "")
        q1 "ALTER TABLE $t RESET (parallel_workers)" >/dev/null
    fi
fi

if want forms; then
    step "SQL: time and threshold forms ($largest rows, serial)"
    prewarm_all
    # The references: what the issue names, PostgreSQL's exact numeric
    # width_bucket over the microseconds, and width_bucket(x, array).
    lo="'2024-01-01 00:00:00+00'::timestamptz" hi="'2024-01-02 00:00:00+00'::timestamptz"
    us() { echo "(extract(epoch FROM $1) * 1000000)::numeric"; }
    lat="'{1,2,5,10,20,50,100,200,500,1000}'::float8[]"
    big="(SELECT array_agg(k * 0.012::float8 ORDER BY k) FROM generate_series(1, 100000) k)"
    run_group forms "$tf" "$largest" uniform < <(
        echo "count/0/0=SELECT count(ts) FROM $tf"
        echo "wb_time/1440/0=SELECT width_bucket($(us ts), $(us "$lo"), $(us "$hi"), 1440), count(*) FROM $tf GROUP BY 1"
        echo "gh_time_cpu/1440/0=SET gpu_histogram.device = cpu; SELECT gpu_histogram(ts, $lo, $hi, 1440) FROM $tf"
        if [ $sql_gpu = yes ]; then echo "gh_time_gpu/1440/0=SET gpu_histogram.device = gpu; SELECT gpu_histogram(ts, $lo, $hi, 1440) FROM $tf"; fi
        echo "wb_thresholds/10/0=SELECT width_bucket(x, $lat), count(*) FROM $tf GROUP BY 1"
        echo "gh_thresholds_cpu/10/0=SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, $lat) FROM $tf"
        if [ $sql_gpu = yes ]; then echo "gh_thresholds_gpu/10/0=SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, $lat) FROM $tf"; fi
        echo "wb_thresholds/100000/0=SELECT width_bucket(x, $big), count(*) FROM $tf GROUP BY 1"
        echo "gh_thresholds_cpu/100000/0=SET gpu_histogram.device = cpu; SELECT gpu_histogram(x, $big) FROM $tf"
        if [ $sql_gpu = yes ]; then echo "gh_thresholds_gpu/100000/0=SET gpu_histogram.device = gpu; SELECT gpu_histogram(x, $big) FROM $tf"; fi)
fi

# GPU: the kernel benchmark -------------------------------------------------
if [ -n "$gpu_name" ] && want kernel; then
    kb=${KERNEL_BENCH:-}
    for c in "$ROOT/.gpu/bin/kernel_bench" "$ROOT/build/test/kernel_bench"; do
        if [ -z "$kb" ] && [ -x "$c" ]; then kb=$c; fi
    done
    if [ -n "$kb" ]; then
        step "GPU: kernel benchmark ($kb)"
        kb_args=()
        if [ $quick = yes ]; then kb_args=(--quick); fi
        if "$kb" "${kb_args[@]}" >"$WORK/kernel.csv" 2>"$WORK/kernel.log"; then
            meta kernel "ran $kb"
        else
            meta kernel "failed (exit $?): $(tail -2 "$WORK/kernel.log" | tr '\n\t' '  ')"
        fi
        cat "$WORK/kernel.log"
    else
        meta kernel "no kernel_bench binary (.gpu/bin or build/test; set KERNEL_BENCH=...)"
    fi
fi

# Dashboards: grouped shapes, partitions, time ranges ---------------------------
if want dashboards; then
    step "SQL: dashboards ($largest rows)"
    dash_configs="cpu:0"
    if [ $sql_gpu = yes ]; then dash_configs+=" gpu:0"; fi
    if [ "$max_workers" -gt 0 ]; then
        dash_configs+=" cpu:$max_workers"
        if [ $sql_gpu = yes ]; then dash_configs+=" gpu:$max_workers"; fi
    fi
    GH_USE_EXISTING=1 GH_CONFIGS="$dash_configs" bash "$BENCH_DIR/dashboards_bench.sh" "$largest" "$rounds" |
        tee "$WORK/dashboards.txt"
fi
if want metrics; then
    step "SQL: the metrics table, its text column first and last ($largest rows)"
    metrics_configs="cpu:0"
    if [ $sql_gpu = yes ]; then metrics_configs="gpu:0 cpu:0"; fi
    GH_USE_EXISTING=1 GH_CONFIGS="$metrics_configs" bash "$BENCH_DIR/metrics_bench.sh" "$largest" "$rounds" |
        tee "$WORK/metrics.txt"
fi
if want dashboards && want probes && [ $sql_gpu = yes ]; then
    step "SQL: page probes on and off ($largest rows)"
    bash "$BENCH_DIR/page_probes_bench.sh" "$largest" "$rounds" | tee "$WORK/probes.txt"
fi
if want timescaledb; then
    step "SQL: a TimescaleDB hypertable ($smallest rows, PostgreSQL 17, a server of its own)"
    (unset PGHOST PGPORT PGUSER PGDATABASE; bash "$BENCH_DIR/timescaledb_bench.sh" "$smallest" "$rounds") |
        tee "$WORK/timescaledb.txt"
fi

# GPU: CUDA start-up, in fresh sessions ----------------------------------------
# Each psql is a new backend.  Times come from \timing (the server round
# trip, not psql's own start); first and second query of one session.
timed_session() {  # CASE SESSION-NUMBER, SQL script on stdin
    local out
    # A failed session's times (psql times errors too) are left out, and said.
    if ! out=$(psql -X -q -At -v ON_ERROR_STOP=1 2>"$WORK/session.err"); then
        echo "$1: $(head -1 "$WORK/session.err")" | tee -a "$WORK/startup_errors.txt" >&2
        return 0
    fi
    grep -oE '^Time: [0-9.]+' <<<"$out" | awk -v c="$1" -v s="$2" '{print c "," s "," NR "," $2}' >>"$WORK/startup.csv"
    sed -n 's/^cuda_startup_ms=//p' <<<"$out" | awk -v c="$1" -v s="$2" '{print c "," s ",cuda_startup_ms," $1}' >>"$WORK/startup.csv"
}
if [ $sql_gpu = yes ] && want startup; then
    step "GPU: CUDA start-up in fresh sessions"
    echo "case,session,query,ms" >"$WORK/startup.csv"
    ts=ghb_uniform_$smallest
    for s in $(seq 1 "$rounds"); do
        for mode in cpu gpu; do
            timed_session "serial, device=$mode, $ts" "$s" <<SQL
SET gpu_histogram.device = $mode;
SET max_parallel_workers_per_gather = 0;
\\timing on
\\o /dev/null
SELECT gpu_histogram(x, 0, 1, 256) FROM $ts;
SELECT gpu_histogram(x, 0, 1, 256) FROM $ts;
\\o
\\timing off
SELECT 'cuda_startup_ms=' || coalesce(service_cuda_startup_ms, 0) FROM gpu_histogram_stats();
SQL
        done
        # Every parallel worker is a new process, so it starts CUDA in every
        # query; only the leader's start-up is paid once per session.
        parallel_modes="cpu gpu"
        if [ "$max_workers" = 0 ]; then parallel_modes=""; fi
        for mode in $parallel_modes; do
            timed_session "$max_workers workers, device=$mode, $t" "$s" <<SQL
SET gpu_histogram.device = $mode;
SET max_parallel_workers_per_gather = $max_workers;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\\timing on
\\o /dev/null
SELECT gpu_histogram(x, 0, 1, 256) FROM $t;
SELECT gpu_histogram(x, 0, 1, 256) FROM $t;
\\o
\\timing off
SELECT 'cuda_startup_ms=' || coalesce(service_cuda_startup_ms, 0) FROM gpu_histogram_stats();
SQL
        done
    done
fi

# The report ----------------------------------------------------------------
meta runtime_s "$(($(date +%s) - started))"
mkdir -p "$out_dir"
prefix="$out_dir/$(date +%F)-$label-$device"
step "report: $prefix.md"
"$REPORT_PY" "$BENCH_DIR/make_report.py" "$WORK" "$prefix"
append_section() { # file title
    [ -s "$1" ] || return 0
    printf '\n## %s\n\n```\n' "$2" >>"$prefix.md"
    cat "$1" >>"$prefix.md"
    printf '```\n' >>"$prefix.md"
}
append_section "$WORK/dashboards.txt" "Dashboards (test/bench/dashboards_bench.sh, $largest rows)"
append_section "$WORK/metrics.txt" "The metrics table (test/bench/metrics_bench.sh, $largest rows)"
append_section "$WORK/probes.txt" "Page probes (test/bench/page_probes_bench.sh, $largest rows)"
append_section "$WORK/timescaledb.txt" "TimescaleDB (test/bench/timescaledb_bench.sh, $smallest rows)"
echo "done in $(($(date +%s) - started)) s; raw results kept in $WORK"
