#pragma once
// gradient() for the SUNDIALS methods (cvodes_bdf, cvodes_adams): the same objective and
// result as the discrete adjoint, by CVODES' own continuous adjoint (solvers/cvodes.hpp);
// and the forward tangent, by CVODES' forward sensitivities.
// Its accuracy follows the tolerances; the diagnostics say so and give CVODES' counts.
// The growth monitor watches both at kMonitorPoints even times (CVODES interpolating).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "solvers/cvodes.hpp"

namespace backsweep::detail {

inline constexpr std::size_t kMonitorPoints = 256;

// kMonitorPoints even times in (t0, t1), none of them in `avoid` (times where a solve
// stops or jumps).
inline std::vector<double> monitor_times(double t0, double t1, const std::vector<double>& avoid) {
  std::vector<double> times;
  for (std::size_t k = 1; k < kMonitorPoints; ++k) {
    const double t = t0 + (t1 - t0) * double(k) / double(kMonitorPoints);
    if (t > t0 && t < t1 && std::find(avoid.begin(), avoid.end(), t) == avoid.end()) times.push_back(t);
  }
  return times;
}

template <Model M, class Obj>
GradientResult<double> cvodes_gradient(const GradientProblem<M, Obj>& problem, const std::vector<double>& y0,
                                       const std::vector<double>& p) {
  GradientResult<double> result;
  GradientDiagnostics& d = result.diagnostics;
  d.method = std::string(problem.method.name());
  d.schedule = "cvodes";
  if (problem.integrate.events) {
    result.status = IntegrateStatus::invalid_options;
    result.message = kCvodesTakesNoEvents;
    return result;
  }
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
  if (problem.forward_observer) {
    observe_forward(problem, t0, y.data());
    request.outputs = stop_times(problem.integrate);
    request.at_output = problem.forward_observer;
  }
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
  request.monitor_times = monitor_times(t0, t1, stops);
  GrowthMonitor monitor(problem.monitor, t0, t1, request.monitor_times.size());
  request.at_monitor = [&](double t, const double* lambda, const double* mu) {
    monitor.record(t, lambda, n_user, [&] { return std::sqrt(squared_norm<CpuAlgebra>(np, mu)); });
  };

  std::vector<double> lambda, mu;
  CvodesCounts counts;
  const bool bdf = problem.method.sundials_bdf();
  const IntegrateResult solved = with_system(problem.model, problem.objective, [&](const auto& system) {
    ModelSystem ode(system, p.data(), problem.method.newton.linear_solver);
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
  d.monitor = monitor.report();
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

// The forward tangent for the SUNDIALS methods: dJ/dp and dJ/dy0 from CVODES' forward
// sensitivities (one direction per parameter and per initial state, y0(p) seeding the
// parameters' directions), the terms' gradients dotted with them at their times.
template <Model M, class Obj>
GradientResult<double> cvodes_tangent_gradient(const GradientProblem<M, Obj>& problem) {
  using D = Dual<double, kDerivativeLanes>;
  GradientResult<double> result;
  GradientDiagnostics& d = result.diagnostics;
  d.method = std::string(problem.method.name());
  if (problem.integrate.events) {
    result.status = IntegrateStatus::invalid_options;
    result.message = kCvodesTakesNoEvents;
    return result;
  }
  const std::vector<double>& p = problem.p;
  const std::size_t n_user = state_size(problem.model), np = p.size(), m = np + n_user;
  const double t0 = problem.integrate.t0, t1 = problem.integrate.t1;
  std::vector<double> y = initial_state<double>(problem, problem.y0, p);
  const std::size_t n = y.size();

  // Direction k < np moves p_k, direction np + i moves y0_i; s_k(t0) = dy0/d(direction).
  SensitivityDirections directions{m, std::vector<double>(m * n, 0.0), std::vector<double>(m * np, 0.0)};
  for (std::size_t first = 0; first < m; first += kDerivativeLanes) {
    std::vector<D> y0(problem.y0.begin(), problem.y0.end()), pd(p.begin(), p.end());
    for (std::size_t k = first; k < std::min(m, first + kDerivativeLanes); ++k) {
      if (k < np) pd[k].d[k - first] = directions.parameters[k * np + k] = 1.0;
      else y0[k - np].d[k - first] = 1.0;
    }
    const std::vector<D> start = initial_state<D>(problem, y0, pd);
    for (std::size_t k = first; k < std::min(m, first + kDerivativeLanes); ++k)
      for (std::size_t i = 0; i < n_user; ++i) directions.initial[k * n + i] = start[i].d[k - first];
  }

  result.dJ_dp.assign(np, 0.0);
  result.dJ_dy0.assign(n_user, 0.0);
  std::vector<double> grad_y(n_user), grad_p(np);
  ScalarGradient<double> scalar(n_user, np);
  // Adds a term's value, and its gradient along every direction, at a state y with
  // sensitivities s (m x n).
  auto add = [&](double value, const double* s) {
    result.value += value;
    for (std::size_t k = 0; k < m; ++k) {
      double slope = k < np ? grad_p[k] : 0.0;
      for (std::size_t i = 0; i < n_user; ++i) slope += grad_y[i] * s[k * n + i];
      (k < np ? result.dJ_dp[k] : result.dJ_dy0[k - np]) += slope;
    }
  };
  auto observe = [&](double t, const double* state, const double* s) {
    if constexpr (Obj::has_observation) {
      const auto& times = problem.objective.observation_times;
      for (std::size_t k = 0; k < times.size(); ++k)
        if (times[k] == t)
          add(observation_gradient(problem.objective.observation, scalar, k, state, p.data(), grad_y.data(),
                                   grad_p.data()),
              s);
    }
  };
  observe(t0, y.data(), directions.initial.data());

  IntegrateOptions options = problem.integrate;
  options.output_times.clear();
  for (double t : problem.objective.observation_times)
    if (t > t0 && t < t1) options.output_times.push_back(t);
  options.output_times.push_back(t1);
  std::vector<double> shown;  // the times the forward observer sees, t1 last
  if (problem.forward_observer) {
    observe_forward(problem, t0, y.data());
    shown = stop_times(problem.integrate);
    options.output_times.insert(options.output_times.end(), shown.begin(), shown.end());
  }
  const std::vector<double> watched = monitor_times(t0, t1, {});
  options.output_times.insert(options.output_times.end(), watched.begin(), watched.end());
  GrowthMonitor monitor(problem.monitor, t0, t1, watched.size() + 1, Watched::tangent);
  std::vector<double> columns(m * n_user);  // the sensitivities of the model's states
  std::sort(options.output_times.begin(), options.output_times.end());
  options.output_times.erase(std::unique(options.output_times.begin(), options.output_times.end()),
                             options.output_times.end());
  CvodesCounts counts;
  const IntegrateResult solved = with_system(problem.model, problem.objective, [&](const auto& system) {
    ModelSystem ode(system, p.data(), problem.method.newton.linear_solver);
    return cvodes_sensitivities(ode, problem.method.sundials_bdf(), y.data(), directions, options,
                                [&](double t, const double* state, const double* s) {
                                  for (std::size_t k = 0; k < m; ++k)
                                    std::copy(s + k * n, s + k * n + n_user, columns.begin() + std::ptrdiff_t(k * n_user));
                                  monitor.record(t, columns.data(), columns.size(), [&] {
                                    return std::sqrt(squared_norm<CpuAlgebra>(np, result.dJ_dp.data()) +
                                                     squared_norm<CpuAlgebra>(n_user, result.dJ_dy0.data()));
                                  });
                                  observe(t, state, s);
                                  if (std::binary_search(shown.begin(), shown.end(), t))
                                    problem.forward_observer(t, state);
                                  if (t != t1) return;
                                  if constexpr (Obj::has_terminal)
                                    add(terminal_gradient(problem.objective.terminal, scalar, state, p.data(),
                                                          grad_y.data(), grad_p.data()),
                                        s);
                                  if constexpr (Obj::has_running) {
                                    result.value += state[n_user];
                                    for (std::size_t k = 0; k < m; ++k)
                                      (k < np ? result.dJ_dp[k] : result.dJ_dy0[k - np]) += s[k * n + n_user];
                                  }
                                },
                                &counts);
  });
  d.steps = counts.steps;
  d.rhs_evaluations = counts.rhs_evaluations;
  if (!solved.ok()) {
    result.status = solved.status;
    result.message = solved.message;
  } else {
    d.monitor = monitor.report();
  }
  return result;
}

}  // namespace backsweep::detail
