// Implicit methods on a 3-D grid with Krylov stage solves (solvers/krylov/): a heat
// equation with a conductivity field and a reaction, its stage matrices solved by GMRES
// and CG with multigrid. The discrete adjoint through them against the forward tangent of
// the same solver, central differences, Taylor remainders and KLU's gradient; bitwise
// across checkpoint schedules; auto's choice; a linear model's Jacobian and multigrid taken
// once; a solve that cannot converge named by stage, iterations and residual.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "models/expression_model.hpp"
#include "solvers/dirk_tableaux.hpp"
#include "solvers/implicit_rk.hpp"
#include "tests/adjoint/directional_checks.hpp"

using namespace backsweep;

namespace {

// Array order [z, y, x]: Dirichlet, Neumann and periodic walls.
const Grid kGrid({6, 9, 10}, {1.0, 1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann, Boundary::periodic});

struct Probes {  // u at three points, one squared, at the end
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[(2 * 9 + 4) * 10 + 3] * y[(2 * 9 + 4) * 10 + 3] + y[(3 * 9 + 6) * 10 + 7] + y[(4 * 9 + 2) * 10 + 1];
  }
};
using Problem = GradientProblem<ExpressionModel, Objective<Probes>>;

// u' = div(k grad u) - c u^2: 540 conductivities and a scalar.
ExpressionModel heat_with_reaction() {
  return ExpressionModel::parse(FieldEquations(kGrid, {"u"}, {"k"}, 1), {"c"}, {"div_grad(k, u) - c*u^2"});
}

std::vector<double> bump(double base, double height, double x0, double y0, double z0) {
  std::vector<double> values(kGrid.points());
  for_each_point(kGrid, [&](std::size_t point, const auto& at) {
    const double x = kGrid.coordinate(2, at[2]) - x0, y = kGrid.coordinate(1, at[1]) - y0,
                 z = kGrid.coordinate(0, at[0]) - z0;
    values[point] = base + height * std::exp(-(x * x + y * y + z * z) / 0.05);
  });
  return values;
}

Problem make_problem(const ExpressionModel& model, const ButcherTableau& tableau, bool adaptive,
                     LinearSolver solver = LinearSolver::gmres) {
  IntegrateOptions options;
  options.t1 = 0.04;
  // About 50 times RK4's stability limit (2.8 / (4 k_max (1/dz^2 + 1/dy^2 + 1/dx^2))).
  options.step = adaptive ? 0.0 : 0.01;
  options.rtol = 1e-6;
  options.atol = 1e-9;
  Method method = tableau;
  method.newton.tolerance = 1e-13;  // central differences see the Newton residual
  method.newton.linear_solver = solver;
  method.newton.preconditioner = PreconditionerKind::multigrid;
  method.newton.krylov_tolerance = 1e-12;
  std::vector<double> p = bump(1.0, 0.5, 0.55, 0.45, 0.5);
  p.insert(p.begin(), 0.8);  // c, then the field k
  return {model, method, bump(0.0, 1.0, 0.4, 0.6, 0.5), p, Objective<Probes>{}, options};
}

double largest_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0, scale = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    largest = std::max(largest, std::abs(a[j] - b[j]));
    scale = std::max(scale, std::abs(b[j]));
  }
  return largest / scale;
}

}  // namespace

TEST_CASE("auto takes GMRES with multigrid on a 3-D grid, and says why; KLU on a small 2-D one") {
  const ExpressionModel model = heat_with_reaction();
  const ImplicitRK stepper(model, tableaux::sdirk2);
  const LinearSolverChoice& choice = stepper.linear_solves().choice;
  CHECK(choice.name() == "gmres + multigrid");
  CHECK(choice.reason.find("3-D grid of 540 points") != std::string::npos);
  const Grid plate({16, 16}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
  const ExpressionModel small = ExpressionModel::parse(FieldEquations(plate, {"u"}, {}, 0), {}, {"lap(u)"});
  CHECK(ImplicitRK(small, tableaux::sdirk2).linear_solves().choice.name() == "klu");
  NewtonOptions multigrid_off_grid;
  multigrid_off_grid.preconditioner = PreconditionerKind::multigrid;
  const ExpressionModel ode = ExpressionModel::parse({"x", "y"}, {"a"}, {"-a*x", "x - y"});
  CHECK_THROWS_WITH_AS(ImplicitRK(ode, tableaux::sdirk2, multigrid_off_grid), doctest::Contains("grid"),
                       std::invalid_argument);
}

TEST_CASE("3-D heat with a conductivity field by GMRES and CG with multigrid: adjoint = tangent, differences, "
          "Taylor, KLU, schedules") {
  const ExpressionModel model = heat_with_reaction();
  struct Case {
    const ButcherTableau* tableau;
    bool adaptive;
    LinearSolver solver;
  };
  for (const Case& method : {Case{&tableaux::sdirk2, false, LinearSolver::gmres},
                             Case{&tableaux::esdirk3, true, LinearSolver::gmres},
                             Case{&tableaux::sdirk2, false, LinearSolver::cg}}) {
    CAPTURE(method.tableau->name);
    CAPTURE(std::string(to_string(method.solver)));
    const Problem problem = make_problem(model, *method.tableau, method.adaptive, method.solver);
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(adjoint.ok());
    REQUIRE(adjoint.diagnostics.linear_solves);
    const LinearSolveReport& report = *adjoint.diagnostics.linear_solves;
    CHECK(report.choice.preconditioner == PreconditionerKind::multigrid);
    CHECK(report.adjoint.solves >= adjoint.diagnostics.steps);
    CHECK(report.adjoint.worst_residual <= 1e-12);
    CHECK(report.forward.solves > 0);
    // Multigrid: a few iterations a solve, however tight.
    CHECK(report.adjoint.most_iterations <= 15);

    // The tangent polishes its stages by the same Krylov solves (to 1e-12): 1e-8 apart.
    for (unsigned seed = 1; seed <= 2; ++seed) {
      const auto v_p = testing::random_direction(problem.p.size(), seed),
                 v_y0 = testing::random_direction(problem.y0.size(), seed + 10);
      const double exact = testing::tangent_along(problem, v_p, v_y0);
      CHECK(std::abs(testing::dot(adjoint.dJ_dp, v_p) + testing::dot(adjoint.dJ_dy0, v_y0) - exact) <=
            1e-8 * std::abs(exact));
    }
    auto v_p = testing::random_direction(problem.p.size(), 5);
    for (std::size_t i = 0; i < v_p.size(); ++i) v_p[i] *= 0.05 * problem.p[i];
    testing::check_direction_by_differences(problem, adjoint, v_p);
    const TaylorTestReport taylor = taylor_test(problem, v_p, {}, 0.5);
    CAPTURE(taylor.min_rate);
    CHECK(taylor.min_rate >= 1.95);

    const auto all = gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::store_all});
    for (auto schedule : {CheckpointOptions::Schedule::revolve, CheckpointOptions::Schedule::online}) {
      const auto bounded = gradient<double>(problem, problem.y0, problem.p, {schedule, 2});
      REQUIRE(bounded.ok());
      CHECK(bounded.dJ_dp == all.dJ_dp);
      CHECK(bounded.dJ_dy0 == all.dJ_dy0);
    }
    if (method.adaptive) continue;  // KLU's own steps differ from GMRES's by the Newton residual
    Problem direct = problem;
    direct.method.newton.linear_solver = LinearSolver::sparse;
    direct.method.newton.preconditioner = PreconditionerKind::automatic;
    const auto by_klu = gradient<double>(direct, direct.y0, direct.p);
    REQUIRE(by_klu.ok());
    CHECK(largest_relative_difference(adjoint.dJ_dp, by_klu.dJ_dp) <= 1e-8);
  }
}

TEST_CASE("a linear model's Jacobian and multigrid are built once a run, its gradient the same to round-off") {
  // The same equation, once as written (affine in u: df/du constant) and once with a term
  // that is exactly zero but not affine to the analysis, so its Jacobian is taken again.
  const auto model = [](const char* equation) {
    return ExpressionModel::parse(FieldEquations(kGrid, {"u"}, {"k"}, 1), {"c"}, {equation});
  };
  const ExpressionModel linear = model("div_grad(k, u) - c*u"), looks_nonlinear = model("div_grad(k, u) - c*u + 0*u^2");
  REQUIRE(linear.jacobian_constant());
  REQUIRE_FALSE(looks_nonlinear.jacobian_constant());
  for (const ButcherTableau* tableau : {&tableaux::sdirk2, &tableaux::esdirk3}) {
    CAPTURE(tableau->name);
    Problem problem = make_problem(linear, *tableau, false), other = make_problem(looks_nonlinear, *tableau, false);
    // Newton's solves differ in their forcing alone (a constant J's first goes to the Newton
    // tolerance, 1e-13 here, clamped to 1e-12, and its confirming ones to 1/4; the others'
    // first to 1e-6, later ones to 1e-2): the two agree to round-off (1e-15 measured).
    const auto once = gradient<double>(problem, problem.y0, problem.p);
    const auto every_step = gradient<double>(other, other.y0, other.p);
    REQUIRE(once.ok());
    REQUIRE(every_step.ok());
    CHECK(largest_relative_difference(once.dJ_dp, every_step.dJ_dp) <= 1e-12);
    CHECK(largest_relative_difference(once.dJ_dy0, every_step.dJ_dy0) <= 1e-12);

    // The steps themselves: one Jacobian and one multigrid set-up for the whole run (every
    // stage of these tableaux has the same a_ii), against one of each a step.
    ImplicitRK<ExpressionModel> once_stepper(linear, *tableau, problem.method.newton),
        every_stepper(looks_nonlinear, *tableau, other.method.newton);
    std::vector<double> y = problem.y0, next(y.size()), y_other = y;
    for (int k = 0; k < 4; ++k) {
      const StepInterval step{0.01 * k, 0.01, 0.01 * (k + 1)};
      once_stepper.step(step, y.data(), problem.p.data(), next.data());
      once_stepper.accept();
      y = next;
      every_stepper.step(step, y_other.data(), problem.p.data(), next.data());
      every_stepper.accept();
      y_other = next;
    }
    CHECK(largest_relative_difference(y, y_other) <= 1e-12);
    CHECK(once_stepper.jacobian_evaluations() == 1);
    CHECK(once_stepper.factorizations() == 1);
    CHECK(every_stepper.jacobian_evaluations() == 4);
    CHECK(every_stepper.factorizations() == 4);

    // Other parameter values: J is taken again, and the step is a fresh stepper's.
    std::vector<double> p = problem.p;
    p[0] *= 1.5;
    const StepInterval step{0.04, 0.01, 0.05};
    once_stepper.step(step, y.data(), p.data(), next.data());
    ImplicitRK<ExpressionModel> fresh(linear, *tableau, problem.method.newton);
    std::vector<double> fresh_next(y.size());
    fresh.step(step, y.data(), p.data(), fresh_next.data());
    CHECK(once_stepper.jacobian_evaluations() == 2);
    CHECK(next == fresh_next);
  }
}

TEST_CASE("a Krylov solve that cannot converge is named with its stage, iterations and residual") {
  const ExpressionModel model = heat_with_reaction();
  SUBCASE("an adjoint solve asked for more than round-off allows") {
    Problem problem = make_problem(model, tableaux::sdirk2, false);
    problem.method.newton.preconditioner = PreconditionerKind::jacobi;
    problem.method.newton.krylov_tolerance = 1e-19;
    const auto result = gradient<double>(problem, problem.y0, problem.p);
    CHECK_FALSE(result.ok());
    CAPTURE(result.message);
    CHECK(result.message.find("backward sweep at step 3, t = 0.03") != std::string::npos);
    CHECK(result.message.find("gmres + jacobi (adjoint) did not converge on stage 2 in") != std::string::npos);
    CHECK(result.message.find("relative residual") != std::string::npos);
  }
  SUBCASE("a tangent's stage polish asked for more than round-off allows") {
    Problem problem = make_problem(model, tableaux::sdirk2, false);
    problem.method.newton.preconditioner = PreconditionerKind::jacobi;
    problem.method.newton.krylov_tolerance = 1e-19;
    const auto result = tangent_gradient(problem);
    CHECK_FALSE(result.ok());
    CAPTURE(result.message);
    CHECK(result.message.find("at step 0, t = 0") != std::string::npos);
    CHECK(result.message.find("gmres + jacobi did not converge on stage 1 in 500 iterations") != std::string::npos);
  }
}
