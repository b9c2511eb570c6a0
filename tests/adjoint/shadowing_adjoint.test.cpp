// Shadowing by the adjoint (adjoint/shadowing_adjoint.hpp) against NILSS, the tangent it
// transposes, on the same trajectory: equal to round-off with unstable directions
// (Lorenz-63, every parameter at once; Lorenz-96 with 13, more than one run's lanes),
// with none (Van der Pol's limit cycle), and on a system forced in time (no flow
// direction).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "adjoint/shadowing_adjoint.hpp"
#include "models/builtin/registry.hpp"
#include "tests/adjoint/shadowing_systems.hpp"

using namespace backsweep;
using namespace backsweep::test;

namespace {

struct SquareNorm {  // J = |y|^2 / n, and a parameter of its own: J depends on p directly too
  std::size_t n;
  template <class T>
  T operator()(T, const T* y, const T* p) const {
    T sum = p[0] * 0.01;
    for (std::size_t i = 0; i < n; ++i) sum = sum + y[i] * y[i];
    return sum * (1.0 / double(n));
  }
};

void check_equal(const ShadowingResult& tangent, const ShadowingResult& adjoint, double tolerance) {
  REQUIRE(tangent.ok());
  REQUIRE(adjoint.ok());
  CHECK(adjoint.average == tangent.average);
  REQUIRE(adjoint.gradient.size() == tangent.gradient.size());
  double largest = 0.0;
  for (std::size_t j = 0; j < tangent.gradient.size(); ++j)
    largest = std::max(largest, std::abs(adjoint.gradient[j] / tangent.gradient[j] - 1.0));
  MESSAGE("largest relative difference " << largest);
  for (std::size_t j = 0; j < tangent.gradient.size(); ++j) {
    CAPTURE(j);
    CAPTURE(tangent.gradient[j]);
    CAPTURE(adjoint.gradient[j]);
    CHECK(std::abs(adjoint.gradient[j] - tangent.gradient[j]) <= tolerance * std::abs(tangent.gradient[j]));
  }
}

}  // namespace

TEST_CASE("Lorenz-63: the adjoint gives NILSS's d<z>/dp for every parameter at once, to round-off") {
  const models::Lorenz63 model;
  const std::vector<double> p{10.0, 28.0, 8.0 / 3.0};
  ShadowingOptions options;
  options.unstable = 1;
  options.segments = 200;
  options.spin_up = 20.0;
  const std::vector<std::size_t> all{0, 1, 2};
  const ShadowingResult tangent = shadowing_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, p, Coordinate{2}, all, options);
  const ShadowingResult adjoint =
      shadowing_adjoint_gradient(model, tableaux::rk4, {1.0, 1.0, 1.0}, p, Coordinate{2}, all, options);
  MESSAGE("Lorenz-63 d<z>/d(sigma, rho, beta): NILSS " << tangent.gradient[0] << ", " << tangent.gradient[1] << ", "
                                                       << tangent.gradient[2] << "; adjoint " << adjoint.gradient[0]
                                                       << ", " << adjoint.gradient[1] << ", " << adjoint.gradient[2]);
  check_equal(tangent, adjoint, 1e-10);
  CHECK(std::abs(adjoint.gradient[1] - 1.0) < 0.05);
  // The error estimates batch differently (where dp enters, where J is measured): alike
  // (0.0039 and 0.0077 here).
  MESSAGE("error estimates for rho: NILSS " << tangent.error[1] << ", adjoint " << adjoint.error[1]);
  CHECK(adjoint.error[1] < 3.0 * tangent.error[1]);
  CHECK(adjoint.error[1] > tangent.error[1] / 3.0);
  // An implicit method's reverse too.
  options.segments = 20;
  check_equal(shadowing_gradient(model, *find_method("sdirk2"), {1.0, 1.0, 1.0}, p, Coordinate{2}, all, options),
              shadowing_adjoint_gradient(model, *find_method("sdirk2"), {1.0, 1.0, 1.0}, p, Coordinate{2}, all, options),
              1e-9);
}

TEST_CASE("Lorenz-96: thirteen unstable directions, two runs of lanes a segment, and J reading p") {
  std::vector<double> x0(40, 8.0);
  x0[19] += 1.0;
  ShadowingOptions options;
  options.unstable = 13;
  options.step = 0.01;
  options.segments = 40;
  options.spin_up = 50.0;
  check_equal(shadowing_gradient(Lorenz96{}, tableaux::rk4, x0, {8.0}, SquareNorm{40}, {0}, options),
              shadowing_adjoint_gradient(Lorenz96{}, tableaux::rk4, x0, {8.0}, SquareNorm{40}, {0}, options), 1e-9);
}

TEST_CASE("no unstable direction: a limit cycle, and a system forced in time") {
  const models::VanDerPol model;
  ShadowingOptions options;
  options.unstable = 0;
  options.step = 0.01;
  options.segment_length = 5.0;
  options.segments = 40;
  options.spin_up = 50.0;
  check_equal(shadowing_gradient(model, tableaux::rk4, {2.0, 0.0}, {1.0}, Coordinate{0}, {0}, options),
              shadowing_adjoint_gradient(model, tableaux::rk4, {2.0, 0.0}, {1.0}, Coordinate{0}, {0}, options), 1e-10);
  options.project_flow = false;
  check_equal(shadowing_gradient(ForcedOscillator{}, tableaux::rk4, {0.0, 0.0}, {0.5}, SquareNorm{2}, {0}, options),
              shadowing_adjoint_gradient(ForcedOscillator{}, tableaux::rk4, {0.0, 0.0}, {0.5}, SquareNorm{2}, {0}, options),
              1e-10);
}

TEST_CASE("too few directions: the sweep back stops before its adjoint overflows") {
  std::vector<double> x0(40, 8.0);
  x0[19] += 1.0;
  ShadowingOptions options;
  options.unstable = 3;  // of Lorenz-96's 13
  options.step = 0.01;
  options.segments = 400;
  options.spin_up = 50.0;
  const ShadowingResult r = shadowing_adjoint_gradient(Lorenz96{}, tableaux::rk4, x0, {8.0}, Square{0}, {0}, options);
  CHECK(r.status == IntegrateStatus::non_finite_state);
  CHECK(r.message.find("the adjoint grew beyond 1e100") != std::string::npos);
  CHECK(r.message.find("more directions are unstable than the 3 shadowed") != std::string::npos);
}
