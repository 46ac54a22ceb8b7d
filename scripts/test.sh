#!/usr/bin/env bash
# Builds everything (installing what is missing) and runs the whole test
# suite. Extra arguments go to CMake's configure step. Whole evaluations hold
# a ctest resource lock, so two never share the machine's cores at once.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh --all "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
