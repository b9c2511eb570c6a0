// member_gradients (gpu/member_sweep.hpp), a member's whole gradient inside one thread,
// against the CPU engine run member by member: 2000 Lorenz-63 members, J = z(1) + sigma
// x(1), fixed RK4 and adaptive Dormand-Prince (each member its own steps). On Thrust's
// OpenMP system they agree bitwise; under CUDA (fused multiply-adds) the measured
// difference is printed. Then central differences of the member sweep's own values,
// ensemble_gradients, and failures reported as the engine reports them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/ensemble.hpp"
#include "gpu/member_sweep.hpp"
#include "models/builtin/lorenz63.hpp"
#include "tests/gpu/backend_checks.hpp"

using namespace backsweep;

namespace member_sweep_test {

// Reads a parameter too, so dJ/dp has the term's own part.
struct ZPlusSigmaX {
  BACKSWEEP_EXEC_CHECK_DISABLE  // also instantiated with host-only scalars (a dependency tracer)
  template <class T>
  BACKSWEEP_HOST_DEVICE T operator()(const T* y, const T* p) const {
    return y[2] + p[0] * y[0];
  }
};
// Overflows at the end: a NaN or Inf that appears in the backward sweep alone.
struct Overflowing {
  BACKSWEEP_EXEC_CHECK_DISABLE  // also instantiated with host-only scalars (a dependency tracer)
  template <class T>
  BACKSWEEP_HOST_DEVICE T operator()(const T* y, const T*) const {
    return y[2] * 1e300 * 1e300;
  }
};

// dy/dt = p sqrt(y): from y = 0 with p = 0 the solution stays 0, but the VJP divides 0 by
// 0, so a NaN appears in the backward sweep alone, at its first step.
struct SqrtGrowth {
  static constexpr std::size_t n_state = 1, n_param = 1;
  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::sqrt;
    dydt[0] = p[0] * sqrt(y[0]);
  }
  BACKSWEEP_HOST_DEVICE void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
                                 double* vjp_p) const {
    vjp_y[0] = lambda[0] * p[0] / (2.0 * std::sqrt(y[0]));
    if (vjp_p) vjp_p[0] = lambda[0] * std::sqrt(y[0]);
  }
};
struct FinalY {
  BACKSWEEP_EXEC_CHECK_DISABLE  // also instantiated with host-only scalars (a dependency tracer)
  template <class T>
  BACKSWEEP_HOST_DEVICE T operator()(const T* y, const T*) const {
    return y[0];
  }
};

template <class Terminal = ZPlusSigmaX>
GradientProblem<models::Lorenz63, Objective<Terminal>> lorenz(bool adaptive) {
  IntegrateOptions options;
  if (adaptive) options.rtol = 1e-8, options.atol = 1e-10;
  else options.step = 0.01;
  return {models::Lorenz63{}, adaptive ? Method(tableaux::dopri5) : Method(tableaux::rk4), {}, {},
          Objective<Terminal>{}, options};
}

bool same(const GradientResult<double>& a, const GradientResult<double>& b) {
  return a.value == b.value && a.dJ_dp == b.dJ_dp && a.dJ_dy0 == b.dJ_dy0 && a.diagnostics.steps == b.diagnostics.steps;
}

void check_against_engine(bool adaptive) {
  const auto problem = lorenz(adaptive);
  const auto members = testing::spread_lorenz_members(2000);
  const auto results = gpu::member_gradients(problem, members);
  REQUIRE(results.size() == members.size());
  double worst = 0.0;
  std::size_t bitwise = 0, steps_differ = 0;
  for (std::size_t b = 0; b < members.size(); ++b) {
    const auto serial = gradient<double>(problem, members[b].y0, members[b].p);
    REQUIRE(serial.ok());
    REQUIRE_MESSAGE(results[b].ok(), results[b].message);
    REQUIRE(results[b].diagnostics.steps == serial.diagnostics.steps);
    for (const double difference :
         {testing::relative_difference({results[b].value}, {serial.value}),
          testing::relative_difference(results[b].dJ_dp, serial.dJ_dp),
          testing::relative_difference(results[b].dJ_dy0, serial.dJ_dy0)})
      worst = std::max(worst, difference);
    if (same(results[b], serial)) ++bitwise;
    if (results[b].diagnostics.steps != results[0].diagnostics.steps) ++steps_differ;
  }
  std::printf("member sweep vs the CPU engine, %s: max relative difference %.2e, %zu of %zu members bitwise\n",
              adaptive ? "adaptive" : "fixed", worst, bitwise, members.size());
  if (BACKSWEEP_THRUST_CUDA) CHECK(worst <= 1e-10);
  else CHECK(bitwise == members.size());  // the same operations in the same order
  if (adaptive) CHECK(steps_differ > 0);  // each member its own steps
}

}  // namespace member_sweep_test

using namespace member_sweep_test;

TEST_CASE("Member sweep, fixed RK4: every member's gradient is the CPU engine's") { check_against_engine(false); }

TEST_CASE("Member sweep, adaptive Dormand-Prince: every member's gradient and steps are the CPU engine's") {
  check_against_engine(true);
}

TEST_CASE("Member sweep: dJ/dp and dJ/dy0 against central differences of its own values") {
  const auto problem = lorenz(false);
  const gpu::EnsembleMember centre = testing::spread_lorenz_members(1)[0];
  // Member 0 is the centre; then +h and -h along each parameter and each initial state.
  std::vector<gpu::EnsembleMember> members{centre};
  const double h = 1e-6;
  for (int side : {1, -1})
    for (std::size_t k = 0; k < 6; ++k) {
      gpu::EnsembleMember shifted = centre;
      double& x = k < 3 ? shifted.p[k] : shifted.y0[k - 3];
      x += side * h * std::max(1.0, std::abs(x));
      members.push_back(shifted);
    }
  const auto results = gpu::member_gradients(problem, members);
  for (const auto& result : results) REQUIRE(result.ok());
  for (std::size_t k = 0; k < 6; ++k) {
    const double x = k < 3 ? centre.p[k] : centre.y0[k - 3];
    const double difference = (results[1 + k].value - results[7 + k].value) / (2 * h * std::max(1.0, std::abs(x)));
    const double adjoint = k < 3 ? results[0].dJ_dp[k] : results[0].dJ_dy0[k - 3];
    CAPTURE(k);
    CHECK(std::abs(difference - adjoint) <= 1e-6 * std::max(1.0, std::abs(adjoint)));
  }
}

TEST_CASE("ensemble_gradients gives the member sweep's gradients (the engine's on OpenMP, the sweep's on CUDA)") {
  const auto members = testing::spread_lorenz_members(64);
  for (const bool adaptive : {false, true}) {
    const auto problem = lorenz(adaptive);
    const auto ensemble = gpu::ensemble_gradients(problem, members);
    const auto swept = gpu::member_gradients(problem, members);
    for (std::size_t b = 0; b < members.size(); ++b) CHECK(same(ensemble[b], swept[b]));
  }
  CHECK(gpu::member_gradients(lorenz(false), {}).empty());
}

TEST_CASE("Member sweep: a NaN is reported as the engine reports it, forward (fixed and adaptive) and backward") {
  auto members = testing::spread_lorenz_members(3);
  members[1].y0[2] = std::numeric_limits<double>::quiet_NaN();
  const auto fixed = lorenz(false);
  const auto results = gpu::member_gradients(fixed, members);
  const auto engine = gradient<double>(fixed, members[1].y0, members[1].p);
  CHECK(results[0].ok());
  CHECK(results[2].ok());
  CHECK(results[1].status == IntegrateStatus::non_finite_state);
  CHECK(results[1].message == engine.message);
  REQUIRE(results[1].diagnostics.nonfinite);
  CHECK(results[1].diagnostics.nonfinite->phase == "forward");
  // Adaptive: the NaN makes the first step's size NaN, which the engine reports as a
  // collapsed step.
  const auto adaptive = gpu::member_gradients(lorenz(true), members);
  CHECK(adaptive[1].status == gradient<double>(lorenz(true), members[1].y0, members[1].p).status);
  CHECK(adaptive[1].status == IntegrateStatus::step_size_too_small);

  const auto overflowing = lorenz<Overflowing>(false);
  const auto backward = gpu::member_gradients(overflowing, testing::spread_lorenz_members(1));
  CHECK(backward[0].status == IntegrateStatus::non_finite_state);
  CHECK(backward[0].message == gradient<double>(overflowing, members[0].y0, members[0].p).message);
  REQUIRE(backward[0].diagnostics.nonfinite);
  CHECK(backward[0].diagnostics.nonfinite->phase == "terminal");

  // A NaN in the adjoint after a backward step: reported with that step, as the engine
  // reports it.
  IntegrateOptions options;
  options.step = 0.1;
  const GradientProblem<SqrtGrowth, Objective<FinalY>> sqrt_growth{SqrtGrowth{}, tableaux::rk4, {0.0}, {0.0},
                                                                  Objective<FinalY>{}, options};
  const auto engine_nan = gradient<double>(sqrt_growth, {0.0}, {0.0});
  const auto sweep_nan = gpu::member_gradients(sqrt_growth, {gpu::EnsembleMember{{0.0}, {0.0}}});
  REQUIRE(engine_nan.diagnostics.nonfinite);
  CHECK(engine_nan.diagnostics.nonfinite->phase == "backward");
  CHECK(sweep_nan[0].status == IntegrateStatus::non_finite_state);
  CHECK(sweep_nan[0].message == engine_nan.message);
  REQUIRE(sweep_nan[0].diagnostics.nonfinite);
  CHECK(sweep_nan[0].diagnostics.nonfinite->step == engine_nan.diagnostics.nonfinite->step);
}

TEST_CASE("Member sweep: too many steps to keep, invalid options and an implicit method are refused per member") {
  const auto short_slab = gpu::member_gradients(lorenz(true), testing::spread_lorenz_members(2), 10);
  for (const auto& result : short_slab) {
    CHECK(result.status == IntegrateStatus::max_steps_reached);
    CHECK(result.message.find("the most a member keeps") != std::string::npos);
  }

  auto backwards = lorenz(false);
  backwards.integrate.t1 = -1.0;
  const auto engine = gradient<double>(backwards, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0});
  REQUIRE(engine.status == IntegrateStatus::invalid_options);
  for (const auto& result : gpu::member_gradients(backwards, testing::spread_lorenz_members(2))) {
    CHECK(result.status == IntegrateStatus::invalid_options);
    CHECK(result.message == engine.message);
  }

  auto implicit = lorenz(false);
  implicit.method = Method(tableaux::sdirk2);
  for (const auto& result : gpu::member_gradients(implicit, testing::spread_lorenz_members(2))) {
    CHECK(result.status == IntegrateStatus::invalid_options);
    CHECK(result.message.find("explicit Runge-Kutta methods only") != std::string::npos);
  }
}
