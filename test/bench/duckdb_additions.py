#!/usr/bin/env python3
r"""duckdb_additions.py: DuckDB's column in additions_bench.sh (issue 57).

The same rows as PostgreSQL's table (ts, host text, g, x), copied out as
CSV and read by DuckDB, and for each shape the answer a DuckDB user would
ask for: per group, the count of each bucket.  Before timing, every answer
is checked against ours, cell by cell: our histogram unnested (bucket =
array position - 1, empty cells left out) against DuckDB's counts, keys
compared as text, times as epoch seconds.  Our answers equal the ordinary
plan's (the pg_regress matrix shows it), so DuckDB's equal width_bucket's
too.  A shape whose answer differs is reported and not timed.

    duckdb_additions.py --table T --rows N --shapes TSV [--engine auto|node|capi]
                        [--threads N] [--rounds 7] [--warmup 1]
                        [--output JSON] [--ours CONFIG=JSON]...

--shapes: additions_bench.sh's shapes, a "label|SQL" a line.  --ours:
sql_timing.py --json files, one per configuration (device:workers);
--output: the same for PostgreSQL's stored answers read back.
"""
import argparse
import json
import os
import sys

from duckdb_engines import DuckDBError, open_engine
from duckdb_side import BUCKET, THRESHOLD_BIN, ZONE, psql, start, time_shapes

WEEK = "ts >= TIMESTAMPTZ '2026-02-01 00:00:00+00' AND ts < TIMESTAMPTZ '2026-02-08 00:00:00+00'"
GRAFANA_WEEK = "ts BETWEEN TIMESTAMPTZ '2026-02-01 00:00:00+00' AND TIMESTAMPTZ '2026-02-08 00:00:00+00'"
DAYS_2 = "ts BETWEEN TIMESTAMPTZ '2026-02-01 00:00:00+00' AND TIMESTAMPTZ '2026-02-03 00:00:00+00'"
DAY_1 = "ts BETWEEN TIMESTAMPTZ '2026-02-01 00:00:00+00' AND TIMESTAMPTZ '2026-02-02 00:00:00+00'"
DAYS_30 = "ts >= TIMESTAMPTZ '2026-02-01 00:00:00+00' AND ts < TIMESTAMPTZ '2026-03-03 00:00:00+00'"
MONTHS_3 = "ts >= TIMESTAMPTZ '2026-02-01 00:00:00+00' AND ts < TIMESTAMPTZ '2026-05-01 00:00:00+00'"
# New York's hour as PostgreSQL's date_trunc('hour', ts) gives it: DuckDB's
# date_trunc('hour') folds the repeated hour of a fall-back night into one
# (measured: DuckDB 1.5.6, 2026-11-01), and New York's offsets are whole
# hours, so the UTC hour is the local one.
HOUR = "to_timestamp(floor(epoch(ts) / 3600) * 3600)"
FIFTEEN = "floor(epoch(ts) / 900) * 900"
FIVE = "to_timestamp(floor(epoch(ts) / 300) * 300)"
# gpu_histogram(ts, 2026-01-01, 2026-02-01, 744): width_bucket over the
# microseconds, which for whole-hour bounds is this integer quotient
LO_US = "epoch_us(TIMESTAMPTZ '2026-01-01 00:00:00+00')"
SPAN_US = 31 * 86400 * 1000000
TIME_BIN = (f"CASE WHEN epoch_us(ts) < {LO_US} THEN 0 WHEN epoch_us(ts) >= {LO_US} + {SPAN_US} THEN 745"
            f" ELSE (epoch_us(ts) - {LO_US}) * 744 // {SPAN_US} + 1 END")

# label: (keys as (kind, DuckDB expression), bucket, WHERE, our extra columns
# after the keys).  A key's kind says how both sides print it: int (as
# bigint), text, epoch (a timestamp's epoch seconds).
SHAPES = {
    "GROUP BY g": ([("int", "g")], BUCKET, None, ()),
    "GROUP BY g % 10 (+)": ([("int", "g % 10")], BUCKET, None, ()),
    "GROUP BY g::text (+)": ([("text", "g::VARCHAR")], BUCKET, None, ()),
    "GROUP BY CASE over g (+)": ([("text", "CASE WHEN g < 50 THEN 'low' ELSE 'high' END")], BUCKET, None, ()),
    "hour, 30 days": ([("epoch", HOUR)], BUCKET, DAYS_30, ()),
    "g % 10 and hour, a week (+)": ([("int", "g % 10"), ("epoch", HOUR)], BUCKET, WEEK, ()),
    "g and hour, a week": ([("int", "g"), ("epoch", HOUR)], BUCKET, WEEK, ()),
    "15 min, a week, g below 4": ([("int", FIFTEEN)], BUCKET, f"{GRAFANA_WEEK} AND g <= 3", ()),
    "15 min, a week, g IN (1, 2, 3) (+)": ([("int", FIFTEEN)], BUCKET, f"{GRAFANA_WEEK} AND g IN (1, 2, 3)", ()),
    "15 min, a week, host IN (+)": ([("int", FIFTEEN)], BUCKET,
                                    f"{GRAFANA_WEEK} AND host IN ('host-1', 'host-2', 'host-3')", ()),
    "15 min, a week": ([("int", FIFTEEN)], BUCKET, GRAFANA_WEEK, ()),
    # New York's whole-hour offsets: the local quarter hour is the UTC one
    "quarter hours by hand, a week (+)": ([("epoch", f"to_timestamp({FIFTEEN})")], BUCKET, GRAFANA_WEEK, ()),
    "Grafana 5 min, 30 days": ([("int", "floor(epoch(ts) / 300) * 300")], BUCKET, DAYS_30, ()),
    "5 min as a minute less its remainder, 30 days (+)": ([("epoch", FIVE)], BUCKET, DAYS_30, ()),
    "histogram, one host": ([], BUCKET, "host = 'host-7'", ()),
    "Grafana 1 minute, 2 days": ([("int", "floor(epoch(ts) / 60) * 60")], BUCKET, DAYS_2, ()),
    "Grafana epoch ms, 1 minute, a day (+)": ([("int", "(floor(epoch(ts) * 1000 / 60000) * 60000)::BIGINT")],
                                              BUCKET, DAY_1, ()),
    "to_timestamp 5 min, 2 days": ([("epoch", FIVE)], BUCKET, DAYS_2, ()),
    "to_timestamp 5 min AT TIME ZONE 'UTC', 2 days (+)": ([("epoch", f"timezone('UTC', {FIVE})")], BUCKET, DAYS_2, ()),
    "weeks, 3 months": ([("epoch", "date_trunc('week', ts)")], BUCKET, MONTHS_3, ()),
    "Metabase Sunday weeks, 3 months (+)": ([("epoch", "date_trunc('week', ts + INTERVAL 1 DAY) - INTERVAL 1 DAY")],
                                            BUCKET, MONTHS_3, ()),
    "time form, January hourly": ([], TIME_BIN, None, ()),
    "time form, WHERE ts < (+)": ([], TIME_BIN, "ts < TIMESTAMPTZ '2026-01-20 00:00:00+00'", ()),
    "time form, GROUP BY g (+)": ([("int", "g")], TIME_BIN, None, ()),
    "thresholds, 8": ([], THRESHOLD_BIN, None, ()),
    "thresholds by hour of day (+)": ([("int", "hour(ts)")], THRESHOLD_BIN, None, ()),
    "quarter": ([("int", "quarter(ts)")], BUCKET, None, ()),
    "year in Kolkata (+)": ([("int", "year(timezone('Asia/Kolkata', ts))")], BUCKET, None, ()),
    "heatmap, count(*)": ([("epoch", HOUR)], BUCKET, None, ("c",)),
    # the mean line: DuckDB's histogram() aggregate gives each hour's buckets beside avg and max
    "heatmap, avg and max (+)": ([("epoch", HOUR)], BUCKET, None, ("a", "m")),
}
MEAN_LINE = "heatmap, avg and max (+)"


def duck_sql(t, label):
    """What a DuckDB user runs: the keys, each bucket and its count (the mean line: avg, max, histogram())."""
    keys, bucket, where, _ = SHAPES[label]
    names = [f"{expr} AS k{i + 1}" for i, (_, expr) in enumerate(keys)]
    where = f" WHERE {where}" if where else ""
    if label == MEAN_LINE:
        return f"SELECT {names[0]}, avg(x) AS a, max(x) AS m, histogram({bucket}) AS h FROM {t}{where} GROUP BY ALL"
    return f"SELECT {', '.join(names + [f'{bucket} AS b', 'count(*) AS n'])} FROM {t}{where} GROUP BY ALL"


def printed(kind, col, duck):
    if kind == "epoch":
        return f"epoch({col})::BIGINT::VARCHAR" if duck else f"extract(epoch FROM {col})::bigint::text"
    if kind == "int":
        return f"{col}::BIGINT::VARCHAR" if duck else f"{col}::bigint::text"
    return f"{col}::VARCHAR" if duck else f"{col}::text"


def cells_duck(t, label):
    keys = SHAPES[label][0]
    ks = [printed(kind, f"k{i + 1}", True) for i, (kind, _) in enumerate(keys)]
    if label == MEAN_LINE:
        return (f"SELECT {ks[0]}, e.key::VARCHAR, e.value::VARCHAR FROM"
                f" (SELECT k1, unnest(map_entries(h)) AS e FROM ({duck_sql(t, label)}) s) u"
                f" UNION ALL SELECT {ks[0]}, 'max', m::VARCHAR FROM ({duck_sql(t, label)}) s")
    return f"SELECT {', '.join(ks + ['b::VARCHAR', 'n::VARCHAR'])} FROM ({duck_sql(t, label)}) s"


def cells_ours(label, sql):
    keys, _, _, extra = SHAPES[label]
    cols = [f"k{i + 1}" for i in range(len(keys))] + list(extra) + ["h"]
    ks = [printed(kind, f"s.k{i + 1}", False) for i, (kind, _) in enumerate(keys)]
    q = (f"SELECT {', '.join(ks + ['(u.o - 1)::text', 'u.n::text'])} FROM ({sql}) s({', '.join(cols)}),"
         " unnest(s.h) WITH ORDINALITY u(n, o) WHERE u.n > 0")
    if label == MEAN_LINE:
        q += f" UNION ALL SELECT {ks[0]}, 'max', s.m::text FROM ({sql}) s({', '.join(cols)})"
    return q


def check(db, t, ours_sql):
    """The labels whose answers equal ours, cell by cell (the mean line's avg within 1e-12, relative)."""
    setup = [f"SET TimeZone = '{ZONE}'", "SET work_mem = '256MB'"]
    same = []
    for label in SHAPES:
        if label not in ours_sql:
            continue
        pg = {tuple(r) for r in psql(cells_ours(label, ours_sql[label]), setup=setup)}
        duck = {tuple(str(v) for v in r) for r in db.run(cells_duck(t, label), values=True)[2]}
        if pg != duck:
            print(f"  DIFFERS: {label}: {len(pg ^ duck)} of {len(pg)} cells, e.g. {sorted(pg ^ duck)[:4]}")
            continue
        note = ""
        if label == MEAN_LINE:
            ours = {r[0]: float(r[1]) for r in psql(f"SELECT extract(epoch FROM s.k1)::bigint, s.a FROM"
                                                   f" ({ours_sql[label]}) s(k1, a, m, h)", setup=setup)}
            theirs = {str(r[0]): float(r[1]) for r in
                      db.run(f"SELECT epoch(k1)::BIGINT, a FROM ({duck_sql(t, label)}) s", values=True)[2]}
            worst = max(abs(ours[k] - theirs[k]) / max(abs(ours[k]), 1e-300) for k in ours)
            if set(ours) != set(theirs) or worst > 1e-12:
                print(f"  DIFFERS: {label}: avg by {worst:.3g} (relative)")
                continue
            note = f", avg within {worst:.2g} relative"
        same.append(label)
        print(f"  same: {label} ({len(pg)} cells{note})")
    return same


def medians(path):
    with open(path) as f:
        return {label: v["median_ms"] for label, v in json.load(f).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--engine", default="auto", choices=["auto", "node", "capi"])
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--output", help="sql_timing JSON of PostgreSQL's stored answers read back")
    ap.add_argument("--ours", action="append", default=[], help="CONFIG=sql_timing JSON")
    args = ap.parse_args()

    ours_sql = {}
    with open(args.shapes) as f:
        for line in f:
            label, _, sql = line.rstrip("\n").partition("|")
            ours_sql[label] = sql
    ours = {config: medians(path) for config, _, path in (o.partition("=") for o in args.ours)}
    output = medians(args.output) if args.output else {}

    db, why = open_engine(args.engine)
    if db is None:
        print(f"DuckDB side skipped: {why}")
        return
    try:
        threads = start(db, args.table, args.rows, args.threads,
                        {"ts": "TIMESTAMPTZ", "host": "VARCHAR", "g": "INTEGER", "x": "DOUBLE"})
        print("answers, DuckDB's against ours:")
        same = check(db, args.table, ours_sql)
        queries = {"count(x)": f"SELECT count(x) FROM {args.table}"}
        queries.update({label: duck_sql(args.table, label) for label in same})
        duck, runs = time_shapes(db, queries, args.rounds, args.warmup)
    except DuckDBError as e:
        sys.exit(f"DuckDB failed: {e}")
    finally:
        db.close()

    configs = list(ours)
    labels = list(ours_sql)
    width = max(len(label) for label in labels)
    print(f"\n== side by side: median ms ({args.rounds} rounds); 'output' is PostgreSQL's reading of the stored"
          " answer alone; DuckDB/ours above 1: we are faster")
    head = f"{'query':<{width}}" + "".join(f"  {c:>9}" for c in configs)
    head += f"  {'output':>9}  {'DuckDB ' + threads + ' thr':>14}" + "".join(f"  {'DuckDB/' + c:>12}" for c in configs)
    print(head)
    for label in labels:
        line = f"{label:<{width}}"
        line += "".join(f"  {ours[c][label]:9.1f}" if label in ours[c] else f"  {'':>9}" for c in configs)
        line += f"  {output[label]:9.1f}" if label in output and label != "count(x)" else f"  {'':>9}"
        d = duck.get(label)
        line += f"  {d:14.1f}" if d is not None else f"  {'':>14}"
        if d is not None and label != "count(x)":
            line += "".join(f"  {d / ours[c][label]:11.2f}x" if label in ours[c] else "" for c in configs)
        print(line.rstrip())
    if any(label not in same for label in SHAPES if label in ours_sql):
        sys.exit(1)


if __name__ == "__main__":
    main()
