#pragma once
// The objective evaluated by a forward solve over the same step sequence as the adjoint,
// on any scalar: on double it is J itself (finite differences, Taylor tests); on Dual it
// is the forward tangent, dJ/dp and dJ/dy0 for a few directions at once: the cheap
// choice when parameters are few, and the exact reference the adjoint is tested against.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "adjoint/cvodes_gradient.hpp"
#include "adjoint/stability_verdict.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/tangent_watch.hpp"

namespace backsweep {

namespace detail {

// What a replay does besides J (the tangent's passes): where a state, or first an
// objective's term, was not finite; the states' values to the problem's forward observer
// (`show`); the watch, after every step.
template <class Watch = std::nullptr_t>
struct ReplayExtras {
  IntegrateResult* failure = nullptr;
  std::optional<NonFinite>* bad_term = nullptr;
  bool show = false;
  Watch* watch = nullptr;
};

// J along `sequence` from the system's initial state y, by the problem's method on T;
// NaN when a state is not finite.
template <class T, class System, Model M, class Obj, class Watch = std::nullptr_t>
T replay_objective(const System& system, const GradientProblem<M, Obj>& problem,
                   const StepSequence& sequence, const ObservationSteps& observations,
                   std::vector<T> y, const std::vector<T>& p, ReplayExtras<Watch> extras = {}) {
  T value(0);
  std::size_t next = 0;  // cursor into the observations, which are ordered by step
  std::vector<double> values(extras.show && problem.forward_observer ? y.size() : 0);
  auto check_term = [&](const char* term, std::size_t step, double t) {
    using std::isfinite;
    if (extras.bad_term && !*extras.bad_term && !isfinite(value))
      *extras.bad_term = NonFinite{term, step, state_size(problem.model), t};
  };
  auto observe = [&](std::size_t step, double t, const T* state) {
    if constexpr (Obj::has_observation)
      for (; next < observations.step.size() && observations.step[next] == step; ++next) {
        value += problem.objective.observation(observations.term[next], state, p.data());
        check_term("observation", step, t);
      }
    if (values.empty()) return;
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = value_of(state[i]);
    problem.forward_observer(t, values.data());
  };
  observe(0, sequence.t_start(), y.data());
  std::size_t step = 0;
  const IntegrateResult replayed = with_stepper<T>(system, problem.method, problem.integrate.events.get(), [&](auto& stepper) {
    return replay(
        stepper, y.data(), p.data(), sequence,
        [&](const StepInterval& interval, const T* state) {
          observe(++step, interval.t_next, state);
          if constexpr (!std::is_same_v<Watch, std::nullptr_t>)
            if (extras.watch) extras.watch->after_step(interval, state, y.size(), value);
        },
        problem.integrate.progress);
  });
  if (!replayed.ok()) {
    if (extras.failure) *extras.failure = replayed;
    return T(NAN);
  }
  if constexpr (Obj::has_terminal) {
    value += problem.objective.terminal(y.data(), p.data());
    check_term("terminal", sequence.size(), sequence.t_end());
  }
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
  std::optional<NonFinite> bad_term;  // the first objective's term that was not finite
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
      using Watch = detail::TangentWatch<std::remove_cvref_t<decltype(system)>>;
      std::optional<Watch> watch;  // the first pass's
      if (first == 0) watch.emplace(system, problem.method, problem.monitor, sequence, n, problem.p);
      const detail::ReplayExtras<Watch> extras{&failure, &bad_term, first == 0, watch ? &*watch : nullptr};
      const D replayed = detail::replay_objective<D>(system, problem, sequence, observations,
                                                     detail::initial_state<D>(problem, y0, p), p, extras);
      if (watch) {
        result.diagnostics.monitor = watch->report();
        result.diagnostics.stiffness = watch->stiffness();
      }
      return replayed;
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
  detail::add_stiffness_verdict(result, problem.method.name(), problem.integrate);
  std::vector<double> all = result.dJ_dp;
  all.insert(all.end(), result.dJ_dy0.begin(), result.dJ_dy0.end());
  all.push_back(result.value);
  if (const std::size_t bad = first_non_finite<CpuAlgebra>(all.size(), all.data()); bad < all.size()) {
    result.status = IntegrateStatus::non_finite_state;
    // The states were finite: an objective's term was not (the first such, where known).
    result.diagnostics.nonfinite =
        bad_term ? *bad_term : NonFinite{"objective", sequence.size(), state_size(problem.model), sequence.t_end()};
    result.message = result.diagnostics.nonfinite->describe();
  }
  return result;
}

}  // namespace backsweep
