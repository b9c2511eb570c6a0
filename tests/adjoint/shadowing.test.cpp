// Shadowing sensitivities of long-time averages (NILSS) against independent references:
// a forced damped oscillator's closed form, a finite difference of the limit cycle
// averages of Van der Pol, and a finite difference of Lorenz-63's long-time averages over
// independent runs, with its error bar.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "adjoint/shadowing.hpp"
#include "tests/adjoint/shadowing_systems.hpp"
#include "models/builtin/registry.hpp"

using namespace backsweep;
using namespace backsweep::test;

namespace {

// The long-time average of J by a plain forward run (after `spin_up`), over `duration`,
// Hann-weighted: a periodic signal's window then ends smoothly (an error that falls
// like 1/T^3, not 1/T as where the window cuts a period).
template <Model M, class Running>
double long_time_average(const M& model, std::vector<double> y, const std::vector<double>& p, const Running& J,
                         double step, double spin_up, double duration) {
  IntegrateOptions options;
  options.step = step;
  options.t1 = spin_up;
  options.max_steps = std::size_t(1) << 40;
  ExplicitRK<M, double> stepper(model, tableaux::rk4);
  REQUIRE(integrate(stepper, y.data(), p.data(), options).ok());
  options.t0 = spin_up;
  options.t1 = spin_up + duration;
  double sum = 0.0, weights = 0.0;
  REQUIRE(integrate(stepper, y.data(), p.data(), options, [](double, const double*) {},
                    [&](const StepInterval& s, const double* state) {
                      const double w = std::pow(std::sin(std::numbers::pi * (s.t_next - spin_up) / duration), 2);
                      sum += w * J(s.t_next, state, p.data());
                      weights += w;
                    })
              .ok());
  return sum / weights;
}

}  // namespace

TEST_CASE("a stable forced system: shadowing with no unstable direction is the plain tangent") {
  const ForcedOscillator model;
  ShadowingOptions options;
  options.unstable = 0;
  options.project_flow = false;  // forced in time: no neutral direction
  options.step = 2.0 * std::numbers::pi / 200.0;
  options.segment_length = 2.0 * std::numbers::pi;  // a period a segment
  options.segments = 200;
  options.spin_up = 0.0;
  const double c = 0.5;
  const std::vector<double> y0{0.0, 1.0 / c};  // on the periodic orbit at t = 0
  auto shadow = [&](double damping) {
    const ShadowingResult r = shadowing_gradient(model, tableaux::rk4, y0, {damping}, Square{0}, {0}, options);
    REQUIRE(r.ok());
    return r;
  };
  const ShadowingResult r = shadow(c);
  // Without unstable directions and without spin-up, it is the tangent of the discrete
  // mean: a central difference of the mean agrees to its own truncation.
  const double delta = 1e-5;
  CHECK(r.gradient[0] == doctest::Approx((shadow(c + delta).average - shadow(c - delta).average) / (2 * delta))
                             .epsilon(1e-7));
  // And the closed form d<x^2>/dc = -1/c^3, within the tangent's transient (it starts at 0
  // and decays like exp(-c t / 2)), which the error estimate covers.
  MESSAGE("forced oscillator d<x^2>/dc: " << r.gradient[0] << " +- " << r.error[0] << ", exact " << -1 / (c * c * c));
  CHECK(r.average == doctest::Approx(1.0 / (2.0 * c * c)).epsilon(1e-6));
  CHECK(std::abs(r.gradient[0] * c * c * c + 1.0) < 0.01);
  CHECK(std::abs(r.gradient[0] + 1.0 / (c * c * c)) < 3.0 * r.error[0]);
}

TEST_CASE("a limit cycle: the time dilation term gives the derivative of the average") {
  // Van der Pol, mu = 1: a stable limit cycle whose period depends on mu. The plain
  // tangent grows along the orbit (the phase drifts); shadowing projects that out, and
  // the time dilation term puts it back in the average (0.111401 against 0.111391; with
  // J taken at the jump rather than half a step on, 0.11199, off by O(h)).
  const models::VanDerPol model;
  const std::vector<double> p{1.0};
  ShadowingOptions options;
  options.unstable = 0;
  options.step = 0.01;
  options.segment_length = 5.0;
  options.segments = 800;
  options.spin_up = 50.0;
  const ShadowingResult r = shadowing_gradient(model, tableaux::rk4, {2.0, 0.0}, p, Square{0}, {0}, options);
  REQUIRE(r.ok());
  const double delta = 0.02, T = 5000.0;
  const double above = long_time_average(model, {2.0, 0.0}, {1.0 + delta}, Square{0}, options.step, 50.0, T);
  const double below = long_time_average(model, {2.0, 0.0}, {1.0 - delta}, Square{0}, options.step, 50.0, T);
  const double reference = (above - below) / (2.0 * delta);
  MESSAGE("Van der Pol d<x^2>/dmu: shadowing " << r.gradient[0] << " +- " << r.error[0] << ", finite difference "
                                               << reference);
  CHECK(std::abs(r.gradient[0] / reference - 1.0) < 1e-3);
  CHECK(std::abs(r.gradient[0] - reference) < 3.0 * r.error[0]);
}

TEST_CASE("Lorenz-63: d<z>/drho by shadowing against a finite difference of long-time averages") {
  const models::Lorenz63 model;
  const std::vector<double> p{10.0, 28.0, 8.0 / 3.0};
  ShadowingOptions options;
  options.unstable = 1;
  options.step = 0.005;
  options.segment_length = 1.0;
  options.segments = 400;
  options.spin_up = 20.0;
  const ShadowingResult r = shadowing_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, p, Coordinate{2}, {1}, options);
  REQUIRE(r.ok());
  // The reference: <z> at rho +- 1 over independent runs, their spread its error bar.
  const std::size_t runs = 8;
  std::vector<double> slopes;
  for (std::size_t k = 0; k < runs; ++k) {
    const std::vector<double> y0{1.0 + double(k), 1.0, 1.0};
    const double above = long_time_average(model, y0, {10.0, 29.0, 8.0 / 3.0}, Coordinate{2}, 0.005, 20.0, 2000.0);
    const double below = long_time_average(model, y0, {10.0, 27.0, 8.0 / 3.0}, Coordinate{2}, 0.005, 20.0, 2000.0);
    slopes.push_back((above - below) / 2.0);
  }
  double mean = 0.0, spread = 0.0;
  for (double s : slopes) mean += s / double(runs);
  for (double s : slopes) spread += (s - mean) * (s - mean);
  const double reference_error = std::sqrt(spread / double(runs - 1) / double(runs));
  MESSAGE("Lorenz-63 d<z>/drho: shadowing " << r.gradient[0] << " +- " << r.error[0] << " (" << r.steps
                                            << " steps), finite difference " << mean << " +- " << reference_error);
  // Within the reference's error bar here; bench/shadowing_lorenz.bench.cpp measures
  // both further (1.017 against 1.002: Lorenz-63 is not uniformly hyperbolic).
  CHECK(std::abs(r.gradient[0] - mean) < 3.0 * std::hypot(r.error[0], reference_error));
  CHECK(std::abs(r.gradient[0] / mean - 1.0) < 0.03);
  CHECK(r.error[0] < 0.01);
  // Its shadowing direction stays bounded: no segment's far above the median.
  CHECK(r.direction_median[0] > 0.1);
  CHECK(r.direction_largest[0] < 3.0 * r.direction_median[0]);
  CHECK(r.direction_largest_at[0] >= 20.0);
  CHECK(r.direction_largest_at[0] < 20.0 + 400.0);
}

TEST_CASE("Lorenz-96: the shadowing direction grows without bound where the attractor is far from hyperbolic") {
  // N = 40, F = 8: 13 positive exponents, and stretches of unstable dimension variability
  // (bench/shadowing_lorenz96.bench.cpp) where the direction grows a thousandfold.
  std::vector<double> x0(40, 8.0);
  x0[19] += 1.0;
  ShadowingOptions options;
  options.unstable = 13;
  options.step = 0.01;
  options.segments = 1000;
  options.spin_up = 50.0;
  const ShadowingResult r = shadowing_gradient(Lorenz96{}, tableaux::rk4, x0, {8.0}, Square{0}, {0}, options);
  REQUIRE(r.ok());
  MESSAGE("Lorenz-96 shadowing direction: median " << r.direction_median[0] << ", largest " << r.direction_largest[0]
                                                   << " at t = " << r.direction_largest_at[0]);
  CHECK(r.direction_largest[0] > 100.0 * r.direction_median[0]);
  CHECK(r.error[0] > 0.1 * std::abs(r.gradient[0]));  // the estimate says the result is not to be trusted
}

TEST_CASE("shadowing refuses what it cannot do") {
  const models::Lorenz63 model;
  ShadowingOptions options;
  options.unstable = 8;
  const ShadowingResult r =
      shadowing_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, Coordinate{2}, {1}, options);
  CHECK(r.status == IntegrateStatus::invalid_options);

  // Too few directions for Lorenz-96's 13: what is left of v* grows every segment, and the
  // run stops before it overflows into the least squares.
  std::vector<double> x0(40, 8.0);
  x0[19] += 1.0;
  options.unstable = 3;
  options.step = 0.01;
  options.segments = 400;
  const ShadowingResult few = shadowing_gradient(Lorenz96{}, tableaux::rk4, x0, {8.0}, Square{0}, {0}, options);
  CHECK(few.status == IntegrateStatus::non_finite_state);
  CHECK(few.message.find("more directions are unstable than the 3 shadowed") != std::string::npos);
}

TEST_CASE("more tangents than one run carries: the segment runs again for the rest, the results as one run's") {
  // Eight copies of rho and one unstable direction: nine tangents, two runs a segment.
  const models::Lorenz63 model;
  const std::vector<double> p{10.0, 28.0, 8.0 / 3.0};
  ShadowingOptions options;
  options.unstable = 1;
  options.segments = 40;
  const ShadowingResult one = shadowing_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, p, Coordinate{2}, {1}, options);
  const ShadowingResult nine = shadowing_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, p, Coordinate{2},
                                                  std::vector<std::size_t>(8, 1), options);
  REQUIRE(one.ok());
  REQUIRE(nine.ok());
  CHECK(nine.average == one.average);
  for (std::size_t j = 0; j < 8; ++j) {
    CHECK(nine.gradient[j] == one.gradient[0]);
    CHECK(nine.error[j] == one.error[0]);
  }
}
