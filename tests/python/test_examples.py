"""The examples in examples/python/ run, shortened, and say what they
should: the plot is written, the study prints one line per scale and suit
with an estimate near the truth, the custom controller sags more than the
built-in servo when its stiffness is halved."""

import os
import re
import subprocess
import sys

from conftest import source_path


def run_example(name, *args, cwd=None):
    r = subprocess.run([sys.executable, source_path(os.path.join("examples", "python", name)), *map(str, args)],
                       capture_output=True, text=True, timeout=900, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_protocol_plot(tmp_path):
    png = tmp_path / "support.png"
    out = run_example("protocol_supporting_torque.py", "--duration", 8, "--out", png)
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert re.search(r"suit normal: approach A [0-9.]+ N/m", out), out


def test_band_stiffness_study():
    out = run_example("band_stiffness_study.py", "--duration", 8, 0.5, 2)
    lines = [l for l in out.splitlines() if l.startswith("scale")]
    assert len(lines) == 4, out  # two scales, two suits
    for line in lines:
        error = float(re.search(r"\(([-+0-9.]+) %\)", line).group(1))
        assert abs(error) < 20, line


def test_custom_controller():
    out = run_example("custom_controller.py", "--seconds", 0.5, "--kp-scale", 0.5)
    own, builtin = (float(x) for x in re.findall(r"([0-9.]+) deg", out))
    assert own > builtin > 0, out
