#!/usr/bin/env bash
# Gray–Scott through the command line against PETSc's TSAdjoint on the same problem
# (bench/petsc_gray_scott.c): an N x N periodic grid of spacing 2.5/64, RK4 with dt 0.5
# for 400 steps, J = u + v at the centre, its gradient with respect to the initial fields
# and the four parameters, store-all. Whole processes, interleaved, ROUNDS times; the
# config's kernels are compiled (and cached) by a first run that is not timed.
#   bench/gray_scott_config.sh BUILD_DIR N [ROUNDS]
# prints each round's seconds and the ratios (PETSc / backsweep; backsweep's gradient /
# forward; interpreted / compiled), and checks that both computed the same J and dJ/dp.
set -euo pipefail
build=$(realpath "$1")
n=$2
rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$(dirname "$0")/gray_scott_toml.sh" "$n" 200.0 "kernel_cache = \"$work/kernels\"" >"$work/gs.toml"
sed 's/^kernel_cache = .*/kernels = "interpreted"/' "$work/gs.toml" >"$work/gs_interpreted.toml"
cli="$build/apps/backsweep"
petsc="$build/bench/bench_petsc_gray_scott"
seconds() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
cd "$work"
"$cli" gradient gs.toml --output-dir warm >/dev/null 2>&1  # compiles the kernels once
for round in $(seq "$rounds"); do
  gradient=$(seconds "$cli" gradient gs.toml --output-dir out --json)
  forward=$(seconds "$cli" simulate gs.toml --output-dir sim)
  interpreted=$( ((n <= 256)) && seconds "$cli" gradient gs_interpreted.toml --output-dir interp || echo nan)
  petsc_total=$( { /usr/bin/time -f %e "$petsc" "$n" >petsc.txt; } 2>&1 | tail -1)
  read -r petsc_forward petsc_gradient petsc_j petsc_dp <<<"$(tail -1 petsc.txt | cut -d' ' -f1-4)"
  echo "round $round: backsweep gradient $gradient s, simulate $forward s, interpreted gradient $interpreted s;" \
    "PETSc process $petsc_total s (its forward $petsc_forward s, gradient $petsc_gradient s)"
  python3 -c "print(f'  PETSc / backsweep (gradient, whole processes): {$petsc_total / $gradient:.1f}; '
               f'backsweep gradient / forward: {$gradient / $forward:.2f}; interpreted / compiled: {float(\"$interpreted\") / $gradient:.1f}')"
done
"$cli" gradient gs.toml --output-dir check --json 2>/dev/null >ours.json
python3 - "$petsc_j" "$petsc_dp" ours.json <<'EOF'
import json, sys
ours = json.loads(open(sys.argv[3]).readline())
print(f"J: backsweep {ours['objective']:.15g}, PETSc {float(sys.argv[1]):.15g}; "
      f"dJ/dD1: backsweep {ours['gradient']['parameters']['D1']:.15g}, PETSc {float(sys.argv[2]):.15g}")
EOF
