#!/usr/bin/env python3
"""Turns Courier's benchmark runs into one table of ratios, Courier / baseline.

    Benchmarks/scripts/bench_report.py [--probe FILE] [--e2e FILE] [--machine TEXT] [ROUND.influx.csv ...]

Each CSV is one run of `swift package --package-path Benchmarks benchmark --format influx` (the build and decode
benchmarks). Benchmarks are named `<group>.<variant>`; the `baseline` variant of a group is the code Courier
replaces, measured in the same run. For every other variant and every run, the script takes the median sample
(p50) of Courier and of the baseline and their ratio; the table shows the median of those per-run ratios (and of
the p50s), and under Spread their range.

--e2e is the JSON written by `CourierE2E --json` (Benchmarks/Sources/CourierE2E): per concurrency and side, the
time of every block of the side and of the raw URLSession block timed next to it in the same round. Its rows
show the median of the per-round throughput ratios (raw block time / side block time, > 1 = Courier faster)
and under Spread their range.

--probe is the output of scripts/typecheck-probe, whose "ratio N.NNx" line becomes the compile-time row.
"""

import json

import argparse
import csv
import re
import statistics
import sys
from collections import defaultdict

WALL = "Time(wallclock)"
MALLOCS = "Malloc(total)"

# (group prefix, target text, check) -- check(ratio or extra) -> bool
TIME_TARGETS = {
    "build": ("≤ 1.05×", lambda r: r <= 1.05),
    "decode": ("≤ 1.03×", lambda r: r <= 1.03),
}
MALLOC_TARGET = ("≤ +2", lambda extra: extra <= 2)
# Cache hits and a call refused by an open circuit have absolute targets on Courier's own time (the baseline,
# URLCache or a call answered at once, is there for comparison).
ABSOLUTE_TARGETS = {
    "cache.memory-hit": ("≤ 5 µs", 5e3),
    "cache.disk-hit": ("≤ 200 µs", 200e3),
    "governor.open-circuit": ("≤ 1 ms", 1e6),
}


def e2e_target(side):
    """The target of an end-to-end side; sides that only help read the others (diagnostics) have none."""
    if side == "courier":
        return ("≥ 0.97×", lambda r: r >= 0.97)
    if "plugin" in side:
        return ("≥ 0.95×", lambda r: r >= 0.95)
    return ("", None)


def read_run(path):
    """{benchmark name: {metric: p50 value}} for one influx CSV."""
    results = defaultdict(dict)
    with open(path, newline="", encoding="utf-8") as file:
        rows = [line for line in file if not line.startswith("#")]
    for row in csv.DictReader(rows):
        if float(row["percentile"]) == 50.0:
            results[row["test"]][row["metric"]] = float(row["value"])
    return results


def split(name):
    group, _, variant = name.rpartition(".")
    return group, variant


def time_text(nanoseconds):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if nanoseconds >= scale:
            return f"{nanoseconds / scale:.3g} {unit}"
    return f"{nanoseconds:.0f} ns"


def verdict(ok):
    return "yes" if ok else "**no**"


def build_rows(runs):
    pairs = defaultdict(lambda: defaultdict(list))  # (group, variant) -> measure -> values per run
    order = []
    for run in runs:
        for name, metrics in run.items():
            group, variant = split(name)
            if variant == "baseline" or f"{group}.baseline" not in run or group.startswith("e2e."):
                continue
            baseline = run[f"{group}.baseline"]
            key = (group, variant)
            if key not in order:
                order.append(key)
            if WALL in metrics and WALL in baseline:
                pairs[key]["time"].append(metrics[WALL])
                pairs[key]["base_time"].append(baseline[WALL])
                pairs[key]["time_ratio"].append(metrics[WALL] / baseline[WALL])
            if MALLOCS in metrics and MALLOCS in baseline:
                pairs[key]["mallocs"].append(metrics[MALLOCS])
                pairs[key]["base_mallocs"].append(baseline[MALLOCS])
                pairs[key]["extra"].append(metrics[MALLOCS] - baseline[MALLOCS])

    category_order = {"build": 0, "decode": 1, "cache": 2, "governor": 3}
    group_order = ["build.void-get", "build.query-get", "build.json-post", "build.path-header-query",
                   "decode.2kb", "decode.200kb", "cache.memory-hit", "cache.disk-hit", "cache.memory-call",
                   "cache.disk-call"]
    order.sort(key=lambda key: (category_order.get(key[0].split(".")[0], 9),
                                group_order.index(key[0]) if key[0] in group_order else 99, key[0], key[1]))

    rows = []
    for group, variant in order:
        series = pairs[(group, variant)]
        values = {measure: statistics.median(values) for measure, values in series.items()}
        category = group.split(".")[0]
        label = group if variant == "courier" else f"{group} ({variant})"
        if "time_ratio" in values:
            target, check = TIME_TARGETS.get(category, ("", lambda r: True))
            ratio = values["time_ratio"]
            ok = check(ratio)
            if group in ABSOLUTE_TARGETS:
                target, limit = ABSOLUTE_TARGETS[group]
                ok = values["time"] <= limit
            rows.append((label, "wall time", time_text(values["time"]), time_text(values["base_time"]),
                         f"{ratio:.3f}×", spread(series["time_ratio"]), target,
                         verdict(ok) if target else ""))
        if category == "build" and "extra" in values:
            target, check = MALLOC_TARGET
            extra = values["extra"]
            rows.append((label, "mallocs", f"{values['mallocs']:.0f}", f"{values['base_mallocs']:.0f}",
                         f"{extra:+.0f}", "", target, verdict(check(extra))))
    return rows


def spread(ratios, unit="runs"):
    """The range of the per-run (or per-round) ratios, which shows how noisy the runs were."""
    if len(ratios) < 2:
        return ""
    text = f"{min(ratios):.2f}–{max(ratios):.2f}"
    return text if unit == "runs" else f"{text} ({len(ratios)} {unit})"


def e2e_rows(path):
    """Rows of the end-to-end comparison: Courier and raw URLSession alternated in rounds in one process."""
    with open(path, encoding="utf-8") as file:
        report = json.load(file)
    results = sorted(report["results"], key=lambda result: result["concurrency"])  # sides keep their order
    rows, cpu_rows = [], []
    for result in results:
        raw, side = result["raw_seconds"], result["side_seconds"]
        if not raw or len(raw) != len(side):
            continue
        calls = result["calls_per_block"]
        ratios = [r / s for r, s in zip(raw, side)]
        ratio = statistics.median(ratios)
        label = result["group"] if result["side"] == "courier" else f"{result['group']} ({result['side']})"
        target, check = e2e_target(result["side"])
        rows.append((label, "throughput, alternating", time_text(statistics.median(side) / calls * 1e9) + "/call",
                     time_text(statistics.median(raw) / calls * 1e9) + "/call", f"{ratio:.3f}×",
                     spread(ratios, "rounds"), target, verdict(check(ratio)) if check else ""))
        # The process's CPU time per call over the same blocks: less sensitive to other work on the machine than
        # wall time, and what the executor's own work costs. Shown for plain Courier, without a target.
        raw_cpu, side_cpu = result.get("raw_cpu_seconds", []), result.get("side_cpu_seconds", [])
        if result["side"] == "courier" and raw_cpu and len(raw_cpu) == len(side_cpu):
            cpu_ratios = [r / s for r, s in zip(raw_cpu, side_cpu)]
            cpu_rows.append((label, "CPU time, alternating", time_text(statistics.median(side_cpu) / calls * 1e9)
                             + "/call", time_text(statistics.median(raw_cpu) / calls * 1e9) + "/call",
                             f"{statistics.median(cpu_ratios):.3f}×", spread(cpu_ratios, "rounds"), "", ""))
    return rows + cpu_rows, report


def probe_rows(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    match = re.search(r"Courier ([\d.]+)s, minimal wrapper ([\d.]+)s,\s+ratio ([\d.]+)x", text)
    if not match:
        return [("compile.500-endpoints", "type-check", "?", "?", "failed", "", "≈ 1×", "**no**")]
    courier, minimal, ratio = (float(group) for group in match.groups())
    slow = "no expression or function body over" not in text
    rows = [("compile.500-endpoints", "type-check", f"{courier:.2f} s", f"{minimal:.2f} s", f"{ratio:.2f}×",
             "best of 3", "≈ 1×", verdict(ratio <= 1.25))]
    rows.append(("compile.500-endpoints", "slowest expression", "over 50 ms" if slow else "under 50 ms", "",
                 "", "", "≤ 50 ms", verdict(not slow)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="influx CSV exports, one per run")
    parser.add_argument("--probe", help="output of scripts/typecheck-probe")
    parser.add_argument("--e2e", help="JSON written by CourierE2E --json")
    parser.add_argument("--machine", help="a line naming the date and machine, printed above the table")
    args = parser.parse_args()

    runs = [read_run(path) for path in args.runs]
    rows = build_rows(runs)
    e2e = None
    if args.e2e:
        more, e2e = e2e_rows(args.e2e)
        rows += more
    if args.probe:
        rows += probe_rows(args.probe)
    if not rows:
        print("bench_report: no benchmark pairs found", file=sys.stderr)
        return 1

    header = ("Benchmark", "Measure", "Courier", "Baseline", "Courier / baseline", "Spread", "Target", "Met")
    if args.machine:
        print(args.machine)
        print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * 4 + ["---"] * 2) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    if runs:
        print(f"build, decode: median of {len(runs)} run(s) of ordo-one/benchmark; each figure is the median "
              "sample of its benchmark in a run, Spread the range of the per-run ratios. Baselines: hand-written "
              "URLComponents + JSONEncoder (build), JSONDecoder().decode (decode).")
    if e2e:
        print(f"e2e: Courier and raw URLSession.data(for:) + JSONDecoder().decode alternated in one process "
              f"(GET of {e2e['bytes']} bytes of JSON from nginx on loopback): {e2e['rounds']} rounds after "
              f"{e2e['warmup_rounds']} warm-up, each timing a block of raw and a block of the side back to back in "
              "ABBA order; the ratio is the median of the per-round throughput ratios (raw block time / side block "
              "time, > 1 = Courier faster), Spread their range; times are per call (block time / calls, with "
              "32 calls in flight at c32); CPU time is the whole process's (all threads) over the same blocks, its "
              "ratio raw / Courier. Sides: courier = the default URLSessionExecutor.shared; courier-3-plugins = "
              "with three no-op plugins; courier-data-for = over an executor that only calls "
              "URLSession.data(for:) (diagnostic: executor vs pipeline cost); raw-again = raw against itself "
              "(control: shows the noise).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
