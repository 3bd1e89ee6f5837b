#!/usr/bin/env bash
# partition_sums_bench.sh: float sums and means over a partitioned metrics
# table, serially, with workers and on the grouped pages, beside the same
# rows in one table.  Each answer's digest says whether the plans agree:
# the scan's sums are exactly rounded, so every plan of the partitioned
# table should give the one-table scan's digest (leaf_merge.h).
#
#   PGHOST=... PGPORT=... bash test/bench/partition_sums_bench.sh [ROWS] [LABEL]   (default 3,400,001)
#
# The table is (time timestamptz, device_id text, cpu float8), a row each
# three seconds from 2024-01-01 in four monthly leaves, 50 devices; it is
# made in the database named by PGDATABASE (default postgres) the first
# time and kept.  Times are EXPLAIN ANALYZE's execution time, the median
# of five after a warm run, device = cpu (the pages mode parses the
# grouped pages on the CPU as the GPU would, gpu_histogram.debug_pages_on_cpu).
# To compare two builds, run it with each installed, the server restarted
# in between, and compare the lines with the same LABEL-less fields.
set -euo pipefail

rows=${1:-3400001}
label=${2:-run}
psql_() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

if [ "$(psql_ -c "SELECT to_regclass('gh_ps_m') IS NOT NULL")" != t ]; then
    psql_ <<SQL
CREATE EXTENSION IF NOT EXISTS gpu_histogram;
CREATE TABLE gh_ps_m (time timestamptz, device_id text, cpu float8) PARTITION BY RANGE (time);
CREATE TABLE gh_ps_m_1 PARTITION OF gh_ps_m FOR VALUES FROM ('2024-01-01') TO ('2024-02-01');
CREATE TABLE gh_ps_m_2 PARTITION OF gh_ps_m FOR VALUES FROM ('2024-02-01') TO ('2024-03-01');
CREATE TABLE gh_ps_m_3 PARTITION OF gh_ps_m FOR VALUES FROM ('2024-03-01') TO ('2024-04-01');
CREATE TABLE gh_ps_m_4 PARTITION OF gh_ps_m FOR VALUES FROM ('2024-04-01') TO ('2024-05-01');
INSERT INTO gh_ps_m SELECT '2024-01-01'::timestamptz + i * interval '3 seconds', 'device-' || (i % 50),
       ((i::bigint * 7919) % 10007) / 100.07
FROM generate_series(0, $rows - 1) i;
CREATE TABLE gh_ps_flat AS SELECT * FROM gh_ps_m;
VACUUM ANALYZE gh_ps_m;
VACUUM ANALYZE gh_ps_flat;
SQL
fi

declare -A query=(
    [hourly]="SELECT date_trunc('hour', time), avg(cpu), max(cpu), gpu_histogram(cpu, 0, 100, 20) FROM %s GROUP BY 1"
    [device]="SELECT device_id, avg(cpu), gpu_histogram(cpu, 0, 100, 20) FROM %s GROUP BY 1"
    [total]="SELECT avg(cpu), sum(cpu), gpu_histogram(cpu, 0, 100, 20) FROM %s"
    [month]="SELECT avg(cpu), sum(cpu), gpu_histogram(cpu, 0, 100, 20) FROM %s WHERE time >= '2024-02-01' AND time < '2024-03-01'"
)
for name in hourly device total month; do
    # shellcheck disable=SC2059
    flat=$(printf "${query[$name]}" gh_ps_flat)
    # shellcheck disable=SC2059
    q=$(printf "${query[$name]}" gh_ps_m)
    reference=$(psql_ -c "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.device = cpu;" \
        -c "SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM ($flat) t")
    for mode in serial workers2 pages; do
        case $mode in
            serial) settings="SET max_parallel_workers_per_gather = 0;" ;;
            workers2) settings="SET max_parallel_workers_per_gather = 2;" ;;
            pages) settings="SET max_parallel_workers_per_gather = 0; SET gpu_histogram.debug_pages_on_cpu = on;" ;;
        esac
        settings="$settings SET gpu_histogram.device = cpu;"
        psql_ -c "$settings" -c "EXPLAIN (ANALYZE, TIMING OFF) $q" >/dev/null
        times=()
        for _ in 1 2 3 4 5; do
            times+=("$(psql_ -c "$settings" -c "EXPLAIN (ANALYZE, TIMING OFF) $q" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')")
        done
        median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
        digest=$(psql_ -c "$settings" -c "SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM ($q) t")
        echo "$label $name $mode median_ms=$median same_as_one_table=$([ "$digest" = "$reference" ] && echo yes || echo NO) digest=${digest:0:8} times=${times[*]}"
    done
done
