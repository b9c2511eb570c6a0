// The Thrust backend (gpu/) against the CPU backend on Gray–Scott, in one run:
//  - gradient time, backend / CPU: RK4 with h = 0.5, J = u + v at the centre, store-all
//    and revolve with 20 slots (the same engine on each; only the algebra and the model's
//    kernels differ), and how far the backend's gradient field is from the CPU's;
//  - the backend's right-hand side and VJP kernels against a STREAM triad run on the same
//    backend (arrays of at least 2^24 values; bytes as STREAM counts them: triad 24, RHS
//    32, VJP 48 a point), and under CUDA against the device's peak memory bandwidth.
// The grid spacing is 64^2's on [0, 2.5)^2 at every size, so the step stays stable.
//   OpenMP (this machine): build/bench/bench_backend_gray_scott_omp [side...]
//   CUDA: scripts/gpu_check.sh
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/device_bandwidth.hpp"
#include "bench/gray_scott_problem.hpp"
#include "bench/timing.hpp"
#include "gpu/gray_scott_device.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/builtin/gray_scott.hpp"

namespace {

using namespace backsweep;
using gpu::ThrustAlgebra;

using bench::AtCentre;

#if BACKSWEEP_THRUST_CUDA
constexpr const char* kBackend = "CUDA";
constexpr std::size_t kSides[] = {512, 1024, 2048};
constexpr std::size_t kSteps = 40;
#else
constexpr const char* kBackend = "OpenMP";
constexpr std::size_t kSides[] = {256, 512};
constexpr std::size_t kSteps = 100;
#endif

template <class M>
GradientProblem<M, Objective<AtCentre>> problem_for(const M& model, std::size_t side) {
  const std::vector<double> y0 = bench::gray_scott_patch(side);
  IntegrateOptions options;
  options.step = 0.5;
  options.t1 = 0.5 * double(kSteps);
  return {model, tableaux::rk4, y0, {8e-5, 4e-5, 0.024, 0.06},
          Objective<AtCentre>{bench::at_centre(side)}, options};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sides(std::begin(kSides), std::end(kSides));
  if (argc > 1) sides.assign(1, std::size_t(std::atoi(argv[1])));
  const double peak = bench::peak_bandwidth();
  std::printf("%s backend vs the CPU backend, RK4 %zu steps; kernels on the %s backend\n", kBackend,
              kSteps, kBackend);
  if (peak > 0) std::printf("device peak memory bandwidth (clock x bus): %.0f GB/s\n", peak);
  std::printf("%6s %10s %9s %9s %10s %10s %12s %12s %12s\n", "side", "triad GB/s", "RHS/triad",
              "VJP/triad", "RHS/peak", "VJP/peak", "store-all", "revolve 20", "field diff");
  std::printf("%6s %10s %9s %9s %10s %10s %12s %12s %12s\n", "", "", "", "", "", "", "backend/CPU",
              "backend/CPU", "(relative)");
  for (const std::size_t side : sides) {
    const std::size_t n = side * side;
    const double length = 2.5 / 64 * double(side);
    const Grid grid({side, side}, {length, length}, {Boundary::periodic, Boundary::periodic});
    const models::GrayScott host(grid);
    const gpu::DeviceGrayScott device(grid);

    // Kernels on the backend, each repeated to take a few milliseconds at least.
    ThrustAlgebra::vector<double> y(2 * n), f(2 * n), lambda(2 * n), vjp_y(2 * n);
    bench::TriadArrays stream(2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) {
      y[i] = 0.5 + 0.25 * double(i % 7);
      lambda[i] = 0.1 * double(i % 5);
    }
    const std::vector<double> p{8e-5, 4e-5, 0.024, 0.06};
    const int times = int(std::max<std::size_t>(3, (std::size_t(1) << 27) / n));
    const int triads = int(std::max<std::size_t>(3, (std::size_t(1) << 27) / stream.n));
    const std::vector<double> kernels = bench::interleaved_medians(
        {[&] {
           for (int k = 0; k < triads; ++k) stream.run();
         },
         [&] { for (int k = 0; k < times; ++k) device(0.0, y.data(), p.data(), f.data()); },
         [&] {
           for (int k = 0; k < times; ++k)
             device.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), nullptr);
         }},
        7);
    const double triad = stream.bytes() * triads / kernels[0] / 1e9;
    const double rhs = 32.0 * double(n) * times / kernels[1] / 1e9;
    const double vjp = 48.0 * double(n) * times / kernels[2] / 1e9;

    // Gradients on each backend, interleaved.
    const auto host_problem = problem_for(host, side);
    const auto device_problem = problem_for(device, side);
    double ratios[2];
    double field_difference = 0.0;
    for (int k = 0; k < 2; ++k) {
      CheckpointOptions checkpointing;
      checkpointing.schedule = k == 0 ? CheckpointOptions::Schedule::store_all : CheckpointOptions::Schedule::revolve;
      checkpointing.slots = k == 0 ? 0 : 20;
      GradientResult<double> on_cpu, on_backend;
      const std::vector<double> times_taken = bench::interleaved_medians(
          {[&] { on_cpu = gradient<double>(host_problem, host_problem.y0, host_problem.p, checkpointing); },
           [&] {
             on_backend = gradient<double, ThrustAlgebra>(device_problem, device_problem.y0,
                                                          device_problem.p, checkpointing);
           }},
          side >= 2048 ? 1 : 3);
      if (!on_cpu.ok() || !on_backend.ok()) {
        std::printf("a gradient failed: %s %s\n", on_cpu.message.c_str(), on_backend.message.c_str());
        return 1;
      }
      ratios[k] = times_taken[1] / times_taken[0];
      double scale = 0.0, difference = 0.0;
      for (std::size_t i = 0; i < 2 * n; ++i) {
        scale = std::max(scale, std::abs(on_cpu.dJ_dy0[i]));
        difference = std::max(difference, std::abs(on_backend.dJ_dy0[i] - on_cpu.dJ_dy0[i]));
      }
      field_difference = std::max(field_difference, difference / scale);
    }
    std::printf("%6zu %10.1f %9.2f %9.2f %10.2f %10.2f %12.3f %12.3f %12.1e\n", side, triad, rhs / triad,
                vjp / triad, peak > 0 ? rhs / peak : 0.0, peak > 0 ? vjp / peak : 0.0, ratios[0], ratios[1],
                field_difference);
    std::fflush(stdout);
  }
}
