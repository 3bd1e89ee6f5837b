#!/usr/bin/env python3
r"""sql_timing.py: times SQL queries side by side in one psql session.

Each round runs every query once, in order, so slow drift of the machine
hits all queries alike; after warm-up rounds, reports the median time of each
query and its ratio to the first (the baseline).  Used by the benchmark
scripts; it prints, it does not assert: speed is shown by ratios, not by
timed tests.

    sql_timing.py --rounds 7 --warmup 1 [--setup SQL]... [--cpu] LABEL=[SET ...;] QUERY ...

--cpu also reports the backend's own CPU time for each query (from
/proc/PID/schedstat, read by psql's \! before and after it): the host's
share of the work, which wall time hides when a GPU or parallel workers do
the rest.  It needs the server on this machine.
"""
import argparse
import json
import os
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
    ap.add_argument("--cpu", action="store_true", help="also the backend's CPU time per query")
    ap.add_argument("queries", nargs="+", help="LABEL=QUERY")
    args = ap.parse_args()

    labels, queries = [], []
    for q in args.queries:
        label, _, sql = q.partition("=")
        labels.append(label)
        queries.append(sql.strip().rstrip(";"))

    script = ["\\set ON_ERROR_STOP 1"] + [s.rstrip(";") + ";" for s in args.setup]
    cpu_file = None
    if args.cpu:
        cpu_file = f"/tmp/sql_timing_cpu.{os.getpid()}"
        open(cpu_file, "w").close()
        os.chmod(cpu_file, 0o666)
        script += ["SELECT pg_backend_pid() AS gh_pid \\gset", "\\setenv GH_PID :gh_pid"]
    sample = f"\\! cut -d' ' -f1 /proc/$GH_PID/schedstat >> {cpu_file}" if cpu_file else None
    # results go to /dev/null; psql still prints its timings on stdout
    script += ["\\timing on", "\\o /dev/null"]
    # A query may start with settings ("SET a = b; SELECT ..."): only its last
    # statement is timed.
    for _ in range(args.warmup + args.rounds):
        for sql in queries:
            *settings, timed = [part.strip() for part in sql.split(";") if part.strip()]
            if settings:
                script += ["\\timing off"] + [x + ";" for x in settings] + ["\\timing on"]
            if sample:
                script.append(sample)
            script.append(timed + ";")
            if sample:
                script.append(sample)
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
    cpu = None
    if cpu_file:
        ns = [int(line) for line in open(cpu_file).read().split()]
        os.unlink(cpu_file)
        spent = [(ns[2 * k + 1] - ns[2 * k]) / 1e6 for k in range(len(ns) // 2)][n * args.warmup:]
        cpu = [statistics.median(spent[i::n]) for i in range(n)] if len(spent) == len(times) else None
    base = medians[0]
    width = max(len(l) for l in labels)
    head = f"{'query':<{width}}  median ms  ratio to {labels[0]}  (min..max ms, {args.rounds} rounds)"
    print(head + ("  backend CPU ms" if cpu else ""))
    for label, med, i in zip(labels, medians, range(n)):
        runs = times[i::n]
        line = f"{label:<{width}}  {med:9.1f}  {med / base:8.3f}x  ({min(runs):.1f}..{max(runs):.1f})"
        print(line + (f"  {cpu[i]:10.1f}" if cpu else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({l: {"median_ms": m, "ratio": m / base, "runs_ms": times[i::n],
                           "backend_cpu_ms": cpu[i] if cpu else None}
                       for i, (l, m) in enumerate(zip(labels, medians))}, f, indent=1)


if __name__ == "__main__":
    main()
