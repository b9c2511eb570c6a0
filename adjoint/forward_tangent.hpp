#pragma once
// The objective evaluated by a forward solve over the same step sequence as the adjoint,
// on any scalar: on double it is J itself (finite differences, Taylor tests); on Dual it
// is the forward tangent, dJ/dp and dJ/dy0 for a few directions at once: the cheap
// choice when parameters are few, and the exact reference the adjoint is tested against.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "adjoint/gradient_problem.hpp"

namespace backsweep {

namespace detail {

template <class T, class System, Model M, class Obj>
T replay_objective(const System& system, const GradientProblem<M, Obj>& problem,
                   const StepSequence& sequence, const std::vector<std::size_t>& observation_steps,
                   std::vector<T> y, const std::vector<T>& p) {
  ExplicitRK<System, T> stepper(system, problem.tableau);
  std::vector<T> next(y.size());
  T value(0);
  auto observe = [&](std::size_t step) {
    if constexpr (Obj::has_observation)
      for (std::size_t k = 0; k < observation_steps.size(); ++k)
        if (observation_steps[k] == step) value += problem.objective.observation(k, y.data(), p.data());
  };
  observe(0);
  for (std::size_t n = 0; n < sequence.size(); ++n) {
    stepper.forget_first_slope();
    stepper.step(sequence.t[n], sequence.h[n], y.data(), p.data(), next.data());
    std::swap(y, next);
    observe(n + 1);
  }
  if constexpr (Obj::has_terminal) value += problem.objective.terminal(y.data(), p.data());
  if constexpr (Obj::has_running) value += y[state_size(problem.model)];
  return value;
}

}  // namespace detail

// J(y0, p) over a given step sequence (frozen: finite differences of the discrete map).
template <class T = double, Model M, class Obj>
T objective_value(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                  const std::vector<T>& p, const StepSequence& sequence) {
  return detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    std::vector<std::size_t> observation_steps;
    for (double t : problem.objective.observation_times)
      observation_steps.push_back(sequence.index_of(t));
    return detail::replay_objective<T>(system, problem, sequence, observation_steps,
                                       detail::initial_state<T>(problem, y0, p), p);
  });
}

// The step sequence the gradient of `problem` replays (at its own y0 and p).
template <Model M, class Obj>
IntegrateResult problem_step_sequence(const GradientProblem<M, Obj>& problem,
                                      StepSequence& sequence) {
  return detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    std::vector<std::size_t> observation_steps;
    return detail::prepare_sequence(
        system, problem, detail::values_of(detail::initial_state<double>(problem, problem.y0, problem.p)),
        problem.p, sequence, observation_steps);
  });
}

// dJ/dp and dJ/dy0 by forward-mode tangents (Dual lanes through the whole solve),
// kLanes columns per solve.
template <Model M, class Obj>
GradientResult<double> tangent_gradient(const GradientProblem<M, Obj>& problem) {
  constexpr int kLanes = 8;
  using D = Dual<double, kLanes>;
  GradientResult<double> result;
  StepSequence sequence;
  const IntegrateResult found = problem_step_sequence(problem, sequence);
  if (!found.ok()) {
    result.status = found.status;
    result.message = found.message;
    return result;
  }
  const std::size_t n = state_size(problem.model), np = problem.p.size();
  result.dJ_dp.resize(np);
  result.dJ_dy0.resize(n);
  for (std::size_t first = 0; first < n + np; first += kLanes) {
    std::vector<D> y0(problem.y0.begin(), problem.y0.end()), p(problem.p.begin(), problem.p.end());
    for (int k = 0; k < kLanes; ++k) {
      const std::size_t column = first + std::size_t(k);
      if (column < np) p[column].d[k] = 1.0;
      else if (column < np + n) y0[column - np].d[k] = 1.0;
    }
    const D value = objective_value<D>(problem, y0, p, sequence);
    result.value = value.v;
    for (int k = 0; k < kLanes; ++k) {
      const std::size_t column = first + std::size_t(k);
      if (column < np) result.dJ_dp[column] = value.d[k];
      else if (column < np + n) result.dJ_dy0[column - np] = value.d[k];
    }
  }
  result.diagnostics.method = std::string(problem.tableau.name);
  result.diagnostics.steps = sequence.size();
  std::vector<double> all = result.dJ_dp;
  all.insert(all.end(), result.dJ_dy0.begin(), result.dJ_dy0.end());
  all.push_back(result.value);
  if (const std::size_t bad = detail::first_non_finite(all.data(), all.size()); bad < all.size()) {
    result.status = IntegrateStatus::non_finite_state;
    result.message = "the forward tangent is not finite";
    result.diagnostics.nonfinite = NonFinite{"forward", sequence.size(), bad, sequence.t_end};
  }
  return result;
}

}  // namespace backsweep
