#pragma once
// The backward sweep of one gradient: it seeds lambda_N from the objective, reverses steps
// with the stepper's exact reverse (lambda_n, mu_n from y_n and lambda_{n+1}), adds the
// observation terms at their times, accumulates dJ/dp with compensated sums, and feeds the
// growth monitor. Whoever drives it (store-all's loop, or a schedule's backend) hands it
// each step's interval and state, last step first.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/stiffness.hpp"
#include "solvers/stepper.hpp"

namespace backsweep::detail {

template <ReversibleStepper S, Model M, class Obj>
class AdjointSweep {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;

  // `steps`, when known, spaces the monitor's history from the start.
  // p in the algebra's memory, where device kernels read it (gradient() puts it there).
  AdjointSweep(S& stepper, const GradientProblem<M, Obj>& problem, std::span<const T> p,
               double t_start, double t_end, std::size_t steps)
      : stepper_(stepper), problem_(problem), p_(p), n_(stepper.state_size()),
        n_user_(backsweep::state_size(problem.model)), np_(p.size()), stepper_np_(stepper.param_size()),
        lambda_(n_, T(0)), step_mu_(np_), mu_(np_), grad_y_(n_user_), grad_p_(np_), scalar_(n_user_, np_),
        monitor_(problem.monitor, t_start, t_end, steps) {
    for (std::size_t k = 0; k < problem.objective.observation_times.size(); ++k)
      observations_.emplace_back(problem.objective.observation_times[k], k);
    std::stable_sort(observations_.begin(), observations_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    next_observation_ = observations_.size();
    // The probe evaluates the model on host vectors (an algebra of its own is future work),
    // with norms of the whole state.
    if constexpr (std::is_same_v<T, double> && host_vectors<A> && !split_over_ranks<A>)
      if (problem.method.family == Method::Family::explicit_rk)
        stiffness_.emplace(stepper.model(), real_stability_limit(*problem.method.tableau));
  }

  // lambda_N, and the value, from the terminal term, the quadrature and the observations
  // at t_N.
  void seed(const T* y_end, double t_end) {
    if (seeded_ || nonfinite_) return;
    seeded_ = true;
    fill<A>(n_, T(0), lambda_.data());
    if constexpr (Obj::has_terminal) {
      value_ += terminal_gradient(problem_.objective.terminal, scalar_, y_end, p_.data(),
                                  grad_y_.data(), grad_p_.data());
      check_term("terminal", t_end);
      accumulate();
    }
    if constexpr (Obj::has_running) {
      value_ += y_end[n_user_];
      lambda_[n_user_] = T(1);
    }
    add_observations(t_end, y_end);
    observe(t_end);
  }
  bool seeded() const { return seeded_; }

  // Reverses `step` (step n) from its state y_n: lambda_{n+1} -> lambda_n, dJ/dp += mu_n.
  BACKSWEEP_INLINE void reverse_step(std::size_t n, const StepInterval& step, const T* y) {
    if (nonfinite_) return;  // nothing after the first NaN is meaningful
    stepper_.reverse(step, y, p_.data(), lambda_.data(), step_mu_.data());
    after_reverse(n, step, y);
  }
  // The same from the step's record (its first stage value is y_n).
  BACKSWEEP_INLINE void reverse_recorded(std::size_t n, const StepInterval& step, const T* record)
    requires RecordingStepper<S>
  {
    if (nonfinite_) return;
    stepper_.reverse_recorded(step, record, p_.data(), lambda_.data(), step_mu_.data());
    after_reverse(n, step, record);
  }

  // A forward state: a NaN or Inf in it ends the gradient (reported as state `step`).
  void check_forward(const T* y, std::size_t step, double t) {
    check_finite(y, "forward", step, t);
    if (RunProgress* progress = problem_.integrate.progress) progress->reached_forward(t);
    if (!nonfinite_) observe_forward(problem_, t, y);
  }

  T value() const { return value_; }
  const T* lambda() const { return lambda_.data(); }
  T parameter_gradient(std::size_t j) const { return mu_.total(j); }
  void add_parameter_gradient(std::size_t j, const T& x) { mu_.add(j, x); }
  const std::optional<NonFinite>& nonfinite() const { return nonfinite_; }
  GrowthReport growth_report() const { return monitor_.report(); }
  std::optional<StiffnessEstimate> stiffness() const {
    if (!stiffness_) return std::nullopt;
    return stiffness_->estimate();
  }

  // A NaN that reached only the value or dJ/dp is reported too (as backward, step 0).
  void check_results(const T& value, const std::vector<T>& dJ_dp, double t_start) {
    if (nonfinite_) return;
    std::vector<T> all(dJ_dp);  // on the host
    all.push_back(value);
    const std::size_t component = first_non_finite<CpuAlgebra>(all.size(), all.data());
    if (component < all.size()) nonfinite_ = NonFinite{"backward", 0, component, t_start};
  }

 private:
  BACKSWEEP_INLINE void after_reverse(std::size_t n, const StepInterval& step, const T* y) {
    // One compensated addition per step: the few stage terms of a step are alike in
    // size; it is the long sum over steps that loses digits.
    mu_.add(stepper_np_, step_mu_.data());
    add_observations(step.t, y);
    check_finite(lambda_.data(), "backward", n, step.t);
    observe(step.t);
    if (RunProgress* progress = problem_.integrate.progress) progress->reached_backward(step.t);
    if constexpr (std::is_same_v<T, double>)
      if (stiffness_) stiffness_->after_step(step.t, step.h, y, p_.data());
    // Sizes from the stepper and the model: compile-time constants for small models.
    monitor_.template record<A>(step.t, lambda_.data(), backsweep::state_size(problem_.model), [&] {
      double squares = 0.0;
      for (std::size_t j = 0; j < np_; ++j) {
        const double g = value_of(mu_.total(j));
        squares += g * g;
      }
      return std::sqrt(squares);
    });
  }

  // Observation terms at time t (the steps land on them exactly), walked backward.
  void add_observations(double t, const T* y) {
    if constexpr (Obj::has_observation) {
      const auto& l = problem_.objective.observation;
      for (; next_observation_ > 0 && observations_[next_observation_ - 1].first >= t;
           --next_observation_) {
        if (observations_[next_observation_ - 1].first != t) continue;  // not on the grid
        const std::size_t k = observations_[next_observation_ - 1].second;
        value_ += observation_gradient(l, scalar_, k, y, p_.data(), grad_y_.data(), grad_p_.data());
        check_term("observation", t);
        accumulate();
      }
    }
  }

  void observe(double t) {
    if constexpr (std::is_same_v<T, double>)
      if (problem_.adjoint_observer) problem_.adjoint_observer(t, lambda_.data());
  }

  void accumulate() {
    add<A>(n_user_, static_cast<const T*>(grad_y_.data()), lambda_.data());
    mu_.add(np_, grad_p_.data());
  }

  // An objective term (its value, then its derivatives: by state, then by parameter)
  // that is not finite, named as the term rather than as the adjoint it would spoil.
  void check_term(const char* term, double t) {
    if (nonfinite_) return;
    std::size_t component = first_non_finite<A>(n_user_, static_cast<const T*>(grad_y_.data()));
    if (component == n_user_ && first_non_finite<A>(np_, static_cast<const T*>(grad_p_.data())) == np_ &&
        first_non_finite<CpuAlgebra>(1, &value_) == 1)
      return;
    nonfinite_ = NonFinite{term, 0, component, t};
  }

  void check_finite(const T* v, const char* phase, std::size_t step, double t) {
    if (nonfinite_) return;
    const std::size_t component = first_non_finite<A>(n_, v);
    if (component < n_) [[unlikely]] {
      nonfinite_ = NonFinite{phase, step, component, t};
      if constexpr (requires { stepper_.linear_failure(); }) nonfinite_->cause = stepper_.linear_failure();
    }
  }

  S& stepper_;
  const GradientProblem<M, Obj>& problem_;
  std::span<const T> p_;
  // The sizes, read once: behind AnyStepper each ask is a virtual call.
  std::size_t n_, n_user_, np_, stepper_np_;
  typename A::template vector<T> lambda_, step_mu_;
  CompensatedSum<T, A> mu_;
  typename A::template vector<T> grad_y_, grad_p_;  // the objective's terms, added on the algebra
  ScalarGradient<T> scalar_;
  std::vector<std::pair<double, std::size_t>> observations_;  // (time, term), by time
  std::size_t next_observation_;
  GrowthMonitor monitor_;
  std::optional<StiffnessProbe<typename S::model_type>> stiffness_;
  T value_{0};
  bool seeded_ = false;
  std::optional<NonFinite> nonfinite_;
};

}  // namespace backsweep::detail
