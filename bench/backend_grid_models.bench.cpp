// The Thrust backend (gpu/) against the CPU backend on heat (a conductivity field),
// advection–diffusion and acoustic (a velocity field), in one run, on square grids:
//  - the device kernels (gpu::DeviceGridModel, one thread a point) against a STREAM triad
//    on the same backend, and under CUDA against the device's peak; bytes as STREAM counts
//    them, each array read or written once a point: heat RHS 24 / VJP 40 (by u and k),
//    advection–diffusion 16 / 16 (by u), acoustic 40 / 56 (by p, q and c);
//  - the gradient, RK4 store-all, backend / CPU (the same engine on each), and how far the
//    backend's gradient by the initial field is from the CPU's.
//   OpenMP (this machine): build/bench/bench_backend_grid_models_omp [side]
//   CUDA: scripts/gpu_check.sh
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/device_bandwidth.hpp"
#include "bench/timing.hpp"
#include "gpu/grid_model_device.hpp"
#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/heat.hpp"

namespace {

using namespace backsweep;
using gpu::DeviceGridModel;
using gpu::ThrustAlgebra;

struct AtPoint {
  std::size_t point;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[point];
  }
};

#if BACKSWEEP_THRUST_CUDA
constexpr const char* kBackend = "CUDA";
constexpr std::size_t kSides[] = {1024, 2048};
#else
constexpr const char* kBackend = "OpenMP";
constexpr std::size_t kSides[] = {256, 512};
#endif
constexpr std::size_t kSteps = 40;

std::vector<double> wavy(std::size_t n, double base, double amplitude) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + amplitude * std::sin(0.001 * double(i));
  return v;
}

template <class M>
void measure(const char* name, const M& host, const std::vector<double>& y0, const std::vector<double>& p,
             double step, double rhs_bytes, double vjp_bytes, double peak) {
  const DeviceGridModel<M> device(host);
  const std::size_t n = host.state_size(), np = host.param_size(), points = host.grid().points();

  // Kernels on the backend, each repeated to take a few milliseconds at least.
  ThrustAlgebra::vector<double> y(y0.begin(), y0.end()), p_d(p.begin(), p.end()), f(n), lambda(n), vjp_y(n),
      vjp_p(np);
  for (std::size_t i = 0; i < n; ++i) lambda[i] = 0.1 * double(i % 5);
  bench::TriadArrays stream(n);
  const int times = int(std::max<std::size_t>(3, (std::size_t(1) << 27) / n));
  const int triads = int(std::max<std::size_t>(3, (std::size_t(1) << 27) / stream.n));
  const std::vector<double> kernels = bench::interleaved_medians(
      {[&] {
         for (int k = 0; k < triads; ++k) stream.run();
       },
       [&] { for (int k = 0; k < times; ++k) device(0.0, y.data(), p_d.data(), f.data()); },
       [&] {
         for (int k = 0; k < times; ++k)
           device.vjp(0.0, y.data(), p_d.data(), lambda.data(), vjp_y.data(),
                      DeviceGridModel<M>::kScalarParameters ? nullptr : vjp_p.data());
       }},
      7);
  const double triad = stream.bytes() * triads / kernels[0] / 1e9;
  const double rhs = rhs_bytes * double(points) * times / kernels[1] / 1e9;
  const double vjp = vjp_bytes * double(points) * times / kernels[2] / 1e9;

  // Gradients on each backend, interleaved.
  IntegrateOptions options;
  options.step = step;
  options.t1 = step * double(kSteps);
  const Objective<AtPoint> objective{AtPoint{points / 2 + host.grid().size(0) / 2}};
  const GradientProblem<M, Objective<AtPoint>> on_cpu{host, tableaux::rk4, y0, p, objective, options};
  const GradientProblem<DeviceGridModel<M>, Objective<AtPoint>> on_device{device, tableaux::rk4, y0, p, objective,
                                                                          options};
  GradientResult<double> expected, got;
  const std::size_t side = host.grid().size(0);
  const std::vector<double> seconds = bench::interleaved_medians(
      {[&] { expected = gradient<double>(on_cpu, y0, p); },
       [&] { got = gradient<double, ThrustAlgebra>(on_device, y0, p); }},
      side >= 2048 ? 1 : 3);
  if (!expected.ok() || !got.ok()) {
    std::printf("a gradient failed: %s %s\n", expected.message.c_str(), got.message.c_str());
    std::exit(1);
  }
  double scale = 0.0, difference = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::abs(expected.dJ_dy0[i]));
    difference = std::max(difference, std::abs(got.dJ_dy0[i] - expected.dJ_dy0[i]));
  }
  std::printf("%-20s %6zu %10.1f %9.2f %9.2f %10.2f %10.2f %12.3f %12.1e\n", name, side, triad, rhs / triad,
              vjp / triad, peak > 0 ? rhs / peak : 0.0, peak > 0 ? vjp / peak : 0.0, seconds[1] / seconds[0],
              difference / scale);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sides(std::begin(kSides), std::end(kSides));
  if (argc > 1) sides.assign(1, std::size_t(std::atoi(argv[1])));
  const double peak = bench::peak_bandwidth();
  std::printf("%s backend vs the CPU backend, RK4 %zu steps; kernels on the %s backend\n", kBackend, kSteps,
              kBackend);
  if (peak > 0) std::printf("device peak memory bandwidth (clock x bus): %.0f GB/s\n", peak);
  std::printf("%-20s %6s %10s %9s %9s %10s %10s %12s %12s\n", "model", "side", "triad GB/s", "RHS/triad",
              "VJP/triad", "RHS/peak", "VJP/peak", "store-all", "field diff");
  std::printf("%-20s %6s %10s %9s %9s %10s %10s %12s %12s\n", "", "", "", "", "", "", "", "backend/CPU",
              "(relative)");
  for (const std::size_t side : sides) {
    const std::size_t points = side * side;
    const double h = 1.0 / double(side);
    {
      const Grid grid({side, side}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});
      measure("heat", models::Heat(grid), wavy(points, 1.0, 0.5), wavy(points, 1.0, 0.5), 0.1 * h * h, 24, 40,
              peak);
    }
    {
      const Grid grid({side, side}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic});
      measure("advection_diffusion", models::AdvectionDiffusion(grid), wavy(points, 1.0, 0.5),
              {1e-3, 0.3, 0.2}, 0.1 * h, 16, 16, peak);
      std::vector<double> y0 = wavy(2 * points, 0.0, 1.0);
      measure("acoustic", models::Acoustic(grid, {points / 2, 10.0, 0.1, 1.0}), y0, wavy(points, 1.0, 0.2),
              0.2 * h, 40, 56, peak);
    }
  }
}
