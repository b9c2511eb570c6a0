#include "models/dual.hpp"

#include <doctest/doctest.h>

#include <cmath>

using backsweep::Dual;
using D = Dual<double, 2>;

namespace {
// Derivative of f at x by the Dual in lane 0, against the closed form.
template <class F>
double dual_derivative(F f, double x) {
  return f(D::variable(x, 0)).d[0];
}
}  // namespace

TEST_CASE("arithmetic follows the product and quotient rules") {
  const D x = D::variable(3.0, 0), y = D::variable(2.0, 1);
  const D f = x * y + x / y - 2.0 * x + 1.0;
  CHECK(f.v == doctest::Approx(3 * 2 + 1.5 - 6 + 1));
  CHECK(f.d[0] == doctest::Approx(2 + 0.5 - 2));     // df/dx = y + 1/y - 2
  CHECK(f.d[1] == doctest::Approx(3 - 3.0 / 4.0));  // df/dy = x - x/y^2
  const D g = -x - y;
  CHECK(g.d[0] == -1.0);
  CHECK(g.d[1] == -1.0);
}

TEST_CASE("elementary functions have the right derivatives") {
  using std::cos, std::exp, std::log, std::sin, std::sqrt, std::tanh, std::pow;
  const double x = 0.7;
  CHECK(dual_derivative([](D a) { return sqrt(a); }, x) == doctest::Approx(0.5 / sqrt(x)));
  CHECK(dual_derivative([](D a) { return exp(a); }, x) == doctest::Approx(exp(x)));
  CHECK(dual_derivative([](D a) { return log(a); }, x) == doctest::Approx(1 / x));
  CHECK(dual_derivative([](D a) { return log10(a); }, x) ==
        doctest::Approx(1 / (x * log(10.0))));
  CHECK(dual_derivative([](D a) { return sin(a); }, x) == doctest::Approx(cos(x)));
  CHECK(dual_derivative([](D a) { return cos(a); }, x) == doctest::Approx(-sin(x)));
  CHECK(dual_derivative([](D a) { return tan(a); }, x) ==
        doctest::Approx(1 / (cos(x) * cos(x))));
  CHECK(dual_derivative([](D a) { return tanh(a); }, x) ==
        doctest::Approx(1 - tanh(x) * tanh(x)));
  CHECK(dual_derivative([](D a) { return pow(a, 3.0); }, x) == doctest::Approx(3 * x * x));
  CHECK(dual_derivative([](D a) { return pow(2.0, a); }, x) ==
        doctest::Approx(log(2.0) * pow(2.0, x)));
  CHECK(dual_derivative([](D a) { return pow(a, a); }, x) ==
        doctest::Approx(pow(x, x) * (log(x) + 1)));
  CHECK(dual_derivative([](D a) { return abs(-a); }, x) == doctest::Approx(1.0));
  CHECK(dual_derivative([](D a) { return max(a, D(0.5)); }, x) == doctest::Approx(1.0));
  CHECK(dual_derivative([](D a) { return min(a, D(0.5)); }, x) == doctest::Approx(0.0));
}

TEST_CASE("pow with a constant exponent stays finite for negative bases") {
  const D f = pow(D::variable(-2.0, 0), D(2.0));
  CHECK(f.v == doctest::Approx(4.0));
  CHECK(f.d[0] == doctest::Approx(-4.0));
}

TEST_CASE("nested Duals give second derivatives") {
  using Inner = Dual<double, 1>;
  using Outer = Dual<Inner, 1>;
  // f(x) = x^3 sin(x): f'' = 6x sin x + 6x^2 cos x - x^3 sin x.
  const double x0 = 1.3;
  Outer x(Inner::variable(x0, 0));
  x.d[0] = Inner(1.0);
  const Outer f = x * x * x * sin(x);
  const double expected = 6 * x0 * std::sin(x0) + 6 * x0 * x0 * std::cos(x0) -
                          x0 * x0 * x0 * std::sin(x0);
  CHECK(f.d[0].d[0] == doctest::Approx(expected).epsilon(1e-14));
  CHECK(backsweep::value_of(f) == doctest::Approx(x0 * x0 * x0 * std::sin(x0)));
}

TEST_CASE("isfinite looks at every lane") {
  D x = D::variable(1.0, 0);
  CHECK(isfinite(x));
  x.d[1] = NAN;
  CHECK_FALSE(isfinite(x));
}
