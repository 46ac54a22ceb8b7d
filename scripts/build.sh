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
# ccache where it is installed (setup.sh installs it), unless the caller
# chose a launcher: CMake takes these variables when it first configures
# ./build. It saves nothing on a first build; a rebuild after `git pull` or
# in a fresh clone then compiles only what changed. The sloppiness lets it
# cache files compiled with a precompiled header (cmake/PrecompiledHeaders.cmake).
if command -v ccache >/dev/null && [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  # Paths relative to the clone, so that two clones (or worktrees) of the
  # same sources share the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${configure[@]}" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
