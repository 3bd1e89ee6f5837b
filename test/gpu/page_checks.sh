#!/usr/bin/env bash
# page_checks.sh: the GPU reads heap pages itself (issue 13), against
# whatever PostgreSQL the environment points at.  run_gpu_checks.sh calls
# it; it can also run alone.
#
#   bash test/gpu/page_checks.sh [SECONDS]    (the concurrent writers' time, default 40)
#
# 1. Exactness: each column type and tuple layout the page kernel reads
#    (padding after a narrower column, NULLs before and in the column, a
#    column added with a default after the rows were stored, a dropped
#    column, several histograms in one scan, parallel workers, varlenas of
#    every storage before the column), and what it leaves to the CPU (a
#    temporary table).  Each answer with device = gpu and auto must equal
#    the ordinary plan's (gpu_histogram.scan = off), and EXPLAIN ANALYZE
#    must show pages parsed on the GPU exactly where the GPU can read them,
#    and as many tuples read as the table has rows (the kernel counts
#    those of the pages it parses).
# 2. MVCC under concurrent writers: while other sessions insert into the
#    free space of all-visible pages, update (HOT, into the same pages),
#    delete, and VACUUM (which sets all-visible again and frees line
#    pointers), a session repeats, in one REPEATABLE READ transaction at a
#    time, the scan with device = gpu and the same histogram from
#    width_bucket with the ordinary plan, a grouped scan under a WHERE
#    clause (its pages filtered and grouped on the GPU) and a scan of a
#    range of id (passing over the pages whose recorded ranges lie outside
#    it, while the writers change pages and VACUUM sets their bits anew)
#    against the ordinary plan: every pair must be equal.
# 3. Pins, which a batch holds itself (extension/scan/heap/batch_pins.h): a
#    VACUUM (FREEZE) waiting for a cleanup lock on a page pinned in a batch
#    is woken when the batch lets go, and after cancels mid-scan and a
#    backend terminated mid-scan none of the table's buffers is pinned
#    (pg_buffercache).
#
# Without a usable GPU it runs the same queries with
# gpu_histogram.debug_pages_on_cpu: the scan pins pages in batches as for
# the GPU and parses each batch on the CPU after unlocking, so CI still
# checks the pinning, the batching and the MVCC argument (the DEBUG1 line
# of each scan shows that batches were made).
set -uo pipefail
# Answers are matched with `grep -q ... <<<"$out"`, never `echo "$out" | grep -q`:
# under pipefail the pipe fails whenever grep exits at its match before echo has
# written all of a long output (the EXPLAIN's JSON), which made a round that
# printed both "same true" lines count as failed about once in 100 rounds.
seconds=${1:-40}
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../lib/gpu_status.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/three_answers.sh"
device=gpu
batched="SET gpu_histogram.debug_pages_on_cpu = off;"
if [ "$(gh_gpu_status)" != usable ]; then
    device=cpu
    batched="SET gpu_histogram.debug_pages_on_cpu = on;"
    echo "page checks: no usable GPU: batches of pinned pages are parsed on the CPU (gpu_histogram.debug_pages_on_cpu)"
fi

psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS gh_pg_types, gh_pg_layout, gh_pg_varlena;
CREATE TABLE gh_pg_types AS
SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END::float8 AS f8,
       (((i::bigint * 104729) % 99991) / 99991.0)::float4 AS f4,
       ((i * 37) % 30011 - 15000)::int2 AS i2,
       (i * 7) % 1000003 - 500000 AS i4,
       (i::bigint * 2654435761) % 9007199254740993 AS i8
FROM generate_series(1, 1500000) i;
-- padding (int2 then float8), NULLs in earlier columns and in the binned one
CREATE TABLE gh_pg_layout AS
SELECT (i % 3)::int2 AS a, CASE WHEN i % 5 = 0 THEN NULL ELSE i END AS b,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END::float8 AS x,
       CASE WHEN i % 11 = 0 THEN NULL ELSE i::bigint END AS c
FROM generate_series(1, 1200000) i;
-- rows stored before ADD COLUMN ... DEFAULT have the default; a dropped column keeps its storage
ALTER TABLE gh_pg_layout ADD COLUMN d float8 DEFAULT 0.625, ADD COLUMN e int4;
ALTER TABLE gh_pg_layout DROP COLUMN a;
INSERT INTO gh_pg_layout (b, x, c, d, e) SELECT i, (i % 997) / 997.0, i, (i % 89) / 89.0, i % 50 FROM generate_series(1, 300000) i;
-- varlenas before the binned column, walked by their headers: text with 1-byte and 4-byte headers,
-- compressed inline, TOASTed, NULL; numeric and jsonb
CREATE TABLE gh_pg_varlena AS
SELECT '2024-01-01'::timestamptz + i * interval '10 seconds' AS time,
       CASE WHEN i % 501 = 0 THEN NULL ELSE 'device-' || i % 500 END AS device_id,
       CASE i % 1000 WHEN 0 THEN NULL
                     WHEN 1 THEN repeat('ab', 3000)
                     WHEN 2 THEN (SELECT string_agg(md5((i * k)::text), '') FROM generate_series(1, 80) k)
                     ELSE repeat('v', i % 200) END AS note,
       (i % 977)::numeric / 7 AS n, jsonb_build_object('k', i % 13) AS j,
       CASE WHEN i % 43 = 0 THEN NULL ELSE (i % 1000) / 1000.0 END::float8 AS x, i % 64 AS g
FROM generate_series(1, 800000) i;
VACUUM (FREEZE, ANALYZE) gh_pg_types, gh_pg_layout, gh_pg_varlena;
SQL

# check NAME GPU_PAGES(yes|no) SETTINGS QUERY
check() {
    local name=$1 want=$2 settings=$3 query=$4
    local out table diff pages scanned rows visible where ok=yes
    table=$(echo "$query" | sed -n 's/.* FROM \([a-z_0-9]*\).*/\1/p')
    out=$(gh_three_answers "SET max_parallel_workers_per_gather = 0;
$settings" "SET gpu_histogram.device = $device;
$batched" "$query" "SET gpu_histogram.debug_pages_on_cpu = off;" "SET client_min_messages = debug1;")
    diff=$(( $(gh_field "$out" diff_gpu) + $(gh_field "$out" diff_auto) ))
    pages=$(gh_explain_sum "$out" "Pages Parsed on GPU")
    [ "$device" = cpu ] && pages=$(echo "$out" | sed -n 's/.* \([0-9]*\) pages pinned in batches and parsed on the CPU.*/\1/p' |
        awk '{ s += $1 } END { print s + 0 }')
    scanned=$(echo "$out" | grep -c "GpuHistogramScan")
    # the tuples EXPLAIN counts as read (the kernel counts those of the pages it parses) are the table's rows
    rows=$(psql -X -q -At -c "SELECT count(*) FROM $table" 2>&1)
    visible=$(echo "$out" | sed -n 's/.*Visible Tuples: //p' | head -1)
    [ "$diff" = 0 ] && [ "$scanned" -gt 0 ] && [ -n "$rows" ] && [ "$visible" = "$rows" ] || ok=no
    [ "$want" = yes ] && [ "$pages" -eq 0 ] && ok=no
    [ "$want" = no ] && [ "$pages" -ne 0 ] && ok=no
    where="parsed on the GPU"
    [ "$device" = cpu ] && where="pinned in batches"
    gh_verdict "$name" $ok "$device and auto equal the ordinary plan; $pages pages $where; $visible tuples read" \
        "differences ${diff:-?}, pages $where $pages, wanted $want, scans $scanned, tuples read ${visible:-?} of ${rows:-?}" \
        "$out"
}

check "float8 with NULLs" yes "" "SELECT gpu_histogram(f8, 0, 1, 64) AS h FROM gh_pg_types"
check "float4" yes "" "SELECT gpu_histogram(f4, 0, 1, 1000) AS h FROM gh_pg_types"
check "int2" yes "" "SELECT gpu_histogram(i2, -20000, 20000, 100) AS h FROM gh_pg_types"
check "int4, descending bounds" yes "" "SELECT gpu_histogram(i4, 600000, -600000, 77) AS h FROM gh_pg_types"
check "int8 beyond 2^53, 100,000 buckets" yes "" \
    "SELECT gpu_histogram(i8, -1, 9007199254740993, 100000) AS h FROM gh_pg_types"
check "three histograms in one scan" yes "" \
    "SELECT gpu_histogram(f8, 0, 1, 16) AS a, gpu_histogram(i4, -500000, 500000, 10) AS b, gpu_histogram(f4, 0.25, 0.5, 3) AS c FROM gh_pg_types"
check "padding, NULLs before the column, a dropped column" yes "" \
    "SELECT gpu_histogram(x, 0, 1, 50) AS h, gpu_histogram(c, 0, 1500000, 15) AS h2 FROM gh_pg_layout"
check "a column added with a default after the rows were stored" yes "" \
    "SELECT gpu_histogram(d, 0, 1, 8) AS h, gpu_histogram(e, 0, 50, 5) AS h2 FROM gh_pg_layout"
check "4 workers" yes "SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;" \
    "SELECT gpu_histogram(f8, 0, 1, 256) AS h FROM gh_pg_types"
check "varlenas before the column: text (NULL, compressed, TOASTed), numeric, jsonb" yes "" \
    "SELECT gpu_histogram(x, 0, 1, 64) AS h, gpu_histogram(g, 0, 64, 8) AS hg FROM gh_pg_varlena"
check "varlenas before the column and its WHERE clause" yes "" \
    "SELECT gpu_histogram(x, 0, 1, 64) AS h FROM gh_pg_varlena WHERE g < 40 AND x > 0.125"
# every tuple read, as the check counts them: the pages' recorded ranges of i4 would pass over those where i4 <= 0
check "a WHERE clause evaluated natively (the GPU filters the pages)" yes "SET gpu_histogram.skip_pages_by_range = off;" \
    "SELECT gpu_histogram(f8, 0, 1, 64) AS h FROM gh_pg_types WHERE i4 > 0"
check "a WHERE clause the executor evaluates (CPU path)" no "" \
    "SELECT gpu_histogram(f8, 0, 1, 64) AS h FROM gh_pg_types WHERE i4 % 3 = 1"
[ "$device" = gpu ] && check "gpu_histogram.pages_on_gpu = off" no "SET gpu_histogram.pages_on_gpu = off;" \
    "SELECT gpu_histogram(f8, 0, 1, 64) AS h FROM gh_pg_types"

# a temporary table lives in local buffers, which the GPU cannot see
out=$(psql -X -q -At 2>&1 <<SQL
SET gpu_histogram.device = $device;
$batched
CREATE TEMP TABLE tmp AS SELECT (i % 1000) / 1000.0::float8 AS x FROM generate_series(1, 600000) i;
VACUUM tmp;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT gpu_histogram(x, 0, 1, 64) FROM tmp;
SELECT 'same ' || ((SELECT gpu_histogram(x, 0, 1, 64) FROM tmp) =
       (SELECT array_agg(coalesce(c, 0) ORDER BY b) FROM generate_series(0, 65) b
        LEFT JOIN (SELECT width_bucket(x, 0, 1, 64) b, count(*) c FROM tmp GROUP BY 1) w USING (b)));
SQL
)
if grep -q 'Pages Parsed on GPU: 0' <<<"$out" && grep -q '^same true$' <<<"$out"; then
    echo "PASS: a temporary table is parsed on the CPU and equals width_bucket"
else
    echo "FAIL: temporary table"; echo "$out" | sed 's/^/  /'; failures=$((failures + 1))
fi

# 2. MVCC under concurrent writers
psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS gh_pg_mvcc;
CREATE TABLE gh_pg_mvcc (id int, x float8) WITH (fillfactor = 60, autovacuum_enabled = off);
INSERT INTO gh_pg_mvcc SELECT i, (i % 1000) / 1000.0 FROM generate_series(1, 1500000) i;
VACUUM (FREEZE, ANALYZE) gh_pg_mvcc;
SQL
stop_at=$(( $(date +%s) + seconds ))
# one statement per connection, so that a writer stops when the time is up (a pipe would queue work)
writer() {
    local k=0 sql
    while [ "$(date +%s)" -lt "$stop_at" ]; do
        k=$((k + 1))
        case $1 in
        insert) sql="INSERT INTO gh_pg_mvcc SELECT -i, (i % 500) / 500.0 + 0.0005 FROM generate_series(1, 2000) i" ;;
        update) sql="UPDATE gh_pg_mvcc SET x = x + 0.0003 WHERE id % 997 = $((k % 997)) AND id > 0" ;;
        delete) sql="DELETE FROM gh_pg_mvcc WHERE id % 1009 = $((k % 1009)) AND id > 0" ;;
        vacuum) sql="VACUUM gh_pg_mvcc" ;;
        esac
        psql -X -q -o /dev/null -c "$sql" 2>/dev/null
    done
}
pids=()
for w in insert update delete vacuum; do writer $w & pids+=($!); done
rounds=0 equal=0 on_gpu=0 stolen=0 ranged=0
while [ "$(date +%s)" -lt "$stop_at" ]; do
    out=$(psql -X -q -At 2>&1 <<SQL
SET max_parallel_workers_per_gather = 0;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL gpu_histogram.device = $device;
$batched
CREATE TEMP TABLE scan_answer AS SELECT gpu_histogram(x, 0, 1, 100) AS h FROM gh_pg_mvcc;
CREATE TEMP TABLE grouped_answer AS SELECT width_bucket(id, -1500000, 1500000, 12) AS k, gpu_histogram(x, 0, 1, 100) AS h,
       count(*) AS n FROM gh_pg_mvcc WHERE x >= 0.1 GROUP BY 1;
CREATE TEMP TABLE ranged_answer AS SELECT count(*) AS n, gpu_histogram(x, 0, 1, 100) AS h FROM gh_pg_mvcc
       WHERE id > 200000 AND id <= 900000;
SET LOCAL gpu_histogram.scan = off;
SELECT 'same ' || ((SELECT h FROM scan_answer) = (SELECT array_agg(coalesce(c, 0) ORDER BY b)
       FROM generate_series(0, 101) b LEFT JOIN (SELECT width_bucket(x, 0, 1, 100) b, count(*) c
       FROM gh_pg_mvcc GROUP BY 1) w USING (b)));
CREATE TEMP TABLE grouped_plain AS SELECT width_bucket(id, -1500000, 1500000, 12) AS k, gpu_histogram(x, 0, 1, 100) AS h,
       count(*) AS n FROM gh_pg_mvcc WHERE x >= 0.1 GROUP BY 1;
SELECT 'grouped same ' || (count(*) = 0) FROM ((TABLE grouped_answer EXCEPT ALL TABLE grouped_plain)
       UNION ALL (TABLE grouped_plain EXCEPT ALL TABLE grouped_answer)) d;
CREATE TEMP TABLE ranged_plain AS SELECT count(*) AS n, gpu_histogram(x, 0, 1, 100) AS h FROM gh_pg_mvcc
       WHERE id > 200000 AND id <= 900000;
SELECT 'ranged same ' || (a.n = p.n AND a.h = p.h) FROM ranged_answer a, ranged_plain p;
COMMIT;
SET gpu_histogram.device = $device;
$batched
SET client_min_messages = debug1;
EXPLAIN (ANALYZE, FORMAT JSON) SELECT gpu_histogram(x, 0, 1, 100) FROM gh_pg_mvcc;
RESET client_min_messages;
EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*), gpu_histogram(x, 0, 1, 100) FROM gh_pg_mvcc WHERE id > 200000 AND id <= 900000;
SQL
)
    rounds=$((rounds + 1))
    same=no
    grep -q '^same true$' <<<"$out" && grep -q '^grouped same true$' <<<"$out" && grep -q '^ranged same true$' <<<"$out" &&
        same=yes
    r=$(echo "$out" | sed -n 's/.*"Pages Skipped by Their Ranges": \([0-9]*\).*/\1/p' | head -1)
    ranged=$((ranged + ${r:-0}))
    [ $same = yes ] && equal=$((equal + 1))
    if [ "$device" = gpu ]; then
        p=$(echo "$out" | sed -n 's/.*"Pages Parsed on GPU": \([0-9]*\).*/\1/p' | head -1)
    else
        p=$(echo "$out" | sed -n 's/.* \([0-9]*\) pages pinned in batches and parsed on the CPU.*/\1/p' | head -1)
        # half of each batch goes the way of pages taken off a batch that waits for a busy GPU
        st=$(echo "$out" | sed -n "s/.* \([0-9]*\) of them taken off a batch's end.*/\1/p" | head -1)
        stolen=$((stolen + ${st:-0}))
    fi
    on_gpu=$((on_gpu + ${p:-0}))
    grep -q '^\(grouped \|ranged \)\?same false$' <<<"$out" && echo "$out" | head -5 | sed 's/^/  differs: /'
    # not equal, yet no answer differed: the round failed (an error); say what psql said
    if [ $same = no ] && ! grep -q '^\(grouped \|ranged \)\?same false$' <<<"$out"; then
        echo "$out" | grep -v '^ *[][{}"]' | head -8 | sed 's/^/  round failed: /'
    fi
done
wait "${pids[@]}"
rows=$(psql_q -c "SELECT count(*) FROM gh_pg_mvcc")
where="parsed on the GPU"
[ "$device" = cpu ] && where="pinned in batches (EXPLAIN ANALYZE runs), $stolen of them taken off a batch's end"
if [ $rounds -gt 0 ] && [ $equal -eq $rounds ] && [ $on_gpu -gt 0 ] && { [ "$device" = gpu ] || [ $stolen -gt 0 ]; }; then
    echo "PASS: MVCC under concurrent inserts, updates, deletes and VACUUM: $equal of $rounds REPEATABLE READ rounds equal width_bucket's answer in the same snapshot, ungrouped, grouped under a WHERE clause and under a range of id (pages skipped by their recorded ranges: $ranged); $on_gpu pages $where; $rows rows at the end"
else
    echo "FAIL: MVCC under concurrent writers: $equal of $rounds rounds equal; $on_gpu pages $where"
    failures=$((failures + 1))
fi

# 3. Pins.  A batch's unpin wakes a VACUUM waiting for a cleanup lock: VACUUM
# (FREEZE) needs one on every all-visible page it must freeze, and pages
# appended and then vacuumed are such pages, which the scan takes into batches.
psql_q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS pg_buffercache" || exit 1
psql_q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS gh_pg_freeze" -c "CREATE TABLE gh_pg_freeze (x float8) WITH (autovacuum_enabled = off)"
{
    echo "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = $device; $batched SET application_name = 'gh_pin_scanner';"
    for i in $(seq 20000); do echo "SELECT gpu_histogram(x, 0, 1, 100) IS NOT NULL FROM gh_pg_freeze;"; done
} | psql -X -q -At >/dev/null 2>&1 &
scanner=$!
stuck=0
for round in 1 2 3; do
    psql_q -c "INSERT INTO gh_pg_freeze SELECT (i % 1000) / 1000.0 FROM generate_series(1, 400000) i" -c "VACUUM gh_pg_freeze"
    PGOPTIONS="-c statement_timeout=20s" psql -X -q -c "VACUUM (FREEZE) gh_pg_freeze" 2>/dev/null || stuck=$((stuck + 1))
done
psql_q -o /dev/null -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gh_pin_scanner'"
wait $scanner
if [ $stuck = 0 ]; then
    echo "PASS: VACUUM (FREEZE) of all-visible pages that a scan keeps pinning in batches is never left waiting (3 rounds)"
else
    echo "FAIL: VACUUM (FREEZE) waited 20 s for a cleanup lock on pages pinned in batches, in $stuck of 3 rounds"
    failures=$((failures + 1))
fi

# No pin outlives its scan: cancels mid-scan, and a backend terminated while scanning
{
    echo "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = $device; $batched"
    for i in $(seq 30); do
        echo "SET statement_timeout = '$((i % 5 + 1))ms'; SELECT gpu_histogram(x, 0, 1, 100) IS NOT NULL FROM gh_pg_mvcc; RESET statement_timeout;"
    done
} | psql -X -q -At >/dev/null 2>&1
# one session scans in a loop until it is terminated
{
    echo "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = $device; $batched SET application_name = 'gh_pin_victim';"
    for i in $(seq 2000); do echo "SELECT gpu_histogram(x, 0, 1, 100) IS NOT NULL FROM gh_pg_mvcc;"; done
} | psql -X -q -At >/dev/null 2>&1 &
victim=$!
sleep 2
killed=$(psql_q -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'gh_pin_victim'")
wait $victim
sleep 1
pinned=$(psql_q -c "SELECT count(*) FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('gh_pg_mvcc') AND pinning_backends > 0")
if [ "$killed" = 1 ] && [ "$pinned" = 0 ]; then
    echo "PASS: 30 cancels mid-scan and a backend terminated mid-scan leave none of the table's buffers pinned"
else
    echo "FAIL: after cancels and a terminated backend ($killed terminated), $pinned of the table's buffers are still pinned"
    failures=$((failures + 1))
fi

# a leaked pin would make DROP TABLE wait for it for ever
[ "$pinned" = 0 ] && psql_q -c "DROP TABLE gh_pg_types, gh_pg_layout, gh_pg_varlena, gh_pg_mvcc, gh_pg_freeze"
[ $failures -eq 0 ] && echo "page checks: all passed" || echo "page checks: $failures FAILED"
exit $failures
