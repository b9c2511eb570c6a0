// Reverse mode over expression programs (ExpressionProgram::run_taping and reverse,
// ExpressionModel::vjp) against the forward-mode Dual derivatives they replace.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;
using Code = detail::ExpressionCode;

namespace {

// Every ExpressionCode but sum_range, with register reuse, both sides of min, max and abs at any point
// (the pairs swap their arguments), variable and constant exponents, constants on
// either side, t (whose adjoint nobody wants) and results that are a bare variable
// (copy) or a constant (copy_constant). States lie in [-1, 1], parameters in [0.5, 1.5].
ExpressionModel every_operation() {
  return ExpressionModel::parse(
      {"u", "v", "w", "x", "y", "z", "s"}, {"a", "b", "c"},
      {"a*u*v - b*w/(1 + x*x) + (u - v)*(w + x) + c^2 - 2 - u + 3/(2 + y) - z/4 + 2*x*y "
       "+ x*2 + 5 + y + (2 - u) + sin(t)*u",
       "min(u, v) + min(v, u) + max(w, x) + max(x, w) + abs(u - v) + abs(v - u) "
       "+ min(y, 0.3) + max(0.1, z) + min(a, u)*max(b, v)",
       "pow(1 + u*u, v) + pow(2, w) + (1.5 + x*x)^a + u^3 + v^-2 + w^0 + (2 + y)^1.5 "
       "+ pow(z*z + 1, 0.5) + pow(b, c) + (3 + u)^(b*v)",
       "exp(u*v) + log(1 + w*w) + log10(2 + x) + sqrt(1 + y*y) + sqrt(a) + sin(z*u) "
       "+ cos(v) + tan(0.5*w) + tanh(x*y)",
       "atan(u*v) + asin(0.5*w) + acos(0.4*x + 0.1) + sinh(y) + cosh(z*a) + erf(u - w) "
       "+ atan2(v, x) + atan2(y, -0.5) + atan2(1, z) - (-u) + -(v*w) + if(u < v, u*w, v - x) "
       "+ (w <= x) + (y == y) + (z != 0.5) + (u > 0 and v > -2) + (w < 0 or x >= 0.2) "
       "+ if(y >= 0 or z < 0, exp(y), 2)",
       "b", "2.5"});
}

struct Point {
  double t;
  std::vector<double> y, p, lambda;
};

Point random_point(std::mt19937& rng, std::size_t n, std::size_t np) {
  std::uniform_real_distribution<double> state(-1.0, 1.0), param(0.5, 1.5);
  Point point{state(rng), {}, {}, {}};
  for (std::size_t i = 0; i < n; ++i) point.y.push_back(state(rng));
  for (std::size_t j = 0; j < np; ++j) point.p.push_back(param(rng));
  for (std::size_t i = 0; i < n; ++i) point.lambda.push_back(state(rng));
  return point;
}

// |a - b| relative to the larger magnitude (absolute below 1).
double relative_difference(double a, double b) {
  return std::abs(a - b) / std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

TEST_CASE("the test model covers every instruction, register reuse and in-place updates") {
  const ExpressionModel model = every_operation();
  std::set<Code> seen;
  bool in_place = false, reused = false;
  for (const Expression& equation : model.equations()) {
    std::set<std::uint32_t> written;
    for (const detail::ExpressionOp& op : equation.program().ops) {
      seen.insert(op.code);
      if (op.target != detail::kRegisters) continue;
      in_place |= op.a_source == detail::kRegisters && op.a == op.dst;
      reused |= !written.insert(op.dst).second;
    }
  }
  for (int code = 0; code <= int(Code::copy_constant); ++code) {
    if (Code(code) == Code::sum_range) continue;  // over fields: tests/models/expression
    CAPTURE(code);
    CHECK(seen.count(Code(code)) == 1);
  }
  CHECK(in_place);
  CHECK(reused);
}

TEST_CASE("run_taping computes what run does, bitwise, and keeps every result") {
  const ExpressionModel model = every_operation();
  std::mt19937 rng(7);
  const Point point = random_point(rng, model.state_size(), model.param_size());
  for (const Expression& equation : model.equations()) {
    const detail::ExpressionProgram& program = equation.program();
    const double* segments[] = {&point.t, point.y.data(), point.p.data()};
    double plain = 0, taped = 0;
    std::vector<double> tape(program.ops.size());
    program.run(segments, &plain);
    program.run_taping(segments, &taped, tape.data());
    CHECK(plain == taped);
    CHECK(tape.back() == taped);  // the last instruction writes the result
  }
}

TEST_CASE("reverse-mode VJP agrees with the Dual-derived one") {
  const ExpressionModel model = every_operation();
  const std::size_t n = model.state_size(), np = model.param_size();
  Derivatives<ExpressionModel> dual(model);
  ExpressionModel::Tape<double> tape;
  std::mt19937 rng(2024);
  double worst = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Point point = random_point(rng, n, np);
    std::vector<double> expected_y(n), expected_p(np), vjp_y(n, 7.0), vjp_p(np, 7.0);
    dual.derived_vjp(point.t, point.y.data(), point.p.data(), point.lambda.data(),
                     expected_y.data(), expected_p.data());
    model.vjp(tape, point.t, point.y.data(), point.p.data(), point.lambda.data(), vjp_y.data(),
              vjp_p.data());
    std::size_t ops = 0;
    for (const Expression& equation : model.equations()) ops += equation.program().ops.size();
    CHECK(tape.values.size() == ops);
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(std::isfinite(expected_y[i]));
      CHECK(relative_difference(vjp_y[i], expected_y[i]) < 1e-14);
      worst = std::max(worst, relative_difference(vjp_y[i], expected_y[i]));
    }
    for (std::size_t j = 0; j < np; ++j) {
      CAPTURE(j);
      CHECK(relative_difference(vjp_p[j], expected_p[j]) < 1e-14);
      worst = std::max(worst, relative_difference(vjp_p[j], expected_p[j]));
    }
    // Without the parameters: vjp_y alone, the same.
    std::vector<double> alone(n);
    model.vjp(tape, point.t, point.y.data(), point.p.data(), point.lambda.data(), alone.data(),
              static_cast<double*>(nullptr));
    CHECK(alone == vjp_y);
  }
  MESSAGE("largest relative difference from the Dual-derived VJP: " << worst);
}

TEST_CASE("one-hot adjoints give single Jacobian rows, equation by equation") {
  // A wrong partial could cancel in a random combination of rows; row by row it cannot.
  const ExpressionModel model = every_operation();
  const std::size_t n = model.state_size(), np = model.param_size();
  Derivatives<ExpressionModel> dual(model);
  ExpressionModel::Tape<double> tape;
  std::mt19937 rng(99);
  const Point point = random_point(rng, n, np);
  std::vector<double> dfdy(n * n), dfdp(n * np);
  dual.derived_jacobian(point.t, point.y.data(), point.p.data(), dfdy.data(), dfdp.data());
  for (std::size_t row = 0; row < n; ++row) {
    CAPTURE(row);
    std::vector<double> lambda(n, 0.0), vjp_y(n), vjp_p(np);
    lambda[row] = 1.0;
    model.vjp(tape, point.t, point.y.data(), point.p.data(), lambda.data(), vjp_y.data(),
              vjp_p.data());
    for (std::size_t i = 0; i < n; ++i)
      CHECK(relative_difference(vjp_y[i], dfdy[row * n + i]) < 1e-14);
    for (std::size_t j = 0; j < np; ++j)
      CHECK(relative_difference(vjp_p[j], dfdp[row * np + j]) < 1e-14);
  }
}

TEST_CASE("forward over reverse: Dual<double, 1> VJPs agree with nested Duals") {
  // The tangent lanes of the reverse-mode VJP are directional derivatives of lambdaᵀ J
  // (Hessian-vector products); the reference pushes Dual<Dual<double, 1>, 8> through f.
  using D1 = Dual<double, 1>;
  const ExpressionModel model = every_operation();
  const std::size_t n = model.state_size(), np = model.param_size();
  Derivatives<ExpressionModel, D1> nested(model);
  ExpressionModel::Tape<D1> tape;
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> direction(-1.0, 1.0);
  const auto seeded = [&](const std::vector<double>& values) {
    std::vector<D1> out;
    for (double value : values) {
      D1 x(value);
      x.d[0] = direction(rng);
      out.push_back(x);
    }
    return out;
  };
  for (int trial = 0; trial < 8; ++trial) {
    const Point point = random_point(rng, n, np);
    const std::vector<D1> y = seeded(point.y), p = seeded(point.p);
    std::vector<D1> lambda = seeded(point.lambda);
    // An adjoint whose value is zero still carries a tangent: it must not be skipped.
    if (trial == 0) lambda[0].v = lambda[3].v = 0.0;
    std::vector<D1> expected_y(n), expected_p(np), vjp_y(n), vjp_p(np);
    nested.derived_vjp(D1(point.t), y.data(), p.data(), lambda.data(), expected_y.data(),
                       expected_p.data());
    model.vjp(tape, D1(point.t), y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());
    for (std::size_t i = 0; i < n + np; ++i) {
      CAPTURE(i);
      const D1& got = i < n ? vjp_y[i] : vjp_p[i - n];
      const D1& want = i < n ? expected_y[i] : expected_p[i - n];
      CHECK(std::isfinite(want.d[0]));
      CHECK(relative_difference(got.v, want.v) < 1e-14);
      CHECK(relative_difference(got.d[0], want.d[0]) < 1e-13);
    }
  }
}

TEST_CASE("an exponent made by copy_constant is differentiated as a constant") {
  // The parser turns x^2 into power_constant; a program may still hold x^r with r a
  // constant in a register. Like Dual's pow with a tangent-free exponent, the slope is
  // that of the integer power run() computed, so x^0 has slope 0 at x = 0 where the
  // general b a^(b-1) would give 0 * inf = NaN.
  for (const double exponent : {3.0, 0.0, -2.0}) {
    detail::ExpressionProgram program;
    program.segments = 1;
    detail::ExpressionOp constant{Code::copy_constant};
    constant.value = exponent;
    detail::ExpressionOp power{Code::power, detail::kOutputs, 1, detail::kRegisters, 0, 0, 0, 0.0};
    program.ops = {constant, power};
    program.link();
    for (const double x : {-1.5, 0.0, 2.0}) {
      if (exponent < 0 && x == 0) continue;
      CAPTURE(exponent);
      CAPTURE(x);
      const double* segments[] = {&x};
      double tape[2], value = 0, gradient = 0;
      program.run_taping(segments, &value, tape);
      CHECK(value == std::pow(x, exponent));
      const double one = 1;
      double* gradients[] = {&gradient};
      program.reverse(segments, tape, &one, gradients);
      const double slope = exponent == 0 ? 0.0 : exponent * std::pow(x, exponent - 1);
      CHECK(gradient == doctest::Approx(slope).epsilon(1e-15));
    }
  }
}

TEST_CASE("reverse adds into the segment adjoints and skips null ones") {
  const Expression f = Expression::parse("x*y + 3*x", std::vector<std::string>{"x", "y"});
  const double xy[] = {2.0, 5.0};
  const double* segments[] = {xy};
  std::vector<double> tape(f.program().ops.size());
  double value = 0;
  f.program().run_taping(segments, &value, tape.data());
  double adjoints[] = {10.0, 20.0};
  double* to[] = {adjoints};
  const double seed = 2.0;
  f.program().reverse(segments, tape.data(), &seed, to);
  CHECK(adjoints[0] == 10.0 + 2.0 * (5.0 + 3.0));
  CHECK(adjoints[1] == 20.0 + 2.0 * 2.0);
  double* none[] = {nullptr};
  f.program().reverse(segments, tape.data(), &seed, none);  // nothing to write, no crash
}

TEST_CASE("zero adjoints stop NaN partials; NaN adjoints still flow") {
  // At x = 2, log(x - 3) is NaN, so is the slope of log(x - 3)*y in y; at y = 0, sqrt(y)
  // has an infinite slope.
  const ExpressionModel model =
      ExpressionModel::parse({"x", "y"}, {}, {"log(x - 3)*y", "sqrt(y) + x"});
  ExpressionModel::Tape<double> tape;
  const double y[] = {2.0, 0.0};
  double vjp_y[2];
  const double only_second[] = {0.0, 1.0};
  model.vjp(tape, 0.0, y, static_cast<const double*>(nullptr), only_second, vjp_y,
            static_cast<double*>(nullptr));
  CHECK(vjp_y[0] == 1.0);  // equation 0's NaN partial gets no adjoint
  CHECK(std::isinf(vjp_y[1]));  // not NaN: 0 * NaN was not added
  const double nan_first[] = {NAN, 0.0};
  const double at[] = {5.0, 1.0};
  model.vjp(tape, 0.0, at, static_cast<const double*>(nullptr), nan_first, vjp_y,
            static_cast<double*>(nullptr));
  CHECK(std::isnan(vjp_y[0]));
  CHECK(std::isnan(vjp_y[1]));
}

TEST_CASE("Lorenz-96 with 1000 states: a tape as long as the program, exact VJP") {
  constexpr std::size_t N = 1000;
  std::vector<std::string> states, equations;
  const auto name = [&](long i) {
    std::string s = "x";  // += : GCC 12 misreports "literal" + string (-Wrestrict)
    s += std::to_string((i % long(N) + long(N)) % long(N));
    return s;
  };
  for (long i = 0; i < long(N); ++i) {
    states.push_back(name(i));
    std::string equation = "(";
    equation.append(name(i + 1)).append(" - ").append(name(i - 2)).append(")*");
    equation.append(name(i - 1)).append(" - ").append(name(i)).append(" + F");
    equations.push_back(equation);
  }
  const ExpressionModel model = ExpressionModel::parse(states, {"F"}, equations);
  std::mt19937 rng(5);
  const Point point = random_point(rng, N, 1);
  ExpressionModel::Tape<double> tape;
  std::vector<double> vjp_y(N), vjp_p(1);
  model.vjp(tape, 0.0, point.y.data(), point.p.data(), point.lambda.data(), vjp_y.data(),
            vjp_p.data());
  const std::size_t ops = model.equations().size() * model.equations()[0].program().ops.size();
  CHECK(ops == 4 * N);  // subtract, multiply, subtract, add: O(N)
  CHECK(tape.values.size() == ops);

  // The closed form: df_i/dx_{i+1} = x_{i-1}, df_i/dx_{i-2} = -x_{i-1},
  // df_i/dx_{i-1} = x_{i+1} - x_{i-2}, df_i/dx_i = -1, df_i/dF = 1.
  const auto& x = point.y;
  const auto& l = point.lambda;
  const auto at = [&](long i) { return std::size_t((i % long(N) + long(N)) % long(N)); };
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{500},
                              N - 2, N - 1}) {
    CAPTURE(k);
    const long i = long(k);
    const double expected = l[at(i - 1)] * x[at(i - 2)] - l[at(i + 2)] * x[at(i + 1)] +
                            l[at(i + 1)] * (x[at(i + 2)] - x[at(i - 1)]) - l[k];
    CHECK(relative_difference(vjp_y[k], expected) < 1e-14);
  }
  double sum = 0;
  for (double li : l) sum += li;
  CHECK(relative_difference(vjp_p[0], sum) < 1e-13);

  // And against the Dual-derived VJP, everywhere.
  Derivatives<ExpressionModel> dual(model);
  std::vector<double> expected_y(N), expected_p(1);
  dual.derived_vjp(0.0, point.y.data(), point.p.data(), point.lambda.data(), expected_y.data(),
                   expected_p.data());
  double worst = 0;
  for (std::size_t i = 0; i < N; ++i) worst = std::max(worst, relative_difference(vjp_y[i], expected_y[i]));
  CHECK(worst < 1e-14);
  CHECK(relative_difference(vjp_p[0], expected_p[0]) < 1e-14);

  // A second call reuses the tape: no reallocation.
  const double* before = tape.values.data();
  model.vjp(tape, 0.0, point.y.data(), point.p.data(), point.lambda.data(), vjp_y.data(),
            vjp_p.data());
  CHECK(tape.values.data() == before);
}
