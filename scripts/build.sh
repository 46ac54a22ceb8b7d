#!/usr/bin/env bash
# Installs what is missing, configures and builds suitsim in ./build (Release).
# Extra arguments go to CMake's configure step, e.g. -DSUITSIM_BUILD_BENCH=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
