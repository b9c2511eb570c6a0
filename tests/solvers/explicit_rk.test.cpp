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

TEST_CASE("the stepper exposes the stage states and slopes of the last step") {
  const HarmonicOscillator model;
  ExplicitRK stepper(model, tableaux::rk4);
  const double y[2] = {1.0, 0.5};
  double y_next[2];
  const double h = 0.1;
  stepper.step_keeping_stages(0.0, h, y, model.default_params.data(), y_next);
  for (int i = 0; i < 4; ++i) {
    double slope[2];
    model(0.0 + tableaux::rk4.c[i] * h, stepper.stage_state(i), model.default_params.data(), slope);
    CHECK(slope[0] == stepper.stage_slope(i)[0]);
    CHECK(slope[1] == stepper.stage_slope(i)[1]);
  }
  // Y_3 = y + h k_2 for RK4.
  CHECK(stepper.stage_state(3)[0] == doctest::Approx(y[0] + h * stepper.stage_slope(2)[0]));
  CHECK(stepper.rhs_evaluations() == 4);
}

TEST_CASE("FSAL reuse gives bitwise the same steps as recomputing the first slope") {
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  ExplicitRK reusing(model, tableaux::dopri5), fresh(model, tableaux::dopri5);
  double a[2] = {1.0, 0.0}, b[2] = {1.0, 0.0}, next[2];
  for (int n = 0; n < 20; ++n) {
    reusing.step(0.1 * n, 0.1, a, p, next);
    reusing.accept();
    a[0] = next[0], a[1] = next[1];
    fresh.step(0.1 * n, 0.1, b, p, next);
    b[0] = next[0], b[1] = next[1];
  }
  CHECK(a[0] == b[0]);
  CHECK(a[1] == b[1]);
  CHECK(reusing.rhs_evaluations() == 1 + 20 * 6);
  CHECK(fresh.rhs_evaluations() == 20 * 7);
}

TEST_CASE("a compile-time tableau gives bitwise the same solution as a run-time one") {
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  auto compare = [&]<const ButcherTableau* Tableau>() {
    CAPTURE(Tableau->name);
    ExplicitRK<HarmonicOscillator, double, Tableau> fixed(model);
    ExplicitRK<HarmonicOscillator> runtime(model, *Tableau);
    IntegrateOptions options;
    options.t1 = 3.0;
    options.step = Tableau->adaptive() ? 0.0 : 0.01;
    double a[2] = {1.0, 0.0}, b[2] = {1.0, 0.0};
    const auto ra = integrate(fixed, a, p, options), rb = integrate(runtime, b, p, options);
    CHECK(ra.steps == rb.steps);
    CHECK(a[0] == b[0]);
    CHECK(a[1] == b[1]);
    // Keeping the stages does not change the step either.
    double c[2], d[2];
    fixed.step(0.0, 0.1, a, p, c);
    fixed.step_keeping_stages(0.0, 0.1, a, p, d);
    CHECK(c[0] == d[0]);
    CHECK(c[1] == d[1]);
  };
  compare.operator()<&tableaux::euler>();
  compare.operator()<&tableaux::heun>();
  compare.operator()<&tableaux::kutta3>();
  compare.operator()<&tableaux::heun3>();
  compare.operator()<&tableaux::rk4>();
  compare.operator()<&tableaux::ssprk3>();
  compare.operator()<&tableaux::bs32>();
  compare.operator()<&tableaux::dopri5>();
  compare.operator()<&tableaux::tsit5>();
}
