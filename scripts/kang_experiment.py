#!/usr/bin/env python3
"""Kang et al.'s (2023, section 5) curriculum experiment, repeated over noise seeds.

For every seed s in 1..N the scene is copied with its sensor noise seed and
its a-priori draw seed (<apriori seed>, e.g. inertial_spread) set to s, and
`suitsim design-motions --start apriori` runs it twice: choosing by the
curriculum and choosing at random (`--selection random --selection-seed s`),
with the same library (`--seed`, fixed) in both. From every design.json it
takes, per iteration (0: the a-priori model), the base-parameter error of
Kang's (17) against the truth and the share of base parameters whose relative
std is below 1, 5 and 10 %, and writes

  OUT/kang_table.md     median [quartiles] per iteration, both selections
  OUT/kang_runs.csv     every run and iteration
  OUT/kang_fig6.png     the error per iteration (their Fig. 6), both selections
  OUT/kang_fig7.png     the identified condition number per iteration (their Fig. 7)
  OUT/kang_reliable.png the share below 1, 5 and 10 % per iteration

docs/design-motions.md ("Kang's experiment") gives the command and the figures.
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

THRESHOLDS = (0.01, 0.05, 0.10)


def seeded_scene(scene, seed, out_dir):
    """The scene with its noise and a-priori seeds set to `seed`, written to
    out_dir; relative file names made absolute so that it reads the same files."""
    text = open(scene).read()
    base = os.path.dirname(os.path.abspath(scene))

    def absolute(m):
        path = m.group(2)
        return m.group(1) + (path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))) + '"'

    text = re.sub(r'(\burdf=")([^"]*)"', absolute, text)
    for element in ("sensors", "apriori"):
        pattern = re.compile(r"(<%s\b[^>]*?)\sseed=\"[^\"]*\"" % element, re.S)
        if pattern.search(text):
            text = pattern.sub(r'\1 seed="%d"' % seed, text, count=1)
        else:
            text = re.sub(r"<%s\b" % element, '<%s seed="%d"' % (element, seed), text, count=1)
    path = os.path.join(out_dir, "scene_seed%d.xml" % seed)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(args, scene, seed, selection, out):
    if os.path.exists(os.path.join(out, "design.json")) and not args.rerun:
        return 0.0
    cmd = [args.suitsim, "design-motions", scene, "--out", out, "--start", "apriori", "--iterations",
           str(args.iterations), "--candidates", str(args.candidates), "--seed", str(args.library_seed),
           "--threads", str(args.threads), "--quiet"] + args.extra
    cmd += ["--margin-rule", args.margin_rule, "--margin", str(args.margin)]
    if selection == "random":
        cmd += ["--selection", "random", "--selection-seed", str(seed)]
    start = time.time()
    done = subprocess.run(cmd)
    if done.returncode != 0:
        # A seed whose a-priori model lets no candidate pass (exit 1) is
        # reported and left out; bad input (exit 2) stops the experiment.
        if done.returncode == 2:
            sys.exit("bad input (exit 2): " + " ".join(cmd))
        print("failed (exit %d), left out: %s" % (done.returncode, " ".join(cmd)), flush=True)
        return None
    return time.time() - start


def figures(design):
    """Per iteration: error (17), identified condition number, shares below THRESHOLDS."""
    nb = design["base_parameters"]
    rows = []
    for it in design["iterations"]:
        idf = it["identified"]
        shares = [math.nan] * len(THRESHOLDS)
        cond = math.nan
        if idf is not None:
            cond = idf["condition_number"] if idf["condition_number"] is not None else math.nan
            for k, t in enumerate(THRESHOLDS):
                for a in idf["determined_at"]:
                    if abs(a["relative_std_below"] - t) < 1e-12:
                        shares[k] = a["count"] / nb
        err = it["truth_base_parameter_rmse"]
        rows.append((it["iteration"], math.nan if err is None else err, cond, shares))
    return rows


def quartiles(values):
    v = np.array([x for x in values if math.isfinite(x)])
    if v.size == 0:
        return "-"
    q1, q2, q3 = np.percentile(v, [25, 50, 75])
    return "%.3g [%.3g, %.3g]" % (q2, q1, q3)


def share_text(values):
    v = np.array([x for x in values if math.isfinite(x)])
    if v.size == 0:
        return "-"
    q1, q2, q3 = np.percentile(100.0 * v, [25, 50, 75])
    return "%.1f [%.1f, %.1f]" % (q2, q1, q3)


def boxes(ax, data, iterations, colour, offset, label):
    pos = [i + offset for i in iterations]
    vals = [[x for x in data[i] if math.isfinite(x)] for i in iterations]
    keep = [(p, v) for p, v in zip(pos, vals) if v]
    if not keep:
        return
    b = ax.boxplot([v for _, v in keep], positions=[p for p, _ in keep], widths=0.3, patch_artist=True,
                   flierprops={"marker": "x", "markeredgecolor": colour})
    for patch in b["boxes"]:
        patch.set_facecolor(colour)
        patch.set_alpha(0.5)
    ax.plot([], [], color=colour, linewidth=6, alpha=0.5, label=label)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scene", default="scenes/jvrc1_upper_body.xml")
    ap.add_argument("--suitsim", default="build/cli/suitsim")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--candidates", type=int, default=60)
    ap.add_argument("--library-seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--margin-rule", choices=["fixed", "relaxed"], default="relaxed")
    ap.add_argument("--margin", type=float, default=0.03, help="the first iteration's ZMP margin (m)")
    ap.add_argument("--rerun", action="store_true", help="run again where a design.json exists")
    ap.add_argument("extra", nargs="*", help="more design-motions options (after --)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    results = {"curriculum": {}, "random": {}}
    wall = 0.0
    failed = []
    for seed in seeds:
        scene = seeded_scene(args.scene, seed, args.out)
        for selection in results:
            out = os.path.join(args.out, "%s_seed%d" % (selection, seed))
            took = run(args, scene, seed, selection, out)
            if took is None:
                failed.append("%s seed %d" % (selection, seed))
                continue
            wall += took
            results[selection][seed] = figures(json.load(open(os.path.join(out, "design.json"))))
            print("seed %d %s done (%.0f s so far)" % (seed, selection, wall), flush=True)

    iterations = list(range(args.iterations + 1))
    table = {}
    with open(os.path.join(args.out, "kang_runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["selection", "seed", "iteration", "error_17", "condition_number"] +
                   ["share_below_%g" % t for t in THRESHOLDS])
        for selection, by_seed in results.items():
            for seed, rows in by_seed.items():
                for it, err, cond, shares in rows:
                    w.writerow([selection, seed, it, err, cond] + shares)
                    t = table.setdefault((selection, it), {"err": [], "cond": [], "shares": [[] for _ in THRESHOLDS]})
                    t["err"].append(err)
                    t["cond"].append(cond)
                    for k, s in enumerate(shares):
                        t["shares"][k].append(s)
    empty = {"err": [], "cond": [], "shares": [[] for _ in THRESHOLDS]}
    lines = ["| iteration | selection | runs | error (17), median [quartiles] | condition number | "
             "share below 1 % | below 5 % | below 10 % |", "|---|---|---|---|---|---|---|---|"]
    for it in iterations:
        for selection in results:
            t = table.get((selection, it), empty)
            lines.append("| %d | %s | %d | %s | %s | %s | %s | %s |" % (
                it, selection if it > 0 else "a-priori model", len(t["err"]), quartiles(t["err"]), quartiles(t["cond"]),
                share_text(t["shares"][0]), share_text(t["shares"][1]), share_text(t["shares"][2])))
            if it == 0:
                break  # the same a-priori models for both
    lines.append("")
    lines.append("%d seeds (%d to %d), %d iterations, %d candidates, margin %g m (%s); %.0f s of design-motions "
                 "runs (this call); left out (no candidate passed the first checks): %s. A run stops before the "
                 "last iteration when no candidate left passes the checks: later rows count fewer runs." % (
                     args.seeds, seeds[0], seeds[-1], args.iterations, args.candidates, args.margin, args.margin_rule,
                     wall, ", ".join(failed) if failed else "none"))
    with open(os.path.join(args.out, "kang_table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    colours = {"curriculum": "tab:red", "random": "tab:green"}
    offsets = {"curriculum": -0.17, "random": 0.17}
    later = iterations[1:]
    # Fig. 6: the error (17) per iteration; the a-priori models' median as a line.
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    prior = [x for x in table.get(("curriculum", 0), empty)["err"] if math.isfinite(x)]
    if prior:
        ax.axhline(float(np.median(prior)), color="tab:blue", label="a-priori model (median)")
    for selection in results:
        boxes(ax, {i: table.get((selection, i), empty)["err"] for i in later}, later, colours[selection],
              offsets[selection], selection)
    ax.set_xticks(later)
    ax.set_xticklabels([str(i) for i in later])
    ax.set_xlabel("iteration")
    ax.set_ylabel("base-parameter error, Kang (17)")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title("%s: %d noise seeds designed" % (os.path.basename(args.scene), len(results["curriculum"])))
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "kang_fig6.png"), dpi=90)
    # Fig. 7: the condition number per iteration.
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for selection in results:
        boxes(ax, {i: table.get((selection, i), empty)["cond"] for i in later}, later, colours[selection],
              offsets[selection], selection)
    ax.set_xticks(later)
    ax.set_xticklabels([str(i) for i in later])
    ax.set_xlabel("iteration")
    ax.set_ylabel("condition number of the identification")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "kang_fig7.png"), dpi=90)
    # The share of reliable base parameters, medians per threshold.
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    styles = {0.01: ":", 0.05: "--", 0.10: "-"}
    for selection in results:
        for k, t in enumerate(THRESHOLDS):
            med = []
            for i in later:
                v = [x for x in table.get((selection, i), empty)["shares"][k] if math.isfinite(x)]
                med.append(100.0 * float(np.median(v)) if v else math.nan)
            ax.plot(later, med, styles[t], color=colours[selection], marker="o",
                    label="%s, below %g %%" % (selection, 100 * t))
    ax.set_xticks(later)
    ax.set_xlabel("iteration")
    ax.set_ylabel("base parameters with relative std below (%, median)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "kang_reliable.png"), dpi=90)


if __name__ == "__main__":
    main()
