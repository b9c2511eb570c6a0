#pragma once
// ImplicitRK: one step of a diagonally implicit Runge-Kutta tableau (solvers/dirk_tableaux.hpp)
// and its exact reverse (a ReversibleStepper, solvers/stepper.hpp).
//
// Forward: for each stage, base_i = y + h sum_{j<i} a_ij k_j and
//   Y_i = base_i + h a_ii f(t_i, Y_i)
// is solved by Newton's method with the matrix I - h a_ii J, J = df/dy at the step's
// start (y_n), factored once per step and diagonal value and reused across its stages.
// The slope is then k_i = (Y_i - base_i) / (h a_ii), which satisfies the stage equation
// exactly (f(Y_i) would amplify the Newton residual by the stiffness). A stage with
// a_ii = 0 is explicit. Newton stops when the scaled increment is below the tolerance;
// when it diverges, or does not converge in kMaxNewton iterations, the step's result is
// NaN: an adaptive step is then rejected and retried smaller, a fixed step fails with the
// non-finite state reported. A step is a function of (t, h, y_n, p) alone (a Jacobian is
// kept from earlier steps only where it is constant, stage_matrices.hpp), so
// recomputations in the reverse are bitwise the forward.
//
// On Dual numbers (tangents) the converged stage takes one more Newton step with the
// Jacobian at the stage itself: the tangent lanes are then the implicit-function-theorem
// derivative of the stage equation, the same the reverse differentiates.
//
// Reverse (Sandu 2006), from y_n and lambda_{n+1}, last stage first:
//   (I - h a_ii J(Y_i))ᵀ kbar_i = h (b_i lambda + sum_{j>i} a_ji Ybar_j),
//   Ybar_i = J(Y_i)ᵀ kbar_i,  mu += f_p(Y_i)ᵀ kbar_i,  lambda_n = lambda + sum_i Ybar_i,
// with J at the stage value (not the step's Newton matrix, unless J is constant): the exact
// derivative of the converged stage equations.
//
// The matrices I - h a_ii J, dense or sparse, are StageMatrices (stage_matrices.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <stdexcept>
#include <vector>

#include "models/derivatives.hpp"
#include "models/model.hpp"
#include "solvers/algebra.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/stage_matrices.hpp"
#include "solvers/stepper.hpp"

namespace backsweep {

struct NewtonOptions {
  // Newton stops when the RMS of the increment, each component over |Y_k| + floor, is
  // below tolerance (or stops shrinking at round-off below 100 tolerance).
  double tolerance = 1e-10;
  double floor = 1e-12;
  LinearSolver linear_solver = LinearSolver::automatic;
  PreconditionerKind preconditioner = PreconditionerKind::automatic;  // gmres and cg
  // Relative residual of the Krylov solves the tangent and the adjoint rely on: the
  // discrete adjoint is exact to it (Newton's own are inexact: krylov_forcing()).
  double krylov_tolerance = 1e-10;
};

template <Model M, class T = double, Algebra A = CpuAlgebra>
class ImplicitRK {
 public:
  using scalar_type = T;
  using algebra_type = A;
  using model_type = M;
  static constexpr int kMaxNewton = 12;
  static constexpr double kRefineForcing = 1e-2, kConfirmForcing = 0.25, kFinestForcing = 1e-12;

  ImplicitRK(const M& model, const ButcherTableau& tableau, NewtonOptions newton = {})
      : model_(model), tableau_(tableau), newton_(newton), n_(backsweep::state_size(model)),
        np_(backsweep::param_size(model)), derivatives_(model),
        matrices_(model, newton.linear_solver, newton.preconditioner, newton.krylov_tolerance) {
    const int s = tableau.stages;
    if (s < 1 || s > kMaxStages) throw std::invalid_argument("a Butcher tableau needs 1 to 7 stages");
    stiffly_accurate_ = true;
    for (int j = 0; j < s; ++j) stiffly_accurate_ = stiffly_accurate_ && tableau.a[s - 1][j] == tableau.b[j];
    states_.resize(std::size_t(s) * n_);
    slopes_.resize(std::size_t(s) * n_);
    base_.resize(n_);
    work_.resize(n_);
  }
  ImplicitRK(const M&&, const ButcherTableau&, NewtonOptions = {}) = delete;

  StepperTraits traits() const {
    return {tableau_.name, tableau_.order, tableau_.embedded_order, true};
  }
  const M& model() const { return model_; }
  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_; }

  // y_next = Phi(y); with `error`, the embedded estimate, filtered by (I - h gamma J)^{-1}
  // as Hairer and Wanner do, so that stiff components do not inflate it.
  void step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error = nullptr) {
    non_finite_residual_ = false;
    matrices_.clear_failure();
    const bool solved = solve_stages(step, y, p);
    newton_failed_ = !solved && !non_finite_residual_;
    if (!solved) {
      for (std::size_t k = 0; k < n_; ++k) y_next[k] = T(std::numeric_limits<double>::quiet_NaN());
      if (error)
        for (std::size_t k = 0; k < n_; ++k) error[k] = T(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    const int s = tableau_.stages;
    if (record_) {  // y_n first (the sweep reads it there), unless stage 1 is y_n itself
      if (!explicit_first_stage()) std::copy(y, y + n_, record_);
      std::copy(states_.begin(), states_.end(), record_ + record_size() - states_.size());
    }
    if (stiffly_accurate_) {
      for (std::size_t k = 0; k < n_; ++k) y_next[k] = stage(states_.data(), s - 1)[k];
    } else {
      combine(y, tableau_.b, step.h, y_next);
    }
    if (error) {
      combine(nullptr, tableau_.e, step.h, error);
      // An unconverged Krylov solve still filters the estimate: only the step counts.
      if (matrices_.newton_factored() && !matrices_.solve_newton(error)) matrices_.clear_failure();
    }
  }

  void accept() { jacobian_current_ = false; }
  // Whether the last step's NaN result came from a stage whose Newton iteration failed
  // (diverged, stalled, or met a singular matrix) rather than from a non-finite value of
  // the model.
  bool newton_failed() const { return newton_failed_; }
  // Why the last step failed, past Newton's own iteration: the Krylov solve of which stage
  // did not converge (its iterations and residual), or empty.
  std::string linear_failure() const {
    const auto& failure = matrices_.krylov_failure();
    if (!failure) return {};
    std::ostringstream what;
    what.precision(3);
    what << matrices_.report().choice.name();
    if (!failure->refusal.empty()) return what.str() + ": " + failure->refusal;
    what << (failure->transposed ? " (adjoint)" : "") << " did not converge on stage " << failed_stage_ + 1 << " in "
         << failure->iterations << " iterations: relative residual " << failure->residual << " > " << failure->tolerance;
    return what.str();
  }
  // The linear solver chosen, and the Krylov solves' counts and largest residuals.
  const LinearSolveReport& linear_solves() const { return matrices_.report(); }
  // The retry starts from the same y_n: the Jacobian there still holds (one taken at a
  // stage iterate does not: the retry must be what a recomputation of the step does).
  void reject() { jacobian_current_ = jacobian_current_ && jacobian_at_start_; }
  void restart() { jacobian_current_ = false; }

  // lambda: lambda_{n+1} in, lambda_n out; mu = (dPhi/dp)ᵀ lambda_{n+1} (overwritten).
  // The stages are recomputed from y; forward stepping afterwards needs restart().
  void reverse(const StepInterval& step, const T* y, const T* p, T* lambda, T* mu) {
    jacobian_current_ = false;
    matrices_.clear_failure();
    if (!solve_stages(step, y, p)) {
      for (std::size_t k = 0; k < n_; ++k) lambda[k] = T(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    jacobian_current_ = false;
    reverse_stages(step, states_.data(), p, lambda, mu);
  }

  // Step records (a RecordingStepper, solvers/stepper.hpp): after record_to(where), every
  // step writes y_n and its stage states Y_1 .. Y_s there (y_n once where Y_1 = y_n, an
  // explicit first stage), and reverse_recorded() reverses a step from them without solving
  // its stages again (no Newton, no Newton matrix): what store-all keeps when it can.
  // Bitwise the same as reverse() from the step's y_n.
  std::size_t record_size() const { return std::size_t(tableau_.stages + (explicit_first_stage() ? 0 : 1)) * n_; }
  void record_to(T* where) { record_ = where; }
  void reverse_recorded(const StepInterval& step, const T* record, const T* p, T* lambda, T* mu) {
    matrices_.clear_failure();
    reverse_stages(step, record + (explicit_first_stage() ? 0 : n_), p, lambda, mu);
  }

  void evaluate(double t, const T* y, const T* p, T* dydt) {
    model_(T(t), y, p, dydt);
    ++rhs_evaluations_;
  }
  std::size_t rhs_evaluations() const { return rhs_evaluations_; }
  std::size_t vjp_evaluations() const { return vjp_evaluations_; }
  VjpMethod vjp_method() const { return derivatives_.method(); }
  std::size_t newton_iterations() const { return newton_iterations_; }
  std::size_t jacobian_evaluations() const { return matrices_.jacobian_evaluations(); }
  std::size_t factorizations() const { return matrices_.factorizations(); }

 private:
  bool explicit_first_stage() const { return tableau_.a[0][0] == 0.0; }

  // The reverse of a step from its stage states (Sandu's recursion, above).
  void reverse_stages(const StepInterval& step, const T* states, const T* p, T* lambda, T* mu) {
    const int s = tableau_.stages;
    const double h = step.h;
    adjoints_.assign(std::size_t(s) * n_, T(0));
    pbar_.resize(np_);
    kbar_.resize(n_);
    for (std::size_t j = 0; j < np_; ++j) mu[j] = T(0);
    for (int i = s - 1; i >= 0; --i) {
      for (std::size_t k = 0; k < n_; ++k) {
        T sum = lambda[k] * (h * tableau_.b[i]);
        for (int j = i + 1; j < s; ++j)
          if (tableau_.a[j][i] != 0.0) sum += stage(adjoints_.data(), j)[k] * (h * tableau_.a[j][i]);
        kbar_[k] = sum;
      }
      const T* state = stage(states, i);
      failed_stage_ = i;
      if (const double diagonal = tableau_.a[i][i];
          diagonal != 0.0 &&
          !matrices_.solve_stage_transposed(derivatives_, stage_time(step, i), state, p, h * diagonal, kbar_.data())) {
        for (std::size_t k = 0; k < n_; ++k) lambda[k] = T(std::numeric_limits<double>::quiet_NaN());
        return;
      }
      derivatives_.vjp(T(stage_time(step, i)), state, p, kbar_.data(), stage(adjoints_.data(), i),
                       pbar_.data());
      ++vjp_evaluations_;
      for (std::size_t j = 0; j < np_; ++j) mu[j] += pbar_[j];
    }
    for (int i = 0; i < s; ++i)
      for (std::size_t k = 0; k < n_; ++k) lambda[k] += stage(adjoints_.data(), i)[k];
  }

  T* stage(T* v, int i) const { return v + std::size_t(i) * n_; }
  const T* stage(const T* v, int i) const { return v + std::size_t(i) * n_; }
  double stage_time(const StepInterval& step, int i) const {
    const double c = tableau_.c[i];
    return c == 1.0 ? step.t_next : step.t + c * step.h;
  }

  // out = base + h sum_i weight_i k_i (base may be null).
  void combine(const T* base, const double* weight, double h, T* out) const {
    for (std::size_t k = 0; k < n_; ++k) {
      T sum = base ? base[k] : T(0);
      for (int i = 0; i < tableau_.stages; ++i)
        if (weight[i] != 0.0) sum += stage(slopes_.data(), i)[k] * (h * weight[i]);
      out[k] = sum;
    }
  }

  // The stage states and slopes of the step from y; false when Newton fails.
  bool solve_stages(const StepInterval& step, const T* y, const T* p) {
    const int s = tableau_.stages;
    const double h = step.h;
    for (int i = 0; i < s; ++i) {
      const double diagonal = tableau_.a[i][i];
      failed_stage_ = i;
      T* state = stage(states_.data(), i);
      T* slope = stage(slopes_.data(), i);
      for (std::size_t k = 0; k < n_; ++k) {
        T sum = y[k];
        for (int j = 0; j < i; ++j)
          if (tableau_.a[i][j] != 0.0) sum += stage(slopes_.data(), j)[k] * (h * tableau_.a[i][j]);
        base_[k] = sum;
        // Predictor: the previous stage's slope over this stage's implicit part.
        state[k] = i > 0 && diagonal != 0.0 ? sum + stage(slopes_.data(), i - 1)[k] * (h * diagonal) : sum;
      }
      if (diagonal == 0.0) {
        evaluate(stage_time(step, i), state, p, slope);
        continue;
      }
      if (!jacobian_current_) {
        values_.resize(2 * n_ + np_);
        for (std::size_t k = 0; k < n_; ++k) values_[k] = value_of(y[k]);
        for (std::size_t j = 0; j < np_; ++j) values_[2 * n_ + j] = value_of(p[j]);
        matrices_.take_newton_jacobian(step.t, values_.data(), values_.data() + 2 * n_);
        jacobian_current_ = jacobian_at_start_ = true;
      }
      if (!matrices_.factor_newton(h * diagonal)) return false;
      if (!newton(step, i, p, state, slope, false)) {
        // The Jacobian at y_n was not good enough (a fast transient): once more from base,
        // with the Jacobian at every iterate. Still a function of the step's inputs alone.
        for (std::size_t k = 0; k < n_; ++k) state[k] = base_[k];
        jacobian_at_start_ = false;
        if (!newton(step, i, p, state, slope, true)) return false;
      }
      if constexpr (!std::is_same_v<T, double>) {
        if (!polish_tangent(step, i, p, state)) return false;
      }
      for (std::size_t k = 0; k < n_; ++k) slope[k] = (state[k] - base_[k]) / (h * diagonal);
    }
    return true;
  }

  // Newton on Y = base + h a_ii f(t_i, Y), from the Y given; `slope` is scratch. With
  // `full`, the Jacobian is taken at every iterate, else the one factored is kept.
  bool newton(const StepInterval& step, int i, const T* p, T* state, T* slope, bool full) {
    const double h_diag = step.h * tableau_.a[i][i];
    double previous = std::numeric_limits<double>::infinity();
    non_finite_residual_ = false;  // of this attempt: a retry may fail otherwise
    matrices_.clear_failure();
    for (int iteration = 0; iteration < (full ? 2 * kMaxNewton : kMaxNewton); ++iteration) {
      if (full) {
        for (std::size_t k = 0; k < n_; ++k) values_[k] = value_of(state[k]);
        matrices_.take_newton_jacobian(stage_time(step, i), values_.data(), values_.data() + 2 * n_);
        if (!matrices_.factor_newton(h_diag)) return false;
      }
      evaluate(stage_time(step, i), state, p, slope);
      ++newton_iterations_;
      for (std::size_t k = 0; k < n_; ++k) work_[k] = base_[k] + slope[k] * h_diag - state[k];
      if (!matrices_.solve_newton(work_.data(), krylov_forcing(iteration, full))) {
        non_finite_residual_ = !matrices_.krylov_failure();  // else a NaN in the residual
        return false;
      }
      double squares = 0.0;
      for (std::size_t k = 0; k < n_; ++k) {
        state[k] += work_[k];
        const double scaled = value_of(work_[k]) / (std::abs(value_of(state[k])) + newton_.floor);
        squares += scaled * scaled;
      }
      const double norm = std::sqrt(squares / double(n_));
      if (!std::isfinite(norm)) {
        non_finite_residual_ = true;
        return false;
      }
      if (norm <= newton_.tolerance) return true;
      if (norm >= previous && norm <= 1e-8)  // stalled: round-off, or the inexact solves' floor
        return norm <= std::max(100.0 * newton_.tolerance, 1e-13);
      if (iteration > 1 && norm > 2.0 * previous) return false;  // diverging
      if (!full && iteration > 1 && norm > 0.9 * previous) return false;  // too slow
      previous = norm;
    }
    return false;
  }

  // How far a Krylov solve of Newton's takes the residual down (inexact Newton). Where J is
  // constant the first solve is the stage but for its residual, so it goes to the Newton
  // tolerance (within kFinestForcing and kRefineForcing); else to kNewtonKrylovTolerance,
  // Newton's own rate being the limit.
  // Later solves start from what Newton left and go to kRefineForcing: what they leave is
  // that fraction of a residual already small, and the next iteration corrects it. For a
  // constant J the stage is then solved but for the first solve's residual, and the next
  // increment serves to measure it. With multigrid, whose cycle takes error and residual
  // down together, a solve to kConfirmForcing (a quarter: one Krylov iteration, not three)
  // gives its norm to about that; a weaker preconditioner can leave smooth error behind
  // such a residual, so it keeps kRefineForcing. The retry with J at every iterate (`full`)
  // keeps the first solve's forcing.
  double krylov_forcing(int iteration, bool full) const {
    constexpr double most = StageMatrices<M, T>::kNewtonKrylovTolerance;
    const bool constant = matrices_.jacobian_constant();
    const bool multigrid = matrices_.report().choice.preconditioner == PreconditionerKind::multigrid;
    if (iteration > 0 && !full) return constant && multigrid ? kConfirmForcing : kRefineForcing;
    return constant ? std::clamp(newton_.tolerance, kFinestForcing, kRefineForcing) : most;
  }

  // One Newton step with the Jacobian at the converged stage: exact tangent lanes.
  bool polish_tangent(const StepInterval& step, int i, const T* p, T* state) {
    const double h_diag = step.h * tableau_.a[i][i];
    values_.resize(2 * n_ + np_);
    for (std::size_t k = 0; k < n_; ++k) values_[n_ + k] = value_of(state[k]);
    for (std::size_t j = 0; j < np_; ++j) values_[2 * n_ + j] = value_of(p[j]);
    if (!matrices_.factor_polish(stage_time(step, i), values_.data() + n_, values_.data() + 2 * n_, h_diag))
      return false;
    T* slope = stage(slopes_.data(), i);
    evaluate(stage_time(step, i), state, p, slope);
    for (std::size_t k = 0; k < n_; ++k) work_[k] = base_[k] + slope[k] * h_diag - state[k];
    if (!matrices_.solve_polish(work_.data())) return false;
    for (std::size_t k = 0; k < n_; ++k) state[k] += work_[k];
    return true;
  }

  const M& model_;
  ButcherTableau tableau_;
  NewtonOptions newton_;
  std::size_t n_, np_;
  bool stiffly_accurate_ = false;
  std::vector<T> states_, slopes_, base_, work_, adjoints_, kbar_, pbar_;
  // Plain values for the Jacobians: [0, n) the state the Newton Jacobian is taken at,
  // [n, 2n) a converged stage (the tangent's polish), [2n, 2n + n_p) the parameters.
  std::vector<double> values_;
  T* record_ = nullptr;  // where steps write their stage states (null: nowhere)
  bool newton_failed_ = false;
  int failed_stage_ = 0;  // the stage being solved (forward) or reversed
  bool non_finite_residual_ = false;  // the last Newton attempt met a NaN or Inf
  bool jacobian_current_ = false, jacobian_at_start_ = false;
  Derivatives<M, T> derivatives_;
  StageMatrices<M, T> matrices_;
  std::size_t rhs_evaluations_ = 0, vjp_evaluations_ = 0, newton_iterations_ = 0;
};

}  // namespace backsweep
