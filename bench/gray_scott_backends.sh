#!/usr/bin/env bash
# Gray–Scott through the command line on the cpu and cuda backends: the config of
# bench/gray_scott_toml.sh (RK4 with dt 0.5, J = u + v at the centre, its gradient by the
# initial fields and parameters, store-all) with END/0.5 steps, whole processes,
# interleaved, ROUNDS times. A first run of each builds the kernels into the cache and is
# not timed (its compile_seconds are printed).
#   bench/gray_scott_backends.sh PROGRAM N [ROUNDS] [END]
# prints each round's seconds and the ratio cpu / cuda (whole processes, and the sweeps
# alone), and both runs' J and dJ/dp.
set -euo pipefail
cli=$(realpath "$1")
n=$2
rounds=${3:-3}
end=${4:-200.0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for backend in cpu cuda; do
  "$(dirname "$0")/gray_scott_toml.sh" "$n" "$end" "backend = \"$backend\"
kernel_cache = \"$work/kernels\"" >"$work/$backend.toml"
done
cd "$work"
TIMEFORMAT=%R
seconds() { { time "$cli" gradient "$1.toml" --output-dir "out_$1" --json >"$1.json" 2>"$1.err"; } 2>&1; }
for backend in cpu cuda; do
  seconds "$backend" >/dev/null || { cat "$backend.err"; exit 1; }
  python3 -c "import json; print('$backend first run:', json.load(open('$backend.json'))['diagnostics'].get('kernels'))"
done
for round in $(seq "$rounds"); do
  cpu=$(seconds cpu)
  cuda=$(seconds cuda)
  python3 -c "print(f'round $round: cpu $cpu s, cuda $cuda s, cpu / cuda {$cpu / $cuda:.1f}')"
done
python3 - <<'PY'
import json
cpu, cuda = (json.load(open(f"{b}.json")) for b in ("cpu", "cuda"))
print(f"J: cpu {cpu['objective']:.15g}, cuda {cuda['objective']:.15g}")
for name, g in cpu["gradient"]["parameters"].items():
    print(f"dJ/d{name}: cpu {g:.15g}, cuda {cuda['gradient']['parameters'][name]:.15g}")
print("cuda run's kernels:", cuda["diagnostics"].get("kernels"))
sweeps = [d["diagnostics"]["forward_seconds"] + d["diagnostics"]["backward_seconds"] for d in (cpu, cuda)]
print(f"forward and backward sweeps: cpu {sweeps[0]:.2f} s, cuda {sweeps[1]:.2f} s, cpu / cuda {sweeps[0] / sweeps[1]:.1f}")
for name, d in (("cpu", cpu), ("cuda", cuda)):
    print(f"  {name}: forward {d['diagnostics']['forward_seconds']:.2f} s, backward {d['diagnostics']['backward_seconds']:.2f} s")
PY
