// The built-in grid models' device kernels (gpu/grid_model_device.hpp: heat with a
// conductivity field, advection–diffusion, acoustic with a velocity field) against the
// host models, on every kind of wall in 1 to 3 dimensions (axes of one and two points
// included), and whole gradients through the engine on ThrustAlgebra against the engine
// on the CPU. On Thrust's OpenMP system they agree bitwise (each thread runs the host's
// own point kernel; scalar parameters' dJ/dp are summed by x rows as the host sums them,
// ThrustAlgebra::row_sums). Under CUDA (fused multiply-adds) everything agrees to rounding, and the
// measured difference is printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/grid_model_device.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/heat.hpp"
#include "tests/gpu/backend_agreement.hpp"
#include "tests/gpu/backend_checks.hpp"

using namespace backsweep;

namespace grid_models_device_test {

using gpu::DeviceGridModel;
using gpu::ThrustAlgebra;
using testing::check_agreement;
using testing::on_host;

template <class V = std::vector<double>>
V wavy(std::size_t n, double phase, double base = 0.0) {
  V v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + 0.5 * std::sin(0.37 * double(i) + phase);
  return v;
}

// The device model's right-hand side and VJP against the host model's, at one state.
template <class M>
void check_kernels(const M& host, const std::vector<double>& p) {
  const DeviceGridModel<M> device(host);
  const std::size_t n = host.state_size(), np = host.param_size();
  const auto y = wavy(n, 0.1), lambda = wavy(n, 1.7);
  std::vector<double> f(n), vjp_y(n), vjp_p(np);
  host(0.2, y.data(), p.data(), f.data());
  host.vjp(0.2, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());

  const auto y_d = wavy<ThrustAlgebra::vector<double>>(n, 0.1), lambda_d = wavy<ThrustAlgebra::vector<double>>(n, 1.7);
  const ThrustAlgebra::vector<double> p_d(p.begin(), p.end());
  ThrustAlgebra::vector<double> f_d(n), vjp_y_d(n), vjp_p_d(np);
  device(0.2, y_d.data(), p_d.data(), f_d.data());
  device.vjp(0.2, y_d.data(), p_d.data(), lambda_d.data(), vjp_y_d.data(), vjp_p_d.data());
  check_agreement(on_host(f_d), f, "right-hand side");
  check_agreement(on_host(vjp_y_d), vjp_y, "VJP by the state");
  check_agreement(on_host(vjp_p_d), vjp_p, "VJP by the parameters");
  // Without vjp_p: the state's part alone, the same.
  device.vjp(0.2, y_d.data(), p_d.data(), lambda_d.data(), vjp_y_d.data(), nullptr);
  check_agreement(on_host(vjp_y_d), vjp_y, "VJP by the state, without dJ/dp");
}

// A nonlinear reading of the state at two points.
struct TwoPoints {
  std::size_t a, b;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[a] + y[b] * y[b];
  }
};

// The engine's gradient of the host model on the CPU and of the device model on
// ThrustAlgebra, under store-all and revolve.
template <class M>
void check_gradient(const M& host, const std::vector<double>& y0, const std::vector<double>& p, double step,
                    TwoPoints term) {
  IntegrateOptions options;
  options.step = step;
  options.t1 = 100 * step;
  const GradientProblem<M, Objective<TwoPoints>> on_cpu{host, tableaux::rk4, y0, p, Objective<TwoPoints>{term},
                                                       options};
  const GradientProblem<DeviceGridModel<M>, Objective<TwoPoints>> on_device{
      DeviceGridModel<M>(host), tableaux::rk4, y0, p, Objective<TwoPoints>{term}, options};
  for (const auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    CheckpointOptions checkpointing;
    checkpointing.schedule = schedule;
    checkpointing.slots = schedule == CheckpointOptions::Schedule::revolve ? 12 : 0;
    const auto expected = gradient<double>(on_cpu, y0, p, checkpointing);
    const auto got = gradient<double, ThrustAlgebra>(on_device, y0, p, checkpointing);
    REQUIRE(expected.ok());
    REQUIRE(got.ok());
    CHECK(got.diagnostics.steps == 100);
    CHECK(std::abs(got.value - expected.value) <= 1e-13 * std::abs(expected.value));
    check_agreement(got.dJ_dy0, expected.dJ_dy0, "gradient by the initial field");
    check_agreement(got.dJ_dp, expected.dJ_dp, "gradient by the parameters");
    // The gradient is not trivial: the term reaches the parameters.
    CHECK(std::any_of(expected.dJ_dp.begin(), expected.dJ_dp.end(), [](double g) { return g != 0.0; }));
  }
}

}  // namespace grid_models_device_test

TEST_CASE("Device heat, advection-diffusion and acoustic kernels = the host kernels on every wall, 1 to 3 axes") {
  using namespace grid_models_device_test;
  const std::vector<Grid> grids{
      Grid({37}, {2.0}, {Boundary::dirichlet}),
      Grid({2, 9}, {1.0, 2.0}, {Boundary::periodic, Boundary::neumann}),
      Grid({1, 5}, {1.0, 2.0}, {Boundary::neumann, Boundary::dirichlet}),
      Grid({13, 1}, {1.0, 2.0}, {Boundary::dirichlet, Boundary::periodic}),
      Grid({2, 1}, {1.0, 2.0}, {Boundary::neumann, Boundary::neumann}),
      Grid({17, 19}, {1.0, 2.0}, {Boundary::periodic, Boundary::neumann}),
      Grid({5, 6, 7}, {1.0, 1.5, 2.0}, {Boundary::neumann, Boundary::periodic, Boundary::dirichlet}),
      Grid({4, 2, 3}, {1.0, 1.5, 2.0}, {Boundary::periodic, Boundary::dirichlet, Boundary::neumann}),
  };
  for (const Grid& grid : grids) {
    CAPTURE(grid.points());
    CAPTURE(grid.axes());
    check_kernels(models::Heat(grid), wavy(grid.points(), 1.3, 2.0));
    check_kernels(models::AdvectionDiffusion(grid), {0.05, 0.3, -0.2, 0.7});  // D, then a velocity an axis
    check_kernels(models::Acoustic(grid, {grid.points() / 2, 5.0, 0.2, 1.0}), wavy(grid.points(), 0.4, 1.5));
  }
}

TEST_CASE("Heat, advection-diffusion and acoustic RK4 gradients on ThrustAlgebra = on the CPU algebra") {
  using namespace grid_models_device_test;
  SUBCASE("heat, by the conductivity field (Dirichlet and Neumann walls)") {
    const Grid grid({20, 24}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});
    check_gradient(models::Heat(grid), wavy(grid.points(), 0.3, 1.0), wavy(grid.points(), 1.1, 1.0), 1e-4,
                   {10 * 24 + 12, 5 * 24 + 3});
  }
  SUBCASE("advection-diffusion in 3-D, by D and the velocity (every kind of wall)") {
    const Grid grid({6, 7, 8}, {1.0, 1.0, 1.0}, {Boundary::neumann, Boundary::periodic, Boundary::dirichlet});
    check_gradient(models::AdvectionDiffusion(grid), wavy(grid.points(), 0.3, 1.0), {0.05, 0.3, -0.2, 0.7}, 2e-3,
                   {3 * 56 + 3 * 8 + 4, 2 * 56 + 5 * 8 + 1});
  }
  SUBCASE("acoustic, by the velocity field, a Ricker source at the centre") {
    const Grid grid({20, 24}, {1.0, 1.2}, {Boundary::periodic, Boundary::dirichlet});
    const models::Acoustic model(grid, {10 * 24 + 12, 10.0, 0.05, 1.0});
    check_gradient(model, std::vector<double>(2 * grid.points(), 0.0), wavy(grid.points(), 0.4, 1.0), 1e-3,
                   {10 * 24 + 15, 7 * 24 + 12});
  }
}
