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
  if (problem.integrate.events && !problem.integrate.events->floating().empty()) {
    result.status = IntegrateStatus::invalid_options;
    result.message = kCvodesTakesNoMovingEvents;
    return result;
  }
  d.schedule_reason =
      "CVODES keeps its own checkpoints (every 100 steps, polynomial interpolation): a continuous "
      "adjoint, accurate to the tolerances, not to round-off";
  const std::size_t n_user = state_size(problem.model), np = p.size();
  const std::vector<double> y = initial_state<double>(problem, y0, p);
  const std::size_t n = y.size();
  const double t0 = problem.integrate.t0, t1 = problem.integrate.t1;
  const TimeEvents* events = problem.integrate.events.get();

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
  // Time events split the run into solves between them (restarted, as CVODES is forward):
  // a forward pass keeps each one's start (after its jump), then each is solved and swept
  // back from the last, its end seeded with the adjoint after the jump, taken back through it.
  const std::vector<double> ends = segment_ends(problem.integrate);
  std::vector<double> avoid = problem.objective.observation_times;
  avoid.insert(avoid.end(), ends.begin(), ends.end());
  const std::vector<double> all_monitor_times = monitor_times(t0, t1, avoid);
  GrowthMonitor monitor(problem.monitor, t0, t1, all_monitor_times.size());
  std::vector<std::vector<double>> starts{y};
  const bool observed = bool(problem.forward_observer);
  if (observed) observe_forward(problem, t0, y.data());
  if (events) {  // (an event at t1 too: what the observer sees there is after it)
    IntegrateOptions forward = problem.integrate;
    forward.output_times = stop_times(problem.integrate);  // with the event times
    std::vector<double> y_run = y;
    const IntegrateResult ran = with_system(problem.model, problem.objective, [&](const auto& system) {
      ModelSystem ode(system, p.data(), problem.method.newton.linear_solver, problem.method.newton.preconditioner);
      return cvodes_integrate(ode, problem.method.sundials_bdf(), y_run.data(), forward, [&](double t, const double* state) {
        if (starts.size() < ends.size() && t == ends[starts.size() - 1]) starts.emplace_back(state, state + n);
        if (observed && t > t0) problem.forward_observer(t, state);
      });
    });
    if (!ran.ok()) {
      result.status = ran.status;
      result.message = ran.message;
      return result;
    }
  }

  std::vector<double> lambda, mu(np, 0.0), lambda_after, segment_mu;
  const bool bdf = problem.method.sundials_bdf();
  for (std::size_t s = ends.size(); s-- > 0;) {
    const double from = s ? ends[s - 1] : t0, to = ends[s];
    IntegrateOptions options = problem.integrate;
    options.events = nullptr;
    options.t0 = from;
    options.t1 = to;
    options.output_times.clear();  // the forward observer's are request.outputs
    // The stops: the observation times inside, then the end; the terms at each.
    std::vector<double> stops;
    for (double t : problem.objective.observation_times)
      if (t > from && t < to) stops.push_back(t);
    std::sort(stops.begin(), stops.end());
    stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
    stops.push_back(to);
    std::vector<std::vector<double>> states(stops.size());  // y at the stops with terms
    CvodesAdjointRequest request;
    request.stops = stops;
    if (observed && !events) {
      request.outputs = stop_times(problem.integrate);
      request.at_output = problem.forward_observer;
    }
    request.at_stop = [&](std::size_t k, const double* state) {
      if (Obj::has_observation && k + 1 < stops.size()) states[k].assign(state, state + n);
    };
    request.seed = [&](const double* y_end, double* lambda_end, double* mu_end) {
      std::vector<double> after(y_end, y_end + n);  // the state after the jump at the end, if any
      const std::size_t jump = events ? events->find(to) : TimeEvents::npos;
      if (jump != TimeEvents::npos) events->apply(jump, p.data(), after.data());
      if (to == t1) {
        if constexpr (Obj::has_terminal) {
          value += terminal_gradient(problem.objective.terminal, scalar, after.data(), p.data(), grad_y.data(),
                                     grad_p.data());
          for (std::size_t i = 0; i < n_user; ++i) lambda_end[i] += grad_y[i];
          for (std::size_t j = 0; j < np; ++j) mu_end[j] += grad_p[j];
        }
        if constexpr (Obj::has_running) {
          value += after[n_user];
          lambda_end[n_user] = 1.0;
        }
      } else {
        std::copy(lambda_after.begin(), lambda_after.end(), lambda_end);
      }
      observe(to, after.data(), lambda_end, mu_end);
      if (jump != TimeEvents::npos) events->reverse(jump, n, y_end, p.data(), lambda_end, mu_end);
    };
    request.jump = [&](std::size_t k, double* lambda_k, double* mu_k) { observe(stops[k], states[k].data(), lambda_k, mu_k); };
    for (double t : all_monitor_times)
      if (t > from && t < to) request.monitor_times.push_back(t);
    request.at_monitor = [&](double t, const double* lambda_t, const double* mu_t) {
      monitor.record(t, lambda_t, n_user, [&] {
        double sum = 0.0;
        for (std::size_t j = 0; j < np; ++j) sum += (mu[j] + mu_t[j]) * (mu[j] + mu_t[j]);
        return std::sqrt(sum);
      });
    };
    CvodesCounts read;
    const IntegrateResult solved = with_system(problem.model, problem.objective, [&](const auto& system) {
      ModelSystem ode(system, p.data(), problem.method.newton.linear_solver, problem.method.newton.preconditioner);
      if (bdf && !d.linear_solves) d.linear_solves = LinearSolveReport{ode.linear_solver()};
      return cvodes_adjoint(ode, bdf, starts[s], options, request, lambda, segment_mu, &read);
    });
    if (d.linear_solves) {  // SPGMR's iterations (CVODES does not give their residuals)
      d.linear_solves->forward.iterations += read.linear_iterations;
      d.linear_solves->adjoint.iterations += read.backward_linear_iterations;
    }
    d.steps += read.steps;
    d.adjoint_steps += read.backward_steps;
    d.rhs_evaluations += read.rhs_evaluations + read.backward_rhs_evaluations;
    d.slots = d.peak_slots = std::max(d.peak_slots, read.checkpoints);
    if (!solved.ok()) {
      result.status = solved.status;
      result.message = solved.message;
      return result;
    }
    for (std::size_t j = 0; j < np; ++j) mu[j] += segment_mu[j];
    lambda_after = lambda;
  }
  d.monitor = monitor.report();
  observe(t0, y.data(), lambda.data(), mu.data());  // terms at t0: no backward time
  if (const std::size_t k = events ? events->find(t0) : TimeEvents::npos; k != TimeEvents::npos) {
    const std::vector<double> before = initial_state_before_events(problem, y0, p);
    events->reverse(k, n, before.data(), p.data(), lambda.data(), mu.data());
  }
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
    ModelSystem ode(system, p.data(), problem.method.newton.linear_solver, problem.method.newton.preconditioner);
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
