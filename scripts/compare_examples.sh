#!/usr/bin/env bash
# Runs every example under each command it supports (simulate; gradient with [objective]
# or [data]; fit with [data]; lyapunov with [lyapunov]) with two builds of the program,
# and reports any difference in their --json output (timings removed), their CSV files
# or their exit codes: a refactoring must leave every result bitwise as it was. The run
# records (*_run.json) are left out: their run id, output folder and times are the run's.
#   scripts/compare_examples.sh OLD_BACKSWEEP NEW_BACKSWEEP
set -uo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

without_timings() {
  python3 -c '
import json, sys
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if "seconds" not in k and "per_second" not in k}
    return [clean(v) for v in o] if isinstance(o, list) else o
for line in sys.stdin:
    if line.startswith("{"): print(json.dumps(clean(json.loads(line)), sort_keys=True))'
}

run_all() {  # program, folder
  mkdir -p "$2"
  for config in examples/*.toml; do
    name=$(basename "$config" .toml)
    for command in simulate gradient fit lyapunov; do
      case $command in
        gradient) grep -q '^\[objective\]\|^\[data\]' "$config" || continue ;;
        fit) grep -q '^\[data\]' "$config" || continue ;;
        lyapunov) grep -q '^\[lyapunov\]' "$config" || continue ;;
      esac
      "$1" "$command" "$config" --json --set "output.dir=\"$2/$name-$command\"" 2>/dev/null |
        without_timings > "$2/$name-$command.json"
      echo "$name $command exit ${PIPESTATUS[0]}" >> "$2/exits.txt"
    done
  done
}

run_all "$(realpath "$1")" "$work/old"
run_all "$(realpath "$2")" "$work/new"
differences=0
while IFS= read -r file; do
  cmp -s "$work/old/$file" "$work/new/$file" || { echo "differs: $file"; differences=1; }
done < <(cd "$work/old" && find . -type f \( -name '*.json' -o -name '*.csv' -o -name exits.txt \) ! -name '*_run.json')
[ "$differences" = 0 ] && echo "every example's results are identical ($(wc -l < "$work/old/exits.txt") runs)"
exit "$differences"
