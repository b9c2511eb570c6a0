// Equations on a grid as CUDA kernels built at run time (gpu/equations_device.hpp) against
// the interpreter they are generated from: right-hand sides bitwise where the equations are
// arithmetic alone (contraction off), to round-off where CUDA's exp, sin, ... run; VJPs to
// round-off; on every kind of wall in 1 to 3 axes and over the whole expression language.
// Whole gradients on ThrustAlgebra agree with the CPU's, and bitwise across checkpoint
// schedules. Without a GPU (as in CI) it checks that asking for the kernels is a clear
// NativeLibraryError, then reports itself skipped (ctest's SKIP_RETURN_CODE 77).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/equations_device.hpp"
#include "gpu/thrust_algebra.hpp"
#include "tests/gpu/backend_agreement.hpp"
#include "tests/models/expression_language.hpp"

using namespace backsweep;
using gpu::DeviceEquationModel;
using gpu::ThrustAlgebra;

namespace {

CompilerOptions cache() {
  CompilerOptions options;
  options.cache = std::filesystem::temp_directory_path() / ("backsweep_equations_cuda_" + std::to_string(::getpid()));
  return options;
}

template <class V = std::vector<double>>
V wavy(std::size_t n, double phase, double base = 1.5) {
  V v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * double(i) + phase) * 0.4 + base;
  return v;
}

ExpressionModel grid_model(const Grid& grid, const std::vector<std::string>& equations) {
  return ExpressionModel::parse(FieldEquations(grid, {"u", "v"}, {"k"}, 2), {"a", "b"}, equations);
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])))
      largest = std::max(largest, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
  return largest;
}

// The device kernels against the interpreter, at one state.
void check_against_interpreter(const ExpressionModel& interpreted, bool bitwise, gpu::DeviceVjp kernels) {
  const DeviceEquationModel device(interpreted, gpu::cuda_compiler_options(cache()), kernels);
  const std::size_t n = interpreted.state_size(), np = interpreted.param_size();
  const auto y = wavy(n, 0.4), p = wavy(np, 1.3, 0.8), lambda = wavy(n, -0.6, 0.2);
  std::vector<double> f(n), vjp(n + np);
  ExpressionModel::Tape<double> tape;
  interpreted(0.3, y.data(), p.data(), f.data());
  interpreted.vjp(tape, 0.3, y.data(), p.data(), lambda.data(), vjp.data(), vjp.data() + n);

  const ThrustAlgebra::vector<double> y_d(y.begin(), y.end()), p_d(p.begin(), p.end()), l_d(lambda.begin(), lambda.end());
  ThrustAlgebra::vector<double> f_d(n), vjp_d(n + np);
  device(0.3, y_d.data(), p_d.data(), f_d.data());
  const std::vector<double> f_got = testing::on_host(f_d);
  if (bitwise) CHECK(largest_difference(f_got, f) == 0.0);
  else CHECK(largest_difference(f_got, f) <= 1e-13);
  device.vjp(0.3, y_d.data(), p_d.data(), l_d.data(), vjp_d.data(), vjp_d.data() + n);
  const std::vector<double> vjp_got = testing::on_host(vjp_d);
  CHECK(largest_difference(vjp_got, vjp) <= 1e-12);
  // Without the parameters' adjoint, the state's is the same.
  device.vjp(0.3, y_d.data(), p_d.data(), l_d.data(), vjp_d.data(), nullptr);
  CHECK(std::equal(vjp_d.begin(), vjp_d.begin() + long(n), vjp_got.begin()));
}

struct TwoPoints {
  std::size_t a, b;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[a] + y[b] * y[b];
  }
};

}  // namespace

TEST_CASE("every operator on every wall, 1 to 3 axes: CUDA kernels = the interpreter") {
  std::vector<Grid> grids;
  for (Boundary x : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann})
    for (Boundary y : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann})
      grids.emplace_back(std::vector<std::size_t>{5, 7}, std::vector<double>{1.0, 2.0}, std::vector<Boundary>{y, x});
  grids.emplace_back(std::vector<std::size_t>{9}, std::vector<double>{1.0}, std::vector<Boundary>{Boundary::neumann});
  grids.emplace_back(std::vector<std::size_t>{1, 3}, std::vector<double>{1.0, 1.0},
                     std::vector<Boundary>{Boundary::neumann, Boundary::dirichlet});
  grids.emplace_back(std::vector<std::size_t>{3, 4, 6}, std::vector<double>{1.0, 1.5, 2.0},
                     std::vector<Boundary>{Boundary::dirichlet, Boundary::neumann, Boundary::periodic});
  for (const auto vjp : {gpu::DeviceVjp::two_pass, gpu::DeviceVjp::fused})
  for (const Grid& grid : grids) {
    CAPTURE(int(vjp));
    CAPTURE(grid.axes());
    CAPTURE(to_string(grid.boundary().front()));
    CAPTURE(to_string(grid.boundary().back()));
    const std::string last = grid.axes() == 1 ? "x" : "y", d_last = grid.axes() == 1 ? "dx(v)" : "dy(v)";
    check_against_interpreter(grid_model(grid, {"a*lap(u) - u*v^2 + div_grad(k, v) + dx(u)*x + lap(k)",
                                                "b*" + d_last + " + div_grad(u, k) + div_grad(v, u) + dx(k)*" + last}),
                              true, vjp);
  }
}

TEST_CASE("the whole expression language: CUDA kernels = the interpreter") {
  const Grid grid({4, 6}, {1.0, 1.0}, {Boundary::neumann, Boundary::periodic});
  for (const auto vjp : {gpu::DeviceVjp::two_pass, gpu::DeviceVjp::fused})
  for (const std::string& term : testing::kExpressionLanguageTerms) {
    CAPTURE(int(vjp));
    CAPTURE(term);
    check_against_interpreter(grid_model(grid, {term, "lap(u) * (" + term + ")"}), false, vjp);
  }
}

TEST_CASE("a Gray-Scott gradient on the GPU = on the CPU, and the same bits under every checkpoint schedule") {
  const Grid grid({24, 20}, {24.0, 20.0}, {Boundary::periodic, Boundary::neumann});
  const ExpressionModel host = ExpressionModel::parse(
      FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
      {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"});
  const std::vector<double> y0 = wavy(host.state_size(), 0.2, 0.5), p{0.2, 0.1, 0.04, 0.06};
  IntegrateOptions options;
  options.step = 0.5;
  options.t1 = 40 * options.step;
  const TwoPoints term{10 * 20 + 7, grid.points() + 5 * 20 + 3};
  const GradientProblem<ExpressionModel, Objective<TwoPoints>> on_cpu{host, tableaux::rk4, y0, p,
                                                                      Objective<TwoPoints>{term}, options};
  const auto expected = gradient<double>(on_cpu, y0, p, {});
  REQUIRE(expected.ok());
  for (const auto vjp : {gpu::DeviceVjp::two_pass, gpu::DeviceVjp::fused}) {
    CAPTURE(int(vjp));
    const GradientProblem<DeviceEquationModel, Objective<TwoPoints>> on_gpu{
        DeviceEquationModel(host, gpu::cuda_compiler_options(cache()), vjp), tableaux::rk4, y0, p,
        Objective<TwoPoints>{term}, options};
    std::vector<GradientResult<double>> got;
    for (const auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
      CheckpointOptions checkpointing;
      checkpointing.schedule = schedule;
      checkpointing.slots = schedule == CheckpointOptions::Schedule::revolve ? 6 : 0;
      got.push_back(gradient<double, ThrustAlgebra>(on_gpu, y0, p, checkpointing));
      REQUIRE(got.back().ok());
      CHECK(std::abs(got.back().value - expected.value) <= 1e-12 * std::abs(expected.value));
      testing::check_agreement(got.back().dJ_dy0, expected.dJ_dy0, "gradient by the initial fields");
      testing::check_agreement(got.back().dJ_dp, expected.dJ_dp, "gradient by the parameters");
    }
    CHECK(got[0].dJ_dy0 == got[1].dJ_dy0);
    CHECK(got[0].dJ_dp == got[1].dJ_dp);
  }
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    try {
      (void)gpu::cuda_compiler_options(cache());
      std::puts("FAILED: without a CUDA device, building CUDA kernels did not say so");
      return 1;
    } catch (const NativeLibraryError& error) {
      std::printf("no CUDA device: %s (checked); the rest skipped\n", error.what());
      return 77;
    }
  }
  const int failed = doctest::Context(argc, argv).run();
  std::filesystem::remove_all(cache().cache);
  return failed;
}
