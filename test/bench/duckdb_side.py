#!/usr/bin/env python3
r"""duckdb_side.py: DuckDB's column in dashboards_bench.sh (issue 28, item 8).

What a user would run instead of us, on the same rows and the same shapes,
timed like sql_timing.py (interleaved rounds after warm-up, medians), then
one table of ours beside DuckDB's with ratios.  The rows come from the
PostgreSQL table itself (random() made them, so they cannot be regenerated):
COPY to CSV, in parallel parts, read by DuckDB into its own columns.  Before
timing, totals and width_bucket counts on a sample (a day, the New York DST
change of March 2026 when the table reaches it, and the two-week range) must
equal PostgreSQL's, or it exits 1.

    duckdb_side.py --table T --rows N [--engine auto|node|capi] [--threads N]
                   [--rounds 7] [--warmup 1] [--ours CONFIG=JSON]...

--ours names sql_timing.py --json files, one or more per configuration
(device:workers); DuckDB times the shapes they hold (all, without any).
Needs psql on PATH and PGHOST/PGPORT/PGUSER/PGDATABASE of the server.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from duckdb_engines import DuckDBError, open_engine

ZONE = "America/New_York"
START = "2026-01-01 00:00:00+00"  # the bench's first ts (less one second)
RANGE = "ts >= TIMESTAMPTZ '2026-02-01 00:00:00+00' AND ts < TIMESTAMPTZ '2026-02-15 00:00:00+00'"
SAMPLE = ("ts < TIMESTAMPTZ '2026-01-02 00:00:00+00' OR ts >= TIMESTAMPTZ '2026-03-07 00:00:00+00'"
          f" AND ts < TIMESTAMPTZ '2026-03-10 00:00:00+00' OR {RANGE}")
LO, HI, NBINS = 0, 1, 64
# width_bucket(x, 0, 1, 64) as PostgreSQL 15 computes it (multiply, then
# divide; PostgreSQL 16 divides first and clamps, which differs only in the
# last bit near hi, never for these bounds): DuckDB has no width_bucket.
BUCKET = (f"CASE WHEN x < {LO} THEN 0 WHEN x >= {HI} THEN {NBINS + 1}"
          f" ELSE floor({NBINS} * (x - {LO}) / ({HI} - {LO}))::INTEGER + 1 END")
HOUR = "date_trunc('hour', ts)"
DATE_BIN = f"time_bucket(INTERVAL '1 hour', ts, TIMESTAMPTZ '{START}')"
PG_DATE_BIN = f"date_bin('1 hour', ts, timestamptz '{START}')"


# The thresholds form's eight thresholds, and its bins in DuckDB: a CASE
# over ascending thresholds is width_bucket(x, array) for x that is not NaN.
THRESHOLDS = [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]
THRESHOLD_BIN = ("CASE " + " ".join(f"WHEN x < {v} THEN {i}" for i, v in enumerate(THRESHOLDS))
                 + f" ELSE {len(THRESHOLDS)} END")


def time_form_days(rows):
    """The time form, daily: one bucket a day over the table's span (a row a second)."""
    return rows // 86400 + 1


def shapes(t, rows):
    """The bench's labels and DuckDB's SQL for the same answer: per group,
    the count in each bucket (the rows a plain-SQL user would ask for).
    The time form's bucket is numeric width_bucket over microseconds, which
    for these bounds (whole days) is the integer quotient below."""
    days = time_form_days(rows)
    lo_us = "epoch_us(TIMESTAMPTZ '2026-01-01 00:00:00+00')"
    span_us = days * 86400 * 1000000
    time_bucket = (f"CASE WHEN epoch_us(ts) < {lo_us} THEN 0 WHEN epoch_us(ts) >= {lo_us} + {span_us}"
                   f" THEN {days + 1} ELSE (epoch_us(ts) - {lo_us}) * {days} // {span_us} + 1 END")
    return {
        "count(x)": f"SELECT count(x) FROM {t}",
        "ungrouped histogram": f"SELECT {BUCKET} AS b, count(*) FROM {t} GROUP BY b",
        "GROUP BY g": f"SELECT g, {BUCKET} AS b, count(*) FROM {t} GROUP BY g, b",
        "hourly heatmap, New York": f"SELECT {HOUR} AS h, {BUCKET} AS b, count(*) FROM {t} GROUP BY h, b",
        "date_bin 1 hour": f"SELECT {DATE_BIN} AS h, {BUCKET} AS b, count(*) FROM {t} GROUP BY h, b",
        "2 weeks of 16, native range": f"SELECT {BUCKET} AS b, count(*) FROM {t} WHERE {RANGE} GROUP BY b",
        "2 weeks of 16, heatmap": f"SELECT {HOUR} AS h, {BUCKET} AS b, count(*) FROM {t} WHERE {RANGE} GROUP BY h, b",
        "Grafana 1 minute, 2 days": f"SELECT floor(epoch(ts) / 60) * 60 AS m, {BUCKET} AS b, count(*) FROM {t}"
                                    " WHERE ts BETWEEN TIMESTAMPTZ '2026-02-01 00:00:00+00'"
                                    " AND TIMESTAMPTZ '2026-02-03 00:00:00+00' GROUP BY m, b",
        "hour of day": f"SELECT hour(ts) AS h, {BUCKET} AS b, count(*) FROM {t} GROUP BY h, b",
        "day of week x hour": f"SELECT dayofweek(ts) AS d, hour(ts) AS h, {BUCKET} AS b, count(*) FROM {t}"
                              " GROUP BY d, h, b",
        "minute buckets, 2 weeks": f"SELECT date_trunc('minute', ts) AS m, {BUCKET} AS b, count(*) FROM {t}"
                                   " WHERE ts < TIMESTAMPTZ '2026-01-15 00:00:00+00' GROUP BY m, b",
        "time form, daily": f"SELECT {time_bucket} AS b, count(*) FROM {t} GROUP BY b",
        "thresholds, 8": f"SELECT {THRESHOLD_BIN} AS b, count(*) FROM {t} GROUP BY b",
    }


def psql(sql, setup=()):
    script = "\\set ON_ERROR_STOP 1\n" + "".join(s + ";\n" for s in setup) + sql + ";\n"
    out = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t"], input=script, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr}")
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def export(table, rows, workdir, parts, columns="x, g, ts"):
    """The table's columns as CSV files in ts order, COPY'd by `parts` psql at once."""
    step = rows // parts + 1
    quoted = (["timestamptz '-infinity'"]
              + [f"timestamptz '{START}' + {k * step} * interval '1 second'" for k in range(1, parts)]
              + ["timestamptz 'infinity'"])

    def one(k):
        path = os.path.join(workdir, f"part{k:03d}.csv")
        sql = (f"COPY (SELECT {columns} FROM {table} WHERE ts >= {quoted[k]} AND ts < {quoted[k + 1]})"
               " TO STDOUT (FORMAT csv)")
        with open(path, "w") as f:
            env = dict(os.environ, PGOPTIONS="-c TimeZone=UTC -c extra_float_digits=1")
            if subprocess.run(["psql", "-X", "-q", "-c", sql], stdout=f, env=env).returncode != 0:
                sys.exit(f"COPY of part {k} failed")
        return path

    with concurrent.futures.ThreadPoolExecutor(parts) as pool:
        return list(pool.map(one, range(parts)))


def check(db, table):
    """Totals, then (shape, key, bucket, count) over the sample: DuckDB's must
    be PostgreSQL's, width_bucket's and the floor formula's alike."""
    tot = "count(*), sum(g), min(extract(epoch FROM ts))::BIGINT, max(extract(epoch FROM ts))::BIGINT"
    pg = psql(f"SELECT {tot} FROM {table}")[0]
    duck = db.run(f"SELECT {tot} FROM {table}", values=True)[2][0]
    if [str(v) for v in duck] != pg:
        sys.exit(f"error: DuckDB's table differs from PostgreSQL's: count, sum(g), min and max ts {duck} vs {pg}")

    def sample_sql(bucket, date_bin, cast):
        keys = [("g", f"g{cast}"), ("heatmap", f"extract(epoch FROM {HOUR})::BIGINT{cast}"),
                ("date_bin", f"extract(epoch FROM {date_bin})::BIGINT{cast}")]
        parts = [f"SELECT '{name}' AS shape, {key} AS k, {bucket} AS b, count(*) AS n FROM s"
                 f" WHERE NOT ({RANGE}) GROUP BY 1, 2, 3" for name, key in keys]
        parts.append(f"SELECT 'range', '', {bucket}, count(*) FROM s WHERE {RANGE} GROUP BY 1, 2, 3")
        body = " UNION ALL ".join(f"({p})" for p in parts)
        return (f"WITH s AS MATERIALIZED (SELECT x, g, ts FROM {table} WHERE {SAMPLE})"
                f" SELECT shape, k, b{cast}, n{cast} FROM ({body}) u")

    pg = {tuple(r) for r in psql(sample_sql(f"width_bucket(x, {LO}, {HI}, {NBINS})", PG_DATE_BIN, "::text"),
                                 setup=[f"SET TimeZone = '{ZONE}'"])}
    duck = {tuple(r) for r in db.run(sample_sql(BUCKET, DATE_BIN, "::VARCHAR"), values=True)[2]}
    rows = sum(int(r[3]) for r in pg if r[0] in ("g", "range"))
    dst = 1772953200  # 2026-03-08 03:00 New York, the first hour after the change
    reached = ["the first day"] + (["the DST change of 2026-03-08"] if ("heatmap", str(dst)) in
                                   {(r[0], r[1]) for r in pg} else []) + \
        (["the two-week range"] if any(r[0] == "range" for r in pg) else [])
    print(f"DuckDB's bucket counts equal PostgreSQL's width_bucket on the sample: {len(pg)} (shape, group, bucket) "
          f"cells, {rows} rows ({', '.join(reached)}; GROUP BY g, New York hours, date_bin, the range)")
    check_issue47_shapes(db, table)


def check_issue47_shapes(db, table):
    """The later shapes' keys and bins, over the sample: DuckDB's hour(),
    dayofweek(), epoch arithmetic, the time form's integer quotient and the
    thresholds' CASE against PostgreSQL's extract, width_bucket over
    numeric microseconds and width_bucket over the thresholds array."""
    days = 1158  # any day count: the quotient must equal numeric width_bucket for each
    lo = "TIMESTAMPTZ '2026-01-01 00:00:00+00'"
    pg_keys = [("hour", "extract(hour FROM ts)::int::text"), ("dow", "extract(dow FROM ts)::int::text"),
               ("minute", "extract(epoch FROM date_trunc('minute', ts))::bigint::text"),
               ("grafana", "(floor(extract(epoch FROM ts) / 60) * 60)::bigint::text")]
    duck_keys = [("hour", "hour(ts)::VARCHAR"), ("dow", "dayofweek(ts)::VARCHAR"),
                 ("minute", "epoch(date_trunc('minute', ts))::BIGINT::VARCHAR"),
                 ("grafana", "(floor(epoch(ts) / 60) * 60)::BIGINT::VARCHAR")]
    pg_us = "(extract(epoch FROM ts) * 1000000)::numeric"
    pg_lo = f"(extract(epoch FROM {lo.replace('TIMESTAMPTZ', 'timestamptz')}) * 1000000)::numeric"
    pg_bins = [("time", f"width_bucket({pg_us}, {pg_lo}, {pg_lo} + {days * 86400 * 1000000}, {days})::text"),
               ("thresholds", f"width_bucket(x, ARRAY{THRESHOLDS}::float8[])::text")]
    lo_us = f"epoch_us({lo})"
    span_us = days * 86400 * 1000000
    duck_bins = [("time", f"(CASE WHEN epoch_us(ts) < {lo_us} THEN 0 WHEN epoch_us(ts) >= {lo_us} + {span_us}"
                          f" THEN {days + 1} ELSE (epoch_us(ts) - {lo_us}) * {days} // {span_us} + 1 END)::VARCHAR"),
                 ("thresholds", f"({THRESHOLD_BIN})::VARCHAR")]

    def sql(keys, bins, bucket, text):
        parts = [f"SELECT '{name}' AS shape, {key} AS k, ({bucket}){text} AS b, count(*) AS n FROM s GROUP BY 1, 2, 3"
                 for name, key in keys]
        parts += [f"SELECT '{name}', '', {b}, count(*) FROM s GROUP BY 1, 2, 3" for name, b in bins]
        body = " UNION ALL ".join(f"({p})" for p in parts)
        return (f"WITH s AS MATERIALIZED (SELECT x, g, ts FROM {table} WHERE {SAMPLE})"
                f" SELECT shape, k, b, n{text} FROM ({body}) u")

    pg = {tuple(r) for r in psql(sql(pg_keys, pg_bins, f"width_bucket(x, {LO}, {HI}, {NBINS})", "::text"),
                                 setup=[f"SET TimeZone = '{ZONE}'"])}
    duck = {tuple(r) for r in db.run(sql(duck_keys, duck_bins, BUCKET, "::VARCHAR"), values=True)[2]}
    if pg != duck:
        sys.exit(f"error: DuckDB's hour, day of week, minute, Grafana, time form or threshold counts differ from "
                 f"PostgreSQL's on the sample: {len(pg ^ duck)} cells differ, e.g. {sorted(pg ^ duck)[:4]}")
    print(f"DuckDB's hour, day of week, minute, Grafana, time form and threshold bins equal PostgreSQL's on the "
          f"sample: {len(pg)} cells")


def time_shapes(db, queries, rounds, warmup):
    labels = list(queries)
    runs = {label: [] for label in labels}
    for r in range(warmup + rounds):
        for label in labels:
            ms = db.run(queries[label])[0]
            if r >= warmup:
                runs[label].append(ms)
    return {label: statistics.median(runs[label]) for label in labels}, runs


def start(db, table, rows, threads, columns):
    """DuckDB set to `threads` and New York's zone, with PostgreSQL's table
    copied in: `columns` maps each column to DuckDB's type, in the export's
    order.  Returns the threads DuckDB took, as it prints them."""
    version = db.run("SELECT version()", values=True)[2][0][0]
    db.run(f"SET threads = {threads}")
    db.run(f"SET TimeZone = '{ZONE}'")
    took = db.run("SELECT current_setting('threads')::VARCHAR", values=True)[2][0][0]
    print(f"\n== DuckDB {version} ({db.name}), threads = {took}, TimeZone {ZONE}")
    workdir = tempfile.mkdtemp(prefix="gh_duckdb_", dir=os.environ.get("GH_DUCKDB_TMP"))
    try:
        begun = time.perf_counter()
        files = export(table, rows, workdir, max(1, min(8, threads)), ", ".join(columns))
        copy_ms = (time.perf_counter() - begun) * 1e3
        listed = ", ".join(f"'{p}'" for p in files)
        types = ", ".join(f"'{c}': '{t}'" for c, t in columns.items())
        ms = db.run(f"CREATE TABLE {table} AS SELECT * FROM read_csv([{listed}], header = false,"
                    f" auto_detect = false, columns = {{{types}}})")[0]
    finally:
        shutil.rmtree(workdir)
    print(f"loaded {rows} rows from PostgreSQL's {table} (COPY to CSV in {len(files)} parts: {copy_ms:.0f} ms,"
          f" read_csv: {ms:.0f} ms)")
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--engine", default="auto", choices=["auto", "node", "capi"])
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--ours", action="append", default=[], help="CONFIG=sql_timing JSON")
    args = ap.parse_args()

    ours = {}  # config -> label -> median ms
    for item in args.ours:
        config, _, path = item.partition("=")
        with open(path) as f:
            for label, v in json.load(f).items():
                ours.setdefault(config, {}).setdefault(label, v["median_ms"])
    wanted = {label for medians in ours.values() for label in medians}
    queries = {k: v for k, v in shapes(args.table, args.rows).items() if not wanted or k in wanted}

    db, why = open_engine(args.engine)
    if db is None:
        print(f"DuckDB side skipped: {why}")
        return
    try:
        threads = start(db, args.table, args.rows, args.threads, {"x": "DOUBLE", "g": "INTEGER", "ts": "TIMESTAMPTZ"})
        check(db, args.table)
        medians, runs = time_shapes(db, queries, args.rounds, args.warmup)
    except DuckDBError as e:
        sys.exit(f"DuckDB failed: {e}")
    finally:
        db.close()

    # no ratios to DuckDB's own count(x): 7.7 ms over 10M rows on the dev
    # VM, too fast to be reading the values (x has no NULL)
    width = max(len(label) for label in queries)
    print(f"{'query':<{width}}  median ms  (min..max ms, {args.rounds} rounds)")
    for label in queries:
        print(f"{label:<{width}}  {medians[label]:9.1f}  ({min(runs[label]):.1f}..{max(runs[label]):.1f})")
    if not ours:
        return
    configs = list(ours)
    rows = list(dict.fromkeys(label for c in configs for label in ours[c]))
    width = max(len(label) for label in rows)
    duck_col = f"DuckDB {threads} thr"
    print(f"\n== side by side: median ms, and DuckDB's time / ours (above 1: we are faster)")
    head = f"{'query':<{width}}" + "".join(f"  {c:>9}" for c in configs) + f"  {duck_col:>12}"
    print(head + "".join(f"  {'DuckDB/' + c:>12}" for c in configs))
    for label in rows:
        line = f"{label:<{width}}"
        line += "".join(f"  {ours[c][label]:9.1f}" if label in ours[c] else f"  {'':>9}" for c in configs)
        duck = medians.get(label)
        line += f"  {duck:12.1f}" if duck is not None else f"  {'':>12}"
        if duck is not None:
            line += "".join(f"  {duck / ours[c][label]:11.2f}x" if label in ours[c] else f"  {'':>12}"
                            for c in configs)
        print(line.rstrip())


if __name__ == "__main__":
    main()
