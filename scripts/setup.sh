#!/usr/bin/env bash
# Installs the Debian packages suitsim needs, only those that are missing.
# Safe to run again and again; needs root (or sudo) only when installing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  ccache  # a rebuild of files that did not change is a cache look-up (scripts/build.sh)
  libeigen3-dev libtinyxml2-dev nlohmann-json3-dev libcli11-dev
  libhdf5-dev  # robots' HDF5 logs (suitsim identify/evaluate --log, run --log-format hdf5)
  libgtest-dev libbenchmark-dev
  libmujoco-dev  # optional: the MuJoCo cross-check test and benchmark
  libopenmpi-dev openmpi-bin  # optional: sweeps across processes (mpirun)
  python3-matplotlib
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest  # the Python module (import suitsim) and its tests
  libglfw3-dev libimgui-dev libgl-dev libstb-dev xvfb xauth
  clang libc++-dev libc++abi-dev libomp-dev  # the portability test: a libc++ build gives the same report
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
