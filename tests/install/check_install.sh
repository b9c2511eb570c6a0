#!/usr/bin/env bash
# Installs backsweep from BUILD_DIR into a scratch prefix, then builds and runs a
# consumer project that finds it with find_package(backsweep).
set -euo pipefail
build_dir=$1 source_dir=$2 scratch=$3
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir/tests/install" -B "$scratch/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"
