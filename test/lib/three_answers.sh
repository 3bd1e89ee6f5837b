#!/usr/bin/env bash
# three_answers.sh: the harness of the GPU check scripts (grouped_checks.sh,
# grouped_page_checks.sh, page_checks.sh), sourced.  A query's answer with
# the GPU, its EXPLAIN ANALYZE, the answer with device = auto, and the
# ordinary plan's (gpu_histogram.scan = off), compared as multisets in one
# session, so that every check asks PostgreSQL itself for the right answer.
#
#   out=$(gh_three_answers "SETTINGS" "GPU_SETTINGS" "QUERY" ["AUTO_SETTINGS"] ["EXPLAIN_SETTINGS"])
#       SETTINGS first, then GPU_SETTINGS (the device, a batch size) for the
#       first answer and EXPLAIN (EXPLAIN_SETTINGS for it alone, such as
#       client_min_messages), then AUTO_SETTINGS and device = auto
#   gh_field "$out" rows|diff_gpu|diff_auto    the ordinary plan's rows, and
#                                              each answer's rows that differ
#   gh_explain_sum "$out" "Values Binned on GPU"   a figure summed over the plan's nodes
#   gh_verdict NAME OK PASS_TEXT FAIL_TEXT OUT     prints PASS or FAIL (with the
#                                                  output's head), counts failures

failures=${failures:-0}

gh_three_answers() { # settings gpu_settings query [auto_settings] [explain_settings]
    psql -X -q -At -v ON_ERROR_STOP=1 2>&1 <<SQL
$1
$2
CREATE TEMP TABLE r_gpu AS $3;
${5:-}
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $3;
RESET client_min_messages;
${4:-}
SET gpu_histogram.device = auto;
CREATE TEMP TABLE r_auto AS $3;
SET gpu_histogram.scan = off;
CREATE TEMP TABLE r_plain AS $3;
SELECT 'rows ' || (SELECT count(*) FROM r_plain);
SELECT 'diff_gpu ' || ((SELECT count(*) FROM (TABLE r_gpu EXCEPT ALL TABLE r_plain) a) +
                       (SELECT count(*) FROM (TABLE r_plain EXCEPT ALL TABLE r_gpu) b));
SELECT 'diff_auto ' || ((SELECT count(*) FROM (TABLE r_auto EXCEPT ALL TABLE r_plain) a) +
                        (SELECT count(*) FROM (TABLE r_plain EXCEPT ALL TABLE r_auto) b));
SQL
}

gh_field() { # out name
    sed -n "s/^$2 //p" <<<"$1"
}

gh_explain_sum() { # out label
    sed -n "s/.*$2: //p" <<<"$1" | awk '{ s += $1 } END { print s + 0 }'
}

gh_verdict() { # name ok pass_text fail_text out
    if [ "$2" = yes ]; then
        echo "PASS: $1: $3"
    else
        echo "FAIL: $1 ($4)"
        head -60 <<<"$5" | sed 's/^/  /'
        failures=$((failures + 1))
    fi
}
