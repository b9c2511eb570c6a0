// The discrete adjoint through a grid model: Gray–Scott on a periodic 64 x 64 grid over
// [0, 2.5)^2, RK4 with h = 0.5 for 400 steps, J = u + v at grid point (31, 31) at the end
// (the problem of CONFIG.md's "Fields" section). The gradient with respect to the
// parameters and the initial fields against the forward tangent of the same solver
// (random directions and each parameter), central differences, Taylor remainders in a
// random direction of the initial fields, and bitwise equal across schedules.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "tests/adjoint/directional_checks.hpp"
#include "tests/models/gray_scott_fields.hpp"
#include "models/builtin/gray_scott.hpp"

using namespace backsweep;

namespace {

constexpr std::size_t kSide = 64, kProbe = 31 * kSide + 31;

struct AtProbe {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[kProbe] + y[kSide * kSide + kProbe];
  }
};
using ProbeObjective = Objective<AtProbe>;

models::GrayScott gray_scott() {
  return models::GrayScott(Grid({kSide, kSide}, {2.5, 2.5}, {Boundary::periodic, Boundary::periodic}));
}

GradientProblem<models::GrayScott, ProbeObjective> make_problem(const models::GrayScott& model) {
  IntegrateOptions options;
  options.t1 = 200.0;
  options.step = 0.5;
  return {model, tableaux::rk4, testing::gray_scott_initial_fields(model.grid()), {8e-5, 4e-5, 0.024, 0.06}, {}, options};
}

}  // namespace

TEST_CASE("Gray-Scott 64x64 RK4: adjoint = forward tangent along random directions and per parameter") {
  const auto model = gray_scott();
  const auto problem = make_problem(model);
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  CHECK(adjoint.diagnostics.steps == 400);
  testing::check_against_tangent(problem, adjoint, 3);
  testing::check_each_parameter_against_tangent(problem, adjoint);
}

TEST_CASE("Gray-Scott 64x64 RK4: adjoint = central differences per parameter, Taylor rate 2") {
  const auto model = gray_scott();
  const auto problem = make_problem(model);
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  testing::check_parameters_by_differences(problem, adjoint);
  // The initial fields in a random direction, scaled to a perturbation of a few percent.
  auto v_y0 = testing::random_direction(problem.y0.size(), 7);
  for (double& x : v_y0) x *= 0.05;
  const TaylorTestReport taylor = taylor_test(problem, std::vector<double>(4, 0.0), v_y0, 0.5);
  CAPTURE(taylor.min_rate);
  CHECK(taylor.ok);
}

TEST_CASE("Gray-Scott 64x64 RK4: the gradient field is bitwise the same across schedules") {
  const auto model = gray_scott();
  const auto problem = make_problem(model);
  const auto all = gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::store_all});
  REQUIRE(all.ok());
  for (auto schedule : {CheckpointOptions::Schedule::revolve, CheckpointOptions::Schedule::online})
    for (std::size_t slots : {3u, 100u}) {
      const auto bounded = gradient<double>(problem, problem.y0, problem.p, {schedule, slots});
      REQUIRE(bounded.ok());
      CHECK(bounded.value == all.value);
      CHECK(bounded.dJ_dp == all.dJ_dp);
      CHECK(bounded.dJ_dy0 == all.dJ_dy0);
    }
}
