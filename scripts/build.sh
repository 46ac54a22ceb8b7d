#!/usr/bin/env bash
# Installs what is missing, configures suitsim in ./build (Release) and builds
# the `suitsim` command with the libraries it needs: what the README's first
# command runs. --all builds everything else too (the Python module where
# pybind11 is installed, the viewer, the benchmarks, the tests). Other
# arguments go to CMake's configure step, for example -DSUITSIM_NATIVE=ON or
# -DSUITSIM_BUILD_VIEWER=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(--target suitsim)
configure=()
for arg in "$@"; do
  if [[ "$arg" == "--all" ]]; then targets=(); else configure+=("$arg"); fi
done
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${configure[@]}" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
