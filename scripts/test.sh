#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite twice: a Release
# build, then a build with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build -j2 --output-on-failure

BACKSWEEP_BUILD_DIR=build-sanitize \
  BACKSWEEP_CMAKE_ARGS="-DBACKSWEEP_SANITIZE=ON -DBACKSWEEP_BUILD_BENCH=OFF" \
  scripts/setup.sh
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize -j2 --output-on-failure
