"""Run JVRC-1's protocol (every trial), evaluate it, and plot the suit's
supporting torque at the joint each motion is about, as approaches A and B
estimate it: A Figs. 12-13 from Python.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/protocol_supporting_torque.py \
        [--scene scenes/jvrc1_protocol.xml] [--duration S] [--out support.png]
"""

import argparse
import os

import matplotlib
matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt
import numpy as np

import suitsim

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--scene", default=os.path.join(here, "..", "..", "scenes", "jvrc1_protocol.xml"))
parser.add_argument("--duration", type=float, help="shorten every trial to this many seconds")
parser.add_argument("--out", default="support.png")
args = parser.parse_args()

scene = suitsim.load_scene(args.scene, duration=args.duration)
evaluation = suitsim.evaluate(scene)  # runs every trial first
report = suitsim.score(evaluation, evaluation.run.truth)

curves = evaluation.curves
fig, axes = plt.subplots(len(curves), 1, figsize=(8, 3 * len(curves)), squeeze=False)
for ax, c in zip(axes[:, 0], curves):
    j = c["joints"].index(c["figure_joint"])  # the joint the motion is about, as the evaluator chose it
    resting = c["rest"][:, j]
    for method in ("approach_a", "approach_b"):
        torque = np.where(resting, np.nan, c["estimates"][method][:, j])  # unknown where the joint rests
        ax.plot(c["time"], torque, label=method.replace("_", " "))
    ax.set_title(f"{c['motion']} with suit {c['suit']}: {c['joints'][j]}")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("supporting torque [N m]")
    ax.legend()
fig.tight_layout()
fig.savefig(args.out, dpi=80)

for suit, s in report.to_dict()["suits"].items():
    a = s["approach_a"]
    print(f"suit {suit}: approach A {a['stiffness_n_per_m']} N/m (truth {s['true_stiffness_n_per_m']}, "
          f"error {100 * a['relative_error']:+.2f} %)")
print(f"wrote {args.out}")
