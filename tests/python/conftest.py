"""Shared fixtures of the Python module's tests: where the sources and the
`suitsim` command are (ctest sets SUITSIM_SOURCE_DIR and SUITSIM_BINARY),
and shortened copies of the shipped scenes."""

import os
import re
import subprocess

import pytest

SOURCE_DIR = os.environ.get("SUITSIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def source_path(relative):
    return os.path.join(SOURCE_DIR, relative)


@pytest.fixture(scope="session")
def suitsim_binary():
    binary = os.environ.get("SUITSIM_BINARY", os.path.join(SOURCE_DIR, "build", "cli", "suitsim"))
    if not os.path.exists(binary):
        pytest.fail(f"the suitsim command is not built: {binary} (cmake --build build --target suitsim)")
    return binary


def run_cli(binary, *args):
    """The command's exit code, stdout and stderr."""
    r = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout, r.stderr


def shortened_scene(scene, folder, duration):
    """A copy of a shipped scene whose trials last `duration` seconds (the
    <simulation> element's duration), its model paths made absolute, so
    that both the command line and Python run the same short experiment."""
    with open(source_path(scene)) as f:
        text = f.read()
    text, n = re.subn(r'(<simulation\b[^>]*\bduration=")[^"]*(")', rf"\g<1>{duration}\g<2>", text, count=1)
    assert n == 1, "the scene has no <simulation duration>"
    text = text.replace('"../models/', '"' + source_path("models") + "/")
    out = os.path.join(folder, os.path.basename(scene))
    with open(out, "w") as f:
        f.write(text)
    return out
