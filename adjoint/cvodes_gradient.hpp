#pragma once
// gradient() for the SUNDIALS methods (cvodes_bdf, cvodes_adams): the same objective and
// result as the discrete adjoint, by CVODES' own continuous adjoint (solvers/cvodes.hpp).
// Its accuracy follows the tolerances; the diagnostics say so and give CVODES' counts.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "solvers/cvodes.hpp"

namespace backsweep::detail {

template <Model M, class Obj>
GradientResult<double> cvodes_gradient(const GradientProblem<M, Obj>& problem, const std::vector<double>& y0,
                                       const std::vector<double>& p) {
  GradientResult<double> result;
  GradientDiagnostics& d = result.diagnostics;
  d.method = std::string(problem.method.name());
  d.schedule = "cvodes";
  d.schedule_reason =
      "CVODES keeps its own checkpoints (every 100 steps, polynomial interpolation): a continuous "
      "adjoint, accurate to the tolerances, not to round-off";
  const std::size_t n_user = state_size(problem.model), np = p.size();
  const std::vector<double> y = initial_state<double>(problem, y0, p);
  const std::size_t n = y.size();
  const double t0 = problem.integrate.t0, t1 = problem.integrate.t1;

  // The stops: the observation times after t0, then t1; the terms at each.
  std::vector<double> stops;
  for (double t : problem.objective.observation_times)
    if (t > t0 && t < t1) stops.push_back(t);
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  stops.push_back(t1);
  std::vector<std::vector<double>> states(stops.size());  // y at the stops with terms
  std::vector<double> grad_y(n_user), grad_p(np);
  ScalarGradient<double> scalar(n_user, np);
  double value = 0.0;
  // Adds the observation terms at time t to lambda, mu and the value.
  auto observe = [&](double t, const double* state, double* lambda, double* mu) {
    if constexpr (Obj::has_observation) {
      const auto& times = problem.objective.observation_times;
      for (std::size_t k = 0; k < times.size(); ++k) {
        if (times[k] != t) continue;
        value += observation_gradient(problem.objective.observation, scalar, k, state, p.data(),
                                      grad_y.data(), grad_p.data());
        for (std::size_t i = 0; i < n_user; ++i) lambda[i] += grad_y[i];
        for (std::size_t j = 0; j < np; ++j) mu[j] += grad_p[j];
      }
    }
  };

  CvodesAdjointRequest request;
  request.stops = stops;
  request.at_stop = [&](std::size_t k, const double* state) {
    if (Obj::has_observation && k + 1 < stops.size()) states[k].assign(state, state + n);
  };
  request.seed = [&](const double* y_end, double* lambda, double* mu) {
    if constexpr (Obj::has_terminal) {
      value += terminal_gradient(problem.objective.terminal, scalar, y_end, p.data(), grad_y.data(),
                                 grad_p.data());
      for (std::size_t i = 0; i < n_user; ++i) lambda[i] += grad_y[i];
      for (std::size_t j = 0; j < np; ++j) mu[j] += grad_p[j];
    }
    if constexpr (Obj::has_running) {
      value += y_end[n_user];
      lambda[n_user] = 1.0;
    }
    observe(t1, y_end, lambda, mu);
  };
  request.jump = [&](std::size_t k, double* lambda, double* mu) {
    observe(stops[k], states[k].data(), lambda, mu);
  };

  std::vector<double> lambda, mu;
  CvodesCounts counts;
  const bool bdf = problem.method.sundials_bdf();
  const IntegrateResult solved = with_system(problem.model, problem.objective, [&](const auto& system) {
    ModelSystem ode(system, p.data());
    return cvodes_adjoint(ode, bdf, y, problem.integrate, request, lambda, mu, &counts);
  });
  d.steps = counts.steps;
  d.adjoint_steps = counts.backward_steps;
  d.rhs_evaluations = counts.rhs_evaluations + counts.backward_rhs_evaluations;
  d.slots = d.peak_slots = counts.checkpoints;
  if (!solved.ok()) {
    result.status = solved.status;
    result.message = solved.message;
    return result;
  }
  observe(t0, y.data(), lambda.data(), mu.data());  // terms at t0: no backward time
  if constexpr (Obj::has_initial) {
    const std::vector<double> grad =
        through_initial_state(problem.objective.initial, n_user, lambda.data(), p);
    for (std::size_t j = 0; j < np; ++j) mu[j] += grad[j];
  }
  result.value = value;
  result.dJ_dp = mu;
  result.dJ_dy0.assign(lambda.begin(), lambda.begin() + std::ptrdiff_t(n_user));
  for (double g : result.dJ_dp)
    if (!std::isfinite(g)) {
      result.status = IntegrateStatus::non_finite_state;
      result.message = "CVODES gave a non-finite gradient";
    }
  return result;
}

}  // namespace backsweep::detail
