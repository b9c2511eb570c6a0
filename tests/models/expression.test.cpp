#include "models/expression.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace backsweep;

namespace {
const std::vector<std::string> kNames = {"t", "x", "y", "alpha"};
double eval(const std::string& text, std::vector<double> values = {0.5, 2.0, -3.0, 0.25}) {
  return Expression::parse(text, kNames).evaluate(values.data());
}
}  // namespace

TEST_CASE("precedence, associativity and functions") {
  CHECK(eval("1 + 2 * 3") == 7.0);
  CHECK(eval("(1 + 2) * 3") == 9.0);
  CHECK(eval("2 ^ 3 ^ 2") == 512.0);  // right-associative
  CHECK(eval("-x ^ 2") == -4.0);      // as in mathematics: -(x^2)
  CHECK(eval("2 ^ -1") == 0.5);
  CHECK(eval("y ^ 2") == 9.0);        // integer powers of negative numbers
  CHECK(eval("alpha*x - x*y") == doctest::Approx(0.5 + 6.0));
  CHECK(eval("10 / 4 / 5") == doctest::Approx(0.5));
  CHECK(eval("min(x, y) + max(x, y)") == -1.0);
  CHECK(eval("pow(x, 0.5)") == doctest::Approx(std::sqrt(2.0)));
  CHECK(eval("exp(log(x)) + log10(100) + sqrt(4) + abs(y)") == doctest::Approx(2 + 2 + 2 + 3));
  CHECK(eval("sin(pi/2) + cos(0) + tan(0) + tanh(0)") == doctest::Approx(2.0));
  CHECK(eval("e") == doctest::Approx(std::exp(1.0)));
  CHECK(eval("1.5e-3 * 2") == doctest::Approx(3e-3));
  CHECK(eval("t") == 0.5);
}

TEST_CASE("inverse trigonometric, hyperbolic and error functions") {
  // x = 2, y = -3, alpha = 0.25
  CHECK(eval("atan(alpha)") == std::atan(0.25));
  CHECK(eval("asin(alpha) + acos(alpha)") == std::asin(0.25) + std::acos(0.25));
  CHECK(eval("sinh(y) - cosh(x)") == std::sinh(-3.0) - std::cosh(2.0));
  CHECK(eval("erf(alpha*x)") == std::erf(0.5));
  CHECK(eval("atan2(y, x)") == std::atan2(-3.0, 2.0));
  CHECK(eval("atan2(x, y)") == std::atan2(2.0, -3.0));  // argument order: (y, x)
  CHECK(eval("atan2(-1, x) + atan2(y, -1)") == std::atan2(-1.0, 2.0) + std::atan2(-3.0, -1.0));
  // Constant arguments are folded, to what evaluation would give.
  CHECK(eval("atan2(1, -1) + erf(0.5) + sinh(1)") == std::atan2(1.0, -1.0) + std::erf(0.5) + std::sinh(1.0));
  CHECK(Expression::parse("atan2(1, -1) * asin(0.5) * cosh(2)", kNames).program().ops.size() == 1);
  CHECK(Expression::parse("acos(x - x + 0.5) + atan(1)", kNames).program().ops.size() > 1);
}

TEST_CASE("Dual evaluation differentiates the expression") {
  using D = Dual<double, 2>;
  const Expression f = Expression::parse("alpha*x^2*sin(t) + exp(-alpha)", kNames);
  std::vector<D> v = {D(0.5), D::variable(2.0, 0), D(-3.0), D::variable(0.25, 1)};
  const D r = f.evaluate(v.data());
  CHECK(r.d[0] == doctest::Approx(2 * 0.25 * 2.0 * std::sin(0.5)));
  CHECK(r.d[1] == doctest::Approx(4.0 * std::sin(0.5) - std::exp(-0.25)));
  CHECK(f.uses(1));
  CHECK_FALSE(f.uses(2));
}

TEST_CASE("gradient() by reverse mode agrees with Dual derivatives") {
  // One expression reading three segments and every kind of operation, at points where
  // each branch (min, max, abs) goes both ways; the Dual seeds one lane per variable.
  ExpressionScope scope;
  scope.add_segment({"t"});
  scope.add_segment({"x", "y", "z"});
  scope.add_segment({"k", "m"});
  scope.add_constant("c", 1.5);
  const Expression f = Expression::parse(
      "k*x*y - m/z + y^3 + x^-2 + c*sin(t*x) + exp(-k*z) + log(abs(y)) + sqrt(x) "
      "+ min(x, y)*max(z, k) + abs(y - z) + pow(x, z) + 2^m + atan2(y, x) + atan(z) "
      "+ asin(m/4) + acos(k/3) + sinh(z) + cosh(y/2) + erf(x - z) + tanh(y) "
      "+ tan(z/3) + cos(y) + log10(x) + 3/z - (1 - y) + x/2.5 + x^1.5",
      scope);
  using D = Dual<double, 5>;
  std::vector<double> tape;
  const double points[][6] = {{0.3, 1.2, -0.7, 0.9, 0.4, 1.1},
                              {1.7, 0.5, 2.2, 1.3, 1.9, -0.8},
                              {-0.4, 2.5, 1.1, 0.2, 0.1, 2.0}};
  for (const auto& point : points) {
    const double t = point[0], y[3] = {point[1], point[2], point[3]}, p[2] = {point[4], point[5]};
    const D td(t), yd[3] = {D::variable(y[0], 0), D::variable(y[1], 1), D::variable(y[2], 2)},
                   pd[2] = {D::variable(p[0], 3), D::variable(p[1], 4)};
    const D* dual_segments[] = {&td, yd, pd};
    const D expected = f.evaluate_segments(dual_segments);

    const double* segments[] = {&t, y, p};
    double dy[3] = {9, 9, 9}, dp[2] = {9, 9};  // overwritten, not added to
    double* gradients[] = {nullptr, dy, dp};
    const double value = f.gradient(segments, gradients, tape);
    CHECK(value == f.evaluate_segments(segments));
    CHECK(value == expected.v);
    CHECK(tape.size() == f.program().ops.size());
    for (int i = 0; i < 5; ++i) {
      CAPTURE(i);
      const double reverse = i < 3 ? dy[i] : dp[i - 3];
      CHECK(reverse == doctest::Approx(expected.d[i]).epsilon(1e-13));
    }
  }
}

TEST_CASE("errors give the column and list known names") {
  struct Case {
    const char* text;
    std::size_t column;
    const char* words;
  };
  const Case cases[] = {
      {"x + z", 5, "unknown name 'z' (known: t, x, y, alpha, pi, e)"},
      {"x +", 4, "operand is missing"},
      {"(x + y", 7, "')' expected"},
      {"x y", 3, "unexpected 'y'"},
      {"sinc(x)", 1, "unknown function 'sinc'"},
      {"min(x)", 6, "two arguments"},
      {"x $ y", 3, "unexpected '$'"},
      {"", 1, "empty"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    try {
      Expression::parse(c.text, kNames);
      FAIL("parsed");
    } catch (const ExpressionError& error) {
      CHECK(error.column() == c.column);
      CHECK(std::string(error.what()).find(c.words) != std::string::npos);
    }
  }
}

TEST_CASE("segments: variables read from separate arrays, constants folded in") {
  ExpressionScope scope;
  scope.add_segment({"t"});
  scope.add_segment({"x", "y"});
  scope.add_segment({"k"});
  scope.add_constant("N", 1000.0);
  const Expression f = Expression::parse("k*x/N - y + t", scope);
  const double t = 2.0, y[2] = {3.0, 0.5}, p[1] = {4.0};
  const double* segments[] = {&t, y, p};
  CHECK(f.evaluate_segments(segments) == 4.0 * 3.0 / 1000.0 - 0.5 + 2.0);
  CHECK(f.uses(1, 0));
  CHECK(f.uses(2, 0));
  CHECK_FALSE(f.uses(0, 1));
  try {
    Expression::parse("x + q", scope);
    FAIL("parsed");
  } catch (const ExpressionError& error) {
    CHECK(std::string(error.what()) == "unknown name 'q' (known: t, x, y, k, N, pi, e)");
  }
}

TEST_CASE("names that cannot be declared") {
  ExpressionScope scope({"x"});
  CHECK_FALSE(scope.problem_with("y_2").has_value());
  CHECK(scope.problem_with("x")->find("declared twice") != std::string::npos);
  CHECK(scope.problem_with("sin")->find("built-in function") != std::string::npos);
  CHECK(scope.problem_with("pi")->find("built-in function or constant") != std::string::npos);
  CHECK(scope.problem_with("2x")->find("not a name") != std::string::npos);
  CHECK(scope.problem_with("")->find("not a name") != std::string::npos);
  CHECK_THROWS_AS(scope.add_constant("e", 1.0), std::invalid_argument);
  CHECK_THROWS_AS(scope.add_segment({"z", "z"}), std::invalid_argument);
}

TEST_CASE("the single-instruction and folded forms compute what the plain forms do") {
  // Each pair differs only in how it is compiled: `x op variable`, `x op constant`,
  // constant subexpressions folded. Values and tangents must agree bitwise.
  const std::pair<const char*, const char*> pairs[] = {
      {"x*y - alpha/x + y^3", "(x)*(y) - (alpha)/(x) + pow(y, 3 + 0*t)"},
      {"x*2.5 + x/3 - x^-2 + x - 0.5", "x*(2.5+0*t) + x/(3+0*t) - x^(-2+0*t) + x - (0.5+0*t)"},
      {"-(2*3)*x + sqrt(4)*y", "-((2+0*t)*(3+0*t))*x + sqrt(4+0*t)*y"},
      {"min(x, 1) + max(alpha, y)", "min(x, 1+0*t) + max(alpha, y)"},
  };
  using D = Dual<double, 2>;
  const std::vector<D> v = {D(0.5), D::variable(2.0, 0), D(-3.0), D::variable(0.25, 1)};
  for (const auto& [fast, plain] : pairs) {
    CAPTURE(fast);
    const Expression a = Expression::parse(fast, kNames), b = Expression::parse(plain, kNames);
    CHECK(a.program().ops.size() < b.program().ops.size());
    const D ra = a.evaluate(v.data()), rb = b.evaluate(v.data());
    CHECK(ra.v == rb.v);
    CHECK(ra.d[0] == rb.d[0]);
    CHECK(ra.d[1] == rb.d[1]);
    CHECK(eval(fast) == eval(plain));
  }
}

TEST_CASE("more variables than stack slots") {
  std::vector<std::string> names;
  std::string sum = "v0";
  std::vector<double> values = {1.0};
  names.push_back("v0");
  for (int i = 1; i < 200; ++i) {
    std::string name = "v";  // += : GCC 12 misreports "literal" + string (-Wrestrict)
    name += std::to_string(i);
    names.push_back(name);
    values.push_back(double(i + 1));
    (sum += " + ") += name;
  }
  CHECK(Expression::parse(sum, names).evaluate(values.data()) == 200.0 * 201.0 / 2);
}

TEST_CASE("comparisons, and, or, if: values, precedence and the branch's derivative") {
  // x = 2, y = -3, alpha = 0.25
  CHECK(eval("x > y") == 1.0);
  CHECK(eval("x < y") == 0.0);
  CHECK(eval("x >= 2 and y <= -3") == 1.0);
  CHECK(eval("x == 2") == 1.0);
  CHECK(eval("x != 2 or alpha > 0") == 1.0);
  CHECK(eval("x > 1 and y > 0 or alpha < 1") == 1.0);  // and binds tighter than or
  CHECK(eval("1 + (x > 1)") == 2.0);
  CHECK(eval("x + 1 > 2.5") == 1.0);                     // arithmetic binds tighter
  CHECK(eval("if(x > 1, 10, 20)") == 10.0);
  CHECK(eval("if(x < 1, 10, 20)") == 20.0);
  CHECK(eval("if(1, x, y) + if(0, x, y)") == -1.0);      // constant conditions fold
  CHECK(eval("if(y > 0, log(y), 1)") == 1.0);            // the branch not taken may be NaN
  const Expression e = Expression::parse("if(x > 1 and y < 0, x*x*alpha, y)", kNames);
  std::vector<double> values{0.5, 2.0, -3.0, 0.25}, gradient(4), tape;
  const double* segments[] = {values.data()};
  double* gradients[] = {gradient.data()};
  CHECK(e.gradient(segments, gradients, tape) == 1.0);
  CHECK(gradient == std::vector<double>{0.0, 2 * 2.0 * 0.25, 0.0, 4.0});
  values[2] = 1.0;  // the other branch
  CHECK(e.gradient(segments, gradients, tape) == 1.0);
  CHECK(gradient == std::vector<double>{0.0, 0.0, 1.0, 0.0});
  CHECK_THROWS_WITH_AS(eval("0 < x < 3"), doctest::Contains("do not chain"), ExpressionError);
  CHECK_THROWS_WITH_AS(eval("if(x, 1)"), doctest::Contains("three arguments"), ExpressionError);
  CHECK_THROWS_AS(ExpressionScope({"and"}), std::invalid_argument);
}

TEST_CASE("fields: elements by grid indices, sum and mean, with their reverse mode") {
  ExpressionScope scope({"t"});
  scope.add_segment({});
  scope.add_field("u", {1, 0, {2, 3}});  // segment 1 holds u, 2 x 3
  std::vector<double> field{1, 2, 3, 4, 5, 6};
  const double t = 0.0;
  const double* segments[] = {&t, field.data()};
  const Expression e = Expression::parse("u[1, 2] * u[0, 1] + mean(u) + sum(u)", scope);
  CHECK(e.evaluate_segments(segments) == 6 * 2 + 3.5 + 21);
  std::vector<double> gradient(6, 9.0), tape;  // stale values must go
  double* gradients[] = {nullptr, gradient.data()};
  e.gradient(segments, gradients, tape);
  const double each = 1.0 / 6 + 1;
  CHECK(gradient == std::vector<double>{each, each + 6, each, each, each, each + 2});
  CHECK(e.uses(1, 4));
  CHECK_THROWS_WITH_AS(Expression::parse("u + 1", scope), doctest::Contains("is a field: give grid indices (u[0, 0])"),
                       ExpressionError);
  CHECK_THROWS_WITH_AS(Expression::parse("u[2, 0]", scope), doctest::Contains("outside the grid (axis 0 has 2"),
                       ExpressionError);
  CHECK_THROWS_WITH_AS(Expression::parse("u[1]", scope), doctest::Contains("',' expected"), ExpressionError);
  CHECK_THROWS_WITH_AS(Expression::parse("sum(u, u)", scope), doctest::Contains("takes one field"), ExpressionError);
}

TEST_CASE("operators: names as arguments, resolved by the scope to variables") {
  ExpressionScope scope({"u", "lap_u"});
  scope.set_operators({"lap"}, [](std::string_view, const std::vector<std::string>& arguments) {
    if (arguments.size() != 1 || arguments[0] != "u") throw std::invalid_argument("lap() takes one field");
    return ExpressionScope::Name{false, 0, 1, 0.0};
  });
  const std::vector<double> values{2.0, 7.0};
  CHECK(Expression::parse("3*lap(u) + u", scope).evaluate(values.data()) == 23.0);
  try {
    Expression::parse("1 + lap(u, u)", scope);
    FAIL("no error");
  } catch (const ExpressionError& error) {
    CHECK(std::string(error.what()) == "lap() takes one field");
    CHECK(error.column() == 5);
  }
}
