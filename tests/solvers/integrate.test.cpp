#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/builtin/harmonic_oscillator.hpp"
#include "models/builtin/robertson.hpp"
#include "models/builtin/van_der_pol.hpp"

using namespace backsweep;
using models::HarmonicOscillator;

namespace {

struct BlowUp {  // y' = y^2 from y = 1 reaches infinity at t = 1
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const {
    dydt[0] = T(0);
    dydt[1] = y[1] * y[1];
  }
};

struct SqrtOfNegative {  // y' = -1, z' = sqrt(y): z turns NaN once y < 0, at t > 1
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const {
    using std::sqrt;
    dydt[0] = T(-1);
    dydt[1] = sqrt(y[0]);
  }
};

// Time-dependent, so a carried slope evaluated at a time off the grid would show.
struct Forced {
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::sin;
    dydt[0] = y[1] + sin(T(7) * t);
    dydt[1] = -p[0] * y[0] + T(0.1) * t * y[1];
  }
};

}  // namespace

TEST_CASE("adaptive solvers meet their tolerance against the closed form") {
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  for (const ButcherTableau* tableau : {&tableaux::bs32, &tableaux::dopri5, &tableaux::tsit5}) {
    std::size_t previous_steps = 0;
    for (double tol = 1e-3; tol >= 0.99e-10; tol /= 10) {
      CAPTURE(tableau->name);
      CAPTURE(tol);
      ExplicitRK stepper(model, *tableau);
      IntegrateOptions options;
      options.t1 = 10.0;
      options.rtol = options.atol = tol;
      options.output_times = {2.5, 5.0, 7.5, 10.0};
      double worst = 0;
      std::vector<double> y(model.default_initial.begin(), model.default_initial.end());
      const auto result = integrate(stepper, y.data(), p, options, [&](double t, const double* s) {
        const auto exact = HarmonicOscillator::exact(t, model.default_initial.data(), p);
        worst = std::max({worst, std::abs(s[0] - exact[0]), std::abs(s[1] - exact[1])});
      });
      REQUIRE(result.ok());
      CAPTURE(worst);
      // Global error over ten time units (local error control, |y| <= 1).
      CHECK(worst <= 10.0 * tol);
      // ...and not trivially so: tightening the tolerance costs steps.
      CHECK(result.steps > previous_steps);
      previous_steps = result.steps;
    }
  }
}

TEST_CASE("output times are hit exactly, fixed and adaptive") {
  const models::VanDerPol model;
  const double* p = model.default_params.data();
  for (double step : {0.0, 0.03}) {
    ExplicitRK stepper(model, tableaux::dopri5);
    IntegrateOptions options;
    options.t1 = 3.0;
    options.step = step;
    options.output_times = {0.1, 0.7, 1.0 / 3.0 + 1.0, 3.0};
    std::vector<double> seen;
    std::vector<StepInterval> steps;
    double y[2] = {2.0, 0.0};
    const auto result = integrate(
        stepper, y, p, options, [&](double t, const double*) { seen.push_back(t); },
        [&](const StepInterval& s, const double*) { steps.push_back(s); });
    REQUIRE(result.ok());
    CHECK(seen == std::vector<double>{0.0, 0.1, 0.7, 1.0 / 3.0 + 1.0, 3.0});
    REQUIRE(steps.size() == result.steps);
    CHECK(steps.front().t == 0.0);
    CHECK(steps.back().t_next == 3.0);
    for (std::size_t n = 0; n + 1 < steps.size(); ++n) CHECK(steps[n].t_next == steps[n + 1].t);
    for (double stop : options.output_times) {
      bool lands = false;
      for (const StepInterval& s : steps) lands |= s.t_next == stop;
      CHECK(lands);
    }
    for (const StepInterval& s : steps) CHECK(s.h <= (step > 0 ? step : 3.0));
  }
}

TEST_CASE("replaying a recorded grid without FSAL gives the solve bitwise") {
  const Forced model;
  const double p[1] = {2.0};
  for (double step : {0.0, 0.013}) {
    CAPTURE(step);
    ExplicitRK stepper(model, tableaux::dopri5);
    IntegrateOptions options;
    options.t1 = 3.0;
    options.step = step;
    options.output_times = {0.1, 1.0 / 3.0, 2.9};
    StepSequence sequence(options.t0);
    double y[2] = {1.0, 0.0};
    REQUIRE(integrate(stepper, y, p, options, [](double, const double*) {},
                      [&](const StepInterval& s, const double*) { sequence.push_back(s); })
                .ok());
    ExplicitRK fresh(model, tableaux::dopri5);
    double z[2] = {1.0, 0.0};
    REQUIRE(replay(fresh, z, p, sequence, [&](const StepInterval&, const double*) { fresh.restart(); }).ok());
    CHECK(z[0] == y[0]);
    CHECK(z[1] == y[1]);
    CHECK(fresh.rhs_evaluations() == 7 * sequence.size());
    if (step > 0) {
      StepSequence grid;
      CHECK(fixed_step_sequence(options, grid));
      REQUIRE(grid.size() == sequence.size());
      // Kept as its segments, the grid gives the recorded steps and finds their times.
      CHECK(grid.t_start() == sequence.t_start());
      CHECK(grid.t_end() == sequence.t_end());
      CHECK(grid.index_of(sequence.t_start()) == 0);
      for (std::size_t n = 0; n < grid.size(); ++n) {
        CAPTURE(n);
        CHECK(grid[n].t == sequence[n].t);
        CHECK(grid[n].h == sequence[n].h);
        CHECK(grid[n].t_next == sequence[n].t_next);
        CHECK(grid.index_of(sequence[n].t_next) == n + 1);
        CHECK(grid.index_of(sequence[n].t + 0.5 * sequence[n].h) == StepSequence::npos);
      }
      CHECK(grid.index_of(options.t1 + 1.0) == StepSequence::npos);
      CHECK(grid.index_of(options.t0 - 1.0) == StepSequence::npos);
    }
  }
}

TEST_CASE("failures come back as results, not aborts") {
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  ExplicitRK stepper(model, tableaux::dopri5);
  double y[2] = {1.0, 0.0};

  IntegrateOptions options;
  options.t1 = 100.0;
  options.max_steps = 10;
  auto result = integrate(stepper, y, p, options);
  CHECK(result.status == IntegrateStatus::max_steps_reached);
  CHECK(result.steps == 10);
  CHECK(result.message.find("step 10") != std::string::npos);

  options = {};
  options.rtol = -1;
  CHECK(integrate(stepper, y, p, options).status == IntegrateStatus::invalid_options);

  ExplicitRK fixed_only(model, tableaux::rk4);
  options = {};
  CHECK(integrate(fixed_only, y, p, options).status == IntegrateStatus::invalid_options);
}

TEST_CASE("a solution that blows up is reported with step, time and component") {
  const BlowUp model;
  const double p[1] = {0.0};
  SUBCASE("fixed step: the first non-finite state") {
    ExplicitRK stepper(model, tableaux::rk4);
    IntegrateOptions options;
    options.t1 = 2.0;
    options.step = 0.25;
    double y[2] = {0.0, 1.0};
    const auto result = integrate(stepper, y, p, options);
    CHECK(result.status == IntegrateStatus::non_finite_state);
    CHECK(result.failed_component == 1);
    CHECK(result.message.find("component 1") != std::string::npos);
    CHECK(result.t < 2.0);
  }
  SUBCASE("adaptive: the step size collapses at the singularity") {
    ExplicitRK stepper(model, tableaux::dopri5);
    IntegrateOptions options;
    options.t1 = 2.0;
    double y[2] = {0.0, 1.0};
    const auto result = integrate(stepper, y, p, options);
    const bool collapsed = result.status == IntegrateStatus::step_size_too_small ||
                           result.status == IntegrateStatus::non_finite_state;
    CHECK(collapsed);
    CHECK(result.t == doctest::Approx(1.0).epsilon(1e-3));
  }
}

TEST_CASE("adaptive: NaN is reported as non-finite with its component") {
  const SqrtOfNegative model;
  const double p[1] = {0.0};
  ExplicitRK stepper(model, tableaux::dopri5);
  IntegrateOptions options;
  options.t1 = 3.0;
  double y[2] = {1.0, 0.0};
  const auto result = integrate(stepper, y, p, options);
  CHECK(result.status == IntegrateStatus::non_finite_state);
  CHECK(result.failed_component == 1);
  CHECK(result.t == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("regression: a rejected first step restarts from the right slope (FSAL)") {
  // A huge initial step is rejected; the retry must use f(t0, y0), not a stale slope.
  const HarmonicOscillator model;
  const double* p = model.default_params.data();
  for (const ButcherTableau* tableau : {&tableaux::bs32, &tableaux::dopri5, &tableaux::tsit5}) {
    CAPTURE(tableau->name);
    ExplicitRK stepper(model, *tableau);
    IntegrateOptions options;
    options.t1 = 5.0;
    options.rtol = options.atol = 1e-9;
    options.initial_step = 4.0;
    double y[2] = {1.0, 0.0};
    const auto result = integrate(stepper, y, p, options);
    REQUIRE(result.ok());
    CHECK(result.rejected_steps >= 1);
    const auto exact = HarmonicOscillator::exact(5.0, model.default_initial.data(), p);
    CHECK(std::abs(y[0] - exact[0]) < 1e-8);
  }
}

TEST_CASE("regression: atol = 0 with a zero component neither hangs nor fails") {
  const models::Robertson model;
  ExplicitRK stepper(model, tableaux::dopri5);
  IntegrateOptions options;
  options.t1 = 0.01;
  options.rtol = 1e-6;
  options.atol = 0.0;
  double y[3] = {1.0, 0.0, 0.0};
  const auto result = integrate(stepper, y, model.default_params.data(), options);
  CHECK(result.ok());
  CHECK(y[0] + y[1] + y[2] == doctest::Approx(1.0).epsilon(1e-12));
}
