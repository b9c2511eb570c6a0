// Implicit methods on a PDE defined on a grid by equations, as a config defines it:
// u' = div_grad(k, u) on an N x N Dirichlet plate, J = u at the centre after t = 0.05,
// gradient with respect to the conductivity field k and the initial field. SDIRK2 takes
// 10 steps of h = 0.005; RK4 needs a step inside its stability limit (the ~960 steps at
// 64 x 64 follow from dx^2 / k). Per size, one run, medians of interleaved runs:
//   sparse LU (automatic: the stencils' footprints) against dense LU (small grids only),
//   RK4 at its largest stable step against SDIRK2 with sparse LU, and the two values of J
//   (SDIRK2's time error at that step, relative).
//   build/bench/bench_implicit_grid
#include <cmath>
#include <cstdio>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/expression_model.hpp"
#include "solvers/dirk_tableaux.hpp"

namespace {

using namespace backsweep;

struct Centre {
  std::size_t index;
  template <class T>
  T operator()(const T* y, const T*) const { return y[index]; }
};
using Problem = GradientProblem<ExpressionModel, Objective<Centre>>;

Problem make_problem(const ExpressionModel& model, const Grid& grid, const Method& method, double step) {
  std::vector<double> u0(grid.points()), k(grid.points());
  for_each_point(grid, [&](std::size_t point, const auto& at) {
    const double x = grid.coordinate(1, at[1]), y = grid.coordinate(0, at[0]);
    u0[point] = std::sin(M_PI * x) * std::sin(M_PI * y) + std::exp(-((x - 0.3) * (x - 0.3) + y * y) / 0.02);
    k[point] = 1.0 + 0.5 * std::exp(-((x - 0.6) * (x - 0.6) + (y - 0.5) * (y - 0.5)) / 0.02);
  });
  IntegrateOptions options;
  options.t1 = 0.05;
  options.step = step;
  Objective<Centre> objective{Centre{grid.points() / 2 + grid.size(1) / 2}};
  return {model, method, u0, k, objective, options};
}

}  // namespace

int main() {
  std::printf("%7s %10s %18s %16s %18s %22s\n", "grid", "unknowns", "dense/sparse LU", "RK4/SDIRK2",
              "RK4 steps", "SDIRK2 J error (rel)");
  for (std::size_t side : {24, 32, 64}) {
    const Grid grid({side, side}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
    const ExpressionModel model =
        ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
    const double dx = grid.spacing(0);
    // RK4's stability interval on the negative axis is 2.785; lap's largest eigenvalue
    // is 8 k_max / dx^2 in 2-D.
    const double rk4_step = 0.05 / std::ceil(0.05 / (0.95 * 2.785 * dx * dx / (8 * 1.5)));
    Method dense = tableaux::sdirk2;
    dense.newton.linear_solver = LinearSolver::dense;
    const Problem sparse_problem = make_problem(model, grid, tableaux::sdirk2, 0.005);
    const Problem dense_problem = make_problem(model, grid, dense, 0.005);
    const Problem rk4_problem = make_problem(model, grid, tableaux::rk4, rk4_step);
    GradientResult<double> sparse, by_rk4;
    std::vector<std::function<void()>> runs{
        [&] { sparse = gradient<double>(sparse_problem, sparse_problem.y0, sparse_problem.p); },
        [&] { by_rk4 = gradient<double>(rk4_problem, rk4_problem.y0, rk4_problem.p); }};
    if (side <= 32) runs.push_back([&] { gradient<double>(dense_problem, dense_problem.y0, dense_problem.p); });
    const std::vector<double> medians = bench::interleaved_medians(runs, 3);
    if (!sparse.ok() || !by_rk4.ok()) {
      std::fprintf(stderr, "%zu x %zu: %s %s\n", side, side, sparse.message.c_str(), by_rk4.message.c_str());
      return 1;
    }
    char dense_ratio[32] = "-";
    if (side <= 32) std::snprintf(dense_ratio, sizeof dense_ratio, "%.1f", medians[2] / medians[0]);
    std::printf("%3zu x %-3zu %10zu %18s %16.2f %18zu %22.1e\n", side, side, grid.points(), dense_ratio,
                medians[1] / medians[0], by_rk4.diagnostics.steps, std::abs(sparse.value / by_rk4.value - 1));
  }
  return 0;
}
