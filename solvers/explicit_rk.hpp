#pragma once
// ExplicitRK: one step of any explicit Runge-Kutta tableau, and nothing else (the loops
// live in integrate.hpp). On request it keeps the stage states Y_i and slopes k_i of a
// step, which is what a discrete adjoint needs, and it reuses the last slope as the next
// first one for FSAL tableaux. Templated on the scalar T, so a whole solve runs on Dual numbers.
// Work vectors are sized once here: stepping never allocates.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/model.hpp"
#include "solvers/butcher_tableau.hpp"

namespace backsweep {

namespace detail {
// Whether a tableau is named at compile time. A specialisation rather than a comparison
// with nullptr, which GCC does not treat as constant under -fsanitize=undefined.
template <const ButcherTableau* P>
inline constexpr bool is_static_tableau = true;
template <>
inline constexpr bool is_static_tableau<nullptr> = false;
}  // namespace detail

//
// The tableau is run-time data by default. Naming one at compile time
// (ExplicitRK<M, double, &tableaux::rk4>) lets the compiler unroll the stage loops and
// fold the coefficients: the fast path for hot loops, with identical results.
template <Model M, class T = double, const ButcherTableau* StaticTableau = nullptr>
class ExplicitRK {
 public:
  using scalar_type = T;
  using model_type = M;
  static constexpr bool kHasStaticTableau = detail::is_static_tableau<StaticTableau>;

  ExplicitRK(const M& model, const ButcherTableau& tableau)
    requires(!kHasStaticTableau)
      : ExplicitRK(model, tableau, 0) {}
  explicit ExplicitRK(const M& model)
    requires(kHasStaticTableau)
      : ExplicitRK(model, *StaticTableau, 0) {}
  // The stepper refers to the model: it must outlive the stepper.
  ExplicitRK(const M&&, const ButcherTableau&) = delete;
  explicit ExplicitRK(const M&&) = delete;

  const M& model() const { return model_; }
  constexpr const ButcherTableau& tableau() const {
    if constexpr (kHasStaticTableau) return *StaticTableau;
    else return tableau_;
  }
  std::size_t state_size() const {
    if constexpr (static_state_size<M> > 0) return static_state_size<M>;
    else return n_;
  }

  // y_next = Phi(t, h, y; p). With `error` given, also the embedded error estimate
  // h sum_i e_i k_i (the tableau must be adaptive). y_next may not alias y. The stage
  // values are not kept (use step_keeping_stages for that).
  BACKSWEEP_INLINE void step(double t, double h, const T* y, const T* p, T* y_next,
                             T* error = nullptr) {
    run_step(t, h, y, p, y_next, error, false);
  }

  // The same step, bitwise, keeping its stage states and slopes for stage_state(i) and
  // stage_slope(i): what an adjoint sweep asks for when it revisits a step.
  void step_keeping_stages(double t, double h, const T* y, const T* p, T* y_next,
                           T* error = nullptr) {
    run_step(t, h, y, p, y_next, error, true);
  }

  // Call after an accepted step: an FSAL tableau then starts the next step from the
  // slope it already has (this overwrites k_1 of the step just taken).
  void accept() {
    if (!tableau().fsal) return;
    const T* last = stage_slope(tableau().stages - 1);
    T* first = stage_slope(0);
    for (std::size_t k = 0; k < state_size(); ++k) first[k] = last[k];
    first_slope_known_ = true;
  }
  // Call after a rejected step: the retry starts from the same state, so k_1 still holds.
  void reject() { first_slope_known_ = true; }
  // Call when the next step starts from a state the stepper has not seen.
  void forget_first_slope() { first_slope_known_ = false; }

  // Stage state Y_i and slope k_i = f(t + c_i h, Y_i) of the last step_keeping_stages.
  T* stage_state(int i) { return stage_states_.data() + static_cast<std::size_t>(i) * n_; }
  T* stage_slope(int i) { return stage_slopes_.data() + static_cast<std::size_t>(i) * n_; }
  const T* stage_state(int i) const {
    return stage_states_.data() + static_cast<std::size_t>(i) * n_;
  }
  const T* stage_slope(int i) const {
    return stage_slopes_.data() + static_cast<std::size_t>(i) * n_;
  }

  // f(t, y; p), counted with the stage evaluations.
  void evaluate(double t, const T* y, const T* p, T* dydt) {
    model_(T(t), y, p, dydt);
    ++rhs_evaluations_;
  }
  std::size_t rhs_evaluations() const { return rhs_evaluations_; }

 private:
  BACKSWEEP_INLINE void run_step(double t, double h, const T* y, const T* p, T* y_next,
                                T* error, bool keep_stages) {
    if constexpr (kLocalStages) {
      // Stages in local arrays, which the compiler keeps in registers. Stored after:
      // every stage on request, else k_1 (a retry after reject() starts from it) and,
      // for FSAL, the last slope (accept() makes it the next k_1).
      T states[kMaxStages * kStatic], slopes[kMaxStages * kStatic];
      if (first_slope_known_)
        for (std::size_t k = 0; k < kStatic; ++k) slopes[k] = stage_slopes_[k];
      step_in(t, h, y, p, y_next, error, states, slopes);
      const std::size_t count = std::size_t(tableau().stages) * kStatic;
      T* const kept_states = stage_states_.data();
      T* const kept_slopes = stage_slopes_.data();
      if (keep_stages) {
        for (std::size_t k = 0; k < count; ++k) {
          kept_states[k] = states[k];
          kept_slopes[k] = slopes[k];
        }
        return;
      }
      for (std::size_t k = 0; k < kStatic; ++k) kept_slopes[k] = slopes[k];
      if (tableau().fsal)
        for (std::size_t k = count - kStatic; k < count; ++k) kept_slopes[k] = slopes[k];
    } else {
      step_in(t, h, y, p, y_next, error, stage_states_.data(), stage_slopes_.data());
    }
  }

  // The step itself, on stage buffers laid out stage by stage (s x n).
  BACKSWEEP_INLINE void step_in(double t, double h, const T* y, const T* p, T* y_next,
                               T* error, T* states, T* slopes) {
    if constexpr (kHasStaticTableau) {
      step_static(t, h, y, p, y_next, error, states, slopes);
      return;
    }
    const int s = tableau().stages;
    // The constructor checked this; saying so keeps the unrolled loop in bounds.
    if (s > kMaxStages) __builtin_unreachable();
    const std::size_t n = state_size();
    for (std::size_t k = 0; k < n; ++k) states[k] = y[k];
    if (!first_slope_known_) evaluate(t, states, p, slopes);
    first_slope_known_ = false;
#pragma GCC unroll 8
    for (int i = 1; i < s; ++i) {
      T* state = states + std::size_t(i) * n;
      combine(y, h, tableau().a[i], i, slopes, state);
      evaluate(t + tableau().c[i] * h, state, p, slopes + std::size_t(i) * n);
    }
    if (tableau().fsal) {
      // The last stage state is y_{n+1} by construction (a_sj = b_j).
      const T* last = states + std::size_t(s - 1) * n;
      for (std::size_t k = 0; k < n; ++k) y_next[k] = last[k];
    } else {
      combine(y, h, tableau().b, s, slopes, y_next);
    }
    if (error) {
      for (std::size_t k = 0; k < n; ++k) error[k] = weighted_sum(h, tableau().e, s, slopes, k);
    }
  }

  // The same step for a compile-time tableau: the stage loop and the weighted sums are
  // unrolled by fold expressions and zero coefficients dropped at compile time, so the
  // arithmetic (and its rounding) is exactly that of the run-time path.
  static constexpr int kRowB = -1, kRowE = -2;  // weight rows besides a[i]
  static constexpr double weight(int row, int j) {
    if (row == kRowB) return StaticTableau->b[j];
    if (row == kRowE) return StaticTableau->e[j];
    return StaticTableau->a[row][j];
  }
  using AllStages = std::make_integer_sequence<int, kMaxStages>;

  template <int Row, int Count, int... J>
  BACKSWEEP_INLINE T static_sum(double h, const T* slopes, std::size_t k,
                                std::integer_sequence<int, J...>) const {
    constexpr int first = [] {
      for (int j = 0; j < Count; ++j)
        if (weight(Row, j) != 0.0) return j;
      return Count;
    }();
    if constexpr (first == Count) {
      return T(0);
    } else {
      const std::size_t n = state_size();
      T sum = (h * weight(Row, first)) * slopes[std::size_t(first) * n + k];
      (
          [&] {
            if constexpr (J > first && J < Count && weight(Row, J) != 0.0)
              sum += (h * weight(Row, J)) * slopes[std::size_t(J) * n + k];
          }(),
          ...);
      return sum;
    }
  }

  template <int... I>
  BACKSWEEP_INLINE void static_stages(double t, double h, const T* y, const T* p, T* states,
                                      T* slopes, std::integer_sequence<int, I...>) {
    const std::size_t n = state_size();
    (
        [&] {
          if constexpr (I >= 1 && I < StaticTableau->stages) {
            T* state = states + std::size_t(I) * n;
            for (std::size_t k = 0; k < n; ++k)
              state[k] = y[k] + static_sum<I, I>(h, slopes, k, AllStages{});
            evaluate(t + StaticTableau->c[I] * h, state, p, slopes + std::size_t(I) * n);
          }
        }(),
        ...);
  }

  BACKSWEEP_INLINE void step_static(double t, double h, const T* y, const T* p, T* y_next,
                                    T* error, T* states, T* slopes) {
    constexpr int s = StaticTableau->stages;
    const std::size_t n = state_size();
    for (std::size_t k = 0; k < n; ++k) states[k] = y[k];
    if (!first_slope_known_) evaluate(t, states, p, slopes);
    first_slope_known_ = false;
    static_stages(t, h, y, p, states, slopes, AllStages{});
    if constexpr (StaticTableau->fsal) {
      const T* last = states + std::size_t(s - 1) * n;
      for (std::size_t k = 0; k < n; ++k) y_next[k] = last[k];
    } else {
      for (std::size_t k = 0; k < n; ++k)
        y_next[k] = y[k] + static_sum<kRowB, s>(h, slopes, k, AllStages{});
    }
    if (error)
      for (std::size_t k = 0; k < n; ++k) error[k] = static_sum<kRowE, s>(h, slopes, k, AllStages{});
  }

  // h sum_{j<count} w_j k_j[k] over the nonzero weights, as sum_j (h w_j) k_j[k]: the
  // products h w_j do not depend on the stages, which keeps the critical path short. It
  // starts from the first term, not from 0, so no dead addition of zero is left.
  T weighted_sum(double h, const double* w, int count, const T* slopes, std::size_t k) const {
    const std::size_t n = state_size();
    int j = 0;
    while (j < count && w[j] == 0.0) ++j;
    if (j == count) return T(0);
    T sum = (h * w[j]) * slopes[std::size_t(j) * n + k];
#pragma GCC unroll 8
    for (++j; j < count; ++j)
      if (w[j] != 0.0) sum += (h * w[j]) * slopes[std::size_t(j) * n + k];
    return sum;
  }

  // out = y + h sum_{j<count} w_j k_j.
  void combine(const T* y, double h, const double* w, int count, const T* slopes,
               T* out) const {
    const std::size_t n = state_size();
#pragma GCC unroll 16
    for (std::size_t k = 0; k < n; ++k) out[k] = y[k] + weighted_sum(h, w, count, slopes, k);
  }

  ExplicitRK(const M& model, const ButcherTableau& tableau, int)
      : model_(model),
        tableau_(tableau),
        n_(backsweep::state_size(model)),
        stage_states_(static_cast<std::size_t>(tableau.stages) * n_),
        stage_slopes_(static_cast<std::size_t>(tableau.stages) * n_) {
    if (tableau.stages < 1 || tableau.stages > kMaxStages)
      throw std::invalid_argument("a Butcher tableau needs 1 to 7 stages");
  }

  // Small static models compute a step in local arrays, which the compiler keeps in
  // registers, and copy the stages out afterwards (off the critical path).
  static constexpr std::size_t kStatic = static_state_size<M>;
  static constexpr bool kLocalStages = kStatic > 0 && kStatic <= 16;

  const M& model_;
  ButcherTableau tableau_;
  std::size_t n_;
  std::vector<T> stage_states_, stage_slopes_;
  bool first_slope_known_ = false;
  std::size_t rhs_evaluations_ = 0;
};

}  // namespace backsweep
