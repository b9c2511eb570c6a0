// The Krylov stage solvers (solvers/krylov/): each method and preconditioner solves the
// stage matrices of a 3-D diffusion with a varying conductivity, and of an advection–
// diffusion (not symmetric), to the tolerance asked, matching KLU; the transposed solves
// match KLU's; multigrid's iteration counts do not grow with the grid; results are bitwise
// repeatable; CG refuses a matrix that is not symmetric.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "solvers/krylov/stage_solver.hpp"
#include "solvers/sparse_lu.hpp"

using namespace backsweep;
using namespace backsweep::krylov;

namespace {

// J of d/dt u = div(k grad u) + v . grad u on an n^3 grid (7-point, unit spacing), CSR
// with sorted columns; k(x) smooth and varying by a factor 3, v = (advection, 0, 0).
struct Stencil {
  std::size_t n = 0;
  std::vector<std::size_t> row_start{0};
  std::vector<std::uint32_t> column;
  std::vector<double> value;
};

Stencil diffusion_3d(std::size_t m, Boundary boundary, double advection = 0.0) {
  Stencil s;
  s.n = m * m * m;
  const auto k = [&](std::size_t i) { return 1.0 + 0.5 * std::sin(0.37 * double(i)) + 0.5; };
  for (std::size_t z = 0; z < m; ++z)
    for (std::size_t y = 0; y < m; ++y)
      for (std::size_t x = 0; x < m; ++x) {
        const std::size_t i = (z * m + y) * m + x;
        std::vector<std::pair<std::uint32_t, double>> row;
        double diagonal = 0.0;
        const std::size_t at[3] = {z, y, x}, stride[3] = {m * m, m, 1};
        for (int a = 0; a < 3; ++a)
          for (int side : {-1, +1}) {
            const bool inside = side < 0 ? at[a] > 0 : at[a] + 1 < m;
            std::size_t j = i;
            if (inside) j = side < 0 ? i - stride[a] : i + stride[a];
            else if (boundary == Boundary::periodic) j = side < 0 ? i + (m - 1) * stride[a] : i - (m - 1) * stride[a];
            const double face = 0.5 * (k(i) + k(j)) + (a == 2 ? side * 0.5 * advection : 0.0);
            if (inside || boundary == Boundary::periodic) {
              row.push_back({static_cast<std::uint32_t>(j), face});
              diagonal -= 0.5 * (k(i) + k(j));
            } else if (boundary == Boundary::dirichlet) {
              diagonal -= k(i);
            }
          }
        row.push_back({static_cast<std::uint32_t>(i), diagonal});
        std::sort(row.begin(), row.end());
        for (const auto& [c, v] : row) {
          s.column.push_back(c);
          s.value.push_back(v);
        }
        s.row_start.push_back(s.column.size());
      }
  return s;
}

std::vector<double> right_hand_side(std::size_t n) {
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = std::cos(0.1 * double(i)) + (i % 7 == 0 ? 1.0 : 0.0);
  return b;
}

GridUnknowns cube(std::size_t m, Boundary boundary) {
  return {{m, m, m}, {boundary, boundary, boundary}, 1, 0};
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// <P c, r> = <c, Pᵀ r>: the transfer's restriction is its prolongation's transpose; f is P c.
void check_restriction_is_transpose(GridTransfer& transfer, const std::vector<double>& c, std::vector<double>& f) {
  std::vector<double> r(f.size()), restricted(c.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = std::sin(1.7 * double(i));
  transfer.prolong(c.data(), f.data());
  transfer.restrict_to(r.data(), restricted.data());
  double fine_side = 0.0, coarse_side = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i) fine_side += f[i] * r[i];
  for (std::size_t i = 0; i < c.size(); ++i) coarse_side += c[i] * restricted[i];
  CHECK(std::abs(fine_side - coarse_side) <= 1e-12 * std::abs(fine_side));
}

}  // namespace

TEST_CASE("identity_plus stores every diagonal, and product and transposed agree with dense algebra") {
  // J = [[0, 2], [3, 0]] (no diagonal), columns past n (parameters) skipped.
  const std::vector<std::size_t> row_start{0, 2, 3};
  const std::vector<std::uint32_t> column{1, 2, 0};
  const std::vector<double> value{2.0, 9.0, 3.0};
  const CsrMatrix a = identity_plus(2, row_start, column, value, -0.5);
  CHECK(a.column == std::vector<std::uint32_t>{0, 1, 0, 1});
  CHECK(a.value == std::vector<double>{1.0, -1.0, -1.5, 1.0});
  const CsrMatrix t = a.transposed();
  CHECK(t.value == std::vector<double>{1.0, -1.5, -1.0, 1.0});
  const CsrMatrix aa = product(a, t);  // A Aᵀ = [[2, -2.5], [-2.5, 3.25]]
  CHECK(aa.value == std::vector<double>{2.0, -2.5, -2.5, 3.25});
}

TEST_CASE("every method and preconditioner solves a 3-D stage matrix to its tolerance, as KLU does") {
  for (const Boundary boundary : {Boundary::dirichlet, Boundary::neumann, Boundary::periodic}) {
    const Stencil j = diffusion_3d(12, boundary);
    const double scale = -3.0;  // h a_ii = 3: far past the explicit limit (~0.04 here)
    std::vector<double> reference = right_hand_side(j.n);
    SparseLU lu;
    REQUIRE(lu.factor(j.n, j.row_start, j.column, j.value, scale));
    lu.solve(reference.data());
    for (const LinearSolver method : {LinearSolver::gmres, LinearSolver::cg})
      for (const PreconditionerKind kind :
           {PreconditionerKind::none, PreconditionerKind::jacobi, PreconditionerKind::ilu, PreconditionerKind::multigrid}) {
        CAPTURE(int(boundary));
        CAPTURE(int(method));
        CAPTURE(int(kind));
        KrylovStageSolver solver({method, kind, 30, 2000}, cube(12, boundary));
        REQUIRE(solver.factor(j.n, j.row_start, j.column, j.value, scale));
        std::vector<double> x = right_hand_side(j.n);
        const KrylovResult result = solver.solve(x.data(), 1e-12);
        CHECK(result.converged);
        CHECK(result.residual <= 1e-12);
        CHECK(largest_difference(x, reference) < 1e-9);
      }
  }
}

TEST_CASE("transposed solves of an advection-diffusion match KLU's, and CG refuses it") {
  const Stencil j = diffusion_3d(10, Boundary::dirichlet, 1.5);
  const double scale = -0.7;
  std::vector<double> reference = right_hand_side(j.n);
  SparseLU lu;
  REQUIRE(lu.factor(j.n, j.row_start, j.column, j.value, scale));
  lu.solve_transposed(reference.data());
  for (const PreconditionerKind kind : {PreconditionerKind::jacobi, PreconditionerKind::ilu, PreconditionerKind::multigrid}) {
    CAPTURE(int(kind));
    KrylovStageSolver solver({LinearSolver::gmres, kind, 30, 2000}, cube(10, Boundary::dirichlet));
    REQUIRE(solver.factor(j.n, j.row_start, j.column, j.value, scale));
    std::vector<double> x = right_hand_side(j.n);
    CHECK(solver.solve_transposed(x.data(), 1e-12).converged);
    CHECK(largest_difference(x, reference) < 1e-9);
    // The forward solve after a transposed one uses A again.
    std::vector<double> forward = right_hand_side(j.n), forward_lu = forward;
    CHECK(solver.solve(forward.data(), 1e-12).converged);
    lu.solve(forward_lu.data());
    CHECK(largest_difference(forward, forward_lu) < 1e-9);
  }
  KrylovStageSolver cg({LinearSolver::cg, PreconditionerKind::jacobi, 30, 2000}, std::nullopt);
  CHECK_FALSE(cg.factor(j.n, j.row_start, j.column, j.value, scale));
  CHECK(cg.refusal().find("symmetric") != std::string::npos);
}

TEST_CASE("multigrid's iteration counts do not grow with the grid; Jacobi's do") {
  std::vector<std::size_t> multigrid, jacobi;
  for (const std::size_t m : {8u, 16u, 32u}) {
    const Stencil j = diffusion_3d(m, Boundary::dirichlet);
    // h a_ii 100 times the explicit limit of this grid (rho(J) ~ 12 k_max = 24).
    const double scale = -100.0 * 2.0 / 24.0;
    for (const PreconditionerKind kind : {PreconditionerKind::multigrid, PreconditionerKind::jacobi}) {
      KrylovStageSolver solver({LinearSolver::gmres, kind, 30, 5000}, cube(m, Boundary::dirichlet));
      REQUIRE(solver.factor(j.n, j.row_start, j.column, j.value, scale));
      std::vector<double> x = right_hand_side(j.n);
      const KrylovResult result = solver.solve(x.data(), 1e-10);
      REQUIRE(result.converged);
      (kind == PreconditionerKind::multigrid ? multigrid : jacobi).push_back(result.iterations);
    }
  }
  MESSAGE("gmres iterations at 8^3, 16^3, 32^3: multigrid " << multigrid[0] << ", " << multigrid[1] << ", "
                                                            << multigrid[2] << "; jacobi " << jacobi[0] << ", "
                                                            << jacobi[1] << ", " << jacobi[2]);
  CHECK(multigrid[2] <= multigrid[0] + 2);
  CHECK(multigrid[2] <= 12);
  CHECK(jacobi[2] > jacobi[0] + 4);
}

TEST_CASE("a solve is bitwise repeatable, and a multigrid without a grid is refused") {
  const Stencil j = diffusion_3d(8, Boundary::neumann, 0.5);
  std::vector<double> first, second;
  for (std::vector<double>* out : {&first, &second}) {
    KrylovStageSolver solver({LinearSolver::gmres, PreconditionerKind::multigrid, 30, 500}, cube(8, Boundary::neumann));
    REQUIRE(solver.factor(j.n, j.row_start, j.column, j.value, -2.0));
    *out = right_hand_side(j.n);
    solver.solve_transposed(out->data(), 1e-11);
  }
  CHECK(first == second);
  CHECK_THROWS_AS(KrylovStageSolver({LinearSolver::gmres, PreconditionerKind::multigrid, 30, 500}, std::nullopt),
                  std::invalid_argument);
}

TEST_CASE("a solve that cannot reach its tolerance says so with its iterations and residual") {
  const Stencil j = diffusion_3d(12, Boundary::dirichlet);
  KrylovStageSolver solver({LinearSolver::gmres, PreconditionerKind::none, 10, 15}, std::nullopt);
  REQUIRE(solver.factor(j.n, j.row_start, j.column, j.value, -50.0));
  std::vector<double> x = right_hand_side(j.n);
  const KrylovResult result = solver.solve(x.data(), 1e-12);
  CHECK_FALSE(result.converged);
  CHECK(result.iterations == 15);
  CHECK(result.residual > 1e-12);
  CHECK(std::isfinite(result.residual));
}

TEST_CASE("multigrid carries unknowns past the grid's fields to every level") {
  GridUnknowns two_fields{{9, 16}, {Boundary::dirichlet, Boundary::periodic}, 2, 1};
  const Multigrid m(two_fields);
  REQUIRE(m.levels() >= 2);
  CHECK(m.level_unknowns(1).shape == std::vector<std::size_t>{4, 8});
  CHECK(m.level_unknowns(1).size() == 2 * 32 + 1);
}

TEST_CASE("choose_linear_solver: auto by size and shape, with its reason; impossible requests refused") {
  const LinearSystemShape ode{4, 10, 0, 0}, network{500, 2000, 0, 0}, plate{4096, 20000, 2, 4096},
      big_plate{65536, 320000, 2, 65536}, cube3d{32768, 220000, 3, 32768};
  CHECK(choose_linear_solver(LinearSolver::automatic, PreconditionerKind::automatic, ode).solver == LinearSolver::dense);
  CHECK(choose_linear_solver(LinearSolver::automatic, PreconditionerKind::automatic, network).solver ==
        LinearSolver::sparse);
  CHECK(choose_linear_solver(LinearSolver::automatic, PreconditionerKind::automatic, plate).name() == "klu");
  CHECK(choose_linear_solver(LinearSolver::automatic, PreconditionerKind::automatic, big_plate).name() ==
        "gmres + multigrid");
  const LinearSolverChoice cube = choose_linear_solver(LinearSolver::automatic, PreconditionerKind::automatic, cube3d);
  CHECK(cube.name() == "gmres + multigrid");
  CHECK(cube.reason == "a 3-D grid of 32768 points, where a direct factorisation fills in");
  CHECK(choose_linear_solver(LinearSolver::cg, PreconditionerKind::automatic, network).name() == "cg + ilu");
  CHECK(choose_linear_solver(LinearSolver::automatic, PreconditionerKind::jacobi, network).name() == "gmres + jacobi");
  CHECK_THROWS_AS(choose_linear_solver(LinearSolver::gmres, PreconditionerKind::multigrid, network),
                  std::invalid_argument);
  CHECK_THROWS_AS(choose_linear_solver(LinearSolver::gmres, PreconditionerKind::automatic, LinearSystemShape{4, 0, 0, 0}),
                  std::invalid_argument);
  CHECK_THROWS_AS(choose_linear_solver(LinearSolver::sparse, PreconditionerKind::ilu, network), std::invalid_argument);
}

TEST_CASE("linear_solver_advice: a factorisation that dominates on a grid points to multigrid") {
  LinearSolveReport report;
  report.choice = {LinearSolver::sparse, PreconditionerKind::none, "asked for"};
  report.shape = {32768, 220000, 3, 32768};
  report.seconds = 9.0;
  CHECK(linear_solver_advice(report, 10.0).find("took 90% of the run on a 3-D grid of 32768 points") !=
        std::string::npos);
  CHECK(linear_solver_advice(report, 30.0).empty());  // a third of the run: nothing to say
  report.choice = {LinearSolver::gmres, PreconditionerKind::jacobi, "asked for"};
  report.adjoint.add(120, 1e-11);
  CHECK(linear_solver_advice(report, 10.0).find("120 iterations a solve: multigrid") != std::string::npos);
  report.choice.preconditioner = PreconditionerKind::multigrid;
  CHECK(linear_solver_advice(report, 10.0).empty());
}

TEST_CASE("a stencil's rows stored by diagonal: products as by rows, sweeps to round-off, the rest by rows") {
  const Stencil j = diffusion_3d(10, Boundary::periodic, 0.3);  // wraps and advection: 6 offsets each way
  const CsrMatrix by_rows = identity_plus(j.n, j.row_start, j.column, j.value, -0.05);
  const Stencil walled = diffusion_3d(10, Boundary::dirichlet);
  const CsrMatrix walled_rows = identity_plus(walled.n, walled.row_start, walled.column, walled.value, -0.05);
  const CsrMatrix squared = product(walled_rows, walled_rows);  // 25 offsets, ±1 and ±2: sweeps of 2 rows
  // Matrices by rows, from (row, column, value) lists in order.
  const auto from_entries = [](std::size_t n, const std::vector<std::tuple<std::size_t, std::uint32_t, double>>& e) {
    CsrMatrix a;
    a.rows = a.columns = n;
    a.row_start.assign(n + 1, 0);
    for (const auto& [row, column, value] : e) {
      ++a.row_start[row + 1];
      a.column.push_back(column);
      a.value.push_back(value);
    }
    for (std::size_t i = 0; i < n; ++i) a.row_start[i + 1] += a.row_start[i];
    return a;
  };
  std::vector<std::tuple<std::size_t, std::uint32_t, double>> line, y_only, quadrature, nearly_symmetric;
  for (std::uint32_t i = 0; i < 1500; ++i) {  // 1-D: whole blocks of 512 rows
    if (i > 0) line.push_back({i, i - 1, -0.3 - 1e-4 * i});
    line.push_back({i, i, 2.0});
    if (i + 1 < 1500) line.push_back({i, i + 1, -0.4});
  }
  for (std::uint32_t i = 0; i < 700; ++i) {  // symmetric but for one entry, one ulp off
    const auto coupling = [](std::uint32_t row) { return -0.3 - 1e-4 * row; };  // A(row, row + 1)
    if (i > 0) nearly_symmetric.push_back({i, i - 1, i == 600 ? std::nextafter(coupling(i - 1), 0.0) : coupling(i - 1)});
    nearly_symmetric.push_back({i, i, 2.0});
    if (i + 1 < 700) nearly_symmetric.push_back({i, i + 1, coupling(i)});
  }
  for (std::uint32_t i = 0; i < 900; ++i) {  // along y alone: no neighbour at ±1
    if (i >= 30) y_only.push_back({i, i - 30, -0.5});
    y_only.push_back({i, i, 2.0 + 1e-3 * i});
    if (i + 30 < 900) y_only.push_back({i, i + 30, -0.6});
  }
  for (std::uint32_t i = 0; i < by_rows.rows; ++i) {  // an Aᵀ with a quadrature: its column in every row
    for (std::size_t k = by_rows.row_start[i]; k < by_rows.row_start[i + 1]; ++k)
      quadrature.push_back({i, by_rows.column[k], by_rows.value[k]});
    quadrature.push_back({i, std::uint32_t(by_rows.rows), -0.01});
  }
  quadrature.push_back({by_rows.rows, std::uint32_t(by_rows.rows), 1.0});
  const CsrMatrix line_rows = from_entries(1500, line), y_rows = from_entries(900, y_only),
                  quadrature_rows = from_entries(by_rows.rows + 1, quadrature),
                  nearly_symmetric_rows = from_entries(700, nearly_symmetric);
  for (const CsrMatrix* a : {&by_rows, &walled_rows, &squared, &line_rows, &y_rows, &quadrature_rows,
                             &nearly_symmetric_rows})
    for (const std::size_t tail : {std::size_t{a == &quadrature_rows ? 1u : 0u}, std::size_t{7}}) {
      CAPTURE(a->nonzeros());
      CAPTURE(tail);
      CsrMatrix by_diagonals = *a;
      by_diagonals.store_diagonals(a->rows - tail);
      REQUIRE(by_diagonals.diagonals.rows == a->rows - tail);
      // A symmetric stencil stores its main diagonal and those above it alone.
      const CsrMatrix::Diagonals& dia = by_diagonals.diagonals;
      const auto upper = std::size_t(std::count_if(dia.offset.begin(), dia.offset.end(), [](auto o) { return o >= 0; }));
      const bool symmetric = a == &walled_rows || a == &squared;
      CHECK((dia.value.size() == upper * dia.rows) == symmetric);
      const std::vector<double> b = right_hand_side(a->rows);
      std::vector<double> x(a->rows), y_rows(a->rows), y_diagonals(a->rows);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * double(i));
      a->multiply(x.data(), y_rows.data());
      by_diagonals.multiply(x.data(), y_diagonals.data());
      CHECK(y_rows == y_diagonals);
      a->residual(b.data(), x.data(), y_rows.data());
      by_diagonals.residual(b.data(), x.data(), y_diagonals.data());
      CHECK(y_rows == y_diagonals);
      std::vector<double> inverse_diagonal(a->rows);
      const std::vector<std::size_t> at = diagonal_positions(*a);
      for (std::size_t i = 0; i < a->rows; ++i) inverse_diagonal[i] = 1.0 / a->value[at[i]];
      for (const bool forward : {true, false}) {
        std::vector<double> x_rows = x, x_diagonals = x;
        a->gauss_seidel(b.data(), x_rows.data(), inverse_diagonal.data(), forward);
        by_diagonals.gauss_seidel(b.data(), x_diagonals.data(), inverse_diagonal.data(), forward);
        CHECK(largest_difference(x_rows, x) > 1e-2);  // the sweep moved x
        CHECK(largest_difference(x_rows, x_diagonals) <= 1e-14);
      }
    }
  // A row reading 40 columns has more offsets than are stored by diagonal: all stay by rows.
  std::vector<std::tuple<std::size_t, std::uint32_t, double>> dense_first_row;
  for (std::uint32_t c = 0; c < 40; ++c) dense_first_row.push_back({0, c, 1.0});
  for (std::uint32_t i = 1; i < 40; ++i) dense_first_row.push_back({i, i, 1.0});
  CsrMatrix wide = from_entries(40, dense_first_row);
  wide.store_diagonals(40);
  CHECK(wide.diagonals.rows == 0);
}

TEST_CASE("grid transfers axis by axis: P is exact on linear fields inside, restriction is its transpose") {
  const GridUnknowns fine{{7, 6, 5}, {Boundary::dirichlet, Boundary::periodic, Boundary::neumann}, 2, 3};
  std::vector<AxisInterpolation> along;
  GridUnknowns coarse = fine;
  for (std::size_t a = 0; a < 3; ++a) {
    along.push_back(axis_interpolation(fine.shape[a], fine.boundary[a]));
    coarse.shape[a] = along[a].coarse;
  }
  REQUIRE(coarse.shape == std::vector<std::size_t>{3, 3, 2});
  GridTransfer transfer(fine, along);
  // A linear field on the coarse points (coarse k sits at fine 2k + 1), both fields, and extras.
  std::vector<double> c(coarse.size()), f(fine.size());
  const auto linear = [](double z, double y, double x) { return 1.0 + 2.0 * z + 3.0 * y + 4.0 * x; };
  for (std::size_t field = 0; field < 2; ++field)
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t i = 0; i < 2; ++i)
          c[field * 18 + (k * 3 + j) * 2 + i] = (field + 1.0) * linear(2.0 * k + 1, 2.0 * j + 1, 2.0 * i + 1);
  for (std::size_t e = 0; e < 3; ++e) c[36 + e] = 10.0 + e;
  transfer.prolong(c.data(), f.data());
  for (std::size_t field = 0; field < 2; ++field)
    for (std::size_t k = 1; k + 1 < 7; ++k)
      for (std::size_t j = 1; j + 1 < 6; ++j)
        for (std::size_t i = 1; i + 1 < 5; ++i)
          CHECK(f[field * 210 + (k * 6 + j) * 5 + i] == doctest::Approx((field + 1.0) * linear(k, j, i)));
  for (std::size_t e = 0; e < 3; ++e) CHECK(f[420 + e] == 10.0 + e);
  check_restriction_is_transpose(transfer, c, f);
}

TEST_CASE("grid transfers at the walls, and on 1-D and 2-D grids") {
  const auto prolonged = [](std::size_t size, Boundary boundary, std::vector<double> coarse) {
    const GridUnknowns fine{{size}, {boundary}, 1, 0};
    GridTransfer transfer(fine, {axis_interpolation(size, boundary)});
    std::vector<double> f(size);
    transfer.prolong(coarse.data(), f.data());
    return f;
  };
  // Coarse points at fine 1 and 3 (and 5): a Dirichlet wall adds 0, a Neumann wall holds the
  // value, a periodic axis wraps.
  CHECK(prolonged(5, Boundary::dirichlet, {2.0, 4.0}) == std::vector<double>{1.0, 2.0, 3.0, 4.0, 2.0});
  CHECK(prolonged(5, Boundary::neumann, {2.0, 4.0}) == std::vector<double>{2.0, 2.0, 3.0, 4.0, 4.0});
  CHECK(prolonged(6, Boundary::periodic, {2.0, 4.0, 8.0}) == std::vector<double>{5.0, 2.0, 3.0, 4.0, 6.0, 8.0});
  CHECK(prolonged(2, Boundary::dirichlet, {2.0, 4.0}) == std::vector<double>{2.0, 4.0});  // too short: kept
  // Restriction is P's transpose on 2-D grids with two fields and an extra unknown.
  for (const Boundary boundary : {Boundary::dirichlet, Boundary::neumann, Boundary::periodic}) {
    const GridUnknowns fine{{6, 8}, {boundary, Boundary::dirichlet}, 2, 1};
    std::vector<AxisInterpolation> along{axis_interpolation(6, boundary), axis_interpolation(8, Boundary::dirichlet)};
    const std::size_t coarse_size = 2 * along[0].coarse * along[1].coarse + 1;
    GridTransfer transfer(fine, along);
    const std::vector<double> c = right_hand_side(coarse_size);
    std::vector<double> f(fine.size());
    check_restriction_is_transpose(transfer, c, f);
    CHECK(f.back() == c.back());
  }
}
