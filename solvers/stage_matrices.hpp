#pragma once
// StageMatrices: the matrices I - h a_ii J that an implicit Runge–Kutta step solves with
// (implicit_rk.hpp), by dense LU, by sparse LU (KLU) on the model's declared pattern, or by
// a Krylov method with a preconditioner on that pattern's assembled J (solvers/krylov/),
// as choose_linear_solver() decides from NewtonOptions' request:
//   - the Newton matrix, J at the step's start (or at a Newton iterate), on values;
//   - a converged stage's, on values (the polish that makes a tangent's lanes exact);
//   - the reverse's transposed stage matrix at the stage value: on T, so a Dual reverse
//     differentiates the solve too; sparse and Krylov on double.
// A Dual right-hand side is solved with the value matrices lane by lane.
//
// A model whose df/dy depends on neither t nor y (jacobian_constant(), a linear PDE's) has
// its Jacobian taken once per parameter vector and its factors (a multigrid hierarchy,
// KLU's LU) built once per h a_ii; sparse stage matrices are then the Newton matrix, so the
// polish and the reverse solve with its factors. A solve still depends only on (A, b), so
// recomputed steps stay bitwise the forward's.
//
// Krylov solves stop at a relative residual: Newton's at the one Newton asks for (Newton
// corrects what they leave), the tangent's polish and the adjoint's transposed solves at
// the requested krylov tolerance, to which the discrete adjoint is then exact. Each solve
// starts from zero, so a recomputed step is bitwise the forward's. The report counts the
// solves, their iterations and the largest residual of each direction.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "models/derivatives.hpp"
#include "models/grid_layout.hpp"
#include "models/model.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/dense_lu.hpp"
#include "solvers/krylov/stage_solver.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/sparse_lu.hpp"

namespace backsweep {

// A failed Krylov solve: what the step's failure message tells.
struct KrylovFailure {
  std::size_t iterations = 0;
  double residual = 0.0, tolerance = 0.0;
  bool transposed = false;
  std::string refusal = {};  // set when the solver refused the matrix instead
};

// A model that can tell whether df/dy depends on neither t nor y.
template <class M>
concept TellsJacobianConstant = requires(const M& model) {
  { model.jacobian_constant() } -> std::convertible_to<bool>;
};

template <Model M, class T>
class StageMatrices {
 public:
  static constexpr double kNewtonKrylovTolerance = 1e-6;

  // Throws std::invalid_argument for a request the model cannot meet (choose_linear_solver).
  StageMatrices(const M& model, LinearSolver linear_solver, PreconditionerKind preconditioner = PreconditionerKind::automatic,
                double krylov_tolerance = 1e-10)
      : n_(backsweep::state_size(model)), np_(backsweep::param_size(model)), value_derivatives_(model) {
    if constexpr (TellsJacobianConstant<M>) constant_jacobian_ = model.jacobian_constant();
    LinearSystemShape shape{n_, 0, 0, 0};
    const Grid* grid = grid_of(model);
    if (grid) {
      shape.grid_axes = grid->axes();
      shape.grid_points = grid->points();
    }
    if constexpr (kSparse) {
      if (linear_solver != LinearSolver::dense) {
        SparsityPattern pattern = model.sparsity();
        shape.state_nonzeros = pattern.state_nonzeros();
        report_.choice = choose_linear_solver(linear_solver, preconditioner, shape);
        if (report_.choice.solver != LinearSolver::dense) {
          newton_jacobian_.emplace(model, pattern);
          if (!constant_jacobian_) stage_jacobian_.emplace(model, std::move(pattern));
        }
      }
    } else {
      report_.choice = choose_linear_solver(linear_solver, preconditioner, shape);
    }
    if (linear_solver == LinearSolver::dense) report_.choice = {LinearSolver::dense, PreconditionerKind::none, "asked for"};
    report_.shape = shape;
    const LinearSolver chosen = report_.choice.solver;
    sparse_ = chosen != LinearSolver::dense;
    if (chosen == LinearSolver::gmres || chosen == LinearSolver::cg) {
      report_.tolerance = krylov_tolerance;
      std::optional<krylov::GridUnknowns> unknowns;
      if (grid) {
        const std::size_t fields = n_ / grid->points();
        unknowns = krylov::GridUnknowns{grid->shape(), grid->boundary(), fields, n_ - fields * grid->points()};
      }
      const krylov::KrylovOptions options{chosen, report_.choice.preconditioner};
      newton_krylov_.emplace(options, unknowns);
      if (!constant_jacobian_) stage_krylov_.emplace(options, unknowns);
    }
  }

  bool sparse() const { return sparse_; }
  bool jacobian_constant() const { return constant_jacobian_; }
  std::size_t jacobian_evaluations() const { return jacobian_evaluations_; }
  std::size_t factorizations() const { return factorizations_; }
  const LinearSolveReport& report() const { return report_; }
  // The last Krylov solve that failed (or matrix refused), if the last step met one.
  const std::optional<KrylovFailure>& krylov_failure() const { return failure_; }
  void clear_failure() { failure_.reset(); }

  // J = df/dy at (t, y, p) on values for the Newton matrix, whose factors are then stale.
  void take_newton_jacobian(double t, const double* y, const double* p) {
    if (newton_jacobian_holds(p)) return;  // and so do its factors
    ++jacobian_evaluations_;
    factored_for_ = 0.0;
    newton_parameters_.reset();  // until J is whole
    if (sparse_) {
      if constexpr (kSparse) newton_jacobian_->evaluate(t, y, p, JacobianColumns::states);
    } else {
      jacobian_.resize(n_ * n_);  // dense only: n^2
      value_derivatives_.jacobian(t, y, p, jacobian_.data());
    }
    if (constant_jacobian_) newton_parameters_.emplace(p, p + np_);
  }
  // Factors I - h_diag J (nothing to do when it is factored for h_diag); false when singular.
  bool factor_newton(double h_diag) {
    if (factored_for_ == h_diag) return true;
    ++factorizations_;
    const Timed timed{report_.seconds};
    if constexpr (kSparse) {
      if (sparse_) {
        const SparsityPattern& pattern = newton_jacobian_->pattern();
        const bool ok = newton_krylov_ ? refused_unless(newton_krylov_->factor(n_, pattern.row_start, pattern.column_index,
                                                                              newton_jacobian_->values(), -h_diag),
                                                        *newton_krylov_)
                                       : newton_sparse_.factor(n_, pattern.row_start, pattern.column_index,
                                                               newton_jacobian_->values(), -h_diag);
        factored_for_ = ok ? h_diag : 0.0;
        return ok;
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
  // b := (I - h_diag J)^{-1} b with the Newton factors, a Krylov solve to the relative
  // residual `tolerance`; false when a Krylov solve fails.
  bool solve_newton(T* b, double tolerance = kNewtonKrylovTolerance) {
    const Timed timed{report_.seconds};
    if (newton_krylov_)
      return solve_lanes(b, [&](double* x) { return counted(newton_krylov_->solve(x, tolerance), tolerance, false); });
    if (sparse_) return solve_lanes(b, [&](double* x) { return newton_sparse_.solve(x), true; });
    newton_lu_.solve(b);
    return true;
  }

  // Factors I - h_diag J(t, y) at a converged stage y (values); false when singular.
  bool factor_polish(double t, const double* y, const double* p, double h_diag) {
    if constexpr (kSparse)
      if (sparse_) return factor_stage(t, y, p, h_diag);
    ++jacobian_evaluations_;
    ++factorizations_;
    double* matrix = polish_lu_.matrix(n_);
    value_derivatives_.jacobian(t, y, p, matrix);
    const Timed timed{report_.seconds};
    for (std::size_t r = 0; r < n_; ++r)
      for (std::size_t c = 0; c < n_; ++c) matrix[r * n_ + c] = (r == c ? 1.0 : 0.0) - h_diag * matrix[r * n_ + c];
    return polish_lu_.factor();
  }
  bool solve_polish(T* b) {
    const Timed timed{report_.seconds};
    if (newton_krylov_)
      return solve_lanes(b, [&](double* x) {
        return counted(stage_krylov().solve(x, report_.tolerance), report_.tolerance, false);
      });
    if (sparse_) return solve_lanes(b, [&](double* x) { return stage_sparse().solve(x), true; });
    polish_lu_.solve(b);
    return true;
  }

  // b := (I - h_diag J(t, y))^{-T} b at a stage value y, J by `derivatives`; false when
  // the matrix is singular or a Krylov solve fails.
  bool solve_stage_transposed(Derivatives<M, T>& derivatives, double t, const T* y, const T* p, double h_diag,
                              T* b) {
    if constexpr (kSparseOnT) {
      if (sparse_) {
        if (!factor_stage(t, y, p, h_diag)) return false;
        const Timed timed{report_.seconds};
        if (newton_krylov_)
          return counted(stage_krylov().solve_transposed(b, report_.tolerance), report_.tolerance, true);
        stage_sparse().solve_transposed(b);
        return true;
      }
    }
    T* matrix = stage_lu_.matrix(n_);
    ++jacobian_evaluations_;
    derivatives.jacobian(T(t), y, p, matrix);
    const Timed timed{report_.seconds};
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

  // Adds the seconds of its scope to `total`.
  struct Timed {
    double& total;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Timed() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  };

  // Whether the Newton J holds at p: a constant one, taken at the same parameter values
  // (bitwise: -0.0 is not 0.0 to a derivative's sign).
  bool newton_jacobian_holds(const double* p) const {
    return newton_parameters_ &&
           std::equal(newton_parameters_->begin(), newton_parameters_->end(), p, [](double a, double b) {
             return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
           });
  }

  // The stage matrices' solvers: the Newton matrix's where J is constant.
  krylov::KrylovStageSolver& stage_krylov() { return constant_jacobian_ ? *newton_krylov_ : *stage_krylov_; }
  SparseLU& stage_sparse() { return constant_jacobian_ ? newton_sparse_ : stage_sparse_; }

  // The sparse stage matrix I - h_diag J(t, y) at a stage value, factored (a constant J's
  // is the Newton matrix: factored once); false when singular or refused.
  bool factor_stage(double t, const double* y, const double* p, double h_diag) {
    if constexpr (kSparse) {
      if (constant_jacobian_) {
        take_newton_jacobian(t, y, p);
        return factor_newton(h_diag);
      }
      stage_jacobian_->evaluate(t, y, p, JacobianColumns::states);
      ++jacobian_evaluations_;
      ++factorizations_;
      const SparsityPattern& pattern = stage_jacobian_->pattern();
      const Timed timed{report_.seconds};
      if (stage_krylov_)
        return refused_unless(
            stage_krylov_->factor(n_, pattern.row_start, pattern.column_index, stage_jacobian_->values(), -h_diag),
            *stage_krylov_);
      return stage_sparse_.factor(n_, pattern.row_start, pattern.column_index, stage_jacobian_->values(), -h_diag);
    }
    return false;
  }

  // Counts a Krylov solve in its direction's report; false (noted) when it failed.
  // A non-finite right-hand side is no solve's failure: the caller finds the NaN itself.
  bool counted(const krylov::KrylovResult& result, double tolerance, bool transposed) {
    if (!std::isfinite(result.residual)) return false;
    (transposed ? report_.adjoint : report_.forward).add(result.iterations, result.residual);
    if (!result.converged) failure_ = KrylovFailure{result.iterations, result.residual, tolerance, transposed, {}};
    return result.converged;
  }
  bool refused_unless(bool factored, const krylov::KrylovStageSolver& solver) {
    if (!factored && !solver.refusal().empty()) failure_ = KrylovFailure{0, 0.0, 0.0, false, solver.refusal()};
    return factored;
  }

  // Solves with a double solver: b itself, or a Dual b value lane and tangent lanes in
  // turn; false when a solve fails.
  template <class Solve>
  bool solve_lanes(T* b, Solve&& solve) {
    if constexpr (std::is_same_v<T, double>) {
      return solve(b);
    } else {
      lane_.resize(n_);
      for (std::size_t k = 0; k < n_; ++k) lane_[k] = value_of(b[k]);
      bool ok = solve(lane_.data());
      for (std::size_t k = 0; k < n_; ++k) b[k].v = lane_[k];
      for (int l = 0; l < T::lanes; ++l) {
        for (std::size_t k = 0; k < n_; ++k) lane_[k] = b[k].d[l];
        ok = solve(lane_.data()) && ok;
        for (std::size_t k = 0; k < n_; ++k) b[k].d[l] = lane_[k];
      }
      return ok;
    }
  }

  std::size_t n_, np_;
  bool constant_jacobian_ = false;  // df/dy depends on the parameters alone
  std::optional<std::vector<double>> newton_parameters_;  // where a constant J was taken
  Derivatives<M, double> value_derivatives_;
  std::vector<double> jacobian_, lane_;  // the dense Newton J; a lane being solved
  DenseLU<double> newton_lu_, polish_lu_;
  DenseLU<T> stage_lu_;
  using SparseJacobianSlot = std::conditional_t<kSparse, std::optional<SparseJacobian<M, double>>, char>;
  SparseJacobianSlot newton_jacobian_{}, stage_jacobian_{};  // the Newton J, and stage ones (J not constant)
  SparseLU newton_sparse_, stage_sparse_;
  std::optional<krylov::KrylovStageSolver> newton_krylov_, stage_krylov_;
  LinearSolveReport report_;
  std::optional<KrylovFailure> failure_;
  double factored_for_ = 0.0;  // h a_ii of the Newton matrix's factors; 0: none
  bool sparse_ = false;
  std::size_t jacobian_evaluations_ = 0, factorizations_ = 0;
};

}  // namespace backsweep
