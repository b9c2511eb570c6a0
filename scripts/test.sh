#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite under AddressSanitizer
# and UndefinedBehaviorSanitizer, and the tests of the program again as shipped (a Release
# build, with the CUDA backend compiled, and the benchmarks at -Og: that they build is all
# a test asks of them): every test runs once with the sanitizers, and the program's (apps,
# corpus, ParaView, peak RSS, install) at -O3.
set -euo pipefail
cd "$(dirname "$0")/.."
BACKSWEEP_TESTS=program BACKSWEEP_CMAKE_ARGS="-DBACKSWEEP_CUDA=ON -DBACKSWEEP_BENCH_OPTIMIZED=OFF" scripts/setup.sh
ctest --test-dir build -j2 --output-on-failure

BACKSWEEP_BUILD_DIR=build-sanitize BACKSWEEP_PYTHON=OFF \
  BACKSWEEP_CMAKE_ARGS="-DBACKSWEEP_SANITIZE=ON -DBACKSWEEP_BUILD_BENCH=OFF" \
  scripts/setup.sh
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize -j2 --output-on-failure
