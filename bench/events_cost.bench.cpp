// What an event costs in the adjoint: the gradient time per event against the time per
// step, for jumps at given times and for located events (medians of interleaved runs).
//   build/bench/bench_events_cost
// A dose model (two compartments, RK4, 10^4 steps) with none and with 1000 doses at given
// times; a ball (RK4, 10^4 steps) with no event, with a condition that never crosses
// (every step is then taken in rescaled time and watched) and with ~78 located bounces.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/expression_model.hpp"

namespace {

using namespace backsweep;

struct Final {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] + y[1];
  }
};
using Problem = GradientProblem<ExpressionModel, Objective<Final>>;

TimeEvent assigns(const ExpressionScope& scope, std::string name, std::size_t state, const std::string& value) {
  TimeEvent e{std::move(name), {}, {}};
  e.set.push_back({state, Expression::parse(value, scope)});
  return e;
}

}  // namespace

int main() {
  constexpr int kSteps = 10'000, kRepeats = 15, kDoses = 1000;
  const std::vector<std::string> pk_states{"gut", "central"}, pk_params{"ka", "ke", "dose"};
  const ExpressionModel pk = ExpressionModel::parse(pk_states, pk_params, {"-ka*gut", "ka*gut - ke*central"});
  IntegrateOptions options;
  options.t1 = 100.0;
  options.step = options.t1 / kSteps;
  const Problem no_doses{pk, tableaux::rk4, {0.0, 0.0}, {1.2, 0.3, 10.0}, Objective<Final>{}, options};
  Problem doses = no_doses;
  TimeEvent dose = assigns(model_scope(pk_states, pk_params), "dose", 0, "gut + dose");
  for (int k = 0; k < kDoses; ++k) dose.times.push_back(0.05 + 0.1 * k);  // every 10 steps
  doses.integrate.events = std::make_shared<const TimeEvents>(std::vector<TimeEvent>{dose}, 2, 3);

  const std::vector<std::string> ball_states{"x", "v"}, ball_params{"g", "r"};
  const ExpressionScope ball_scope = model_scope(ball_states, ball_params);
  const ExpressionModel ball = ExpressionModel::parse(ball_states, ball_params, {"v", "-g"});
  const Problem falling{ball, tableaux::rk4, {2.0, 0.0}, {9.81, 1.0}, Objective<Final>{}, options};
  const auto watched = [&](const std::string& condition) {
    Problem p = falling;
    TimeEvent bounce = assigns(ball_scope, "bounce", 1, "-r*v");
    bounce.when = Expression::parse(condition, ball_scope);
    bounce.direction = -1;
    p.integrate.events = std::make_shared<const TimeEvents>(std::vector<TimeEvent>{bounce}, 2, 2);
    return p;
  };
  const Problem never = watched("x + 1000"), bouncing = watched("x");

  const std::vector<double> t = bench::interleaved_medians(
      {[&] { (void)gradient(no_doses, no_doses.y0, no_doses.p); }, [&] { (void)gradient(doses, doses.y0, doses.p); },
       [&] { (void)gradient(falling, falling.y0, falling.p); }, [&] { (void)gradient(never, never.y0, never.p); },
       [&] { (void)gradient(bouncing, bouncing.y0, bouncing.p); }},
      kRepeats);
  const GradientResult<double> dosed = gradient(doses, doses.y0, doses.p);
  const GradientResult<double> bounced = gradient(bouncing, bouncing.y0, bouncing.p);
  const double bounces = double(bouncing.integrate.events->occurrences().size());
  const double per_step = t[0] / double(no_doses.integrate.t1 / options.step);
  const double ball_step = t[2] / kSteps;
  std::printf("gradient (adjoint) cost of events, RK4, %d steps, medians of %d interleaved runs\n", kSteps, kRepeats);
  std::printf("  doses at given times: %zu steps with %d doses vs %d without: %.2f steps' time per dose\n",
              dosed.diagnostics.steps, kDoses, kSteps,
              (t[1] - t[0] * double(dosed.diagnostics.steps) / kSteps) / kDoses / per_step);
  std::printf("  a watched condition that never crosses: %.2f x the time per step\n", t[3] / t[2]);
  std::printf("  %.0f located bounces: %.2f steps' time per bounce (over the watched steps)\n", bounces,
              (t[4] - t[3]) / bounces / ball_step);
  return 0;
}
