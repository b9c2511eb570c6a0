#pragma once
// The objective evaluated by a forward solve over the same step sequence as the adjoint,
// on any scalar: on double it is J itself (finite differences, Taylor tests); on Dual it
// is the forward tangent, dJ/dp and dJ/dy0 for a few directions at once: the cheap
// choice when parameters are few, and the exact reference the adjoint is tested against.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "adjoint/cvodes_gradient.hpp"
#include "adjoint/gradient_problem.hpp"

namespace backsweep {

namespace detail {

// J along `sequence` from the system's initial state y, by the problem's method on T;
// NaN when a state is not finite (where first: in `failure`, if given). With `show`, the
// states' values go to the problem's forward observer.
template <class T, class System, Model M, class Obj>
T replay_objective(const System& system, const GradientProblem<M, Obj>& problem,
                   const StepSequence& sequence, const ObservationSteps& observations,
                   std::vector<T> y, const std::vector<T>& p, IntegrateResult* failure = nullptr,
                   bool show = false) {
  T value(0);
  std::size_t next = 0;  // cursor into the observations, which are ordered by step
  std::vector<double> values(show && problem.forward_observer ? y.size() : 0);
  auto observe = [&](std::size_t step, double t, const T* state) {
    if constexpr (Obj::has_observation)
      for (; next < observations.step.size() && observations.step[next] == step; ++next)
        value += problem.objective.observation(observations.term[next], state, p.data());
    if (values.empty()) return;
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = value_of(state[i]);
    problem.forward_observer(t, values.data());
  };
  observe(0, sequence.t_start(), y.data());
  std::size_t step = 0;
  const IntegrateResult replayed = with_stepper<T>(system, problem.method, [&](auto& stepper) {
    return replay(
        stepper, y.data(), p.data(), sequence,
        [&](const StepInterval& interval, const T* state) { observe(++step, interval.t_next, state); },
        problem.integrate.progress);
  });
  if (!replayed.ok()) {
    if (failure) *failure = replayed;
    return T(NAN);
  }
  if constexpr (Obj::has_terminal) value += problem.objective.terminal(y.data(), p.data());
  if constexpr (Obj::has_running) value += y[state_size(problem.model)];
  return value;
}

}  // namespace detail

// J(y0, p) over a given step sequence (frozen: finite differences of the discrete map).
// NaN when an observation time is not on the sequence.
template <class T = double, Model M, class Obj>
T objective_value(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                  const std::vector<T>& p, const StepSequence& sequence) {
  detail::ObservationSteps observations;
  if (detail::observation_steps(problem.objective, sequence, observations)) return T(NAN);
  return detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    return detail::replay_objective<T>(system, problem, sequence, observations,
                                       detail::initial_state<T>(problem, y0, p), p);
  });
}

// The step sequence the gradient of `problem` replays (at its own y0 and p).
template <Model M, class Obj>
IntegrateResult problem_step_sequence(const GradientProblem<M, Obj>& problem,
                                      StepSequence& sequence) {
  return detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    return detail::step_sequence(
        system, problem,
        detail::values_of(detail::initial_state<double>(problem, problem.y0, problem.p)),
        problem.p, sequence);
  });
}

// dJ/dp and dJ/dy0 by forward-mode tangents (Dual lanes through the whole solve),
// kLanes columns per solve; for the SUNDIALS methods, CVODES' forward sensitivities.
template <Model M, class Obj>
GradientResult<double> tangent_gradient(const GradientProblem<M, Obj>& problem) {
  constexpr int kLanes = 8;
  using D = Dual<double, kLanes>;
  GradientResult<double> result;
  result.diagnostics.method = std::string(problem.method.name());
  if (problem.method.is_sundials()) return detail::cvodes_tangent_gradient(problem);
  StepSequence sequence;
  const IntegrateResult found = problem_step_sequence(problem, sequence);
  if (!found.ok()) {
    result.status = found.status;
    result.message = found.message;
    return result;
  }
  detail::ObservationSteps observations;
  if (auto why = detail::observation_steps(problem.objective, sequence, observations)) {
    result.status = IntegrateStatus::invalid_options;
    result.message = *why;
    return result;
  }
  const std::size_t n = state_size(problem.model), np = problem.p.size();
  result.dJ_dp.resize(np);
  result.dJ_dy0.resize(n);
  RunProgress* const progress = problem.integrate.progress;
  if (progress) progress->passes = (n + np + kLanes - 1) / kLanes;
  for (std::size_t first = 0; first < n + np; first += kLanes) {
    if (progress) progress->pass = first / kLanes;
    std::vector<D> y0(problem.y0.begin(), problem.y0.end()), p(problem.p.begin(), problem.p.end());
    for (int k = 0; k < kLanes; ++k) {
      const std::size_t column = first + std::size_t(k);
      if (column < np) p[column].d[k] = 1.0;
      else if (column < np + n) y0[column - np].d[k] = 1.0;
    }
    IntegrateResult failure;
    const D value = detail::with_system(problem.model, problem.objective, [&](const auto& system) {
      return detail::replay_objective<D>(system, problem, sequence, observations,
                                         detail::initial_state<D>(problem, y0, p), p, &failure, first == 0);
    });
    if (failure.status == IntegrateStatus::non_finite_state) {  // where, as the adjoint sweep says it
      result.status = failure.status;
      result.message = failure.message;
      result.diagnostics.steps = sequence.size();
      result.diagnostics.nonfinite = NonFinite{failure.derivative_only ? "tangent" : "forward", failure.failed_step + 1,
                                               failure.failed_component, failure.failed_time};
      return result;
    }
    result.value = value.v;
    for (int k = 0; k < kLanes; ++k) {
      const std::size_t column = first + std::size_t(k);
      if (column < np) result.dJ_dp[column] = value.d[k];
      else if (column < np + n) result.dJ_dy0[column - np] = value.d[k];
    }
  }
  result.diagnostics.steps = sequence.size();
  std::vector<double> all = result.dJ_dp;
  all.insert(all.end(), result.dJ_dy0.begin(), result.dJ_dy0.end());
  all.push_back(result.value);
  if (const std::size_t bad = first_non_finite<CpuAlgebra>(all.size(), all.data()); bad < all.size()) {
    result.status = IntegrateStatus::non_finite_state;
    result.message = "the forward tangent is not finite";  // the states were: an objective term is not
    result.diagnostics.nonfinite = NonFinite{"objective", sequence.size(), state_size(problem.model), sequence.t_end()};
  }
  return result;
}

}  // namespace backsweep
