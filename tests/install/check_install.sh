#!/usr/bin/env bash
# Installs backsweep from BUILD_DIR into a scratch prefix, then builds and runs a
# consumer project that finds it with find_package(backsweep).
set -euo pipefail
build_dir=$1 source_dir=$2 scratch=$3
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir/tests/install" -B "$scratch/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"

# The installed program writes VTK files through the VTK module installed beside it
# (<libdir>/backsweep/), not the build's: the loader's log names the file it opened.
cat > "$scratch/heat.toml" <<'TOML'
[grid]
shape = [9, 8]
extent = [1.0, 1.0]
[model]
name = "heat"
[parameters]
k = 1.0
[initial]
u = "sin(3*x) * y"
[time]
end = 1e-3
[solver]
method = "rk4"
step = 2e-4
[output]
dir = "heat_out"
vtk = true
TOML
(cd "$scratch" && LD_DEBUG=files "$scratch/prefix/bin/backsweep" simulate heat.toml > /dev/null 2> loader.log)
test -f "$scratch/heat_out/states.pvd"
module=$(find "$scratch/prefix" -name libbacksweep_vtk_module.so)
test -n "$module"
grep -q "file=$module " "$scratch/loader.log" || { echo "the installed program did not load $module"; exit 1; }
