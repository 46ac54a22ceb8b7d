#!/usr/bin/env python3
"""The truth and the noise do not depend on the standard library.

`libcxx_report.py --build SOURCE BUILD` builds the `suitsim` command a second
time with clang and libc++ (in BUILD/libcxx: only that target, through
ccache where it is installed). `libcxx_report.py SOURCE BUILD SUITSIM`
evaluates the H1 protocol with that build and with the GCC/libstdc++ one
under test, and checks that report.json and identification.json are equal
apart from wall times. ctest runs the two as separate tests, so that the
build, which runs no evaluation, does not hold the `whole_evaluation` lock
(tests/CMakeLists.txt). Exit 77 (skipped) when clang++ or libc++ is missing;
scripts/setup.sh installs both.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def strip_wall_times(value):
    if isinstance(value, dict):
        return {k: strip_wall_times(v) for k, v in value.items() if "wall" not in k}
    if isinstance(value, list):
        return [strip_wall_times(v) for v in value]
    return value


def differences(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {a!r} (GCC) vs {b!r} (libc++)"]


def clang_with_libcxx():
    """clang++ when it and libc++'s headers are installed, else None (said why)."""
    clang = shutil.which("clang++")
    if clang is None:
        print("skipped: clang++ not installed (scripts/setup.sh installs clang)")
        return None
    probe = subprocess.run([clang, "-stdlib=libc++", "-x", "c++", "-std=c++20", "-E", "-"],
                           input="#include <vector>\n", capture_output=True, text=True)
    if probe.returncode != 0:
        print("skipped: libc++ headers not installed (scripts/setup.sh installs libc++-dev)")
        return None
    return clang


def build(source, build_dir):
    clang = clang_with_libcxx()
    if clang is None:
        return 77
    libcxx_build = os.path.join(build_dir, "libcxx")
    flags = "-stdlib=libc++"
    # The C compiler too (the HDF5 check compiles C): the link flag below
    # reaches every language's executables, and only clang takes it.
    clang_c = clang[:-2] if clang.endswith("++") else clang
    configure = ["cmake", "-S", source, "-B", libcxx_build, "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_CXX_COMPILER={clang}", f"-DCMAKE_C_COMPILER={clang_c}", f"-DCMAKE_CXX_FLAGS={flags}",
                 f"-DCMAKE_EXE_LINKER_FLAGS={flags}", "-DSUITSIM_BUILD_TESTS=OFF",
                 "-DSUITSIM_BUILD_BENCH=OFF", "-DSUITSIM_BUILD_VIEWER=OFF", "-DSUITSIM_WITH_MPI=OFF",
                 "-DSUITSIM_WITH_MUJOCO=OFF", "-DSUITSIM_BUILD_PYTHON=OFF",
                 # No precompiled header: clang's .pch holds the clone's
                 # absolute paths, so every file compiled with it misses the
                 # cache in a fresh clone (CI's), whatever CCACHE_BASEDIR says;
                 # without it the objects are shared across clones.
                 "-DSUITSIM_PCH=OFF"]
    env = dict(os.environ)
    ccache = shutil.which("ccache")
    if ccache:
        # A rebuild of unchanged sources then costs a cache look-up; the
        # sloppiness lets ccache cache files compiled with a precompiled
        # header (docs/testing.md).
        configure += [f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache}", f"-DCMAKE_C_COMPILER_LAUNCHER={ccache}"]
        env.setdefault("CCACHE_SLOPPINESS", "pch_defines,time_macros,include_file_mtime,include_file_ctime")
        # Paths relative to the clone, as scripts/build.sh sets them: without
        # it the clone's absolute path is part of every file's hash, so a
        # fresh clone (CI's) never finds the previous clone's objects.
        env.setdefault("CCACHE_BASEDIR", os.path.abspath(source))
    subprocess.run(configure, check=True, stdout=subprocess.DEVNULL, env=env)
    subprocess.run(["cmake", "--build", libcxx_build, "--target", "suitsim", "-j", str(os.cpu_count() or 2)],
                   check=True, stdout=subprocess.DEVNULL, env=env)
    return 0


def compare(source, build_dir, gcc_suitsim):
    libcxx_suitsim = os.path.join(build_dir, "libcxx", "cli", "suitsim")
    if not os.path.exists(libcxx_suitsim) and clang_with_libcxx() is None:
        return 77
    scene = os.path.join(source, "scenes", "h1_protocol.xml")
    failures = []
    with tempfile.TemporaryDirectory(prefix="suitsim_libcxx_") as tmp:
        outs = {}
        for name, program in (("gcc", gcc_suitsim), ("libcxx", libcxx_suitsim)):
            outs[name] = os.path.join(tmp, name)
            subprocess.run([program, "evaluate", scene, "--out", outs[name], "--quiet", "--no-plots"], check=True)
        for report in ("report.json", "identification.json"):
            with open(os.path.join(outs["gcc"], report)) as f:
                a = strip_wall_times(json.load(f))
            with open(os.path.join(outs["libcxx"], report)) as f:
                b = strip_wall_times(json.load(f))
            diff = differences(a, b)
            print(f"{report}: {'equal' if not diff else str(len(diff)) + ' values differ'}")
            failures += [f"{report}{d}" for d in diff[:20]]
    for line in failures:
        print(line)
    return 1 if failures else 0


def main():
    if sys.argv[1] == "--build":
        return build(sys.argv[2], sys.argv[3])
    return compare(sys.argv[1], sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
