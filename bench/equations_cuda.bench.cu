// Config equations as CUDA kernels built at run time (gpu/equations_device.hpp) against the
// hand-written device kernels of the same PDEs (gpu/), on the GPU, in one run: each
// kernel's bandwidth as STREAM counts bytes (fields read and written once: RHS of
// Gray–Scott 32 bytes a point, VJP 48; heat with its conductivity field 24 and 40;
// acoustic with its velocity field 40 and 56), against a triad on the same device and the
// device's peak; and the RK4 gradient (J = u + v at the centre, store-all), equations / hand.
//   scripts/gpu_check.sh (on a GPU machine)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/device_bandwidth.hpp"
#include "bench/gray_scott_problem.hpp"
#include "bench/timing.hpp"
#include "gpu/equations_device.hpp"
#include "gpu/gray_scott_device.hpp"
#include "gpu/grid_model_device.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/builtin/acoustic.hpp"
#include "models/builtin/heat.hpp"

namespace {

using namespace backsweep;
using gpu::ThrustAlgebra;

using bench::AtCentre;

ExpressionModel equations(const std::string& which, const Grid& grid) {
  if (which == "gray_scott")
    return ExpressionModel::parse(FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
                                  {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"});
  if (which == "heat") return ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
  return ExpressionModel::parse(FieldEquations(grid, {"p", "q"}, {"c"}, 0), {}, {"q", "c^2*lap(p)"});
}

// Seconds a call: the hand RHS and the equations', then the hand VJP and the equations' in
// two passes and fused (without dJ/dp, as the hand bench), interleaved.
template <class Hand>
std::vector<double> kernel_times(const Hand& hand, const ExpressionModel& model, std::size_t n, std::size_t np,
                                 int times) {
  const gpu::DeviceEquationModel config(model, gpu::cuda_compiler_options({}), gpu::DeviceVjp::two_pass);
  const gpu::DeviceEquationModel fused(model, gpu::cuda_compiler_options({}), gpu::DeviceVjp::fused);
  ThrustAlgebra::vector<double> y(n), f(n), lambda(n), vjp_y(n), p(np);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = 0.5 + 0.25 * double(i % 7);
    lambda[i] = 0.1 * double(i % 5);
  }
  const double gray_scott[] = {8e-5, 4e-5, 0.024, 0.06};  // a field elsewhere
  for (std::size_t i = 0; i < np; ++i) p[i] = np == 4 ? gray_scott[i] : 1.0 + 0.01 * double(i % 3);
  std::vector<double> seconds = bench::interleaved_medians(
      {[&] { for (int k = 0; k < times; ++k) hand(0.0, y.data(), p.data(), f.data()); },
       [&] { for (int k = 0; k < times; ++k) config(0.0, y.data(), p.data(), f.data()); },
       [&] { for (int k = 0; k < times; ++k) hand.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), nullptr); },
       [&] { for (int k = 0; k < times; ++k) config.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), nullptr); },
       [&] { for (int k = 0; k < times; ++k) fused.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), nullptr); }},
      7);
  for (double& s : seconds) s /= times;
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t side = argc > 1 ? std::size_t(std::atoi(argv[1])) : 2048, n = side * side;
  const double peak = bench::peak_bandwidth();
  bench::TriadArrays stream(2 * n);
  const double triad = stream.bytes() * 20 / bench::interleaved_medians({[&] {
                         for (int k = 0; k < 20; ++k) stream.run();
                       }}, 5)[0] / 1e9;
  std::printf("CUDA, %zu^2 points: triad %.0f GB/s, device peak %.0f GB/s (triad/peak %.2f)\n", side, triad, peak,
              triad / peak);
  std::printf("%-11s %9s %9s %12s %12s %12s %12s %12s\n", "model", "RHS/triad", "RHS/peak", "VJP2/triad",
              "VJPf/triad", "RHS cfg/hand", "VJP2 cfg/hand", "VJPf cfg/hand");
  const double length = 2.5 / 64 * double(side);
  const Grid grid({side, side}, {length, length}, {Boundary::periodic, Boundary::periodic});
  const int times = int(std::max<std::size_t>(3, (std::size_t(1) << 27) / n));
  const auto report = [&](const char* name, const std::vector<double>& s, double rhs_bytes, double vjp_bytes) {
    const double rhs = rhs_bytes * double(n) / s[1] / 1e9, vjp = vjp_bytes * double(n) / s[3] / 1e9,
                 fused = vjp_bytes * double(n) / s[4] / 1e9;
    std::printf("%-11s %9.2f %9.2f %12.2f %12.2f %12.2f %12.2f %12.2f\n", name, rhs / triad, rhs / peak, vjp / triad,
                fused / triad, s[1] / s[0], s[3] / s[2], s[4] / s[2]);
  };
  report("gray_scott", kernel_times(gpu::DeviceGrayScott(grid), equations("gray_scott", grid), 2 * n, 4, times), 32, 48);
  report("heat", kernel_times(gpu::DeviceGridModel<models::Heat>(models::Heat(grid)), equations("heat", grid), n, n,
                              times), 24, 40);
  report("acoustic", kernel_times(gpu::DeviceGridModel<models::Acoustic>(models::Acoustic(grid, {})),
                                  equations("acoustic", grid), 2 * n, n, times), 40, 56);

  // The gradient, equations / hand, on the GPU.
  const std::vector<double> y0 = bench::gray_scott_patch(side);
  IntegrateOptions integrate;
  integrate.step = 0.5;
  integrate.t1 = 20.0;
  const std::vector<double> p{8e-5, 4e-5, 0.024, 0.06};
  const Objective<AtCentre> objective{bench::at_centre(side)};
  const GradientProblem<gpu::DeviceGrayScott, Objective<AtCentre>> hand{gpu::DeviceGrayScott(grid), tableaux::rk4, y0,
                                                                        p, objective, integrate};
  const ExpressionModel model = equations("gray_scott", grid);
  const GradientProblem<gpu::DeviceEquationModel, Objective<AtCentre>> two_pass{
      gpu::DeviceEquationModel(model, gpu::cuda_compiler_options({}), gpu::DeviceVjp::two_pass), tableaux::rk4, y0, p,
      objective, integrate};
  const GradientProblem<gpu::DeviceEquationModel, Objective<AtCentre>> fused{
      gpu::DeviceEquationModel(model, gpu::cuda_compiler_options({}), gpu::DeviceVjp::fused), tableaux::rk4, y0, p,
      objective, integrate};
  GradientResult<double> a, b, c;
  const std::vector<double> s = bench::interleaved_medians(
      {[&] { a = gradient<double, ThrustAlgebra>(hand, y0, p, {}); },
       [&] { b = gradient<double, ThrustAlgebra>(two_pass, y0, p, {}); },
       [&] { c = gradient<double, ThrustAlgebra>(fused, y0, p, {}); }},
      3);
  std::printf("Gray-Scott RK4 gradient, 40 steps, store-all: equations / hand %.2f (two-pass VJP), %.2f (fused); "
              "J %.15g, %.15g, %.15g\n", s[1] / s[0], s[2] / s[0], a.value, b.value, c.value);
}
