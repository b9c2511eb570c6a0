#pragma once
// ExplicitRK: one step of any explicit Runge-Kutta tableau, and its exact reverse (a
// ReversibleStepper, solvers/stepper.hpp).
//
// Forward: Y_i = y + h sum_{j<i} a_ij k_j, k_i = f(t + c_i h, Y_i), y_next = y + h sum b_i k_i,
// error = h sum e_i k_i. First-same-as-last tableaux carry their last slope into the next
// step after accept(). A stage at c_i = 1 is evaluated at the step's t_next, so that
// carried slope is bitwise the one the next step would compute.
//
// Reverse (Hager 2000; Sandu 2006), from y_n and lambda_{n+1}:
//   kbar_i = h b_i lambda + sum_{j>i} h a_ji Ybar_j,   Ybar_i = f_y(Y_i)ᵀ kbar_i,
//   mu = sum_i f_p(Y_i)ᵀ kbar_i,                       lambda_n = lambda_{n+1} + sum_i Ybar_i.
// No division by b_i (Heun's RK3 has b_2 = 0). The stage states are recomputed from y_n;
// slopes no later stage reads (the last one, always) are not, and stages with no adjoint
// flowing into them (a FSAL tableau's last) take no VJP.
//
// T is the scalar (double, or Dual for tangents and Hessian-vector products), A the
// algebra that runs every vector operation. Work vectors are sized once (the reverse's on
// its first call): stepping never allocates. Small models of compile-time size step in
// local arrays, which the compiler keeps in registers.
#include <cstddef>
#include <optional>
#include <stdexcept>

#include "models/derivatives.hpp"
#include "models/model.hpp"
#include "solvers/algebra.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/stepper.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

template <Model M, class T = double, Algebra A = CpuAlgebra>
class ExplicitRK {
 public:
  using scalar_type = T;
  using algebra_type = A;
  using model_type = M;

  ExplicitRK(const M& model, const ButcherTableau& tableau)
      : model_(model), tableau_(tableau), n_(backsweep::state_size(model)),
        np_(backsweep::param_size(model)), slopes_(std::size_t(tableau.stages) * n_) {
    if (tableau.stages < 1 || tableau.stages > kMaxStages)
      throw std::invalid_argument("a Butcher tableau needs 1 to 7 stages");
    const int s = tableau.stages;
    for (int i = 0; i < s; ++i) {
      for (int j = i + 1; j < s; ++j) {
        column_[i][j] = tableau.a[j][i];
        slope_needed_in_reverse_[i] = slope_needed_in_reverse_[i] || tableau.a[j][i] != 0.0;
      }
      state_needed_in_reverse_[i] = slope_needed_in_reverse_[i] || tableau.b[i] != 0.0;
    }
  }
  // The stepper refers to the model: it must outlive the stepper.
  ExplicitRK(const M&&, const ButcherTableau&) = delete;

  StepperTraits traits() const {
    return {tableau_.name, tableau_.order, tableau_.embedded_order, false};
  }
  const ButcherTableau& tableau() const { return tableau_; }
  const M& model() const { return model_; }
  std::size_t state_size() const {
    if constexpr (kStatic > 0) return kStatic;
    else return n_;
  }

  // y_next = Phi(y); with `error`, also the embedded error estimate (the tableau must have
  // one). y_next may not alias y.
  BACKSWEEP_INLINE void step(const StepInterval& step, const T* y, const T* p, T* y_next,
                             T* error = nullptr) {
    if constexpr (kLocal) {
      T slopes[kMaxStages * kStatic], stage[kStatic];
      const std::size_t s = std::size_t(tableau_.stages);
      if (first_slope_known_) backsweep::copy<A>(kStatic, slopes_.data(), slopes);
      forward(step, y, p, y_next, error, slopes, stage);
      // Kept for what comes next: k_1 for a retry after reject(), the last slope for
      // accept() of a FSAL tableau.
      backsweep::copy<A>(kStatic, slopes, slopes_.data());
      if (tableau_.fsal)
        backsweep::copy<A>(kStatic, slopes + (s - 1) * kStatic, slopes_.data() + (s - 1) * kStatic);
    } else {
      if (stage_.size() != n_) stage_.resize(n_);
      forward(step, y, p, y_next, error, slopes_.data(), stage_.data());
    }
  }

  // The step just taken was accepted: a FSAL tableau starts the next from its last slope.
  void accept() {
    if (!tableau_.fsal) return;
    const std::size_t n = state_size();
    backsweep::copy<A>(n, slope(slopes_.data(), tableau_.stages - 1), slopes_.data());
    first_slope_known_ = true;
  }
  // The step was rejected: the retry starts from the same state, so k_1 still holds.
  void reject() { first_slope_known_ = true; }
  // The next step starts from a state this stepper has not seen.
  void restart() { first_slope_known_ = false; }

  // lambda: lambda_{n+1} in, lambda_n out; mu = (dPhi/dp)ᵀ lambda_{n+1} (overwritten).
  // Leaves the carried slope alone: forward stepping after a reverse needs restart().
  BACKSWEEP_INLINE void reverse(const StepInterval& step, const T* y, const T* p, T* lambda,
                                T* mu) {
    if (!derivatives_) derivatives_.emplace(model_);
    if constexpr (kLocal) {
      constexpr std::size_t kStages = kMaxStages * kStatic;
      T states[kStages], slopes[kStages], adjoints[kStages], kbar[kStatic];
      T pbar[HasStaticSizes<M> ? M::n_param + 1 : 1];
      reverse_in(step, y, p, lambda, mu, states, slopes, adjoints, kbar, pbar);
    } else {
      if (reverse_work_.size() != 3 * slopes_.size() + n_ + np_)
        reverse_work_.resize(3 * slopes_.size() + n_ + np_);
      T* work = reverse_work_.data();
      const std::size_t rows = slopes_.size();
      reverse_in(step, y, p, lambda, mu, work, work + rows, work + 2 * rows, work + 3 * rows,
                 work + 3 * rows + n_);
    }
  }

  // f(t, y; p), counted with the stage evaluations.
  BACKSWEEP_INLINE void evaluate(double t, const T* y, const T* p, T* dydt) {
    model_(T(t), y, p, dydt);
    ++rhs_evaluations_;
  }
  std::size_t rhs_evaluations() const { return rhs_evaluations_; }
  std::size_t vjp_evaluations() const { return vjp_evaluations_; }
  static constexpr VjpMethod vjp_method() { return Derivatives<M, T>::method(); }

 private:
  BACKSWEEP_INLINE T* slope(T* slopes, int i) const {
    return slopes + std::size_t(i) * state_size();
  }
  BACKSWEEP_INLINE double stage_time(const StepInterval& step, int i) const {
    const double c = tableau_.c[i];
    return c == 1.0 ? step.t_next : step.t + c * step.h;
  }

  // out = base + h sum_{j < count} weight_j k_j over the stage slopes.
  BACKSWEEP_INLINE void combine(const T* base, const double* weight, int count, double h,
                                const T* slopes, T* out) const {
    const std::size_t n = state_size();
    A::for_each(n, detail::WeightedSum<T>{base, slopes, n, weight, count, h, out});
  }

  // kbar = hb lambda + sum_j weight_j Ybar_j (weights already scaled by h; 0 where no
  // adjoint flows).
  struct StageAdjointSum {
    const T* lambda;
    double hb;
    const T* adjoints;
    std::size_t stride;
    double weight[kMaxStages];
    int first, count;
    T* out;
    BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void operator()(std::size_t k) const {
      T sum = hb != 0.0 ? detail::scaled(lambda[k], hb) : T(0);
      for (int j = first; j < count; ++j)
        if (weight[j] != 0.0) sum += detail::scaled(adjoints[std::size_t(j) * stride + k], weight[j]);
      out[k] = sum;
    }
  };

  BACKSWEEP_INLINE void forward(const StepInterval& step, const T* y, const T* p, T* y_next,
                                T* error, T* slopes, T* stage) {
    const int s = tableau_.stages;
    if (s > kMaxStages) __builtin_unreachable();  // checked by the constructor
    if (!first_slope_known_) evaluate(step.t, y, p, slopes);
    first_slope_known_ = false;
#pragma GCC unroll 8
    for (int i = 1; i < s; ++i) {
      // A FSAL tableau's last stage state is y_next itself (a_sj = b_j).
      T* state = tableau_.fsal && i == s - 1 ? y_next : stage;
      combine(y, tableau_.a[i], i, step.h, slopes, state);
      evaluate(stage_time(step, i), state, p, slope(slopes, i));
    }
    if (!tableau_.fsal) combine(y, tableau_.b, s, step.h, slopes, y_next);
    if (error) combine(nullptr, tableau_.e, s, step.h, slopes, error);
  }

  BACKSWEEP_INLINE void reverse_in(const StepInterval& step, const T* y, const T* p, T* lambda,
                                   T* mu, T* states, T* slopes, T* adjoints, T* kbar, T* pbar) {
    const int s = tableau_.stages;
    if (s > kMaxStages) __builtin_unreachable();
    const std::size_t n = state_size();
    const double h = step.h;
    // Stage states, Y_0 = y_n.
    const T* stage_state[kMaxStages] = {y};
    if (slope_needed_in_reverse_[0]) evaluate(step.t, y, p, slopes);
#pragma GCC unroll 8
    for (int i = 1; i < s; ++i) {
      if (!state_needed_in_reverse_[i]) continue;  // no adjoint can flow into it
      T* state = slope(states, i);
      combine(y, tableau_.a[i], i, h, slopes, state);
      stage_state[i] = state;
      if (slope_needed_in_reverse_[i]) evaluate(stage_time(step, i), state, p, slope(slopes, i));
    }
    // Stage adjoints, last stage first.
    bool flows[kMaxStages] = {};
    bool mu_written = false;
#pragma GCC unroll 8
    for (int i = s - 1; i >= 0; --i) {
      StageAdjointSum sum{lambda, h * tableau_.b[i], adjoints, n, {}, i + 1, s, kbar};
      bool any = sum.hb != 0.0;
      for (int j = i + 1; j < s; ++j) {
        sum.weight[j] = flows[j] ? h * column_[i][j] : 0.0;
        any = any || sum.weight[j] != 0.0;
      }
      if (!any) continue;  // nothing flows into this stage
      A::for_each(n, sum);
      T* ybar = slope(adjoints, i);
      derivatives_->vjp(T(stage_time(step, i)), stage_state[i], p, kbar, ybar,
                        mu_written ? pbar : mu);
      if (mu_written) backsweep::add<A>(np_, static_cast<const T*>(pbar), mu);
      mu_written = flows[i] = true;
      ++vjp_evaluations_;
    }
    if (!mu_written) fill<A>(np_, T(0), mu);
    for (int i = 0; i < s; ++i)
      if (flows[i]) backsweep::add<A>(n, static_cast<const T*>(slope(adjoints, i)), lambda);
  }

  static constexpr std::size_t kStatic = static_state_size<M>;
  static constexpr bool kLocal = kStatic > 0 && kStatic <= 16;

  const M& model_;
  ButcherTableau tableau_;
  std::size_t n_, np_;
  double column_[kMaxStages][kMaxStages] = {};  // column_[i][j] = a_ji: stage i's readers
  bool slope_needed_in_reverse_[kMaxStages] = {}, state_needed_in_reverse_[kMaxStages] = {};
  typename A::template vector<T> slopes_, stage_, reverse_work_;
  std::optional<Derivatives<M, T>> derivatives_;
  bool first_slope_known_ = false;
  std::size_t rhs_evaluations_ = 0, vjp_evaluations_ = 0;
};

}  // namespace backsweep
