#include "solvers/butcher_tableau.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <functional>
#include <vector>

using namespace backsweep;

namespace {

using Vec = std::vector<double>;

struct Conditions {
  const ButcherTableau& t;
  Vec mul(const Vec& x, const Vec& y) const {
    Vec r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r[i] = x[i] * y[i];
    return r;
  }
  Vec A(const Vec& x) const {
    Vec r(x.size(), 0.0);
    for (int i = 0; i < t.stages; ++i)
      for (int j = 0; j < t.stages; ++j) r[i] += t.a[i][j] * x[j];
    return r;
  }
  static double dot(const Vec& w, const Vec& x) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += w[i] * x[i];
    return s;
  }
};

// Largest violation of the order conditions of order `order` (Butcher trees up to 5)
// for weights w.
double violation(const ButcherTableau& t, const Vec& w, int order) {
  Conditions k{t};
  const Vec one(t.stages, 1.0), c(t.c, t.c + t.stages);
  const Vec c2 = k.mul(c, c), c3 = k.mul(c2, c), Ac = k.A(c);
  std::vector<std::pair<double, double>> conditions;  // (value, expected)
  auto add = [&](const Vec& v, double expected) { conditions.push_back({k.dot(w, v), expected}); };
  if (order == 1) add(one, 1.0);
  if (order == 2) add(c, 1.0 / 2);
  if (order == 3) {
    add(c2, 1.0 / 3);
    add(Ac, 1.0 / 6);
  }
  if (order == 4) {
    add(c3, 1.0 / 4);
    add(k.mul(c, Ac), 1.0 / 8);
    add(k.A(c2), 1.0 / 12);
    add(k.A(Ac), 1.0 / 24);
  }
  if (order == 5) {
    add(k.mul(c3, c), 1.0 / 5);
    add(k.mul(c2, Ac), 1.0 / 10);
    add(k.mul(Ac, Ac), 1.0 / 20);
    add(k.mul(c, k.A(c2)), 1.0 / 15);
    add(k.mul(c, k.A(Ac)), 1.0 / 30);
    add(k.A(c3), 1.0 / 20);
    add(k.A(k.mul(c, Ac)), 1.0 / 40);
    add(k.A(k.A(c2)), 1.0 / 60);
    add(k.A(k.A(Ac)), 1.0 / 120);
  }
  double worst = 0;
  for (auto [value, expected] : conditions) worst = std::max(worst, std::abs(value - expected));
  return worst;
}

}  // namespace

TEST_CASE("every tableau satisfies the order conditions of its stated order") {
  for (const ButcherTableau* t : tableaux::all) {
    CAPTURE(t->name);
    for (int i = 0; i < t->stages; ++i) {
      double row = 0;
      for (int j = 0; j < t->stages; ++j) {
        row += t->a[i][j];
        if (j >= i) CHECK(t->a[i][j] == 0.0);  // explicit
      }
      CHECK(row == doctest::Approx(t->c[i]).epsilon(1e-14));
    }
    const Vec b(t->b, t->b + t->stages);
    for (int q = 1; q <= t->order; ++q) {
      CAPTURE(q);
      CHECK(violation(*t, b, q) < 1e-13);
    }
    // The stated order is the true one: the next order's conditions fail.
    if (t->order < 5) CHECK(violation(*t, b, t->order + 1) > 1e-3);
    if (t->adaptive()) {
      Vec b_hat(t->stages);
      for (int i = 0; i < t->stages; ++i) b_hat[i] = t->b[i] - t->e[i];
      for (int q = 1; q <= t->embedded_order; ++q) CHECK(violation(*t, b_hat, q) < 1e-13);
      CHECK(violation(*t, b_hat, t->embedded_order + 1) > 1e-6);
    }
    if (t->fsal)
      for (int j = 0; j < t->stages; ++j) CHECK(t->a[t->stages - 1][j] == t->b[j]);
  }
}
