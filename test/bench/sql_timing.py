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

--binary times the queries through libpq itself (ctypes), asking for the
results in binary, as a driver such as pgx does for the types it knows,
instead of psql's text.  A histogram's text is PostgreSQL's array_out, one
int8out call per count: for thousands of rows of 66 counts that is most of
the query (measured: docs/performance.md).  The time is from sending the
query to holding the whole result, as psql's \timing measures it.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--setup", action="append", default=[], help="SQL run once first (SET ...)")
    ap.add_argument("--json", help="write the medians here as JSON")
    ap.add_argument("--cpu", action="store_true", help="also the backend's CPU time per query")
    ap.add_argument("--binary", action="store_true", help="libpq with binary results instead of psql's text")
    ap.add_argument("queries", nargs="+", help="LABEL=QUERY")
    args = ap.parse_args()

    labels, queries = [], []
    for q in args.queries:
        label, _, sql = q.partition("=")
        labels.append(label)
        queries.append(sql.strip().rstrip(";"))

    if args.binary:
        if args.cpu:
            sys.exit("--cpu reads the backend's time through psql: not with --binary")
        times, spent = binary_times(args, queries), None
    else:
        times, spent = psql_times(args, queries)
    report(args, labels, times, spent)


def binary_times(args, queries):
    """Every round's times in ms, through libpq with binary results."""
    import ctypes
    pq = ctypes.CDLL("libpq.so.5")
    pq.PQconnectdb.restype = ctypes.c_void_p
    pq.PQconnectdb.argtypes = [ctypes.c_char_p]
    pq.PQstatus.argtypes = [ctypes.c_void_p]
    pq.PQerrorMessage.restype = ctypes.c_char_p
    pq.PQerrorMessage.argtypes = [ctypes.c_void_p]
    pq.PQexec.restype = ctypes.c_void_p
    pq.PQexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    pq.PQexecParams.restype = ctypes.c_void_p
    pq.PQexecParams.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    pq.PQresultStatus.argtypes = [ctypes.c_void_p]
    pq.PQresultErrorMessage.restype = ctypes.c_char_p
    pq.PQresultErrorMessage.argtypes = [ctypes.c_void_p]
    pq.PQclear.argtypes = [ctypes.c_void_p]
    pq.PQfinish.argtypes = [ctypes.c_void_p]
    conn = pq.PQconnectdb(b"")   # PGHOST, PGPORT, PGUSER, PGDATABASE as for psql
    if pq.PQstatus(conn) != 0:
        sys.exit(f"libpq: {pq.PQerrorMessage(conn).decode()}")
    PGRES_COMMAND_OK, PGRES_TUPLES_OK = 1, 2

    def run(sql, binary):
        res = pq.PQexecParams(conn, sql.encode(), 0, None, None, None, None, 1) if binary \
            else pq.PQexec(conn, sql.encode())
        ok = pq.PQresultStatus(res) in (PGRES_COMMAND_OK, PGRES_TUPLES_OK)
        err = None if ok else pq.PQresultErrorMessage(res).decode()
        pq.PQclear(res)
        if err:
            sys.exit(f"libpq: {err}in: {sql}")

    for s in args.setup:
        run(s, False)
    times = []
    for _ in range(args.warmup + args.rounds):
        for sql in queries:
            *settings, timed = [part.strip() for part in sql.split(";") if part.strip()]
            for x in settings:
                run(x, False)
            start = time.perf_counter()
            run(timed, True)
            times.append((time.perf_counter() - start) * 1000.0)
    pq.PQfinish(conn)
    return times[len(queries) * args.warmup:]


def psql_times(args, queries):
    """Every timed round's times in ms, from psql's \\timing, and the backend's CPU ms of each (or None)."""
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
    spent = None
    if cpu_file:
        ns = [int(line) for line in open(cpu_file).read().split()]
        os.unlink(cpu_file)
        spent = [(ns[2 * k + 1] - ns[2 * k]) / 1e6 for k in range(len(ns) // 2)][n * args.warmup:]
        spent = spent if len(spent) == len(times) else None
    return times, spent


def report(args, labels, times, spent):
    """The medians and ratios, printed and (--json) written."""
    n = len(labels)
    medians = [statistics.median(times[i::n]) for i in range(n)]
    cpu = [statistics.median(spent[i::n]) for i in range(n)] if spent else None
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
