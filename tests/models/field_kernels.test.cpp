// The built-in field kernels' hand-written VJPs (heat with a conductivity field,
// advection–diffusion, the acoustic wave equation) against the Dual-derived ones, on 1 to
// 3 axes and every boundary, mixed ones included; and each kernel against the same PDE
// defined by equations (as a config defines it).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/heat.hpp"
#include "models/derivative_check.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;

namespace {

const std::vector<std::vector<std::size_t>> kShapes{{9}, {5, 6}, {3, 4, 5}, {1, 7}, {2, 3}};
constexpr Boundary kBoundaries[] = {Boundary::periodic, Boundary::dirichlet, Boundary::neumann};

std::vector<double> wavy(std::size_t n, double offset, double base = 0.0) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + std::sin(0.7 * double(i) + offset);
  return v;
}

// Every shape, with every boundary on all axes but the last (periodic): mixed walls too.
template <class Check>
void for_each_grid(Check&& check) {
  for (const auto& shape : kShapes)
    for (Boundary boundary : kBoundaries) {
      std::vector<Boundary> boundaries(shape.size(), boundary);
      boundaries.back() = Boundary::periodic;
      CAPTURE(shape.size());
      CAPTURE(to_string(boundary));
      check(Grid(shape, std::vector<double>(shape.size(), 0.5), boundaries));
      boundaries.back() = boundary;  // and the same boundary everywhere
      check(Grid(shape, std::vector<double>(shape.size(), 0.5), boundaries));
    }
}

}  // namespace

TEST_CASE("heat: the hand-written VJP (by u and by the conductivity field) = the Dual-derived one") {
  for_each_grid([](const Grid& grid) {
    const models::Heat model(grid);
    const auto u = wavy(model.state_size(), 0.4), k = wavy(model.param_size(), 1.3, 2.0);
    const DerivativeCheckReport report = check_derivatives(model, 0.0, u.data(), k.data(), 1e-12);
    CAPTURE(report.message);
    CHECK(report.ok);
  });
}

TEST_CASE("advection-diffusion: the hand-written VJP (by u, D and the velocity) = the Dual-derived one") {
  for_each_grid([](const Grid& grid) {
    const models::AdvectionDiffusion model(grid);
    const auto u = wavy(model.state_size(), 0.4);
    const std::vector<double> p{0.05, 0.3, -0.2, 0.7};  // D, then the velocity: as many as axes
    const DerivativeCheckReport report = check_derivatives(model, 0.0, u.data(), p.data(), 1e-12);
    CAPTURE(report.message);
    CHECK(report.ok);
  });
  CHECK(models::AdvectionDiffusion(Grid({4, 5}, {1, 1}, {Boundary::periodic, Boundary::neumann})).param_names() ==
        std::vector<std::string>{"D", "vy", "vx"});
}

TEST_CASE("acoustic: the hand-written VJP (by p, q and the velocity field) = the Dual-derived one") {
  for_each_grid([](const Grid& grid) {
    const models::Acoustic model(grid, {grid.points() / 2, 5.0, 0.2, 1.0});
    const auto y = wavy(model.state_size(), 0.4), c = wavy(model.param_size(), 1.3, 2.0);
    const DerivativeCheckReport report = check_derivatives(model, 0.15, y.data(), c.data(), 1e-12);
    CAPTURE(report.message);
    CHECK(report.ok);
  });
}

TEST_CASE("acoustic: the Ricker source enters q at its point, scaled by the cell volume") {
  const Grid grid({4, 5}, {1.0, 2.0}, {Boundary::dirichlet, Boundary::dirichlet});
  const models::Acoustic model(grid, {7, 5.0, 0.2, 3.0});
  const std::vector<double> y(model.state_size(), 0.0), c(model.param_size(), 1.0);
  std::vector<double> dydt(model.state_size());
  model(0.2, y.data(), c.data(), dydt.data());  // at t0 the wavelet is 1
  const double volume = grid.spacing(0) * grid.spacing(1);
  for (std::size_t i = 0; i < dydt.size(); ++i) CHECK(dydt[i] == (i == 20 + 7 ? 3.0 / volume : 0.0));
  CHECK(models::ricker(0.2 + 1.0 / (std::numbers::pi * 5.0 * std::sqrt(2.0)), 5.0, 0.2) ==
        doctest::Approx(0.0).epsilon(1e-15));  // zeros at t0 ± 1 / (pi f0 sqrt 2)
}

namespace {

// The kernel's values and VJP against the same PDE from equations, at one state.
template <class Kernel>
void check_against_equations(const Kernel& kernel, const ExpressionModel& equations, const std::vector<double>& p) {
  REQUIRE(equations.state_size() == kernel.state_size());
  REQUIRE(equations.param_size() == p.size());
  const std::size_t n = kernel.state_size();
  const auto y = wavy(n, 0.2), lambda = wavy(n, 2.0);
  std::vector<double> ours(n), theirs(n), ours_vjp(n + p.size()), theirs_vjp(n + p.size());
  kernel(0.1, y.data(), p.data(), ours.data());
  equations(0.1, y.data(), p.data(), theirs.data());
  for (std::size_t i = 0; i < n; ++i) CHECK(ours[i] == doctest::Approx(theirs[i]).epsilon(1e-14));
  kernel.vjp(0.1, y.data(), p.data(), lambda.data(), ours_vjp.data(), ours_vjp.data() + n);
  ExpressionModel::Tape<double> tape;
  equations.vjp(tape, 0.1, y.data(), p.data(), lambda.data(), theirs_vjp.data(), theirs_vjp.data() + n);
  for (std::size_t i = 0; i < n + p.size(); ++i) CHECK(ours_vjp[i] == doctest::Approx(theirs_vjp[i]).epsilon(1e-12));
}

}  // namespace

TEST_CASE("each kernel = the same PDE from equations: values and VJP") {
  const Grid grid({6, 7}, {1.0, 1.5}, {Boundary::neumann, Boundary::dirichlet});
  check_against_equations(models::Heat(grid),
                          ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"}),
                          wavy(grid.points(), 1.3, 2.0));
  check_against_equations(
      models::AdvectionDiffusion(grid),
      ExpressionModel::parse(FieldEquations(grid, {"u"}, {}, 3), {"D", "vy", "vx"}, {"D*lap(u) - vy*dy(u) - vx*dx(u)"}),
      {0.05, 0.3, -0.2});
  check_against_equations(models::Acoustic(grid, {0, 5.0, 0.2, 0.0}),  // no source: equations have none
                          ExpressionModel::parse(FieldEquations(grid, {"p", "q"}, {"c"}, 0), {}, {"q", "c^2*lap(p)"}),
                          wavy(grid.points(), 1.3, 2.0));
}
