// Our geometric multigrid against hypre's BoomerAMG (Debian libhypre-dev), each as the
// preconditioner of GMRES on the same stage matrix I - h J of 3-D heat with a
// conductivity field (J assembled from the config model's pattern, h 100 times RK4's
// stable step), to a relative residual of 1e-10: set-up and solve seconds as ratios
// (hypre / ours) and iterations. This is the measurement behind solver.preconditioner's
// choice of our own multigrid on grids (docs/config.md).
//   build/bench/bench_hypre_amg [largest side, default 64]
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/timing.hpp"
#include "models/expression_model.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/krylov/csr_matrix.hpp"
#include "solvers/krylov/stage_solver.hpp"

using namespace backsweep;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  HYPRE_Init();
  const std::size_t largest = argc > 1 ? std::size_t(std::atoi(argv[1])) : 64;
  std::printf("%6s | %8s %8s %4s | %8s %8s %4s | %s\n", "grid", "ours set", "solve", "its", "AMG set", "solve", "its",
              "hypre / ours (set-up + solve)");
  for (std::size_t side = 16; side <= largest; side *= 2) {
    const Grid grid({side, side, side}, {1.0, 1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet, Boundary::dirichlet});
    const ExpressionModel model = ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
    const std::size_t n = grid.points();
    std::vector<double> u(n), k(n), b(n);
    for_each_point(grid, [&](std::size_t point, const auto& at) {
      const double x = grid.coordinate(2, at[2]), y = grid.coordinate(1, at[1]), z = grid.coordinate(0, at[0]);
      u[point] = std::sin(M_PI * x) * std::sin(M_PI * y) * std::sin(M_PI * z);
      k[point] = 1.0 + 0.5 * std::sin(2 * M_PI * x) * std::sin(M_PI * y) * std::sin(M_PI * z);
      b[point] = u[point] + 0.1 * std::cos(7.0 * double(point));
    });
    SparseJacobian jacobian(model);
    jacobian.evaluate(0.0, u.data(), k.data(), JacobianColumns::states);
    const SparsityPattern& pattern = jacobian.pattern();
    const double dx = grid.spacing(0), h = 100 * 0.95 * 2.785 * dx * dx / (12 * 1.5);

    krylov::KrylovStageSolver ours({LinearSolver::gmres, PreconditionerKind::multigrid},
                                   krylov::GridUnknowns{grid.shape(), grid.boundary(), 1, 0});
    const double our_setup =
        bench::seconds_of([&] { ours.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h); });
    std::vector<double> x = b;
    std::size_t our_iterations = 0;
    const double our_solve = bench::seconds_of([&] { our_iterations = ours.solve(x.data(), 1e-10).iterations; });

    // The same matrix into hypre's IJ interface (one process: rows 0 .. n-1).
    const krylov::CsrMatrix a = krylov::identity_plus(n, pattern.row_start, pattern.column_index, jacobian.values(), -h);
    HYPRE_IJMatrix ij;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, HYPRE_BigInt(n - 1), 0, HYPRE_BigInt(n - 1), &ij);
    HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
    HYPRE_IJMatrixInitialize(ij);
    for (std::size_t i = 0; i < n; ++i) {
      HYPRE_Int count = HYPRE_Int(a.row_start[i + 1] - a.row_start[i]);
      HYPRE_BigInt row = HYPRE_BigInt(i);
      std::vector<HYPRE_BigInt> columns(a.column.begin() + std::ptrdiff_t(a.row_start[i]),
                                        a.column.begin() + std::ptrdiff_t(a.row_start[i + 1]));
      HYPRE_IJMatrixSetValues(ij, 1, &count, &row, columns.data(), a.value.data() + a.row_start[i]);
    }
    HYPRE_IJMatrixAssemble(ij);
    HYPRE_ParCSRMatrix parcsr;
    HYPRE_IJMatrixGetObject(ij, reinterpret_cast<void**>(&parcsr));
    HYPRE_IJVector ij_b, ij_x;
    std::vector<HYPRE_BigInt> rows(n);
    for (std::size_t i = 0; i < n; ++i) rows[i] = HYPRE_BigInt(i);
    std::vector<double> zero(n, 0.0);
    for (auto [v, values] : {std::pair{&ij_b, b.data()}, std::pair{&ij_x, zero.data()}}) {
      HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, HYPRE_BigInt(n - 1), v);
      HYPRE_IJVectorSetObjectType(*v, HYPRE_PARCSR);
      HYPRE_IJVectorInitialize(*v);
      HYPRE_IJVectorSetValues(*v, HYPRE_Int(n), rows.data(), values);
      HYPRE_IJVectorAssemble(*v);
    }
    HYPRE_ParVector par_b, par_x;
    HYPRE_IJVectorGetObject(ij_b, reinterpret_cast<void**>(&par_b));
    HYPRE_IJVectorGetObject(ij_x, reinterpret_cast<void**>(&par_x));
    HYPRE_Solver gmres, amg;
    HYPRE_ParCSRGMRESCreate(MPI_COMM_WORLD, &gmres);
    HYPRE_GMRESSetKDim(gmres, 30);
    HYPRE_GMRESSetMaxIter(gmres, 500);
    HYPRE_GMRESSetTol(gmres, 1e-10);
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_GMRESSetPrecond(gmres, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                          reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg);
    const double amg_setup = bench::seconds_of(
        [&] { HYPRE_ParCSRGMRESSetup(gmres, parcsr, par_b, par_x); });
    const double amg_solve = bench::seconds_of([&] { HYPRE_ParCSRGMRESSolve(gmres, parcsr, par_b, par_x); });
    HYPRE_Int amg_iterations = 0;
    HYPRE_GMRESGetNumIterations(gmres, &amg_iterations);
    std::printf("%5zu^3 | %8.3f %8.3f %4zu | %8.3f %8.3f %4d | %.2f\n", side, our_setup, our_solve, our_iterations,
                amg_setup, amg_solve, int(amg_iterations), (amg_setup + amg_solve) / (our_setup + our_solve));
    std::fflush(stdout);
    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_ParCSRGMRESDestroy(gmres);
    HYPRE_IJVectorDestroy(ij_b);
    HYPRE_IJVectorDestroy(ij_x);
    HYPRE_IJMatrixDestroy(ij);
  }
  HYPRE_Finalize();
  MPI_Finalize();
}
