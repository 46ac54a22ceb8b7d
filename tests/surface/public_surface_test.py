#!/usr/bin/env python3
"""The engine's kernel layout stays out of its public surface.

Runs scripts/public_surface.py on the tree and fails when
  - a header named like one of the engine's private headers (engine/src/*.h,
    kernel_layout.h among them) lies under engine/include, or
  - a public declaration of the engine is a type or a Model member that
    engine/src/kernel_layout.h declares (SpringBlock, KernelLayout's tiles,
    blocks, incidence lists, contact threading and hinge elimination order),
so that neither the header nor its fields can grow back into model.h
unnoticed. Then it plants each of the two in a copy of the engine and checks
that each is caught.

    python3 tests/surface/public_surface_test.py --root DIR
Exit 0 when all checks pass, 1 with one line per failure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run_surface(script, root, *args):
    result = subprocess.run([sys.executable, script, "--root", root] + list(args), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("public_surface.py %s exited %d: %s" % (" ".join(args), result.returncode, result.stderr))
    return result.stdout


def leaks(script, root):
    """What of the engine's private layout the public surface shows."""
    sys.path.insert(0, os.path.dirname(script))
    import public_surface  # noqa: E402 (the script under test, for its counting rule)
    problems = []
    private_headers = sorted(n for n in os.listdir(os.path.join(root, "engine", "src")) if n.endswith(".h"))
    layout = os.path.join(root, "engine", "src", "kernel_layout.h")
    with open(layout, encoding="utf-8") as f:
        declared = public_surface.count_header(f.read())
    private_types = {name.split("::")[-1] for kind, name in declared if kind == "type"}
    private_members = {name.split("::")[-1] for kind, name in declared
                       if kind == "member" and "::KernelLayout::" in name}
    if not private_members:
        problems.append("engine/src/kernel_layout.h: no KernelLayout members counted (the rule or the file changed)")
    for item in run_surface(script, root, "--list").splitlines():
        path, decl = item.split(": ", 1)
        if not path.startswith("engine/include/"):
            continue
        kind, name = decl.split(" ", 1)
        short = name.split("::")[-1]
        if os.path.basename(path) in private_headers:
            problems.append("%s: a private engine header's name under engine/include" % path)
        if kind == "type" and short in private_types:
            problems.append("%s: declares %s, which engine/src/kernel_layout.h owns" % (path, name))
        if kind == "member" and name.startswith("suitsim::Model::") and short in private_members:
            problems.append("%s: Model shows the kernel layout's %s" % (path, short))
    # A header with no declarations still counts as a leak of its name.
    for dirpath, _, filenames in os.walk(os.path.join(root, "engine", "include")):
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            message = "%s: a private engine header's name under engine/include" % rel
            if name in private_headers and message not in problems:
                problems.append(message)
    return sorted(set(problems))


def copy_engine(root, tmp):
    """The parts of the tree the check reads: the libraries' headers and the script."""
    for top in os.listdir(root):
        src = os.path.join(root, top)
        if not os.path.isdir(src) or top.startswith((".", "build")) or top in ("tests", "docs", "scenes", "models"):
            continue
        shutil.copytree(src, os.path.join(tmp, top),
                        ignore=shutil.ignore_patterns("build*", "*.cpp", "*.png", "*.csv", "*.xml", "data"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    script = os.path.join(root, "scripts", "public_surface.py")
    failures, passed = [], 0

    counts = json.loads(run_surface(script, root, "--json"))
    if counts.get("engine", {}).get("headers", 0) == 0:
        failures.append("public_surface.py found no engine headers")
    else:
        passed += 1
    found = leaks(script, root)
    if found:
        failures += found
    else:
        passed += 1

    plants = [
        ("the layout header under engine/include",
         lambda tmp: shutil.copy(os.path.join(tmp, "engine", "src", "kernel_layout.h"),
                                 os.path.join(tmp, "engine", "include", "suitsim", "kernel_layout.h")),
         "kernel_layout.h: a private engine header's name"),
        ("a layout field back in Model",
         lambda tmp: plant_in_model(os.path.join(tmp, "engine", "include", "suitsim", "model.h"),
                                    "", "  std::vector<std::int32_t> spring_incidence;\n"),
         "Model shows the kernel layout's spring_incidence"),
        ("SpringBlock back in model.h",
         lambda tmp: plant_in_model(os.path.join(tmp, "engine", "include", "suitsim", "model.h"),
                                    "struct SpringBlock {\n  int a = 0;\n};\n\n", ""),
         "declares suitsim::SpringBlock"),
    ]
    for what, plant, expected in plants:
        with tempfile.TemporaryDirectory(prefix="suitsim_surface_") as tmp:
            copy_engine(root, tmp)
            plant(tmp)
            caught = leaks(script, tmp)
            if any(expected in line for line in caught):
                passed += 1
            else:
                failures.append("planted %s was not caught (got: %s)" % (what, caught or "nothing"))

    for line in failures:
        print(line)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


def plant_in_model(model_h, before, inside):
    """Writes `before` ahead of model.h's Model and `inside` as its first member."""
    with open(model_h, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("struct Model {\n", before + "struct Model {\n" + inside, 1)
    with open(model_h, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
