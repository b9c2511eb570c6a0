#pragma once
// StageMatrices: the matrices I - h a_ii J that an implicit Runge–Kutta step solves with
// (implicit_rk.hpp), by dense LU, or by sparse LU (KLU) on the model's declared pattern
// where NewtonOptions::linear_solver asks for sparse, or is automatic and
// sparse_lu_pays():
//   - the Newton matrix, J at the step's start (or at a Newton iterate), on values;
//   - a converged stage's, on values (the polish that makes a tangent's lanes exact);
//   - the reverse's transposed stage matrix at the stage value: on T, so a Dual reverse
//     differentiates the solve too; sparse on double.
// A Dual right-hand side is solved with the value matrices lane by lane.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "models/derivatives.hpp"
#include "models/model.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/dense_lu.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/sparse_lu.hpp"

namespace backsweep {

template <Model M, class T>
class StageMatrices {
 public:
  // Throws std::invalid_argument for a sparse linear solver on a model with no pattern.
  StageMatrices(const M& model, LinearSolver linear_solver)
      : n_(backsweep::state_size(model)), value_derivatives_(model) {
    if (linear_solver == LinearSolver::sparse && !kSparse)
      throw std::invalid_argument("linear_solver sparse: the model declares no sparsity pattern");
    if constexpr (kSparse) {
      if (linear_solver != LinearSolver::dense) {
        SparsityPattern pattern = model.sparsity();
        sparse_ = linear_solver == LinearSolver::sparse || sparse_lu_pays(pattern.rows, pattern.state_nonzeros());
        if (sparse_) {
          newton_jacobian_.emplace(model, pattern);
          stage_jacobian_.emplace(model, std::move(pattern));
        }
      }
    }
  }

  bool sparse() const { return sparse_; }
  std::size_t jacobian_evaluations() const { return jacobian_evaluations_; }
  std::size_t factorizations() const { return factorizations_; }

  // J = df/dy at (t, y, p) on values for the Newton matrix, whose factors are then stale.
  void take_newton_jacobian(double t, const double* y, const double* p) {
    ++jacobian_evaluations_;
    if (sparse_) {
      if constexpr (kSparse) newton_jacobian_->evaluate(t, y, p, JacobianColumns::states);
    } else {
      jacobian_.resize(n_ * n_);  // dense only: n^2
      value_derivatives_.jacobian(t, y, p, jacobian_.data());
    }
    factored_for_ = 0.0;
  }
  // Factors I - h_diag J (nothing to do when it is factored for h_diag); false when singular.
  bool factor_newton(double h_diag) {
    if (factored_for_ == h_diag) return true;
    ++factorizations_;
    if constexpr (kSparse) {
      if (sparse_) {
        const SparsityPattern& pattern = newton_jacobian_->pattern();
        factored_for_ = newton_sparse_.factor(n_, pattern.row_start, pattern.column_index,
                                              newton_jacobian_->values(), -h_diag) ? h_diag : 0.0;
        return factored_for_ != 0.0;
      }
    }
    double* matrix = newton_lu_.matrix(n_);
    for (std::size_t r = 0; r < n_; ++r)
      for (std::size_t c = 0; c < n_; ++c)
        matrix[r * n_ + c] = (r == c ? 1.0 : 0.0) - h_diag * jacobian_[r * n_ + c];
    factored_for_ = newton_lu_.factor() ? h_diag : 0.0;
    return factored_for_ != 0.0;
  }
  bool newton_factored() const { return factored_for_ != 0.0; }
  // b := (I - h_diag J)^{-1} b with the Newton factors.
  void solve_newton(T* b) {
    if (sparse_) solve_lanes(b, [&](double* x) { newton_sparse_.solve(x); });
    else newton_lu_.solve(b);
  }

  // Factors I - h_diag J(t, y) at a converged stage y (values); false when singular.
  bool factor_polish(double t, const double* y, const double* p, double h_diag) {
    ++jacobian_evaluations_;
    ++factorizations_;
    if constexpr (kSparse) {
      if (sparse_) {
        stage_jacobian_->evaluate(t, y, p, JacobianColumns::states);
        const SparsityPattern& pattern = stage_jacobian_->pattern();
        return stage_sparse_.factor(n_, pattern.row_start, pattern.column_index, stage_jacobian_->values(),
                                    -h_diag);
      }
    }
    double* matrix = polish_lu_.matrix(n_);
    value_derivatives_.jacobian(t, y, p, matrix);
    for (std::size_t r = 0; r < n_; ++r)
      for (std::size_t c = 0; c < n_; ++c) matrix[r * n_ + c] = (r == c ? 1.0 : 0.0) - h_diag * matrix[r * n_ + c];
    return polish_lu_.factor();
  }
  void solve_polish(T* b) {
    if (sparse_) solve_lanes(b, [&](double* x) { stage_sparse_.solve(x); });
    else polish_lu_.solve(b);
  }

  // b := (I - h_diag J(t, y))^{-T} b at a stage value y, J by `derivatives`; false when
  // the matrix is singular.
  bool solve_stage_transposed(Derivatives<M, T>& derivatives, double t, const T* y, const T* p, double h_diag,
                              T* b) {
    if constexpr (kSparseOnT) {
      if (sparse_) {
        stage_jacobian_->evaluate(t, y, p, JacobianColumns::states);
        ++jacobian_evaluations_;
        ++factorizations_;
        const SparsityPattern& pattern = stage_jacobian_->pattern();
        if (!stage_sparse_.factor(n_, pattern.row_start, pattern.column_index, stage_jacobian_->values(), -h_diag))
          return false;
        stage_sparse_.solve_transposed(b);
        return true;
      }
    }
    T* matrix = stage_lu_.matrix(n_);
    ++jacobian_evaluations_;
    derivatives.jacobian(T(t), y, p, matrix);
    for (std::size_t r = 0; r < n_; ++r)
      for (std::size_t c = 0; c < n_; ++c)
        matrix[r * n_ + c] = (r == c ? T(1) : T(0)) - matrix[r * n_ + c] * h_diag;
    if (!stage_lu_.factor()) return false;
    stage_lu_.solve_transposed(b);
    return true;
  }

 private:
  static constexpr bool kSparse = HasSparsityPattern<M>;
  static constexpr bool kSparseOnT = kSparse && std::is_same_v<T, double>;

  // Solves with a double solver: b itself, or a Dual b value lane and tangent lanes in turn.
  template <class Solve>
  void solve_lanes(T* b, Solve&& solve) {
    if constexpr (std::is_same_v<T, double>) {
      solve(b);
    } else {
      lane_.resize(n_);
      for (std::size_t k = 0; k < n_; ++k) lane_[k] = value_of(b[k]);
      solve(lane_.data());
      for (std::size_t k = 0; k < n_; ++k) b[k].v = lane_[k];
      for (int l = 0; l < T::lanes; ++l) {
        for (std::size_t k = 0; k < n_; ++k) lane_[k] = b[k].d[l];
        solve(lane_.data());
        for (std::size_t k = 0; k < n_; ++k) b[k].d[l] = lane_[k];
      }
    }
  }

  std::size_t n_;
  Derivatives<M, double> value_derivatives_;
  std::vector<double> jacobian_, lane_;  // the dense Newton J; a lane being solved
  DenseLU<double> newton_lu_, polish_lu_;
  DenseLU<T> stage_lu_;
  using SparseJacobianSlot = std::conditional_t<kSparse, std::optional<SparseJacobian<M, double>>, char>;
  SparseJacobianSlot newton_jacobian_{}, stage_jacobian_{};  // the Newton J, and stage ones
  SparseLU newton_sparse_, stage_sparse_;
  double factored_for_ = 0.0;  // h a_ii of the Newton factors; 0: none
  bool sparse_ = false;
  std::size_t jacobian_evaluations_ = 0, factorizations_ = 0;
};

}  // namespace backsweep
