#!/usr/bin/env bash
# ParaView itself opens what `backsweep gradient` writes for the Gray-Scott example: the
# states, adjoint and gradient series (pvbatch under a virtual X server), and renders the
# gradient field.
#   paraview_opens_fields.sh BACKSWEEP SOURCE_DIR SCRATCH_DIR
set -euo pipefail
backsweep=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
"$backsweep" gradient "$source/examples/gray_scott.toml" > /dev/null
"$source/tests/paraview/under_xvfb.sh" pvbatch "$source/tests/paraview/check_fields.py" out/gray_scott gradient.png
test -s gradient.png
