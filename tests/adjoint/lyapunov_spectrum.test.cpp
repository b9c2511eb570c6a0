// Lyapunov exponents by Benettin's method against published and exact values: the
// Lorenz-63 spectrum, the constant trace of its Jacobian, a linear system whose
// exponents are its eigenvalues, and the Kaplan-Yorke dimension.
#include "adjoint/lyapunov_spectrum.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "models/builtin/registry.hpp"

using namespace backsweep;

TEST_CASE("Lorenz-63: the published spectrum 0.9056, 0, -14.572") {
  const models::Lorenz63 model;
  LyapunovOptions options;
  options.exponents = 3;
  options.step = 0.01;
  options.transient = 100.0;
  options.duration = 2000.0;
  const LyapunovResult r =
      lyapunov_spectrum(model, tableaux::rk4, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, options);
  REQUIRE(r.ok());
  REQUIRE(r.exponents.size() == 3);
  MESSAGE("exponents " << r.exponents[0] << " +- " << r.standard_errors[0] << ", "
                       << r.exponents[1] << " +- " << r.standard_errors[1] << ", "
                       << r.exponents[2] << " +- " << r.standard_errors[2]
                       << "; Kaplan-Yorke " << r.kaplan_yorke_dimension);
  CHECK(std::abs(r.exponents[0] / 0.9056 - 1.0) <= 0.01);
  CHECK(std::abs(r.exponents[1]) <= 0.01);
  CHECK(std::abs(r.exponents[2] / -14.572 - 1.0) <= 0.01);
  const double sum = r.exponents[0] + r.exponents[1] + r.exponents[2];
  CHECK(std::abs(sum / -(10.0 + 1.0 + 8.0 / 3.0) - 1.0) <= 0.005);
  // The standard errors are honest: the published value lies within a few of them.
  CHECK(std::abs(r.exponents[0] - 0.9056) <= 4.0 * r.standard_errors[0] + 1e-3);
  CHECK(r.standard_errors[0] > 0.0);
  CHECK(r.kaplan_yorke_dimension == doctest::Approx(2.06).epsilon(0.01));
  // The history converges to the final estimate.
  REQUIRE(r.history_times.size() >= 100);
  CHECK(r.history_times.back() == doctest::Approx(2000.0));
  CHECK(r.history[r.history.size() - 3] == r.exponents[0]);
  CHECK(r.steps == 210000);
}

namespace {

// y' = diag(-1, -3) rotated: a linear system, exponents -1 and -3 exactly.
struct Linear {
  static constexpr std::size_t n_state = 2, n_param = 0;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const {
    dydt[0] = -T(2) * y[0] + y[1];
    dydt[1] = y[0] - T(2) * y[1];
  }
};

}  // namespace

TEST_CASE("a linear system's exponents are its eigenvalues") {
  LyapunovOptions options;
  options.exponents = 2;
  options.step = 0.01;
  options.transient = 10.0;  // the vectors align with the eigenvectors
  options.duration = 50.0;
  const LyapunovResult r = lyapunov_spectrum(Linear{}, tableaux::rk4, {1.0, 0.5}, {}, options);
  REQUIRE(r.ok());
  // RK4's amplification of exp(-h), exp(-3h), over h.
  auto rate = [](double z) { return std::log(1 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24) / 0.01; };
  CHECK(r.exponents[0] == doctest::Approx(rate(-0.01)).epsilon(1e-6));
  CHECK(r.exponents[1] == doctest::Approx(rate(-0.03)).epsilon(1e-6));
  CHECK(r.kaplan_yorke_dimension == 0.0);
}

TEST_CASE("CVODES' forward sensitivities as the tangent vectors") {
  LyapunovOptions options;
  options.exponents = 2;
  options.step = 0.1;  // the QR interval
  options.reorthonormalize_every = 1;
  options.transient = 10.0;
  options.duration = 50.0;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  for (const Method method : {Method(sundials_methods::cvodes_bdf), Method(sundials_methods::cvodes_adams)}) {
    CAPTURE(method.name());
    // The flow's exponents, -1 and -3, to the tolerances.
    const LyapunovResult linear = lyapunov_spectrum(Linear{}, method, {1.0, 0.5}, {}, options);
    REQUIRE(linear.ok());
    CHECK(linear.exponents[0] == doctest::Approx(-1.0).epsilon(1e-6));
    CHECK(linear.exponents[1] == doctest::Approx(-3.0).epsilon(1e-6));
    CHECK(linear.steps > 0);

    // Lorenz-63: the published spectrum within the standard errors, and the trace exactly.
    LyapunovOptions chaos = options;
    chaos.exponents = 3;
    chaos.transient = 20.0;
    chaos.duration = 300.0;
    chaos.rtol = 1e-8;
    chaos.atol = 1e-10;
    const LyapunovResult r =
        lyapunov_spectrum(models::Lorenz63{}, method, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, chaos);
    REQUIRE(r.ok());
    MESSAGE(method.name() << ": " << r.exponents[0] << " +- " << r.standard_errors[0] << ", "
                          << r.exponents[1] << ", " << r.exponents[2] << " in " << r.steps << " steps");
    CHECK(std::abs(r.exponents[0] - 0.9056) <= 4.0 * r.standard_errors[0] + 0.01);
    CHECK(std::abs(r.exponents[1]) <= 0.02);
    CHECK(std::abs(r.exponents[2] / -14.572 - 1.0) <= 0.01);
    CHECK(r.exponents[0] + r.exponents[1] + r.exponents[2] == doctest::Approx(-(10.0 + 1.0 + 8.0 / 3.0)).epsilon(1e-4));
  }
}

TEST_CASE("Kaplan-Yorke dimension and bad options") {
  CHECK(kaplan_yorke_dimension({0.9, 0.0, -14.6}) == doctest::Approx(2.0 + 0.9 / 14.6));
  CHECK(kaplan_yorke_dimension({0.5, 0.1}) == 2.0);
  CHECK(kaplan_yorke_dimension({-1.0}) == 0.0);
  LyapunovOptions options;
  options.exponents = 3;
  CHECK(lyapunov_spectrum(Linear{}, tableaux::rk4, {1.0, 0.5}, {}, options).status ==
        IntegrateStatus::invalid_options);
  options.exponents = 1;
  options.step = -1.0;
  CHECK(!lyapunov_spectrum(Linear{}, tableaux::rk4, {1.0, 0.5}, {}, options).ok());
}

namespace {
struct Blowup {  // y' = y^2 from 1 reaches infinity at t = 1
  static constexpr std::size_t n_state = 1, n_param = 0;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const {
    dydt[0] = y[0] * y[0];
  }
};
}  // namespace

TEST_CASE("a blow-up is reported with step, time and component") {
  LyapunovOptions options;
  options.step = 0.1;
  options.duration = 10.0;
  const LyapunovResult r = lyapunov_spectrum(Blowup{}, tableaux::rk4, {1.0}, {}, options);
  CHECK(r.status == IntegrateStatus::non_finite_state);
  REQUIRE(r.nonfinite);
  CHECK(r.nonfinite->component == 0);
  CHECK(r.nonfinite->step > 5);
}
