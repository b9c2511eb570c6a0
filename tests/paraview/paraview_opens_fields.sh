#!/usr/bin/env bash
# ParaView itself opens what `backsweep gradient` writes for the Gray-Scott example: the
# states, adjoint and gradient series (pvbatch under a virtual X server), and renders the
# gradient field.
#   paraview_opens_fields.sh BACKSWEEP SOURCE_DIR SCRATCH_DIR
set -euo pipefail
backsweep=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
"$backsweep" gradient "$source/examples/gray_scott.toml" > /dev/null

# Our own Xvfb rather than xvfb-run, for -noreset: pvbatch connects more than once, and a
# server that resets when its last client leaves refuses the next connection while it
# resets ("bad X server connection"; 5 of 20 runs under load, 0 of 44 with -noreset).
# -displayfd picks a free display and reports it once the server accepts connections.
exec 3< <(exec Xvfb -displayfd 1 -nolisten tcp -noreset -screen 0 1024x768x24 2> xvfb.log)
xvfb=$!
trap 'kill $xvfb 2> /dev/null || true' EXIT
read -r -t 30 display <&3 || { cat xvfb.log >&2; exit 1; }
DISPLAY=:$display pvbatch "$source/tests/paraview/check_fields.py" out/gray_scott gradient.png
test -s gradient.png
