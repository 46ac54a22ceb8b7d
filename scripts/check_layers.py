#!/usr/bin/env python3
"""Checks that suitsim's libraries include only the layers below them.

Every quoted #include of a C++ source or header is resolved to a file of the
tree: beside the including file first, then in every library's public
include/ folder, then in every library's private src/ folder. The file's
library is then checked against LAYERS: a library may include its own files
and the public headers of the libraries it lists. A library that includes
another library's private header, or a header of a library it does not list
(a higher layer, or a front end), fails the check. Front ends (cli, viewer,
bench, fuzz, python) and the tests may include any library's public headers,
never a library's private ones (the engine's private-kernel tests are listed
in PRIVATE_ALLOWED, with the reason).

docs/architecture.md draws the same table. Run from anywhere:
    python3 scripts/check_layers.py [--root DIR]
Exit 0 when the tree keeps its layers, 1 with one line per violation.
"""

import argparse
import os
import re
import sys

# library -> (its folders, the libraries it may include). Folders are
# relative to the root; a file belongs to the library with the longest
# matching folder.
LAYERS = {
    "core":       (["core"], []),
    "robot":      (["robot"], ["core"]),
    "rigid":      (["rigid"], ["core", "robot"]),
    "engine":     (["engine"], ["core", "robot"]),
    # The reader still compiles the robot into the engine's Model (issue:
    # read, then compile); it includes the engine until that is split.
    "scene":      (["scene"], ["core", "robot", "rigid", "engine"]),
    "experiment": (["experiment"], ["core", "robot", "rigid", "engine", "scene"]),
    "evaluator":  (["evaluator/include", "evaluator/src"], ["core", "robot", "rigid"]),
    # The evaluator's loader: a scene file into EvaluationInputs.
    "eval_io":    (["evaluator/io"], ["core", "robot", "rigid", "evaluator", "engine", "scene"]),
    "report":     (["report"], ["core", "robot", "rigid", "engine", "scene", "evaluator", "eval_io"]),
    "design":     (["design"], ["core", "robot", "rigid", "engine", "scene", "experiment", "evaluator",
                                "eval_io", "report"]),
    "sweep":      (["sweep"], ["core", "robot", "rigid", "engine", "scene", "experiment", "evaluator",
                               "eval_io", "report", "design"]),
}
LIBRARIES = list(LAYERS)
FRONT_ENDS = ["cli", "viewer", "bench", "fuzz", "python", "tests", "examples"]

# Tests that reach a library's private header on purpose, and why.
PRIVATE_ALLOWED = {
    # The engine's kernels and per-CPU clones, checked against their scalar
    # references below the public API.
    ("tests", "engine"),
    # The evaluator's capstan wire model and the logger's filter delay,
    # checked against closed forms (tests/evaluator/CMakeLists.txt).
    ("tests", "evaluator"),
    # Design's predicted reliability, calibrated on synthetic measurements.
    ("tests", "design"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
SOURCE_EXTENSIONS = (".h", ".hpp", ".cpp", ".cc", ".cxx", ".inl")


def owner(rel):
    """The library or front end that a file (relative path) belongs to."""
    best, best_len = None, -1
    for lib, (folders, _) in LAYERS.items():
        for folder in folders:
            if (rel == folder or rel.startswith(folder + "/")) and len(folder) > best_len:
                best, best_len = lib, len(folder)
    if best is not None:
        return best
    top = rel.split("/", 1)[0]
    return top if top in FRONT_ENDS else None


def public_dirs(root):
    dirs = []
    for lib, (folders, _) in LAYERS.items():
        for folder in folders:
            for sub in ("include", "io/include"):
                d = os.path.join(root, folder, sub)
                if os.path.isdir(d):
                    dirs.append(d)
            if folder.endswith("/include") and os.path.isdir(os.path.join(root, folder)):
                dirs.append(os.path.join(root, folder))
    return sorted(set(dirs))


def private_dirs(root):
    dirs = []
    for lib, (folders, _) in LAYERS.items():
        for folder in folders:
            for sub in ("src", "io/src"):
                d = os.path.join(root, folder, sub)
                if os.path.isdir(d):
                    dirs.append(d)
            if folder.endswith("/src") and os.path.isdir(os.path.join(root, folder)):
                dirs.append(os.path.join(root, folder))
    return sorted(set(dirs))


def front_end_dirs(root):
    dirs = []
    for top in FRONT_ENDS:
        base = os.path.join(root, top)
        for dirpath, dirnames, _ in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith("build")]
            dirs.append(dirpath)
    return dirs


def is_public(rel):
    return "/include/" in "/" + rel


def check(root):
    root = os.path.abspath(root)
    pub, priv, front = public_dirs(root), private_dirs(root), front_end_dirs(root)
    problems = []
    checked = 0
    bases = [folder for lib in LIBRARIES for folder in LAYERS[lib][0]] + FRONT_ENDS
    for base in (os.path.join(root, b) for b in bases):
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith("build")]
            for name in filenames:
                if not name.endswith(SOURCE_EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                who = owner(rel)
                if who is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                checked += 1
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    line = text.count("\n", 0, m.start()) + 1
                    candidates = [os.path.join(dirpath, target)]
                    candidates += [os.path.join(d, target) for d in pub + priv + front]
                    found = next((c for c in candidates if os.path.isfile(c)), None)
                    if found is None:
                        continue  # a system or generated header
                    trel = os.path.relpath(found, root)
                    towner = owner(trel)
                    if towner is None or towner == who:
                        continue
                    where = f"{rel}:{line}"
                    if towner not in LAYERS:
                        if who in LAYERS:
                            problems.append(f"{where}: library '{who}' includes front end '{towner}' ({trel})")
                        continue
                    if not is_public(trel) and (who, towner) not in PRIVATE_ALLOWED:
                        problems.append(f"{where}: '{who}' includes a private header of '{towner}' ({trel})")
                        continue
                    if who in LAYERS and towner not in LAYERS[who][1]:
                        problems.append(f"{where}: library '{who}' includes '{towner}' ({trel}), "
                                        f"which is not below it (it may include: "
                                        f"{', '.join(LAYERS[who][1]) or 'nothing of ours'})")
    return checked, problems


# Back-includes planted by --self-test in a copy of the tree, each with the
# words its violation line must hold.
PLANTS = [
    ("core/src/text_input.cpp", '#include "suitsim/eval/evaluation.h"', "library 'core' includes 'evaluator'"),
    ("engine/src/servo.cpp", '#include "suitsim/scene/scene.h"', "library 'engine' includes 'scene'"),
    ("evaluator/src/streams.cpp", '#include "suitsim/state.h"', "library 'evaluator' includes 'engine'"),
    ("sweep/src/spec.cpp", '#include "robot_scene.h"', "private header of 'scene'"),
    ("report/src/scoring.cpp", '#include "commands.h"', "includes front end 'cli'"),
]


def self_test(root):
    """The check fails on each planted back-include, and passes without them."""
    import shutil
    import tempfile
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory(prefix="suitsim_layers_") as tmp:
        for top in LIBRARIES + FRONT_ENDS:
            src = os.path.join(root, LAYERS[top][0][0].split("/")[0] if top in LAYERS else top)
            dst = os.path.join(tmp, os.path.relpath(src, root))
            if os.path.isdir(src) and not os.path.exists(dst):
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("build*", "*.png", "*.csv", "data"))
        _, clean = check(tmp)
        if clean:
            print("self-test: the copied tree already has violations:\n" + "\n".join(clean))
            return 1
        failures = 0
        for rel, line, expected in PLANTS:
            path = os.path.join(tmp, rel)
            with open(path, encoding="utf-8") as f:
                original = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(line + "\n" + original)
            _, problems = check(tmp)
            hit = [p for p in problems if p.startswith(rel + ":1:") and expected in p]
            print(f"self-test: {rel} planted with {line}: " + (hit[0] if hit else "NOT CAUGHT"))
            failures += 0 if hit and len(problems) == 1 else 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
        print(f"check_layers self-test: {len(PLANTS) - failures} of {len(PLANTS)} planted back-includes caught")
        return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--self-test", action="store_true",
                        help="plant back-includes in a copy of the tree and check that each is caught")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.root)
    checked, problems = check(args.root)
    if checked == 0:
        print(f"check_layers: no sources under {args.root}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print(f"check_layers: {checked} files, {len(problems)} layering violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
