#!/usr/bin/env bash
# The Gray–Scott config the command-line benchmarks share: an N x N periodic grid of
# spacing 2.5/64 (so RK4 with dt 0.5 stays stable), a patch of v in the middle, J = u + v
# at the centre, store-all; END the final time, SOLVER_LINES added to [solver].
#   bench/gray_scott_toml.sh N END [SOLVER_LINES] > gs.toml
set -euo pipefail
n=$1
end=$2
length=$(python3 -c "print(2.5 * $n / 64)")
centre=$((n / 2 - 1))
cat <<EOF
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
end = $end
output = [$end]
[objective]
terminal = "u[$centre, $centre] + v[$centre, $centre]"
[checkpointing]
schedule = "store_all"
[solver]
method = "rk4"
step = 0.5
${3:-}
EOF
