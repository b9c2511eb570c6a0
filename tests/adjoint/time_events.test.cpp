// Time events: the steps land on them, the jumps apply once, in declared order, and the
// adjoint through them is the exact derivative of the computed solution: against the
// forward tangent (which carries the jumps itself) to 1e-10 and central differences to
// 1e-6, for an explicit fixed, an explicit adaptive and an implicit method, bitwise the
// same under every checkpoint schedule, with Taylor rates of 2.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "models/expression_model.hpp"
#include "solvers/solve.hpp"

using namespace backsweep;

namespace {

// A two-compartment model with oral doses (gut -> central <-> peripheral).
const std::vector<std::string> kStates{"gut", "central", "peripheral"};
const std::vector<std::string> kParams{"ka", "CL", "V", "Q", "Vp", "F", "dose"};
const std::vector<double> kValues{1.2, 0.8, 5.0, 0.5, 8.0, 0.7, 100.0};

ExpressionModel two_compartments() {
  return ExpressionModel::parse(kStates, kParams,
                                {"-ka*gut", "ka*gut - (CL + Q)/V*central + Q/Vp*peripheral",
                                 "Q/V*central - Q/Vp*peripheral"});
}

TimeEvent event(std::string name, std::vector<double> times,
                const std::vector<std::pair<std::string, std::string>>& set,
                const std::vector<std::string>& states = kStates, const std::vector<std::string>& params = kParams) {
  const ExpressionScope scope = model_scope(states, params);
  TimeEvent e{std::move(name), std::move(times), {}};
  for (const auto& [state, value] : set) {
    const std::size_t i = std::size_t(std::find(states.begin(), states.end(), state) - states.begin());
    e.set.push_back({i, Expression::parse(value, scope)});
  }
  return e;
}

// Doses at 0 (the start: it applies to the initial state), 0.5, 6, 12 and 18 (the end:
// the terminal term sees it), of a parameter-dependent amount, and a clearance of half
// the gut at 6, declared after the dose there: it halves the dosed gut.
std::shared_ptr<const TimeEvents> doses() {
  return std::make_shared<const TimeEvents>(
      std::vector<TimeEvent>{event("dose", {0.0, 0.5, 6.0, 12.0, 18.0}, {{"gut", "gut + F*dose"}}),
                             event("purge", {6.0}, {{"gut", "gut/2"}, {"central", "central + 0.01*gut*ka"}})},
      kStates.size(), kParams.size());
}

// Squared misfits of the concentration central/V at some times, one at an event time
// (it sees the state after the jump), and the final gut amount.
struct Misfit {
  template <class T>
  T operator()(std::size_t k, const T* y, const T* p) const {
    const double data[] = {3.0, 9.0, 4.0, 7.0, 2.0};
    const T r = y[1] / p[2] - T(data[k]);
    return r * r;
  }
};
struct FinalGut {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] * y[0];
  }
};
using PkObjective = Objective<FinalGut, NoTerm, Misfit>;

struct Case {
  const char* method;
  double step;  // 0: adaptive
};

GradientProblem<ExpressionModel, PkObjective> pk_problem(const ExpressionModel& model, const Case& c) {
  IntegrateOptions options;
  options.t1 = 18.0;
  options.step = c.step;
  options.rtol = 1e-9;
  options.atol = 1e-11;
  options.events = doses();
  PkObjective objective;
  objective.observation_times = {2.0, 6.0, 8.5, 12.0, 15.0};
  return {model, *find_method(c.method), {0.0, 0.0, 0.0}, kValues, objective, options};
}

}  // namespace

TEST_CASE("steps land on event times and the jumps apply once, in declared order") {
  // y' = -y with y <- 2y then y <- y + 1 at t = 1: y(2) = (2 e^-1 + 1) e^-1.
  const ExpressionModel decay = ExpressionModel::parse({"y"}, {"k"}, {"-k*y"});
  IntegrateOptions options;
  options.t1 = 2.0;
  options.step = 0.03;  // does not divide 1: the grid lands on the event anyway
  options.output_times = {0.5, 2.0};
  options.events = std::make_shared<const TimeEvents>(
      std::vector<TimeEvent>{event("double", {1.0}, {{"y", "2*y"}}, {"y"}, {"k"}),
                             event("add", {1.0}, {{"y", "y + 1"}}, {"y"}, {"k"})},
      1, 1);
  for (const std::string method : {"rk4", "dopri5", "sdirk4"}) {
    CAPTURE(method);
    IntegrateOptions o = options;
    if (method != "rk4") o.step = 0.0, o.rtol = 1e-10, o.atol = 1e-12;
    std::vector<double> y{1.0}, p{1.0}, seen;
    const IntegrateResult r = solve_forward(decay, *find_method(method), y.data(), p.data(), o,
                                            [&](double t, const double*) { seen.push_back(t); });
    REQUIRE(r.ok());
    CHECK(seen == std::vector<double>{0.0, 0.5, 2.0});  // an event time is not an output
    CHECK(y[0] == doctest::Approx((2 * std::exp(-1.0) + 1) * std::exp(-1.0)).epsilon(1e-7));
  }
}

TEST_CASE("the adjoint through time events is exact: tangent, central differences, Taylor") {
  const ExpressionModel model = two_compartments();
  for (const Case& c : {Case{"rk4", 0.05}, Case{"dopri5", 0.0}, Case{"sdirk4", 0.05}, Case{"esdirk3", 0.0}}) {
    const std::string method = c.method;
    CAPTURE(method);
    const auto problem = pk_problem(model, c);
    const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
    CAPTURE(check.message);
    CHECK(check.ok);
    // A dose's size and bioavailability do move J: the jump's parameter part is there.
    const GradientResult<double> g = gradient(problem, problem.y0, problem.p);
    CHECK(std::abs(g.dJ_dp[5]) > 1e-3);
    CHECK(std::abs(g.dJ_dp[6]) > 1e-5);
    const TaylorTestReport taylor = taylor_test(problem, {0.1, -0.05, 0.2, 0.03, -0.4, 0.02, 1.0}, {0.5, 0.1, 0.2});
    CAPTURE(taylor.min_rate);
    CHECK(taylor.min_rate >= 1.95);
  }
}

TEST_CASE("gradients through events are bitwise the same under every checkpoint schedule") {
  const ExpressionModel model = two_compartments();
  for (const Case& c : {Case{"rk4", 0.05}, Case{"dopri5", 0.0}, Case{"sdirk4", 0.05}}) {
    const std::string method = c.method;
    CAPTURE(method);
    const auto problem = pk_problem(model, c);
    const GradientResult<double> all = gradient(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::store_all});
    REQUIRE(all.ok());
    using S = CheckpointOptions::Schedule;
    for (S schedule : {S::revolve, S::online}) {
      for (std::size_t slots : {2u, 7u}) {
        CAPTURE(slots);
        const GradientResult<double> g = gradient(problem, problem.y0, problem.p, {schedule, slots});
        REQUIRE(g.ok());
        CHECK(g.value == all.value);
        CHECK(g.dJ_dp == all.dJ_dp);
        CHECK(g.dJ_dy0 == all.dJ_dy0);
      }
    }
  }
}

TEST_CASE("CVODES takes time events by restarting: its adjoint and its tangent agree with ours to the tolerance") {
  const ExpressionModel model = two_compartments();
  const auto ours = pk_problem(model, {"dopri5", 0.0});
  const GradientResult<double> reference = gradient(ours, ours.y0, ours.p);
  REQUIRE(reference.ok());
  for (const char* method : {"cvodes_bdf", "cvodes_adams"}) {
    CAPTURE(method);
    auto problem = pk_problem(model, {method, 0.0});
    problem.integrate.rtol = 1e-10;
    problem.integrate.atol = 1e-12;
    const GradientResult<double> adjoint = gradient(problem, problem.y0, problem.p);
    const GradientResult<double> tangent = tangent_gradient(problem);
    CAPTURE(adjoint.message);
    REQUIRE(adjoint.ok());
    REQUIRE(tangent.ok());
    CHECK(adjoint.value == doctest::Approx(reference.value).epsilon(1e-7));
    CHECK(tangent.value == doctest::Approx(reference.value).epsilon(1e-7));
    for (std::size_t j = 0; j < kValues.size(); ++j) {
      CAPTURE(j);
      CHECK(adjoint.dJ_dp[j] == doctest::Approx(reference.dJ_dp[j]).epsilon(1e-5));
      CHECK(tangent.dJ_dp[j] == doctest::Approx(reference.dJ_dp[j]).epsilon(1e-5));
    }
    for (std::size_t i = 0; i < 3; ++i) CHECK(adjoint.dJ_dy0[i] == doctest::Approx(reference.dJ_dy0[i]).epsilon(1e-5));
    std::vector<double> y = problem.y0, y_ours = ours.y0;
    std::vector<double> seen;
    REQUIRE(solve_forward(model, problem.method, y.data(), problem.p.data(), problem.integrate,
                          [&](double t, const double*) { seen.push_back(t); }).ok());
    REQUIRE(solve_forward(model, ours.method, y_ours.data(), ours.p.data(), ours.integrate, [](double, const double*) {}).ok());
    for (std::size_t i = 0; i < 3; ++i) CHECK(y[i] == doctest::Approx(y_ours[i]).epsilon(1e-7));
  }
}

TEST_CASE("CVODES refuses events at moving times by name") {
  const ExpressionModel model = two_compartments();
  auto problem = pk_problem(model, {"cvodes_bdf", 0.0});
  std::vector<TimeEvent> events = problem.integrate.events->events();
  events[1].times.clear();
  events[1].at = Expression::parse("V", model_scope(kStates, kParams));
  problem.integrate.events = std::make_shared<const TimeEvents>(events, kStates.size(), kParams.size());
  const GradientResult<double> g = gradient(problem, problem.y0, problem.p);
  CHECK(g.status == IntegrateStatus::invalid_options);
  CHECK(g.message.find("moving times") != std::string::npos);
  CHECK(tangent_gradient(problem).status == IntegrateStatus::invalid_options);
  std::vector<double> y = problem.y0;
  CHECK(solve_forward(model, problem.method, y.data(), problem.p.data(), problem.integrate, [](double, const double*) {})
            .status == IntegrateStatus::invalid_options);
}
