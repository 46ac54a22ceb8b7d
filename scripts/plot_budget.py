#!/usr/bin/env python3
"""Bar charts of an error budget (suitsim budget, docs/realism.md).

Reads budget.json alone: per error source, each approach's mean |error|
over the bands with its 95 % confidence interval over the seeds
(<prefix>mean_abs_error.png), and each band group's signed error
(<prefix>bands.png). Not identifiable cells are left out, and marked.
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(key):
    ev, _, method = key.rpartition("/")
    name = {"approach_a": "A", "approach_b": "B", "apriori": "a priori"}.get(method, method)
    return name + (" (" + ev + ")" if ev else "")


def bars(ax, sources, keys, cell_of, signed):
    width = 0.8 / max(1, len(keys))
    tops, lows, means = [], [], []
    for k, key in enumerate(keys):
        xs, ys, err, missing = [], [], [], []
        for i, source in enumerate(sources):
            c = cell_of(source, key)
            x = i + (k - (len(keys) - 1) / 2.0) * width
            if c is None or not c["n"]:
                missing.append(x)
                continue
            xs.append(x)
            ys.append(100.0 * c["mean"])
            hw = c["ci95_half_width"]
            err.append(100.0 * hw if hw is not None and math.isfinite(hw) else 0.0)
        # One legend entry per key, whether it has bars or only crosses.
        if xs:
            ax.bar(xs, ys, width, yerr=err, capsize=2, label=label(key), color="C%d" % k)
        if missing:
            ax.plot(missing, [0.0] * len(missing), "x", color="C%d" % k, ms=6, label=None if xs else label(key))
        tops.extend(y + e for y, e in zip(ys, err))
        lows.extend(y - e for y, e in zip(ys, err))
        means.extend(abs(y) for y in ys)
    # A few seeds give wide intervals: the axis follows the means (up to
    # three times the largest), and a bar's interval may run off it.
    span = max([2.0] + [3.0 * m for m in means])
    if signed:
        ax.set_ylim(max(-span, min([-1.5] + lows)), min(span, max([1.5] + tops)))
    else:
        ax.set_ylim(0.0, min(span, max([1.5] + tops)))
    ax.set_xticks(range(len(sources)))
    ax.set_xticklabels(sources, rotation=20, fontsize=8)
    ax.axhspan(-1.0 if signed else 0.0, 1.0, color="0.92", zorder=0)
    if signed:
        ax.axhline(0.0, color="0.5", lw=0.8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("budget")
    ap.add_argument("--out-prefix", required=True)
    args = ap.parse_args()
    with open(args.budget) as f:
        budget = json.load(f)
    rows = budget["sources"]
    if not rows:
        print("no sources in the budget", file=sys.stderr)
        return 1
    sources = [r["source"] for r in rows]
    keys = list(rows[0]["mean_abs_error"].keys())
    by_source = {r["source"]: r for r in rows}

    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(sources), 3.8))
    bars(ax, sources, keys, lambda s, k: by_source[s]["mean_abs_error"].get(k), False)
    ax.set_ylabel("mean |stiffness error| over bands (%)")
    ax.set_title("error budget: 95 % intervals over seeds; x: not identifiable", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out_prefix + "mean_abs_error.png", dpi=110)
    plt.close(fig)

    bands = list(rows[0].get("bands", {}).keys())
    if bands:
        cols = min(2, len(bands))
        rows_ = (len(bands) + cols - 1) // cols
        fig, axes = plt.subplots(rows_, cols, figsize=(1.2 + 1.1 * len(sources) * cols, 3.4 * rows_), squeeze=False)
        for ax in axes.flat[len(bands):]:
            ax.set_visible(False)
        for ax, band in zip(axes.flat, bands):
            bars(ax, sources, keys, lambda s, k: by_source[s]["bands"][band].get(k), True)
            ax.set_title(band)
            ax.set_ylabel("stiffness error (%)")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.out_prefix + "bands.png", dpi=110)
        plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
