// A user's project against an installed backsweep: the README's own model functor and
// gradient, checked against central differences of the same discrete solution.
#include <cmath>
#include <cstdio>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"

// README: a model in C++.
// A pendulum with friction, written once for every scalar type the engine uses (double,
// Dual numbers): `using std::sin;` lets sin(y[0]) find Dual's sin as well as std::sin.
struct Pendulum {
  static constexpr std::size_t n_state = 2, n_param = 2;  // angle, rate; g/L, friction
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::sin;
    dydt[0] = y[1];
    dydt[1] = -p[0] * sin(y[0]) - p[1] * y[1];
  }
};

struct FinalAngle {
  template <class T>
  T operator()(const T* y, const T*) const { return y[0]; }
};

int main() {
  backsweep::IntegrateOptions options;
  options.t1 = 5.0;
  options.step = 1e-3;
  const Pendulum model;
  backsweep::GradientProblem<Pendulum, backsweep::Objective<FinalAngle>> problem{
      model, backsweep::tableaux::rk4, {1.0, 0.0}, {9.81, 0.3}, {}, options};
  const auto g = backsweep::gradient(problem, problem.y0, problem.p,
                                     {backsweep::CheckpointOptions::Schedule::revolve, 100});
  // README ends here. dJ/dp by central differences over the same steps:
  backsweep::StepSequence steps;
  backsweep::problem_step_sequence(problem, steps);
  double worst = 0.0;
  for (std::size_t j = 0; j < 2; ++j) {
    std::vector<double> up = problem.p, down = problem.p;
    const double h = 1e-6 * problem.p[j];
    up[j] += h;
    down[j] -= h;
    const double slope = (backsweep::objective_value(problem, problem.y0, up, steps) -
                          backsweep::objective_value(problem, problem.y0, down, steps)) / (2 * h);
    worst = std::max(worst, std::abs(g.dJ_dp[j] - slope) / std::abs(slope));
  }
  std::printf("consumer: %s, J = %.6f, dJ/dp against central differences: %.1e relative\n",
              g.ok() ? "ok" : g.message.c_str(), g.value, worst);
  return g.ok() && worst < 1e-6 ? 0 : 1;
}
