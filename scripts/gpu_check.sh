#!/usr/bin/env bash
# The CUDA backend's tests and benchmarks (gpu/: Gray–Scott, heat, advection–diffusion and
# acoustic fields, Lorenz-63 ensembles; config equations as CUDA kernels built at run time)
# and the program's cuda backend against its cpu backend, built with nvcc (warnings as
# errors) and run on a GPU.
#   scripts/gpu_check.sh                     build in build-gpu for this machine's GPU, and run
#   scripts/gpu_check.sh --pack DIR [BUILD]  build for Hopper (no GPU needed) into DIR, or take
#                                            what BUILD (CUDA on, Hopper) built, with the shared
#                                            libraries a machine without the project's
#                                            dependencies lacks
#   scripts/gpu_check.sh --run DIR           run what --pack packed (on the GPU machine; it
#                                            needs nvcc, and a C++ compiler for the cpu backend)
set -euo pipefail
cd "$(dirname "$0")/.."
tests=(test_gpu_thrust_backend_cuda test_gpu_equations_cuda)
benches=(bench_backend_gray_scott_cuda bench_backend_grid_models_cuda bench_ensemble_lorenz_cuda bench_equations_cuda)

build() {  # build(folder, CUDA architectures)
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DBACKSWEEP_CUDA=ON -DBACKSWEEP_CUDA_TESTS=ON -DBACKSWEEP_WERROR=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$2" > "$1.configure.log"
  cmake --build "$1" -j"$(nproc)" --target "${tests[@]}" "${benches[@]}" backsweep
}

collect() {  # collect(build folder, destination)
  cp "${tests[@]/#/$1/tests/}" "${benches[@]/#/$1/bench/}" "$1/apps/backsweep" bench/gray_scott_backends.sh \
    bench/gray_scott_toml.sh "$2/"
}

run() {  # run(folder holding the tests, the benchmarks and the program)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  export BACKSWEEP_NVCC=${BACKSWEEP_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  export BACKSWEEP_CXX=${BACKSWEEP_CXX:-$(command -v g++ || command -v c++)}
  for test in "${tests[@]}"; do "$1/$test"; done
  "$1/bench_equations_cuda" 2048
  "$1/gray_scott_backends.sh" "$1/backsweep" 2048 2 50.0
  for bench in bench_backend_gray_scott_cuda bench_backend_grid_models_cuda bench_ensemble_lorenz_cuda; do
    "$1/$bench"
  done
}

case "${1:-}" in
  --pack)
    out=${2:?--pack needs a folder}
    mkdir -p "$out/lib"
    if [[ -n "${3:-}" ]]; then
      cmake --build "$3" -j2 --target "${tests[@]}" "${benches[@]}" backsweep
      collect "$3" "$out"
    else
      build "$out/build" 90
      collect "$out/build" "$out"
      rm -rf "$out/build"
    fi
    # Every shared library but the C and C++ runtimes (the GPU machine's are newer).
    ldd "$out"/test_* "$out"/bench_* "$out/backsweep" |
      awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux)[.-]/ {print $3}' |
      sort -u | xargs -r cp -L -t "$out/lib" ;;
  --run)
    dir=${2:?--run needs a folder}
    LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      run "$dir" ;;
  *)
    build build-gpu native
    mkdir -p build-gpu/checks
    collect build-gpu build-gpu/checks
    run build-gpu/checks ;;
esac
