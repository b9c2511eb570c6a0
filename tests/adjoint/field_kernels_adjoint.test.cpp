// The discrete adjoint through the built-in field kernels, each on a small 2-D grid with
// mixed walls: against the forward tangent of the same solver along random directions
// (fields and initial state together) and per scalar parameter, central differences and
// Taylor remainders in a random direction of the parameter field, central differences
// for scalars, and bitwise equal across checkpoint schedules.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/gradient_check.hpp"
#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/heat.hpp"
#include "tests/adjoint/directional_checks.hpp"

using namespace backsweep;

namespace {

// Probes: a few points of the first field, squared, at the end.
struct Probes {
  std::vector<std::size_t> points;
  template <class T>
  T operator()(const T* y, const T*) const {
    T sum(0);
    for (std::size_t i : points) sum += y[i] * y[i];
    return sum;
  }
};

// Receivers: the misfit of the pressure at grid points against recorded traces (zero
// here: the energy that reaches them), at every sampling time.
struct Receivers {
  std::vector<std::size_t> points;
  template <class T>
  T operator()(std::size_t, const T* y, const T*) const {
    T sum(0);
    for (std::size_t i : points) sum += T(0.5) * y[i] * y[i];
    return sum;
  }
};

std::vector<double> field(const Grid& grid, double base, double bump) {
  std::vector<double> values(grid.points());
  for_each_point(grid, [&](std::size_t point, const auto& at) {
    const double x = grid.coordinate(1, at[1]) - 0.55, y = grid.coordinate(0, at[0]) - 0.45;
    values[point] = base + bump * std::exp(-(x * x + y * y) / 0.02);
  });
  return values;
}

template <class Problem>
void check_schedules(const Problem& problem) {
  const auto all = gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::store_all});
  REQUIRE(all.ok());
  for (auto schedule : {CheckpointOptions::Schedule::revolve, CheckpointOptions::Schedule::online}) {
    const auto bounded = gradient<double>(problem, problem.y0, problem.p, {schedule, 3});
    REQUIRE(bounded.ok());
    CHECK(bounded.value == all.value);
    CHECK(bounded.dJ_dp == all.dJ_dp);
    CHECK(bounded.dJ_dy0 == all.dJ_dy0);
  }
}

// The parameter field in a random direction, a few percent of it: central differences,
// and Taylor remainders (times first_epsilon at the first level: the waves' misfit bends
// more than diffusion does).
template <class Problem>
void check_in_a_field_direction(const Problem& problem, const GradientResult<double>& adjoint,
                                double first_epsilon = 0.5) {
  auto v_p = testing::random_direction(problem.p.size(), 5);
  for (std::size_t i = 0; i < v_p.size(); ++i) v_p[i] *= 0.05 * problem.p[i];
  testing::check_direction_by_differences(problem, adjoint, v_p);
  const TaylorTestReport taylor = taylor_test(problem, v_p, {}, first_epsilon);
  CAPTURE(taylor.min_rate);
  CHECK(taylor.ok);
  CHECK(taylor.min_rate >= 1.95);
}

}  // namespace

TEST_CASE("heat with a conductivity field (20 x 16, Neumann x Dirichlet): adjoint = tangent, differences, Taylor, schedules") {
  const models::Heat model(Grid({20, 16}, {1.0, 1.0}, {Boundary::neumann, Boundary::dirichlet}));
  IntegrateOptions options;
  options.t1 = 0.02;
  options.step = 4e-4;  // RK4 inside its stability limit for k <= 1.5
  using Obj = Objective<Probes>;
  Obj objective{Probes{{5 * 16 + 4, 10 * 16 + 8, 15 * 16 + 12}}};
  const GradientProblem<models::Heat, Obj> problem{model, tableaux::rk4, field(model.grid(), 0.0, 1.0),
                                                   field(model.grid(), 1.0, 0.5), objective, options};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  CHECK(adjoint.dJ_dp.size() == 320);
  testing::check_against_tangent(problem, adjoint, 3);
  check_in_a_field_direction(problem, adjoint);
  check_schedules(problem);
}

TEST_CASE("advection-diffusion (24 x 20, periodic x Neumann): adjoint = tangent and central differences per parameter") {
  const models::AdvectionDiffusion model(Grid({24, 20}, {1.0, 1.0}, {Boundary::periodic, Boundary::neumann}));
  IntegrateOptions options;
  options.t1 = 0.5;
  options.step = 0.01;
  using Obj = Objective<Probes>;
  Obj objective{Probes{{3 * 20 + 4, 12 * 20 + 10, 20 * 20 + 15}}};
  const GradientProblem<models::AdvectionDiffusion, Obj> problem{
      model, tableaux::rk4, field(model.grid(), 0.1, 1.0), {0.002, 0.4, -0.3}, objective, options};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  testing::check_against_tangent(problem, adjoint, 3);
  testing::check_each_parameter_against_tangent(problem, adjoint);
  testing::check_parameters_by_differences(problem, adjoint);
  check_in_a_field_direction(problem, adjoint);
  check_schedules(problem);
}

TEST_CASE("acoustic with a velocity field (32 x 32, Dirichlet): receivers' misfit, adjoint = tangent, differences, Taylor, schedules") {
  const Grid grid({32, 32}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
  const models::Acoustic model(grid, {26 * 32 + 16, 5.0, 0.2, 1.0});  // a source near the top
  IntegrateOptions options;
  options.t1 = 0.6;
  options.step = 0.01;
  using Obj = Objective<NoTerm, NoTerm, Receivers>;
  Obj objective;
  for (std::size_t r = 0; r < 8; ++r) objective.observation.points.push_back(5 * 32 + 2 + 4 * r);  // a line
  for (int k = 1; k <= 12; ++k) objective.observation_times.push_back(k / 20.0);  // 0.6 exactly at the end
  std::vector<double> y0(model.state_size(), 0.0);
  const GradientProblem<models::Acoustic, Obj> problem{model, tableaux::rk4, y0, field(grid, 1.0, -0.3), objective,
                                                       options};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  CAPTURE(adjoint.message);
  REQUIRE(adjoint.ok());
  CHECK(adjoint.value > 0.0);  // the wave reached the receivers
  testing::check_against_tangent(problem, adjoint, 3);
  check_in_a_field_direction(problem, adjoint, 0.05);
  check_schedules(problem);
}
