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
      {"sinh(x)", 1, "unknown function 'sinh'"},
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
