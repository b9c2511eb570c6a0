#!/usr/bin/env bash
# Runs a command (pvbatch) under a virtual X server of its own:
#   under_xvfb.sh COMMAND ARGS...
# Not xvfb-run, for -noreset: pvbatch connects more than once, and a server that resets
# when its last client leaves refuses the next connection while it resets ("bad X server
# connection"; 5 of 20 runs under load with xvfb-run, 0 of 60 with -noreset).
# -displayfd picks a free display and reports it once the server accepts connections.
set -euo pipefail
log=$(mktemp)
exec 3< <(exec Xvfb -displayfd 1 -nolisten tcp -noreset -screen 0 1024x768x24 2> "$log")
xvfb=$!
trap 'kill $xvfb 2> /dev/null || true; rm -f "$log"' EXIT
read -r -t 30 display <&3 || { cat "$log" >&2; exit 1; }
DISPLAY=:$display "$@"
