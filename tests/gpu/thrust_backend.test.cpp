// The engine on ThrustAlgebra against the same engine on the CPU algebra: the algebra's
// sums and searches; a small ODE (Lorenz-63, fixed and adaptive steps); the device
// Gray–Scott kernels against the host kernel on every kind of wall in 1 to 3 dimensions;
// and the whole gradient of Gray–Scott 64 x 64 (RK4, 400 steps, J = u + v at one point;
// the problem of tests/adjoint/grid_adjoint.test.cpp) under store-all and revolve. On
// Thrust's OpenMP system the results agree bitwise; under CUDA (fused multiply-adds in
// the kernels) to rounding, and the measured difference is printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/gray_scott_device.hpp"
#include "gpu/thrust_algebra.hpp"
#include "models/builtin/gray_scott.hpp"
#include "models/builtin/lorenz63.hpp"
#include "tests/gpu/backend_agreement.hpp"
#include "tests/gpu/backend_checks.hpp"
#include "tests/models/gray_scott_fields.hpp"

using namespace backsweep;
using gpu::ThrustAlgebra;
using testing::FinalZ;
using testing::check_agreement;
using testing::kBitwise;
using testing::on_host;
using testing::relative_difference;

namespace {

// Fields with structure on every axis (not symmetric, so a wrong neighbour shows).
std::vector<double> some_fields(std::size_t n, double phase) {
  std::vector<double> y(2 * n);
  for (std::size_t i = 0; i < 2 * n; ++i) y[i] = 0.5 + 0.3 * std::sin(0.37 * double(i) + phase);
  return y;
}

struct AtPoint {
  std::size_t u, v;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[u] + y[v];
  }
};

template <class M>
GradientProblem<M, Objective<AtPoint>> gray_scott_problem(const M& model) {
  IntegrateOptions options;
  options.t1 = 200.0;
  options.step = 0.5;
  const std::size_t side = model.grid().size(0), probe = 31 * side + 31;
  return {model, tableaux::rk4, testing::gray_scott_initial_fields(model.grid()), {8e-5, 4e-5, 0.024, 0.06},
          Objective<AtPoint>{AtPoint{probe, side * side + probe}}, options};
}

}  // namespace

TEST_CASE("ThrustAlgebra: sums in a fixed order, exact on integers; first_index finds the first") {
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(40000), std::size_t(300001)}) {
    ThrustAlgebra::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = double(i % 1000);
    const double* data = x.data();
    const double total = ThrustAlgebra::sum(n, detail::Value<double>{data});
    double expected = 0.0;
    for (std::size_t i = 0; i < n; ++i) expected += double(i % 1000);
    CHECK(total == expected);  // integers below 2^53: exact in any order
    // Rounding, in a fixed order: the same bits every time.
    for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 / double(i + 3);
    const double first = ThrustAlgebra::sum(n, detail::Value<double>{data});
    for (int k = 0; k < 5; ++k) CHECK(ThrustAlgebra::sum(n, detail::Value<double>{data}) == first);
    CHECK(std::abs(first - CpuAlgebra::sum(n, detail::Value<double>{data})) <= 1e-13 * first);
    CHECK(first_non_finite<ThrustAlgebra>(n, data) == n);
    x[n / 2] = std::nan("");
    if (n > 7) x[n - 1] = INFINITY;
    CHECK(first_non_finite<ThrustAlgebra>(n, data) == n / 2);
  }
}

TEST_CASE("Lorenz-63 on ThrustAlgebra = on the CPU algebra: fixed and adaptive steps, every schedule") {
  // Small sizes: the sums add in the serial order, so even adaptive step sequences agree.
  const models::Lorenz63 model;
  for (const bool adaptive : {false, true}) {
    IntegrateOptions options;
    options.t1 = 2.0;
    if (adaptive) options.rtol = 1e-8, options.atol = 1e-10;
    else options.step = 0.01;
    const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
        model, adaptive ? Method(tableaux::dopri5) : Method(tableaux::rk4), {1.0, 1.0, 1.0},
        {10.0, 28.0, 8.0 / 3.0}, Objective<FinalZ>{}, options};
    for (const auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve,
                                CheckpointOptions::Schedule::online}) {
      CAPTURE(adaptive);
      CheckpointOptions checkpointing;
      checkpointing.schedule = schedule;
      checkpointing.slots = schedule == CheckpointOptions::Schedule::store_all ? 0 : 10;
      const auto expected = gradient<double>(problem, problem.y0, problem.p, checkpointing);
      const auto got = gradient<double, ThrustAlgebra>(problem, problem.y0, problem.p, checkpointing);
      REQUIRE(expected.ok());
      REQUIRE(got.ok());
      CHECK(got.diagnostics.steps == expected.diagnostics.steps);
      check_agreement(got.dJ_dp, expected.dJ_dp, "Lorenz-63 dJ/dp");
      check_agreement(got.dJ_dy0, expected.dJ_dy0, "Lorenz-63 dJ/dy0");
    }
  }
}

TEST_CASE("Implicit and SUNDIALS methods on ThrustAlgebra: an invalid option, not a throw") {
  const models::Lorenz63 model;
  IntegrateOptions options;
  options.step = 0.01;
  for (const Method method : {Method(tableaux::sdirk2), Method(sundials_methods::cvodes_bdf)}) {
    const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
        model, method, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, Objective<FinalZ>{}, options};
    const auto result = gradient<double, ThrustAlgebra>(problem, problem.y0, problem.p);
    CHECK(result.status == IntegrateStatus::invalid_options);
    CHECK(result.message.find("CPU backend only") != std::string::npos);
  }
}

TEST_CASE("Device Gray-Scott kernels = the host kernel on every wall, 1 to 3 axes") {
  const std::vector<Grid> grids{
      Grid({37}, {2.0}, {Boundary::dirichlet}),
      Grid({1, 9}, {1.0, 2.0}, {Boundary::periodic, Boundary::neumann}),
      Grid({13, 1}, {1.0, 2.0}, {Boundary::dirichlet, Boundary::periodic}),
      Grid({21, 300}, {1.5, 3.0}, {Boundary::periodic, Boundary::periodic}),
      Grid({17, 19}, {1.0, 2.0}, {Boundary::dirichlet, Boundary::neumann}),
      Grid({5, 6, 7}, {1.0, 1.5, 2.0}, {Boundary::neumann, Boundary::periodic, Boundary::dirichlet}),
  };
  const std::vector<double> p{8e-5, 4e-5, 0.024, 0.06};
  for (const Grid& grid : grids) {
    CAPTURE(grid.points());
    const models::GrayScott host(grid);
    const gpu::DeviceGrayScott device(grid);
    const std::size_t n = host.state_size();
    const std::vector<double> y = some_fields(grid.points(), 0.1), lambda = some_fields(grid.points(), 1.7);
    std::vector<double> f(n), vjp_y(n), vjp_p(4);
    host(0.0, y.data(), p.data(), f.data());
    host.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());

    ThrustAlgebra::vector<double> y_d(y.begin(), y.end()), lambda_d(lambda.begin(), lambda.end()),
        f_d(n), vjp_y_d(n);
    std::vector<double> vjp_p_d(4);
    device(0.0, y_d.data(), p.data(), f_d.data());
    device.vjp(0.0, y_d.data(), p.data(), lambda_d.data(), vjp_y_d.data(), vjp_p_d.data());
    check_agreement(on_host(f_d), f, "right-hand side");
    check_agreement(on_host(vjp_y_d), vjp_y, "VJP, fields");
    check_agreement(vjp_p_d, vjp_p, "VJP, parameters");
  }
}

TEST_CASE("Gray-Scott 64x64 RK4 gradient on ThrustAlgebra = on the CPU algebra") {
  const Grid grid({64, 64}, {2.5, 2.5}, {Boundary::periodic, Boundary::periodic});
  const models::GrayScott host(grid);
  const gpu::DeviceGrayScott device(grid);
  const auto host_problem = gray_scott_problem(host);
  const auto device_problem = gray_scott_problem(device);
  for (const auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    CheckpointOptions checkpointing;
    checkpointing.schedule = schedule;
    checkpointing.slots = schedule == CheckpointOptions::Schedule::revolve ? 20 : 0;
    const auto expected = gradient<double>(host_problem, host_problem.y0, host_problem.p, checkpointing);
    const auto got =
        gradient<double, ThrustAlgebra>(device_problem, device_problem.y0, device_problem.p, checkpointing);
    REQUIRE(expected.ok());
    REQUIRE(got.ok());
    CHECK(got.diagnostics.steps == 400);
    CHECK(got.diagnostics.schedule == expected.diagnostics.schedule);
    check_agreement(got.dJ_dy0, expected.dJ_dy0, "gradient field dJ/dy0");
    if (kBitwise) CHECK(got.value == expected.value);
    CHECK(std::abs(got.value - expected.value) <= 1e-13 * std::abs(expected.value));
    check_agreement(got.dJ_dp, expected.dJ_dp, "dJ/dp");
    // The growth monitor runs on the device too, and reads the same adjoint.
    REQUIRE(got.diagnostics.monitor);
    CHECK(got.diagnostics.monitor->verdict == expected.diagnostics.monitor->verdict);
  }
}
