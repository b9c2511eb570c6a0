#include "solvers/explicit_rk.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/harmonic_oscillator.hpp"
#include "solvers/integrate.hpp"

using namespace backsweep;
using models::HarmonicOscillator;

namespace {

// Global error at T = 5 of fixed-step integration with step h, against the closed form.
double global_error(const ButcherTableau& tableau, double h) {
  const HarmonicOscillator model;
  ExplicitRK stepper(model, tableau);
  IntegrateOptions options;
  options.t1 = 5.0;
  options.step = h;
  std::vector<double> y(model.default_initial.begin(), model.default_initial.end());
  const auto result = integrate(stepper, y.data(), model.default_params.data(), options);
  REQUIRE(result.ok());
  const auto exact = HarmonicOscillator::exact(5.0, model.default_initial.data(),
                                               model.default_params.data());
  return std::max(std::abs(y[0] - exact[0]), std::abs(y[1] - exact[1]));
}

}  // namespace

TEST_CASE("every tableau converges at its order: error falls by 2^p when h halves") {
  for (const ButcherTableau* tableau : tableaux::all) {
    CAPTURE(tableau->name);
    // Coarsest step per order; halve while the error stays clear of the round-off floor
    // (~1e-15 here, since the tableau coefficients are rounded to double).
    const double h0 = std::array{0.0, 0.01, 0.02, 0.05, 0.1, 0.05}[tableau->order];
    std::vector<double> log_h, log_error;
    for (int k = 0; k < 5; ++k) {
      const double h = h0 / std::pow(2.0, k), error = global_error(*tableau, h);
      if (error < 1e-14) break;
      log_h.push_back(std::log2(h));
      log_error.push_back(std::log2(error));
    }
    REQUIRE(log_h.size() >= 3);
    // Least-squares slope of log2(error) against log2(h).
    double mean_x = 0, mean_y = 0;
    for (std::size_t i = 0; i < log_h.size(); ++i) {
      mean_x += log_h[i] / double(log_h.size());
      mean_y += log_error[i] / double(log_h.size());
    }
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < log_h.size(); ++i) {
      sxy += (log_h[i] - mean_x) * (log_error[i] - mean_y);
      sxx += (log_h[i] - mean_x) * (log_h[i] - mean_x);
    }
    const double fitted_order = sxy / sxx;
    CAPTURE(fitted_order);
    CHECK(std::abs(fitted_order - tableau->order) <= 0.2);
  }
}

TEST_CASE("FSAL reuse gives bitwise the same steps as recomputing the first slope") {
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  ExplicitRK reusing(model, tableaux::dopri5), fresh(model, tableaux::dopri5);
  double a[2] = {1.0, 0.0}, b[2] = {1.0, 0.0}, next[2];
  for (std::size_t n = 0; n < 20; ++n) {
    const StepInterval step = uniform_step(0.0, 0.1, n);
    reusing.step(step, a, p, next);
    reusing.accept();
    a[0] = next[0], a[1] = next[1];
    fresh.restart();
    fresh.step(step, b, p, next);
    b[0] = next[0], b[1] = next[1];
  }
  CHECK(a[0] == b[0]);
  CHECK(a[1] == b[1]);
  CHECK(reusing.rhs_evaluations() == 1 + 20 * 6);
  CHECK(fresh.rhs_evaluations() == 20 * 7);
}

namespace {

// Time-dependent on purpose: a slope evaluated at the wrong time shows.
struct Forced {
  static constexpr std::size_t n_state = 2, n_param = 2;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::sin;
    dydt[0] = y[1] + p[1] * sin(T(3) * t);
    dydt[1] = -p[0] * y[0] * y[1] + sin(t) * y[0];
  }
};

}  // namespace

TEST_CASE("reverse() is the exact transpose of the step, for every tableau") {
  // Reference: the step run on Dual numbers seeded on (y, p) gives dPhi/d(y, p) exactly.
  const Forced model;
  using D = Dual<double, 4>;
  const double y[2] = {0.7, -0.4}, p[2] = {1.3, 0.6}, lambda_next[2] = {0.9, -1.7};
  const StepInterval step{0.3, 0.05, 0.35};
  for (const ButcherTableau* tableau : tableaux::all) {
    CAPTURE(tableau->name);
    ExplicitRK<Forced, D> tangent(model, *tableau);
    D yd[2] = {D::variable(y[0], 0), D::variable(y[1], 1)};
    D pd[2] = {D::variable(p[0], 2), D::variable(p[1], 3)};
    D next[2];
    tangent.step(step, yd, pd, next);
    double expected[4] = {};  // (lambda_n, mu)
    for (int column = 0; column < 4; ++column)
      for (int i = 0; i < 2; ++i) expected[column] += lambda_next[i] * next[i].d[column];

    ExplicitRK<Forced> stepper(model, *tableau);
    double lambda[2] = {lambda_next[0], lambda_next[1]}, mu[2] = {NAN, NAN};
    stepper.reverse(step, y, p, lambda, mu);
    const double got[4] = {lambda[0], lambda[1], mu[0], mu[1]};
    for (int column = 0; column < 4; ++column)
      CHECK(got[column] == doctest::Approx(expected[column]).epsilon(1e-14));
    // The stage states come back from y_n alone, with no slope of the last stage; a FSAL
    // tableau's last stage takes no adjoint (b_s = 0), so neither its state nor the slope
    // only it reads is needed, and it takes no VJP.
    CHECK(stepper.rhs_evaluations() == std::size_t(tableau->stages - (tableau->fsal ? 2 : 1)));
    CHECK(stepper.vjp_evaluations() == std::size_t(tableau->stages - (tableau->fsal ? 1 : 0)));
  }
}
