#!/usr/bin/env bash
# Fuzzes the config front end (TOML, sections, expressions, the kernel generator, one RHS
# and VJP) with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer. Not part of
# CI: it runs for FUZZ_SECONDS (600), seeded with the example configs, and prints the
# executions and the coverage. Findings are written as crash-*/timeout-*/oom-* files in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DBACKSWEEP_FUZZ=ON -DBACKSWEEP_BUILD_TESTS=OFF -DBACKSWEEP_BUILD_BENCH=OFF \
  -DBACKSWEEP_BUILD_APPS=OFF -DBACKSWEEP_OPENMP=OFF -DBACKSWEEP_CUDA=OFF >/dev/null
cmake --build build-fuzz --target fuzz_config -j2
mkdir -p build-fuzz/corpus
cp examples/*.toml examples/data/*.toml build-fuzz/corpus/
cd build-fuzz  # findings land here; configs that name data files find none, which is fine
fuzz/fuzz_config corpus -dict=../fuzz/config.dict -max_total_time="$seconds" -max_len=4096 \
  -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 2>&1 | tee fuzz.log | grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::|ERROR|SUMMARY"
