#!/usr/bin/env python3
"""Turns Courier's benchmark runs into one table of ratios, Courier / baseline.

    scripts/bench_report.py [--probe FILE] [--machine TEXT] ROUND.influx.csv [ROUND.influx.csv ...]

Each CSV is one run of `swift package --package-path Benchmarks benchmark --format influx`. Benchmarks are
named `<group>.<variant>`; the `baseline` variant of a group is the code Courier replaces, measured in the same
run. For every other variant and every run, the script takes the median sample (p50) of Courier and of the
baseline and their ratio; the table shows the median of those per-run ratios (and of the p50s).

--probe is the output of scripts/typecheck-probe, whose "ratio N.NNx" line becomes the compile-time row.
"""

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


def e2e_target(variant):
    if "plugin" in variant or "wrapper" in variant:
        return ("≥ 0.95×", lambda r: r >= 0.95)
    return ("≥ 0.97×", lambda r: r >= 0.97)


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
            if variant == "baseline" or f"{group}.baseline" not in run:
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

    category_order = {"build": 0, "decode": 1, "e2e": 2}
    group_order = ["build.void-get", "build.query-get", "build.json-post", "build.path-header-query",
                   "decode.2kb", "decode.200kb", "e2e.c1", "e2e.c32"]
    order.sort(key=lambda key: (category_order.get(key[0].split(".")[0], 9),
                                group_order.index(key[0]) if key[0] in group_order else 99, key[0], key[1]))

    rows = []
    for group, variant in order:
        series = pairs[(group, variant)]
        values = {measure: statistics.median(values) for measure, values in series.items()}
        category = group.split(".")[0]
        label = group if variant == "courier" else f"{group} ({variant})"
        if category == "e2e":
            if "time_ratio" not in values:
                continue
            ratios = [1 / r for r in series["time_ratio"]]
            ratio = statistics.median(ratios)
            target, check = e2e_target(variant)
            rows.append((label, "throughput", time_text(values["time"]) + "/batch",
                         time_text(values["base_time"]) + "/batch", f"{ratio:.3f}×", spread(ratios), target,
                         verdict(check(ratio))))
            continue
        if "time_ratio" in values:
            target, check = TIME_TARGETS.get(category, ("", lambda r: True))
            ratio = values["time_ratio"]
            rows.append((label, "wall time", time_text(values["time"]), time_text(values["base_time"]),
                         f"{ratio:.3f}×", spread(series["time_ratio"]), target,
                         verdict(check(ratio)) if target else ""))
        if category == "build" and "extra" in values:
            target, check = MALLOC_TARGET
            extra = values["extra"]
            rows.append((label, "mallocs", f"{values['mallocs']:.0f}", f"{values['base_mallocs']:.0f}",
                         f"{extra:+.0f}", "", target, verdict(check(extra))))
    return rows


def spread(ratios):
    """The range of the per-run ratios, which shows how noisy the runs were."""
    return f"{min(ratios):.2f}–{max(ratios):.2f}" if len(ratios) > 1 else ""


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
    parser.add_argument("runs", nargs="+", help="influx CSV exports, one per run")
    parser.add_argument("--probe", help="output of scripts/typecheck-probe")
    parser.add_argument("--machine", help="a line naming the date and machine, printed above the table")
    args = parser.parse_args()

    runs = [read_run(path) for path in args.runs]
    rows = build_rows(runs)
    if args.probe:
        rows += probe_rows(args.probe)
    if not rows:
        print("bench_report: no benchmark pairs found", file=sys.stderr)
        return 1

    header = ("Benchmark", "Measure", "Courier", "Baseline", "Courier / baseline", "Runs", "Target", "Met")
    if args.machine:
        print(args.machine)
        print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * 4 + ["---"] * 2) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print(f"Median of {len(runs)} run(s); each figure is the median sample of its benchmark in that run, and "
          "Runs is the range of the per-run ratios. "
          "Baselines: hand-written URLComponents + JSONEncoder (build), JSONDecoder().decode (decode), "
          "URLSession.data(for:) + JSONDecoder (e2e).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
