#!/usr/bin/env bash
# Two builds of the program on the same problems, through the command line, whole
# processes interleaved ROUNDS times: a refactoring of the engine must leave each within
# 5% or faster. The problems: Gray–Scott N x N from a config (its kernels compiled and
# cached by an untimed first run; 400 RK4 steps, store-all, as bench/gray_scott_config.sh)
# and on the built-in kernels (name = "gray_scott"),
# Lorenz-63 with 10^5 RK4 steps (gradient by revolve, and simulate), and Lorenz-96 of 640
# states defined by equations (gradient, 1000 RK4 steps).
#   bench/program_speed.sh OLD_BACKSWEEP NEW_BACKSWEEP [N] [ROUNDS]
# prints each problem's median seconds for both and their ratio (new / old).
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
n=${3:-512}
rounds=${4:-9}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$here/gray_scott_toml.sh" "$n" 200.0 "kernel_cache = \"$work/kernels\"" >gs.toml
sed -e 's/^end .*/end   = 100.0/' "$here/../examples/lorenz63_gradient.toml" >l63.toml
python3 - <<'EOF'
n = 640
x = lambda i: f"x{i % n}"
lines = ["[model]", "states = [" + ", ".join(f'"{x(i)}"' for i in range(n)) + "]", 'parameters = ["F"]',
         "[model.equations]"]
lines += [f'{x(i)} = "({x(i + 1)} - {x(i - 2)})*{x(i - 1)} - {x(i)} + F"' for i in range(n)]
lines += ["[parameters]", "F = 8.0", "[initial]"] + [f"{x(i)} = {8.0 + 0.01 * (i % 7)}" for i in range(n)]
lines += ["[time]", "end = 1.0", "[solver]", 'method = "rk4"', "step = 1e-3", "[objective]",
          'terminal = "' + " + ".join(f"{x(i)}^2" for i in range(n)) + '"', "[gradient]", 'mode = "adjoint"']
open("l96.toml", "w").write("\n".join(lines) + "\n")
EOF
# The same Gray–Scott on its hand-written kernels (models/builtin/gray_scott.cpp).
python3 - <<'EOF'
import re
s = open("gs.toml").read()
length = re.search(r"L = ([0-9.]+)", s).group(1)
s = re.sub(r"\[model\].*?\[parameters\]", '[model]\nname = "gray_scott"\n[parameters]', s, flags=re.S)
head, tail = s.split("[initial]")
open("gs_builtin.toml", "w").write(head + "[initial]" + re.sub(r"\bL\b", length, tail))
EOF
problems=("gradient gs.toml" "gradient gs_builtin.toml" "gradient l63.toml" "simulate l63.toml" "gradient l96.toml")
names=("Gray-Scott ${n}^2 gradient" "Gray-Scott ${n}^2 built-in kernel gradient" "Lorenz-63 10^5 steps gradient"
       "Lorenz-63 10^5 steps simulate" "Lorenz-96 640 states gradient")
seconds() {  # of the whole process, to the microsecond
  local start
  start=$(date +%s%N)
  "$@" --output-dir "$work/out" >/dev/null 2>&1
  echo "$(( ($(date +%s%N) - start) / 1000 ))e-6"
}
for program in "$old" "$new"; do "$program" gradient gs.toml --output-dir warm >/dev/null 2>&1; done
for i in "${!problems[@]}"; do : >"old$i"; : >"new$i"; done
for round in $(seq "$rounds"); do
  for i in "${!problems[@]}"; do
    # shellcheck disable=SC2086
    seconds "$old" ${problems[$i]} >>"old$i"
    # shellcheck disable=SC2086
    seconds "$new" ${problems[$i]} >>"new$i"
  done
done
for i in "${!problems[@]}"; do
  python3 - "${names[$i]}" "old$i" "new$i" <<'EOF'
import statistics, sys
old, new = (statistics.median(float(v) for v in open(f)) for f in sys.argv[2:])
print(f"{sys.argv[1]}: old {old:.4f} s, new {new:.4f} s, new / old {new / old:.3f}")
EOF
done
