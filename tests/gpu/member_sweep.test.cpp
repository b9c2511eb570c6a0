// member_gradients (gpu/member_sweep.hpp), a member's whole gradient inside one thread,
// against the CPU engine run member by member: 2000 Lorenz-63 members, J = z(1), fixed
// RK4 and adaptive Dormand-Prince (each member its own steps). On Thrust's OpenMP system
// they agree bitwise; under CUDA (fused multiply-adds) the
// measured difference is printed. Then central differences of the member sweep's own
// values, and its failures: a NaN, a member that needs more steps than it keeps, a method
// it does not run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/member_sweep.hpp"
#include "models/builtin/lorenz63.hpp"
#include "tests/gpu/lorenz_members.hpp"

using namespace backsweep;

namespace member_sweep_test {

using testing::FinalZ;
using Problem = GradientProblem<models::Lorenz63, Objective<FinalZ>>;

Problem lorenz(bool adaptive) {
  IntegrateOptions options;
  if (adaptive) options.rtol = 1e-8, options.atol = 1e-10;
  else options.step = 0.01;
  return {models::Lorenz63{}, adaptive ? Method(tableaux::dopri5) : Method(tableaux::rk4), {}, {},
          Objective<FinalZ>{}, options};
}

// The largest difference relative to the largest magnitude of `expected`.
double relative(const std::vector<double>& got, const std::vector<double>& expected) {
  double difference = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    difference = std::max(difference, std::abs(got[i] - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  return difference / scale;
}

void check_against_engine(bool adaptive) {
  const Problem problem = lorenz(adaptive);
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
    worst = std::max({worst, relative({results[b].value}, {serial.value}), relative(results[b].dJ_dp, serial.dJ_dp),
                      relative(results[b].dJ_dy0, serial.dJ_dy0)});
    if (results[b].value == serial.value && results[b].dJ_dp == serial.dJ_dp && results[b].dJ_dy0 == serial.dJ_dy0)
      ++bitwise;
    if (results[b].diagnostics.steps != results[0].diagnostics.steps) ++steps_differ;
  }
  std::printf("member sweep vs the CPU engine, %s: max relative difference %.2e, %zu of %zu members bitwise\n",
              adaptive ? "adaptive" : "fixed", worst, bitwise, members.size());
  CHECK(worst <= (BACKSWEEP_THRUST_CUDA ? 1e-10 : 1e-14));
  if (!BACKSWEEP_THRUST_CUDA) CHECK(bitwise == members.size());  // the same operations in the same order
  if (adaptive) CHECK(steps_differ > 0);  // each member its own steps
}

}  // namespace member_sweep_test

using namespace member_sweep_test;

TEST_CASE("Member sweep, fixed RK4: every member's gradient is the CPU engine's") { check_against_engine(false); }

TEST_CASE("Member sweep, adaptive Dormand-Prince: every member's gradient and steps are the CPU engine's") {
  check_against_engine(true);
}

TEST_CASE("Member sweep: dJ/dp and dJ/dy0 against central differences of its own values") {
  const Problem problem = lorenz(false);
  const gpu::EnsembleMember centre = testing::spread_lorenz_members(1)[0];
  // Member 0 is the centre; then +-h along each parameter and each initial state.
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
    const double difference =
        (results[1 + k].value - results[7 + k].value) / (2 * h * std::max(1.0, std::abs(x)));
    const double adjoint = k < 3 ? results[0].dJ_dp[k] : results[0].dJ_dy0[k - 3];
    CAPTURE(k);
    CHECK(std::abs(difference - adjoint) <= 1e-6 * std::max(1.0, std::abs(adjoint)));
  }
}

TEST_CASE("Member sweep: a NaN, too many steps to keep and an implicit method are reported per member") {
  auto members = testing::spread_lorenz_members(3);
  members[1].y0[2] = std::numeric_limits<double>::quiet_NaN();
  const auto fixed = gpu::member_gradients(lorenz(false), members);
  CHECK(fixed[0].ok());
  CHECK(fixed[1].status == IntegrateStatus::non_finite_state);
  CHECK(fixed[1].message.find("state component") != std::string::npos);
  CHECK(fixed[2].ok());

  const auto short_slab = gpu::member_gradients(lorenz(true), testing::spread_lorenz_members(2), 10);
  for (const auto& result : short_slab) {
    CHECK(result.status == IntegrateStatus::max_steps_reached);
    CHECK(result.message.find("the most a member keeps") != std::string::npos);
  }

  Problem implicit = lorenz(false);
  implicit.method = Method(tableaux::sdirk2);
  const auto refused = gpu::member_gradients(implicit, testing::spread_lorenz_members(2));
  for (const auto& result : refused) {
    CHECK(result.status == IntegrateStatus::invalid_options);
    CHECK(result.message.find("explicit Runge-Kutta methods only") != std::string::npos);
  }
}
