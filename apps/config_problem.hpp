#pragma once
// The GradientProblem of a gradient config for a model (a config's own, or a grid kernel's
// device form), with the config's objective, the given initial numbers and parameters,
// the observers and the progress: what engine_of/adjoint_gradient.cpp, engine_of/tangent_gradient.cpp and
// backend_gradient.cpp each hand to the engine.
#include <vector>

#include "apps/config_gradient.hpp"
#include "io/assembly/config_objective.hpp"

namespace backsweep::apps {

// Calls f(problem).
template <Model M, class F>
void with_config_problem(const GradientConfig& config, const M& model, const MonitorOptions& monitor,
                         const std::vector<double>& y0, const std::vector<double>& p,
                         const GradientObservers& observers, RunProgress* progress, F&& f) {
  const SimulateConfig& sim = config.simulate;
  visit_config_objective(config, [&](auto objective) {
    objective.initial.numbers = &y0;
    GradientProblem<M, decltype(objective)> problem{model, sim.method, y0, p, objective, sim.integrate, monitor};
    problem.forward_observer = observers.forward;
    problem.adjoint_observer = observers.adjoint;
    problem.integrate.progress = progress;
    f(problem);
  });
}

}  // namespace backsweep::apps
