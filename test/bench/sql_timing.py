#!/usr/bin/env python3
"""sql_timing.py: times SQL queries side by side in one psql session.

Each round runs every query once, in order, so slow drift of the machine
hits all queries alike; after warm-up rounds, reports the median time of each
query and its ratio to the first (the baseline).  Used by the benchmark
scripts; it prints, it does not assert: speed is shown by ratios, not by
timed tests.

    sql_timing.py --rounds 7 --warmup 1 [--setup SQL]... LABEL=[SET ...;] QUERY ...
"""
import argparse
import json
import re
import statistics
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--setup", action="append", default=[], help="SQL run once first (SET ...)")
    ap.add_argument("--json", help="write the medians here as JSON")
    ap.add_argument("queries", nargs="+", help="LABEL=QUERY")
    args = ap.parse_args()

    labels, queries = [], []
    for q in args.queries:
        label, _, sql = q.partition("=")
        labels.append(label)
        queries.append(sql.strip().rstrip(";"))

    script = ["\\set ON_ERROR_STOP 1"] + [s.rstrip(";") + ";" for s in args.setup]
    # results go to /dev/null; psql still prints its timings on stdout
    script += ["\\timing on", "\\o /dev/null"]
    # A query may start with settings ("SET a = b; SELECT ..."): only its last
    # statement is timed.
    for _ in range(args.warmup + args.rounds):
        for sql in queries:
            *settings, timed = [part.strip() for part in sql.split(";") if part.strip()]
            if settings:
                script += ["\\timing off"] + [x + ";" for x in settings] + ["\\timing on"]
            script.append(timed + ";")
    proc = subprocess.run(["psql", "-X", "-q", "-At"], input="\n".join(script) + "\n",
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"psql failed:\n{proc.stderr}")
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", proc.stdout, re.M)]
    n = len(queries)
    if len(times) != n * (args.warmup + args.rounds):
        sys.exit(f"expected {n * (args.warmup + args.rounds)} timings, got {len(times)}:\n{proc.stdout}")
    times = times[n * args.warmup:]
    medians = [statistics.median(times[i::n]) for i in range(n)]
    base = medians[0]
    width = max(len(l) for l in labels)
    print(f"{'query':<{width}}  median ms  ratio to {labels[0]}  (min..max ms, {args.rounds} rounds)")
    for label, med, i in zip(labels, medians, range(n)):
        runs = times[i::n]
        print(f"{label:<{width}}  {med:9.1f}  {med / base:8.3f}x  ({min(runs):.1f}..{max(runs):.1f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({l: {"median_ms": m, "ratio": m / base, "runs_ms": times[i::n]}
                       for i, (l, m) in enumerate(zip(labels, medians))}, f, indent=1)


if __name__ == "__main__":
    main()
