#!/usr/bin/env bash
# Peak RSS of `backsweep gradient` with memory = "1MiB": 10^7 RK4 steps of the damped
# oscillator against 10^4 in the same program. Everything the sweep keeps is in the
# budget, so the two differ by less than 16 MiB (exit 1 otherwise).
# Usage: [MODE=tangent] bench/peak_rss.sh [backsweep binary] [scratch folder]
set -euo pipefail
cli=${1:-build/apps/backsweep}
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"

peak_kib() {  # steps -> peak RSS in KiB; prints the run's schedule on stderr
  local steps=$1 config="$dir/oscillator_$1.toml"
  cat >"$config" <<TOML
[model]
name = "harmonic_oscillator"
[time]
end = 100.0
[solver]
method = "rk4"
step = $(awk "BEGIN { printf \"%.17g\", 100.0 / $steps }")
max_steps = 20000000
[objective]
terminal = "x^2 + v^2"
[gradient]
mode = "${MODE:-adjoint}"
[checkpointing]
memory = "1MiB"
[output]
dir = "$dir/out_$steps"
TOML
  local json
  json=$(/usr/bin/time -f "%M" -o "$dir/rss_$steps" "$cli" gradient "$config" --json 2>/dev/null)
  echo "$steps steps: $(grep -o '"schedule":"[a-z_]*"' <<<"$json"), $(grep -o '"slots":[0-9]*' <<<"$json"), $(grep -o '"forward_steps":[0-9]*' <<<"$json")" >&2
  cat "$dir/rss_$steps"
}

small=$(peak_kib 10000)
large=$(peak_kib 10000000)
echo "peak RSS: 10^4 steps $((small / 1024)) MiB, 10^7 steps $((large / 1024)) MiB, difference $(((large - small) / 1024)) MiB (bound 16)"
((large - small <= 16 * 1024))
