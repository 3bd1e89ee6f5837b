#!/usr/bin/env bash
# page_cache_checks.sh: the GPUs' page cache (gpu/specs/page_cache.h), against
# whatever PostgreSQL the environment points at.  run_gpu_checks.sh calls
# it; it can also run alone.  Needs a GPU and gpu_histogram.gpu_page_cache
# above 0 (the default); without them it says so and passes.
#
# Every answer is compared with the ordinary plan's (gpu_histogram.scan =
# off), and EXPLAIN ANALYZE says how many of the pages parsed on the GPU
# came from its cache:
#   1. a second scan of the same table finds every page in the cache, the
#      grouped heatmap too (the same pages, the same keys);
#   2. after an UPDATE of the first 300 pages (HOT, on the same pages) and
#      a VACUUM, those pages have new LSNs and are read again; the rest
#      still come from the cache; the scan after that finds all of them;
#   3. parallel workers;
#   4. scans cancelled mid-batch, again and again, then the same scan: its
#      answer is right (a cancelled scan's copies are never committed);
#   5. an unlogged table is never cached (its pages keep LSN 0);
#   6. TRUNCATE and new rows: a new file, new keys;
#   7. probes (gpu_histogram.page_probes): a scan of cached pages whose
#      visibility map bits stayed set pins none of them ("Pages Never
#      Pinned"); after a VACUUM sets bits on their map page, or a DELETE
#      clears one, the pages are pinned and read again, and the answer stays
#      the ordinary plan's; with page_probes off every page is pinned;
#   8. the planner: once a shape's scan found every page in the cache, its
#      next plan stays serial where workers are allowed; with page_probes
#      off it gets workers;
#   9. the 24 partitions of a table, cached together, each keep all their
#      pages in the cache;
#  10. COPY FREEZE into a file its transaction created or truncated adds
#      frozen rows to an all-visible page without clearing its map bit:
#      nothing of such a file is cached or probed before its transaction
#      ends (serially and with workers, CREATE and TRUNCATE, a TRUNCATE in
#      place, a savepoint), and after the COMMIT and a VACUUM (FREEZE) the
#      answers stay the ordinary plan's.
set -uo pipefail
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../lib/gpu_status.sh"
status=$(gh_gpu_status)
if [ "$status" != usable ]; then
    echo "page cache checks: no usable GPU ($status): skipped"
    exit 0
fi
if [ "$(psql_q -c "SELECT current_setting('gpu_histogram.gpu_page_cache') = '0'")" = t ]; then
    echo "page cache checks: gpu_histogram.gpu_page_cache is 0: skipped"
    exit 0
fi

# GH_PC_ONLY=frozen runs section 10 alone
if [ "${GH_PC_ONLY:-}" != frozen ]; then
psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS gh_pc, gh_pc_unlogged;
SET TimeZone = 'America/New_York';
-- room on each page: the UPDATEs below stay on their pages (HOT), so no page is left empty (an empty
-- page, with no line pointer, is never cached: there is nothing on it to read)
CREATE TABLE gh_pc WITH (fillfactor = 60) AS
SELECT (((i::bigint * 7919) % 100003) / 100003.0)::float8 AS x, i % 100 AS g,
       '2024-03-01 00:00-05'::timestamptz + i * interval '3 seconds' AS ts
FROM generate_series(1, 1500000) i;
CREATE UNLOGGED TABLE gh_pc_unlogged AS TABLE gh_pc;
VACUUM ANALYZE gh_pc;
VACUUM ANALYZE gh_pc_unlogged;
SQL

ungrouped="SELECT gpu_histogram(x, 0, 1, 64) h FROM gh_pc"
heatmap="SELECT date_trunc('hour', ts) hr, gpu_histogram(x, 0, 1, 64) h, count(*) FROM gh_pc GROUP BY 1"
serial="SET max_parallel_workers_per_gather = 0;"
parallel="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"

# run NAME SETTINGS QUERY EXPECT: EXPECT is all (every page from the cache), probes (every page from
# the cache, none of them pinned), pinned (every page from the cache, all of them pinned), none, some
# (neither) or any.
# For all, the query runs once before: a page that only became all-visible since the last scan is
# parsed on the GPU for the first time, and that copies it into the cache.
run() {
    local name=$1 settings=$2 query=$3 expect=$4 out warm=""
    case $expect in all | probes | pinned) warm="CREATE TEMP TABLE r_warm AS $query;" ;; esac
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 2>&1 <<SQL
SET TimeZone = 'America/New_York';
$settings
SET gpu_histogram.device = gpu;
$warm
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query;
CREATE TEMP TABLE r_gpu AS $query;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE r_plain AS $query;
SELECT 'diff ' || ((SELECT count(*) FROM (TABLE r_gpu EXCEPT ALL TABLE r_plain) a) +
                   (SELECT count(*) FROM (TABLE r_plain EXCEPT ALL TABLE r_gpu) b));
SQL
)
    local diff pages cached unpinned ok=1
    diff=$(echo "$out" | sed -n 's/^diff //p')
    pages=$(echo "$out" | sed -n 's/.*Pages Parsed on GPU: //p' | awk '{ s += $1 } END { print s + 0 }')
    cached=$(echo "$out" | sed -n 's/.*Pages from GPU Page Cache: //p' | awk '{ s += $1 } END { print s + 0 }')
    unpinned=$(echo "$out" | sed -n 's/.*Pages Never Pinned: //p' | awk '{ s += $1 } END { print s + 0 }')
    [ "$diff" = 0 ] && [ "$pages" -gt 0 ] || ok=0
    case $expect in
    all) [ "$cached" -eq "$pages" ] || ok=0 ;;
    probes) [ "$cached" -eq "$pages" ] && [ "$unpinned" -eq "$pages" ] || ok=0 ;;
    pinned) [ "$cached" -eq "$pages" ] && [ "$unpinned" -eq 0 ] || ok=0 ;;
    none) [ "$cached" -eq 0 ] || ok=0 ;;
    some) [ "$cached" -gt 0 ] && [ "$cached" -lt "$pages" ] || ok=0 ;;
    esac
    if [ $ok = 1 ]; then
        echo "PASS: $name: equal to the ordinary plan; $cached of $pages pages parsed on the GPU from its cache," \
            "$unpinned never pinned"
    else
        echo "FAIL: $name (differences ${diff:-?}, $cached of $pages pages from the cache, $unpinned never pinned," \
            "expected $expect)"
        echo "$out" | head -40 | sed 's/^/  /'
        failures=$((failures + 1))
    fi
}

run "first scan" "$serial" "$ungrouped" any
run "the same scan again" "$serial" "$ungrouped" probes
run "the hourly heatmap over the same pages" "$serial" "$heatmap" probes
run "page_probes off: the same pages, pinned" "$serial SET gpu_histogram.page_probes = off;" "$ungrouped" pinned

psql_q <<'SQL' || exit 1
UPDATE gh_pc SET x = 1 - x WHERE ctid < '(300,0)';
VACUUM gh_pc;
SQL
run "after an UPDATE of 300 pages and a VACUUM" "$serial" "$ungrouped" some
run "and again" "$serial" "$heatmap" probes
run "4 workers" "$parallel" "$heatmap" probes
run "4 workers, ungrouped" "$parallel" "$ungrouped" probes

# The planner costs a shape by the share of its pages its last scan found in the cache (cached_cost.h):
# with every page there, 4 workers would only cost their start, and the plan stays serial; with
# page_probes off the host pins every page, which workers share, and the plan is parallel.
gathers() {
    psql -X -q -At -c "SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 100; SET gpu_histogram.device = gpu; $1
        EXPLAIN (COSTS OFF) $2" | grep -c Gather
}
g_on=$(gathers "" "$ungrouped")
g_off=$(gathers "SET gpu_histogram.page_probes = off;" "$ungrouped")
if [ "$g_on" = 0 ] && [ "$g_off" -gt 0 ]; then
    echo "PASS: the planner keeps a scan of cached pages serial, and plans workers with page_probes off"
else
    echo "FAIL: Gather in the plan: $g_on with the pages cached (expected 0), $g_off with page_probes off (expected 1)"
    failures=$((failures + 1))
fi
run "planned serially with 4 workers allowed" "SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 100;" "$ungrouped" probes

# a DELETE clears the bits of its pages (no VACUUM: they stay cleared); those are read pinned, on the host
psql_q -c "DELETE FROM gh_pc WHERE ctid >= '(500,0)' AND ctid < '(520,0)' AND g % 3 = 0" >/dev/null || exit 1
run "after a DELETE on 20 pages, no VACUUM" "$serial" "$ungrouped" any
run "the same, the heatmap" "$serial" "$heatmap" any
run "the same, 4 workers" "$parallel" "$ungrouped" any
psql_q -c "VACUUM gh_pc" >/dev/null || exit 1
run "after the VACUUM" "$serial" "$ungrouped" any
run "and again" "$serial" "$ungrouped" probes

# cancelled mid-scan, the GPU still reading: nothing the batch copied may become a hit
psql_q <<'SQL' >/dev/null 2>&1
UPDATE gh_pc SET x = x / 2 WHERE ctid < '(2000,0)';
VACUUM gh_pc;
SQL
for t in 2 3 4 5 6 8 10 12 15 20; do
    psql -X -q -At -c "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = gpu;
        SET statement_timeout = '${t}ms'; $ungrouped" >/dev/null 2>&1
done
run "after 10 scans cancelled mid-scan" "$serial" "$ungrouped" any
run "and again" "$serial" "$ungrouped" all

run "an unlogged table" "$serial" "SELECT gpu_histogram(x, 0, 1, 64) h FROM gh_pc_unlogged" none
run "an unlogged table, again" "$serial" "SELECT gpu_histogram(x, 0, 1, 64) h FROM gh_pc_unlogged" none

psql_q <<'SQL' || exit 1
TRUNCATE gh_pc;
INSERT INTO gh_pc SELECT (((i::bigint * 104729) % 99991) / 99991.0)::float8, i % 7,
       '2024-03-01 00:00-05'::timestamptz + i * interval '5 seconds' FROM generate_series(1, 1000000) i;
VACUUM ANALYZE gh_pc;
SQL
run "after TRUNCATE and new rows" "$serial" "$ungrouped" none
run "and again" "$serial" "$heatmap" all

# Many files cached together: each partition has a place of its own in the cache (gpu_service_cache_base).
# With a place hashed from the file, two of 24 such partitions (about 1,075 pages each) overlap in a
# 2 GB cache (260,364 entries) with a probability of about 90%, and evict each other's pages at every
# scan.
psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS gh_pc_parts;
CREATE TABLE gh_pc_parts (x float8, g int) PARTITION BY LIST (g);
DO $$ BEGIN
    FOR p IN 0..23 LOOP
        EXECUTE format('CREATE TABLE gh_pc_parts_%s PARTITION OF gh_pc_parts FOR VALUES IN (%s)', p, p);
    END LOOP;
END $$;
INSERT INTO gh_pc_parts SELECT (((i::bigint * 7919) % 100003) / 100003.0)::float8, i % 24 FROM generate_series(1, 4800000) i;
VACUUM ANALYZE gh_pc_parts;
SQL
run "24 partitions cached together" "$serial" "SELECT gpu_histogram(x, 0, 1, 64) h FROM gh_pc_parts" all
run "and grouped by partition, again" "$serial" "SELECT g, gpu_histogram(x, 0, 1, 64) h FROM gh_pc_parts GROUP BY g" probes

fi

# 10. COPY FREEZE. In one session: each check prints "check EXPECT LABEL", its EXPLAIN ANALYZE, then
# "same t" if the scan's answer equals the ordinary plan's in the same transaction. 296,046 rows of
# (float8, int4) fill 1,600 pages of 185 and leave 46 on page 1600; the next 46 rows land on that page,
# all-visible and already cached by a scan of the first rows if the cache took the file.
frozen_rows() { # FIRST COUNT: COPY's text rows
    awk -v a="$1" -v n="$2" 'BEGIN { for (i = a; i < a + n; i++) printf "%.17g\t%d\n", ((i * 7919) % 100003) / 100003.0, i % 100 }'
}
copy_freeze() { # TABLE FIRST COUNT
    echo "COPY $1 FROM STDIN WITH (FREEZE);"
    frozen_rows "$2" "$3"
    echo '\.'
}
frozen_check() { # EXPECT LABEL QUERY
    cat <<SQL
\echo check $1 $2
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $3;
CREATE TEMP TABLE r_gpu AS $3;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE r_plain AS $3;
SET gpu_histogram.scan = on;
SELECT 'same ' || (count(*) = 0)::text
FROM ((TABLE r_gpu EXCEPT ALL TABLE r_plain) UNION ALL (TABLE r_plain EXCEPT ALL TABLE r_gpu)) d;
DROP TABLE r_gpu, r_plain;
SQL
}
# reads a session's output: each check passes if its answer was the ordinary plan's and its pages came
# from the cache as expected (none: no page; any: whatever; probes: every page, none of them pinned)
frozen_verdicts() {
    awk -v label="$1" '
        function verdict() {
            if (name == "") return
            ok = same == "true" && pages > 0
            if (expect == "none" && cached != 0) ok = 0
            if (expect == "probes" && (cached != pages || unpinned != pages)) ok = 0
            printf "%s: COPY FREEZE, %s, %s: %s; %d of %d pages parsed on the GPU from its cache, %d never pinned (expected %s)\n",
                ok ? "PASS" : "FAIL", label, name, same == "true" ? "equal to the ordinary plan" : "DIFFERENT from the ordinary plan",
                cached, pages, unpinned, expect
            name = ""
        }
        /^check / { verdict(); expect = $2; name = substr($0, length($1 $2) + 3); pages = cached = unpinned = 0; same = "?"; next }
        /Pages Parsed on GPU: / { sub(/.*Pages Parsed on GPU: /, ""); pages += $1 }
        /Pages from GPU Page Cache: / { sub(/.*Pages from GPU Page Cache: /, ""); cached += $1 }
        /Pages Never Pinned: / { sub(/.*Pages Never Pinned: /, ""); unpinned += $1 }
        /^same / { same = $2; verdict() }
        /ERROR/ { print "FAIL: COPY FREEZE, " label ": " $0 }
        END { verdict() }'
}
frozen_session() { # LABEL: runs stdin's SQL in one session and judges its checks
    local out
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 2>&1)
    local verdicts
    verdicts=$(echo "$out" | frozen_verdicts "$1")
    echo "$verdicts"
    if [ -z "$verdicts" ] || echo "$verdicts" | grep -q '^FAIL'; then
        failures=$((failures + 1))
        echo "$out" | grep -v '^ *\(->\|Pages\|Tuples\|Custom\|GPU\|Heap\|Group\|Sort\|Output\)' | head -30 | sed 's/^/  /'
    fi
}
frozen_q="SELECT gpu_histogram(x, 0, 1, 64) h FROM gh_pc_frozen"
frozen_grouped_q="SELECT g, gpu_histogram(x, 0, 1, 64) h, count(*) FROM gh_pc_frozen GROUP BY g"
frozen_settings="SET gpu_histogram.device = gpu; SET max_parallel_workers_per_gather = 0;"
frozen_workers="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
psql_q -c "DROP TABLE IF EXISTS gh_pc_frozen" >/dev/null 2>&1
frozen_sql=$(mktemp)
trap 'rm -f "$frozen_sql"' EXIT

# the issue's steps: created in the transaction, scanned twice, 46 more rows on the last page
{
    echo "$frozen_settings"
    echo "BEGIN; CREATE TABLE gh_pc_frozen (x float8, g int4);"
    copy_freeze gh_pc_frozen 1 296046
    # the statistics give the grouped key its window, for the GPU's grouped pages
    echo "ANALYZE gh_pc_frozen;"
    frozen_check none "in the creating transaction, the first scan" "$frozen_q"
    frozen_check none "the same scan again" "$frozen_q"
    copy_freeze gh_pc_frozen 296047 46
    frozen_check none "46 more frozen rows on the last page" "$frozen_q"
    frozen_check none "the same, grouped" "$frozen_grouped_q"
    echo "$frozen_workers"
    frozen_check none "the same, 4 workers" "$frozen_q"
    frozen_check none "the same, grouped, 4 workers" "$frozen_grouped_q"
    echo "SET max_parallel_workers_per_gather = 0; COMMIT;"
    frozen_check any "after the COMMIT" "$frozen_q"
    frozen_check probes "and again" "$frozen_q"
    frozen_check any "grouped, after the COMMIT" "$frozen_grouped_q"
    frozen_check probes "and again" "$frozen_grouped_q"
    echo "VACUUM (FREEZE) gh_pc_frozen;"
    frozen_check any "after a VACUUM (FREEZE)" "$frozen_q"
    frozen_check probes "and again" "$frozen_q"
} >"$frozen_sql"
frozen_session "a new table" <"$frozen_sql"

# TRUNCATE in a later transaction gives the table a new file, which COPY FREEZE may fill; rolled back to
# a savepoint, the old file is back, cached as before
{
    echo "$frozen_settings"
    echo "BEGIN; SAVEPOINT s; TRUNCATE gh_pc_frozen;"
    copy_freeze gh_pc_frozen 7 296046
    frozen_check none "truncated in the transaction, the first scan" "$frozen_q"
    copy_freeze gh_pc_frozen 9 46
    frozen_check none "46 more frozen rows on the last page" "$frozen_q"
    echo "$frozen_workers"
    frozen_check none "the same, 4 workers" "$frozen_q"
    echo "SET max_parallel_workers_per_gather = 0; ROLLBACK TO SAVEPOINT s;"
    frozen_check probes "rolled back to the savepoint: the old file, from the cache" "$frozen_q"
    echo "TRUNCATE gh_pc_frozen;"
    copy_freeze gh_pc_frozen 11 296046
    frozen_check none "truncated again" "$frozen_q"
    copy_freeze gh_pc_frozen 13 46
    frozen_check none "46 more frozen rows on the last page" "$frozen_q"
    echo "COMMIT;"
    frozen_check any "after the COMMIT" "$frozen_q"
    frozen_check probes "and again" "$frozen_q"
} >"$frozen_sql"
frozen_session "TRUNCATE" <"$frozen_sql"

# a table created in the transaction is truncated in place (heap_truncate_one_rel): the same file,
# its blocks numbered from 0 again
{
    echo "$frozen_settings"
    echo "DROP TABLE gh_pc_frozen; BEGIN; CREATE TABLE gh_pc_frozen (x float8, g int4);"
    copy_freeze gh_pc_frozen 1 296046
    frozen_check none "created in the transaction" "$frozen_q"
    echo "TRUNCATE gh_pc_frozen;"
    copy_freeze gh_pc_frozen 3 100000
    frozen_check none "truncated in place, new frozen rows" "$frozen_q"
    copy_freeze gh_pc_frozen 5 46
    frozen_check none "46 more on the last page" "$frozen_q"
    echo "COMMIT;"
    frozen_check any "after the COMMIT" "$frozen_q"
    frozen_check probes "and again" "$frozen_q"
} >"$frozen_sql"
frozen_session "TRUNCATE in place" <"$frozen_sql"

psql_q -c "DROP TABLE IF EXISTS gh_pc, gh_pc_unlogged, gh_pc_parts, gh_pc_frozen" >/dev/null
[ $failures -eq 0 ] && echo "page cache GPU checks: all passed" || echo "page cache GPU checks: $failures FAILED"
[ $failures -eq 0 ]
