#!/usr/bin/env python3
"""Before and after: two results folders of bench/run.sh side by side, as markdown.

Usage: bench/compare.py bench/results/<before> bench/results/<after>

Per scale and scenario (SQLite setup): the median req/s and p99 of each folder, each with its
share of the nginx ceiling measured in its own run, and after / before. Shares are what to
compare when the two runs met a different machine (nginx's ceiling moves with the host's load);
the drain of each write scenario (its slowest run) follows, from each folder's outbox.csv.
"""
import csv
import os
import sys

from report import DESCRIPTIONS, ORDER, WRITES, fmt, medians, pct


def drains(folder):
    path = os.path.join(folder, "outbox.csv")
    worst = {}
    for r in csv.DictReader(open(path)) if os.path.exists(path) else []:
        k = (r["scale"], r["scenario"])
        if k not in worst or float(r["drain_s"]) > float(worst[k]["drain_s"]):
            worst[k] = r
    return worst


def main():
    before_dir, after_dir = sys.argv[1], sys.argv[2]
    before, after = medians(before_dir), medians(after_dir)
    drained = drains(before_dir), drains(after_dir)
    out = []
    for scale in ("small", "large", "small-social", "large-social"):
        names = [n for n in ORDER if (scale, "sqlite", n) in before and (scale, "sqlite", n) in after]
        if not names:
            continue
        ceiling = [m.get((scale, "sqlite", "nginx"), {}).get("rps") for m in (before, after)]
        out.append(f"### {scale}: before and after\n")
        out.append("| scenario | before req/s | share | p99 ms | after req/s | share | p99 ms | after / before |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name in names:
            b, a = before[(scale, "sqlite", name)], after[(scale, "sqlite", name)]
            share = [m["rps"] / c if c and name != "nginx" else None for m, c in ((b, ceiling[0]), (a, ceiling[1]))]
            out.append(f"| {DESCRIPTIONS.get(name, name)} | {fmt(b['rps'])} | {pct(share[0])} | {fmt(b['p99'], 2)} | "
                       f"{fmt(a['rps'])} | {pct(share[1])} | {fmt(a['p99'], 2)} | {pct(a['rps'] / b['rps'])} |")
        rows = [(name, drained[0].get((scale, name)), drained[1].get((scale, name))) for name in WRITES]
        rows = [r for r in rows if r[1] and r[2]]
        if rows:
            out.append("\n| write scenario (slowest run) | backlog before | drained in | backlog after | drained in |")
            out.append("|---|---:|---:|---:|---:|")
            for name, b, a in rows:
                out.append(f"| {name} | {int(b['backlog']):,} | {float(b['drain_s']):.1f} s | {int(a['backlog']):,} | {float(a['drain_s']):.1f} s |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
