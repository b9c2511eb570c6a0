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
// local arrays, which the compiler keeps in registers. It also runs inside one GPU thread,
// on that thread's algebra (gpu/thread_algebra.hpp, gpu/member_sweep.hpp).
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <type_traits>

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

  BACKSWEEP_HOST_DEVICE_TEMPLATE ExplicitRK(const M& model, const ButcherTableau& tableau)
      : model_(model), tableau_(tableau), n_(backsweep::state_size(model)),
        np_(backsweep::param_size(model)), slopes_(std::size_t(tableau.stages) * n_),
        derivatives_(model) {
#if !defined(__CUDA_ARCH__)  // a kernel's stepper is built from a tableau checked on the host
    if (tableau.stages < 1 || tableau.stages > kMaxStages)
      throw std::invalid_argument("a Butcher tableau needs 1 to 7 stages");
#endif
    // Which stages an adjoint flows into (kbar_i != 0): those with b_i != 0 or read by a
    // stage that has one. It depends on the tableau alone, so it is found once here.
    const int s = tableau.stages;
    for (int i = s - 1; i >= 0; --i) {
      flows_[i] = tableau.b[i] != 0.0 ? 1.0 : 0.0;
      for (int j = i + 1; j < s; ++j) {
        column_[i][j] = flows_[j] * tableau.a[j][i];
        if (column_[i][j] != 0.0) {
          flows_[i] = 1.0;
          slope_needed_in_reverse_[i] = true;
        }
      }
      if (flows_[i] != 0.0 && recorded_stages_ == 0) recorded_stages_ = i + 1;
    }
  }
  // The stepper refers to the model: it must outlive the stepper.
  ExplicitRK(const M&&, const ButcherTableau&) = delete;

  StepperTraits traits() const {
    return {tableau_.name, tableau_.order, tableau_.embedded_order, false};
  }
  BACKSWEEP_HOST_DEVICE_TEMPLATE const M& model() const { return model_; }
  BACKSWEEP_HOST_DEVICE_TEMPLATE std::size_t state_size() const {
    if constexpr (kStatic > 0) return kStatic;
    else return n_;
  }
  BACKSWEEP_HOST_DEVICE_TEMPLATE std::size_t param_size() const {
    if constexpr (HasStaticSizes<M>) return M::n_param;
    else return np_;
  }

  // y_next = Phi(y); with `error`, also the embedded error estimate (the tableau must have
  // one). y_next may not alias y.
  BACKSWEEP_HOST_DEVICE_TEMPLATE
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
  BACKSWEEP_HOST_DEVICE_TEMPLATE void accept() {
    if (!tableau_.fsal) return;
    const std::size_t n = state_size();
    backsweep::copy<A>(n, slope(slopes_.data(), tableau_.stages - 1), slopes_.data());
    first_slope_known_ = true;
  }
  // The step was rejected: the retry starts from the same state, so k_1 still holds.
  BACKSWEEP_HOST_DEVICE_TEMPLATE void reject() { first_slope_known_ = true; }
  // The next step starts from a state this stepper has not seen.
  BACKSWEEP_HOST_DEVICE_TEMPLATE void restart() { first_slope_known_ = false; }

  // lambda: lambda_{n+1} in, lambda_n out; mu = (dPhi/dp)ᵀ lambda_{n+1} (overwritten).
  // The stage states are recomputed from y. Leaves the carried slope alone: forward
  // stepping after a reverse needs restart().
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void reverse(const StepInterval& step, const T* y, const T* p, T* lambda,
                                T* mu) {
    with_reverse_work([&](T* states, T* slopes, T* adjoints, T* kbar, T* pbar) {
      const T* stage_state[kMaxStages] = {y};
      recompute_stages(step, y, p, states, slopes, stage_state);
      reverse_stages(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
    });
  }

  // Step records: after record_to(where), every step writes the stage states its reverse
  // reads, Y_0 .. Y_{r-1} (record_size() values; a FSAL tableau's last stage takes no
  // adjoint and is left out), to `where` (a null pointer stops it), and reverse_recorded()
  // reverses a step from its record with no right-hand side evaluated: what store-all
  // keeps when it can. Bitwise the same as reverse() from the step's y_n.
  std::size_t record_size() const { return std::size_t(recorded_stages_) * state_size(); }
  void record_to(T* where) { record_ = where; }
  BACKSWEEP_INLINE void reverse_recorded(const StepInterval& step, const T* record, const T* p,
                                         T* lambda, T* mu) {
    with_reverse_work([&](T*, T*, T* adjoints, T* kbar, T* pbar) {
      const T* stage_state[kMaxStages];
      for (int i = 0; i < recorded_stages_; ++i)
        stage_state[i] = record + std::size_t(i) * state_size();
      reverse_stages(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
    });
  }

  // f(t, y; p), counted with the stage evaluations.
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void evaluate(double t, const T* y, const T* p, T* dydt) {
    model_(T(t), y, p, dydt);
    ++rhs_evaluations_;
  }
  std::size_t rhs_evaluations() const { return rhs_evaluations_; }
  std::size_t vjp_evaluations() const { return vjp_evaluations_; }
  VjpMethod vjp_method() const { return derivatives_.method(); }

 public:
  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  // kbar = h (b lambda + sum_{first <= j < count} weight_j Ybar_j), zero weights skipped.
  // The weights are copied in (a device kernel cannot read the stepper's).
  struct StageAdjointSum {
    const T* lambda;
    double b;
    const T* adjoints;
    std::size_t stride;
    double weight[kMaxStages];
    int first, count;
    double h;
    T* out;
    BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE StageAdjointSum(const T* lambda, double b, const T* adjoints,
                                                           std::size_t stride, const double* weights,
                                                           int first, int count, double h, T* out)
        : lambda(lambda), b(b), adjoints(adjoints), stride(stride), weight{}, first(first),
          count(count), h(h), out(out) {
      for (int j = first; j < count; ++j) weight[j] = weights[j];
    }
    BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void operator()(std::size_t k) const {
      T sum = detail::scaled(lambda[k], h * b);  // b = 0 adds nothing: 0 lambda is 0
      for (int j = first; j < count; ++j)
        if (weight[j] != 0.0)
          sum += detail::scaled(adjoints[std::size_t(j) * stride + k], h * weight[j]);
      out[k] = sum;
    }
  };

 private:
  BACKSWEEP_HOST_DEVICE_TEMPLATE BACKSWEEP_INLINE T* slope(T* slopes, int i) const {
    return slopes + std::size_t(i) * state_size();
  }
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE double stage_time(const StepInterval& step, int i) const {
    const double c = tableau_.c[i];
    return c == 1.0 ? step.t_next : step.t + c * step.h;
  }

  // out = base + h sum_{j < count} weight_j k_j over the stage slopes.
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void combine(const T* base, const double* weight, int count, double h,
                                const T* slopes, T* out) const {
    const std::size_t n = state_size();
    A::for_each(n, detail::WeightedSum<T>{base, slopes, n, weight, count, h, out});
  }

  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void forward(const StepInterval& step, const T* y, const T* p, T* y_next,
                                T* error, T* slopes, T* stage) {
    const int s = tableau_.stages;
    if (s > kMaxStages) __builtin_unreachable();  // checked by the constructor
    T* const record = record_;
    if (record) backsweep::copy<A>(state_size(), y, record);
    if (!first_slope_known_) evaluate(step.t, y, p, slopes);
    first_slope_known_ = false;
BACKSWEEP_UNROLL
    for (int i = 1; i < s; ++i) {
      // A FSAL tableau's last stage state is y_next itself (a_sj = b_j).
      T* state = record && i < recorded_stages_ ? slope(record, i)
                 : tableau_.fsal && i == s - 1  ? y_next
                                                : stage;
      combine(y, tableau_.a[i], i, step.h, slopes, state);
      evaluate(stage_time(step, i), state, p, slope(slopes, i));
    }
    if (!tableau_.fsal) combine(y, tableau_.b, s, step.h, slopes, y_next);
    if (error) combine(nullptr, tableau_.e, s, step.h, slopes, error);
  }

  // Work buffers of the reverse: local arrays for small static models, else members
  // sized on first use.
  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class F>
  BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void with_reverse_work(F&& f) {
    if constexpr (kLocal) {
      constexpr std::size_t kStages = kMaxStages * kStatic;
      T states[kStages], slopes[kStages], adjoints[kStages], kbar[kStatic];
      T pbar[HasStaticSizes<M> ? kMaxStages * M::n_param + 1 : 1];
      f(states, slopes, adjoints, kbar, pbar);
    } else {
      const std::size_t size = 3 * slopes_.size() + n_ + std::size_t(tableau_.stages) * np_;
      if (reverse_work_.size() != size) reverse_work_.resize(size);
      T* work = reverse_work_.data();
      const std::size_t rows = slopes_.size();
      f(work, work + rows, work + 2 * rows, work + 3 * rows, work + 3 * rows + n_);
    }
  }

  // The stage states the reverse needs (Y_0 = y is in place), from y alone.
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void recompute_stages(const StepInterval& step, const T* y, const T* p,
                                         T* states, T* slopes, const T** stage_state) {
    const int s = tableau_.stages;
    if (s > kMaxStages) __builtin_unreachable();
    if (slope_needed_in_reverse_[0]) evaluate(step.t, y, p, slopes);
BACKSWEEP_UNROLL
    for (int i = 1; i < s; ++i) {
      if (flows_[i] == 0.0) continue;  // no adjoint flows into it: its state is not needed
      T* state = slope(states, i);
      combine(y, tableau_.a[i], i, step.h, slopes, state);
      stage_state[i] = state;
      if (slope_needed_in_reverse_[i]) evaluate(stage_time(step, i), state, p, slope(slopes, i));
    }
  }

  // Small models reverse with the stage count as a compile-time constant: the stage
  // loops then unroll fully, which takes a fifth off their reverse (bench/adjoint_lorenz).
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void reverse_stages(const StepInterval& step, const T* const* stage_state,
                                       const T* p, T* lambda, T* mu, T* adjoints, T* kbar,
                                       T* pbar) {
    if constexpr (kLocal) {
      switch (tableau_.stages) {
        case 1: return reverse_stages<1>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
        case 2: return reverse_stages<2>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
        case 3: return reverse_stages<3>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
        case 4: return reverse_stages<4>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
        case 7: return reverse_stages<7>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
        default: break;
      }
    }
    reverse_stages<0>(step, stage_state, p, lambda, mu, adjoints, kbar, pbar);
  }

  // Not [[gnu::flatten]]: that saved about 3% of the reverse (bench/adjoint_lorenz) and
  // cost 2.7 times the compile time of every translation unit that takes a gradient.
  BACKSWEEP_EXEC_CHECK_DISABLE
  template <int kStages>  // 0: the tableau's, read at run time
  BACKSWEEP_HOST_DEVICE void reverse_stages(const StepInterval& step, const T* const* stage_state, const T* p,
                      T* lambda, T* mu, T* adjoints, T* kbar, T* pbar) {
    const int s = kStages > 0 ? kStages : tableau_.stages;
    if (s > kMaxStages) __builtin_unreachable();
    const std::size_t n = state_size();
    const double h = step.h;
    // Stage adjoints, last stage first; each stage's parameter part in its row of pbar.
    // The flags are copied so the compiler sees that they hold while the VJPs write: a
    // row is read only where it was written.
    const std::size_t np = param_size();
    double flows[kMaxStages];
    for (int i = 0; i < kMaxStages; ++i) flows[i] = flows_[i];
BACKSWEEP_UNROLL
    for (int i = s - 1; i >= 0; --i) {
      if (flows[i] == 0.0) continue;
      A::for_each(n, StageAdjointSum{lambda, tableau_.b[i], adjoints, n, column_[i], i + 1, s, h,
                                     kbar});
      derivatives_.vjp(T(stage_time(step, i)), stage_state[i], p, kbar, slope(adjoints, i),
                        pbar + std::size_t(i) * np);
      ++vjp_evaluations_;
    }
    // lambda += sum_i Ybar_i and mu = sum_i pbar_i, each in one pass (one store per
    // component, not one per stage).
    A::for_each(n, detail::WeightedSum<T>{lambda, adjoints, n, flows, s, 1.0, lambda});
    A::for_each(np, detail::WeightedSum<T>{nullptr, pbar, np, flows, s, 1.0, mu});
  }

  static constexpr std::size_t kStatic = static_state_size<M>;
  // Stages in local arrays only where the algebra's loops run in this thread (the host's,
  // or a GPU thread's own): a device's kernels cannot read them.
  static constexpr bool kLocal = runs_in_calling_thread<A> && kStatic > 0 && kStatic <= 16;

  const M& model_;
  ButcherTableau tableau_;
  std::size_t n_, np_;
  // column_[i][j] = a_ji where an adjoint flows into stage j (else 0): what kbar_i reads.
  double column_[kMaxStages][kMaxStages] = {};
  double flows_[kMaxStages] = {};  // 1 where an adjoint flows into the stage, else 0
  bool slope_needed_in_reverse_[kMaxStages] = {};
  int recorded_stages_ = 0;  // the last stage an adjoint flows into, plus one
  typename A::template vector<T> slopes_, stage_, reverse_work_;
  T* record_ = nullptr;
  Derivatives<M, T> derivatives_;  // allocates nothing until it is used
  bool first_slope_known_ = false;
  std::size_t rhs_evaluations_ = 0, vjp_evaluations_ = 0;
};

}  // namespace backsweep
