// tests/gpu/thrust_backend.test.cpp and tests/gpu/member_sweep.test.cpp built by nvcc
// for CUDA. Without a GPU it reports itself skipped (ctest's SKIP_RETURN_CODE 77) rather
// than failing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <cuda_runtime.h>

#include "tests/gpu/member_sweep.test.cpp"
#include "tests/gpu/thrust_backend.test.cpp"

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  std::printf("CUDA device: %s\n", properties.name);
  return doctest::Context(argc, argv).run();
}
