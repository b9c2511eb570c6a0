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
length=$(python3 -c "print(2.5 * $n / 64)")
centre=$((n / 2 - 1))
cat >"$work/gs.toml" <<EOF
[grid]
shape = [$n, $n]
extent = [$length, $length]
boundary = "periodic"
[model]
fields = ["u", "v"]
parameters = ["D1", "D2", "gamma", "kappa"]
[model.equations]
u = "D1*lap(u) - u*v^2 + gamma*(1 - u)"
v = "D2*lap(v) + u*v^2 - (gamma + kappa)*v"
[model.constants]
L = $length
[parameters]
D1 = 8e-5
D2 = 4e-5
gamma = 0.024
kappa = 0.06
[initial]
v = "if(x >= 0.4*L and x <= 0.6*L and y >= 0.4*L and y <= 0.6*L, sin(2*pi*x/(0.4*L))^2*sin(2*pi*y/(0.4*L))^2/4, 0)"
u = "1 - 2*v"
[time]
end = 200.0
output = [200.0]
[solver]
method = "rk4"
step = 0.5
kernel_cache = "$work/kernels"
[objective]
terminal = "u[$centre, $centre] + v[$centre, $centre]"
[checkpointing]
schedule = "store_all"
EOF
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
