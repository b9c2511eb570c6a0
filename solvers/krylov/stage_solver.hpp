#pragma once
// KrylovStageSolver: the implicit steppers' sparse stage matrices A = I + scale J solved by
// a Krylov method with a preconditioner, where a direct factorisation fills in too much
// (3-D grids). The same interface as SparseLU (factor, solve, solve_transposed), so
// StageMatrices holds either; a solve also says how it went (KrylovResult). The transposed
// solves of the adjoint run the same method on Aᵀ with the preconditioner built on Aᵀ
// (Jacobi's is the same; ILU's and multigrid's are built again, on the first transposed
// solve after a factor). CG needs a symmetric A: factor() refuses another.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "solvers/krylov/csr_matrix.hpp"
#include "solvers/krylov/krylov_methods.hpp"
#include "solvers/krylov/multigrid.hpp"
#include "solvers/krylov/preconditioners.hpp"
#include "solvers/linear_solver.hpp"

namespace backsweep::krylov {

struct KrylovOptions {
  LinearSolver method = LinearSolver::gmres;  // gmres or cg
  PreconditionerKind preconditioner = PreconditionerKind::multigrid;
  std::size_t restart = 30;
  std::size_t max_iterations = 500;  // per solve
};

class KrylovStageSolver {
 public:
  // `grid`: the unknowns' layout, which multigrid needs (std::invalid_argument without).
  KrylovStageSolver(KrylovOptions options, std::optional<GridUnknowns> grid);

  // A = I + scale J from J's CSR rows (columns >= n skipped). False when the preconditioner
  // cannot be built (a zero pivot or diagonal), or, for CG, when A is not symmetric (then
  // refusal() says so: no smaller step helps).
  bool factor(std::size_t n, std::span<const std::size_t> row_start, std::span<const std::uint32_t> column_index,
              std::span<const double> values, double scale);
  // b := A^{-1} b, or A^{-T} b, to a relative residual of `tolerance`.
  KrylovResult solve(double* b, double tolerance);
  KrylovResult solve_transposed(double* b, double tolerance);
  // z = M^{-1} r with the preconditioner of A, or of Aᵀ (SUNDIALS' Krylov methods call it).
  void precondition(const double* r, double* z, bool transposed);
  // Builds Aᵀ and its preconditioner now (else the first transposed solve does); false
  // when the preconditioner cannot be built.
  bool prepare_transposed();
  // Why the last factor() refused A, or empty.
  const std::string& refusal() const { return refusal_; }

 private:
  std::unique_ptr<Preconditioner> make_preconditioner() const;
  KrylovResult run(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance);

  KrylovOptions options_;
  std::optional<GridUnknowns> grid_;
  CsrMatrix a_, a_transposed_;
  std::unique_ptr<Preconditioner> preconditioner_, transposed_preconditioner_;
  Preconditioner* transposed_preconditioner_in_use_ = nullptr;  // Aᵀ's own, or A's for a symmetric A
  bool transposed_ready_ = false, symmetric_ = false;
  KrylovWork work_;
  std::string refusal_;
};

}  // namespace backsweep::krylov
