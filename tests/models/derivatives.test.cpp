#include "models/derivatives.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "models/builtin/registry.hpp"
#include "models/derivative_check.hpp"

using namespace backsweep;

namespace {

// Central finite-difference Jacobian columns of f with respect to [y, p]: the
// independent reference for the Dual-derived Jacobian.
template <class M>
std::vector<double> fd_jacobian(const M& model, double t, std::vector<double> y,
                                std::vector<double> p) {
  const std::size_t n = y.size(), np = p.size();
  std::vector<double> jacobian(n * (n + np)), fp(n), fm(n);
  for (std::size_t column = 0; column < n + np; ++column) {
    double& x = column < n ? y[column] : p[column - n];
    const double x0 = x, h = 1e-6 * std::max(1.0, std::abs(x0));
    x = x0 + h;
    model(t, y.data(), p.data(), fp.data());
    x = x0 - h;
    model(t, y.data(), p.data(), fm.data());
    x = x0;
    for (std::size_t i = 0; i < n; ++i)
      (column < n ? jacobian[i * n + column] : jacobian[n * n + i * np + column - n]) =
          (fp[i] - fm[i]) / (2 * h);
  }
  return jacobian;
}

// A model with more than kDerivativeLanes columns, so derivatives take several chunks.
struct CoupledChain {
  static constexpr std::size_t n_state = 7, n_param = 4;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::sin;
    for (std::size_t i = 0; i < n_state; ++i)
      dydt[i] = -p[i % 4] * y[i] * y[(i + 1) % n_state] + sin(t * y[(i + 3) % n_state]);
  }
};

// Lorenz-63 whose hand-written VJP forgets the -beta*z term's parameter derivative.
struct LorenzWithWrongVjp : models::Lorenz63 {
  void vjp(double t, const double* y, const double* p, const double* l, double* vjp_y,
           double* vjp_p) const {
    models::Lorenz63::vjp(t, y, p, l, vjp_y, vjp_p);
    vjp_p[2] = 0.0;
  }
};

std::vector<double> point(std::size_t n, double offset) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.5 + 0.3 * std::cos(double(i) + offset);
  return v;
}

}  // namespace

TEST_CASE_TEMPLATE("Dual-derived Jacobian and the VJP are exact and consistent", M,
                   models::Lorenz63, models::VanDerPol, models::LotkaVolterra,
                   models::HarmonicOscillator, models::Robertson, CoupledChain) {
  const M model;
  const std::size_t n = state_size(model), np = param_size(model);
  std::vector<double> y = point(n, 0.2), p = point(np, 1.0);
  if constexpr (requires { M::default_params; }) p.assign(M::default_params.begin(), M::default_params.end());
  Derivatives<M> derivatives(model);
  const double t = 0.3;

  std::vector<double> jacobian(n * (n + np));
  derivatives.derived_jacobian(t, y.data(), p.data(), jacobian.data(), jacobian.data() + n * n);
  const std::vector<double> reference = fd_jacobian(model, t, y, p);
  double scale = 1.0;
  for (double x : reference) scale = std::max(scale, std::abs(x));
  for (std::size_t k = 0; k < jacobian.size(); ++k)
    CHECK(jacobian[k] == doctest::Approx(reference[k]).scale(scale).epsilon(1e-7));

  // lambdaᵀ (J v) == (lambdaᵀ J) v: the VJP (whichever way it is taken) against the
  // Jacobian.
  const std::vector<double> vy = point(n, 2.0), vp = point(np, 3.0), lambda = point(n, 4.0);
  std::vector<double> vjp_y(n), vjp_p(np);
  derivatives.vjp(t, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());
  double left = 0, right = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double jv = 0;
    for (std::size_t k = 0; k < n; ++k) jv += jacobian[i * n + k] * vy[k];
    for (std::size_t j = 0; j < np; ++j) jv += jacobian[n * n + i * np + j] * vp[j];
    left += lambda[i] * jv;
  }
  for (std::size_t i = 0; i < n; ++i) right += vjp_y[i] * vy[i];
  for (std::size_t j = 0; j < np; ++j) right += vjp_p[j] * vp[j];
  CHECK(left == doctest::Approx(right).epsilon(1e-13));
}

TEST_CASE("the checker accepts Lorenz-63's hand-written derivatives") {
  const models::Lorenz63 model;
  const double y[3] = {1.2, -0.4, 20.0};
  const auto report = check_derivatives(model, 0.0, y, model.default_params.data());
  CHECK(report.ok);
  CHECK(report.vjp_error >= 0.0);
  CHECK(report.vjp_error < 1e-14);
  CHECK(report.jacobian_error < 1e-14);
}

TEST_CASE("the checker catches a wrong hand-written VJP") {
  const LorenzWithWrongVjp model;
  const double y[3] = {1.2, -0.4, 20.0};
  const auto report = check_derivatives(model, 0.0, y, model.default_params.data());
  CHECK_FALSE(report.ok);
  CHECK(report.vjp_error == doctest::Approx(1.0));  // a whole term is missing
  CHECK(report.message.find("vjp entry 5") != std::string::npos);
}

TEST_CASE("hand-written derivatives are the ones used") {
  const LorenzWithWrongVjp model;
  Derivatives<LorenzWithWrongVjp> derivatives(model);
  const double y[3] = {1.2, -0.4, 20.0}, lambda[3] = {0.0, 0.0, 1.0};
  double vjp_y[3], vjp_p[3], derived_y[3], derived_p[3];
  derivatives.vjp(0.0, y, model.default_params.data(), lambda, vjp_y, vjp_p);
  derivatives.derived_vjp(0.0, y, model.default_params.data(), lambda, derived_y, derived_p);
  CHECK(vjp_p[2] == 0.0);
  CHECK(derived_p[2] == doctest::Approx(-20.0));
}
