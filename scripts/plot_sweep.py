#!/usr/bin/env python3
"""Plots of a sweep's results table (suitsim sweep, docs/sweeps.md).

Reads results.csv alone: for every numeric parameter column, each
approach's relative stiffness error against it (mean over the points that
share the value, bars from the smallest to the largest), one panel per
suit and group; and the distribution of every approach's error over all
points. Writes <prefix><name>.png files.
"""
import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--out-prefix", required=True)
    args = ap.parse_args()
    with open(args.table, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    status = header.index("status")
    params = []
    for c in range(2, len(header)):
        if header[c] in ("seed", "status"):
            break
        params.append(c)
    errors = [c for c, h in enumerate(header) if h.endswith(".relative_error")]
    ok = [r for r in body if r[status] == "ok"]
    if not errors:
        print("no error columns in the table", file=sys.stderr)
        return 1
    # Panels: suit.group; lines: approaches, each in one colour everywhere.
    methods = []
    for c in errors:
        m = header[c].split(".")[2]
        if m not in methods:
            methods.append(m)
    colour = {m: "C%d" % i for i, m in enumerate(methods)}
    panels = {}
    for c in errors:
        suit, group, method = header[c].split(".")[:3]
        panels.setdefault(suit + " " + group, []).append((method, c))

    for p in params:
        values = [number(r[p]) for r in ok]
        if not ok or any(v is None for v in values) or len(set(values)) < 2:
            continue  # words (a robot file, a routing name) or held fixed: the summary's tables show them
        fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
        for ax, (title, series) in zip(axes[0], panels.items()):
            for method, c in series:
                by_value = {}
                for r, v in zip(ok, values):
                    e = number(r[c])
                    if e is not None:
                        by_value.setdefault(v, []).append(100.0 * e)
                xs = sorted(by_value)
                if not xs:
                    continue
                mean = [sum(by_value[x]) / len(by_value[x]) for x in xs]
                lo = [m - min(by_value[x]) for x, m in zip(xs, mean)]
                hi = [max(by_value[x]) - m for x, m in zip(xs, mean)]
                ax.errorbar(xs, mean, yerr=[lo, hi], marker="o", ms=3, capsize=2, label=method, color=colour[method])
            ax.axhspan(-1.0, 1.0, color="0.9", zorder=0)
            ax.axhline(0.0, color="0.5", lw=0.8)
            ax.set_title(title)
            ax.set_xlabel(header[p])
            ax.set_ylabel("stiffness error (%)")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.out_prefix + "error_vs_" + header[p] + ".png", dpi=110)
        plt.close(fig)

    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (title, series) in zip(axes[0], panels.items()):
        for method, c in series:
            es = [100.0 * number(r[c]) for r in ok if number(r[c]) is not None]
            if es:
                ax.hist(es, bins=min(30, max(5, len(es) // 3)), alpha=0.5, label=method, color=colour[method])
        ax.axvspan(-1.0, 1.0, color="0.9", zorder=0)
        ax.set_title(title)
        ax.set_xlabel("stiffness error (%)")
        ax.set_ylabel("points")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out_prefix + "error_distribution.png", dpi=110)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
