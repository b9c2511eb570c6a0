// Models on grids defined by equations, as config files define them: the point program
// with stencil operators computes what the hand-written Gray–Scott kernel computes, and
// its reverse-mode VJP (program reverse + stencil transposes) equals the Dual-derived one
// for every operator, boundary and number of axes; operator misuse is refused by name.
#include "models/expression_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/gray_scott.hpp"
#include "models/derivatives.hpp"

using namespace backsweep;

namespace {

std::vector<double> wavy(std::size_t n, double phase) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * double(i) + phase) + 1.5;
  return v;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    largest = std::max(largest, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
  return largest;
}

// lambdaᵀ df/d(y, p) by the model's taped VJP and by Dual lanes.
void check_vjp(const ExpressionModel& model, double tolerance = 1e-12) {
  const std::size_t n = model.state_size(), np = model.param_size();
  const auto y = wavy(n, 0.4), p = wavy(np, 1.3), lambda = wavy(n, -0.6);
  std::vector<double> taped(n + np), derived(n + np);
  ExpressionModel::Tape<double> tape;
  model.vjp(tape, 0.3, y.data(), p.data(), lambda.data(), taped.data(), taped.data() + n);
  Derivatives<ExpressionModel>(model).derived_vjp(0.3, y.data(), p.data(), lambda.data(), derived.data(),
                                                   derived.data() + n);
  CHECK(largest_difference(taped, derived) <= tolerance);
}

}  // namespace

TEST_CASE("Gray-Scott from equations = the hand-written kernel, values and VJP") {
  // Rows longer than one block of the kernel (kLaplacianBlock) too.
  for (const Grid& grid : {Grid({6, 7}, {2.5, 2.5}, {Boundary::periodic, Boundary::neumann}),
                           Grid({3, 600}, {1.0, 20.0}, {Boundary::dirichlet, Boundary::periodic})}) {
    CAPTURE(grid.size(1));
    const ExpressionModel model = ExpressionModel::parse(
        FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
        {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"});
    const models::GrayScott kernel(grid);
    REQUIRE(model.state_size() == kernel.state_size());
    const auto y = wavy(model.state_size(), 0.2), lambda = wavy(model.state_size(), 2.0);
    const std::vector<double> p{0.01, 0.005, 0.024, 0.06};
    std::vector<double> ours(y.size()), theirs(y.size());
    model(0.0, y.data(), p.data(), ours.data());
    kernel(0.0, y.data(), p.data(), theirs.data());
    CHECK(largest_difference(ours, theirs) <= 1e-14);
    std::vector<double> ours_vjp(y.size() + 4), theirs_vjp(y.size() + 4);
    ExpressionModel::Tape<double> tape;
    model.vjp(tape, 0.0, y.data(), p.data(), lambda.data(), ours_vjp.data(), ours_vjp.data() + y.size());
    kernel.vjp(0.0, y.data(), p.data(), lambda.data(), theirs_vjp.data(), theirs_vjp.data() + y.size());
    CHECK(largest_difference(ours_vjp, theirs_vjp) <= 1e-12);
  }
}

TEST_CASE("every operator's reverse = the Dual-derived VJP, on 1 to 3 axes and every boundary") {
  for (Boundary boundary : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann}) {
    CAPTURE(to_string(boundary));
    // Heat with a conductivity field and a source, advection, and a coupling through lap(k).
    const ExpressionModel one_axis = ExpressionModel::parse(
        FieldEquations(Grid({7}, {1.0}, {boundary}), {"u"}, {"k"}, 1), {"c"},
        {"div_grad(k, u) - c*dx(u) + sin(x)*u*k + 0.1*lap(k)*u"});
    check_vjp(one_axis);
    const ExpressionModel two_axes = ExpressionModel::parse(
        FieldEquations(Grid({4, 5}, {1.0, 2.0}, {boundary, Boundary::periodic}), {"u", "v"}, {"k"}, 2),
        {"a", "b"},
        {"div_grad(k, u) - a*dx(u) - b*dy(v) + u*v*x*y", "lap(v) + a*dy(u)*k - v*lap(k) + if(u > 1.5, u, v)"});
    check_vjp(two_axes);
    const ExpressionModel three_axes = ExpressionModel::parse(
        FieldEquations(Grid({3, 4, 3}, {1.0, 1.0, 1.0}, {Boundary::neumann, boundary, boundary}), {"u"}, {"k"}, 0),
        {}, {"div_grad(k, u) + dz(u)*dy(u) + dx(k)*z"});
    check_vjp(three_axes);
  }
}

TEST_CASE("operators: arity, operands and axes are checked where they are written") {
  const auto parse = [](const std::string& equation) {
    return ExpressionModel::parse(FieldEquations(Grid({4, 4}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic}),
                                                 {"u"}, {"k"}, 1),
                                  {"c"}, {equation});
  };
  CHECK_THROWS_WITH_AS(parse("lap(u, u)"), doctest::Contains("lap() takes one field, not 2"), ExpressionError);
  CHECK_THROWS_WITH_AS(parse("div_grad(u)"), doctest::Contains("takes two fields (k, u)"), ExpressionError);
  CHECK_THROWS_WITH_AS(parse("lap(c)"), doctest::Contains("'c' is neither (fields: u; parameter fields: k)"),
                       ExpressionError);
  CHECK_THROWS_WITH_AS(parse("dz(u)"), doctest::Contains("dz() needs a grid with a z axis (this grid has 2)"),
                       ExpressionError);
  CHECK_THROWS_WITH_AS(parse("grad(u)"), doctest::Contains("unknown function 'grad'"), ExpressionError);
  CHECK_THROWS_WITH_AS(parse("lap(u + 1)"), doctest::Contains("')' expected"), ExpressionError);
  const ExpressionModel shared = parse("lap(u) + 2*lap(u) + c*lap(u)");
  CHECK(shared.fields()->operators().size() == 1);  // one stencil, however often it is written
}
