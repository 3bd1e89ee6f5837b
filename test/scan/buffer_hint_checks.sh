#!/usr/bin/env bash
# buffer_hint_checks.sh: the scan pins pages through the buffers it saw
# them in last time (extension/scan/heap/buffer_hints.h), on a throwaway server
# with 16 MB of shared buffers, small enough to move pages around in.
#
#   bash test/scan/buffer_hint_checks.sh
#
# 1. A page read through its hint counts as PostgreSQL's own read does:
#    the same heap_blks_hit in pg_statio_user_tables and the same usage
#    counts in pg_buffercache as a sequential scan of an identical table.
# 2. Hints that went stale, because the table's pages were evicted and read
#    back into other buffers (pg_prewarm of a bigger table, then of this
#    one), give the same histograms as the ordinary plan, serial and with
#    parallel workers, on every device path, and every page is still read
#    once (EXPLAIN ANALYZE's Pages and shared hits).
# 3. A table bigger than the pool, read in batches of pinned pages (on the
#    CPU, and on the GPU where there is one), serial and with 4 workers,
#    ungrouped, grouped and under a WHERE clause: the batches keep to the
#    backend's share of the pool, so no scan runs out of buffers, and every
#    answer equals the ordinary plan's.  The server has 10 connections, so
#    that the share (the pool over every backend) still holds small batches.
# Runs with or without a GPU; each check prints ok or FAILED.
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/checks.sh
source test/lib/checks.sh
# shellcheck source=../pg_temp_server.sh
source test/pg_temp_server.sh -c shared_buffers=16MB -c autovacuum=off -c max_connections=10 -c max_wal_senders=0 || exit 1

q -c "CREATE EXTENSION gpu_histogram" -c "CREATE EXTENSION pg_buffercache" -c "CREATE EXTENSION pg_prewarm" >/dev/null
gpu=$(q -c "SELECT coalesce(min(status), 'none') = 'usable' FROM gpu_histogram_devices()")
serial="SET max_parallel_workers_per_gather = 0;"
parallel="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
          SET min_parallel_table_scan_size = 0;"

echo "== reads through hints count as PostgreSQL's own"
for t in u_scan u_seq; do
    q -c "CREATE TABLE $t (x float8, g int)" \
      -c "INSERT INTO $t SELECT (i % 997) / 997.0, i % 10 FROM generate_series(1, 20000) i" \
      -c "VACUUM (FREEZE) $t" >/dev/null
done
# bigger than shared buffers: reading it six times over evicts every other
# page (the clock sweep lowers a usage count by one a round, from at most 5),
# and reading u_scan and u_seq back then leaves their pages at usage count 1
q -c "CREATE TABLE big AS SELECT i::float8 AS x FROM generate_series(1, 500000) i" -c "VACUUM (FREEZE, ANALYZE) big" \
  -c "SELECT pg_prewarm('big', 'buffer') FROM generate_series(1, 6)" \
  -c "SELECT pg_prewarm('u_scan', 'buffer')" -c "SELECT pg_prewarm('u_seq', 'buffer')" >/dev/null
usage="SELECT string_agg(usagecount || ':' || n, ' ' ORDER BY usagecount) FROM
       (SELECT usagecount, count(*) n FROM pg_buffercache
        WHERE relfilenode = pg_relation_filenode('%s') AND relforknumber = 0 GROUP BY 1) u"
hits="SELECT heap_blks_hit FROM pg_statio_user_tables WHERE relname = '%s'"
# shellcheck disable=SC2059
before=$(q -c "$(printf "$usage" u_seq)")
# shellcheck disable=SC2059
hit0_scan=$(q -c "$(printf "$hits" u_scan)"); hit0_seq=$(q -c "$(printf "$hits" u_seq)")
q -c "$serial" \
  -c "SELECT gpu_histogram(x, 0, 1, 16) IS NOT NULL FROM u_scan" \
  -c "SELECT gpu_histogram(x, 0, 1, 16) IS NOT NULL FROM u_scan" \
  -c "SET gpu_histogram.scan = off" \
  -c "SELECT count(x) FROM u_seq" -c "SELECT count(x) FROM u_seq" \
  -c "SELECT pg_stat_force_next_flush()" >/dev/null
pages=$(q -c "SELECT pg_relation_size('u_scan') / current_setting('block_size')::int")
check "two scans through the custom scan hit as many blocks as two sequential scans (2 x $pages pages)" \
    "$((2 * pages))|$((2 * pages))" \
    "$(( $(q -c "$(printf "$hits" u_scan)") - hit0_scan ))|$(( $(q -c "$(printf "$hits" u_seq)") - hit0_seq ))"
check "the custom scan went through the scan node" t \
    "$(grep -q GpuHistogramScan <<<"$(q -c "$serial" -c "EXPLAIN (COSTS OFF) SELECT gpu_histogram(x, 0, 1, 16) FROM u_scan")" && echo t || echo f)"
# shellcheck disable=SC2059
after=$(q -c "$(printf "$usage" u_seq)")
check "the sequential scans raised the usage counts (before: $before)" yes "$([ "$before" != "$after" ] && echo yes || echo no)"
# shellcheck disable=SC2059
check "the custom scan leaves the same usage counts as the sequential scans" "$after" "$(q -c "$(printf "$usage" u_scan)")"

echo "== stale hints: the table's pages moved to other buffers"
q -c "CREATE TABLE h (x float8, y int4)" \
  -c "INSERT INTO h SELECT CASE WHEN i % 31 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END, i % 1000
      FROM generate_series(1, 250000) i" \
  -c "VACUUM (FREEZE, ANALYZE) h" >/dev/null
hpages=$(q -c "SELECT pg_relation_size('h') / current_setting('block_size')::int")
reference=$(q -c "SET gpu_histogram.scan = off" -c "SELECT gpu_histogram(x, 0, 1, 50)::text || gpu_histogram(y, 0, 1000, 7)::text FROM h" | tail -1)
query="SELECT gpu_histogram(x, 0, 1, 50)::text || gpu_histogram(y, 0, 1000, 7)::text FROM h"
paths=("device=cpu|SET gpu_histogram.device = cpu;" "pinned batches|SET gpu_histogram.device = cpu; SET gpu_histogram.debug_pages_on_cpu = on;")
[ "$gpu" = t ] && paths+=("device=gpu|SET gpu_histogram.device = gpu;" "device=auto|SET gpu_histogram.device = auto;")
where="SELECT relblocknumber, bufferid FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('h') AND relforknumber = 0"
for plan in "serial|$serial" "4 workers|$parallel"; do
    for path in "${paths[@]}"; do
        name="${plan%%|*}, ${path%%|*}"
        set_path="${plan#*|} ${path#*|}"
        q -c "SELECT pg_prewarm('h', 'buffer')" >/dev/null
        first=$(q -c "$set_path" -c "$query" | tail -1)  # records the hints
        q -c "DROP TABLE IF EXISTS seen" -c "CREATE TABLE seen AS $where" >/dev/null
        # six rounds of the clock sweep evict h's pages whatever their usage counts (at most 5)
        q -c "SELECT pg_prewarm('big', 'buffer') FROM generate_series(1, 6)" -c "SELECT pg_prewarm('h', 'buffer')" >/dev/null
        moved=$(q -c "SELECT count(*) FROM seen JOIN ($where) now USING (relblocknumber) WHERE now.bufferid <> seen.bufferid")
        check "$name: the first scan equals the ordinary plan" "$reference" "$first"
        check "$name: after the table's pages moved ($moved of $hpages to other buffers), the same answer" "$reference" \
            "$(q -c "$set_path" -c "$query" | tail -1)"
        check "$name: some pages did move" yes "$([ "$moved" -gt $((hpages / 4)) ] && echo yes || echo no)"
        explain=$(q -c "$set_path" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) $query")
        check "$name: EXPLAIN ANALYZE read every page once" "$hpages" \
            "$(echo "$explain" | sed -n 's/^ *Pages: \([0-9]*\)$/\1/p' | head -1)"
    done
done
# a table that grew past its hints' room keeps them (the array is copied into a bigger one)
q -c "INSERT INTO h SELECT (i % 1000) / 1000.0, i % 1000 FROM generate_series(1, 100000) i" -c "VACUUM (FREEZE) h" >/dev/null
hpages=$(q -c "SELECT pg_relation_size('h') / current_setting('block_size')::int")
grown=$(q -c "SET gpu_histogram.scan = off" -c "$query" | tail -1)
check "after the table grew by 40%, serial and with 4 workers, the same answers as the ordinary plan" "$grown|$grown" \
    "$(q -c "$serial" -c "$query" | tail -1)|$(q -c "$parallel" -c "$query" | tail -1)"
# the top node's hits in the second EXPLAIN of each: the first may also read catalog pages
second_hits() { awk '/^(Custom Scan|Aggregate)/ { n++ } n == 2 && /shared hit/ { print $3; exit }'; }
explain_twice="EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT gpu_histogram(x, 0, 1, 50) FROM h"
check "a serial EXPLAIN counts one shared hit per page, as a sequential scan does ($hpages pages)" \
    "$(q -c "$serial" -c "SET gpu_histogram.scan = off" -c "$explain_twice" -c "$explain_twice" | second_hits)" \
    "$(q -c "$serial" -c "$explain_twice" -c "$explain_twice" | second_hits)"

echo "== a table bigger than the pool, in batches of pinned pages"
q -c "CREATE TABLE over (x float8, g int)" \
  -c "INSERT INTO over SELECT ((i::bigint * 7919) % 100003) / 100003.0, i % 10 FROM generate_series(1, 600000) i" \
  -c "VACUUM (FREEZE, ANALYZE) over" >/dev/null
opages=$(q -c "SELECT pg_relation_size('over') / current_setting('block_size')::int")
pool=$(q -c "SELECT setting FROM pg_settings WHERE name = 'shared_buffers'")
paths=("pinned batches|SET gpu_histogram.device = cpu; SET gpu_histogram.debug_pages_on_cpu = on;")
[ "$gpu" = t ] && paths+=("device=gpu|SET gpu_histogram.device = gpu;" "device=auto|SET gpu_histogram.device = auto;")
shapes=("ungrouped|SELECT gpu_histogram(x, 0, 1, 50)::text FROM over"
        "GROUP BY g|SELECT string_agg(g || ':' || h::text, ' ' ORDER BY g) FROM (SELECT g, gpu_histogram(x, 0, 1, 50) h FROM over GROUP BY g) s"
        "WHERE x < 0.5|SELECT gpu_histogram(x, 0, 1, 50)::text FROM over WHERE x < 0.5")
for shape in "${shapes[@]}"; do
    sql=${shape#*|}
    reference=$(q -c "SET gpu_histogram.scan = off" -c "$sql" | tail -1)
    for plan in "serial|$serial" "4 workers|$parallel"; do
        for path in "${paths[@]}"; do
            name="${shape%%|*}, ${plan%%|*}, ${path%%|*} ($opages pages, a pool of $pool)"
            out=$(q -c "${plan#*|} ${path#*|}" -c "SET client_min_messages = debug1" -c "$sql")
            check "$name: equals the ordinary plan" "$reference" "$(grep -v '^DEBUG' <<<"$out" | tail -1)"
            batched=$(sed -n -e 's/.*: \([0-9]*\) pages pinned in batches and parsed on the CPU.*/\1/p' \
                             -e 's/.*batches on the GPU hold \([0-9]*\) pages; .* \([0-9]*\) batched pages parsed on the CPU.*/\1 \2/p' <<<"$out" |
                awk '{ s += $1 + $2 } END { print s + 0 }')
            check "$name: pages went in batches" yes "$([ "$batched" -gt 0 ] && echo yes || echo "no ($batched)")"
        done
    done
done
pg_temp_stop
trap - EXIT

if [ $failures = 0 ]; then echo "buffer hint checks: all passed"; else echo "buffer hint checks: $failures FAILED"; fi
exit $failures
