"""What calling suitsim from Python costs (docs/python.md, Speed): JVRC-1
standing stepped from a Python loop of sim.step(1), from sim.step(1000),
and in one call (the C++ loop alone, the call's cost spread over 20000
steps), and the cost of a call where a step costs next to nothing; then a batch of trials run from one Python call against `suitsim
run` on the same scene. Figures only, no assertion.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/python_overhead.py [--binary build/cli/suitsim]
"""

import argparse
import os
import subprocess
import tempfile
import time

import suitsim

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=os.path.join(root, "build", "cli", "suitsim"))
parser.add_argument("--repeats", type=int, default=3)
args = parser.parse_args()

stand = suitsim.load_scene(os.path.join(root, "scenes", "jvrc1_stand.xml"), threads=1)


def steps_per_second(calls, per_call):
    best = 0.0
    for _ in range(args.repeats):
        sim = stand.simulation()
        sim.step(100)  # warm up: the first steps touch every array
        start = time.perf_counter()
        for _ in range(calls):
            sim.step(per_call)
        best = max(best, calls * per_call / (time.perf_counter() - start))
    return best


def call_overhead_us(scene_name):
    # A scene whose step costs little (one spring) shows the call's own cost.
    scene = suitsim.load_scene(os.path.join(root, "scenes", scene_name), threads=1)
    best_one = best_many = 0.0
    for _ in range(args.repeats):
        sim = scene.simulation()
        start = time.perf_counter()
        for _ in range(100000):
            sim.step(1)
        best_one = max(best_one, 1e5 / (time.perf_counter() - start))
        sim = scene.simulation()
        start = time.perf_counter()
        sim.step(1000000)
        best_many = max(best_many, 1e6 / (time.perf_counter() - start))
    return 1e6 * (1.0 / best_one - 1.0 / best_many)


one = steps_per_second(5000, 1)
thousand = steps_per_second(20, 1000)
alone = steps_per_second(1, 20000)
print(f"JVRC-1 standing, one thread: step(1) {one:.0f} steps/s, step(1000) {thousand:.0f} steps/s, "
      f"one call of 20000 {alone:.0f} steps/s")
print(f"overhead of a call: {1e6 * (1.0 / one - 1.0 / alone):.1f} us on JVRC-1; "
      f"{call_overhead_us('spring_mass.xml'):.2f} us measured on one spring (scenes/spring_mass.xml)")

protocol = os.path.join(root, "scenes", "h1_protocol.xml")
scene = suitsim.load_scene(protocol, duration=2, threads=2)
best_py = best_cli = float("inf")
for _ in range(args.repeats):
    start = time.perf_counter()
    result = scene.run()
    best_py = min(best_py, time.perf_counter() - start)
    del result
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([args.binary, "run", protocol, "--out", out, "--duration", "2", "--threads", "2", "--quiet"],
                       check=True)
        best_cli = min(best_cli, time.perf_counter() - start)
print(f"H1 protocol, {len(scene.trials)} trials of 2 s on 2 threads: scene.run {best_py:.2f} s (its tables "
      f"are read on first use, not here), suitsim run {best_cli:.2f} s: {100 * best_cli / best_py:.0f} % of the command's throughput")
