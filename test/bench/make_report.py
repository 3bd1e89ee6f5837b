#!/usr/bin/env python3
"""make_report.py: turns one run of run_benchmarks.sh into its results files.

    make_report.py WORK_DIR PREFIX      writes PREFIX.md, PREFIX.csv, PREFIX-*.png

WORK_DIR holds what run_benchmarks.sh left: meta.tsv (key, value: the
machine and the settings), groups.tsv (section, table, rows, distribution,
JSON file: one line per sql_timing.py call), the JSON files that
sql_timing.py --json wrote (labels METHOD/NBINS/WORKERS), and, on a GPU
machine, kernel.csv (kernel_bench's stdout) and startup.csv.  It is kept
apart from the runner so that a report can be made again from raw results
without timing anything.  Ratios are computed here, always against count(x)
from the same sql_timing.py call and the same worker count, so that every
ratio comes from one interleaved run.  Plots need matplotlib; without it the
report says so and has none.
"""
import csv
import json
import os
import statistics
import sys

METHODS = ["count", "width_bucket", "gh_cpu", "gh_gpu"]
NAMES = {"count": "count(x)", "width_bucket": "GROUP BY width_bucket",
         "gh_cpu": "gpu_histogram, device=cpu", "gh_gpu": "gpu_histogram, device=gpu",
         "gh_agg_cpu": "aggregate (scan off), device=cpu", "gh_agg_gpu": "aggregate (scan off), device=gpu",
         "gh_moving": "gpu_histogram OVER w (moving)", "gh_plain": "1.0's gpu_histogram OVER w (no inverse)",
         "union_hist": "shards, UNION ALL", "parted_hist": "shards, partitioned table",
         "union_heatmap": "heatmap, UNION ALL", "parted_heatmap": "heatmap, partitioned table",
         "parted_heatmap_rows_travel": "heatmap, partitioned table, rows to the coordinator"}
# The custom scan section: the scan against the aggregate over the ordinary plan.
SCAN_METHODS = ["width_bucket", "gh_agg_cpu", "gh_cpu", "gh_agg_gpu", "gh_gpu"]
# The uint8 workload's figures as published for an H100 (the table).
PUBLISHED_UINT8_MS = {"global atomics": 276.0, "shared atomics": 1.53,
                      "shared atomics, 16B loads": 0.47, "cub HistogramEven": 0.50}


def rows_name(n):
    n = int(n)
    for unit, div in (("M", 1_000_000), ("k", 1_000)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def ms(x):
    return "" if x is None else (f"{x:.1f}" if x >= 10 else f"{x:.2f}")


def cell(m, base):
    """'123.4 (2.15x)': a median and its ratio to count(x)."""
    if m is None:
        return "–"
    return f"{ms(m)} ({m / base:.2f}×)" if base else ms(m)


def speedup(slow, fast):
    return f"{slow / fast:.2f}×" if slow and fast else "–"


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def load_sql(work):
    """One record per timed query: the group it was timed in, and its medians."""
    records = []
    for gid, (section, table, nrows, dist, jfile) in enumerate(read_tsv(os.path.join(work, "groups.tsv"))):
        with open(os.path.join(work, jfile)) as f:
            data = json.load(f)
        for label, r in data.items():
            method, nbins, workers = label.split("/")
            records.append(dict(group=gid, section=section, table=table, rows=int(nrows), distribution=dist,
                                method=method, nbins=int(nbins), workers=int(workers),
                                median_ms=r["median_ms"], runs_ms=r["runs_ms"]))
    for r in records:  # the base: count(x) of the same call, same workers
        base = [b for b in records if b["group"] == r["group"] and b["method"] == "count"
                and b["workers"] == r["workers"]]
        r["ratio"] = r["median_ms"] / base[0]["median_ms"] if base else None
    return records


def pick(records, **kw):
    found = [r for r in records if all(r[k] == v for k, v in kw.items())]
    return found[0]["median_ms"] if found else None


def load_kernel(work):
    path = os.path.join(work, "kernel.csv")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    rows = []
    with open(path) as f:
        lines = f.read().splitlines()
    # kernel_bench prints its kernel names unquoted, and one has a comma
    # ("shared atomics, 16B loads"): take four fields from the left and three
    # from the right, and the kernel name is what lies between.
    for line in lines[1:]:
        parts = line.split(",")
        if len(parts) < 8:
            continue
        section, typ, inp, nbins = parts[:4]
        rows.append(dict(section=section, type=typ, input=inp, nbins=int(nbins), kernel=",".join(parts[4:-3]),
                         ms=float(parts[-3]), GBps=float(parts[-2]), fraction_of_read_ceiling=float(parts[-1])))
    return rows


def load_startup(work):
    """{case: {'1': [ms...], '2': [...], 'cuda_startup_ms': [...]}} in file order."""
    path = os.path.join(work, "startup.csv")
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines()[1:]:
                # case,session,query,ms; the case may hold commas
                case, _, query, value = line.rsplit(",", 3)
                out.setdefault(case, {}).setdefault(query, []).append(float(value))
    return out


def median(xs):
    return statistics.median(xs) if xs else None


# Markdown ------------------------------------------------------------------

def md_header(meta, prefix):
    sb = int(meta.get("shared_buffers_bytes") or 0)
    tb = int(meta.get("table_bytes") or 0)
    fits = "" if not sb or tb <= sb else " **(tables larger than shared_buffers: some reads come from the OS cache)**"
    workers = ", ".join(f"{w} (launched {meta.get('workers_launched_' + w, '?')})"
                        for w in meta.get("workers", "").split())
    lines = [
        f"# gpu_histogram benchmark: {meta.get('date')}, {meta.get('label')}, {meta.get('device')}",
        "",
        f"* date: {meta.get('started')}; run time {int(meta.get('runtime_s', 0)) // 60} min "
        f"{int(meta.get('runtime_s', 0)) % 60} s",
        f"* machine: {meta.get('host')}: {meta.get('nproc')} cores (`nproc`), {meta.get('cpu')}, "
        f"{meta.get('ram')} RAM",
        f"* PostgreSQL: {meta.get('postgres')} ({meta.get('server')} server)",
        f"* device: {meta.get('gpu', 'none')}" + ("" if meta.get("sql_gpu") == "yes"
                                                 else f" (from SQL: {meta.get('gpu_status', '?')})"),
        f"* command: `{meta.get('command')}`",
        f"* settings: shared_buffers {meta.get('shared_buffers')} (tables {tb / 2**20:.0f} MB, "
        f"pg_prewarm: {meta.get('prewarm')}){fits}, jit off, work_mem {meta.get('work_mem')}, "
        f"parallel_setup_cost = parallel_tuple_cost = min_parallel_table_scan_size = 0; "
        f"workers: {workers}",
        f"* method: each table below is one `sql_timing.py` call: its queries run interleaved in one "
        f"psql session, 1 warm-up round, then the median of {meta.get('rounds')} rounds. "
        f"(×) is the ratio to `count(x)` on the same table with the same workers, from the same call. "
        f"Results go back to psql, which discards them.",
        "* queries (t: the table, n: nbins): `SELECT count(x) FROM t`; "
        "`SELECT width_bucket(x, 0, 1, n), count(*) FROM t GROUP BY 1`; "
        "`SELECT gpu_histogram(x, 0, 1, n) FROM t` after `SET gpu_histogram.device = cpu` (or `gpu`). "
        "Tables (float8 x, unlogged): uniform `random()`; normal: Box-Muller from `random()` after "
        "`setseed(0.42)`, mean 0.5, sd 0.125; constant: every x = 0.5.",
    ]
    if meta.get("quick") == "yes":
        lines.append("* **--quick run: a smoke test of the plumbing; its numbers mean little.**")
    return lines + [""]


def md_table_head(columns):
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def md_sql(records, meta):
    out = []
    gpu = any(r["method"] == "gh_gpu" for r in records)
    methods = METHODS if gpu else METHODS[:3]
    head_methods = [NAMES[m] + " ms (×)" for m in methods[1:]]

    dist = [r for r in records if r["section"] == "distributions"]
    if dist:
        out += ["## 1. Distributions: nbins 256, serial", ""]
        out += md_table_head(["rows", "distribution", "count(x) ms"] + head_methods + ["GROUP BY ÷ gpu_histogram cpu"]
                             + (["GROUP BY ÷ gpu_histogram gpu"] if gpu else []))
        for g in sorted({r["group"] for r in dist}):
            rs = [r for r in dist if r["group"] == g]
            base = pick(rs, method="count")
            wb, cpu, gg = (pick(rs, method=m) for m in ("width_bucket", "gh_cpu", "gh_gpu"))
            row = [rows_name(rs[0]["rows"]), rs[0]["distribution"], ms(base)]
            row += [cell(pick(rs, method=m), base) for m in methods[1:]]
            row += [speedup(wb, cpu)] + ([speedup(wb, gg)] if gpu else [])
            out.append("| " + " | ".join(row) + " |")
        out.append("")

    nb = [r for r in records if r["section"] == "nbins"]
    if nb:
        base = pick(nb, method="count")
        out += [f"## 2. Number of buckets: uniform, {rows_name(nb[0]['rows'])} rows, serial", "",
                f"count(x): {ms(base)} ms.", ""]
        out += md_table_head(["nbins"] + head_methods + ["GROUP BY ÷ gpu_histogram cpu"]
                             + (["GROUP BY ÷ gpu_histogram gpu"] if gpu else []))
        for n in sorted({r["nbins"] for r in nb if r["method"] != "count"}):
            row = [f"{n:,}"] + [cell(pick(nb, method=m, nbins=n), base) for m in methods[1:]]
            for m in ["gh_cpu"] + (["gh_gpu"] if gpu else []):
                row.append(speedup(pick(nb, method="width_bucket", nbins=n), pick(nb, method=m, nbins=n)))
            out.append("| " + " | ".join(row) + " |")
        out.append("")

    wk = [r for r in records if r["section"] == "workers"]
    if wk:
        out += [f"## 3. Parallel workers: uniform, {rows_name(wk[0]['rows'])} rows, nbins 256", "",
                "Speed-up: the serial median divided by this one, per query.", ""]
        out += md_table_head(["workers", "count(x) ms"] + head_methods
                             + ["speed-up count(x)", "speed-up gpu_histogram cpu"]
                             + (["speed-up gpu_histogram gpu"] if gpu else []))
        for w in sorted({r["workers"] for r in wk}):
            base = pick(wk, method="count", workers=w)
            row = [str(w), ms(base)] + [cell(pick(wk, method=m, workers=w), base) for m in methods[1:]]
            for m in ["count", "gh_cpu"] + (["gh_gpu"] if gpu else []):
                row.append(speedup(pick(wk, method=m, workers=0), pick(wk, method=m, workers=w)))
            out.append("| " + " | ".join(row) + " |")
        out.append("")

    gr = [r for r in records if r["section"] == "groups"]
    if gr:
        base = pick(gr, method="count")
        out += [f"## 4. 100,000 groups: {rows_name(gr[0]['rows'])} rows, nbins 256, serial", "",
                "| query | ms (×count(x)) |", "|---|---|",
                f"| `SELECT count(x) FROM t` | {ms(base)} |",
                f"| `SELECT g, width_bucket(x, 0, 1, 256), count(*) FROM t GROUP BY 1, 2` | "
                f"{cell(pick(gr, method='width_bucket'), base)} |",
                f"| `SELECT g, gpu_histogram(x, 0, 1, 256) FROM t GROUP BY g`, device=cpu | "
                f"{cell(pick(gr, method='gh_cpu'), base)} |"]
        if gpu:
            out.append(f"| the same, device=gpu | {cell(pick(gr, method='gh_gpu'), base)} |")
        out.append("")

    mw = [r for r in records if r["section"] == "window"]
    if mw:
        base, moving, plain = (pick(mw, method=m) for m in ("count", "gh_moving", "gh_plain"))
        out += [f"## 4b. Moving window: {rows_name(mw[0]['rows'])} rows, nbins 64, serial", "",
                "`w` is `(ORDER BY i ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW)`; each query is "
                "`SELECT max(...) FROM (SELECT ... OVER w FROM t) s`, so that no million rows go to the client. "
                "1.0's aggregate is the same one without its moving functions, created by the benchmark.", "",
                "| query | ms (×count(x) OVER w) |", "|---|---|",
                f"| `count(x) OVER w` (PostgreSQL's own moving aggregate) | {ms(base)} |",
                f"| `gpu_histogram(x, 0, 1, 64) OVER w`: adds and removes one row per row | {cell(moving, base)} |",
                f"| the same through 1.0's aggregate: every frame aggregated again | {cell(plain, base)} |",
                "", f"Moving against 1.0: {speedup(plain, moving)} faster.", ""]

    sh = [r for r in records if r["section"] == "shards"]
    if sh:
        hist, heat = pick(sh, method="union_hist"), pick(sh, method="union_heatmap")
        out += [f"## 4c. Shards over postgres_fdw: {rows_name(sh[0]['rows'])} rows", "",
                "`test/fdw/run_shard_checks.sh --bench`: shard servers and a coordinator on this machine, "
                "connected over 127.0.0.1, each server serial (max_parallel_workers_per_gather = 0), the rows "
                "split by a range on `ts`. Times are the coordinator's, in one session.", "",
                "| query | ms (×the hand-written UNION ALL) |", "|---|---|",
                f"| `gpu_histogram_merge` over the `UNION ALL` of the shards' `gpu_histogram(x, 0, 1, 256)` | {ms(hist)} |",
                f"| `gpu_histogram(x, 0, 1, 256)` over the partitioned table | {cell(pick(sh, method='parted_hist'), hist)} |",
                f"| the hourly heatmap of two weeks, `UNION ALL` of the shards' `date_bin` groups | {ms(heat)} |",
                f"| the same through the partitioned table, `date_trunc('hour', ts)` | "
                f"{cell(pick(sh, method='parted_heatmap'), heat)} |",
                f"| the same as it was planned before: every row to the coordinator | "
                f"{cell(pick(sh, method='parted_heatmap_rows_travel'), heat)} |", ""]

    sc = [r for r in records if r["section"] == "scan"]
    if sc:
        methods = [m for m in SCAN_METHODS if any(r["method"] == m for r in sc)]
        out += ["## 5. The custom scan: nbins 256", "",
                "gpu_histogram with GpuHistogramScan (scan on, the default) and as an aggregate over the "
                "ordinary plan (scan off); ratios to count(x) of the same table, clause and workers.", ""]
        out += md_table_head(["case", "rows", "count(x) ms"] + [NAMES[m] + " ms (×)" for m in methods]
                             + ["GROUP BY ÷ scan cpu"])
        for g in sorted({r["group"] for r in sc}):
            rs = [r for r in sc if r["group"] == g]
            base = pick(rs, method="count")
            row = [rs[0]["distribution"], rows_name(rs[0]["rows"]), ms(base)] + [cell(pick(rs, method=m), base) for m in methods]
            row.append(speedup(pick(rs, method="width_bucket"), pick(rs, method="gh_cpu")))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


FORM_NAMES = {"wb_time": "`GROUP BY width_bucket((extract(epoch FROM ts) * 1000000)::numeric, ...)`",
              "gh_time_cpu": "`gpu_histogram(ts, lo, hi, n)`, device=cpu",
              "gh_time_gpu": "`gpu_histogram(ts, lo, hi, n)`, device=gpu",
              "wb_thresholds": "`GROUP BY width_bucket(x, thresholds)`",
              "gh_thresholds_cpu": "`gpu_histogram(x, thresholds)`, device=cpu",
              "gh_thresholds_gpu": "`gpu_histogram(x, thresholds)`, device=gpu"}


def md_forms(records):
    """The time and threshold forms against their GROUP BY references."""
    fm = [r for r in records if r["section"] == "forms"]
    if not fm:
        return []
    base = pick(fm, method="count")
    out = [f"## Time and threshold forms: {rows_name(fm[0]['rows'])} rows, serial", "",
           f"count(ts): {ms(base)} ms. Buckets: 1,440 minutes of a day; thresholds: 10 latency bins, "
           "and 100,000.", "", "| query | buckets | ms (×count) | GROUP BY ÷ this |", "|---|---|---|---|"]
    for r in fm:
        if r["method"] == "count":
            continue
        ref = pick(fm, method="wb_time" if "time" in r["method"] else "wb_thresholds", nbins=r["nbins"])
        out.append(f"| {FORM_NAMES.get(r['method'], r['method'])} | {r['nbins']:,} | {cell(r['median_ms'], base)} | "
                   f"{speedup(ref, r['median_ms']) if not r['method'].startswith('wb_') else ''} |")
    return out + [""]


def md_summary(records):
    """The headline: the largest uniform table, nbins 256, serial."""
    dist = [r for r in records if r["section"] == "distributions" and r["distribution"] == "uniform"]
    if not dist:
        return []
    n = max(r["rows"] for r in dist)
    rs = [r for r in dist if r["rows"] == n]
    c, wb, cpu, gg = (pick(rs, method=m) for m in METHODS)
    line = (f"**Headline ({rows_name(n)} uniform rows, nbins 256, serial):** `gpu_histogram` with "
            f"device=cpu takes {cpu / c:.2f}× the time of `count(x)` and is {wb / cpu:.2f}× faster than "
            f"`GROUP BY width_bucket` ({wb / c:.2f}× count(x))")
    if gg:
        line += f"; with device=gpu it takes {gg / c:.2f}× count(x), {wb / gg:.2f}× faster than GROUP BY"
    return [line + ".", ""]


def md_kernel(kernel, meta):
    if not kernel:
        if meta.get("gpu", "none") == "none":
            return ["## 6. GPU", "", "GPU: none on this machine; see the h100 results file.", ""]
        return ["## 6. GPU kernels", "", f"Kernel benchmark: {meta.get('kernel', 'not run')}.", ""]
    out = ["## 6. GPU kernels (kernel_bench, device-resident data)", "",
           f"{meta.get('gpu')}. Median of 15 runs after 3 warm-ups (CUDA events); GB/s of input read; "
           "% of the read ceiling (cub::DeviceReduce::Sum over the same data).", ""]
    eng = [r for r in kernel if r["section"] == "engine"]
    for typ in dict.fromkeys(r["type"] for r in eng):
        for inp in dict.fromkeys(r["input"] for r in eng if r["type"] == typ):
            rs = [r for r in eng if r["type"] == typ and r["input"] == inp]
            ceil = [r for r in rs if r["nbins"] == 0]
            out += [f"**{typ}, {inp}**" + (f": read ceiling {ceil[0]['GBps']:.0f} GB/s ({ceil[0]['ms']:.3f} ms)"
                                           if ceil else ""), "",
                    "| nbins | gpu_histogram | GB/s (% ceiling) | CUB HistogramEven GB/s (%) | naive global atomics GB/s (%) |",
                    "|---|---|---|---|---|"]
            for n in sorted({r["nbins"] for r in rs if r["nbins"]}):
                def k(pred):
                    f = [r for r in rs if r["nbins"] == n and pred(r["kernel"])]
                    return f[0] if f else None
                ours, cub, naive = (k(lambda s: s.startswith("gpu_histogram")), k(lambda s: s.startswith("cub Hist")),
                                    k(lambda s: s.startswith("naive")))
                fmt = lambda r: f"{r['GBps']:.0f} ({100 * r['fraction_of_read_ceiling']:.0f}%)" if r else "–"
                out.append(f"| {n:,} | {ours['kernel'].split('(')[-1].rstrip(')') if ours else '–'} | "
                           f"{fmt(ours)} | {fmt(cub)} | {fmt(naive)} |")
            out.append("")
    by = [r for r in kernel if r["section"] == "bytes"]
    if by:
        fast = max(by, key=lambda r: r["GBps"])  # the size, from time and rate (best rounded)
        mib = fast["GBps"] * 1e9 * fast["ms"] * 1e-3 / 2**20
        out += [f"**The published uint8 workload** ({by[0]['type']}, 256 bins, about {mib:,.0f} MiB):", "",
                "| kernel | ms here | GB/s here | published H100 ms | here ÷ published |", "|---|---|---|---|---|"]
        for r in by:
            pub = PUBLISHED_UINT8_MS.get(r["kernel"])
            ratio = f"{r['ms'] / pub:.2f}" if pub else "–"
            out.append(f"| {r['kernel']} | {r['ms']:.3f} | {r['GBps']:.0f} | {pub or '–'} | {ratio} |")
        out.append("")
    fm = [r for r in kernel if r["section"] == "forms"]
    if fm:
        out += ["**Time and threshold forms** (int64 microseconds; float8 values against thresholds):", "",
                "| kernel | type | buckets | ms | GB/s (% ceiling) |", "|---|---|---|---|---|"]
        out += [f"| {r['kernel']} | {r['type']} | {r['nbins']:,} | {r['ms']:.3f} | {r['GBps']:.0f} "
                f"({100 * r['fraction_of_read_ceiling']:.0f}%) |" for r in fm]
        out.append("")
    pipe = [r for r in kernel if r["section"] == "pipeline"]
    if pipe:
        out += ["**The engine's pipeline** (host batches of float8 through pinned memory):", "",
                "| what | ms | GB/s |", "|---|---|---|"]
        out += [f"| {r['kernel']} | {r['ms']:.2f} | {r['GBps']:.1f} |" for r in pipe]
        out.append("")
    return out


def md_startup(startup, meta, errors):
    if not startup:
        if meta.get("sql_gpu") == "yes":
            return ["## 7. CUDA start-up", "", "Not measured (not among --sections, or see the run's output).", ""]
        if meta.get("gpu", "none") != "none":
            return ["## 7. CUDA start-up", "", "Not measured: gpu_histogram sees no usable GPU "
                    f"({meta.get('gpu_status', '?')}).", ""]
        return []
    out = ["## 7. CUDA start-up, in fresh sessions", "",
           "Each session is a new psql (a new backend) that runs the same query twice; medians over "
           f"{meta.get('rounds')} sessions. cuda_startup_ms is the GPU service's CUDA start-up (once per service, not per session), from gpu_histogram_stats(). "
           "Parallel workers are new processes in every query, so with device=gpu each of them starts "
           "CUDA in the first and in the second query alike.", "",
           "| session | 1st query ms | 2nd query ms | 1st − 2nd | 1st − device=cpu's 1st | cuda_startup_ms |",
           "|---|---|---|---|---|---|"]
    diff = lambda a, b: ms(a - b) if a is not None and b is not None else "–"
    for case, q in startup.items():
        a, b, s = median(q.get("1", [])), median(q.get("2", [])), median(q.get("cuda_startup_ms", []))
        cpu = startup.get(case.replace("device=gpu", "device=cpu"), {}) if "device=gpu" in case else {}
        out.append(f"| {case} | {ms(a)} | {ms(b)} | {diff(a, b)} | {diff(a, median(cpu.get('1', [])))} | "
                   f"{ms(s) if s is not None else '–'} |")
    if errors:
        out += ["", f"{len(errors)} session(s) failed and are left out; the first: `{errors[0]}`"]
    return out + [""]


# CSV -----------------------------------------------------------------------

CSV_FIELDS = ["part", "section", "table", "rows", "distribution", "type", "workers", "nbins", "query",
              "median_ms", "min_ms", "max_ms", "runs", "ratio_to_count", "gbps", "fraction_of_read_ceiling",
              "published_ms"]


def write_csv(path, records, kernel, startup):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in records:
            w.writerow(dict(part="sql", section=r["section"], table=r["table"], rows=r["rows"],
                            distribution=r["distribution"], type="float8", workers=r["workers"],
                            nbins=r["nbins"] or "", query=NAMES.get(r["method"], FORM_NAMES.get(r["method"], r["method"])),
                            median_ms=f"{r['median_ms']:.3f}", min_ms=f"{min(r['runs_ms']):.3f}",
                            max_ms=f"{max(r['runs_ms']):.3f}", runs=len(r["runs_ms"]),
                            ratio_to_count=f"{r['ratio']:.4f}" if r["ratio"] is not None else ""))
        for r in kernel:
            w.writerow(dict(part="kernel", section=r["section"], distribution=r["input"], type=r["type"],
                            nbins=r["nbins"] or "", query=r["kernel"], median_ms=r["ms"], gbps=r["GBps"],
                            fraction_of_read_ceiling=r["fraction_of_read_ceiling"] or "",
                            published_ms=PUBLISHED_UINT8_MS.get(r["kernel"], "") if r["section"] == "bytes" else ""))
        for case, q in startup.items():
            for which, xs in q.items():
                w.writerow(dict(part="startup", section="cuda_startup", query=f"{case}: "
                                + (f"query {which}" if which.isdigit() else which),
                                median_ms=f"{median(xs):.3f}", min_ms=f"{min(xs):.3f}", max_ms=f"{max(xs):.3f}",
                                runs=len(xs)))


# Plots ---------------------------------------------------------------------

def plots(prefix, records, kernel):
    """Returns [(title, file name)], or a string saying why there are none."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "plots skipped: matplotlib is not installed for this python"
    made = []
    colors = {"count": "0.6", "width_bucket": "tab:red", "gh_cpu": "tab:blue", "gh_gpu": "tab:green"}

    def save(fig, name, title):
        path = f"{prefix}-{name}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)
        made.append((title, os.path.basename(path)))

    dist = [r for r in records if r["section"] == "distributions"]
    if dist:
        groups = sorted({r["group"] for r in dist})
        methods = [m for m in METHODS[1:] if any(r["method"] == m for r in dist)]
        fig, ax = plt.subplots(figsize=(7, 3.6))
        width = 0.8 / len(methods)
        for i, m in enumerate(methods):
            ys = [next((r["ratio"] for r in dist if r["group"] == g and r["method"] == m), 0) for g in groups]
            ax.bar([x + i * width for x in range(len(groups))], ys, width, label=NAMES[m], color=colors[m])
        ax.axhline(1, color="0.4", lw=1, ls="--", label="count(x) = 1")
        labels = [next(f"{rows_name(r['rows'])}\n{r['distribution']}" for r in dist if r["group"] == g)
                  for g in groups]
        ax.set_xticks([x + width * (len(methods) - 1) / 2 for x in range(len(groups))], labels, fontsize=8)
        ax.set_ylabel("time ÷ count(x)")
        ax.set_title("nbins 256, serial: time relative to count(x) (lower is better)", fontsize=10)
        ax.legend(fontsize=8)
        save(fig, "sql-distributions", "SQL: ratio to count(x) by table size and distribution")

    nb = [r for r in records if r["section"] == "nbins"]
    if nb:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        xs = sorted({r["nbins"] for r in nb if r["nbins"]})
        for m in METHODS[1:]:
            pts = [(x, pick(nb, method=m, nbins=x)) for x in xs if pick(nb, method=m, nbins=x)]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=NAMES[m], color=colors[m])
        ax.axhline(pick(nb, method="count"), color="0.4", ls="--", label="count(x)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        # plain numbers at 1, 2, 5 x 10^k: a log axis over one decade has too few labels
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("nbins")
        ax.set_ylabel("median ms")
        ax.set_title(f"uniform, {rows_name(nb[0]['rows'])} rows, serial", fontsize=10)
        ax.legend(fontsize=8)
        save(fig, "sql-nbins", "SQL: time by number of buckets")

    wk = [r for r in records if r["section"] == "workers"]
    if wk and len({r["workers"] for r in wk}) > 1:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        ws = sorted({r["workers"] for r in wk})
        for m in METHODS:
            pts = [(w, pick(wk, method=m, workers=w)) for w in ws if pick(wk, method=m, workers=w)]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=NAMES[m], color=colors[m])
        ax.set_xticks(ws)
        ax.set_xlabel("parallel workers")
        ax.set_ylabel("median ms")
        ax.set_ylim(bottom=0)
        ax.set_title(f"uniform, {rows_name(wk[0]['rows'])} rows, nbins 256", fontsize=10)
        ax.legend(fontsize=8)
        save(fig, "sql-workers", "SQL: time by parallel workers")

    eng = [r for r in kernel if r["section"] == "engine" and r["type"] == "float8"]
    if eng:
        inputs = list(dict.fromkeys(r["input"] for r in eng))
        fig, axes = plt.subplots(1, len(inputs), figsize=(8, 3.4), sharey=True, squeeze=False)
        for ax, inp in zip(axes[0], inputs):
            rs = [r for r in eng if r["input"] == inp]
            for name, pred, color in (("gpu_histogram", "gpu_histogram", "tab:green"),
                                      ("CUB HistogramEven", "cub Hist", "tab:purple"),
                                      ("naive global atomics", "naive", "tab:red")):
                pts = sorted((r["nbins"], r["GBps"]) for r in rs if r["nbins"] and r["kernel"].startswith(pred))
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=name, color=color)
            ceil = [r["GBps"] for r in rs if r["nbins"] == 0]
            if ceil:
                ax.axhline(ceil[0], color="0.4", ls="--", label="read ceiling")
            ax.set_xscale("log")
            ax.set_xlabel("nbins")
            ax.set_title(f"float8, {inp}", fontsize=10)
        axes[0][0].set_ylabel("GB/s read")
        axes[0][0].legend(fontsize=8)
        save(fig, "gpu-kernels", "GPU kernels: GB/s by nbins")
    return made


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work, prefix = sys.argv[1], sys.argv[2]
    meta = dict((r + [""])[:2] for r in read_tsv(os.path.join(work, "meta.tsv")))
    records, kernel, startup = load_sql(work), load_kernel(work), load_startup(work)

    made = plots(prefix, records, kernel)
    lines = md_header(meta, prefix) + md_summary(records) + md_sql(records, meta) + md_forms(records)
    errors_path = os.path.join(work, "startup_errors.txt")
    errors = open(errors_path).read().splitlines() if os.path.exists(errors_path) else []
    lines += md_kernel(kernel, meta) + md_startup(startup, meta, errors)
    lines += ["## Plots", ""]
    if isinstance(made, str):
        lines += [made + ".", ""]
    else:
        lines += [f"![{title}]({name})" + "\n" for title, name in made]
    lines += ["## Files", "", f"* `{os.path.basename(prefix)}.csv`: every median above (and each query's "
              "min, max and rounds), the kernel figures and the start-up times, one row each.", ""]
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines))
    write_csv(prefix + ".csv", records, kernel, startup)
    print(f"wrote {prefix}.md, {prefix}.csv" + ("" if isinstance(made, str) else
                                               "".join(f", {n}" for _, n in made)))
    if isinstance(made, str):
        print(made)


if __name__ == "__main__":
    main()
