#include "models/dual.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <numbers>

using backsweep::Dual;
using backsweep::value_of;
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

TEST_CASE("inverse trigonometric, hyperbolic and error functions") {
  using std::acos, std::asin, std::atan, std::atan2, std::cosh, std::erf, std::sinh, std::sqrt;
  // Against central differences (error about h^2 times the third derivative, far below
  // the tolerance) and against the closed forms.
  const double h = 1e-5;
  const auto check = [&](auto f, double x, double closed_form) {
    const double central = (value_of(f(D(x + h))) - value_of(f(D(x - h)))) / (2 * h);
    CHECK(dual_derivative(f, x) == doctest::Approx(central).epsilon(1e-8));
    CHECK(dual_derivative(f, x) == doctest::Approx(closed_form).epsilon(1e-15));
  };
  for (const double x : {-0.6, 0.3, 0.85}) {
    CAPTURE(x);
    check([](D a) { return atan(a); }, x, 1 / (1 + x * x));
    check([](D a) { return asin(a); }, x, 1 / sqrt(1 - x * x));
    check([](D a) { return acos(a); }, x, -1 / sqrt(1 - x * x));
    check([](D a) { return sinh(a); }, x, std::cosh(x));
    check([](D a) { return cosh(a); }, x, std::sinh(x));
    check([](D a) { return erf(a); }, x, 2 / sqrt(std::numbers::pi) * std::exp(-x * x));
    check([](D a) { return atan2(a, D(-1.7)); }, x, -1.7 / (x * x + 1.7 * 1.7));
    check([](D a) { return atan2(0.4, a); }, x, -0.4 / (x * x + 0.4 * 0.4));
    check([](D a) { return atan2(a, 2.0); }, x, 2.0 / (x * x + 4.0));
  }
  CHECK(atan(D(0.5)).v == std::atan(0.5));
  CHECK(erf(D(0.5)).v == std::erf(0.5));
  CHECK(atan2(D(-1.0), D(-2.0)).v == std::atan2(-1.0, -2.0));  // the quadrant is kept
}

TEST_CASE("atan2 differentiates in both arguments at once") {
  const double x0 = -0.8, y0 = 1.1;
  const D x = D::variable(x0, 0), y = D::variable(y0, 1);
  const D f = atan2(y, x);
  const double r2 = x0 * x0 + y0 * y0;
  CHECK(f.d[0] == doctest::Approx(-y0 / r2).epsilon(1e-15));
  CHECK(f.d[1] == doctest::Approx(x0 / r2).epsilon(1e-15));
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

TEST_CASE("nested Duals give second derivatives of the new functions") {
  using Inner = Dual<double, 1>;
  using Outer = Dual<Inner, 1>;
  const auto second = [](auto f, double x0) {
    Outer x(Inner::variable(x0, 0));
    x.d[0] = Inner(1.0);
    const Outer r = f(x);
    CHECK(r.d[0].v == r.v.d[0]);  // both lanes carry f'
    return r.d[0].d[0];
  };
  using std::sqrt;
  const double x = 0.4, e2 = 1 - x * x;
  // erf'' = -4x/sqrt(pi) exp(-x^2); atan'' = -2x/(1+x^2)^2; asin'' = x/(1-x^2)^(3/2);
  // acos'' = -asin''; sinh'' = sinh; cosh'' = cosh; d^2/dy^2 atan2(y, c) = -2cy/(y^2+c^2)^2.
  CHECK(second([](Outer a) { return erf(a); }, x) ==
        doctest::Approx(-4 * x / sqrt(std::numbers::pi) * std::exp(-x * x)).epsilon(1e-14));
  CHECK(second([](Outer a) { return atan(a); }, x) ==
        doctest::Approx(-2 * x / ((1 + x * x) * (1 + x * x))).epsilon(1e-14));
  CHECK(second([](Outer a) { return asin(a); }, x) ==
        doctest::Approx(x / (e2 * sqrt(e2))).epsilon(1e-14));
  CHECK(second([](Outer a) { return acos(a); }, x) ==
        doctest::Approx(-x / (e2 * sqrt(e2))).epsilon(1e-14));
  CHECK(second([](Outer a) { return sinh(a); }, x) == doctest::Approx(std::sinh(x)).epsilon(1e-14));
  CHECK(second([](Outer a) { return cosh(a); }, x) == doctest::Approx(std::cosh(x)).epsilon(1e-14));
  const double c = 0.7, r2 = x * x + c * c;
  CHECK(second([&](Outer a) { return atan2(a, c); }, x) ==
        doctest::Approx(-2 * c * x / (r2 * r2)).epsilon(1e-14));
}

TEST_CASE("isfinite looks at every lane") {
  D x = D::variable(1.0, 0);
  CHECK(isfinite(x));
  x.d[1] = NAN;
  CHECK_FALSE(isfinite(x));
}
