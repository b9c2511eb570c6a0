// Implicit Runge-Kutta: orders, embedded orders, Newton, and stiff problems an explicit
// method cannot take in few steps.
#include "solvers/implicit_rk.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "models/builtin/diffusion_1d.hpp"
#include "models/builtin/harmonic_oscillator.hpp"
#include "models/builtin/robertson.hpp"
#include "models/builtin/van_der_pol.hpp"
#include "solvers/dirk_tableaux.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"

using namespace backsweep;
using models::HarmonicOscillator;

namespace {

double global_error(const ButcherTableau& tableau, double h) {
  const HarmonicOscillator model;
  ImplicitRK stepper(model, tableau, NewtonOptions{1e-14, 1e-14});
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

// Least-squares slope of log2(value) against log2(h).
double slope(const std::vector<double>& log_h, const std::vector<double>& log_value) {
  double mean_x = 0, mean_y = 0, sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < log_h.size(); ++i) {
    mean_x += log_h[i] / double(log_h.size());
    mean_y += log_value[i] / double(log_h.size());
  }
  for (std::size_t i = 0; i < log_h.size(); ++i) {
    sxy += (log_h[i] - mean_x) * (log_value[i] - mean_y);
    sxx += (log_h[i] - mean_x) * (log_h[i] - mean_x);
  }
  return sxy / sxx;
}

}  // namespace

TEST_CASE("every implicit tableau converges at its order") {
  for (const ButcherTableau* tableau : tableaux::implicit_all) {
    CAPTURE(tableau->name);
    std::vector<double> log_h, log_error;
    for (int k = 0; k < 5; ++k) {
      const double h = 0.1 / std::pow(2.0, k), error = global_error(*tableau, h);
      if (error < 1e-12) break;
      log_h.push_back(std::log2(h));
      log_error.push_back(std::log2(error));
    }
    REQUIRE(log_h.size() >= 3);
    const double order = slope(log_h, log_error);
    MESSAGE(tableau->name << ": observed order " << order);
    CHECK(order == doctest::Approx(tableau->order).epsilon(0.1));
  }
}

TEST_CASE("embedded estimates are local errors of their order + 1") {
  const HarmonicOscillator model;
  for (const ButcherTableau* tableau : {&tableaux::esdirk3, &tableaux::sdirk4}) {
    CAPTURE(tableau->name);
    ImplicitRK stepper(model, *tableau, NewtonOptions{1e-15, 1e-15});
    std::vector<double> log_h, log_estimate;
    for (int k = 0; k < 4; ++k) {
      const double h = 0.2 / std::pow(2.0, k);
      double next[2], error[2];
      stepper.restart();
      stepper.step({0.0, h, h}, model.default_initial.data(), model.default_params.data(), next, error);
      log_h.push_back(std::log2(h));
      log_estimate.push_back(std::log2(std::hypot(error[0], error[1])));
    }
    const double order = slope(log_h, log_estimate);
    MESSAGE(tableau->name << ": estimate falls like h^" << order);
    CHECK(order == doctest::Approx(tableau->embedded_order + 1).epsilon(0.1));
  }
}

TEST_CASE("Robertson to t = 1e5: a few hundred implicit steps where explicit needs tens of thousands") {
  const models::Robertson model;
  IntegrateOptions options;
  options.t1 = 40.0;
  options.rtol = 1e-6;
  options.atol = 1e-10;
  std::vector<double> reference(model.default_initial.begin(), model.default_initial.end());
  {
    IntegrateOptions tight = options;
    tight.rtol = 1e-10;
    tight.atol = 1e-14;
    ImplicitRK stepper(model, tableaux::sdirk4);
    REQUIRE(integrate(stepper, reference.data(), model.default_params.data(), tight).ok());
  }
  std::size_t implicit_steps = 0;
  for (const ButcherTableau* tableau : {&tableaux::esdirk3, &tableaux::sdirk4}) {
    CAPTURE(tableau->name);
    ImplicitRK stepper(model, *tableau);
    std::vector<double> y(model.default_initial.begin(), model.default_initial.end());
    const auto result = integrate(stepper, y.data(), model.default_params.data(), options);
    REQUIRE(result.ok());
    for (int i = 0; i < 3; ++i) CHECK(std::abs(y[i] - reference[i]) <= 1e-5 * std::abs(reference[i]) + 1e-9);
    MESSAGE(tableau->name << ": " << result.steps << " steps, " << result.rejected_steps
                          << " rejected, " << stepper.jacobian_evaluations() << " Jacobians, "
                          << stepper.newton_iterations() << " Newton iterations");
    CHECK(result.steps < 400);
    implicit_steps = std::max(implicit_steps, result.steps);
  }
  ExplicitRK explicit_stepper(model, tableaux::dopri5);
  std::vector<double> y(model.default_initial.begin(), model.default_initial.end());
  const auto result = integrate(explicit_stepper, y.data(), model.default_params.data(), options);
  MESSAGE("dopri5: " << result.steps << " steps");
  CHECK(result.steps > 20 * implicit_steps);

  options.t1 = 1e5;
  ImplicitRK stepper(model, tableaux::sdirk4);
  std::vector<double> far(model.default_initial.begin(), model.default_initial.end());
  REQUIRE(integrate(stepper, far.data(), model.default_params.data(), options).ok());
  CHECK(far[0] + far[1] + far[2] == doctest::Approx(1.0).epsilon(1e-9));  // mass is conserved
}

TEST_CASE("Van der Pol with mu = 1000 over a relaxation period") {
  const models::VanDerPol model;
  const double mu[] = {1000.0};
  IntegrateOptions options;
  options.t1 = 3000.0;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  ImplicitRK stepper(model, tableaux::sdirk4);
  std::vector<double> y(model.default_initial.begin(), model.default_initial.end());
  const auto result = integrate(stepper, y.data(), mu, options);
  REQUIRE(result.ok());
  MESSAGE("sdirk4, mu = 1000, t = 3000: " << result.steps << " steps, " << result.rejected_steps << " rejected");
  CHECK(result.steps < 5000);
  CHECK(std::abs(y[0]) < 2.1);
}

TEST_CASE("methods name their family") {
  const Method method = tableaux::sdirk4;
  CHECK(method.implicit());
  CHECK(find_method("sdirk2")->traits().implicit);
  CHECK(find_method("backward_euler")->implicit());
  CHECK_FALSE(find_method("rk4")->implicit());
}

TEST_CASE("a sparse model: sparse Jacobians and LU, 10^4 unknowns, the exact discrete decay") {
  const std::size_t n = 10000;
  const models::Diffusion1D model(n);
  const double p[2] = {1.0, 0.5};
  std::vector<double> y(n);
  const double dx = model.dx(), pi = std::numbers::pi;
  for (std::size_t i = 0; i < n; ++i) y[i] = std::sin(pi * double(i + 1) * dx);
  IntegrateOptions options;
  options.t1 = 0.05;
  options.rtol = 1e-8;
  options.atol = 1e-12;
  ImplicitRK stepper(model, tableaux::sdirk4);
  const auto result = integrate(stepper, y.data(), p, options);
  REQUIRE(result.ok());
  // sin(pi x) is an eigenvector of the discrete Laplacian: it decays at D lambda_1 + k.
  const double lambda_1 = 4.0 / (dx * dx) * std::pow(std::sin(pi * dx / 2), 2);
  const double decay = std::exp(-(p[0] * lambda_1 + p[1]) * options.t1);
  double error = 0;
  for (std::size_t i = 0; i < n; ++i)
    error = std::max(error, std::abs(y[i] - decay * std::sin(pi * double(i + 1) * dx)));
  MESSAGE("n = 10^4, stiffness ratio " << 4.0 / (dx * dx) << ": " << result.steps << " steps, "
                                       << stepper.factorizations() << " sparse factorizations, error " << error);
  CHECK(error <= 1e-7);
  CHECK(result.steps < 200);
}

namespace {
// y' = y^2: backward Euler's stage equation Y = y + h Y^2 has no real root once 4 h y > 1.
struct Quadratic {
  static constexpr std::size_t n_state = 1, n_param = 0;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const { dydt[0] = y[0] * y[0]; }
};
}  // namespace

TEST_CASE("a stage equation without a solution is reported as Newton's failure, not as the model's") {
  const Quadratic model;
  ImplicitRK stepper(model, tableaux::backward_euler);
  IntegrateOptions options;
  options.t1 = 1.0;
  options.step = 0.5;
  std::vector<double> y = {1.0};
  const auto result = integrate(stepper, y.data(), nullptr, options);
  CHECK(result.status == IntegrateStatus::non_finite_state);
  CAPTURE(result.message);
  CHECK(result.message.find("Newton's iteration on the stage equations did not converge (h = 0.5)") == 0);
  CHECK(result.message.find("at step 0, t = 0") != std::string::npos);

  options.step = 0.1;  // 4 h y stays below 1 until y passes 2.5: some steps later, the same report
  options.t1 = 2.0;
  y = {1.0};
  const auto later = integrate(stepper, y.data(), nullptr, options);
  CHECK(later.status == IntegrateStatus::non_finite_state);
  CHECK(later.message.find("Newton's iteration") == 0);
  CHECK(later.failed_step > 0);
}
