#!/usr/bin/env bash
# The conductivity inversion example end to end: `backsweep fit` recovers k from the
# sensors, and ParaView itself opens the fitted field and the misfit's adjoint series,
# checks k against the truth (pvbatch under a virtual X server) and renders it.
#   paraview_opens_fit.sh BACKSWEEP SOURCE_DIR SCRATCH_DIR
set -euo pipefail
backsweep=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch/data" && cd "$scratch"
cp "$source/examples/heat_conductivity_fit.toml" .
cp "$source/examples/data/heat_sensors.csv" data/
"$backsweep" fit heat_conductivity_fit.toml --json > fit.json
"$source/tests/paraview/under_xvfb.sh" pvbatch "$source/tests/paraview/check_fit.py" out/heat_conductivity k.png
test -s k.png
