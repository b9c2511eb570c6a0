// Models defined by expressions against the same models written in C++: right-hand
// sides to the last bit, derivatives, and whole adjoint and tangent gradients.
#include "models/expression_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "models/builtin/registry.hpp"
#include "models/derivative_check.hpp"
#include "models/derivatives.hpp"

using namespace backsweep;

namespace {

// The equations of models/builtin/*.hpp, written as a config file would.
template <class M>
ExpressionModel as_expressions() {
  std::vector<std::string> equations;
  if constexpr (std::is_same_v<M, models::Lorenz63>)
    equations = {"sigma*(y - x)", "x*(rho - z) - y", "x*y - beta*z"};
  else if constexpr (std::is_same_v<M, models::LotkaVolterra>)
    equations = {"alpha*x - beta*x*y", "delta*x*y - gamma*y"};
  else
    equations = {"y", "mu*(1 - x*x)*y - x"};
  return ExpressionModel::parse({M::state_names.begin(), M::state_names.end()},
                                {M::param_names.begin(), M::param_names.end()}, equations);
}

// Units in the last place between a and b (0: bitwise equal).
std::int64_t ulps_apart(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if (ia < 0) ia = std::numeric_limits<std::int64_t>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<std::int64_t>::min() - ib;
  return ia > ib ? ia - ib : ib - ia;
}

struct Terminal {
  template <class T>
  T operator()(const T* y, const T* p) const {
    return y[0] * y[0] + T(0.5) * y[1] + p[0] * y[0];
  }
};
struct Running {
  template <class T>
  T operator()(T t, const T* y, const T* p) const {
    using std::sin;
    return T(0.1) * y[0] * y[1] + sin(t) * p[0] * y[1];
  }
};
using TerminalAndRunning = Objective<Terminal, Running>;

template <class Model, class M>
GradientProblem<Model, TerminalAndRunning> problem_for(const Model& model,
                                                       const ButcherTableau& tableau) {
  IntegrateOptions options;
  options.t1 = std::is_same_v<M, models::Lorenz63> ? 0.5 : 1.5;
  options.step = tableau.adaptive() ? 0.0 : 1e-2;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  return {model,
          tableau,
          {M::default_initial.begin(), M::default_initial.end()},
          {M::default_params.begin(), M::default_params.end()},
          {},
          options};
}

double worst_gradient_difference = 0;

double relative_difference(const GradientResult<double>& a, const GradientResult<double>& b) {
  std::vector<double> x = a.dJ_dp, y = b.dJ_dp;
  x.insert(x.end(), a.dJ_dy0.begin(), a.dJ_dy0.end());
  y.insert(y.end(), b.dJ_dy0.begin(), b.dJ_dy0.end());
  x.push_back(a.value);
  y.push_back(b.value);
  double difference = 0, scale = 1e-300;
  for (std::size_t i = 0; i < x.size(); ++i) {
    difference = std::isnan(x[i] - y[i]) ? INFINITY : std::max(difference, std::abs(x[i] - y[i]));
    scale = std::max(scale, std::abs(y[i]));
  }
  return difference / scale;
}

}  // namespace

static_assert(Model<ExpressionModel>);

TEST_CASE_TEMPLATE("right-hand sides equal the C++ model's to the last bit", M, models::Lorenz63,
                   models::LotkaVolterra, models::VanDerPol) {
  const M reference;
  const ExpressionModel model = as_expressions<M>();
  REQUIRE(model.state_size() == M::n_state);
  REQUIRE(model.param_size() == M::n_param);
  using D = Dual<double, 8>;
  std::int64_t worst = 0;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> y(M::n_state), p(M::n_param);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(1.7 * trial + 0.9 * double(i)) * 3;
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = 1 + std::cos(0.3 * trial + double(j));
    std::vector<double> f(M::n_state), g(M::n_state);
    reference(0.25, y.data(), p.data(), f.data());
    model(0.25, y.data(), p.data(), g.data());
    for (std::size_t i = 0; i < f.size(); ++i) worst = std::max(worst, ulps_apart(f[i], g[i]));

    // Dual: every tangent lane too, seeded on y and p.
    std::vector<D> yd(y.begin(), y.end()), pd(p.begin(), p.end()), fd(M::n_state), gd(M::n_state);
    for (std::size_t k = 0; k < yd.size() + pd.size(); ++k)
      (k < yd.size() ? yd[k] : pd[k - yd.size()]).d[k % 8] += 0.5 + double(k);
    reference(D(0.25), yd.data(), pd.data(), fd.data());
    model(D(0.25), yd.data(), pd.data(), gd.data());
    for (std::size_t i = 0; i < fd.size(); ++i) {
      worst = std::max(worst, ulps_apart(fd[i].v, gd[i].v));
      for (int k = 0; k < 8; ++k) worst = std::max(worst, ulps_apart(fd[i].d[k], gd[i].d[k]));
    }
  }
  MESSAGE(M::name << ": right-hand sides at most " << worst << " ulp apart");
  CHECK(worst <= 1);
}

TEST_CASE("derivatives of an expression model equal Lorenz-63's hand-written ones") {
  const models::Lorenz63 reference;
  const ExpressionModel model = as_expressions<models::Lorenz63>();
  const double y[3] = {1.5, -2.0, 20.0}, p[3] = {10.0, 28.0, 8.0 / 3.0};
  Derivatives<ExpressionModel> derivatives(model);
  CHECK(derivatives.method() == VjpMethod::reverse_mode);
  double dfdy[9], dfdp[9], hand_dfdy[9], hand_dfdp[9];
  derivatives.derived_jacobian(0.0, y, p, dfdy, dfdp);
  reference.jacobian(0.0, y, p, hand_dfdy, hand_dfdp);
  for (int i = 0; i < 9; ++i) {
    CHECK(dfdy[i] == hand_dfdy[i]);
    CHECK(dfdp[i] == hand_dfdp[i]);
  }
  const double lambda[3] = {0.3, -1.1, 0.7};
  double vjp_y[3], vjp_p[3], hand_y[3], hand_p[3];
  derivatives.vjp(0.0, y, p, lambda, vjp_y, vjp_p);
  reference.vjp(0.0, y, p, lambda, hand_y, hand_p);
  for (int i = 0; i < 3; ++i) {
    CHECK(vjp_y[i] == doctest::Approx(hand_y[i]).epsilon(1e-15));
    CHECK(vjp_p[i] == doctest::Approx(hand_p[i]).epsilon(1e-15));
  }
  // The checker has nothing hand-written to compare here, and says so by passing.
  CHECK(check_derivatives(model, 0.0, y, p).ok);
  CHECK(check_derivatives(reference, 0.0, y, p).ok);
}

TEST_CASE_TEMPLATE("gradients equal the C++ model's (adjoint and tangent, rk4 and dopri5)", M,
                   models::Lorenz63, models::LotkaVolterra, models::VanDerPol) {
  const M reference;
  const ExpressionModel model = as_expressions<M>();
  for (const ButcherTableau* tableau : {&tableaux::rk4, &tableaux::dopri5}) {
    CAPTURE(tableau->name);
    const auto cpp = problem_for<M, M>(reference, *tableau);
    const auto config = problem_for<ExpressionModel, M>(model, *tableau);
    const auto cpp_adjoint = gradient<double>(cpp, cpp.y0, cpp.p);
    const auto adjoint = gradient<double>(config, config.y0, config.p);
    const auto cpp_tangent = tangent_gradient(cpp);
    const auto tangent = tangent_gradient(config);
    REQUIRE(cpp_adjoint.ok());
    REQUIRE(adjoint.ok());
    REQUIRE(tangent.ok());
    CHECK(adjoint.diagnostics.steps == cpp_adjoint.diagnostics.steps);
    const double adjoint_difference = relative_difference(adjoint, cpp_adjoint);
    const double tangent_difference = relative_difference(tangent, cpp_tangent);
    CHECK(adjoint_difference <= 1e-13);
    CHECK(tangent_difference <= 1e-13);
    worst_gradient_difference =
        std::max({worst_gradient_difference, adjoint_difference, tangent_difference});
  }
  // The comparison sees a change in the last digits of one coefficient.
  if constexpr (std::is_same_v<M, models::LotkaVolterra>) {
    const ExpressionModel nudged = ExpressionModel::parse(
        {"x", "y"}, {"alpha", "beta", "gamma", "delta"},
        {"alpha*x - beta*x*y", "delta*x*y - 1.000000001*gamma*y"});
    const auto cpp = problem_for<M, M>(reference, tableaux::rk4);
    const auto config = problem_for<ExpressionModel, M>(nudged, tableaux::rk4);
    CHECK(relative_difference(gradient<double>(config, config.y0, config.p),
                              gradient<double>(cpp, cpp.y0, cpp.p)) > 1e-10);
  }
  MESSAGE("worst relative gradient difference from the C++ models so far: "
          << worst_gradient_difference);
}

TEST_CASE("time, constants and many states: a 100-state chain against C++") {
  constexpr std::size_t n = 100;
  std::vector<std::string> states, equations;
  // Built with += : GCC 12 misreports "literal" + string under -O3 (-Wrestrict).
  for (std::size_t i = 0; i < n; ++i) {
    std::string state = "u";
    state += std::to_string(i);
    states.push_back(state);
    std::string equation = "-k*";
    equation += state;
    if (i > 0) (equation += " + ") += states[i - 1];
    equation += " + c*sin(omega*t)";
    equations.push_back(equation);
  }
  const ExpressionModel model =
      ExpressionModel::parse(states, {"k", "omega"}, equations, {{"c", 0.25}});
  std::vector<double> y(n), f(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = 0.01 * double(i);
  const double p[2] = {0.7, 3.0}, t = 0.4;
  model(t, y.data(), p, f.data());
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = -p[0] * y[i] + (i ? y[i - 1] : 0.0) + 0.25 * std::sin(p[1] * t);
    CHECK(f[i] == doctest::Approx(expected).epsilon(1e-15));
  }
}

TEST_CASE("a bad equation names its state and keeps the column") {
  try {
    ExpressionModel::parse({"x", "y"}, {"a"}, {"a*x", "x + b"});
    FAIL("parsed");
  } catch (const ExpressionError& error) {
    CHECK(error.column() == 5);
    CHECK(std::string(error.what()).find("equation of y: unknown name 'b'") != std::string::npos);
  }
  CHECK_THROWS_AS(ExpressionModel::parse({"x", "y"}, {}, {"x"}), std::invalid_argument);
  CHECK_THROWS_AS(ExpressionModel::parse({"x", "x"}, {}, {"x", "x"}), std::invalid_argument);
  CHECK_THROWS_AS(ExpressionModel::parse({"t"}, {}, {"t"}), std::invalid_argument);
}
