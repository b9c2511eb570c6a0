#pragma once
// The backend the checkpoint executor drives for one gradient: it advances states,
// keeps them in slots, and reverses steps with the discrete adjoint of the explicit
// Runge-Kutta step (Hager; Sandu):
//   kbar_i = h b_i lambda + sum_{j>i} h a_ji Ybar_j,   Ybar_i = f_y(Y_i)ᵀ kbar_i,
//   mu += f_p(Y_i)ᵀ kbar_i,   lambda_n = lambda_{n+1} + sum_i Ybar_i,
// which needs no division by b_i (Heun's RK3 has b_2 = 0). Observation terms join lambda
// and mu at their steps; the terminal and quadrature terms seed lambda_N.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <optional>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "models/derivatives.hpp"

namespace backsweep::detail {

template <class System, class T, Model M, class Obj>
class AdjointSweep {
 public:
  AdjointSweep(const System& system, const GradientProblem<M, Obj>& problem,
               const StepSequence& sequence, const std::vector<std::size_t>& observation_steps,
               const std::vector<T>& y0, const std::vector<T>& p, std::size_t slots,
               CheckpointOptions::Storage storage)
      : problem_(problem), sequence_(sequence), p_(p),
        stepper_(system, problem.tableau), derivatives_(system),
        n_(backsweep::state_size(system)), n_user_(backsweep::state_size(problem.model)),
        np_(p.size()), stages_(problem.tableau.stages),
        current_(y0), next_(n_), lambda_(n_, T(0)),
        stage_adjoints_(std::size_t(stages_) * n_), kbar_(n_), pbar_(np_), step_pbar_(np_, T(0)),
        mu_(np_),
        grad_y_(n_user_), grad_p_(np_), scalar_(n_user_, np_),
        observations_at_(sequence.size() + 1),
        monitor_(problem.monitor, sequence.t.empty() ? sequence.t_end : sequence.t[0],
                 sequence.t_end),
        float32_(storage == CheckpointOptions::Storage::float32) {
    if (float32_) slots32_.resize(slots * n_);
    else slots_.resize(slots * n_);
    for (std::size_t k = 0; k < observation_steps.size(); ++k)
      observations_at_[observation_steps[k]].push_back(k);
    started_ = std::chrono::steady_clock::now();
  }

  void advance(std::size_t from, std::size_t to) {
    for (std::size_t n = from; n < to; ++n) {
      stepper_.forget_first_slope();  // every step from its own state: schedule-independent
      stepper_.step(sequence_.t[n], sequence_.h[n], current_.data(), p_.data(), next_.data());
      std::swap(current_, next_);
      check_finite(current_, "forward", n + 1, sequence_.t[n] + sequence_.h[n]);
    }
  }
  void store(std::size_t slot, std::size_t) {
    if constexpr (std::is_same_v<T, double>)
      if (float32_) {
        float* kept = slots32_.data() + slot * n_;
        for (std::size_t k = 0; k < n_; ++k) kept[k] = float(current_[k]);
        return;
      }
    T* kept = slots_.data() + slot * n_;
    for (std::size_t k = 0; k < n_; ++k) kept[k] = current_[k];
  }
  void restore(std::size_t slot, std::size_t) {
    if constexpr (std::is_same_v<T, double>)
      if (float32_) {
        const float* kept = slots32_.data() + slot * n_;
        for (std::size_t k = 0; k < n_; ++k) current_[k] = double(kept[k]);
        return;
      }
    const T* kept = slots_.data() + slot * n_;
    for (std::size_t k = 0; k < n_; ++k) current_[k] = kept[k];
  }

  void adjoint_step(std::size_t n) {
    if (!backward_started_) {
      backward_started_ = true;
      forward_seconds_ = seconds_since(started_);
      started_ = std::chrono::steady_clock::now();
    }
    if (nonfinite_) return;  // nothing after the first NaN is meaningful
    const double t = sequence_.t[n], h = sequence_.h[n];
    stepper_.forget_first_slope();
    stepper_.step_keeping_stages(t, h, current_.data(), p_.data(), next_.data());
    if (n + 1 == sequence_.size()) {
      check_finite(next_, "forward", n + 1, sequence_.t_end);
      if (nonfinite_) return;
      seed(next_);
    }
    reverse_step(t, h);
    add_observations(n, current_);
    check_finite(lambda_, "backward", n, t);
    monitor_.record(t, lambda_.data(), n_user_, [&] {
      double squares = 0.0;
      for (std::size_t j = 0; j < np_; ++j) {
        const double g = value_of(mu_.total(j));
        squares += g * g;
      }
      return std::sqrt(squares);
    });
  }

  T value() const { return value_; }
  const std::vector<T>& lambda() const { return lambda_; }
  T parameter_gradient(std::size_t j) const { return mu_.total(j); }
  void add_parameter_gradient(std::size_t j, const T& x) { mu_.add(j, x); }
  std::size_t vjp_evaluations() const { return vjp_evaluations_; }
  std::size_t rhs_evaluations() const { return stepper_.rhs_evaluations(); }
  double forward_seconds() const { return forward_seconds_; }
  double backward_seconds() const { return seconds_since(started_); }
  const std::optional<NonFinite>& nonfinite() const { return nonfinite_; }
  GrowthReport growth_report() const { return monitor_.report(); }
  std::size_t bytes_per_slot() const { return n_ * (float32_ ? sizeof(float) : sizeof(T)); }

  // A NaN that reached only the value or dJ/dp is reported too (as backward, step 0).
  void check_results(const T& value, const std::vector<T>& dJ_dp) {
    std::vector<T> all(dJ_dp);
    all.push_back(value);
    if (nonfinite_) return;
    const std::size_t component = first_non_finite(all.data(), all.size());
    if (component < all.size()) nonfinite_ = NonFinite{"backward", 0, component, sequence_.t[0]};
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // lambda_N from the terminal term, the quadrature and observations at t_N.
  void seed(const std::vector<T>& y_end) {
    std::fill(lambda_.begin(), lambda_.end(), T(0));
    if constexpr (Obj::has_terminal) {
      const auto& g = problem_.objective.terminal;
      value_ += scalar_([&](const auto* y, const auto* p) { return g(y, p); }, y_end.data(),
                        p_.data(), grad_y_.data(), grad_p_.data());
      accumulate();
    }
    if constexpr (Obj::has_running) {
      value_ += y_end[n_user_];
      lambda_[n_user_] = T(1);
    }
    add_observations(sequence_.size(), y_end);
  }

  void add_observations(std::size_t step, const std::vector<T>& y) {
    if constexpr (Obj::has_observation) {
      const auto& l = problem_.objective.observation;
      for (std::size_t k : observations_at_[step]) {
        value_ += scalar_([&](const auto* s, const auto* p) { return l(k, s, p); }, y.data(),
                          p_.data(), grad_y_.data(), grad_p_.data());
        accumulate();
      }
    }
  }

  void accumulate() {
    for (std::size_t i = 0; i < n_user_; ++i) lambda_[i] += grad_y_[i];
    for (std::size_t j = 0; j < np_; ++j) mu_.add(j, grad_p_[j]);
  }

  void reverse_step(double t, double h) {
    const ButcherTableau& tableau = stepper_.tableau();
    const std::size_t n = stepper_.state_size();  // a constant for static models
    const int s = stages_;
    for (int i = s - 1; i >= 0; --i) {
      // kbar_i = h b_i lambda + sum_{j>i} h a_ji Ybar_j, over the nonzero a_ji.
      const double hb = h * tableau.b[i];
      for (std::size_t k = 0; k < n; ++k) kbar_[k] = hb * lambda_[k];
      for (int j = i + 1; j < s; ++j) {
        if (tableau.a[j][i] == 0.0) continue;
        const double ha = h * tableau.a[j][i];
        const T* ybar_j = stage_adjoint(j);
        for (std::size_t k = 0; k < n; ++k) kbar_[k] += ha * ybar_j[k];
      }
      T* ybar_i = stage_adjoint(i);
      bool zero = true;
      for (std::size_t k = 0; k < n; ++k) zero = zero && is_exact_zero(kbar_[k]);
      if (zero) {
        std::fill(ybar_i, ybar_i + n, T(0));
        continue;
      }
      derivatives_.vjp(T(t + tableau.c[i] * h), stepper_.stage_state(i), p_.data(),
                       kbar_.data(), ybar_i, pbar_.data());
      ++vjp_evaluations_;
      for (std::size_t j = 0; j < np_; ++j) step_pbar_[j] += pbar_[j];
    }
    // One compensated addition per step: the few stage terms of a step are alike in
    // size; it is the long sum over steps that loses digits.
    for (std::size_t j = 0; j < np_; ++j) {
      mu_.add(j, step_pbar_[j]);
      step_pbar_[j] = T(0);
    }
    for (int i = 0; i < s; ++i) {
      const T* ybar_i = stage_adjoint(i);
      for (std::size_t k = 0; k < n; ++k) lambda_[k] += ybar_i[k];
    }
  }

  void check_finite(const std::vector<T>& v, const char* phase, std::size_t step, double t) {
    if (nonfinite_) return;
    const std::size_t n = stepper_.state_size();
    const std::size_t component = first_non_finite(v.data(), n);
    if (component < n) nonfinite_ = NonFinite{phase, step, component, t};
  }

  T* stage_adjoint(int i) { return stage_adjoints_.data() + std::size_t(i) * n_; }

  const GradientProblem<M, Obj>& problem_;
  const StepSequence& sequence_;
  const std::vector<T>& p_;
  ExplicitRK<System, T> stepper_;
  Derivatives<System, T> derivatives_;
  std::size_t n_, n_user_, np_;
  int stages_;
  std::vector<T> current_, next_, slots_, lambda_, stage_adjoints_, kbar_, pbar_, step_pbar_;
  std::vector<float> slots32_;
  CompensatedSum<T> mu_;
  std::vector<T> grad_y_, grad_p_;
  ScalarGradient<T> scalar_;
  std::vector<std::vector<std::size_t>> observations_at_;
  GrowthMonitor monitor_;
  bool float32_;
  T value_{0};
  std::size_t vjp_evaluations_ = 0;
  std::optional<NonFinite> nonfinite_;
  bool backward_started_ = false;
  double forward_seconds_ = 0.0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace backsweep::detail
