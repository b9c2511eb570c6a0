// Stability diagnostics of a gradient: a NaN that appears only in the backward sweep is
// reported at its step and component, and float32 checkpoints report what they cost in
// accuracy and save in memory.
#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/registry.hpp"

using namespace backsweep;

namespace {

// x' = 1 (a clock), z' = p sqrt(|x - 1/2|): every value is finite, but the slope of z
// with respect to x is infinite where a stage has x = 1/2 exactly. Heun's method with
// steps of 1/8 from 0 keeps the clock exact, so the first stage of step 4 (t = 1/2) is
// the first such stage the backward sweep meets.
struct KinkedClock {
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::abs, std::sqrt;
    dydt[0] = T(1);
    dydt[1] = p[0] * sqrt(abs(y[0] - T(0.5)));
  }
};
struct FinalZ {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[1];
  }
};

}  // namespace

TEST_CASE("a NaN in the backward sweep only is reported at its step and component") {
  const KinkedClock model;
  IntegrateOptions options;
  options.t1 = 1.0;
  options.step = 0.125;
  const GradientProblem<KinkedClock, Objective<FinalZ>> problem{
      model, tableaux::heun, {0.0, 0.0}, {1.0}, Objective<FinalZ>{}, options};
  for (auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    const GradientResult<double> result = gradient(problem, problem.y0, problem.p, {schedule, 2});
    REQUIRE(result.diagnostics.nonfinite);
    const NonFinite& at = *result.diagnostics.nonfinite;
    CHECK(at.phase == "backward");
    CHECK(at.step == 4);
    CHECK(at.time == 0.5);
    CHECK(at.component == 0);
    CHECK(!result.ok());
    CHECK(result.message.find("backward sweep at step 4") != std::string::npos);
    CHECK(std::isfinite(result.value));  // the forward sweep was fine
  }
}

namespace {

struct Misfit {  // sum of squares of the final state
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] * y[0] + y[1] * y[1];
  }
};

template <class M>
void compare_storage(const M& model, double end, double step) {
  IntegrateOptions options;
  options.t1 = end;
  options.step = step;
  const GradientProblem<M, Objective<Misfit>> problem{
      model, tableaux::rk4, {M::default_initial.begin(), M::default_initial.end()},
      {M::default_params.begin(), M::default_params.end()}, Objective<Misfit>{}, options};
  for (auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    CheckpointOptions exact{schedule, 20}, rounded{schedule, 20};
    rounded.storage = CheckpointOptions::Storage::float32;
    const GradientResult<double> a = gradient(problem, problem.y0, problem.p, exact);
    const GradientResult<double> b = gradient(problem, problem.y0, problem.p, rounded);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    double scale = 0.0, error = 0.0;
    for (std::size_t j = 0; j < a.dJ_dp.size(); ++j) {
      scale = std::max(scale, std::abs(a.dJ_dp[j]));
      error = std::max(error, std::abs(a.dJ_dp[j] - b.dJ_dp[j]));
    }
    const double relative = error / scale;
    MESSAGE(M::name << ", " << b.diagnostics.schedule << ": float32 checkpoints change dJ/dp by "
                    << relative << " (relative, max norm) and hold "
                    << b.diagnostics.checkpoint_bytes << " bytes instead of "
                    << a.diagnostics.checkpoint_bytes);
    CHECK(b.diagnostics.storage == "float32");
    CHECK(2 * b.diagnostics.checkpoint_bytes == a.diagnostics.checkpoint_bytes);
    CHECK(relative > 0.0);      // the rounding is real ...
    CHECK(relative < 1e-4);     // ... and of float size on these short horizons
  }
}

}  // namespace

TEST_CASE("float32 checkpoints halve the memory at a measured cost in accuracy") {
  compare_storage(models::Lorenz63{}, 2.0, 1e-3);
  compare_storage(models::VanDerPol{}, 10.0, 1e-2);
}

TEST_CASE("float32 checkpoints are refused for a differentiated gradient") {
  const models::VanDerPol model;
  IntegrateOptions options;
  options.step = 0.1;
  const GradientProblem<models::VanDerPol, Objective<Misfit>> problem{
      model, tableaux::rk4, {2.0, 0.0}, {1.0}, Objective<Misfit>{}, options};
  CheckpointOptions rounded;
  rounded.storage = CheckpointOptions::Storage::float32;
  using D = Dual<double, 1>;
  const auto result = gradient<D>(problem, {D(2.0), D(0.0)}, {D::variable(1.0, 0)}, rounded);
  CHECK(result.status == IntegrateStatus::invalid_options);
}
