#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example: Lorenz-63 simulated from
# examples/lorenz63.toml, written to out/lorenz63/trajectory.{csv,h5}.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/apps/backsweep simulate examples/lorenz63.toml
