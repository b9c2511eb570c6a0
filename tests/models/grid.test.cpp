// Grids, their stencils and the hand-written Gray–Scott kernel: geometry per boundary,
// stencils exact on polynomials, each transpose the adjoint of its stencil (dot-product
// test against the Dual derivative), and Gray–Scott's VJP against the Dual-derived one on
// 1, 2 and 3 axes with every boundary.
#include "models/grid.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/gray_scott.hpp"
#include "models/derivative_check.hpp"
#include "models/dual.hpp"
#include "models/stencil.hpp"

using namespace backsweep;

namespace {

std::vector<double> wavy(std::size_t n, double phase) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * double(i) + phase) + 1.5;
  return v;
}

const Boundary kBoundaries[] = {Boundary::periodic, Boundary::dirichlet, Boundary::neumann};

}  // namespace

TEST_CASE("grid geometry: strides in array order, spacing and points per boundary") {
  const Grid grid({3, 4, 5}, {1.5, 2.0, 2.5}, {Boundary::neumann, Boundary::dirichlet, Boundary::periodic});
  CHECK(grid.points() == 60);
  CHECK(grid.stride(2) == 1);
  CHECK(grid.stride(1) == 5);
  CHECK(grid.stride(0) == 20);
  CHECK(grid.spacing(2) == doctest::Approx(0.5));   // periodic: L / N
  CHECK(grid.spacing(1) == doctest::Approx(0.4));   // dirichlet: L / (N + 1)
  CHECK(grid.spacing(0) == doctest::Approx(0.5));   // neumann: L / N, cell centres
  CHECK(grid.coordinate(2, 1) == doctest::Approx(0.5));
  CHECK(grid.coordinate(1, 0) == doctest::Approx(0.4));
  CHECK(grid.coordinate(0, 0) == doctest::Approx(0.25));
  CHECK(Grid::axis_name(3, 0) == "z");
  CHECK(Grid::axis_name(2, 0) == "y");
  CHECK(Grid::axis_name(1, 0) == "x");
  // Point (z, y, x) = (0, 2, 4): x wraps, y has an interior neighbour above.
  const std::size_t point = 2 * 5 + 4;
  CHECK(grid.above(point, 4, 2).index == 2 * 5);
  CHECK(grid.below(point, 0, 0).index == point);  // neumann mirrors
  CHECK(!grid.below(point, 0, 0).wall);
  CHECK(grid.above(point, 3, 1).wall);  // y = 3 is the last: dirichlet wall above
  CHECK_THROWS_AS(Grid({}, {}, {}), std::invalid_argument);
  CHECK_THROWS_AS(Grid({4, 0}, {1, 1}, {Boundary::periodic, Boundary::periodic}), std::invalid_argument);
  CHECK_THROWS_AS(Grid({4}, {-1}, {Boundary::periodic}), std::invalid_argument);
  CHECK_THROWS_AS(Grid({4, 4}, {1}, {Boundary::periodic, Boundary::periodic}), std::invalid_argument);
}

TEST_CASE("stencils are exact on low-degree polynomials away from the walls") {
  const Grid grid({6, 7}, {1.2, 1.4}, {Boundary::dirichlet, Boundary::dirichlet});
  std::vector<double> u(grid.points()), k(grid.points());
  for (std::size_t point = 0; point < grid.points(); ++point) {
    const auto at = grid.position(point);
    const double y = grid.coordinate(0, at[0]), x = grid.coordinate(1, at[1]);
    u[point] = 3 * x * x - 2 * x * y + y * y;  // lap = 8, d/dx = 6x - 2y, d/dy = 2y - 2x
    k[point] = 1 + x;                          // div(k grad u) = k lap u + dk/dx du/dx
  }
  const std::size_t point = 3 * 7 + 2;
  const auto at = grid.position(point);
  const double y = grid.coordinate(0, at[0]), x = grid.coordinate(1, at[1]);
  CHECK(Stencil{StencilKind::laplacian}.apply(grid, point, at, u.data(), k.data()) == doctest::Approx(8));
  CHECK(Stencil{StencilKind::derivative, 1}.apply(grid, point, at, u.data(), k.data()) ==
        doctest::Approx(6 * x - 2 * y));
  CHECK(Stencil{StencilKind::derivative, 0}.apply(grid, point, at, u.data(), k.data()) ==
        doctest::Approx(2 * y - 2 * x));
  CHECK(Stencil{StencilKind::div_grad}.apply(grid, point, at, u.data(), k.data()) ==
        doctest::Approx((1 + x) * 8 + (6 * x - 2 * y)));
}

TEST_CASE("bilap is lap applied to lap(u), walls included, and a sine's exact discrete symbol") {
  for (Boundary boundary : kBoundaries) {
    CAPTURE(to_string(boundary));
    const Grid grid({5, 6, 7}, {1.0, 2.0, 1.5}, {boundary, Boundary::neumann, Boundary::periodic});
    const std::size_t n = grid.points();
    const auto u = wavy(n, 0.4);
    std::vector<double> lap(n);
    for (std::size_t point = 0; point < n; ++point)
      lap[point] = Stencil{StencilKind::laplacian}.apply(grid, point, grid.position(point), u.data(), u.data());
    for (std::size_t point = 0; point < n; ++point) {
      const auto at = grid.position(point);
      const double twice = Stencil{StencilKind::laplacian}.apply(grid, point, at, lap.data(), lap.data());
      CHECK(Stencil{StencilKind::bilaplacian}.apply(grid, point, at, u.data(), u.data()) ==
            doctest::Approx(twice).epsilon(1e-13).scale(1e3));
    }
  }
  // On a periodic axis lap(sin(k x)) = -(2 sin(k h / 2) / h)^2 sin(k x) exactly.
  const Grid grid({16}, {4.0}, {Boundary::periodic});
  const double h = grid.spacing(0), k = 2.0 * M_PI * 3.0 / 4.0, symbol = std::pow(2.0 * std::sin(k * h / 2) / h, 4);
  std::vector<double> u(16);
  for (std::size_t i = 0; i < 16; ++i) u[i] = std::sin(k * grid.coordinate(0, i));
  for (std::size_t i = 0; i < 16; ++i)
    CHECK(Stencil{StencilKind::bilaplacian}.apply(grid, i, grid.position(i), u.data(), u.data()) ==
          doctest::Approx(symbol * u[i]).scale(symbol));
}

TEST_CASE("each stencil's transpose is its exact adjoint, at the walls too") {
  using D = Dual<double, 1>;
  for (Boundary boundary : kBoundaries)
    for (const Grid& grid : {Grid({4, 5}, {1.0, 2.0}, {boundary, Boundary::neumann}),
                             Grid({2, 1}, {1.0, 2.0}, {boundary, boundary})}) {
    const std::size_t n = grid.points();
    const auto u = wavy(n, 0.3), k = wavy(n, 1.9), w = wavy(n, -0.8), du = wavy(n, 2.2), dk = wavy(n, 0.1);
    for (const Stencil stencil : {Stencil{StencilKind::laplacian}, Stencil{StencilKind::derivative, 0},
                                  Stencil{StencilKind::derivative, 1}, Stencil{StencilKind::div_grad},
                                  Stencil{StencilKind::bilaplacian}}) {
      CAPTURE(to_string(boundary));
      CAPTURE(int(stencil.kind));
      // <w, (d stencil / d(u, k)) (du, dk)> by a Dual, against <transpose(w), (du, dk)>.
      std::vector<D> ud(n), kd(n);
      for (std::size_t i = 0; i < n; ++i) {
        ud[i] = D(u[i]);
        ud[i].d[0] = du[i];
        kd[i] = D(k[i]);
        kd[i].d[0] = dk[i];
      }
      std::vector<double> u_adjoint(n, 0.0), k_adjoint(n, 0.0);
      double forward = 0;
      for (std::size_t point = 0; point < n; ++point) {
        const auto at = grid.position(point);
        forward += w[point] * stencil.apply(grid, point, at, ud.data(), kd.data()).d[0];
        stencil.transpose(grid, point, at, u.data(), k.data(), w[point], u_adjoint.data(), k_adjoint.data());
      }
      double reverse = 0;
      for (std::size_t i = 0; i < n; ++i) reverse += u_adjoint[i] * du[i] + k_adjoint[i] * dk[i];
      CHECK(reverse == doctest::Approx(forward).epsilon(1e-12));
    }
  }
}

TEST_CASE("Gray-Scott's hand-written VJP = the Dual-derived one, on 1 to 3 axes and every boundary") {
  const std::vector<std::vector<std::size_t>> shapes{{9}, {5, 6}, {3, 4, 5}, {1, 7}};
  for (const auto& shape : shapes) {
    for (Boundary boundary : kBoundaries) {
      CAPTURE(shape.size());
      CAPTURE(to_string(boundary));
      std::vector<Boundary> boundaries(shape.size(), boundary);
      boundaries.back() = Boundary::periodic;  // mixed boundaries too
      const models::GrayScott model(Grid(shape, std::vector<double>(shape.size(), 0.5), boundaries));
      const auto y = wavy(model.state_size(), 0.4);
      const std::vector<double> p{0.01, 0.005, 0.024, 0.06};  // diffusion comparable to reaction
      const DerivativeCheckReport report = check_derivatives(model, 0.0, y.data(), p.data(), 1e-12);
      CAPTURE(report.message);
      CHECK(report.ok);
    }
  }
}
