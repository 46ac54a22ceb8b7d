#!/usr/bin/env python3
"""Plots supporting-torque curves written by `suitsim evaluate` (curves/*.csv),
in the layout of Ayusawa et al. 2016, figures 12 and 13: the joint angle on
top, then one panel per suit with approach A, approach B, approach B on the
a-priori model and the model prediction A(21) with the true bands; for a
powered device (docs/devices.md), the straps' true moments instead.

Where the joint rests (the CSV's <joint>.rest column is 1) static friction
holds any torque up to tau_s^max, so no method knows the supporting torque
there: those intervals are shaded and the estimates are not drawn in them.

usage: plot_support.py --joint WAIST_P --title bend --out fig.png CSV [CSV ...]
                      [--and --joint ... --out fig2.png CSV ...]

Each --and starts another figure: one interpreter draws them all, so
matplotlib's import (most of a figure's cost) is paid once.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def read_curves(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    header, data = rows[0], rows[1:]
    names = [h.split("[")[0] for h in header]
    cols = {n: [float(r[i]) for r in data] for i, n in enumerate(names)}
    return cols


def shade_rest(ax, t, rest):
    """Shades the intervals where rest is 1 (the joint held by static friction)."""
    start = None
    for k, r in enumerate(rest + [0.0]):
        if r > 0.5 and start is None:
            start = k
        elif r <= 0.5 and start is not None:
            end = t[min(k, len(t) - 1)]
            ax.axvspan(t[start], end, color="0.88", lw=0, label="joint at rest" if start == first_rest(rest) else None)
            start = None


def first_rest(rest):
    return next((k for k, r in enumerate(rest) if r > 0.5), -1)


def suit_of(path):
    # curves/<motion>_<suit>.csv
    return os.path.splitext(os.path.basename(path))[0].rsplit("_", 1)[-1]


def figure(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--joint", required=True)
    ap.add_argument("--title", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("csv", nargs="+")
    args = ap.parse_args(argv)
    curves = [(suit_of(p), read_curves(p)) for p in args.csv]
    j = args.joint
    fig, axes = plt.subplots(1 + len(curves), 1, figsize=(7, 2.4 * (1 + len(curves))), sharex=True)
    t = curves[0][1]["time"]
    axes[0].plot(t, curves[0][1][j + ".angle"], color="black")
    axes[0].set_ylabel(j + " angle [rad]")
    axes[0].set_title("%s: supporting torque at %s" % (args.title, j))
    # A suit's curves carry the model A(21) with the true bands; a powered
    # device's carry the straps' true moments (curves/<motion>_<device>.csv).
    reference = ("model", "model A(21), true bands")
    if j + ".model" not in curves[0][1] and j + ".truth" in curves[0][1]:
        reference = ("truth", "truth: the straps' moments")
    styles = [
        ("approach_a", "approach A (identified)", dict(color="black", lw=0.9)),
        ("approach_b", "approach B (identified)", dict(color="0.55", lw=2.2)),
        ("apriori", "approach B (a priori)", dict(color="black", lw=0.9, ls=":")),
        (reference[0], reference[1], dict(color="tab:red", lw=1.6, ls="--")),
    ]
    for ax, (suit, c) in zip(axes[1:], curves):
        rest = c.get(j + ".rest", [0.0] * len(c["time"]))
        shade_rest(ax, c["time"], rest)
        for key, label, style in styles:
            y = c["%s.%s" % (j, key)]
            if key != reference[0]:
                y = [float("nan") if r > 0.5 else v for v, r in zip(y, rest)]
            ax.plot(c["time"], y, label=label, **style)
        ax.set_ylabel("%s [N m]" % suit)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, loc="best")
    axes[-1].set_xlabel("time [s]")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    plt.close(fig)


def main():
    figures = [[]]
    for a in sys.argv[1:]:
        if a == "--and":
            figures.append([])
        else:
            figures[-1].append(a)
    for argv in figures:
        figure(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
