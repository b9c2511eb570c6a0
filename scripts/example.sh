#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main examples: a conductivity field of
# 64 x 64 values recovered from 64 temperature sensors (examples/heat_conductivity_fit.toml;
# the fitted field and the misfit's adjoint fields go to out/heat_conductivity/*.pvd for
# ParaView), then Lotka-Volterra's parameters fitted, then Lorenz-63 simulated from
# examples/lorenz63.toml (written to out/lorenz63/trajectory.{csv,h5}), then the gradient
# of an objective of it by the discrete adjoint with revolve checkpointing; and an SIR
# model defined in examples/sir.toml, simulated and differentiated; and Gray-Scott on a
# 64 x 64 grid, whose gradient and adjoint fields go to out/gray_scott/*.pvd for ParaView.
set -euo pipefail
cd "$(dirname "$0")/.."
BACKSWEEP_PYTHON=OFF BACKSWEEP_TESTS=none BACKSWEEP_TARGETS=backsweep scripts/setup.sh  # the program alone: no tests, benchmarks or Python
build/apps/backsweep fit examples/heat_conductivity_fit.toml
build/apps/backsweep fit examples/lotka_volterra_fit.toml
build/apps/backsweep simulate examples/lorenz63.toml
build/apps/backsweep gradient examples/lorenz63_gradient.toml
build/apps/backsweep simulate examples/sir.toml
build/apps/backsweep gradient examples/sir.toml
build/apps/backsweep gradient examples/gray_scott.toml
