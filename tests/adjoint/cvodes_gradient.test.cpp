// CVODES as a method: forward solves and its own (continuous) adjoint against the exact
// discrete adjoint of our implicit and explicit methods at tight tolerances, where both
// approach the gradient of the ODE solution.
#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "models/builtin/registry.hpp"
#include "solvers/cvodes.hpp"
#include "solvers/integrate.hpp"

using namespace backsweep;

namespace {

struct Terminal {
  template <class T>
  T operator()(const T* y, const T* p) const {
    return y[0] * y[0] + T(0.5) * y[1] + p[0] * y[0];
  }
};
struct Running {
  template <class T>
  T operator()(T t, const T* y, const T* p) const {
    using std::sin;
    return T(0.1) * y[0] * y[1] + sin(t) * p[0] * y[1];
  }
};
struct Misfit {
  template <class T>
  T operator()(std::size_t k, const T* y, const T*) const {
    const T r = y[1] - T(0.2 * double(k + 1));
    return r * r;
  }
};
using FullObjective = Objective<Terminal, Running, Misfit>;

template <class M>
GradientProblem<M, FullObjective> problem_for(const M& model, Method method, double end, double rtol) {
  IntegrateOptions options;
  options.t1 = end;
  options.rtol = rtol;
  options.atol = rtol * 1e-4;
  FullObjective objective;
  objective.observation_times = {end / 4, end / 2, end};
  return {model, method, {M::default_initial.begin(), M::default_initial.end()},
          {M::default_params.begin(), M::default_params.end()}, objective, options};
}

double relative_difference(const GradientResult<double>& a, const GradientResult<double>& b) {
  double difference = 0, scale = 1e-300;
  for (std::size_t j = 0; j < a.dJ_dp.size(); ++j) {
    difference = std::max(difference, std::abs(a.dJ_dp[j] - b.dJ_dp[j]));
    scale = std::max(scale, std::abs(a.dJ_dp[j]));
  }
  for (std::size_t i = 0; i < a.dJ_dy0.size(); ++i) {
    difference = std::max(difference, std::abs(a.dJ_dy0[i] - b.dJ_dy0[i]));
    scale = std::max(scale, std::abs(a.dJ_dy0[i]));
  }
  return difference / scale;
}

// Our discrete adjoint at rtol 1e-11 (sdirk4 on stiff Robertson, else dopri5): the
// gradient of the ODE solution that CVODES' approaches as its tolerances tighten.
template <class M>
GradientResult<double> reference_gradient(const M& model, double end) {
  const bool stiff = std::is_same_v<M, models::Robertson>;
  const auto problem = problem_for(model, stiff ? Method(tableaux::sdirk4) : Method(tableaux::dopri5), end, 1e-11);
  return gradient<double>(problem, problem.y0, problem.p);
}

}  // namespace

TEST_CASE("CVODES forward solves agree with our implicit method") {
  const models::Robertson model;
  IntegrateOptions options;
  options.t1 = 40.0;
  options.rtol = 1e-10;
  options.atol = 1e-14;
  options.output_times = {1.0, 10.0, 40.0};
  std::vector<double> ours(model.default_initial.begin(), model.default_initial.end()), theirs = ours;
  ImplicitRK stepper(model, tableaux::sdirk4);
  REQUIRE(integrate(stepper, ours.data(), model.default_params.data(), options).ok());
  ModelSystem system(model, model.default_params.data());
  std::vector<double> seen;
  CvodesCounts counts;
  const auto result = cvodes_integrate(system, true, theirs.data(), options,
                                       [&](double t, const double*) { seen.push_back(t); }, &counts);
  REQUIRE(result.ok());
  CHECK(seen == std::vector<double>{0.0, 1.0, 10.0, 40.0});
  for (int i = 0; i < 3; ++i) CHECK(theirs[i] == doctest::Approx(ours[i]).epsilon(1e-7));
  MESSAGE("CVODES BDF, Robertson to t = 40 at rtol 1e-10: " << counts.steps << " steps, "
                                                            << counts.jacobian_evaluations << " Jacobians");
}

TEST_CASE_TEMPLATE("CVODES adjoint = our discrete adjoint as both converge", M, models::Robertson,
                   models::Lorenz63, models::VanDerPol) {
  const M model;
  const bool stiff = std::is_same_v<M, models::Robertson>;
  const double end = stiff ? 40.0 : 1.0;
  const auto reference = reference_gradient(model, end);
  REQUIRE(reference.ok());
  for (const Method method : {Method(sundials_methods::cvodes_bdf), Method(sundials_methods::cvodes_adams)}) {
    if (stiff && !method.sundials_bdf()) continue;  // Adams on Robertson: tens of thousands of steps
    CAPTURE(method.name());
    double previous = INFINITY;
    for (double rtol : {1e-5, 1e-8, 1e-10}) {
      CAPTURE(rtol);
      const auto problem = problem_for(model, method, end, rtol);
      const auto theirs = gradient<double>(problem, problem.y0, problem.p);
      REQUIRE(theirs.ok());
      CHECK(theirs.diagnostics.schedule == "cvodes");
      CHECK(theirs.value == doctest::Approx(reference.value).epsilon(std::max(100 * rtol, 1e-8)));
      const double difference = relative_difference(reference, theirs);
      MESSAGE(method.name() << " rtol " << rtol << ": gradient differs by " << difference << " ("
                            << theirs.diagnostics.steps << " steps forward, " << theirs.diagnostics.adjoint_steps
                            << " backward, " << theirs.diagnostics.slots << " checkpoints)");
      CHECK(difference <= std::max(1e3 * rtol, 1e-6));
      CHECK(difference <= previous * 1.5);  // accuracy follows the tolerance
      previous = difference;
    }
  }
}

TEST_CASE_TEMPLATE("CVODES forward sensitivities (tangent) = its adjoint = our discrete adjoint", M,
                   models::Robertson, models::Lorenz63, models::VanDerPol) {
  const M model;
  const bool stiff = std::is_same_v<M, models::Robertson>;
  const double end = stiff ? 40.0 : 1.0;
  const auto reference = reference_gradient(model, end);
  REQUIRE(reference.ok());
  for (const Method method : {Method(sundials_methods::cvodes_bdf), Method(sundials_methods::cvodes_adams)}) {
    if (stiff && !method.sundials_bdf()) continue;
    CAPTURE(method.name());
    const auto problem = problem_for(model, method, end, 1e-9);
    const auto tangent = tangent_gradient(problem);
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(tangent.ok());
    REQUIRE(adjoint.ok());
    REQUIRE(tangent.dJ_dy0.size() == model.default_initial.size());
    CHECK(tangent.value == doctest::Approx(reference.value).epsilon(1e-7));
    MESSAGE(method.name() << " rtol 1e-9: tangent vs reference " << relative_difference(reference, tangent)
                          << ", vs CVODES adjoint " << relative_difference(adjoint, tangent));
    CHECK(relative_difference(reference, tangent) <= 1e-6);
    CHECK(relative_difference(adjoint, tangent) <= 1e-6);
  }
}

namespace {
struct FirstState {
  template <class T>
  T operator()(const T* y, const T*) const { return y[0]; }
};
}  // namespace

TEST_CASE("Robertson to t = 1e5: sdirk4 and CVODES BDF gradients follow the tolerance asked") {
  const models::Robertson model;
  const auto problem_at = [&](Method method, double rtol) {
    IntegrateOptions options;
    options.t1 = 1e5;
    options.rtol = rtol;
    options.atol = rtol * 1e-6;  // y2 lives near 1e-5 .. 1e-8
    return GradientProblem<models::Robertson, Objective<FirstState>>{
        model, method, {1, 0, 0}, {0.04, 3e7, 1e4}, Objective<FirstState>{}, options};
  };
  const auto reference_problem = problem_at(tableaux::sdirk4, 1e-11);
  const auto reference = gradient<double>(reference_problem, reference_problem.y0, reference_problem.p);
  REQUIRE(reference.ok());
  CHECK(reference.diagnostics.monitor->verdict != GrowthVerdict::chaotic_divergence);
  for (const Method method : {Method(tableaux::sdirk4), Method(sundials_methods::cvodes_bdf)}) {
    for (double rtol : {1e-4, 1e-6, 1e-8}) {
      CAPTURE(method.name());
      CAPTURE(rtol);
      const auto problem = problem_at(method, rtol);
      const auto result = gradient<double>(problem, problem.y0, problem.p);
      REQUIRE(result.ok());
      const double difference = relative_difference(reference, result);
      MESSAGE(method.name() << " rtol " << rtol << ": " << result.diagnostics.steps
                            << " steps, gradient relative error " << difference);
      // CVODES' continuous adjoint over five decades of time: within 100 rtol (measured 0.6-12).
      CHECK(difference <= (method.is_sundials() ? 100 : 10) * rtol);
    }
  }
}

namespace {
struct MiddleOfU {
  template <class T>
  T operator()(const T* y, const T* p) const { return y[25] * y[25] + p[2] * y[75]; }
};
}  // namespace

TEST_CASE("CVODES on a sparse model (KLU) = dense LU = our sparse sdirk4") {
  const models::Brusselator1D model(50);
  const auto problem_at = [&](Method method, double rtol) {
    IntegrateOptions options;
    options.t1 = 2.0;
    options.rtol = rtol;
    options.atol = rtol * 1e-2;
    return GradientProblem<models::Brusselator1D, Objective<MiddleOfU>>{
        model, method, model.default_initial(), {1.0, 3.0, 0.02}, Objective<MiddleOfU>{}, options};
  };
  const auto reference_problem = problem_at(tableaux::sdirk4, 1e-11);
  const auto reference = gradient<double>(reference_problem, reference_problem.y0, reference_problem.p);
  REQUIRE(reference.ok());
  const int nnz = int(ModelSystem(model, reference_problem.p.data()).sparse_pattern()->nnz());
  CHECK(nnz == 8 * 50 - 4);
  CHECK(ModelSystem(model, reference_problem.p.data(), LinearSolver::dense).sparse_pattern() == nullptr);
  Method klu = sundials_methods::cvodes_bdf, dense = klu;
  dense.newton.linear_solver = LinearSolver::dense;
  const auto sparse_problem = problem_at(klu, 1e-9), dense_problem = problem_at(dense, 1e-9);
  const auto with_klu = gradient<double>(sparse_problem, sparse_problem.y0, sparse_problem.p);
  const auto with_dense = gradient<double>(dense_problem, dense_problem.y0, dense_problem.p);
  REQUIRE(with_klu.ok());
  REQUIRE(with_dense.ok());
  MESSAGE("CVODES KLU vs dense: " << relative_difference(with_klu, with_dense) << ", KLU vs sdirk4 "
                                  << relative_difference(reference, with_klu));
  CHECK(relative_difference(with_klu, with_dense) <= 1e-9);
  CHECK(relative_difference(reference, with_klu) <= 1e-6);
}

TEST_CASE("the monitor's points leave CVODES' adjoint as it is, bitwise, and see lambda grow") {
  const models::Lorenz63 model;
  const std::vector<double> p(model.default_params.begin(), model.default_params.end());
  IntegrateOptions options;
  options.t1 = 40.0;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  for (const bool bdf : {true, false}) {
    CAPTURE(bdf);
    auto solve = [&](std::vector<double> monitor_times, std::vector<double>& lambda, std::vector<double>& mu,
                     CvodesCounts& counts) {
      ModelSystem ode(model, p.data());
      CvodesAdjointRequest request;
      request.stops = {options.t1};
      request.at_stop = [](std::size_t, const double*) {};
      request.seed = [](const double*, double* lambda, double*) { lambda[2] = 1.0; };
      request.jump = [](std::size_t, double*, double*) {};
      request.monitor_times = std::move(monitor_times);
      GrowthMonitor monitor({}, 0.0, options.t1, request.monitor_times.size());
      request.at_monitor = [&](double t, const double* lambda, const double*) {
        monitor.record(t, lambda, 3, [] { return 0.0; });
      };
      REQUIRE(cvodes_adjoint(ode, bdf, {model.default_initial.begin(), model.default_initial.end()}, options, request,
                             lambda, mu, &counts)
                  .ok());
      return monitor.report();
    };
    std::vector<double> lambda, mu, watched_lambda, watched_mu;
    CvodesCounts counts, watched_counts;
    solve({}, lambda, mu, counts);
    const GrowthReport report =
        solve(detail::monitor_times(0.0, options.t1, {}), watched_lambda, watched_mu, watched_counts);
    CHECK(watched_lambda == lambda);
    CHECK(watched_mu == mu);
    CHECK(watched_counts.backward_steps == counts.backward_steps);
    CHECK(report.times.size() == detail::kMonitorPoints - 1);
    CHECK(report.verdict == GrowthVerdict::chaotic_divergence);
  }
}
