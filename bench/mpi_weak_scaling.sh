#!/usr/bin/env bash
# Weak scaling over MPI ranks on this machine, 1 -> 2 ranks, whole processes under mpirun:
#  - shots: the acoustic inversion (examples/fwi_fit.toml, 48 x 48, run to t = 12 so that
#    a shot outweighs the process's start) with SHOTS shots a rank, `gradient` on 1 rank (SHOTS shots) and on 2 ranks (2 SHOTS shots): the
#    efficiency is t(1 rank) / t(2 ranks), 1 when twice the work takes the same time;
#  - a grid split over ranks: Gray–Scott's gradient on N x N points a rank
#    (bench/grid_blocks.bench.cpp, RK4, revolve in 8 slots), on 1 rank (N x N) and on 2
#    (2N x N, a block each): the efficiency in time a point a step, and the halo
#    exchange's share of the gradient;
#  - the same through the command line: the config's Gray–Scott (equations, compiled
#    kernels) on N x N with `mpirun -np 1` and on 2N x N with `-np 2`, whole runs
#    (the kernels' start, the gathered HDF5 outputs included);
#  - the ceiling such a split meets here: Gray–Scott's gradient on an N x N
#    grid (bench/gray_scott_toml.sh), one process alone against two at once, one thread
#    each, revolve in 8 slots: the memory bandwidth the two cores share, whatever the
#    halo exchange costs.
# Best of ROUNDS; every process has OMP_NUM_THREADS=1.
#   bench/mpi_weak_scaling.sh BUILD_DIR [SHOTS] [N] [ROUNDS]
set -euo pipefail
build=$(realpath "$1")
shots=${2:-4}
n=${3:-1024}
rounds=${4:-3}
here=$(realpath "$(dirname "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cli="$build/apps/backsweep"
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
cd "$work"
cp -r "$here/../examples/data" .

# The inversion with `count` shots, sources evenly along x, each fitting shot s1's traces
# (data/shots_<count>.csv).
shots_config() {
  { head -1 data/fwi_traces.csv
    for k in $(seq "$1"); do grep ',s1$' data/fwi_traces.csv | sed "s/,s1\$/,s$k/"; done
  } >"data/shots_$1.csv"
  { sed '/^\[\[experiments\]\]/,$d' "$here/../examples/fwi_fit.toml"
    for k in $(seq "$1"); do
      echo "[[experiments]]"
      echo "id = \"s$k\""
      echo "parameters = { xs = $(python3 -c "print(0.1 + 0.8 * ($k - 0.5) / $1)") }"
    done
    sed -n '/^\[\[estimate\]\]/,$p' "$here/../examples/fwi_fit.toml"
  } | sed "s|data/fwi_traces.csv|data/shots_$1.csv|"
}
shots_config "$shots" >one.toml
shots_config $((2 * shots)) >two.toml
"$here/gray_scott_toml.sh" "$n" 20.0 "kernel_cache = \"$work/kernels\"" >gs.toml
sed -e "s/^shape = .*/shape = [$((2 * n)), $n]/" -e "s/^extent = \[\([^,]*\),/extent = [$(python3 -c "print(5.0 * $n / 64)"),/" \
  gs.toml >gs2.toml  # twice the planes at the same spacing
gs=(gs.toml --set checkpointing.schedule=revolve --set checkpointing.slots=8)  # memory, not its capacity
gs2=(gs2.toml --set checkpointing.schedule=revolve --set checkpointing.slots=8)

seconds() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
best() { tr ' ' '\n' | sort -g | head -1; }
"$cli" gradient one.toml --set time.end=12.0 --output-dir warm >/dev/null 2>&1  # compiles the kernels once
"$cli" gradient "${gs[@]}" --output-dir warm >/dev/null 2>&1
one="" two="" alone="" pair="" split1="" split2=""
for round in $(seq "$rounds"); do
  one+=" $(seconds mpirun -np 1 "$cli" gradient one.toml --set time.end=12.0 --output-dir o1)"
  two+=" $(seconds mpirun --oversubscribe -np 2 "$cli" gradient two.toml --set time.end=12.0 --output-dir o2)"
  alone+=" $(seconds "$cli" gradient "${gs[@]}" --output-dir g1)"
  start=$(date +%s.%N)
  "$cli" gradient "${gs[@]}" --output-dir g2 >/dev/null 2>&1 &
  "$cli" gradient "${gs[@]}" --output-dir g3 >/dev/null 2>&1
  wait
  pair+=" $(python3 -c "print(round($(date +%s.%N) - $start, 2))")"
  split1+=" $(seconds mpirun -np 1 "$cli" gradient "${gs[@]}" --output-dir s1)"
  split2+=" $(seconds mpirun --oversubscribe -np 2 "$cli" gradient "${gs2[@]}" --output-dir s2)"
  echo "round $round: shots ${shots}/1 rank ${one##* } s, $((2 * shots))/2 ranks ${two##* } s;" \
    "Gray-Scott ${n}^2 alone ${alone##* } s, two at once ${pair##* } s;" \
    "config split ${n}^2/1 rank ${split1##* } s, $((2 * n))x${n}/2 ranks ${split2##* } s"
done
t1=$(echo $one | best) t2=$(echo $two | best) g1=$(echo $alone | best) g2=$(echo $pair | best)
c1=$(echo $split1 | best) c2=$(echo $split2 | best)
python3 -c "print(f'weak scaling 1 -> 2 ranks: shots {$t1 / $t2:.2f}; config grid split {$c1 / $c2:.2f};' \\
  f' grid ceiling (two processes sharing the memory bandwidth) {$g1 / $g2:.2f}')"
blocks="$build/bench/bench_grid_blocks"
b1=$(mpirun -np 1 "$blocks" "$n" "$n" 40 "$rounds")
b2=$(mpirun --oversubscribe -np 2 "$blocks" "$n" "$n" 40 "$rounds")
echo "$b1"
echo "$b2"
s1=$(echo "$b1" | sed 's/.*steps: \([0-9.]*\) s.*/\1/') s2=$(echo "$b2" | sed 's/.*steps: \([0-9.]*\) s.*/\1/')
python3 -c "print(f'grid split over 1 -> 2 ranks: weak-scaling efficiency {$s1 / $s2:.2f}')"
