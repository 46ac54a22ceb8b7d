"""Ctrl-C (SIGINT) during a run or a long step raises KeyboardInterrupt
within a fraction of a second and leaves nothing behind: neither the
folder given as `out` nor a temporary folder."""

import os
import subprocess
import sys
import textwrap

from conftest import source_path

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import suitsim
    scene = suitsim.load_scene(sys.argv[1], duration=120)
    what, out = sys.argv[2], sys.argv[3]
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        if what == "run":
            scene.run(trials=[scene.trials[0].name], out=out)
        elif what == "run-temporary":
            scene.run(trials=[scene.trials[0].name])
        else:
            scene.simulation(scene.trials[0].name).step(10**9)
    except KeyboardInterrupt:
        print(f"interrupted after {time.monotonic() - start:.2f} s")
""")


def interrupt(tmp_path, what):
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    os.makedirs(env["TMPDIR"])
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-c", SCRIPT, source_path("scenes/h1_protocol.xml"), what, str(out)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("interrupted after"), r.stdout + r.stderr
    seconds = float(r.stdout.split()[2])
    assert seconds < 5.0, r.stdout  # 120 s of simulated time would take far longer
    return out, os.listdir(env["TMPDIR"])


def test_a_run_into_a_folder_leaves_nothing(tmp_path):
    out, temporary = interrupt(tmp_path, "run")
    assert not out.exists()
    assert temporary == []


def test_a_run_into_temporary_folders_leaves_nothing(tmp_path):
    _, temporary = interrupt(tmp_path, "run-temporary")
    assert temporary == []


def test_a_long_step_is_interrupted(tmp_path):
    interrupt(tmp_path, "step")
