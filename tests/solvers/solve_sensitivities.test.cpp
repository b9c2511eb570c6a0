// solve_sensitivities, the one forward-sensitivity entry for every method: our steppers
// (Dual lanes, kDerivativeLanes directions a solve) and CVODES (its forward
// sensitivities). Checked against central finite differences of solve_forward along each
// direction, at every output time and at t0; with more directions than lanes, each
// direction's slopes are bitwise those of a solve of that direction alone.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/lorenz63.hpp"
#include "solvers/solve.hpp"

using namespace backsweep;

namespace {

const std::vector<double> kY0{1.0, 2.0, 20.0}, kP{10.0, 28.0, 8.0 / 3.0};

// Twelve directions (more than one Dual chunk), each mixing initial states and parameters.
SensitivityDirections directions(std::size_t count) {
  SensitivityDirections d{count, std::vector<double>(count * 3), std::vector<double>(count * 3)};
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      d.initial[i * 3 + j] = std::sin(double(1 + i * 3 + j));
      d.parameters[i * 3 + j] = std::cos(double(2 + i * 5 + j)) * kP[j] * 0.1;
    }
  return d;
}

struct Outputs {
  std::vector<double> times, states, slopes;
};

Outputs sensitivities(const Method& method, const SensitivityDirections& d, const IntegrateOptions& options) {
  Outputs out;
  const IntegrateResult result = solve_sensitivities(
      models::Lorenz63{}, method, kY0.data(), kP.data(), d, options, [&](double t, const double* y, const double* s) {
        out.times.push_back(t);
        out.states.insert(out.states.end(), y, y + 3);
        out.slopes.insert(out.slopes.end(), s, s + d.count * 3);
      });
  REQUIRE(result.ok());
  return out;
}

// The states at t0 and the output times, from y0 + eps d0 and p + eps dp.
std::vector<double> states_along(const Method& method, const SensitivityDirections& d, std::size_t i, double eps,
                                 const IntegrateOptions& options) {
  std::vector<double> y(3), p(3), states;
  for (std::size_t j = 0; j < 3; ++j) {
    y[j] = kY0[j] + eps * d.initial[i * 3 + j];
    p[j] = kP[j] + eps * d.parameters[i * 3 + j];
  }
  REQUIRE(solve_forward(models::Lorenz63{}, method, y.data(), p.data(), options,
                        [&](double, const double* state) { states.insert(states.end(), state, state + 3); })
              .ok());
  return states;
}

void check_against_differences(const Method& method, const IntegrateOptions& options, double eps, double tolerance) {
  const SensitivityDirections d = directions(12);
  const Outputs out = sensitivities(method, d, options);
  REQUIRE(out.times.size() == options.output_times.size() + 1);
  CHECK(out.times.front() == options.t0);
  for (std::size_t i = 0; i < d.count; ++i) {
    const std::vector<double> plus = states_along(method, d, i, eps, options);
    const std::vector<double> minus = states_along(method, d, i, -eps, options);
    REQUIRE(plus.size() == out.states.size());
    for (std::size_t k = 0; k < out.times.size(); ++k)
      for (std::size_t j = 0; j < 3; ++j) {
        const double difference = (plus[k * 3 + j] - minus[k * 3 + j]) / (2 * eps);
        const double slope = out.slopes[(k * d.count + i) * 3 + j];
        CHECK(std::abs(slope - difference) <= tolerance * (1.0 + std::abs(difference)));
      }
  }
}

IntegrateOptions options_to(double end) {
  IntegrateOptions options;
  options.t1 = end;
  options.output_times = {0.25 * end, 0.5 * end, end};
  return options;
}

}  // namespace

TEST_CASE("solve_sensitivities on our steppers = central differences, t0 included") {
  IntegrateOptions options = options_to(0.5);
  options.step = 1e-3;
  check_against_differences(tableaux::rk4, options, 1e-6, 1e-7);
}

TEST_CASE("solve_sensitivities on CVODES = central differences") {
  IntegrateOptions options = options_to(0.5);
  options.rtol = 1e-11;
  options.atol = 1e-11;
  check_against_differences(sundials_methods::cvodes_bdf, options, 1e-5, 1e-5);
}

TEST_CASE("with more directions than lanes, each direction's slopes are those of its solve alone") {
  IntegrateOptions options = options_to(0.5);
  options.step = 1e-3;
  const SensitivityDirections all = directions(12);
  const Outputs together = sensitivities(tableaux::rk4, all, options);
  for (std::size_t i = 0; i < all.count; ++i) {
    const SensitivityDirections one{1, {all.initial.begin() + long(i * 3), all.initial.begin() + long(i * 3 + 3)},
                                    {all.parameters.begin() + long(i * 3), all.parameters.begin() + long(i * 3 + 3)}};
    const Outputs alone = sensitivities(tableaux::rk4, one, options);
    CHECK(alone.states == together.states);
    for (std::size_t k = 0; k < alone.times.size(); ++k)
      for (std::size_t j = 0; j < 3; ++j) CHECK(alone.slopes[k * 3 + j] == together.slopes[(k * all.count + i) * 3 + j]);
  }
}
