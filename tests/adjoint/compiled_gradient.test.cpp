// Gradients through equations compiled to native kernels: the discrete adjoint (its
// VJPs the compiled ones) against the forward tangent (Dual numbers, so the interpreter)
// to 1e-10, the Taylor remainder falling at rate 2, and the same value and gradient as the
// interpreter's adjoint (bitwise value; gradient to round-off) on Gray–Scott, on heat with
// a conductivity field and on an ODE.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "models/expression_model.hpp"
#include "solvers/method.hpp"

using namespace backsweep;

namespace {

// J = y[a]^2 + y[b] + sum of the parameters times y[a]: reaches every parameter.
struct Terminal {
  std::size_t a, b, parameters;
  template <class T>
  T operator()(const T* y, const T* p) const {
    T sum = y[a] * y[a] + y[b];
    for (std::size_t j = 0; j < parameters; ++j) sum = sum + T(0.01) * p[j] * y[a];
    return sum;
  }
};

std::vector<double> wavy(std::size_t n, double phase, double base, double amplitude) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + amplitude * std::sin(0.37 * double(i) + phase);
  return v;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(a[i]));
  }
  return difference / scale;
}

void check_compiled_gradient(const ExpressionModel& interpreted, std::vector<double> p, double step) {
  ExpressionModel compiled = interpreted;
  CompilerOptions options;
  options.cache = std::filesystem::temp_directory_path() / ("backsweep_compiled_gradient_" + std::to_string(::getpid()));
  compiled.compile(options);
  REQUIRE(compiled.compiled());
  IntegrateOptions integrate;
  integrate.step = step;
  integrate.t1 = 20 * step;
  const std::size_t n = interpreted.state_size();
  const Terminal term{n / 3, n - 2, p.size()};
  const std::vector<double> y0 = wavy(n, 0.3, 0.6, 0.3);
  const Method rk4 = *find_method("rk4");
  const GradientProblem<ExpressionModel, Objective<Terminal>> problem{compiled, rk4, y0, p, {term}, integrate};
  const GradientProblem<ExpressionModel, Objective<Terminal>> reference{interpreted, rk4, y0, p, {term}, integrate};

  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  const auto interpreted_adjoint = gradient<double>(reference, reference.y0, reference.p);
  const auto tangent = tangent_gradient(problem);
  REQUIRE(adjoint.ok());
  REQUIRE(tangent.ok());
  CHECK(adjoint.value == interpreted_adjoint.value);
  std::vector<double> a = adjoint.dJ_dp, t = tangent.dJ_dp, i = interpreted_adjoint.dJ_dp;
  a.insert(a.end(), adjoint.dJ_dy0.begin(), adjoint.dJ_dy0.end());
  t.insert(t.end(), tangent.dJ_dy0.begin(), tangent.dJ_dy0.end());
  i.insert(i.end(), interpreted_adjoint.dJ_dy0.begin(), interpreted_adjoint.dJ_dy0.end());
  CHECK(relative_difference(a, t) <= 1e-10);
  CHECK(relative_difference(a, i) <= 1e-12);

  const TaylorTestReport taylor = taylor_test(problem, wavy(p.size(), 1.1, 0.0, 1.0), wavy(n, 0.7, 0.0, 0.1), 1e-4);
  CAPTURE(taylor.min_rate);
  CHECK(taylor.min_rate >= 1.95);
}

}  // namespace

TEST_CASE("Gray-Scott compiled: adjoint = tangent, Taylor rate 2, = the interpreter") {
  const Grid grid({8, 10}, {2.5, 2.5}, {Boundary::periodic, Boundary::periodic});
  const ExpressionModel model = ExpressionModel::parse(
      FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
      {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"});
  check_compiled_gradient(model, {0.02, 0.01, 0.024, 0.06}, 0.5);
}

TEST_CASE("an ODE compiled (a reaction network with rates of the Arrhenius kind)") {
  const ExpressionModel model = ExpressionModel::parse(
      {"a", "b", "c"}, {"k1", "k2", "E"},
      {"-k1*exp(-E/(1 + c))*a*b", "k1*exp(-E/(1 + c))*a*b - k2*b^2", "k2*b^2 - 0.1*sqrt(c + 1)*c"});
  check_compiled_gradient(model, {1.5, 0.7, 0.3}, 0.05);
}

TEST_CASE("heat with a conductivity field compiled, Dirichlet and Neumann walls") {
  const Grid grid({9, 7}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});
  const ExpressionModel model =
      ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 1), {"source"}, {"div_grad(k, u) + source*x*y"});
  std::vector<double> p = wavy(1 + grid.points(), 0.2, 1.0, 0.4);
  check_compiled_gradient(model, p, 2e-4);
}
