#include "models/derivatives.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "models/builtin/diffusion_1d.hpp"
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

namespace {

// A chain of run-time size that asks for its pattern to be detected, with a max whose
// branch flips with the state.
struct Chain {
  static constexpr bool detect_sparsity = true;
  std::size_t n;
  std::size_t state_size() const { return n; }
  std::size_t param_size() const { return 2; }
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::max, std::sin;
    for (std::size_t i = 0; i < n; ++i)
      dydt[i] = -p[0] * max(y[i], T(0.5) * y[(i + 2) % n]) +
                p[1] * sin(y[(i + 1) % n]) * y[(i + n - 1) % n];
  }
};

// Counts every call of the model on any scalar.
template <class M>
struct Counted : M {
  std::size_t* calls;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    ++*calls;
    M::operator()(t, y, p, dydt);
  }
};

template <class M>
void check_vjp_against_dense(const M& model, double tolerance) {
  const std::size_t n = state_size(model), np = param_size(model);
  const std::vector<double> y = point(n, 0.3), p = point(np, 0.9), lambda = point(n, 1.7);
  Derivatives<M> derivatives(model);
  std::vector<double> got(n + np), want(n + np);
  derivatives.vjp(0.2, y.data(), p.data(), lambda.data(), got.data(), got.data() + n);
  derivatives.derived_vjp(0.2, y.data(), p.data(), lambda.data(), want.data(), want.data() + n);
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t k = 0; k < n + np; ++k) CHECK(got[k] == doctest::Approx(want[k]).scale(scale).epsilon(tolerance));
}

}  // namespace

TEST_CASE("each model's VJP is taken the cheapest exact way, and says which") {
  const models::Lorenz63 lorenz;
  const models::VanDerPol van_der_pol;
  CHECK(Derivatives<models::Lorenz63>(lorenz).method() == VjpMethod::hand_written);
  CHECK(Derivatives<models::VanDerPol>(van_der_pol).method() == VjpMethod::dense);
  const models::Diffusion1D diffusion(50);
  CHECK(Derivatives<models::Diffusion1D>(diffusion).method() == VjpMethod::sparse);
  const Chain chain{200};
  CHECK(Derivatives<Chain>(chain).method() == VjpMethod::sparse);
  // Whichever the way, the VJP is the dense Dual-derived one.
  check_vjp_against_dense(diffusion, 1e-14);
  check_vjp_against_dense(chain, 1e-14);
  // max depends on both operands in a detected pattern: the branch taken where the
  // pattern was found need not be the one taken later.
  Derivatives<Chain> derivatives(chain);
  std::vector<double> y(200, 1.0), p = {0.7, 0.3}, lambda(200, 1.0), vjp_y(200), vjp_p(2),
      want_y(200), want_p(2);
  derivatives.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());
  for (std::size_t i = 0; i < 200; i += 2) y[i] = -1.0;  // the other branch where i is even
  derivatives.vjp(0.0, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());
  derivatives.derived_vjp(0.0, y.data(), p.data(), lambda.data(), want_y.data(), want_p.data());
  for (std::size_t i = 0; i < 200; ++i) CHECK(vjp_y[i] == doctest::Approx(want_y[i]).epsilon(1e-14));
}

TEST_CASE("a declared sparsity pattern makes a VJP cost one model call, at n = 100000") {
  std::size_t calls = 0;
  const Counted<models::Diffusion1D> model{models::Diffusion1D(100'000), &calls};
  const std::size_t n = model.state_size();
  Derivatives<Counted<models::Diffusion1D>> derivatives(model);
  REQUIRE(derivatives.method() == VjpMethod::sparse);
  std::vector<double> y = point(n, 0.1), lambda = point(n, 2.0), vjp_y(n), vjp_p(2);
  const double p[2] = {0.7, 0.3};
  derivatives.vjp(0.0, y.data(), p, lambda.data(), vjp_y.data(), vjp_p.data());  // sets up
  calls = 0;
  derivatives.vjp(0.0, y.data(), p, lambda.data(), vjp_y.data(), vjp_p.data());
  MESSAGE("one sparse VJP: " << calls << " model call(s)");
  CHECK(calls <= 5);
  // Against the stencil by hand: (lambdaᵀ f_y)_i = c (lambda_{i-1} - 2 lambda_i + lambda_{i+1}) - k lambda_i.
  const double c = p[0] / (model.dx() * model.dx());
  for (std::size_t i : {std::size_t(1), std::size_t(4321), n / 2, n - 2}) {
    const double expected = c * (lambda[i - 1] - 2 * lambda[i] + lambda[i + 1]) - p[1] * lambda[i];
    CHECK(vjp_y[i] == doctest::Approx(expected).epsilon(1e-10));
  }
}

TEST_CASE("the Brusselator's hand-written VJP and declared pattern are exact") {
  const models::Brusselator1D model(7);  // the ends' boundary terms and an interior
  std::vector<double> y = model.default_initial();
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += 0.1 * std::sin(double(i));
  const double p[3] = {1.1, 2.9, 0.03};
  const auto report = check_derivatives(model, 0.0, y.data(), p);
  CAPTURE(report.message);
  CHECK(report.ok);
  CHECK(report.vjp_error < 1e-13);
  // The declared pattern is valid and covers every entry the model reads.
  const SparsityPattern declared = model.sparsity(), detected = detect_sparsity(model, 0.0, y.data(), p);
  CHECK(declared.is_valid());
  for (std::size_t i = 0; i < declared.rows; ++i)
    for (std::uint32_t column : detected.row(i)) {
      CAPTURE(i);
      CAPTURE(column);
      CHECK(std::ranges::count(declared.row(i), column) == 1);
    }
  CHECK(Derivatives<models::Brusselator1D>(model).method() == VjpMethod::hand_written);
}
