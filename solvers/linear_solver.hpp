#pragma once
// How implicit methods (ours and CVODES BDF) solve their Newton and stage matrices
// I - h a_ii J: dense LU, sparse LU (KLU) on the model's declared pattern, or a Krylov
// method (GMRES, CG) with a preconditioner (solvers/krylov/) on that pattern's assembled
// Jacobian. `automatic` chooses by size and shape (choose_linear_solver) and says why.
#include <concepts>
#include <cstddef>
#include <string>

namespace backsweep {

enum class LinearSolver { automatic, dense, sparse, gmres, cg };
enum class PreconditionerKind { automatic, none, jacobi, ilu, multigrid };

std::string_view to_string(LinearSolver solver);  // "dense", "klu", "gmres", ...
std::string_view to_string(PreconditionerKind preconditioner);

// automatic's rule for direct solvers on a model with a pattern: sparse once the system is
// large and mostly zeros. Below 32 states dense LU is as fast, so small config ODEs (whose
// expression models all have a pattern now) keep dense LU; large sparse ones get KLU.
constexpr bool sparse_lu_pays(std::size_t states, std::size_t state_nonzeros) {
  return states >= 32 && state_nonzeros * 4 <= states * states;
}

// What a model's stage matrices offer the choice: its size, its pattern's nonzeros (0: it
// declares none), and its grid's axes and points (0: not on a grid).
struct LinearSystemShape {
  std::size_t states = 0, state_nonzeros = 0, grid_axes = 0, grid_points = 0;
};

struct LinearSolverChoice {
  LinearSolver solver = LinearSolver::dense;
  PreconditionerKind preconditioner = PreconditionerKind::none;  // Krylov methods only
  std::string reason = {};  // why automatic chose so, or that it was asked for
  std::string name() const;  // "gmres + multigrid", "klu", ...
};

// The solver and preconditioner for a request. automatic: dense LU for small or dense
// systems; GMRES with multigrid on 3-D grids (and large 2-D ones), where a direct
// factorisation fills in like n^(4/3) to n^2 (bench_krylov_grid measures where it stops
// paying); KLU for the rest. A Krylov method's automatic preconditioner is multigrid on a
// grid, ILU(0) elsewhere. Requests the model cannot meet (sparse or Krylov without a
// pattern, multigrid off a grid) throw std::invalid_argument naming the problem.
LinearSolverChoice choose_linear_solver(LinearSolver solver, PreconditionerKind preconditioner,
                                        const LinearSystemShape& shape);

// The Krylov solves of a run, one direction (forward: Newton and tangent; adjoint: the
// transposed stage solves).
struct KrylovSolveStats {
  std::size_t solves = 0, iterations = 0, most_iterations = 0;
  double worst_residual = 0.0;  // the largest relative residual ||b - A x|| / ||b|| of any
  void add(std::size_t solve_iterations, double residual);
};

struct LinearSolveReport;
// A stepper that solves linear systems and reports how (ImplicitRK, and EventStepper on it).
template <class S>
concept ReportsLinearSolves = requires(const S& s) {
  { s.linear_solves() } -> std::convertible_to<const LinearSolveReport&>;
};

struct LinearSolveReport {
  LinearSolverChoice choice;
  LinearSystemShape shape = {};
  double tolerance = 0.0;  // the Krylov tolerance of the tangent and adjoint solves
  KrylovSolveStats forward = {}, adjoint = {};
  double seconds = 0.0;  // spent factoring and solving (not in the Jacobians)
};

// A warning for a run whose linear solves took most of its time where another solver
// would do better (a factorisation on a 2-D or 3-D grid, dense LU on a sparse system,
// a Krylov method on a grid without multigrid needing many iterations); empty otherwise.
std::string linear_solver_advice(const LinearSolveReport& report, double run_seconds);

}  // namespace backsweep
