#!/usr/bin/env bash
# grouped_page_checks.sh: grouped and filtered scans whose pages the GPU
# parses, groups and counts itself (scan/grouped/offload/), against whatever
# PostgreSQL the environment points at, with a usable GPU service.
# run_gpu_checks.sh calls it; it can also run alone.
#
# Each query runs three ways in one session: the ordinary plan
# (gpu_histogram.scan = off, the reference), the scan with device = gpu and
# with device = auto.  The answers must be equal row for row, and EXPLAIN
# ANALYZE must show pages parsed on the GPU.  The shapes are those of
# dashboards: the canonical metrics table with its text column before the
# values, IN and NOT IN lists (a Grafana multi-value variable, of text
# and uuid too), a column
# key, a boolean key, date_trunc in a zone across both DST changes,
# date_bin, ::date, Grafana's numeric time group and to_timestamp() around
# it, a second width_bucket, time ranges in the WHERE clause with and
# without keys, NULL keys and values, parallel workers; and the cases the GPU must hand back to the host: rows outside
# the statistics' range (inserted after ANALYZE) and pages that are not
# all-visible.
#
# Without a usable GPU (CI) the same queries run with device = auto and
# gpu_histogram.debug_pages_on_cpu, which batches the pinned pages as for
# the GPU and parses every batch on the CPU: the grouped strategy's
# batching, its host parse of returned pages, and the ungrouped scans with a
# WHERE clause it now takes, against the ordinary plan.
set -uo pipefail
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../lib/gpu_status.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../lib/three_answers.sh"
if [ "$(gh_gpu_status)" = usable ]; then
    device=gpu batched="" on_gpu=1
else
    device=auto batched="SET gpu_histogram.debug_pages_on_cpu = on;" on_gpu=0
    echo "grouped page checks: no usable GPU: batches of pinned pages are parsed on the CPU (gpu_histogram.debug_pages_on_cpu)"
fi

psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_gp;
SET TimeZone = 'America/New_York';
CREATE TABLE gh_gp AS
SELECT CASE WHEN i % 37 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END::float8 AS x,
       CASE WHEN i % 101 = 0 THEN NULL ELSE i % 100 END AS g,
       CASE WHEN i % 211 = 0 THEN NULL
            ELSE '2024-03-08 00:00-05'::timestamptz + i * interval '9 seconds' END AS ts,
       CASE WHEN i % 53 = 0 THEN NULL ELSE i % 3 = 0 END AS b
FROM generate_series(1, 2000000) i;
VACUUM ANALYZE gh_gp;
SQL

# check NAME SETTINGS QUERY [MIN_LEFT]: the three answers, pages on the GPU, pages left to the host
check() {
    local name=$1 settings=$2 query=$3 min_left=${4:-0}
    local out rows diff_gpu diff_auto pages left skipped where ok=no
    out=$(gh_three_answers "SET TimeZone = 'America/New_York';
$settings" "$batched
SET gpu_histogram.device = $device;" "$query")
    rows=$(gh_field "$out" rows)
    diff_gpu=$(gh_field "$out" diff_gpu)
    diff_auto=$(gh_field "$out" diff_auto)
    pages=$(gh_explain_sum "$out" "Pages Parsed on GPU")
    left=$(gh_explain_sum "$out" "Pages Left by the GPU")
    # a range no page can hold is answered by the pages' ranges (page_ranges.h) without reading any
    skipped=$(gh_explain_sum "$out" "Pages Skipped by Their Ranges")
    where="$pages pages parsed on the GPU, $left left to the host"
    if [ "$on_gpu" = 0 ]; then # on the CPU: nothing to count on the GPU
        pages=1 left=$min_left where="pages batched and parsed on the CPU"
    elif [ "$pages" = 0 ] && [ "${skipped:-0}" -gt 0 ] && [ "$min_left" = 0 ]; then
        pages=$skipped where="every page skipped by its range ($skipped)"
    fi
    [ -n "$rows" ] && [ "$rows" -gt 0 ] && [ "$diff_gpu" = 0 ] && [ "$diff_auto" = 0 ] && [ "$pages" -gt 0 ] &&
        [ "$left" -ge "$min_left" ] && ok=yes
    gh_verdict "$name" $ok "$rows rows equal the ordinary plan; $where" \
        "rows ${rows:-?}, differences gpu ${diff_gpu:-?} auto ${diff_auto:-?}, pages on GPU $pages, left $left" "$out"
}

serial="SET max_parallel_workers_per_gather = 0;"
# a first query in the same session, so that the answer compared is the second's (keys met by value)
warm() { echo "$serial SET client_min_messages = warning; CREATE TEMP TABLE warm AS $1; DROP TABLE warm;"; }
parallel="SET max_parallel_workers_per_gather = 4; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"

check "GROUP BY g (NULL keys), count(*), count(x)" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n, count(x) AS nx FROM gh_gp GROUP BY g"
check "hourly heatmap in New York over both DST changes, count(*)" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
check "date_bin 1 hour from an origin at :20" "$serial" \
    "SELECT date_bin('1 hour', ts, '2024-01-01 00:20+00') AS bin, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp GROUP BY 1"
check "::date in New York" "$serial" \
    "SELECT ts::date AS d, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp GROUP BY 1"
check "date_trunc('week') in New York" "$serial" \
    "SELECT date_trunc('week', ts) AS w, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
check "a boolean key (NULLs too), count(*)" "$serial" \
    "SELECT b, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp GROUP BY b"
check "a boolean key and g, two weeks" "$serial" \
    "SELECT b, g, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gh_gp WHERE ts >= '2024-03-20' AND ts < '2024-04-03' GROUP BY 1, 2"
check "g by a second width_bucket" "$serial" \
    "SELECT g, width_bucket(x, 0, 1, 8) AS y, gpu_histogram(x, 0, 1, 32) AS h FROM gh_gp GROUP BY 1, 2"
check "two weeks, ungrouped, count(*)" "$serial" \
    "SELECT gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp WHERE ts >= '2024-03-20' AND ts < '2024-04-03'"
check "two weeks, ungrouped, no count: the grouped strategy with no key" "$serial" \
    "SELECT gpu_histogram(x, 0, 1, 64) AS h FROM gh_gp WHERE ts >= '2024-03-20' AND ts < '2024-04-03'"
check "nothing in the range: one row, as the aggregate gives" "$serial" \
    "SELECT gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp WHERE ts >= '2030-03-20' AND ts < '2030-04-03'"
check "two weeks, heatmap" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 64) AS h FROM gh_gp WHERE ts >= '2024-03-20' AND ts < '2024-04-03' GROUP BY 1"
# a time key's clause bounds the pages read by their ranges (page_range_scan.h), the key evaluated on the GPU's pages
check "Metabase's relative dates, CAST(ts AS date) BETWEEN, hourly" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE CAST(ts AS date) BETWEEN '2024-04-10' AND '2024-04-12' GROUP BY 1"
check "date_trunc('day', ts) >= a day, with a count" "$serial" \
    "SELECT gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE date_trunc('day', ts) >= '2024-09-20'"
check "float and integer quals, NaN-aware, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 10) AS h, count(*) AS n FROM gh_gp WHERE x > 0.25 AND x <> 0.5 AND g <= 70 GROUP BY g"
# monotone keys (scan/keys/monotone_key.cpp): Grafana's numeric group, kept as bytes, and to_timestamp() around it
check "a Grafana multi-value variable, g IN (1, 2, 3), a week of 15-minute groups" "$serial" \
    "SELECT floor(extract(epoch FROM ts) / 900) * 900 AS t, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE g IN (1, 2, 3) AND ts >= '2024-03-09' AND ts < '2024-03-16' GROUP BY 1"
check "NOT IN lists of floats (NaN too) and integers, = ANY of an empty array, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE x NOT IN ('NaN', 0.5, 0.25) AND g NOT IN (0, 99) AND g <> ALL('{}'::int[]) GROUP BY g"
check "an IN list of timestamps and one of bigints against an int column, ungrouped" "$serial" \
    "SELECT gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE g = ANY('{4, 8, 15, 16, 23, 42}'::int8[]) AND ts NOT IN ('2024-03-09 00:00:09-05', '2024-03-10 12:00:00-04')"
check "an OR of native clauses (NULLs, NaN-aware floats, a bool), GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE (g < 5 OR g > 95 OR g IS NULL) AND (x < 0.2 OR x >= 'NaN' OR b) GROUP BY g"
check "NOT of an OR (the planner's NOT g IN ... AND ...), and an OR of time ranges, hourly" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE NOT (g IN (1, 2) OR g > 90) AND (ts < '2024-03-09' OR ts >= '2024-03-12') GROUP BY 1"
# an AND inside an OR (conjunctive form), a time column against dates, an int column against a numeric
# literal, IS DISTINCT FROM (<> or IS NULL, two atoms of one clause), a local hour the host finishes
check "an AND inside an OR, two time ranges of dates, hourly" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE (ts >= '2024-03-09'::date AND ts < '2024-03-10'::date) OR (ts >= '2024-03-12'::date AND ts < '2024-03-13'::date AND g < 50) GROUP BY 1"
check "x BETWEEN .. OR x > .., g > 2.5 (a numeric literal), GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE (x BETWEEN 0.2 AND 0.4 OR x > 0.9) AND g > 2.5 GROUP BY g"
check "g IS DISTINCT FROM 3 (NULL keys pass), b IS NOT DISTINCT FROM true, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE g IS DISTINCT FROM 3 AND b IS NOT DISTINCT FROM true GROUP BY g"
# clauses over a key (scan/keys/key_quals.cpp) as the GPU's filter keys: each slot of the local hour,
# weekday or date answered by PostgreSQL's operator once; NULL times fail
check "business hours of a week: the week by a qual, the hours by a filter key" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE ts >= '2024-03-09' AND ts < '2024-03-16' AND extract(hour FROM ts) BETWEEN 9 AND 17 GROUP BY 1"
check "weekdays by g, over both DST changes: the only clause a filter key" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE extract(isodow FROM ts) < 6 GROUP BY g"
check "a week of local dates (Metabase's CAST(ts AS date) BETWEEN), hourly" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE CAST(ts AS date) BETWEEN '2024-03-09' AND '2024-03-15' GROUP BY 1"
# a key of a key (scan/keys/derived_key.cpp): the local hour renumbered by the host's results, met by a first query
q="SELECT CAST(extract(hour FROM ts) AS integer) AS h24, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
check "Metabase's hour of the day (NULL times), its hours met by a first query" "$(warm "$q")" "$q"
q="SELECT CAST(extract(dow FROM ts) AS integer) + 1 AS d, g, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE extract(hour FROM ts) >= 9 GROUP BY 1, 2"
check "Metabase's day of the week and g, hours from 9 by a filter key" "$(warm "$q")" "$q"
# the time form (numeric width_bucket over the stored timestamp), grouped and filtered on the GPU's pages
check "the time form by g, hourly over a day (NULL times, rows outside both ends)" "$serial" \
    "SELECT g, gpu_histogram(ts, '2024-03-09 00:00-05'::timestamptz, '2024-03-10 00:00-05', 24) AS h, count(*) AS n FROM gh_gp GROUP BY g"
check "the time form with a WHERE on the time, descending bounds" "$serial" \
    "SELECT gpu_histogram(ts, '2024-03-16'::timestamptz, '2024-03-09', 168) AS h, count(*) AS n FROM gh_gp WHERE ts < '2024-03-12' AND g < 50"
check "the time form by the day, 4 workers" "$parallel" \
    "SELECT date_trunc('day', ts) AS d, gpu_histogram(ts, '2024-03-08 00:00-05'::timestamptz, '2024-03-20 00:00-04', 288) AS h FROM gh_gp GROUP BY 1"
check "the thresholds form by g (NaN-free values, NULLs), repeated thresholds" "$serial" \
    "SELECT g, gpu_histogram(x, ARRAY[0.01, 0.1, 0.1, 0.5, 0.9, 0.99]::float8[]) AS h, count(*) AS n FROM gh_gp GROUP BY g"
check "the thresholds form by the hour, filtered" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, ARRAY[0.25, 0.5, 0.75]::float8[]) AS h FROM gh_gp WHERE g < 50 AND b GROUP BY 1"
check "IS NOT NULL of the key and the time, daily" "$serial" \
    "SELECT date_trunc('day', ts) AS day, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE ts IS NOT NULL AND g IS NOT NULL GROUP BY 1"
check "IS NULL of the value, GROUP BY g, count(*)" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE x IS NULL GROUP BY g"
check "a bool column as the clause (NULLs fail), GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp WHERE b AND g < 50 GROUP BY g"
check "NOT of a bool column and IS FALSE, the hourly heatmap" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE NOT b AND b IS FALSE GROUP BY 1"
check "Grafana's one-minute group over two days (a numeric key), count(*)" "$serial" \
    "SELECT floor(extract(epoch FROM ts) / 60) * 60 AS time, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp WHERE ts BETWEEN '2024-03-09T00:00:00Z' AND '2024-03-11T00:00:00Z' GROUP BY 1"
check "quarter hours written by hand over New York's spring change, count(*)" "$serial" \
    "SELECT date_trunc('hour', ts) + interval '15 minutes' * floor(extract(minute FROM ts) / 15) AS q, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp WHERE ts >= '2024-03-09' AND ts < '2024-03-12' GROUP BY 1"
check "five minutes as a minute less its remainder, over New York's spring change" "$serial" \
    "SELECT date_trunc('minute', ts) - (extract(minute FROM ts)::int % 5) * interval '1 minute' AS f, gpu_histogram(x, 0, 1, 64) AS h FROM gh_gp WHERE ts >= '2024-03-09' AND ts < '2024-03-12' GROUP BY 1"
check "Grafana's hourly group, to_timestamp(), and a boolean" "$serial" \
    "SELECT to_timestamp(floor(extract(epoch FROM ts) / 3600) * 3600) AS time, b, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp GROUP BY 1, 2"
check "a float8 monotone key, floor(date_part('epoch', ts) / 3600) * 3600" "$serial" \
    "SELECT floor(date_part('epoch', ts) / 3600) * 3600 AS time, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
check "Grafana's five-minute group, 4 workers" "$parallel" \
    "SELECT floor(extract(epoch FROM ts) / 300) * 300 AS time, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gh_gp GROUP BY 1"
# a zone named in the query (scan/keys/time_keys.h): date_trunc's third argument, local time AT TIME ZONE
check "date_trunc('day', ts, 'Europe/Berlin') across both DST changes" "$serial" \
    "SELECT date_trunc('day', ts, 'Europe/Berlin') AS d, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
check "date_trunc('minute', ts AT TIME ZONE 'Asia/Kathmandu') over two days, and the hour of day at UTC" "$serial" \
    "SELECT date_trunc('minute', ts AT TIME ZONE 'Asia/Kathmandu') AS m, extract(hour FROM ts AT TIME ZONE 'UTC') AS h24, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gp WHERE ts >= '2024-03-09' AND ts < '2024-03-11' GROUP BY 1, 2"
# the canonical metrics table, (time, device_id text, cpu float8): the value and the key after a text column
psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_gpm;
CREATE TABLE gh_gpm AS
SELECT ts AS time, CASE WHEN g = 5 THEN NULL WHEN g = 6 THEN repeat('long device name ', 12) ELSE 'device-' || g END AS device_id,
       x AS cpu, g, ts::date AS day, (g::bigint - 50) * 100000000000000000 AS big
FROM gh_gp;
VACUUM ANALYZE gh_gpm;
SQL
check "the metrics table: an OR of text equalities and a NULL test, hourly" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 32) AS h FROM gh_gpm WHERE device_id = 'device-7' OR device_id = 'device-42' OR device_id IS NULL GROUP BY 1"
check "the metrics table: the time form over a date column after a text column, by g" "$serial" \
    "SELECT g, gpu_histogram(day, '2024-03-08'::date, '2024-03-20'::date, 12) AS h, count(*) AS n FROM gh_gpm WHERE cpu < 0.9 GROUP BY g"
check "the metrics table: hourly heatmap after a text column, count(*)" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 32) AS h, count(*) AS n FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY g and a week after a text column" "$serial" \
    "SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16' AND cpu > 0.25 GROUP BY g"
check "the metrics table: Grafana's five-minute group, 4 workers" "$parallel" \
    "SELECT floor(extract(epoch FROM time) / 300) * 300 AS t, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-11' GROUP BY 1"
# text equality in the WHERE clause (scan/quals/native_quals.h): Grafana's `device_id IN ($device)`,
# compared as bytes on the GPU: short headers, the long name's 4-byte one, NULLs
check "the metrics table: device_id IN (two devices and the long name), the hourly heatmap of a week" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm WHERE device_id IN ('device-1', 'device-2', repeat('long device name ', 12)) AND time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1"
check "the metrics table: device_id NOT IN and <>, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm WHERE device_id NOT IN ('device-7', 'device-70') AND device_id <> 'device-8' GROUP BY g"
# a uuid device (an IoT table's): =, <>, IN and NOT IN compared as its 16 bytes on the GPU, read at a
# fixed offset (gh_gpu) and after a text column (gh_gpu_text)
psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_gpu, gh_gpu_text;
CREATE TABLE gh_gpu AS
SELECT CASE WHEN g IS NULL THEN NULL ELSE md5('device-' || g)::uuid END AS device, ts AS time, x AS cpu, g FROM gh_gp;
CREATE TABLE gh_gpu_text AS
SELECT time, device_id, CASE WHEN g IS NULL THEN NULL ELSE md5('device-' || g)::uuid END AS device_uuid, cpu FROM gh_gpm;
VACUUM ANALYZE gh_gpu, gh_gpu_text;
SQL
check "a uuid device = one, the hourly heatmap of a week" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpu WHERE device = md5('device-7')::uuid AND time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1"
check "a uuid device IN (three and NULL), NOT IN two, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpu WHERE device IN (md5('device-1')::uuid, md5('device-2')::uuid, md5('device-99')::uuid, NULL) OR device NOT IN (md5('device-3')::uuid, md5('device-4')::uuid) GROUP BY g"
check "a uuid after a text column, <> one and IS NOT NULL, 4 workers" "$parallel" \
    "SELECT date_trunc('day', time) AS day, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpu_text WHERE device_uuid <> md5('device-8')::uuid AND device_uuid IS NOT NULL GROUP BY 1"
# a uuid device as the key (scan/keys/column_key.cpp): a dictionary of the values the statistics name and
# a first query met, matched as 16 bytes in place (at a fixed offset, and after a text column)
q="SELECT device, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpu GROUP BY 1"
check "GROUP BY a uuid device (NULLs)" "$(warm "$q")" "$q"
q="SELECT device_uuid, date_trunc('day', time) AS day, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpu_text WHERE time >= '2024-03-09' AND time < '2024-03-12' GROUP BY 1, 2"
check "a uuid after a text column and the day as keys, three days" "$(warm "$q")" "$q"
check "GROUP BY a uuid device, 4 workers" "$(warm "$q") $parallel" \
    "SELECT device, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpu GROUP BY 1"
psql_q -c "DROP TABLE gh_gpu, gh_gpu_text"
# an enum status and domain columns (scan/heap/heap_columns.h's heap_stored_type): the labels' OIDs
# compared and grouped as int4 words on the GPU, a label added later with a larger OID; a domain
# over float8 binned, summed and compared, a domain over text matched as bytes
psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS gh_gpe;
DROP TYPE IF EXISTS gh_level;
DROP DOMAIN IF EXISTS gh_pct, gh_dev;
RESET client_min_messages;
CREATE TYPE gh_level AS ENUM ('debug', 'info', 'warn', 'error');
ALTER TYPE gh_level ADD VALUE 'notice' BEFORE 'warn';
CREATE DOMAIN gh_pct AS float8;
CREATE DOMAIN gh_dev AS text;
CREATE TABLE gh_gpe AS
SELECT time, device_id::gh_dev AS device_id,
       CASE WHEN g IS NULL THEN NULL ELSE (enum_range(NULL::gh_level))[1 + g % 5] END AS level,
       cpu::gh_pct AS cpu, g FROM gh_gpm;
VACUUM ANALYZE gh_gpe;
SQL
q="SELECT level, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n, avg(g) AS mean FROM gh_gpe GROUP BY 1"
check "an enum status as the key (NULLs), a domain value, the mean of g beside" "$(warm "$q")" "$q"
q="SELECT date_trunc('hour', time) AS hour, level, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpe WHERE level IN ('warn', 'notice', 'error') AND time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1, 2"
check "an enum IN list and the enum and the hour as keys, a week" "$(warm "$q")" "$q"
check "an enum <> one and a domain's text = one, a domain's value > 0.5, GROUP BY g, 4 workers" "$parallel" \
    "SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h, round(sum(cpu)::numeric, 6) AS s, max(cpu) AS m FROM gh_gpe WHERE level <> 'debug' AND device_id <> 'device-3' AND cpu > 0.5 GROUP BY g"
psql_q -c "DROP TABLE gh_gpe" -c "DROP TYPE gh_level" -c "DROP DOMAIN gh_pct, gh_dev"
# a clause only the executor evaluates (a LIKE over two columns) beside native ones: the GPU applies the
# time range and hands the host the pages with rows in it
check "the metrics table: a LIKE of two columns beside a day's range, the hourly heatmap: the range's pages the host's" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-10' AND device_id || g LIKE 'device-1%' GROUP BY 1" 1
# keys by value (scan/keys/value_key.cpp): a first query in the same session meets each value of g,
# and the answer compared is the second's, whose GPU table holds them all
q="SELECT g % 10 AS k, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY g % 10 after a text column, its values met by a first query" "$(warm "$q")" "$q"
q="SELECT g::text AS k, date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1, 2"
check "the metrics table: g::text and the hour, a week" "$(warm "$q")" "$q"
q="SELECT CASE WHEN g < 30 THEN 'low' WHEN g < 60 THEN 'mid' END AS k, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE g IN (1, 29, 30, 59, 60, 99) GROUP BY 1"
check "the metrics table: a CASE over g (NULL keys), an IN list" "$(warm "$q")" "$q"
q="SELECT coalesce(g, -1) % 7 AS k, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm GROUP BY 1"
check "the metrics table: coalesce(g, -1) % 7, a NULL column's key not NULL: those rows the host's" "$(warm "$q")" "$q" 1
# a text column as the key (scan/keys/column_key.cpp): a dictionary of its values matched as bytes on the
# GPU, the values a first query met remembered for the next (text_memo.h); NULLs, the long name's 4-byte header
q="SELECT device_id, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY device_id, its values met by a first query" "$(warm "$q")" "$q"
q="SELECT device_id, date_trunc('day', time) AS day, round(avg(cpu)::numeric, 9) AS mean, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-12' GROUP BY 1, 2"
check "the metrics table: device_id and the day, the mean line beside" "$(warm "$q")" "$q"
q="SELECT device_id, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY device_id, 4 workers" "$(warm "$q") $parallel" "$q"
# a key of a text column (scan/keys/value_key.cpp): the dictionary of the values a first query met, each
# value with its key's group: values sharing a group, one whose key is NULL, the long name, NULL columns
q="SELECT lower(device_id) AS k, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY lower(device_id), its values met by a first query" "$(warm "$q")" "$q"
q="SELECT split_part(device_id, '-', 1) AS k, date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1, 2"
check "the metrics table: split_part(device_id) and the hour, a week" "$(warm "$q")" "$q"
q="SELECT nullif(lower(device_id), 'device-1') AS k, length(device_id) AS len, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm GROUP BY 1, 2"
check "the metrics table: nullif(lower(device_id)) (one value's key NULL) and length(device_id)" "$(warm "$q")" "$q"
# a boolean clause of a text column by value (key_quals.cpp's truth): a filter key of the values a first
# query met; NULL columns and the long name among them
q="SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 16) AS h, count(*) AS n FROM gh_gpm WHERE device_id LIKE 'device-1%' GROUP BY 1"
check "the metrics table: device_id LIKE 'device-1%', hourly, its values met by a first query" "$(warm "$q")" "$q"
q="SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE g < 50 AND (lower(device_id) = 'device-42' OR cpu IS NULL) GROUP BY g"
check "the metrics table: an OR with a clause over a key: the host's, on pages the GPU leaves by g < 50" "$(warm "$q")" "$q" 1
q="SELECT lower(device_id) AS k, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm GROUP BY 1"
check "the metrics table: GROUP BY lower(device_id), 4 workers" "$(warm "$q") $parallel" "$q"
# sum, avg, min and max beside the histogram on the GPU's pages (gpu/kernels/kernel_page_aggs.cuh): float
# means to 9 places (the scan's are exactly rounded, the ordinary plan's sequential: their 15-digit numeric
# casts straddle a 12th place in 4 of these 5,002 hours), the rest to the bit
check "the mean line: avg, max and min of cpu beside the hourly heatmap of the metrics table" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, round(avg(cpu)::numeric, 9) AS mean, max(cpu) AS top, min(cpu) AS low, gpu_histogram(cpu, 0, 1, 32) AS h, count(*) AS n FROM gh_gpm GROUP BY 1"
check "int sums, date and timestamp extremes, a bigint mean past 2^63, by g" "$serial" \
    "SELECT g, sum(g) AS s, min(day) AS d0, max(time) AS t1, avg(big) AS ab, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm GROUP BY g"
check "an int mean, a bigint sum, a timestamp's min and the float max, hourly over a week" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, avg(g) AS a, sum(big) AS sb, min(time) AS t0, max(cpu) AS top, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1"
check "the mean line of a week, device_id IN (...), 4 workers" "$parallel" \
    "SELECT date_trunc('hour', time) AS hour, round(avg(cpu)::numeric, 9) AS mean, max(cpu) AS top, gpu_histogram(cpu, 0, 1, 16) AS h FROM gh_gpm WHERE device_id IN ('device-1', 'device-2', 'device-3') AND time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1"
# several histograms, of every form, on the GPU's pages: the first is the spec's own, the others page
# aggregates beside it (grouped_page_spec.h's PageHist), their columns after the text column
check "the metrics table: three histograms (width_bucket, time, thresholds) and the mean line, hourly" "$serial" \
    "SELECT date_trunc('hour', time) AS hour, gpu_histogram(cpu, 0, 1, 32) AS h, gpu_histogram(time, '2024-03-08'::timestamptz, '2024-03-20', 48) AS ht, gpu_histogram(cpu, ARRAY[0.1, 0.5, 0.5, 0.9]::float8[]) AS hq, round(avg(cpu)::numeric, 9) AS mean, max(cpu) AS top FROM gh_gpm GROUP BY 1"
check "the metrics table: two histograms of two columns by device_id, a week" "$(warm "SELECT device_id, gpu_histogram(cpu, 0, 1, 16) AS h, gpu_histogram(g, 0, 100, 10) AS hg FROM gh_gpm GROUP BY 1")" \
    "SELECT device_id, gpu_histogram(cpu, 0, 1, 16) AS h, gpu_histogram(g, 100, 0, 10) AS hg, gpu_histogram(day, '2024-03-08'::date, '2024-03-20'::date, 12) AS hd FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16' GROUP BY 1"
check "the metrics table: two histograms under a time range, ungrouped" "$serial" \
    "SELECT gpu_histogram(cpu, 0, 1, 64) AS h, gpu_histogram(g, 0, 100, 20) AS hg FROM gh_gpm WHERE time >= '2024-03-09' AND time < '2024-03-16'"
check "the metrics table: four histograms by g, 4 workers" "$parallel" \
    "SELECT g, gpu_histogram(cpu, 0, 1, 16) AS h1, gpu_histogram(cpu, 1, 0, 7) AS h2, gpu_histogram(time, '2024-03-08'::timestamptz, '2024-03-20', 12) AS h3, gpu_histogram(big, ARRAY[-1e18, 0, 1e18]::float8[]) AS h4 FROM gh_gpm GROUP BY g"
# exactly rounded, whatever did the adding: values whose numeric casts are exact, so that the numeric sum
# rounded once is the answer; in every block of 2,000 rows each group's 1e20, then its -1e20, swallow the
# small values between them in a serial sequential sum (50 groups of 50 differ)
psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_exact;
CREATE TABLE gh_exact AS
SELECT i % 50 AS g, 'tag-' || i % 3 AS tag,
       CASE WHEN i % 2000 < 50 THEN 1e20 WHEN i % 2000 >= 1950 THEN -1e20 WHEN i % 1009 = 0 THEN NULL
            ELSE ((i::bigint * 7919) % 2000003 - 1000000) / 64.0 END::float8 AS x,
       CASE WHEN i % 2000 < 50 THEN 1e10 WHEN i % 2000 >= 1950 THEN -1e10
            ELSE ((i * 37) % 8000 - 4000) / 8.0 END::float4 AS f4
FROM generate_series(1, 2000000) i;
VACUUM ANALYZE gh_exact;
SQL
exact_q="SELECT g, sx, ax, sf, af, h IS NOT NULL FROM (SELECT g, sum(x) AS sx, avg(x) AS ax, sum(f4) AS sf, avg(f4) AS af, gpu_histogram(x, -1e6, 1e6, 8) AS h FROM gh_exact GROUP BY g) s ORDER BY g"
reference=$(psql_q -c "SELECT g, sum(x::numeric)::float8, sum(x::numeric)::float8 / count(x), sum(f4::numeric)::float4,
    sum(f4::numeric)::float8 / count(f4), true FROM gh_exact GROUP BY g ORDER BY g")
sequential=$(psql_q -c "SET max_parallel_workers_per_gather = 0; SET gpu_histogram.scan = off;" \
    -c "SELECT count(*) FROM (SELECT g FROM gh_exact GROUP BY g HAVING sum(x) <> sum(x::numeric)::float8) d")
for how in "serial:$serial" "4 workers:$parallel" "pages parsed on the CPU:$serial SET gpu_histogram.debug_pages_on_cpu = on;"; do
    name=${how%%:*} settings=${how#*:}
    answer=$(psql_q -c "$settings SET gpu_histogram.device = $device; $batched" -c "$exact_q" 2>&1)
    plan=$(psql -X -q -At -c "$settings SET gpu_histogram.device = $device; $batched" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $exact_q" 2>&1)
    pages=$(grep -o "Pages Parsed on GPU: [0-9]*" <<<"$plan" | awk '{s += $5} END {print s + 0}')
    [ "$on_gpu" = 0 ] || [ "$name" = "pages parsed on the CPU" ] && pages=1
    if [ "$answer" = "$reference" ] && [ "$pages" -gt 0 ] && [ "$sequential" -gt 0 ]; then
        echo "PASS: exact float sums and means, $name: 50 groups equal the numeric sums rounded once ($sequential groups' serial sequential float8 sums differ)"
    else
        echo "FAIL: exact float sums and means, $name: pages on the GPU $pages, $sequential groups' sequential sums differ"
        diff <(echo "$reference") <(echo "$answer") | head -10 | sed 's/^/  /'
        failures=$((failures + 1))
    fi
done
psql_q -c "DROP TABLE gh_exact"
# keys of a date column (scan/keys/monotone_steps.h): through its midnight in the session's zone, and its
# epoch; the column itself.  Both infinities are among its values (and its statistics): outside every table.
psql_q <<'SQL' || exit 1
DROP TABLE IF EXISTS gh_gpd;
CREATE TABLE gh_gpd AS
SELECT x, g, CASE WHEN g = 7 THEN 'infinity' WHEN g = 8 THEN '-infinity' ELSE (ts AT TIME ZONE 'UTC')::date END AS d
FROM gh_gp;
VACUUM ANALYZE gh_gpd;
SQL
check "a date column, infinities too" "$serial" \
    "SELECT d, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gpd GROUP BY 1"
check "a date column's weeks in New York, date_trunc('week', d), count(*)" "$serial" \
    "SELECT date_trunc('week', d) AS w, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gpd GROUP BY 1"
check "a date column's Grafana day, floor(extract(epoch FROM d) / 86400) * 86400, and g" "$serial" \
    "SELECT floor(extract(epoch FROM d) / 86400) * 86400 AS t, g, gpu_histogram(x, 0, 1, 16) AS h FROM gh_gpd GROUP BY 1, 2"
psql_q -c "DROP TABLE gh_gpd, gh_gpm"
check "30,000 ten-minute bins, work_mem 64kB" "$serial SET work_mem = '64kB';" \
    "SELECT date_bin('10 minutes', ts, '2024-01-01 00:00+00') AS bin, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
# Once a shape's pages were all in the GPU's page cache, a serial plan of it emits finished rows straight
# from the GPU's groups, with no Finalize Aggregate (plan.cpp, gpu_groups_fit), and, whatever work_mem
# says, without filling a table of groups: none flushes (grouping_gpu_cells.cpp, gpu_cells_hold_every_group).
if [ "$on_gpu" = 1 ] && [ "$(psql_q -c "SELECT current_setting('gpu_histogram.gpu_page_cache') <> '0'")" = t ]; then
    bins="SELECT date_bin('10 minutes', ts, '2024-01-01 00:00+00') AS bin, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1"
    plan=$(psql -X -q -At -c "SET max_parallel_workers_per_gather = 0; SET work_mem = '64kB'; SET gpu_histogram.device = gpu;
        SET TimeZone = 'America/New_York'; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $bins" 2>&1)
    if ! grep -q Finalize <<<"$plan" && ! grep -q "Group Flushes" <<<"$plan" && grep -q "Groups: 30002" <<<"$plan" &&
        grep -q "Pages Never Pinned" <<<"$plan"; then
        echo "PASS: 30,000 bins, their pages cached: finished rows from the GPU's groups, no Finalize Aggregate"
    else
        echo "FAIL: 30,000 bins, their pages cached: expected no Finalize Aggregate, 30002 groups and no flush"
        echo "$plan" | head -30 | sed 's/^/  /'
        failures=$((failures + 1))
    fi
    check "the same bins, planned as finished rows from the GPU's groups" "$serial SET work_mem = '64kB';" "$bins"
    # a LIMIT stops the rows early: EXPLAIN still counts every tuple and page the scan read
    tuples=$(psql_q -c "SELECT count(*) FROM gh_gp")
    plan=$(psql -X -q -At -c "SET max_parallel_workers_per_gather = 0; SET work_mem = '64kB'; SET gpu_histogram.device = gpu;
        SET TimeZone = 'America/New_York'; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $bins LIMIT 5" 2>&1)
    if grep -q "GpuHistogramScan" <<<"$plan" && grep -q "Visible Tuples: $tuples\$" <<<"$plan" &&
        grep -q "Groups: 5\$" <<<"$plan" && grep -q "Pages from GPU Page Cache: [1-9]" <<<"$plan"; then
        echo "PASS: the same bins under LIMIT 5: 5 groups emitted, the scan's $tuples tuples and cached pages counted"
    else
        echo "FAIL: the same bins under LIMIT 5: expected 5 groups, $tuples visible tuples and cached pages"
        echo "$plan" | head -30 | sed 's/^/  /'
        failures=$((failures + 1))
    fi
fi
check "4 workers, GROUP BY g and the day (21,312 groups, work_mem 64MB)" "$parallel SET work_mem = '64MB';" \
    "SELECT g, date_trunc('day', ts) AS day, gpu_histogram(x, 0, 1, 32) AS h, count(*) AS n FROM gh_gp GROUP BY 1, 2"

# rows the statistics never saw, and pages that are not all-visible: the GPU hands them to the host
psql_q <<'SQL' || exit 1
INSERT INTO gh_gp SELECT 0.5, 1000 + i % 7, '2030-01-01 00:00+00'::timestamptz + i * interval '1 minute'
FROM generate_series(1, 20000) i;
VACUUM gh_gp;
UPDATE gh_gp SET x = 0.75 WHERE g = 3 AND ts < '2024-03-09';
SQL
check "rows outside the statistics' range, and pages with updated rows, GROUP BY g" "$serial" \
    "SELECT g, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp GROUP BY g" 1
check "the same for the hourly heatmap" "$serial" \
    "SELECT date_trunc('hour', ts) AS hour, gpu_histogram(x, 0, 1, 64) AS h, count(*) AS n FROM gh_gp GROUP BY 1" 1
check "the same for Grafana's ten-minute group (numeric keys on both sides)" "$serial" \
    "SELECT floor(extract(epoch FROM ts) / 600) * 600 AS time, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1" 1
# groups on both sides that outgrow work_mem: the GPU's join the host's a memory bound at a time
check "the same with 30,000 ten-minute bins at work_mem 64kB: the GPU's groups in rounds" "$serial SET work_mem = '64kB';" \
    "SELECT date_bin('10 minutes', ts, '2024-01-01 00:00+00') AS bin, gpu_histogram(x, 0, 1, 16) AS h, count(*) AS n FROM gh_gp GROUP BY 1" 1

psql_q -c "DROP TABLE gh_gp"

# TimescaleDB's time_bucket over a hypertable's chunks, where TimescaleDB is preloaded (the GPU host's
# PostgreSQL 17 bundle, test/gpu/stage_source_build.sh 17); its every form is test/timescaledb's topic
if [ "$(psql_q -c "SELECT current_setting('shared_preload_libraries') ~ 'timescaledb'
        AND EXISTS (SELECT FROM pg_available_extensions WHERE name = 'timescaledb')")" = t ]; then
    psql_q <<'SQL' || exit 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS timescaledb;
DROP TABLE IF EXISTS gh_tsdb;
CREATE TABLE gh_tsdb (ts timestamptz NOT NULL, x float8, g int);
SELECT create_hypertable('gh_tsdb', 'ts', chunk_time_interval => interval '7 days') IS NOT NULL;
INSERT INTO gh_tsdb
SELECT '2024-03-01 00:00+00'::timestamptz + i * interval '7 seconds',
       CASE WHEN i % 29 = 0 THEN NULL ELSE ((i::bigint * 7919) % 100003) / 100003.0 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i % 10 END
FROM generate_series(1, 1500000) i;
VACUUM ANALYZE gh_tsdb;
SQL
    check "time_bucket('1 hour') over a hypertable's chunks, count(*)" "$serial" \
        "SELECT time_bucket('1 hour', ts) AS hour, gpu_histogram(x, 0, 1, 32) AS h, count(*) AS n FROM gh_tsdb GROUP BY 1"
    check "time_bucket('1 day') in New York's zone argument, across its DST change" "$serial" \
        "SELECT time_bucket('1 day', ts, 'America/New_York') AS day, gpu_histogram(x, 0, 1, 32) AS h FROM gh_tsdb GROUP BY 1"
    check "time_bucket('15 minutes') from an origin, and g" "$serial" \
        "SELECT time_bucket('15 minutes', ts, '2024-01-01 00:07+00'::timestamptz) AS b, g, gpu_histogram(x, 0, 1, 16) AS h FROM gh_tsdb GROUP BY 1, 2"
    check "time_bucket('1 month') in the session's zone" "$serial" \
        "SELECT time_bucket('1 month', ts) AS m, gpu_histogram(x, 0, 1, 16) AS h, count(x) AS nx FROM gh_tsdb GROUP BY 1"
    check "time_bucket('1 hour') with an offset, two weeks" "$serial" \
        "SELECT time_bucket('1 hour', ts, \"offset\" => '10 minutes'::interval) AS hour, gpu_histogram(x, 0, 1, 16) AS h FROM gh_tsdb WHERE ts >= '2024-03-20' AND ts < '2024-04-03' GROUP BY 1"
    check "4 workers over the chunks: time_bucket('1 hour')" "$parallel" \
        "SELECT time_bucket('1 hour', ts) AS hour, gpu_histogram(x, 0, 1, 32) AS h, count(*) AS n FROM gh_tsdb GROUP BY 1"
    psql_q -c "DROP TABLE gh_tsdb"
else
    echo "grouped page checks: TimescaleDB is not preloaded here: the time_bucket checks are for a server with it"
fi
[ $failures -eq 0 ] && echo "grouped page GPU checks: all passed" || echo "grouped page GPU checks: $failures FAILED"
exit $failures
