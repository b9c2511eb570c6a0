// Which config equations have a Jacobian df/dy that depends on the parameters alone
// (ExpressionModel::jacobian_constant), each verdict checked against the Jacobian itself
// at two different (t, y): equal where the analysis says constant, different where it
// says not (every nonlinear case below does change), so the test fails either way.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/derivatives.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;

namespace {

std::vector<double> values(std::size_t n, double phase) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.7 + 0.5 * std::sin(1.3 * double(i) + phase);
  return v;
}

// Whether the dense Jacobian of `model` differs between two (t, y), at fixed p.
bool jacobian_changes(const ExpressionModel& model) {
  const std::size_t n = model.state_size();
  const auto p = values(model.param_size(), 2.0), y1 = values(n, 0.0), y2 = values(n, 1.0);
  std::vector<double> j1(n * n), j2(n * n);
  Derivatives<ExpressionModel, double> derivatives(model);
  derivatives.jacobian(0.3, y1.data(), p.data(), j1.data());
  derivatives.jacobian(1.7, y2.data(), p.data(), j2.data());
  return j1 != j2;
}

struct Case {
  std::vector<std::string> equations;
  bool constant;
};

// Each case's verdict, and the Jacobian agreeing with it.
template <class Parse>
void check_cases(const std::vector<Case>& cases, Parse&& parse) {
  for (const Case& c : cases) {
    CAPTURE(c.equations[0]);
    CAPTURE(c.equations[1]);
    const ExpressionModel model = parse(c.equations);
    CHECK(model.jacobian_constant() == c.constant);
    CHECK(jacobian_changes(model) == !c.constant);
  }
}

}  // namespace

TEST_CASE("ODE equations: affine in the state with constant coefficients, or not") {
  const std::vector<Case> cases = {
      {{"-a*x + b*y", "x - y/a"}, true},
      {{"-a*x + sin(t)", "exp(a)*y - t*t"}, true},         // time in the offset only
      {{"if(a > 0.5, x, 2*x)", "-(y - x)/3"}, true},       // a branch on a parameter
      {{"x - x", "y^1"}, true},
      {{"x*y", "-y"}, false},
      {{"t*x", "y"}, false},                               // a coefficient varying in time
      {{"sin(x)", "y"}, false},
      {{"a/x", "y"}, false},
      {{"if(x > 0.7, x, 2*x)", "y"}, false},               // a branch on the state
      {{"if(t > 1, x, 2*x)", "y"}, false},
      {{"min(x, y)", "y"}, false},
      {{"x^2", "y"}, false},
  };
  check_cases(cases, [](const auto& equations) { return ExpressionModel::parse({"x", "y"}, {"a", "b"}, equations); });
}

TEST_CASE("grid equations: operators on fields are affine, div_grad of two fields is not") {
  const Grid grid({5, 4}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::periodic});
  const std::vector<Case> cases = {
      {{"div_grad(k, u) - c*u", "lap(v) + u*x"}, true},
      {{"dx(u) + k*v + sin(t)*k", "bilap(v) - dy(k)*u"}, true},
      {{"div_grad(k, u)", "div_grad(v, k)"}, true},        // linear in v for a fixed k
      {{"div_grad(v, u)", "v"}, false},
      {{"lap(u)*u", "v"}, false},
      {{"c*lap(u) - u*v^2", "lap(v) + u*v^2"}, false},
      {{"t*lap(u)", "v"}, false},
  };
  check_cases(cases, [&](const auto& equations) {
    return ExpressionModel::parse(FieldEquations(grid, {"u", "v"}, {"k"}, 1), {"c"}, equations);
  });
}
