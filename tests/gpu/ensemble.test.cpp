// Ensembles on Thrust's OpenMP system: 10^4 Lorenz-63 members (initial states and
// parameters spread around the classic ones), J = z(1), with fixed RK4 steps and with
// adaptive Dormand-Prince steps (each member its own step sequence): every member's
// value and gradient equal a serial run of the CPU engine bitwise.
#include <doctest/doctest.h>

#include <vector>

#include "gpu/ensemble.hpp"
#include "models/builtin/lorenz63.hpp"
#include "tests/gpu/backend_checks.hpp"

using namespace backsweep;
using testing::FinalZ;
using testing::spread_lorenz_members;

namespace {

void check_against_serial(const GradientProblem<models::Lorenz63, Objective<FinalZ>>& problem) {
  const auto members = spread_lorenz_members(10000);
  const auto results = gpu::ensemble_gradients(problem, members);
  REQUIRE(results.size() == members.size());
  std::size_t equal = 0, steps_differ = 0;
  for (std::size_t b = 0; b < members.size(); ++b) {
    const auto serial = gradient<double>(problem, members[b].y0, members[b].p);
    REQUIRE(serial.ok());
    REQUIRE(results[b].ok());
    if (results[b].value == serial.value && results[b].dJ_dp == serial.dJ_dp &&
        results[b].dJ_dy0 == serial.dJ_dy0 && results[b].diagnostics.steps == serial.diagnostics.steps)
      ++equal;
    if (results[b].diagnostics.steps != results[0].diagnostics.steps) ++steps_differ;
  }
  CHECK(equal == members.size());
  if (problem.integrate.step == 0.0) CHECK(steps_differ > 0);  // each member its own steps
}

}  // namespace

TEST_CASE("Ensemble of 10^4 Lorenz-63 members, fixed RK4 steps: each member = a serial run, bitwise") {
  const models::Lorenz63 model;
  IntegrateOptions options;
  options.step = 0.01;
  check_against_serial({model, tableaux::rk4, {}, {}, Objective<FinalZ>{}, options});
}

TEST_CASE("Ensemble of 10^4 Lorenz-63 members, adaptive Dormand-Prince: each member = a serial run") {
  const models::Lorenz63 model;
  IntegrateOptions options;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  check_against_serial({model, tableaux::dopri5, {}, {}, Objective<FinalZ>{}, options});
}

TEST_CASE("Ensembles refuse disk checkpoints, which members would share") {
  const models::Lorenz63 model;
  CheckpointOptions checkpointing;
  checkpointing.schedule = CheckpointOptions::Schedule::two_level;
  const auto results = gpu::ensemble_gradients(
      GradientProblem<models::Lorenz63, Objective<FinalZ>>{model, tableaux::rk4, {}, {}, Objective<FinalZ>{}, {}},
      spread_lorenz_members(3), checkpointing);
  for (const auto& result : results) {
    CHECK_FALSE(result.ok());
    CHECK(result.message.find("no disk level") != std::string::npos);
  }
}
