// The parts of an implicit step's linear algebra on a 3-D grid, per size: the stage matrix
// I - h J of u' = div_grad(k, u) (a conductivity field, Dirichlet walls, J assembled from
// the config model's sparsity pattern) at h 10 and 100 times RK4's stable step, solved to
// a relative residual of 1e-10 by GMRES with multigrid, Jacobi and ILU(0), and factored by
// KLU where that finishes. Columns: seconds per million unknowns (Jacobian assembly,
// multigrid set-up, one solve) and iterations; a time that grows like n stays constant
// down a column. The last lines fit the exponent p of time ~ n^p from the smallest grid
// to the largest.
//   build/bench/bench_krylov_grid [largest side, default 128]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/timing.hpp"
#include "models/expression_model.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/krylov/stage_solver.hpp"
#include "solvers/sparse_lu.hpp"

using namespace backsweep;

namespace {

struct Row {
  double jacobian = 0, setup = 0, solve = 0, klu = NAN;
  std::size_t iterations = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t largest = argc > 1 ? std::size_t(std::atoi(argv[1])) : 128;
  std::map<std::pair<std::size_t, int>, Row> rows;
  std::printf("%6s %9s %5s | %9s %9s %9s %5s | %6s %6s | %9s  (seconds per 10^6 unknowns)\n", "grid", "unknowns",
              "h", "jacobian", "mg setup", "mg solve", "its", "jacobi", "ilu", "klu");
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
    const double t_jacobian = bench::seconds_of([&] { jacobian.evaluate(0.0, u.data(), k.data(), JacobianColumns::states); });
    const SparsityPattern& pattern = jacobian.pattern();
    const double dx = grid.spacing(0), rk4_step = 0.95 * 2.785 * dx * dx / (12 * 1.5);
    const krylov::GridUnknowns unknowns{grid.shape(), grid.boundary(), 1, 0};
    for (const int factor : {10, 100}) {
      const double h = factor * rk4_step;
      Row& row = rows[{side, factor}];
      row.jacobian = t_jacobian;
      krylov::KrylovStageSolver multigrid({LinearSolver::gmres, PreconditionerKind::multigrid}, unknowns);
      row.setup = bench::seconds_of([&] { multigrid.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h); });
      std::vector<double> x = b;
      row.solve = bench::seconds_of([&] { row.iterations = multigrid.solve(x.data(), 1e-10).iterations; });
      std::string others;
      for (const PreconditionerKind kind : {PreconditionerKind::jacobi, PreconditionerKind::ilu}) {
        if (side > 64) {
          others += "      -";
          continue;
        }
        krylov::KrylovStageSolver solver({LinearSolver::gmres, kind, 30, 5000}, unknowns);
        solver.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h);
        x = b;
        const krylov::KrylovResult result = solver.solve(x.data(), 1e-10);
        char text[16];
        std::snprintf(text, sizeof text, " %6zu", result.converged ? result.iterations : 0);
        others += text;
      }
      if (side <= 32) {
        SparseLU lu;
        row.klu = bench::seconds_of([&] { lu.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h); });
      }
      const double per = 1e6 / double(n);
      std::printf("%5zu^3 %9zu %4dx | %9.3f %9.3f %9.3f %5zu |%s | %9.2f\n", side, n, factor, row.jacobian * per,
                  row.setup * per, row.solve * per, row.iterations, others.c_str(), row.klu * per);
      std::fflush(stdout);
    }
  }
  // 2-D: where GMRES with multigrid overtakes KLU (factor and one solve against set-up
  // and one solve), the crossover auto uses (solvers/linear_solver.cpp).
  std::printf("\n2-D plate, h 100x RK4's: %6s %9s %12s %12s %8s\n", "grid", "unknowns", "klu", "gmres+mg", "klu/mg");
  for (std::size_t side = 32; side <= 512; side *= 2) {
    const Grid grid({side, side}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
    const ExpressionModel model = ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
    const std::size_t n = grid.points();
    std::vector<double> u(n), k(n), b(n);
    for_each_point(grid, [&](std::size_t point, const auto& at) {
      const double x = grid.coordinate(1, at[1]), y = grid.coordinate(0, at[0]);
      u[point] = std::sin(M_PI * x) * std::sin(M_PI * y);
      k[point] = 1.0 + 0.5 * std::sin(2 * M_PI * x) * std::sin(M_PI * y);
      b[point] = u[point] + 0.1 * std::cos(7.0 * double(point));
    });
    SparseJacobian jacobian(model);
    jacobian.evaluate(0.0, u.data(), k.data(), JacobianColumns::states);
    const SparsityPattern& pattern = jacobian.pattern();
    const double dx = grid.spacing(0), h = 100 * 0.95 * 2.785 * dx * dx / (8 * 1.5);
    SparseLU lu;
    std::vector<double> x = b;
    const double klu = bench::seconds_of([&] {
      lu.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h);
      lu.solve(x.data());
    });
    krylov::KrylovStageSolver multigrid({LinearSolver::gmres, PreconditionerKind::multigrid},
                                        krylov::GridUnknowns{grid.shape(), grid.boundary(), 1, 0});
    x = b;
    const double mg = bench::seconds_of([&] {
      multigrid.factor(n, pattern.row_start, pattern.column_index, jacobian.values(), -h);
      multigrid.solve(x.data(), 1e-10);
    });
    std::printf("%30zu^2 %9zu %12.4f %12.4f %8.2f\n", side, n, klu, mg, klu / mg);
    std::fflush(stdout);
  }
  for (const int factor : {10, 100}) {
    const Row &small = rows[{16, factor}], &large = rows[{largest, factor}];
    const double ratio = std::log(double(largest * largest * largest) / (16.0 * 16 * 16));
    std::printf("h %3dx: time ~ n^p from 16^3 to %zu^3: jacobian p = %.2f, multigrid set-up p = %.2f, solve p = %.2f\n",
                factor, largest, std::log(large.jacobian / small.jacobian) / ratio,
                std::log(large.setup / small.setup) / ratio, std::log(large.solve / small.solve) / ratio);
  }
}
