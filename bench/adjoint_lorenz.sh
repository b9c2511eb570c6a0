#!/usr/bin/env bash
# Gradient/forward time ratio and peak RSS for store-all and revolve (s = 100), one
# process each. Usage: bench/adjoint_lorenz.sh [build dir]
set -euo pipefail
bench=${1:-build}/bench/bench_adjoint_lorenz
"$bench" store_all
"$bench" revolve 100
