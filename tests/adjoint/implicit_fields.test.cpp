// Implicit methods on PDEs defined on grids (the case they exist for: diffusion whose
// explicit step limit is far below the accuracy the user needs). The Newton and stage
// matrices are factored by sparse LU on the stencils' footprints, chosen automatically;
// the discrete adjoint through them against the forward tangent of the same solver,
// central differences (the scalar, and a random direction of the parameter field),
// Taylor remainders in that direction, dense LU, and bitwise across checkpoint schedules.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/gradient_check.hpp"
#include "models/builtin/heat.hpp"
#include "models/expression_model.hpp"
#include "solvers/dirk_tableaux.hpp"
#include "solvers/implicit_rk.hpp"
#include "tests/adjoint/directional_checks.hpp"

using namespace backsweep;

namespace {

struct Probes {  // u squared at a few points, at the end
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[5 * 20 + 4] * y[5 * 20 + 4] + y[12 * 20 + 9] * y[12 * 20 + 9] + y[20 * 20 + 15];
  }
};
using Problem = GradientProblem<ExpressionModel, Objective<Probes>>;

const Grid kGrid({24, 20}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});

// u' = div(k grad u) - c u^2: a conductivity field (480 values) and a scalar.
ExpressionModel heat_with_reaction() {
  return ExpressionModel::parse(FieldEquations(kGrid, {"u"}, {"k"}, 1), {"c"}, {"div_grad(k, u) - c*u^2"});
}

std::vector<double> bump(double base, double height, double x0, double y0) {
  std::vector<double> values(kGrid.points());
  for_each_point(kGrid, [&](std::size_t point, const auto& at) {
    const double x = kGrid.coordinate(1, at[1]) - x0, y = kGrid.coordinate(0, at[0]) - y0;
    values[point] = base + height * std::exp(-(x * x + y * y) / 0.03);
  });
  return values;
}

Problem make_problem(const ExpressionModel& model, const ButcherTableau& tableau, bool adaptive) {
  IntegrateOptions options;
  options.t1 = 0.05;
  // 20 and more times RK4's stability limit (about 2.8 h_max k / dx^2 with k <= 1.5).
  options.step = adaptive ? 0.0 : 0.005;
  options.rtol = 1e-6;
  options.atol = 1e-9;
  Method method = tableau;
  method.newton.tolerance = 1e-13;  // central differences see the Newton residual
  std::vector<double> p = bump(1.0, 0.5, 0.55, 0.45);
  p.insert(p.begin(), 0.8);  // c, then the field k
  return {model, method, bump(0.0, 1.0, 0.4, 0.6), p, Objective<Probes>{}, options};
}

}  // namespace

TEST_CASE("implicit methods on a grid factor sparse LU on the stencils' footprints, unasked") {
  const ExpressionModel model = heat_with_reaction();
  CHECK(ImplicitRK(model, tableaux::sdirk2).linear_solves().choice.solver == LinearSolver::sparse);
  NewtonOptions dense;
  dense.linear_solver = LinearSolver::dense;
  CHECK(ImplicitRK(model, tableaux::sdirk2, dense).linear_solves().choice.solver == LinearSolver::dense);
  const models::Heat kernel(kGrid);
  CHECK(ImplicitRK(kernel, tableaux::sdirk2).linear_solves().choice.solver == LinearSolver::sparse);
  // A small ODE from a config keeps dense LU.
  const ExpressionModel ode = ExpressionModel::parse({"x", "y"}, {"a"}, {"-a*x", "x - y"});
  CHECK(ImplicitRK(ode, tableaux::sdirk2).linear_solves().choice.solver == LinearSolver::dense);
}

TEST_CASE("implicit heat with a conductivity field (24 x 20, Dirichlet x Neumann): adjoint = tangent, differences, "
          "Taylor, dense LU, schedules") {
  const ExpressionModel model = heat_with_reaction();
  struct Case {
    const ButcherTableau* tableau;
    bool adaptive;
  };
  for (const Case& method : {Case{&tableaux::sdirk2, false}, Case{&tableaux::esdirk3, true}}) {
    CAPTURE(method.tableau->name);
    const Problem problem = make_problem(model, *method.tableau, method.adaptive);
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(adjoint.ok());
    CHECK(adjoint.dJ_dp.size() == 481);
    testing::check_against_tangent(problem, adjoint, 3);

    // c: against the tangent alone, and central differences of the same discrete solve.
    std::vector<double> along_c(problem.p.size(), 0.0);
    along_c[0] = 1.0;
    const double tangent_c = testing::tangent_along(problem, along_c, std::vector<double>(problem.y0.size(), 0.0));
    CHECK(std::abs(adjoint.dJ_dp[0] - tangent_c) <= 1e-10 * std::abs(tangent_c));
    along_c[0] = 0.1;  // a step of 1e-5 in c
    testing::check_direction_by_differences(problem, adjoint, along_c);

    auto v_p = testing::random_direction(problem.p.size(), 5);
    for (std::size_t i = 0; i < v_p.size(); ++i) v_p[i] *= 0.05 * problem.p[i];
    testing::check_direction_by_differences(problem, adjoint, v_p);
    const TaylorTestReport taylor = taylor_test(problem, v_p, {}, 0.5);
    CAPTURE(taylor.min_rate);
    CHECK(taylor.min_rate >= 1.95);

    const auto all = gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::store_all});
    for (auto schedule : {CheckpointOptions::Schedule::revolve, CheckpointOptions::Schedule::online}) {
      const auto bounded = gradient<double>(problem, problem.y0, problem.p, {schedule, 3});
      REQUIRE(bounded.ok());
      CHECK(bounded.dJ_dp == all.dJ_dp);
      CHECK(bounded.dJ_dy0 == all.dJ_dy0);
    }
    if (method.adaptive) continue;  // dense LU at 480 unknowns takes 75 times as long
    Problem dense = problem;
    dense.method.newton.linear_solver = LinearSolver::dense;
    const auto by_dense = gradient<double>(dense, dense.y0, dense.p);
    REQUIRE(by_dense.ok());
    CHECK(by_dense.diagnostics.steps == adjoint.diagnostics.steps);
    double largest = 0, scale = 0;
    for (std::size_t j = 0; j < adjoint.dJ_dp.size(); ++j) {
      largest = std::max(largest, std::abs(by_dense.dJ_dp[j] - adjoint.dJ_dp[j]));
      scale = std::max(scale, std::abs(adjoint.dJ_dp[j]));
    }
    CHECK(largest <= 1e-10 * scale);
  }
}
