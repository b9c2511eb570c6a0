#!/usr/bin/env bash
# ParaView opens what a grid split over 2 ranks writes: examples/gray_scott.toml on the
# built-in Gray-Scott kernel under `mpirun -np 2`, whose fields come out as partitioned
# ImageData (a .pvti a time, a .vti piece a rank) that ParaView must read as one
# 64 x 64 dataset, with the checks of the run alone (check_fields.py); the run record
# lists every piece.
#   paraview_opens_pieces.sh BACKSWEEP SOURCE_DIR SCRATCH_DIR MPIEXEC
set -euo pipefail
backsweep=$1 source=$2 scratch=$3 mpiexec=$4
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
# The example with its equations replaced by the kernel that computes them.
sed -e '/^\[model\]/,/^\[parameters\]/{/^\[parameters\]/!d}' -e 's/^\[parameters\]/[model]\nname = "gray_scott"\n\n[parameters]/' \
  "$source/examples/gray_scott.toml" > gray_scott.toml
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
"$mpiexec" --oversubscribe -np 2 "$backsweep" gradient gray_scott.toml --json > run.json
grep -q '"split": *"grid"' run.json || { echo "the grid was not split: $(cat run.json)"; exit 1; }
for series in states adjoint gradient; do
  test -s "out/gray_scott/$series/${series}_0.pvti"
  test -s "out/gray_scott/$series/${series}_0_1.vti"
  grep -q "${series}/${series}_0_1.vti" out/gray_scott/gradient_run.json || { echo "the run record does not list $series' pieces"; exit 1; }
done
"$source/tests/paraview/under_xvfb.sh" pvbatch "$source/tests/paraview/check_fields.py" out/gray_scott gradient.png
test -s gradient.png
