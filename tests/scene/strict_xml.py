#!/usr/bin/env python3
"""Every shipped scene, model and test fixture meant to be valid is
well-formed XML as a strict parser (Python's ElementTree, on expat) reads it.

Users read and write scenes with such tools, and suitsim's own reader
(tinyxml2) accepts some things the XML standard forbids, such as `--` inside
a comment; so a file that only suitsim can read would go unnoticed without
this check. The fixtures that are malformed on purpose are listed by name,
and each must still fail here, so the list cannot go stale.

Usage: strict_xml.py --root SOURCE_DIR
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

# Folders searched, relative to the source root.
FOLDERS = ["scenes", "models", "tests"]

# Fixtures that are not well-formed on purpose: each tests a message of the
# reader's (docs/testing.md).
MALFORMED = {
    "scenes/invalid/empty_file.xml",
    "scenes/invalid/malformed_unclosed_tag.xml",
    "scenes/invalid/second_root.xml",
    "scenes/invalid/text_before_root.xml",
    "scenes/invalid/comment_double_hyphen.xml",
    "tests/robot/data/invalid/malformed.urdf",
    "tests/robot/data/invalid/comment_double_hyphen.urdf",
    "scenes/invalid/undeclared_prefix_element.xml",
    "scenes/invalid/undeclared_prefix_attribute.xml",
    "tests/robot/data/invalid/undeclared_prefix_element.urdf",
    "tests/robot/data/invalid/undeclared_prefix_attribute.urdf",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    failures = []
    checked = 0
    seen_malformed = set()
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith((".xml", ".urdf")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                try:
                    ET.parse(path)
                    error = None
                except ET.ParseError as e:
                    error = str(e)
                checked += 1
                if rel in MALFORMED:
                    seen_malformed.add(rel)
                    if error is None:
                        failures.append(f"{rel}: listed as malformed on purpose, but a strict parser reads it")
                elif error is not None:
                    failures.append(f"{rel}: not well-formed XML: {error}")
    for rel in sorted(MALFORMED - seen_malformed):
        failures.append(f"{rel}: listed as malformed on purpose, but not found")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{checked} files checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
