// The discrete adjoint of the implicit methods (transposed stage solves at the stage
// values) against the forward tangent of the same solver, central finite differences of
// the same discrete solve and Taylor remainders, on stiff and non-stiff models, fixed
// and adaptive steps; and bitwise equal across checkpoint schedules.
#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "adjoint/hessian.hpp"
#include "models/builtin/diffusion_1d.hpp"
#include "models/builtin/registry.hpp"
#include "solvers/dirk_tableaux.hpp"

using namespace backsweep;

namespace {

struct Terminal {
  template <class T>
  T operator()(const T* y, const T* p) const {
    return y[0] * y[0] + T(0.5) * y[1] + p[0] * y[0];
  }
};
struct Running {  // time-dependent on purpose
  template <class T>
  T operator()(T t, const T* y, const T* p) const {
    using std::sin;
    return T(0.1) * y[0] * y[1] + sin(t) * p[0] * y[1];
  }
};
struct Misfit {
  template <class T>
  T operator()(std::size_t, const T* y, const T*) const {
    return y[1] * y[1];
  }
};
using FullObjective = Objective<Terminal, Running, Misfit>;

struct Setup {
  double end, step, rtol;
};
template <class M>
Setup setup_for() {
  // Robertson through its initial transient: fixed steps 20 times the explicit stability
  // limit, adaptive ones far beyond it.
  if constexpr (std::is_same_v<M, models::Robertson>) return {0.4, 1e-3, 1e-6};
  else if constexpr (std::is_same_v<M, models::Lorenz63>) return {0.5, 5e-3, 1e-7};
  else return {1.5, 2e-2, 1e-7};
}

template <class M>
GradientProblem<M, FullObjective> make_problem(const M& model, const ButcherTableau& tableau,
                                               bool adaptive) {
  const Setup setup = setup_for<M>();
  IntegrateOptions options;
  options.t1 = setup.end;
  options.step = adaptive ? 0.0 : setup.step;
  options.rtol = setup.rtol;
  options.atol = 1e-10;
  FullObjective objective;
  objective.observation_times = {setup.end / 4, setup.end / 2};
  Method method = tableau;
  method.newton.tolerance = 1e-13;  // finite differences see the Newton residual
  return {model,
          method,
          {M::default_initial.begin(), M::default_initial.end()},
          {M::default_params.begin(), M::default_params.end()},
          objective,
          options};
}

std::vector<double> all_of(const GradientResult<double>& g) {
  std::vector<double> v = g.dJ_dp;
  v.insert(v.end(), g.dJ_dy0.begin(), g.dJ_dy0.end());
  return v;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = detail::nan_max(difference, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(a[i]));
  }
  return difference / scale;
}

}  // namespace

TEST_CASE_TEMPLATE("implicit adjoint = forward tangent, = finite differences", M, models::Robertson,
                   models::LotkaVolterra, models::VanDerPol, models::HarmonicOscillator, models::Lorenz63) {
  const M model;
  static double worst_tangent = 0, worst_fd = 0;
  for (const ButcherTableau* tableau : tableaux::implicit_all) {
    for (bool adaptive : {false, true}) {
      if (adaptive && !tableau->adaptive()) continue;
      // Crank-Nicolson is not L-stable: on Robertson its stiff components ring, and
      // finite differences see that, not the derivative (which the tangent confirms).
      const bool ringing = std::is_same_v<M, models::Robertson> && tableau == &tableaux::crank_nicolson;
      CAPTURE(tableau->name);
      CAPTURE(adaptive);
      const auto problem = make_problem(model, *tableau, adaptive);
      const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
      const auto tangent = tangent_gradient(problem);
      REQUIRE(adjoint.ok());
      REQUIRE(tangent.ok());
      CHECK(adjoint.value == doctest::Approx(tangent.value).epsilon(1e-11));
      const double versus_tangent = relative_difference(all_of(adjoint), all_of(tangent));
      CHECK(versus_tangent <= 1e-9);
      worst_tangent = std::max(worst_tangent, versus_tangent);
      if (ringing) continue;
      const GradientCheckReport check = check_gradient(problem, 1e-9, 1e-6);
      CAPTURE(check.message);
      CHECK(check.ok);
      worst_tangent = std::max(worst_tangent, versus_tangent);
      worst_fd = std::max(worst_fd, check.adjoint_vs_finite_difference);
    }
  }
  MESSAGE("worst so far: adjoint vs tangent " << worst_tangent << ", vs FD " << worst_fd);
}

TEST_CASE("implicit adjoint: Taylor remainders fall at rate 2") {
  const models::Robertson model;
  for (const ButcherTableau* tableau : {&tableaux::sdirk2, &tableaux::esdirk3, &tableaux::sdirk4}) {
    CAPTURE(tableau->name);
    const auto problem = make_problem(model, *tableau, tableau->adaptive());
    // Relative directions: the rate constants span 0.04 to 3e7.
    const TaylorTestReport report = taylor_test(problem, {0.04 * 0.3, 3e7 * -0.2, 1e4 * 0.1},
                                                {0.1, 0.0, 0.0}, 1e-2, 5);
    CAPTURE(report.min_rate);
    CHECK(report.ok);
  }
}

TEST_CASE("implicit adjoint: bitwise equal across store-all, revolve and online") {
  const models::Robertson model;
  for (bool adaptive : {false, true}) {
    CAPTURE(adaptive);
    const auto problem = make_problem(model, tableaux::sdirk4, adaptive);
    const auto all = gradient<double>(problem, problem.y0, problem.p,
                                      {CheckpointOptions::Schedule::store_all});
    REQUIRE(all.ok());
    for (auto schedule : {CheckpointOptions::Schedule::revolve, CheckpointOptions::Schedule::online})
      for (std::size_t slots : {2u, 5u, 40u}) {
        const auto bounded = gradient<double>(problem, problem.y0, problem.p, {schedule, slots});
        REQUIRE(bounded.ok());
        CHECK(bounded.value == all.value);
        CHECK(all_of(bounded) == all_of(all));
      }
  }
}

TEST_CASE_TEMPLATE("implicit Hessian-vector products = central differences of gradients", M, models::Robertson,
                   models::VanDerPol) {
  const M model;
  for (const ButcherTableau* tableau : {&tableaux::backward_euler, &tableaux::sdirk2, &tableaux::esdirk3,
                                        &tableaux::sdirk4}) {
    CAPTURE(tableau->name);
    const auto problem = make_problem(model, *tableau, false);
    std::vector<double> v(problem.p.size());
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = problem.p[j] * (0.3 - 0.2 * double(j));  // relative
    const std::vector<double> hv = hessian_vector_product(problem, v);
    const double epsilon = 1e-4;
    std::vector<double> plus = problem.p, minus = problem.p;
    for (std::size_t j = 0; j < v.size(); ++j) plus[j] += epsilon * v[j], minus[j] -= epsilon * v[j];
    const auto gp = gradient<double>(problem, problem.y0, plus);
    const auto gm = gradient<double>(problem, problem.y0, minus);
    REQUIRE(gp.ok());
    REQUIRE(gm.ok());
    std::vector<double> fd(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) fd[j] = (gp.dJ_dp[j] - gm.dJ_dp[j]) / (2 * epsilon);
    CAPTURE(hv[0]);
    CAPTURE(fd[0]);
    CHECK(relative_difference(hv, fd) <= 1e-6);
    CHECK(hessian_vector_product(problem, v, {CheckpointOptions::Schedule::revolve, 4}) == hv);
  }
}

namespace {
struct FirstState {
  template <class T>
  T operator()(const T* y, const T*) const { return y[0]; }
};
}  // namespace

TEST_CASE("stiffness: an explicit method held by stability is called stiff, not chaotic") {
  CHECK(real_stability_limit(tableaux::euler) == doctest::Approx(2.0).epsilon(1e-3));
  CHECK(real_stability_limit(tableaux::rk4) == doctest::Approx(2.785).epsilon(1e-3));
  CHECK(real_stability_limit(tableaux::dopri5) == doctest::Approx(3.307).epsilon(2e-3));
  CHECK(std::isinf(real_stability_limit(tableaux::sdirk4)));

  const models::Robertson robertson;
  IntegrateOptions options;
  options.t1 = 40.0;
  options.rtol = 1e-6;
  options.atol = 1e-10;
  using Final = Objective<FirstState>;
  const GradientProblem<models::Robertson, Final> stiff{robertson, tableaux::dopri5, {1, 0, 0},
                                                        {0.04, 3e7, 1e4}, Final{}, options};
  const auto explicit_run = gradient<double>(stiff, stiff.y0, stiff.p);
  REQUIRE(explicit_run.ok());
  REQUIRE(explicit_run.diagnostics.stiffness);
  MESSAGE("dopri5 on Robertson: h rho / beta = " << explicit_run.diagnostics.stiffness->ratio);
  CHECK(explicit_run.diagnostics.stiffness->stiff());
  CHECK(explicit_run.diagnostics.monitor->verdict == GrowthVerdict::stiff);
  CHECK(explicit_run.diagnostics.monitor->explanation.find("sdirk4") != std::string::npos);

  GradientProblem<models::Robertson, Final> implicit_problem = stiff;
  implicit_problem.method = tableaux::sdirk4;
  const auto implicit_run = gradient<double>(implicit_problem, stiff.y0, stiff.p);
  REQUIRE(implicit_run.ok());
  CHECK_FALSE(implicit_run.diagnostics.stiffness);
  CHECK(implicit_run.diagnostics.monitor->verdict == GrowthVerdict::stable);
  MESSAGE("dJ/dk1: dopri5 " << explicit_run.dJ_dp[0] << ", sdirk4 " << implicit_run.dJ_dp[0]);

  // Lorenz-63 (chaotic, not stiff) stays chaotic.
  const models::Lorenz63 lorenz;
  IntegrateOptions long_window;
  long_window.t1 = 20.0;
  long_window.step = 1e-3;
  const GradientProblem<models::Lorenz63, Final> chaotic{lorenz, tableaux::rk4,
                                                         {13.79322908971583, 12.951847113500456, 34.90163699073296},
                                                         {10, 28, 8.0 / 3}, Final{}, long_window};
  const auto lorenz_run = gradient<double>(chaotic, chaotic.y0, chaotic.p);
  REQUIRE(lorenz_run.diagnostics.stiffness);
  MESSAGE("rk4 on Lorenz-63: h rho / beta = " << lorenz_run.diagnostics.stiffness->ratio);
  CHECK_FALSE(lorenz_run.diagnostics.stiffness->stiff());
  CHECK(lorenz_run.diagnostics.monitor->verdict == GrowthVerdict::chaotic_divergence);
}

namespace {
struct Middle {
  template <class T>
  T operator()(const T* y, const T* p) const { return y[30] * y[30] + p[1] * y[15]; }
};
}  // namespace

TEST_CASE("implicit adjoint of a sparse model (sparse stage solves) = forward tangent") {
  const models::Diffusion1D model(60);
  IntegrateOptions options;
  options.t1 = 0.02;
  options.rtol = 1e-8;
  options.atol = 1e-12;
  std::vector<double> y0(60);
  for (std::size_t i = 0; i < y0.size(); ++i) y0[i] = std::sin(0.05 * double(i)) + 0.01 * double(i % 7);
  Method method = tableaux::sdirk4;
  method.newton.tolerance = 1e-13;
  const GradientProblem<models::Diffusion1D, Objective<Middle>> problem{model, method, y0, {1.0, 0.5},
                                                                       Objective<Middle>{}, options};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  const auto tangent = tangent_gradient(problem);
  REQUIRE(adjoint.ok());
  REQUIRE(tangent.ok());
  const double difference = relative_difference(all_of(adjoint), all_of(tangent));
  MESSAGE("sparse sdirk4 adjoint vs tangent, n = 60: " << difference);
  CHECK(difference <= 1e-9);
}

namespace {
struct MiddleOfU {
  template <class T>
  T operator()(const T* y, const T* p) const { return y[10] * y[10] + p[2] * y[30]; }
};
}  // namespace

TEST_CASE("Brusselator 1-D (stiff reaction-diffusion): adjoint = tangent = FD, sparse = dense LU") {
  const models::Brusselator1D model(20);
  IntegrateOptions options;
  options.t1 = 1.0;
  options.rtol = 1e-7;
  options.atol = 1e-10;
  std::vector<double> y0 = model.default_initial();
  for (const ButcherTableau* tableau : {&tableaux::esdirk3, &tableaux::sdirk4}) {
    CAPTURE(tableau->name);
    Method method = *tableau;
    method.newton.tolerance = 1e-13;
    using Problem = GradientProblem<models::Brusselator1D, Objective<MiddleOfU>>;
    const Problem problem{model, method, y0, {1.0, 3.0, 0.02}, Objective<MiddleOfU>{}, options};
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    const auto tangent = tangent_gradient(problem);
    REQUIRE(adjoint.ok());
    REQUIRE(tangent.ok());
    const double versus_tangent = relative_difference(all_of(adjoint), all_of(tangent));
    MESSAGE(tableau->name << " adjoint vs tangent " << versus_tangent);
    CHECK(versus_tangent <= 1e-9);
    const GradientCheckReport check = check_gradient(problem, 1e-9, 1e-6);
    CAPTURE(check.message);
    CHECK(check.ok);
    const TaylorTestReport taylor = taylor_test(problem, {0.1, -0.2, 0.004}, std::vector<double>(40, 0.05),
                                                1e-2, 5);
    CAPTURE(taylor.min_rate);
    CHECK(taylor.ok);

    Problem dense = problem;
    dense.method.newton.linear_solver = LinearSolver::dense;
    const auto dense_adjoint = gradient<double>(dense, dense.y0, dense.p);
    REQUIRE(dense_adjoint.ok());
    CHECK(dense_adjoint.diagnostics.steps == adjoint.diagnostics.steps);
    CHECK(relative_difference(all_of(dense_adjoint), all_of(adjoint)) <= 1e-11);
  }
  Method sparse = tableaux::sdirk2;
  sparse.newton.linear_solver = LinearSolver::sparse;
  const models::Robertson dense_only;
  CHECK_THROWS_AS(ImplicitRK(dense_only, tableaux::sdirk2, sparse.newton), std::invalid_argument);
}
