// Events at moving times: a lag time that is a parameter, and conditions of the state
// (a bouncing ball), located on the steps. The adjoint carries the event times'
// dependence on the parameters and the state (the jump condition): against the forward
// tangent (which carries it by the implicit function) to 1e-10, central differences to
// 1e-6, Taylor rates of 2, bitwise under every schedule, and the ball and events that
// fire together against their closed forms.
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

struct Names {
  std::vector<std::string> states, params;
};

TimeEvent event(const Names& names, std::string name, const std::vector<std::pair<std::string, std::string>>& set) {
  const ExpressionScope scope = model_scope(names.states, names.params);
  TimeEvent e{std::move(name), {}, {}};
  for (const auto& [state, value] : set) {
    const auto i = std::size_t(std::find(names.states.begin(), names.states.end(), state) - names.states.begin());
    e.set.push_back({i, Expression::parse(value, scope)});
  }
  return e;
}
Expression parsed(const Names& names, const std::string& text) {
  return Expression::parse(text, model_scope(names.states, names.params));
}

// A ball dropped from x0 (a state), gravity g, restitution e: it bounces where x crosses 0
// going down.
const Names kBall{{"x", "v"}, {"g", "r"}};
ExpressionModel ball() { return ExpressionModel::parse(kBall.states, kBall.params, {"v", "-g"}); }
std::shared_ptr<const TimeEvents> bounces(bool terminal = false) {
  TimeEvent bounce = event(kBall, "bounce", {{"v", "-r*v"}});
  bounce.when = parsed(kBall, "x");
  bounce.direction = -1;
  bounce.terminal = terminal;
  return std::make_shared<const TimeEvents>(std::vector<TimeEvent>{bounce}, 2, 2);
}

struct Height {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0];
  }
};
struct XPlusY {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] + y[1];
  }
};
struct HeightAndSpeed {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] + T(0.3) * y[1] * y[1];
  }
};

template <class Obj = Height>
GradientProblem<ExpressionModel, Objective<Obj>> ball_problem(const ExpressionModel& model, const char* method,
                                                              double step, double t1, bool terminal = false) {
  IntegrateOptions options;
  options.t1 = t1;
  options.step = step;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.events = bounces(terminal);
  return {model, *find_method(method), {2.0, 0.0}, {9.81, 0.8}, Objective<Obj>{}, options};
}

// A one-compartment model with an absorption lag: the oral dose enters the gut at tlag,
// a parameter; a forcing in t, and a dose that reads t, so the derivatives in t count.
const Names kLag{{"gut", "central"}, {"ka", "k", "tlag", "F", "dose"}};
ExpressionModel lagged() {
  return ExpressionModel::parse(kLag.states, kLag.params, {"-ka*gut", "ka*gut - k*central + 0.1*sin(t)"});
}
std::shared_ptr<const TimeEvents> lagged_dose() {
  TimeEvent dose = event(kLag, "dose", {{"gut", "gut + F*dose*(1 + 0.05*t)"}});
  dose.at = parsed(kLag, "tlag");
  // A level crossing as well: a clearance when the central amount falls below 20.
  TimeEvent low = event(kLag, "low", {{"central", "central*0.9 + 0.1*k"}});
  low.when = parsed(kLag, "central - 20 - 0.01*t");
  low.direction = -1;
  return std::make_shared<const TimeEvents>(std::vector<TimeEvent>{dose, low}, 2, 5);
}
struct Misfit {
  template <class T>
  T operator()(std::size_t k, const T* y, const T*) const {
    const double data[] = {10.0, 30.0, 25.0, 12.0};
    const T r = y[1] - T(data[k]);
    return r * r;
  }
};
using LagObjective = Objective<NoTerm, NoTerm, Misfit>;
GradientProblem<ExpressionModel, LagObjective> lag_problem(const ExpressionModel& model, const char* method,
                                                           double step) {
  IntegrateOptions options;
  options.t1 = 12.0;
  options.step = step;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.events = lagged_dose();
  LagObjective objective;
  objective.observation_times = {1.0, 3.0, 6.0, 12.0};
  return {model, *find_method(method), {0.0, 5.0}, {1.1, 0.3, 0.73, 0.8, 60.0}, objective, options};
}

struct Case {
  const char* method;
  double step;  // 0: adaptive
};
const Case kCases[] = {{"rk4", 0.05}, {"dopri5", 0.0}, {"sdirk4", 0.05}, {"esdirk3", 0.0}};

// x' = a, y' = s b with a switch s, J = x(T) + y(T) at T = 3, through `events`.
const Names kSwitched{{"x", "y", "s"}, {"a", "b", "c", "d"}};
GradientProblem<ExpressionModel, Objective<XPlusY>> switched_problem(const ExpressionModel& model, const Case& k,
                                                                    std::vector<TimeEvent> events, double x0,
                                                                    std::vector<double> p) {
  IntegrateOptions options;
  options.t1 = 3.0;
  options.step = k.step;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.events = std::make_shared<const TimeEvents>(std::move(events), 3, 4);
  return {model, *find_method(k.method), {x0, 0.0, 1.0}, std::move(p), Objective<XPlusY>{}, options};
}

}  // namespace

TEST_CASE("a bounce's time and the height after it match the closed form, and so does the gradient") {
  // Dropped from H with v = 0: the floor at t1 = sqrt(2H/g), up again at e g t1, so at T
  // before the next bounce x = e g t1 s - g s^2/2 with s = T - t1. RK4 is exact on this
  // quadratic motion and the bounce is located to ulps, so the computed solution is the
  // closed form's to round-off, and so are its derivatives in e and H (through t1).
  const ExpressionModel model = ball();
  const double H = 2.0, g = 9.81, e = 0.8, T = 1.5;
  const double t1 = std::sqrt(2 * H / g), s = T - t1;
  const double x = e * g * t1 * s - 0.5 * g * s * s;
  const double dx_de = g * t1 * s;
  const double dx_dt1 = e * g * s - e * g * t1 + g * s;
  const double dx_dH = dx_dt1 / (g * t1);  // dt1/dH = 1/(g t1): the event time's sensitivity
  const double dx_dg = dx_dt1 * (-t1 / (2 * g)) + e * t1 * s - 0.5 * s * s;
  for (double step : {0.1, 0.037}) {
    CAPTURE(step);
    const auto problem = ball_problem(model, "rk4", step, T);
    const GradientResult<double> r = gradient(problem, problem.y0, problem.p);
    REQUIRE(r.ok());
    CHECK(r.value == doctest::Approx(x).epsilon(1e-12));
    CHECK(r.dJ_dp[1] == doctest::Approx(dx_de).epsilon(1e-10));
    CHECK(r.dJ_dy0[0] == doctest::Approx(dx_dH).epsilon(1e-10));
    CHECK(r.dJ_dp[0] == doctest::Approx(dx_dg).epsilon(1e-10));
    const std::vector<EventOccurrence> happened = problem.integrate.events->occurrences();
    REQUIRE(happened.size() == 1);
    CHECK(happened[0].t == doctest::Approx(t1).epsilon(1e-14));
  }
}

TEST_CASE("the adjoint through moving events is exact: tangent, central differences, Taylor") {
  const ExpressionModel ball_model = ball(), lag_model = lagged();
  for (const Case& c : kCases) {
    const std::string method = c.method;
    CAPTURE(method);
    {  // Five bounces, then the height and speed at 4.
      const auto problem = ball_problem<HeightAndSpeed>(ball_model, c.method, c.step, 4.0);
      const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
      CAPTURE(check.message);
      CHECK(check.ok);
      CHECK(problem.integrate.events->occurrences().size() == 5);
      CHECK(taylor_test(problem, {0.3, -0.05}, {0.1, 0.2}).min_rate >= 1.95);
    }
    {  // The lag time's own derivative, which if(t >= tlag, ...) would make 0.
      const auto problem = lag_problem(lag_model, c.method, c.step);
      const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
      CAPTURE(check.message);
      CHECK(check.ok);
      const GradientResult<double> g = gradient(problem, problem.y0, problem.p);
      CHECK(std::abs(g.dJ_dp[2]) > 1.0);
      const auto happened = problem.integrate.events->occurrences();
      REQUIRE(happened.size() >= 2);
      CHECK(happened[0].t == 0.73);
      CHECK(taylor_test(problem, {0.05, -0.02, 0.1, 0.03, 2.0}, {0.1, -0.3}).min_rate >= 1.95);
    }
  }
}

TEST_CASE("events at one moment fire together: a tie and a crossing a jump makes, with exact gradients") {
  // x' = a from x0, y' = s b. Where x reaches c, "reach" jumps x by d; "switch" (the same
  // condition) turns s off; the jump carries x across c + d/2, which sets off "count". So
  // at tau = (c - x0)/a all three fire, and J = x(T) + y(T) = c + d + a (T - tau) + b tau + 1.
  const Names& names = kSwitched;
  const ExpressionModel model = ExpressionModel::parse(names.states, names.params, {"a", "s*b", "0"});
  TimeEvent reach = event(names, "reach", {{"x", "x + d"}});
  reach.when = parsed(names, "x - c");
  reach.direction = 1;
  TimeEvent off = event(names, "switch", {{"s", "1 - s"}});
  off.when = parsed(names, "x - c");
  TimeEvent count = event(names, "count", {{"y", "y + 1"}});
  count.when = parsed(names, "x - c - d/2");
  count.direction = 1;
  const double x0 = 0.5, a = 1.3, b = 0.7, c = 2.0, d = 1.5, T = 3.0, tau = (c - x0) / a;
  for (const Case& k : kCases) {
    CAPTURE(k.method);
    const auto problem = switched_problem(model, k, {reach, off, count}, x0, {a, b, c, d});
    const GradientResult<double> r = gradient(problem, problem.y0, problem.p);
    REQUIRE(r.ok());
    CHECK(r.value == doctest::Approx(c + d + a * (T - tau) + b * tau + 1.0).epsilon(1e-10));
    const std::vector<EventOccurrence> happened = problem.integrate.events->occurrences();
    REQUIRE(happened.size() == 3);
    for (const EventOccurrence& o : happened) CHECK(o.t == doctest::Approx(tau).epsilon(1e-13));
    const double dtau_da = -tau / a;  // dJ = (b - a) dtau + ...
    CHECK(r.dJ_dp[0] == doctest::Approx(T - tau + (b - a) * dtau_da).epsilon(1e-9));
    CHECK(r.dJ_dp[1] == doctest::Approx(tau).epsilon(1e-9));
    CHECK(r.dJ_dp[2] == doctest::Approx(1.0 + (b - a) / a).epsilon(1e-9));
    CHECK(r.dJ_dp[3] == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(r.dJ_dy0[0] == doctest::Approx(1.0 - b / a).epsilon(1e-9));
    const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
    CAPTURE(check.message);
    CHECK(check.ok);
  }
}

TEST_CASE("a jump at a given time that carries conditions across 0 fires them there, with exact gradients") {
  // x' = a from x0, y' = s b; at t = 1 "dose" adds d to x, which carries x across c
  // ("switch" turns s off) and c + d/2 ("count" adds x to y), so at T
  // J = x(T) + y(T) = x0 + a T + d + b + (x0 + a + d).
  const Names& names = kSwitched;
  const ExpressionModel model = ExpressionModel::parse(names.states, names.params, {"a", "s*b", "0"});
  TimeEvent dose = event(names, "dose", {{"x", "x + d"}});
  dose.times = {1.0};
  TimeEvent off = event(names, "switch", {{"s", "1 - s"}});
  off.when = parsed(names, "x - c");
  TimeEvent count = event(names, "count", {{"y", "y + x"}});
  count.when = parsed(names, "x - c - d/2");
  count.direction = 1;
  const double x0 = 0.1, a = 0.5, b = 0.7, c = 1.0, d = 2.0, T = 3.0;
  for (const Case& k : kCases) {
    CAPTURE(k.method);
    const auto problem = switched_problem(model, k, {dose, off, count}, x0, {a, b, c, d});
    const GradientResult<double> r = gradient(problem, problem.y0, problem.p);
    REQUIRE(r.ok());
    CHECK(r.value == doctest::Approx(x0 + a * T + d + b + x0 + a + d).epsilon(1e-10));
    const std::vector<EventOccurrence> happened = problem.integrate.events->occurrences();
    REQUIRE(happened.size() == 2);
    CHECK(happened[0].event == 1);
    CHECK(happened[1].event == 2);
    CHECK(happened[1].t == 1.0);
    CHECK(r.dJ_dp[0] == doctest::Approx(T + 1.0).epsilon(1e-9));
    CHECK(r.dJ_dp[1] == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(r.dJ_dp[2] == doctest::Approx(0.0));
    CHECK(r.dJ_dp[3] == doctest::Approx(2.0).epsilon(1e-9));
    CHECK(r.dJ_dy0[0] == doctest::Approx(2.0).epsilon(1e-9));
    const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
    CAPTURE(check.message);
    CHECK(check.ok);
  }
}

TEST_CASE("a terminal event ends the run there: the state holds, and its gradient is exact") {
  const ExpressionModel model = ball();
  for (const Case& c : kCases) {
    CAPTURE(c.method);
    const auto problem = ball_problem<HeightAndSpeed>(model, c.method, c.step, 3.0, true);
    const GradientCheckReport check = check_gradient(problem, 1e-10, 1e-6);
    CAPTURE(check.message);
    CHECK(check.ok);
    const GradientResult<double> r = gradient(problem, problem.y0, problem.p);
    const double v_after = 0.8 * 9.81 * std::sqrt(2 * 2.0 / 9.81);  // e times the speed at the floor
    CHECK(r.value == doctest::Approx(0.3 * v_after * v_after).epsilon(1e-6));
    CHECK(problem.integrate.events->occurrences().size() == 1);
  }
}

TEST_CASE("gradients through moving events are bitwise the same under every checkpoint schedule") {
  const ExpressionModel model = lagged();
  for (const Case& c : kCases) {
    CAPTURE(c.method);
    const auto problem = lag_problem(model, c.method, c.step);
    using S = CheckpointOptions::Schedule;
    const GradientResult<double> all = gradient(problem, problem.y0, problem.p, {S::store_all});
    REQUIRE(all.ok());
    for (S schedule : {S::revolve, S::online})
      for (std::size_t slots : {2u, 7u}) {
        const GradientResult<double> g = gradient(problem, problem.y0, problem.p, {schedule, slots});
        REQUIRE(g.ok());
        CHECK(g.value == all.value);
        CHECK(g.dJ_dp == all.dJ_dp);
        CHECK(g.dJ_dy0 == all.dJ_dy0);
      }
  }
}

TEST_CASE("a ball that comes to rest chatters: the run stops with the event, the step and the time") {
  const ExpressionModel model = ball();
  auto problem = ball_problem(model, "rk4", 0.5, 10.0);
  problem.p[1] = 0.5;  // bounces ever shorter: infinitely many before t = 3 x the first
  std::vector<double> y = problem.y0;
  try {
    (void)solve_forward(model, problem.method, y.data(), problem.p.data(), problem.integrate,
                        [](double, const double*) {});
    FAIL("no error");
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    CHECK(message.find("'bounce' chatters (Zeno)") != std::string::npos);
    CHECK(message.find("step from t = ") != std::string::npos);
  }
}

