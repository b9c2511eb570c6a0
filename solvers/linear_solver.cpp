#include "solvers/linear_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace backsweep {
namespace {

// Where GMRES with multigrid overtakes KLU on a 2-D grid (bench_krylov_grid); in 3-D it
// does from the smallest grids that are not dense anyway.
constexpr std::size_t kKrylov2DPoints = 128 * 128;
constexpr std::size_t kKrylov3DPoints = 8 * 8 * 8;

}  // namespace

std::string_view to_string(LinearSolver solver) {
  switch (solver) {
    case LinearSolver::automatic: return "auto";
    case LinearSolver::dense: return "dense";
    case LinearSolver::sparse: return "klu";
    case LinearSolver::gmres: return "gmres";
    case LinearSolver::cg: return "cg";
  }
  return "?";
}

std::string_view to_string(PreconditionerKind preconditioner) {
  switch (preconditioner) {
    case PreconditionerKind::automatic: return "auto";
    case PreconditionerKind::none: return "none";
    case PreconditionerKind::jacobi: return "jacobi";
    case PreconditionerKind::ilu: return "ilu";
    case PreconditionerKind::multigrid: return "multigrid";
  }
  return "?";
}

std::string LinearSolverChoice::name() const {
  std::string text(to_string(solver));
  if (solver == LinearSolver::gmres || solver == LinearSolver::cg)
    text += std::string(" + ") + std::string(to_string(preconditioner));
  return text;
}

LinearSolverChoice choose_linear_solver(LinearSolver solver, PreconditionerKind preconditioner,
                                        const LinearSystemShape& shape) {
  const bool pattern = shape.state_nonzeros > 0;
  const bool krylov = solver == LinearSolver::gmres || solver == LinearSolver::cg;
  if ((solver == LinearSolver::sparse || krylov) && !pattern)
    throw std::invalid_argument(std::string(to_string(solver)) + " needs a model that declares its sparsity pattern");
  if (preconditioner == PreconditionerKind::multigrid && shape.grid_axes == 0)
    throw std::invalid_argument("the multigrid preconditioner needs a model on a [grid]");
  if (preconditioner != PreconditionerKind::automatic && !krylov && solver != LinearSolver::automatic)
    throw std::invalid_argument("a preconditioner is for gmres or cg, not " + std::string(to_string(solver)));
  LinearSolverChoice choice;
  choice.solver = solver;
  choice.reason = "asked for";
  if (solver == LinearSolver::automatic) {
    const std::string size = std::to_string(shape.states) + " states";
    if (!pattern || !sparse_lu_pays(shape.states, shape.state_nonzeros)) {
      choice.solver = LinearSolver::dense;
      choice.reason = pattern ? size + ", too few or too dense for sparse LU" : "the model declares no sparsity pattern";
    } else if ((shape.grid_axes == 3 && shape.grid_points >= kKrylov3DPoints) ||
               (shape.grid_axes == 2 && shape.grid_points >= kKrylov2DPoints) ||
               preconditioner != PreconditionerKind::automatic) {
      choice.solver = LinearSolver::gmres;
      choice.reason = preconditioner != PreconditionerKind::automatic
                          ? "a preconditioner was asked for"
                          : "a " + std::to_string(shape.grid_axes) + "-D grid of " + std::to_string(shape.grid_points) +
                                " points, where a direct factorisation fills in";
    } else {
      choice.solver = LinearSolver::sparse;
      choice.reason = size + " on a sparse pattern" +
                      (shape.grid_axes ? std::string(", a grid small enough to factor") : std::string());
    }
  }
  if (choice.solver == LinearSolver::gmres || choice.solver == LinearSolver::cg)
    choice.preconditioner = preconditioner != PreconditionerKind::automatic ? preconditioner
                            : shape.grid_axes ? PreconditionerKind::multigrid
                                              : PreconditionerKind::ilu;
  return choice;
}

void KrylovSolveStats::add(std::size_t solve_iterations, double residual) {
  ++solves;
  iterations += solve_iterations;
  most_iterations = std::max(most_iterations, solve_iterations);
  worst_residual = std::max(worst_residual, residual);
}

}  // namespace backsweep

namespace backsweep {

std::string linear_solver_advice(const LinearSolveReport& report, double run_seconds) {
  const double share = run_seconds > 0.0 ? report.seconds / run_seconds : 0.0;
  if (share < 0.5) return {};
  const LinearSystemShape& shape = report.shape;
  const LinearSolver solver = report.choice.solver;
  const std::string took = "the linear solves (" + report.choice.name() + ") took " +
                           std::to_string(int(std::lround(100.0 * share))) + "% of the run";
  const bool grid = shape.grid_axes >= 2;
  if ((solver == LinearSolver::dense || solver == LinearSolver::sparse) && grid)
    return took + " on a " + std::to_string(shape.grid_axes) + "-D grid of " + std::to_string(shape.grid_points) +
           " points, where a factorisation fills in: GMRES with multigrid grows like the grid (solver.linear_solver = "
           "\"gmres\", preconditioner = \"multigrid\")";
  if (solver == LinearSolver::dense && shape.state_nonzeros > 0 && shape.state_nonzeros * 4 <= shape.states * shape.states)
    return took + " on a sparse system of " + std::to_string(shape.states) +
           " states: sparse LU factors it in far less (solver.linear_solver = \"klu\")";
  const bool krylov = solver == LinearSolver::gmres || solver == LinearSolver::cg;
  const KrylovSolveStats& all = report.adjoint.solves ? report.adjoint : report.forward;
  if (krylov && shape.grid_axes > 0 && report.choice.preconditioner != PreconditionerKind::multigrid && all.solves &&
      all.iterations > 20 * all.solves)
    return took + " at " + std::to_string(all.iterations / all.solves) +
           " iterations a solve: multigrid's do not grow with the grid (solver.preconditioner = \"multigrid\")";
  return {};
}

}  // namespace backsweep
