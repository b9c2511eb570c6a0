#pragma once
// The backward sweep of one gradient: it seeds lambda_N from the objective, reverses steps
// with the stepper's exact reverse (lambda_n, mu_n from y_n and lambda_{n+1}), adds the
// observation terms at their steps, accumulates dJ/dp with compensated sums, and feeds
// the growth monitor. It is also the backend a checkpoint schedule runs against
// (schedule_executor.hpp): advance, store, restore, adjoint_step.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "adjoint/checkpoint_store.hpp"
#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "solvers/stepper.hpp"

namespace backsweep::detail {

template <ReversibleStepper S, Model M, class Obj>
class AdjointSweep {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;

  AdjointSweep(S& stepper, const GradientProblem<M, Obj>& problem, const StepSequence& sequence,
               const ObservationSteps& observations, const std::vector<T>& p,
               CheckpointStore<T, A>& store)
      : stepper_(stepper), problem_(problem), sequence_(sequence), observations_(observations),
        p_(p), store_(store), n_(stepper.state_size()),
        n_user_(backsweep::state_size(problem.model)), np_(p.size()), current_(n_), next_(n_),
        lambda_(n_, T(0)), step_mu_(np_), mu_(np_), grad_y_(n_user_), grad_p_(np_),
        scalar_(n_user_, np_), next_observation_(observations.step.size()),
        monitor_(problem.monitor, sequence.t_start(), sequence.t_end(), sequence.size()) {}

  // The executor's backend. The state at step 0 must be set first.
  void set_current(const T* y) { copy<A>(n_, y, current_.data()); }
  void advance(std::size_t from, std::size_t to) {
    for (std::size_t n = from; n < to && !nonfinite_; ++n) {
      const StepInterval step = sequence_[n];
      stepper_.step(step, current_.data(), p_.data(), next_.data());
      stepper_.accept();  // consecutive steps share a first-same-as-last slope
      std::swap(current_, next_);
      check_finite(current_.data(), "forward", n + 1, step.t_next);
    }
  }
  void store(std::size_t slot, Level, std::size_t) { store_.put(slot, current_.data()); }
  void restore(std::size_t slot, Level, std::size_t) {
    copy<A>(n_, store_.get(slot, next_.data()), current_.data());
    stepper_.restart();
  }
  bool at_end() const { return false; }  // the sequence is known: N is
  void adjoint_step(std::size_t n) {
    if (n + 1 == sequence_.size()) {
      first_adjoint_step_ = std::chrono::steady_clock::now();
      stepper_.restart();
      stepper_.step(sequence_[n], current_.data(), p_.data(), next_.data());
      check_finite(next_.data(), "forward", n + 1, sequence_.t_end());
      seed(next_.data());
    }
    reverse_step(n, current_.data());
  }

  // lambda_N, and the value, from the terminal term, the quadrature and the observations
  // at t_N.
  void seed(const T* y_end) {
    if (nonfinite_) return;
    fill<A>(n_, T(0), lambda_.data());
    if constexpr (Obj::has_terminal) {
      value_ += terminal_gradient(problem_.objective.terminal, scalar_, y_end, p_.data(),
                                  grad_y_.data(), grad_p_.data());
      accumulate();
    }
    if constexpr (Obj::has_running) {
      value_ += y_end[n_user_];
      lambda_[n_user_] = T(1);
    }
    add_observations(sequence_.size(), y_end);
  }

  // Reverses step n from its state y_n: lambda_{n+1} -> lambda_n, dJ/dp += mu_n.
  BACKSWEEP_INLINE void reverse_step(std::size_t n, const T* y) {
    if (nonfinite_) return;  // nothing after the first NaN is meaningful
    stepper_.reverse(sequence_[n], y, p_.data(), lambda_.data(), step_mu_.data());
    after_reverse(n, y);
  }
  // The same from the step's record (its first stage value is y_n).
  BACKSWEEP_INLINE void reverse_recorded(std::size_t n, const T* record)
    requires RecordingStepper<S>
  {
    if (nonfinite_) return;
    stepper_.reverse_recorded(sequence_[n], record, p_.data(), lambda_.data(), step_mu_.data());
    after_reverse(n, record);
  }

 private:
  BACKSWEEP_INLINE void after_reverse(std::size_t n, const T* y) {
    const StepInterval step = sequence_[n];
    // One compensated addition per step: the few stage terms of a step are alike in
    // size; it is the long sum over steps that loses digits.
    mu_.add(stepper_.param_size(), step_mu_.data());
    add_observations(n, y);
    check_finite(lambda_.data(), "backward", n, step.t);
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

 public:
  T value() const { return value_; }
  const T* lambda() const { return lambda_.data(); }
  T parameter_gradient(std::size_t j) const { return mu_.total(j); }
  void add_parameter_gradient(std::size_t j, const T& x) { mu_.add(j, x); }
  const std::optional<NonFinite>& nonfinite() const { return nonfinite_; }
  GrowthReport growth_report() const { return monitor_.report(); }
  // When the executor's first adjoint step began: the forward sweep's end.
  std::chrono::steady_clock::time_point first_adjoint_step() const { return first_adjoint_step_; }

  // A NaN that reached only the value or dJ/dp is reported too (as backward, step 0).
  void check_results(const T& value, const std::vector<T>& dJ_dp) {
    if (nonfinite_) return;
    std::vector<T> all(dJ_dp);
    all.push_back(value);
    const std::size_t component = first_non_finite<A>(all.size(), all.data());
    if (component < all.size()) nonfinite_ = NonFinite{"backward", 0, component, sequence_.t_start()};
  }

 private:
  // Observation terms at `step`, walked backward with a cursor.
  void add_observations(std::size_t step, const T* y) {
    if constexpr (Obj::has_observation) {
      const auto& l = problem_.objective.observation;
      for (; next_observation_ > 0 && observations_.step[next_observation_ - 1] == step;
           --next_observation_) {
        const std::size_t k = observations_.term[next_observation_ - 1];
        value_ += observation_gradient(l, scalar_, k, y, p_.data(), grad_y_.data(), grad_p_.data());
        accumulate();
      }
    }
  }

  void accumulate() {
    add<A>(n_user_, static_cast<const T*>(grad_y_.data()), lambda_.data());
    mu_.add(np_, grad_p_.data());
  }

  void check_finite(const T* v, const char* phase, std::size_t step, double t) {
    if (nonfinite_) return;
    const std::size_t n = stepper_.state_size();
    const std::size_t component = first_non_finite<A>(n, v);
    if (component < n) [[unlikely]]
      nonfinite_ = NonFinite{phase, step, component, t};
  }

  S& stepper_;
  const GradientProblem<M, Obj>& problem_;
  const StepSequence& sequence_;
  const ObservationSteps& observations_;
  const std::vector<T>& p_;
  CheckpointStore<T, A>& store_;
  std::size_t n_, n_user_, np_;
  typename A::template vector<T> current_, next_, lambda_, step_mu_;
  CompensatedSum<T, A> mu_;
  std::vector<T> grad_y_, grad_p_;
  ScalarGradient<T> scalar_;
  std::size_t next_observation_;
  GrowthMonitor monitor_;
  T value_{0};
  std::optional<NonFinite> nonfinite_;
  std::chrono::steady_clock::time_point first_adjoint_step_;
};

}  // namespace backsweep::detail
