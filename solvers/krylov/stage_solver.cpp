#include "solvers/krylov/stage_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace backsweep::krylov {
namespace {

// Whether a equals its transpose to round-off in each entry, pattern included.
bool is_symmetric(const CsrMatrix& a) {
  if (a.rows != a.columns) return false;
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) {
      const std::uint32_t j = a.column[k];
      const auto row_j = a.column.begin() + std::ptrdiff_t(a.row_start[j]);
      const auto end_j = a.column.begin() + std::ptrdiff_t(a.row_start[j + 1]);
      const auto at = std::lower_bound(row_j, end_j, std::uint32_t(i));
      if (at == end_j || *at != i) return false;
      const double mirror = a.value[std::size_t(at - a.column.begin())];
      if (std::abs(a.value[k] - mirror) > 1e-13 * (std::abs(a.value[k]) + std::abs(mirror))) return false;
    }
  return true;
}

}  // namespace

KrylovStageSolver::KrylovStageSolver(KrylovOptions options, std::optional<GridUnknowns> grid)
    : options_(options), grid_(std::move(grid)) {
  if (options_.preconditioner == PreconditionerKind::multigrid && !grid_)
    throw std::invalid_argument("the multigrid preconditioner needs a model on a grid");
  preconditioner_ = make_preconditioner();
}

std::unique_ptr<Preconditioner> KrylovStageSolver::make_preconditioner() const {
  switch (options_.preconditioner) {
    case PreconditionerKind::automatic:
    case PreconditionerKind::none: return nullptr;
    case PreconditionerKind::jacobi: return std::make_unique<Jacobi>();
    case PreconditionerKind::ilu: return std::make_unique<Ilu0>();
    case PreconditionerKind::multigrid: return std::make_unique<Multigrid>(*grid_);
  }
  return nullptr;
}

bool KrylovStageSolver::factor(std::size_t n, std::span<const std::size_t> row_start,
                               std::span<const std::uint32_t> column_index, std::span<const double> values,
                               double scale) {
  refusal_.clear();
  a_ = identity_plus(n, row_start, column_index, values, scale);
  if (grid_) a_.store_diagonals(grid_->size() - grid_->extra);  // its grid rows
  transposed_ready_ = false;
  if (options_.method == LinearSolver::cg) {
    symmetric_ = is_symmetric(a_);
    if (!symmetric_) {
      refusal_ = "cg needs a symmetric stage matrix I - h a_ii J, and this model's is not (take gmres)";
      return false;
    }
  }
  return !preconditioner_ || preconditioner_->set_matrix(a_);  // a zero or non-finite pivot: a step to retry
}

KrylovResult KrylovStageSolver::run(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance) {
  if (options_.method == LinearSolver::cg) return conjugate_gradient(a, m, b, tolerance, options_.max_iterations, work_);
  return gmres(a, m, b, tolerance, options_.restart, options_.max_iterations, work_);
}

KrylovResult KrylovStageSolver::solve(double* b, double tolerance) {
  return run(a_, preconditioner_.get(), b, tolerance);
}

// Aᵀ and its preconditioner, once per factor(); false when the preconditioner fails. A
// symmetric A (a diffusion's, to round-off) keeps A's preconditioner for Aᵀ: it is as good
// there, and multigrid's set-up is a large part of a solve's cost.
bool KrylovStageSolver::prepare_transposed() {
  if (transposed_ready_) return true;
  a_transposed_ = a_.transposed();
  if (grid_) a_transposed_.store_diagonals(grid_->size() - grid_->extra);
  transposed_preconditioner_in_use_ = preconditioner_.get();
  if (preconditioner_ && !is_symmetric(a_)) {
    if (!transposed_preconditioner_) transposed_preconditioner_ = make_preconditioner();
    if (!transposed_preconditioner_->set_matrix(a_transposed_)) return false;
    transposed_preconditioner_in_use_ = transposed_preconditioner_.get();
  }
  transposed_ready_ = true;
  return true;
}

KrylovResult KrylovStageSolver::solve_transposed(double* b, double tolerance) {
  if (symmetric_) return solve(b, tolerance);
  if (!prepare_transposed()) return {false, 0, INFINITY};
  return run(a_transposed_, transposed_preconditioner_in_use_, b, tolerance);
}

void KrylovStageSolver::precondition(const double* r, double* z, bool transposed) {
  Preconditioner* m = preconditioner_.get();
  if (transposed && !symmetric_) m = prepare_transposed() ? transposed_preconditioner_in_use_ : nullptr;
  if (m) m->apply(r, z);
  else std::copy(r, r + a_.rows, z);
}

}  // namespace backsweep::krylov
