#!/usr/bin/env bash
# The CUDA backend's test and benchmarks (gpu/: Gray–Scott, heat, advection–diffusion and
# acoustic fields, Lorenz-63 ensembles), built with nvcc (warnings as errors) and run on a
# GPU.
#   scripts/gpu_check.sh                 build in build-gpu for this machine's GPU, and run
#   scripts/gpu_check.sh --pack DIR      build for Hopper (no GPU needed) into DIR, with the
#                                        shared libraries a machine without the project's
#                                        dependencies lacks (SUNDIALS, SuiteSparse)
#   scripts/gpu_check.sh --run DIR       run what --pack built (on the GPU machine)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(test_gpu_thrust_backend_cuda bench_backend_gray_scott_cuda bench_backend_grid_models_cuda
  bench_ensemble_lorenz_cuda)

build() {  # build(folder, CUDA architectures)
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DBACKSWEEP_CUDA=ON -DBACKSWEEP_WERROR=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$2" -DBACKSWEEP_BUILD_APPS=OFF > "$1.configure.log"
  cmake --build "$1" -j"$(nproc)" --target "${targets[@]}"
}

run() {  # run(folder holding the test and the benchmarks)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  "$1/test_gpu_thrust_backend_cuda"
  "$1/bench_backend_gray_scott_cuda"
  "$1/bench_backend_grid_models_cuda"
  "$1/bench_ensemble_lorenz_cuda"
}

case "${1:-}" in
  --pack)
    out=${2:?--pack needs a folder}
    mkdir -p "$out/lib"
    build "$out/build" 90
    cp "$out/build/tests/test_gpu_thrust_backend_cuda" "$out"/build/bench/bench_*_cuda "$out/"
    # The shared libraries outside the C++ and CUDA runtimes.
    ldd "$out"/*_cuda |
      awk '/sundials|klu|amd|colamd|btf|suitesparse|cholmod|gomp|blas|lapack|gfortran|quadmath/ {print $3}' |
      sort -u | xargs -r cp -L -t "$out/lib"
    rm -rf "$out/build" ;;
  --run)
    dir=${2:?--run needs a folder}
    LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      run "$dir" ;;
  *)
    build build-gpu native
    cp build-gpu/tests/test_gpu_thrust_backend_cuda build-gpu/bench/bench_*_cuda build-gpu/
    run build-gpu ;;
esac
