// tests/gpu/thrust_backend.test.cpp, member_sweep.test.cpp and grid_models_device.test.cpp built by nvcc
// for CUDA: member_sweep here, the others in thrust_backend_test_cuda.cu and
// grid_models_device_cuda.cu (a translation unit each, compiled side by side). Without a
// GPU (as in CI) it checks that asking for the CUDA backend is a clear error, not a crash,
// then reports itself skipped (ctest's SKIP_RETURN_CODE 77).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <exception>
#include <string>

#include <cuda_runtime.h>

#include "tests/gpu/member_sweep.test.cpp"

namespace {

// Without a device: the engine on ThrustAlgebra throws CUDA's reason, and every member of
// an ensemble fails with it.
bool no_device_is_a_clear_error() {
  const auto problem = member_sweep_test::lorenz(false);
  bool clear = true;
  for (const auto& result : gpu::member_gradients(problem, testing::spread_lorenz_members(2))) {
    std::printf("member: %s\n", result.message.c_str());
    clear = clear && result.status == IntegrateStatus::invalid_options && result.message.starts_with("CUDA");
  }
  try {
    gradient<double, gpu::ThrustAlgebra>(problem, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0});
    clear = false;
  } catch (const std::exception& error) {
    std::printf("gradient on ThrustAlgebra: %s\n", error.what());
    clear = clear && std::string(error.what()).starts_with("CUDA");
  }
  return clear;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (!no_device_is_a_clear_error()) {
      std::puts("FAILED: without a CUDA device the backend did not report it");
      return 1;
    }
    std::puts("no CUDA device: the backend reports it (checked); the rest skipped");
    return 77;
  }
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  std::printf("CUDA device: %s\n", properties.name);
  return doctest::Context(argc, argv).run();
}
