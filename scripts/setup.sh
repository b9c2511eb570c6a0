#!/usr/bin/env bash
# Installs the Debian 12 packages backsweep needs (only those missing), then configures
# and builds it in build/ (incremental: fast when nothing changed).
#   BACKSWEEP_BUILD_DIR  build folder (default build)
#   BACKSWEEP_CMAKE_ARGS extra CMake arguments
#   BACKSWEEP_TARGETS    the targets to build (default: all)
#   BACKSWEEP_TESTS      all (default), program: only the tests of the program as shipped,
#                        or none: no tests or benchmarks, nor the packages only they need
#   BACKSWEEP_PYTHON     ON (default): also the Python module, with .venv holding its PyPI
#                        packages (python/requirements.txt); OFF: without
#   CI=true              warnings become errors
set -euo pipefail
cd "$(dirname "$0")/.."

tests=${BACKSWEEP_TESTS:-all}
python=${BACKSWEEP_PYTHON:-ON}
packages=(cmake ninja-build g++ libhdf5-dev libtomlplusplus-dev libcli11-dev
          nlohmann-json3-dev libeigen3-dev liblbfgspp-dev libsundials-dev libsuitesparse-dev libsbml5-dev
          libyaml-cpp-dev openmpi-bin libopenmpi-dev paraview-dev)
[ "$tests" = none ] || packages+=(doctest-dev libbenchmark-dev time python3 paraview python3-paraview xvfb)
[ "$python" = ON ] && packages+=(python3 python3-dev python3-venv)
# Thrust for the OpenMP backend (gpu/): the CUDA toolkit's own, else Debian's.
[ -e /usr/local/cuda/include/cccl/thrust/version.h ] || packages+=(libthrust-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# The Python module's packages, in a virtual environment of Debian's Python (refreshed when
# the requirements change). What the build needs (nanobind, scikit-build-core) comes first;
# the rest, what the module's tests meet (numpy, jax, torch: a minute and a half of
# downloads), comes in the background while the C++ builds.
python_args=(-DBACKSWEEP_PYTHON="$python")
pip_pid=""
if [ "$python" = ON ]; then
  python_args+=(-DPython_EXECUTABLE="$PWD/.venv/bin/python")
  stamp=.venv/requirements.txt
  if ! cmp -s python/requirements.txt "$stamp"; then
    echo "setup: installing the Python module's packages in .venv (python/requirements.txt)" >&2
    /usr/bin/python3 -m venv .venv  # Debian's (a python3 earlier on PATH may lack ssl or headers)
    pip=(.venv/bin/pip install -q --disable-pip-version-check)
    mapfile -t build_needs < <(grep -E '^(nanobind|scikit-build-core)' python/requirements.txt)
    "${pip[@]}" "${build_needs[@]}"
    "${pip[@]}" -r python/requirements.txt &
    pip_pid=$!
  fi
fi

build_dir=${BACKSWEEP_BUILD_DIR:-build}
werror=OFF
[ "${CI:-}" = true ] && werror=ON
test_args=(-DBACKSWEEP_BUILD_TESTS=ON -DBACKSWEEP_BUILD_BENCH=ON -DBACKSWEEP_BENCH_OPTIMIZED=ON
           -DBACKSWEEP_TESTS="$tests")
[ "$tests" = none ] && test_args=(-DBACKSWEEP_BUILD_TESTS=OFF -DBACKSWEEP_BUILD_BENCH=OFF)
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBACKSWEEP_WERROR=$werror "${test_args[@]}" \
  "${python_args[@]}" ${BACKSWEEP_CMAKE_ARGS:-} >/dev/null
# shellcheck disable=SC2086
cmake --build "$build_dir" -j2 ${BACKSWEEP_TARGETS:+--target $BACKSWEEP_TARGETS}
if [ -n "$pip_pid" ]; then
  wait "$pip_pid"  # set -e: a failed install fails the setup
  cp python/requirements.txt "$stamp"
fi
